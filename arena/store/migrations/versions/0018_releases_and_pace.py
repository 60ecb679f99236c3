"""Which version plays and how fast a ladder plays: a version's ``live_since`` and what
it does once it qualifies (``after_qualifying``: live, stage or gate), an A/B test that
promotes its new version when accepted (``abtests.promote``), and a ladder's pace once
its ratings settle (``tournaments.pace``, ``tournaments.next_table_at``).

Revision ID: 0018
Revises: 0017
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ADD COLUMNs: a batch would copy bot_versions, which SQLite refuses to drop
    # while other tables' rows refer to it
    op.add_column("bot_versions", sa.Column("live_since", sa.DateTime(timezone=True)))
    op.add_column(
        "bot_versions",
        sa.Column(
            "after_qualifying",
            sa.Enum("live", "stage", "gate", name="afterqualifying", native_enum=False, length=32),
            nullable=False,
            server_default="live",
        ),
    )
    # the live versions have been live since they were made, as far as anyone knows
    op.execute(
        "UPDATE bot_versions SET live_since = created_at WHERE active = "
        + ("true" if op.get_bind().dialect.name == "postgresql" else "1")
    )
    # "now playing in ..." is said when a version goes live, no longer kept in its reason
    # (it read so after the version was replaced)
    bind = op.get_bind()
    said = bind.execute(
        sa.text("SELECT id, reason FROM bot_versions WHERE reason LIKE '%; now playing in %'")
    ).all()
    for version_id, reason in said:
        bind.execute(
            sa.text("UPDATE bot_versions SET reason = :reason WHERE id = :id"),
            {"reason": reason.split("; now playing in ")[0], "id": version_id},
        )
    op.add_column(
        "abtests", sa.Column("promote", sa.Boolean(), nullable=False, server_default=sa.false())
    )
    op.add_column("tournaments", sa.Column("pace", sa.Float()))
    op.add_column("tournaments", sa.Column("next_table_at", sa.DateTime(timezone=True)))


def downgrade() -> None:
    op.drop_column("tournaments", "next_table_at")
    op.drop_column("tournaments", "pace")
    op.drop_column("abtests", "promote")
    op.drop_column("bot_versions", "after_qualifying")
    op.drop_column("bot_versions", "live_since")
