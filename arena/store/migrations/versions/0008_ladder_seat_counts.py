"""Ladder seat counts: each entry keeps how often it was seated at each position, so
placing a ladder table reads a bounded amount of state however long the ladder ran.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

_entries = sa.table(
    "entries",
    sa.column("id", sa.Integer),
    sa.column("tournament_id", sa.Integer),
    sa.column("bot_version_id", sa.Integer),
    sa.column("seat_counts", sa.JSON),
)
_matches = sa.table("matches", sa.column("id", sa.Integer), sa.column("tournament_id", sa.Integer))
_seats = sa.table(
    "seats",
    sa.column("match_id", sa.Integer),
    sa.column("seat", sa.Integer),
    sa.column("bot_version_id", sa.Integer),
)


def upgrade() -> None:
    with op.batch_alter_table("entries") as batch:
        batch.add_column(sa.Column("seat_counts", sa.JSON(), nullable=True))
    connection = op.get_bind()
    counts: dict[tuple[int, int], dict[int, int]] = {}
    for tournament_id, version_id, seat, n in connection.execute(
        sa.select(_matches.c.tournament_id, _seats.c.bot_version_id, _seats.c.seat, sa.func.count())
        .join(_matches, _matches.c.id == _seats.c.match_id)
        .group_by(_matches.c.tournament_id, _seats.c.bot_version_id, _seats.c.seat)
    ):
        counts.setdefault((tournament_id, version_id), {})[seat] = n
    for (tournament_id, version_id), by_seat in counts.items():
        connection.execute(
            _entries.update()
            .where(
                _entries.c.tournament_id == tournament_id,
                _entries.c.bot_version_id == version_id,
            )
            .values(seat_counts=[by_seat.get(seat, 0) for seat in range(max(by_seat) + 1)])
        )


def downgrade() -> None:
    with op.batch_alter_table("entries") as batch:
        batch.drop_column("seat_counts")
