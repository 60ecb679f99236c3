"""A/B tests of bot versions on paired duplicate deals (arena.store.abtests) and the
pairs each has counted.

Revision ID: 0014
Revises: 0013
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "abtests",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(100), nullable=False, unique=True),
        sa.Column(
            "tournament_id",
            sa.Integer(),
            sa.ForeignKey("tournaments.id"),
            nullable=False,
            unique=True,
        ),
        sa.Column("new_version_id", sa.Integer(), sa.ForeignKey("bot_versions.id"), nullable=False),
        sa.Column(
            "base_version_id", sa.Integer(), sa.ForeignKey("bot_versions.id"), nullable=False
        ),
        sa.Column("field", sa.JSON(), nullable=False),
        sa.Column("elo0", sa.Float(), nullable=False),
        sa.Column("elo1", sa.Float(), nullable=False),
        sa.Column("alpha", sa.Float(), nullable=False),
        sa.Column("beta", sa.Float(), nullable=False),
        sa.Column("max_matches", sa.Integer(), nullable=False),
        sa.Column("batch", sa.Integer(), nullable=False),
        sa.Column(
            "status",
            sa.Enum(
                "created",
                "running",
                "accepted",
                "rejected",
                "stopped",
                "capped",
                name="abteststatus",
                native_enum=False,
                length=32,
                create_constraint=True,
            ),
            nullable=False,
        ),  # fmt: skip
        sa.Column("counts", sa.JSON(), nullable=False),
        sa.Column("llr", sa.Float(), nullable=False),
        sa.Column("pairs", sa.Integer(), nullable=False),
        sa.Column("owner_id", sa.Integer(), sa.ForeignKey("owners.id")),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True)),
    )
    op.create_table(
        "abtest_pairs",
        sa.Column("abtest_id", sa.Integer(), sa.ForeignKey("abtests.id"), primary_key=True),
        sa.Column("pair", sa.Integer(), primary_key=True),
        sa.Column("counted", sa.Integer(), nullable=False),
        sa.Column("pair_class", sa.Integer(), nullable=False),
        sa.Column("new_place", sa.Integer(), nullable=False),
        sa.Column("base_place", sa.Integer(), nullable=False),
        sa.Column("llr", sa.Float(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("abtest_pairs")
    op.drop_table("abtests")
