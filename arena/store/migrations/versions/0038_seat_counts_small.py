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

from arena.store.migrations.seats_copy import copy_seats

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
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":  # one statement: one rewrite of the table
        changes = ", ".join(
            f"ALTER COLUMN {name} TYPE {type_.compile(dialect=bind.dialect)}"
            for name, type_ in types.items()
        )
        op.execute(f"ALTER TABLE seats {changes}")
        return
    copy_seats([sa.PrimaryKeyConstraint("match_id", "seat")], types=types)
    op.create_index("ix_seats_version_match", "seats", ["bot_version_id", "match_id"])
    op.drop_index("ix_seats_bot_version_id", table_name="seats")
