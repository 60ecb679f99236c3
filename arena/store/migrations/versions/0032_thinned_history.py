"""A rating history thinned as it ages: each entry's count of updates numbered and
thinned so far, and a kept old update's number.

Revision ID: 0032
Revises: 0031
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0032"
down_revision = "0031"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "entries",
        sa.Column("history_numbered", sa.Integer(), nullable=False, server_default="0"),
    )
    op.add_column("rating_history", sa.Column("number", sa.Integer(), nullable=True))


def downgrade() -> None:
    """Refused once a history was thinned: its dropped updates cannot come back (void a
    match of the tournament to rate it again whole, then downgrade)."""
    thinned = op.get_bind().execute(
        sa.text("SELECT count(*) FROM rating_history WHERE number IS NOT NULL")
    )
    if thinned.scalar():
        raise RuntimeError("some rating histories were thinned: they cannot come back")
    for table, column in (("rating_history", "number"), ("entries", "history_numbered")):
        # SQLite drops a column in place (a batch copy would trip its foreign keys)
        if op.get_bind().dialect.name == "sqlite":
            op.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
        else:
            op.drop_column(table, column)
