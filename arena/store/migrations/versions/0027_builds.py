"""Bots in other languages: a version's language, and each upload's build, made once.

Revision ID: 0027
Revises: 0026
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0027"
down_revision = "0026"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "builds",
        sa.Column("source", sa.String(length=64), primary_key=True),
        sa.Column("built", sa.String(length=64), nullable=True),
        sa.Column("language", sa.String(length=16), nullable=False),
        sa.Column("log", sa.Text(), nullable=False),
        sa.Column("seconds", sa.Float(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    with op.batch_alter_table("bot_versions") as batch:
        batch.add_column(sa.Column("language", sa.String(length=16), nullable=True))
        batch.add_column(sa.Column("build_source", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("bot_versions") as batch:
        batch.drop_column("build_source")
        batch.drop_column("language")
    op.drop_table("builds")
