"""Play style per seat, and running totals per tournament entry.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

STYLE = ("plays", "bluffs", "challenges", "challenges_right", "believes", "believes_right")
TOTALS = ("place_sum", "wins", "forfeits", "strikes", "illegal", "decisions", *STYLE)


def _counter(name: str) -> sa.Column:
    return sa.Column(name, sa.Integer(), nullable=False, server_default="0")


def upgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        for name in STYLE:
            batch.add_column(_counter(name))
    with op.batch_alter_table("entries") as batch:
        for name in TOTALS:
            batch.add_column(_counter(name))
    op.create_index("ix_matches_tournament_status", "matches", ["tournament_id", "status"])


def downgrade() -> None:
    op.drop_index("ix_matches_tournament_status", "matches")
    with op.batch_alter_table("entries") as batch:
        for name in TOTALS:
            batch.drop_column(name)
    with op.batch_alter_table("seats") as batch:
        for name in STYLE:
            batch.drop_column(name)
