"""A seat is keyed by its match and its place at the table: the surrogate ``id`` nobody
read and its index go, and the unique ``(match_id, seat)`` becomes the primary key. A
season's seats held two indexes on the same rows (``arena bench season``: 90 bytes a
match each) and an 8-byte column a seat.

Revision ID: 0033
Revises: 0032
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from arena.store.migrations.seats_copy import copy_seats

revision = "0033"
down_revision = "0032"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.drop_constraint("seats_pkey", "seats", type_="primary")
        op.drop_column("seats", "id")
        op.drop_constraint("seats_match_id_seat_key", "seats", type_="unique")
        op.create_primary_key("seats_pkey", "seats", ["match_id", "seat"])
        return
    _copy_seats(with_id=False)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.drop_constraint("seats_pkey", "seats", type_="primary")
        op.add_column("seats", sa.Column("id", sa.Integer(), sa.Identity(), nullable=False))
        op.create_primary_key("seats_pkey", "seats", ["id"])
        op.create_unique_constraint("seats_match_id_seat_key", "seats", ["match_id", "seat"])
        return
    _copy_seats(with_id=True)


def _copy_seats(with_id: bool) -> None:
    """SQLite changes a primary key by copying the table."""
    keys: list[sa.Column[int] | sa.Constraint]
    if with_id:
        keys = [
            sa.Column("id", sa.Integer(), nullable=False),
            sa.PrimaryKeyConstraint("id"),
            sa.UniqueConstraint("match_id", "seat"),
        ]
    else:
        keys = [sa.PrimaryKeyConstraint("match_id", "seat")]
    copy_seats(keys, dropped=("id",))
