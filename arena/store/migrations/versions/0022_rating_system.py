"""Each tournament names its rating of record (arena.tournament.ratings): TrueSkill for
every tournament so far.

Revision ID: 0022
Revises: 0021
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "tournaments",
        sa.Column(
            "rating_system", sa.String(length=16), nullable=False, server_default="trueskill"
        ),
    )


def downgrade() -> None:
    # plain DROP COLUMN (SQLite 3.35+), never a batch: copying the table breaks the
    # foreign keys that point at it
    op.drop_column("tournaments", "rating_system")
