"""Issue 54: the season bench writes its matches in bulk exactly as the recorder leaves
them, so what it measures is a real season's database."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Connection, Table, select

from arena.bench import season
from arena.bench.season import bulk, growth, played, reading
from arena.engine import Ruleset
from arena.platform import Platform
from arena.platform.settings import Settings
from arena.store import bots as bot_store
from arena.store import competitions, fairplay, leases, results
from arena.store.models import (
    Entry,
    FairPlayPair,
    MatchSeat,
    PairResult,
    RatingChange,
    StoredLog,
    Tournament,
    TournamentMatch,
    now,
    table_of,
)

#: the bulk path is COPY on PostgreSQL and many-row inserts on SQLite: both are held
pytestmark = pytest.mark.both_databases

#: what the scheduler and the claim choose (ids, seeds, job, times), not the recorder
CHOSEN = {
    "id", "tournament_id", "match_id", "index", "seed", "job_id", "worker",
    "queued_at", "started_at", "finished_at",
}  # fmt: skip


def test_a_match_written_in_bulk_is_the_match_the_recorder_wrote(
    tmp_path: Path, database_url: str
) -> None:
    arena = Platform(Settings(tmp_path, database_url, None))
    recorded, written, versions = _two_competitions(arena)
    template = played.played_pool(Ruleset.parse("classic"), 1, 4)[0]

    (match_id,) = arena.db.transaction(
        lambda s: _queued(s, recorded, versions)
    )  # the recorder's way: scheduled, claimed, played, recorded, folded
    (plan,) = leases.claim_all(arena.db, [match_id], "worker")
    played_match = results.PlayedMatch(
        plan, template.log, template.referee_ms, fairplay=template.tallies
    )
    assert results.record_all(arena.db, [played_match]) == [True]
    arena.db.transaction(lambda s: fairplay.fold(s, recorded))
    with arena.db.engine.connect() as connection:
        ratings = _rows(connection, table_of(RatingChange), recorded)
        final = {r["bot_version_id"]: (r["mu"], r["sigma"]) for r in ratings}

    with arena.db.engine.connect() as connection:  # the bench's way, beside it
        start = bulk.season_start(connection, written)
    match = played.SeasonMatch(
        match_id=start.next_id, tournament_id=written, index=start.next_index,
        completion=start.next_completion, versions=versions, template=template,
        finished_at=now(), seed="bulk",
    )  # fmt: skip
    by_seat = [final[v] for v in versions]
    writer = bulk.BulkWriter(arena.db.engine)
    bulk.write_chunk(arena.db, writer, written, [(match, by_seat, None)])
    totals = played.Totals()
    totals.add(match)
    bulk.write_totals(arena.db, writer, written, totals, final, 1)

    with arena.db.engine.connect() as connection:
        for model in (TournamentMatch, MatchSeat, RatingChange, StoredLog, Entry, PairResult,
                      FairPlayPair):  # fmt: skip
            table = table_of(model)
            one, other = (_rows(connection, table, t) for t in (recorded, written))
            assert one and one == other, table.name
        completed = connection.execute(select(Tournament.id, Tournament.completed)).all()
        assert dict(completed)[recorded] == dict(completed)[written] == 1


def _two_competitions(arena: Platform) -> tuple[int, int, list[int]]:
    """Two competitions of the same four bots: their tournaments and the versions."""

    def create(session: Any) -> tuple[int, int, list[int]]:
        names = [f"bot-{n}" for n in range(4)]
        versions = [bot_store.register_sample(session, name, "random").id for name in names]
        made = [
            competitions.create(session, name, Ruleset.parse("classic"), 4, bot_names=names,
                                pace=None).tournament_id
            for name in ("recorded", "bulk")
        ]  # fmt: skip
        return made[0], made[1], versions

    return arena.db.transaction(create)


def _queued(session: Any, tournament_id: int, versions: list[int]) -> list[int]:
    match = TournamentMatch.queued(tournament_id, 10_000, "recorded", versions)
    session.add(match)
    session.flush()
    return [match.id]


def _rows(connection: Connection, table: Table, tournament_id: int) -> list[dict[str, Any]]:
    """A tournament's rows in ``table`` (by its match where it has no tournament column),
    without what the scheduler and the claim chose, in a stable order."""
    if "tournament_id" in table.c:
        query = select(table).where(table.c.tournament_id == tournament_id)
    else:
        matches = select(TournamentMatch.id).where(TournamentMatch.tournament_id == tournament_id)
        query = select(table).where(table.c.match_id.in_(matches))
    rows = [
        {k: v for k, v in row._mapping.items() if k not in CHOSEN}
        for row in connection.execute(query)
    ]
    return sorted(rows, key=repr)


@pytest.mark.slow
def test_the_season_bench_reads_every_page_of_a_small_season() -> None:
    """The bench end to end at a small size: every page answers (a page that failed
    would stop it), cold and warm figures for each, the matches written and their bytes."""
    figures = season.run(bots=8, matches=1_000, recorded=20, addresses=2, repeats=2)
    assert figures["matches"] == 1_000 and figures["fill_seconds"] > 0
    pages = figures["pages"]
    assert len(pages) == len(reading.pages("t", 8, [1], [2], "token", 2))
    for page in pages.values():
        assert 0 < page["cold_p50_ms"] <= page["cold_p99_ms"]
        assert page["cold_reads"] == page["addresses"] * reading.COLD_APPS
    assert figures["bytes_a_match"] >= figures["bytes_a_match_tiered"] > 0
    assert figures["history_updates_thinned"] == 0, "500 updates a version: each kept whole"
    assert figures["recorder_empty_per_s"] > 0 and figures["recorder_season_per_s"] > 0
    grown = figures["pair_row_bytes_by_matches_together"]
    assert list(grown) == list(growth.TOGETHER) and 0 < grown[12] < grown[120] < grown[1200]
