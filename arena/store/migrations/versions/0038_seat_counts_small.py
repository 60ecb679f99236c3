"""A seat's strikes and illegal actions as small integers: each stops at its forfeit
limit (arena.referee.RefereeSettings: 3 and 10, never past 1,000), and two bytes each
bring a seat's row from 96 to 88 bytes once aligned (32 bytes a four-seat match; a
season's seats are forty million rows at ten million matches).

Revision ID: 0038
Revises: 0037
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

from arena.store.migrations.seats_copy import retype_seats

revision = "0038"
down_revision = "0037"
branch_labels = None
depends_on = None

SMALL: dict[str, sa.types.TypeEngine[Any]] = {
    "strikes": sa.SmallInteger(),
    "illegal": sa.SmallInteger(),
}
WIDE: dict[str, sa.types.TypeEngine[Any]] = {"strikes": sa.Integer(), "illegal": sa.Integer()}


def upgrade() -> None:
    _retype(SMALL)


def downgrade() -> None:
    _retype(WIDE)


def _retype(types: dict[str, sa.types.TypeEngine[Any]]) -> None:
    retype_seats(types)
    if op.get_bind().dialect.name != "postgresql":  # the copy made 0037's index anew
        op.create_index("ix_seats_version_match", "seats", ["bot_version_id", "match_id"])
        op.drop_index("ix_seats_bot_version_id", table_name="seats")
