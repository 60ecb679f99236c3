"""An endpoint bot's own limit of matches at once (bot_versions.max_matches).

Revision ID: 0016
Revises: 0015
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("bot_versions", sa.Column("max_matches", sa.Integer()))


def downgrade() -> None:
    op.drop_column("bot_versions", "max_matches")
