"""SQLite changes a table's key or a column's type only by copying the table: the seats'
copy, shared by the migrations that reshape them (nothing refers to seats)."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op


def copy_seats(
    keys: list[sa.Column[int] | sa.Constraint],
    dropped: tuple[str, ...] = (),
    types: dict[str, sa.types.TypeEngine[Any]] | None = None,
) -> None:
    """Copy the seats with ``keys``, without the ``dropped`` columns, and with ``types``
    for the columns named there (the others as they are)."""
    # its columns only: the tables its keys name are not read (their indexes warn)
    old = sa.Table("seats", sa.MetaData(), autoload_with=op.get_bind(), resolve_fks=False)
    kept = [column for column in old.columns if column.name not in dropped]
    columns = [
        sa.Column(
            c.name,
            (types or {}).get(c.name, c.type),
            nullable=c.nullable,
            server_default=c.server_default,
        )
        for c in kept
    ]
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


def retype_seats(types: dict[str, sa.types.TypeEngine[Any]]) -> None:
    """Give the seats' columns named in ``types`` those types: on PostgreSQL one
    statement (one rewrite of the table), on SQLite a copy (keyed by match and seat)."""
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        changes = ", ".join(
            f"ALTER COLUMN {name} TYPE {type_.compile(dialect=bind.dialect)}"
            for name, type_ in types.items()
        )
        op.execute(f"ALTER TABLE seats {changes}")
        return
    copy_seats([sa.PrimaryKeyConstraint("match_id", "seat")], types=types)
