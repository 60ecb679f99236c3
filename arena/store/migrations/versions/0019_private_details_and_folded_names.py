"""A rejected version's details (its output, its traceback) kept for its owner apart
from its public reason (``bot_versions.detail``), and bot and owner names unique
whatever their case (``ALICEBOT`` beside ``alicebot`` is refused).

Revision ID: 0019
Revises: 0018
"""

from __future__ import annotations

import logging

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None

log = logging.getLogger(__name__)
#: public reasons that were followed by what the bot printed
_PRIVATE_AFTER = ("forfeited its qualification match: ", "did not start")


def upgrade() -> None:
    op.add_column("bot_versions", sa.Column("detail", sa.Text()))
    bind = op.get_bind()
    versions = sa.table("bot_versions", sa.column("id"), sa.column("reason"), sa.column("detail"))
    for row in bind.execute(sa.select(versions.c.id, versions.c.reason)).all():
        public = public_reason(row.reason)
        if public != row.reason:
            bind.execute(
                versions.update()
                .where(versions.c.id == row.id)
                .values(reason=public, detail=row.reason)
            )
    for table in ("bots", "owners"):
        if _folded_duplicates(bind, table):
            log.warning("%s: names that differ only in case exist; not made unique", table)
            continue
        op.create_index(f"uq_{table}_name_folded", table, [sa.text("lower(name)")], unique=True)


def public_reason(reason: str | None) -> str | None:
    """The reason without what the bot printed: ``forfeited its qualification match:
    crashed: <output>`` → ``forfeited its qualification match: crashed``."""
    if not reason:
        return reason
    if reason.startswith(_PRIVATE_AFTER[0]):
        kind = reason.removeprefix(_PRIVATE_AFTER[0]).split(":", 1)[0]
        return _PRIVATE_AFTER[0] + kind
    if reason.startswith(_PRIVATE_AFTER[1]):
        return _PRIVATE_AFTER[1]
    return reason


def _folded_duplicates(bind: sa.Connection, table: str) -> bool:
    folded = sa.func.lower(sa.column("name"))
    query = sa.select(folded).select_from(sa.table(table)).group_by(folded)
    return bool(bind.execute(query.having(sa.func.count() > 1)).first())


def downgrade() -> None:
    for table in ("bots", "owners"):
        op.execute(f"DROP INDEX IF EXISTS uq_{table}_name_folded")
    op.drop_column("bot_versions", "detail")
