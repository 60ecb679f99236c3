"""A tournament counts its voided matches, so the matches done are its own counts
(``completed - voided``) and a page never counts a season's matches again.

Revision ID: 0029
Revises: 0028
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0029"
down_revision = "0028"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "tournaments", sa.Column("voided", sa.Integer(), nullable=False, server_default="0")
    )
    op.execute(
        "UPDATE tournaments SET voided = (SELECT count(*) FROM matches WHERE "
        "matches.tournament_id = tournaments.id AND matches.voided_at IS NOT NULL)"
    )


def downgrade() -> None:
    # SQLite drops a column in place (a batch copy of the table would trip its foreign keys)
    if op.get_bind().dialect.name == "sqlite":
        op.execute("ALTER TABLE tournaments DROP COLUMN voided")
    else:
        op.drop_column("tournaments", "voided")
