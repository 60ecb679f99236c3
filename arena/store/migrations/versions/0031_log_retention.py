"""A competition's log retention (days, and the best entries whose matches keep theirs)
and a log's mark once retention dropped it.

Revision ID: 0031
Revises: 0030
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0031"
down_revision = "0030"
branch_labels = None
depends_on = None

#: the rows of dropped logs whose cold object is still to delete
TO_DELETE = "dropped_at IS NOT NULL AND cold_key IS NOT NULL"


def upgrade() -> None:
    op.add_column("competitions", sa.Column("log_days", sa.Float(), nullable=True))
    op.add_column(
        "competitions", sa.Column("log_top", sa.Integer(), nullable=False, server_default="0")
    )
    op.add_column("match_logs", sa.Column("dropped_at", sa.DateTime(timezone=True), nullable=True))
    op.add_column(
        "tournaments",
        sa.Column("logs_swept_to", sa.Integer(), nullable=False, server_default="0"),
    )
    op.create_index(
        "ix_match_logs_objects_to_delete",
        "match_logs",
        ["match_id"],
        postgresql_where=sa.text(TO_DELETE),
        sqlite_where=sa.text(TO_DELETE),
    )


def downgrade() -> None:
    """Refused while a log is dropped: a row without its log would read as a cold one."""
    dropped = op.get_bind().execute(
        sa.text("SELECT count(*) FROM match_logs WHERE dropped_at IS NOT NULL")
    )
    if dropped.scalar():
        raise RuntimeError("some match logs were dropped by retention: they cannot come back")
    op.drop_index("ix_match_logs_objects_to_delete", table_name="match_logs")
    for table, column in (
        ("tournaments", "logs_swept_to"),
        ("match_logs", "dropped_at"),
        ("competitions", "log_top"),
        ("competitions", "log_days"),
    ):
        # SQLite drops a column in place (a batch copy would trip its foreign keys)
        if op.get_bind().dialect.name == "sqlite":
            op.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
        else:
            op.drop_column(table, column)
