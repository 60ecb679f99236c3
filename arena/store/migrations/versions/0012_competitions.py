"""Competitions: standing ladders that every qualified version of an entered bot joins.

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "entries", sa.Column("retired", sa.Boolean(), nullable=False, server_default=sa.false())
    )
    op.create_table(
        "competitions",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(100), nullable=False, unique=True),
        sa.Column("tournament_id", sa.Integer(), sa.ForeignKey("tournaments.id"), nullable=False),
        sa.Column("season", sa.Integer(), nullable=False),
        sa.Column(
            "status",
            sa.Enum(
                "open",
                "paused",
                "closed",
                name="competitionstatus",
                native_enum=False,
                length=32,
                create_constraint=True,
            ),
            nullable=False,
        ),  # fmt: skip
        sa.Column("is_default", sa.Boolean(), nullable=False),
        sa.Column("opens_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("closes_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "competition_bots",
        sa.Column(
            "competition_id", sa.Integer(), sa.ForeignKey("competitions.id"), primary_key=True
        ),
        sa.Column("bot_id", sa.Integer(), sa.ForeignKey("bots.id"), primary_key=True),
    )


def downgrade() -> None:
    op.drop_table("competition_bots")
    op.drop_table("competitions")
    if op.get_bind().dialect.name == "sqlite":
        op.execute("ALTER TABLE entries DROP COLUMN retired")
    else:
        op.drop_column("entries", "retired")
