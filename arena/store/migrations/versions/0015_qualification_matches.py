"""Qualification matches are stored as matches: each version names its own.

Revision ID: 0015
Revises: 0014
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


# Plain ALTER TABLE, no batch mode: SQLite adds and drops a column in place (3.35+),
# where a batch would copy bot_versions and drop it under the foreign keys that name it.


def upgrade() -> None:
    op.add_column("bot_versions", sa.Column("qualification_match_id", sa.Integer()))


def downgrade() -> None:
    op.drop_column("bot_versions", "qualification_match_id")
