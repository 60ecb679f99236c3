"""Duplicate deals: a tournament flag and each match's deal group.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tournaments") as batch:
        batch.add_column(
            sa.Column("duplicate", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("deal_group", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("deal_group")
    with op.batch_alter_table("tournaments") as batch:
        batch.drop_column("duplicate")
