"""Fair play: one owner's bots apart unless a tournament allows it, and the running
totals of the collusion report (arena.fairplay), with the recorded batches not yet
added to them.

Revision ID: 0013
Revises: 0012
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "tournaments",
        sa.Column("same_owner_tables", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    op.create_table(
        "fairplay_counts",
        sa.Column("tournament_id", sa.Integer(), sa.ForeignKey("tournaments.id"), primary_key=True),
        sa.Column("chance", sa.String(16), primary_key=True),
        sa.Column(
            "actor_version_id", sa.Integer(), sa.ForeignKey("bot_versions.id"), primary_key=True
        ),
        sa.Column(
            "other_version_id", sa.Integer(), sa.ForeignKey("bot_versions.id"), primary_key=True
        ),
        sa.Column("stratum", sa.String(32), primary_key=True),
        sa.Column("chances", sa.Integer(), nullable=False),
        sa.Column("taken", sa.Integer(), nullable=False),
    )
    op.create_table(
        "fairplay_pending",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("tournament_id", sa.Integer(), sa.ForeignKey("tournaments.id"), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
    )
    op.create_index("ix_fairplay_pending_tournament_id", "fairplay_pending", ["tournament_id"])


def downgrade() -> None:
    op.drop_index("ix_fairplay_pending_tournament_id", "fairplay_pending")
    op.drop_table("fairplay_pending")
    op.drop_table("fairplay_counts")
    # SQLite drops a column in place (a batch copy of the table would trip its foreign keys)
    if op.get_bind().dialect.name == "sqlite":
        op.execute("ALTER TABLE tournaments DROP COLUMN same_owner_tables")
    else:
        op.drop_column("tournaments", "same_owner_tables")
