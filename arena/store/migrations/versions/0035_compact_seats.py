"""A seat's narrow columns: its place at the table and its place in the result as small
integers, its two latencies in 4 bytes (milliseconds to the microsecond, as the referee
rounds them). A season's seats are four rows a match (``arena bench season``).

Revision ID: 0035
Revises: 0034
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from arena.store.migrations.seats_copy import retype_seats

revision = "0035"
down_revision = "0034"
branch_labels = None
depends_on = None

NARROW: dict[str, sa.types.TypeEngine[Any]] = {
    "seat": sa.SmallInteger(),
    "place": sa.SmallInteger(),
    "latency_mean_ms": sa.REAL(),
    "latency_p99_ms": sa.REAL(),
}
WIDE: dict[str, sa.types.TypeEngine[Any]] = {
    "seat": sa.Integer(),
    "place": sa.Integer(),
    "latency_mean_ms": sa.Float(),
    "latency_p99_ms": sa.Float(),
}


def upgrade() -> None:
    retype_seats(NARROW)


def downgrade() -> None:
    retype_seats(WIDE)
