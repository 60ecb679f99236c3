"""Issue 54: the season bench writes its matches in bulk exactly as the recorder leaves
them, so what it measures is a real season's database."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Connection, Table, create_engine, func, make_url, select, text

from arena.bench import season
from arena.bench.season import bulk, field, growth, played, reading, tallied
from arena.engine import Ruleset
from arena.platform import Platform
from arena.platform.settings import Settings
from arena.store import bots as bot_store
from arena.store import competitions, fairplay, leases, pair_packing, results
from arena.store.cold import ColdStore
from arena.store.models import (
    Entry,
    FairPlayPair,
    FairPlayPending,
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
def test_the_season_bench_reads_every_page_of_a_small_season(database_url: str) -> None:
    """The bench end to end at a small size: every page answers (a page that failed
    would stop it), cold and warm figures for each, the matches written and their bytes,
    and the recorder timed in pairs against a twin database that is gone after."""
    figures = season.run(
        bots=8, matches=1_000, database_url=database_url, recorded=20, addresses=2,
        repeats=2, pairs=3,
    )  # fmt: skip
    assert figures["matches"] == 1_000 and figures["fill_seconds"] > 0
    pages = figures["pages"]
    assert len(pages) == len(reading.pages("t", 8, [1], [2], "token", 2))
    for page in pages.values():
        assert 0 < page["cold_p50_ms"] <= page["cold_p99_ms"]
        assert page["cold_reads"] == page["addresses"] * reading.COLD_APPS
    assert figures["bytes_a_match"] >= figures["bytes_a_match_tiered"] > 0
    assert figures["history_updates_thinned"] == 0, "500 updates a version: each kept whole"
    assert figures["recorder_empty_per_s"] > 0 and figures["recorder_season_per_s"] > 0
    assert len(figures["recorder_pairs"]) == 3
    assert all(empty > 0 and beside > 0 for empty, beside in figures["recorder_pairs"])
    assert not _twins(database_url), "the twin database is dropped"
    assert 0 < figures["fold_matches"] <= 3 * 20, "what the recorder added beside the season"
    assert figures["fold_seconds"] > 0
    grown = figures["pair_row_bytes_by_matches_together"]
    assert list(grown) == list(growth.TOGETHER) and 0 < grown[12] < grown[120] < grown[1200]


def _twins(url: str) -> set[str]:
    """The twin databases of ``url``'s on its PostgreSQL server (none on SQLite)."""
    if not url.startswith("postgresql"):
        return set()
    name = make_url(url).database
    engine = create_engine(make_url(url).set(database="postgres"))
    try:
        with engine.connect() as connection:
            found = connection.scalars(text("SELECT datname FROM pg_database"))
            return {twin for twin in found if twin.startswith(f"{name}_twin_")}
    finally:
        engine.dispose()


def test_a_seasons_fair_play_summed_in_bulk_is_what_folding_its_matches_stores() -> None:
    """Every pair's row the bulk sums pack is, byte for byte, the row folding each
    match's rows (arena.store.fairplay.rows) leaves, in two parts or one."""
    pool = played.played_pool(Ruleset.parse("classic"), 6, 4)
    rng = random.Random(3)
    season = tallied.SeasonFairPlay(pool, 400)
    expected: dict[tuple[int, int, int], pair_packing.Entries] = {}
    for _ in range(400):
        template, versions = rng.randrange(len(pool)), rng.sample(range(1, 13), 4)
        season.add(template, versions)
        match = pool[template]
        for (t, chance, actor, other, stratum), (chances, taken) in fairplay.rows(
            7, versions, match.places, match.tallies
        ):
            low, high = sorted((actor, other))
            side = (
                fairplay.ALONE
                if actor == other
                else fairplay.LOW
                if actor == low
                else fairplay.HIGH
            )
            total = expected.setdefault((t, low, high), {}).setdefault(
                (chance, side, stratum), [0, 0]
            )
            total[0] += chances
            total[1] += taken
    packed = {(t, low, high): pair_packing.pack_pair(e) for (t, low, high), e in expected.items()}
    for parts in (1, 3):
        found = {(t, low, high): data for t, low, high, data in season.rows(7, parts)}
        assert found == packed


def test_a_season_filled_with_its_fair_play_summed_holds_what_folding_it_all_holds(
    tmp_path: Path, database_url: str
) -> None:
    """The fill sums the season's fair play in bulk but for its last matches, which it
    folds as the workers do: the totals are those of a fill that folds every match."""
    pool = played.played_pool(Ruleset.parse("classic"), 4, 4)
    found = []
    for name, url, folded in (
        ("summed", database_url, 250),
        ("all summed", f"sqlite:///{tmp_path}/summed.db", 0),
        ("folded", f"sqlite:///{tmp_path}/folded.db", 600),
    ):
        arena = Platform(Settings(tmp_path / name, url, None))
        tournament_id, _, _ = field.competition(arena, 12, 4)
        cold = ColdStore(arena.settings.cold_store_url())
        bulk.fill(arena.db, cold, tournament_id, pool, 600, 10, 1, 2, lambda _: None,
                  folded=folded, chunk_size=100)  # fmt: skip
        with arena.db.read() as session:
            named = fairplay.names(session, set(session.scalars(select(Entry.bot_version_id))))
            found.append(Counter(_named(t, named) for t in fairplay.totals(session, tournament_id)))
            assert not session.scalar(select(func.count()).select_from(FairPlayPending))
    summed, all_summed, folded_all = found
    assert summed == all_summed == folded_all and sum(summed.values()) > 1000


def _named(tally: Any, named: dict[int, str]) -> tuple[Any, ...]:
    """A total with its versions (and a third bot's, for tables) by their bots' names."""
    stratum = named[int(tally.stratum)] if tally.chance == "tables" else tally.stratum
    return (tally.chance, named[tally.actor], named[tally.other], stratum, tally.chances,
            tally.taken)  # fmt: skip
