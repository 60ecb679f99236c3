"""Artifacts: uploaded bots stored in the database by digest; path targets converted.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

_versions = sa.table(
    "bot_versions",
    sa.column("id", sa.Integer),
    sa.column("kind", sa.String),
    sa.column("target", sa.String),
)


def upgrade() -> None:
    from arena.base.errors import Refused
    from arena.store import artifacts

    table = op.create_table(
        "artifacts",
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("digest"),
    )
    connection = op.get_bind()
    stored: set[str] = set()
    rows = connection.execute(
        sa.select(_versions.c.id, _versions.c.target).where(_versions.c.kind == "path")
    ).all()
    for version_id, target in rows:
        try:  # a version whose files are gone keeps its path (it cannot start anywhere)
            data = artifacts.pack(Path(target))
        except (Refused, OSError):
            continue
        digest = artifacts.digest_of(data)
        if digest not in stored:
            connection.execute(
                table.insert().values(
                    digest=digest, data=data, size=len(data), created_at=sa.func.now()
                )
            )
            stored.add(digest)
        connection.execute(
            _versions.update()
            .where(_versions.c.id == version_id)
            .values(target=artifacts.PREFIX + digest)
        )


def downgrade() -> None:
    op.drop_table("artifacts")
