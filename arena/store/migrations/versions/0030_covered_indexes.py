"""Drop the three indexes a wider one already covers: ``seats.match_id`` (led by the
unique ``(match_id, seat)``), ``matches.tournament_id`` (led by ``(tournament_id,
index)`` and ``(tournament_id, status)``) and ``rating_history.tournament_id`` (led by
``(tournament_id, bot_version_id, completion)``). They cost a season 84 bytes a match
on disk (arena bench season at 100,000 matches: seats 51, rating history 27, matches
7), and every recorded match their writes.

Revision ID: 0030
Revises: 0029
"""

from __future__ import annotations

from alembic import op

revision = "0030"
down_revision = "0029"
branch_labels = None
depends_on = None

#: the indexes dropped: name, table, column
COVERED = (
    ("ix_seats_match_id", "seats", "match_id"),
    ("ix_matches_tournament_id", "matches", "tournament_id"),
    ("ix_rating_history_tournament_id", "rating_history", "tournament_id"),
)


def upgrade() -> None:
    for name, table, _ in COVERED:
        op.drop_index(name, table_name=table)


def downgrade() -> None:
    for name, table, column in COVERED:
        op.create_index(name, table, [column])
