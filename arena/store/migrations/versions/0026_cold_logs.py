"""Old match logs move to a cold store (arena.store.cold): a log's row keeps its size
and the object's key, its data goes (NULL).

Revision ID: 0026
Revises: 0025
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0026"
down_revision = "0025"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("match_logs") as batch:
        batch.alter_column("data", existing_type=sa.LargeBinary(), nullable=True)
        batch.add_column(sa.Column("cold_key", sa.String(length=200), nullable=True))
        batch.add_column(sa.Column("moved_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    """Refused while a log is cold: its data is not in the database to keep."""
    cold = op.get_bind().execute(sa.text("SELECT count(*) FROM match_logs WHERE data IS NULL"))
    if cold.scalar():
        raise RuntimeError("some match logs are in the cold store: bring them back first")
    with op.batch_alter_table("match_logs") as batch:
        batch.drop_column("moved_at")
        batch.drop_column("cold_key")
        batch.alter_column("data", existing_type=sa.LargeBinary(), nullable=False)
