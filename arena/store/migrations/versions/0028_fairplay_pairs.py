"""Fair play's running totals a row per pair of versions, every situation packed in it
(arena.store.fairplay), instead of a row per situation: a season of a thousand bots
held 30 million rows after a million matches.

Revision ID: 0028
Revises: 0027
"""

from __future__ import annotations

import json
import zlib
from collections import defaultdict
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0028"
down_revision = "0027"
branch_labels = None
depends_on = None

LOW, HIGH, ALONE = 0, 1, 2
_CHUNK = 1000

_counts = sa.table(
    "fairplay_counts",
    sa.column("tournament_id", sa.Integer),
    sa.column("chance", sa.String),
    sa.column("actor_version_id", sa.Integer),
    sa.column("other_version_id", sa.Integer),
    sa.column("stratum", sa.String),
    sa.column("chances", sa.Integer),
    sa.column("taken", sa.Integer),
)
_pairs = sa.table(
    "fairplay_pairs",
    sa.column("tournament_id", sa.Integer),
    sa.column("low_version_id", sa.Integer),
    sa.column("high_version_id", sa.Integer),
    sa.column("data", sa.LargeBinary),
)


def upgrade() -> None:
    op.create_table(
        "fairplay_pairs",
        sa.Column("tournament_id", sa.Integer(), sa.ForeignKey("tournaments.id"), primary_key=True),
        sa.Column(
            "low_version_id", sa.Integer(), sa.ForeignKey("bot_versions.id"), primary_key=True
        ),
        sa.Column(
            "high_version_id", sa.Integer(), sa.ForeignKey("bot_versions.id"), primary_key=True
        ),
        sa.Column("data", sa.LargeBinary(), nullable=False),
    )
    connection = op.get_bind()
    packed: dict[tuple[int, int, int], list[list[Any]]] = defaultdict(list)
    for row in connection.execute(sa.select(_counts)):
        actor, other = row.actor_version_id, row.other_version_id
        low, high = min(actor, other), max(actor, other)
        side = ALONE if actor == other else LOW if actor < other else HIGH
        packed[row.tournament_id, low, high].append(
            [row.chance, side, row.stratum, row.chances, row.taken]
        )
    rows = [
        {"tournament_id": t, "low_version_id": low, "high_version_id": high,
         "data": zlib.compress(json.dumps(sorted(entries), separators=(",", ":")).encode(), 6)}
        for (t, low, high), entries in packed.items()
    ]  # fmt: skip
    for first in range(0, len(rows), _CHUNK):
        connection.execute(_pairs.insert(), rows[first : first + _CHUNK])
    op.drop_table("fairplay_counts")


def downgrade() -> None:
    op.create_table(
        "fairplay_counts",
        sa.Column("tournament_id", sa.Integer(), sa.ForeignKey("tournaments.id"), primary_key=True),
        sa.Column("chance", sa.String(16), primary_key=True),
        sa.Column(
            "actor_version_id", sa.Integer(), sa.ForeignKey("bot_versions.id"), primary_key=True
        ),
        sa.Column(
            "other_version_id", sa.Integer(), sa.ForeignKey("bot_versions.id"), primary_key=True
        ),
        sa.Column("stratum", sa.String(32), primary_key=True),
        sa.Column("chances", sa.Integer(), nullable=False),
        sa.Column("taken", sa.Integer(), nullable=False),
    )
    connection = op.get_bind()
    rows = []
    for row in connection.execute(sa.select(_pairs)):
        low, high = row.low_version_id, row.high_version_id
        for chance, side, stratum, chances, taken in json.loads(zlib.decompress(row.data)):
            actor, other = (high, low) if side == HIGH else (low, high)
            rows.append(
                {"tournament_id": row.tournament_id, "chance": chance, "actor_version_id": actor,
                 "other_version_id": other, "stratum": stratum, "chances": chances,
                 "taken": taken}
            )  # fmt: skip
    for first in range(0, len(rows), _CHUNK):
        connection.execute(_counts.insert(), rows[first : first + _CHUNK])
    op.drop_table("fairplay_pairs")
