"""Head-to-head totals: for each pair of bot versions that met in a tournament, how
often each finished ahead and how often they were level. Written with each recorded
match (an upsert per pair, in the recording transaction), so the table is read in
constant time however long the tournament ran."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Any

from sqlalchemy import Connection, select
from sqlalchemy.orm import Session

from arena.store.db import upsert
from arena.store.models import PairResult, table_of

_pairs = table_of(PairResult)
#: a pair's running totals
COUNTS = ("low_ahead", "high_ahead", "level")


def rows(
    tournament_id: int, versions: Sequence[int], places: Sequence[int]
) -> list[dict[str, Any]]:
    """What one match adds: a row per pair of seats (``places`` by seat, 1 is best)."""
    added = []
    for (a, place_a), (b, place_b) in combinations(zip(versions, places, strict=True), 2):
        if a == b:
            continue
        (low, low_place), (high, high_place) = sorted([(a, place_a), (b, place_b)])
        added.append(
            {
                "tournament_id": tournament_id,
                "low_version_id": low,
                "high_version_id": high,
                "low_ahead": int(low_place < high_place),
                "high_ahead": int(high_place < low_place),
                "level": int(low_place == high_place),
            }
        )
    return added


def add(connection: Connection, added: list[dict[str, Any]]) -> None:
    """Add matches' rows to the totals (one statement for all of them)."""
    if not added:
        return
    statement = upsert(connection.dialect, _pairs)
    connection.execute(
        statement.on_conflict_do_update(
            index_elements=["tournament_id", "low_version_id", "high_version_id"],
            set_={name: _pairs.c[name] + statement.excluded[name] for name in COUNTS},
        ),
        _merged(added),
    )


def _merged(added: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per pair (an upsert cannot touch the same row twice in one statement)."""
    merged: dict[tuple[int, int, int], dict[str, Any]] = {}
    for row in added:
        key = (row["tournament_id"], row["low_version_id"], row["high_version_id"])
        if key in merged:
            for name in COUNTS:
                merged[key][name] += row[name]
        else:
            merged[key] = dict(row)
    return list(merged.values())


def between(
    session: Session, tournament_id: int, versions: Sequence[int]
) -> dict[tuple[int, int], dict[str, int]]:
    """The totals among ``versions``, both ways round: ``(a, b)`` -> how often ``a``
    finished ahead of ``b``, behind it, and level."""
    found = session.execute(
        select(_pairs).where(
            _pairs.c.tournament_id == tournament_id,
            _pairs.c.low_version_id.in_(versions),
            _pairs.c.high_version_id.in_(versions),
        )
    )
    table: dict[tuple[int, int], dict[str, int]] = {}
    for row in found:
        low, high = row.low_version_id, row.high_version_id
        table[(low, high)] = {"ahead": row.low_ahead, "behind": row.high_ahead, "level": row.level}
        table[(high, low)] = {"ahead": row.high_ahead, "behind": row.low_ahead, "level": row.level}
    return table
