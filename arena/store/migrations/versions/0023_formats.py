"""A tournament's format is a row of ``formats`` (a foreign key): the formats registered
when this migration was written, and any other name a tournament already holds (an
operator's format), so no other string is stored as a format again.

On SQLite the foreign key needs a copy of ``tournaments``: ``arena.store.schema`` runs
the migrations with SQLite's foreign keys off and checks every key after them, as
SQLite's own procedure for such changes asks (a copy with them on would delete or refuse
the rows that point at the old table).

Revision ID: 0023
Revises: 0022
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None

#: the formats registered in this release
REGISTERED = (
    "round_robin", "ladder", "swiss", "knockout", "abtest", "qualification", "scrimmage",
)  # fmt: skip


def upgrade() -> None:
    formats = op.create_table("formats", sa.Column("name", sa.String(length=32), primary_key=True))
    op.bulk_insert(formats, [{"name": name} for name in REGISTERED])
    known = ", ".join(f"'{name}'" for name in REGISTERED)
    op.execute(
        "INSERT INTO formats (name) SELECT DISTINCT format FROM tournaments"
        f" WHERE format NOT IN ({known})"
    )
    with op.batch_alter_table("tournaments") as batch:
        batch.create_foreign_key("fk_tournaments_format", "formats", ["format"], ["name"])


def downgrade() -> None:
    with op.batch_alter_table("tournaments") as batch:
        batch.drop_constraint("fk_tournaments_format", type_="foreignkey")
    op.drop_table("formats")
