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


def _counter(name: str) -> sa.Column[int]:
    return sa.Column(name, sa.Integer(), nullable=False, server_default="0")


def upgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        for name in STYLE:
            batch.add_column(_counter(name))
    with op.batch_alter_table("entries") as batch:
        for name in TOTALS:
            batch.add_column(_counter(name))
    op.create_index("ix_matches_tournament_status", "matches", ["tournament_id", "status"])
    _backfill_totals()


def _backfill_totals() -> None:
    """Totals of the matches recorded before this revision (play style needs the logs
    and starts from zero)."""
    sums = {
        "place_sum": "s.place",
        "wins": "CASE WHEN s.place = 1 THEN 1 ELSE 0 END",
        "forfeits": "CASE WHEN s.forfeit THEN 1 ELSE 0 END",
        "strikes": "s.strikes",
        "illegal": "s.illegal",
        "decisions": "s.decisions",
    }
    for column, value in sums.items():
        op.execute(
            f"UPDATE entries SET {column} = (SELECT COALESCE(SUM({value}), 0) FROM seats s "
            "JOIN matches m ON m.id = s.match_id WHERE m.tournament_id = entries.tournament_id "
            "AND s.bot_version_id = entries.bot_version_id AND m.status = 'done')"
        )


def downgrade() -> None:
    op.drop_index("ix_matches_tournament_status", "matches")
    with op.batch_alter_table("entries") as batch:
        for name in TOTALS:
            batch.drop_column(name)
    with op.batch_alter_table("seats") as batch:
        for name in STYLE:
            batch.drop_column(name)
