"""Secret keys: a tournament's seed becomes a secret key its match seeds are derived
from (arena.tournament.seeds), and a ladder's delay before a match's full log is public.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from arena.tournament import seeds

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

_tournaments = sa.table(
    "tournaments",
    sa.column("id", sa.Integer),
    sa.column("seed", sa.String),
    sa.column("secret_key", sa.String),
)


def upgrade() -> None:
    with op.batch_alter_table("tournaments") as batch:
        batch.add_column(sa.Column("secret_key", sa.String(length=64), nullable=True))
        batch.add_column(
            sa.Column("reveal_delay", sa.Integer(), nullable=False, server_default="3600")
        )
    connection = op.get_bind()
    for tournament_id, seed in connection.execute(
        sa.select(_tournaments.c.id, _tournaments.c.seed)
    ):
        connection.execute(
            _tournaments.update()
            .where(_tournaments.c.id == tournament_id)
            .values(secret_key=seeds.key_from_seed(seed))
        )
    with op.batch_alter_table("tournaments") as batch:
        batch.alter_column("secret_key", existing_type=sa.String(length=64), nullable=False)
        batch.drop_column("seed")


def downgrade() -> None:
    with op.batch_alter_table("tournaments") as batch:
        batch.add_column(sa.Column("seed", sa.String(length=100), nullable=True))
    op.execute(_tournaments.update().values(seed=_tournaments.c.secret_key))
    with op.batch_alter_table("tournaments") as batch:
        batch.alter_column("seed", existing_type=sa.String(length=100), nullable=False)
        batch.drop_column("reveal_delay")
        batch.drop_column("secret_key")
