"""Head-to-head totals per pair of bot versions in a tournament, kept as matches are
recorded (filled here from the matches recorded so far), and an index that reads one
version's rating history in a tournament in order (the rating charts).

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "pair_results",
        sa.Column("tournament_id", sa.Integer(), sa.ForeignKey("tournaments.id"), nullable=False),
        sa.Column("low_version_id", sa.Integer(), sa.ForeignKey("bot_versions.id"), nullable=False),
        sa.Column(
            "high_version_id", sa.Integer(), sa.ForeignKey("bot_versions.id"), nullable=False
        ),
        sa.Column("low_ahead", sa.Integer(), nullable=False),
        sa.Column("high_ahead", sa.Integer(), nullable=False),
        sa.Column("level", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("tournament_id", "low_version_id", "high_version_id"),
    )
    op.execute(
        """
        INSERT INTO pair_results
            (tournament_id, low_version_id, high_version_id, low_ahead, high_ahead, level)
        SELECT m.tournament_id, a.bot_version_id, b.bot_version_id,
               SUM(CASE WHEN a.place < b.place THEN 1 ELSE 0 END),
               SUM(CASE WHEN a.place > b.place THEN 1 ELSE 0 END),
               SUM(CASE WHEN a.place = b.place THEN 1 ELSE 0 END)
        FROM seats a
        JOIN seats b ON b.match_id = a.match_id AND b.bot_version_id > a.bot_version_id
        JOIN matches m ON m.id = a.match_id
        WHERE m.status = 'done' AND a.place IS NOT NULL AND b.place IS NOT NULL
        GROUP BY m.tournament_id, a.bot_version_id, b.bot_version_id
        """
    )

    op.create_index(
        "ix_rating_history_version",
        "rating_history",
        ["tournament_id", "bot_version_id", "completion"],
    )


def downgrade() -> None:
    op.drop_index("ix_rating_history_version", table_name="rating_history")
    op.drop_table("pair_results")
