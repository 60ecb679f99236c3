"""A version's failed seats (forfeited, or late or illegal at least once) indexed alone:
a bot's page lists its last failures, which read every seat the version held when only
the version was indexed (130 ms at ten million matches, 40,000 seats a version; a bot
fails rarely, so the index is small).

Revision ID: 0039
Revises: 0038
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0039"
down_revision = "0038"
branch_labels = None
depends_on = None

#: as arena.store.models.seat_failed() says it (a migration keeps its own words)
FAILED = "forfeit OR strikes > 0 OR illegal > 0"


def upgrade() -> None:
    op.create_index(
        "ix_seats_version_failed", "seats", ["bot_version_id", "match_id"],
        postgresql_where=sa.text(FAILED), sqlite_where=sa.text(FAILED),
    )  # fmt: skip


def downgrade() -> None:
    op.drop_index("ix_seats_version_failed", table_name="seats")
