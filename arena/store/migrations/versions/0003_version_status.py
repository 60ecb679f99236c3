"""Bot versions are qualified before they are ranked: a status and a reason.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("bot_versions") as batch:
        batch.add_column(
            sa.Column(
                "status",
                sa.Enum(
                    "pending",
                    "ready",
                    "rejected",
                    name="versionstatus",
                    native_enum=False,
                    length=32,
                ),
                nullable=False,
                server_default="ready",
            )
        )
        batch.add_column(sa.Column("reason", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("bot_versions") as batch:
        batch.drop_column("reason")
        batch.drop_column("status")
