"""Private tournaments: a tournament an owner created (through the API) is theirs and
private; the operator's (owner_id NULL) are the ones that count.

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # a plain column (an owners.id, owners are never deleted): a foreign key would make
    # SQLite copy the table, which the rows referring to it forbid
    op.add_column("tournaments", sa.Column("owner_id", sa.Integer(), nullable=True))


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":  # SQLite 3.35 drops a plain column in place
        op.execute("ALTER TABLE tournaments DROP COLUMN owner_id")
    else:
        op.drop_column("tournaments", "owner_id")
