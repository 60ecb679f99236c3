"""Formats played in rounds (Swiss, knockout): the round a match belongs to, and how
many of each table go on in a knockout.

Revision ID: 0020
Revises: 0019
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("matches", sa.Column("round", sa.Integer()))
    op.add_column("tournaments", sa.Column("advance", sa.Integer()))


def downgrade() -> None:
    op.drop_column("tournaments", "advance")
    op.drop_column("matches", "round")
