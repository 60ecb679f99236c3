"""The limit of matches at once an endpoint announced in its Hello
(bot_versions.announced_matches).

Revision ID: 0017
Revises: 0016
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("bot_versions", sa.Column("announced_matches", sa.Integer()))


def downgrade() -> None:
    op.drop_column("bot_versions", "announced_matches")
