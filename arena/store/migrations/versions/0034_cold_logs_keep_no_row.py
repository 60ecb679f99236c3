"""A cold log keeps no row: the match says where its log went (``matches.log_state``:
cold or dropped), and ``match_logs`` holds the young logs and, until their cold object is
deleted, the dropped ones without data. A season's cold logs each kept a row of about
110 bytes with its index (``arena bench season``), its key a string derived from the
match's id anyway.

Revision ID: 0034
Revises: 0033
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0034"
down_revision = "0033"
branch_labels = None
depends_on = None

#: the rows of dropped logs whose cold object is still to delete
TO_DELETE = "data IS NULL"
WAS_TO_DELETE = "dropped_at IS NOT NULL AND cold_key IS NOT NULL"
STATE = sa.Enum("cold", "dropped", name="logstate", native_enum=False, length=32)


def upgrade() -> None:
    op.add_column("matches", sa.Column("log_state", STATE, nullable=True))
    op.execute(
        "UPDATE matches SET log_state = 'dropped' WHERE id IN "
        "(SELECT match_id FROM match_logs WHERE dropped_at IS NOT NULL)"
    )
    op.execute(
        "UPDATE matches SET log_state = 'cold' WHERE id IN (SELECT match_id FROM match_logs "
        "WHERE dropped_at IS NULL AND data IS NULL AND cold_key IS NOT NULL)"
    )
    # kept: the young logs, and the dropped ones whose object is still to delete
    op.execute(
        "DELETE FROM match_logs WHERE data IS NULL "
        "AND NOT (dropped_at IS NOT NULL AND cold_key IS NOT NULL)"
    )
    op.drop_index("ix_match_logs_objects_to_delete", table_name="match_logs")
    for column in ("cold_key", "moved_at", "dropped_at"):
        _drop_column("match_logs", column)
    _index_to_delete(TO_DELETE)


def downgrade() -> None:
    op.drop_index("ix_match_logs_objects_to_delete", table_name="match_logs")
    op.add_column("match_logs", sa.Column("cold_key", sa.String(200), nullable=True))
    op.add_column("match_logs", sa.Column("moved_at", sa.DateTime(timezone=True), nullable=True))
    op.add_column("match_logs", sa.Column("dropped_at", sa.DateTime(timezone=True), nullable=True))
    key = _key_sql("match_logs.match_id")
    op.execute(  # a dropped log whose object is still to delete names it again
        f"UPDATE match_logs SET cold_key = {key}, dropped_at = CURRENT_TIMESTAMP WHERE data IS NULL"
    )
    op.execute(
        "INSERT INTO match_logs (match_id, data, size, cold_key, moved_at, dropped_at) "
        f"SELECT id, NULL, 0, {_key_sql('id')}, finished_at, NULL FROM matches "
        "WHERE log_state = 'cold'"
    )
    op.execute(
        "INSERT INTO match_logs (match_id, data, size, cold_key, moved_at, dropped_at) "
        "SELECT id, NULL, 0, NULL, NULL, CURRENT_TIMESTAMP FROM matches "
        "WHERE log_state = 'dropped' AND id NOT IN (SELECT match_id FROM match_logs)"
    )
    _drop_column("matches", "log_state")
    _index_to_delete(WAS_TO_DELETE)


def _index_to_delete(where: str) -> None:
    """The partial index of the dropped logs whose cold object is still to delete."""
    op.create_index(
        "ix_match_logs_objects_to_delete",
        "match_logs",
        ["match_id"],
        postgresql_where=sa.text(where),
        sqlite_where=sa.text(where),
    )


def _key_sql(match_id: str) -> str:
    """arena.store.logs.cold_key in SQL (both databases): logs/NNNNNN/ID.json.z."""
    folder = f"substr('000000' || CAST({match_id} / 10000 AS TEXT), -6)"
    if op.get_bind().dialect.name == "postgresql":
        folder = f"lpad(CAST({match_id} / 10000 AS TEXT), 6, '0')"
    return f"'logs/' || {folder} || '/' || CAST({match_id} AS TEXT) || '.json.z'"


def _drop_column(table: str, column: str) -> None:
    # SQLite drops a column in place (a batch copy would trip its foreign keys)
    if op.get_bind().dialect.name == "sqlite":
        op.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    else:
        op.drop_column(table, column)
