"""People at tables (/play): the matches a person played with bots, unranked; and the
owners' consent that their bot sit at a person's table or be chosen as a scrimmage's
rival.

Revision ID: 0021
Revises: 0020
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ADD COLUMN, never a batch: SQLite's batch copies the table and would drop the
    # expression index on the folded name (uq_bots_name_folded), which it cannot reflect
    for name in ("people_may_play", "scrimmage_rival"):
        op.add_column(
            "bots", sa.Column(name, sa.Boolean(), nullable=False, server_default=sa.true())
        )
    op.create_table(
        "tables",
        sa.Column("id", sa.String(length=32), primary_key=True),
        sa.Column("match_id", sa.String(length=64), nullable=False, unique=True),
        sa.Column("person", sa.String(length=100), nullable=False),
        sa.Column("owner_id", sa.Integer(), sa.ForeignKey("owners.id")),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("names", sa.JSON(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column(
            "status",
            sa.Enum(
                "playing", "done", "abandoned", name="tablestatus", native_enum=False, length=32
            ),
            nullable=False,
        ),
        sa.Column("place", sa.Integer()),
        sa.Column("forfeit_kind", sa.String(length=32)),
        sa.Column("log", sa.LargeBinary()),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True)),
    )
    op.create_index("ix_tables_owner_id", "tables", ["owner_id"])


def downgrade() -> None:
    op.drop_index("ix_tables_owner_id", "tables")
    op.drop_table("tables")
    for name in ("scrimmage_rival", "people_may_play"):
        op.drop_column("bots", name)
