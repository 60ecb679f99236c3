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
    """SQLite changes a primary key by copying the table (nothing refers to seats)."""
    # its columns only: the tables its keys name are not read (their indexes warn)
    old = sa.Table("seats", sa.MetaData(), autoload_with=op.get_bind(), resolve_fks=False)
    kept = [column for column in old.columns if column.name != "id"]
    columns = [
        sa.Column(c.name, c.type, nullable=c.nullable, server_default=c.server_default)
        for c in kept
    ]
    keys: list[sa.Column[int] | sa.Constraint]
    if with_id:
        keys = [
            sa.Column("id", sa.Integer(), nullable=False),
            sa.PrimaryKeyConstraint("id"),
            sa.UniqueConstraint("match_id", "seat"),
        ]
    else:
        keys = [sa.PrimaryKeyConstraint("match_id", "seat")]
    op.create_table(
        "seats_copy",
        *keys,
        *columns,
        sa.ForeignKeyConstraint(["bot_version_id"], ["bot_versions.id"]),
        sa.ForeignKeyConstraint(["match_id"], ["matches.id"]),
    )
    names = ", ".join(c.name for c in kept)
    op.execute(f"INSERT INTO seats_copy ({names}) SELECT {names} FROM seats")
    op.drop_table("seats")
    op.rename_table("seats_copy", "seats")
    op.create_index("ix_seats_bot_version_id", "seats", ["bot_version_id"])
