"""Storage on SQLite and PostgreSQL: schema, bots, tournaments, and matches recorded once."""

from __future__ import annotations

import json
import re
import warnings
from datetime import UTC, datetime, timedelta

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import func, inspect, select, text, update
from sqlalchemy.exc import DBAPIError, IntegrityError

from arena.base import jobs as store_jobs
from arena.base.errors import Refused
from arena.base.jobs import PRIVATE_JOB
from arena.base.states import BotKind, MatchStatus, TournamentStatus, VersionStatus
from arena.engine import Ruleset
from arena.referee.log import MatchLog
from arena.referee.referee import COUNT_LIMIT, RefereeSettings
from arena.referee.replay import replay
from arena.referee.style import STYLE_FIELDS
from arena.services.views import bots as bot_queries
from arena.store import bots, leases, logs, matches, moderation, tournaments
from arena.store.db import Database
from arena.store.models import (
    Base,
    BotVersion,
    Entry,
    FormatName,
    MatchSeat,
    RatingChange,
    StoredLog,
    Tournament,
    TournamentMatch,
    now,
)
from arena.store.owners import add_owner
from arena.store.schema import alembic_config, current, head, upgrade
from arena.tournament import formats, ratings
from tests.support.store import SAMPLES, add_samples, make_tournament, match_ids, play

#: the store's contract: on SQLite and PostgreSQL alike
pytestmark = pytest.mark.both_databases


def test_migrations_reach_head_and_match_the_models(db: Database) -> None:
    assert current(db) == head()
    with db.engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        assert compare_metadata(context, Base.metadata) == []


def test_migration_0030_drops_the_indexes_a_wider_one_covers_and_back(db: Database) -> None:
    covered = {"ix_seats_match_id", "ix_matches_tournament_id", "ix_rating_history_tournament_id"}

    def indexes() -> set[str]:
        with db.engine.connect() as connection:
            found = inspect(connection)
            return {
                index["name"]
                for table in ("seats", "matches", "rating_history")
                for index in found.get_indexes(table)
                if index["name"]
            }

    assert not covered & indexes()
    config = alembic_config()
    with db.engine.connect() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0029")
        connection.commit()
    assert covered <= indexes()
    upgrade(db)
    assert not covered & indexes()


def test_migration_0033_keys_seats_by_their_match_and_back(db: Database) -> None:
    make_tournament(db, games=3)
    for match_id in match_ids(db)[:2]:
        plan = matches.claim(db, match_id, "w")
        assert plan is not None and matches.record(db, plan, play(plan), 1.0)

    def seats() -> list[tuple]:
        with db.engine.connect() as connection:
            rows = connection.execute(
                text("SELECT match_id, seat, bot_version_id, place FROM seats ORDER BY 1, 2")
            )
            return [tuple(row) for row in rows]

    def keyed() -> tuple[list[str], set[str]]:
        with db.engine.connect() as connection:
            found = inspect(connection)
            columns = {column["name"] for column in found.get_columns("seats")}
            return found.get_pk_constraint("seats")["constrained_columns"], columns

    before = seats()
    assert len(before) == 12 and keyed()[0] == ["match_id", "seat"]
    assert "id" not in keyed()[1]
    config = alembic_config()
    with db.engine.connect() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0032")
        connection.commit()
    assert keyed()[0] == ["id"] and seats() == before
    upgrade(db)
    assert keyed()[0] == ["match_id", "seat"] and seats() == before

    def copy_a_seat(to: str) -> None:
        db.transaction(
            lambda s: s.execute(
                text(f"INSERT INTO seats (match_id, seat, bot_version_id, forfeit, strikes, "
                     f"illegal, decisions) SELECT match_id, {to}, bot_version_id, forfeit, "
                     "strikes, illegal, decisions FROM seats ORDER BY 1, 2 LIMIT 1")
            )
        )  # fmt: skip

    copy_a_seat("seat + 100")  # another seat of the match: taken
    with pytest.raises(IntegrityError):  # the same seat of the match again: refused
        copy_a_seat("seat")


def test_migration_0034_keeps_no_row_for_a_cold_log_and_back(db: Database) -> None:
    make_tournament(db, games=4)
    ids = match_ids(db)
    for match_id in ids:
        plan = matches.claim(db, match_id, "w")
        assert plan is not None and matches.record(db, plan, play(plan), 1.0)
    hot, cold, dropped, to_delete = ids
    db.transaction(lambda s: logs.mark_cold(s, cold))
    db.transaction(lambda s: logs.mark_dropped(s, dropped))
    db.transaction(lambda s: logs.forget_objects(s, [dropped]))
    db.transaction(lambda s: logs.mark_dropped(s, to_delete))

    def rows(sql: str) -> list[tuple]:
        with db.engine.connect() as connection:
            return [tuple(row) for row in connection.execute(text(sql))]

    def states() -> list[tuple]:
        return rows("SELECT id, log_state FROM matches ORDER BY id")

    logged = "SELECT match_id, data IS NULL FROM match_logs ORDER BY 1"
    after = (states(), rows(logged))
    assert after == (
        [(hot, None), (cold, "cold"), (dropped, "dropped"), (to_delete, "dropped")],
        [(hot, False), (to_delete, True)],
    )
    config = alembic_config()
    with db.engine.connect() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0033")
        connection.commit()
    assert rows(
        "SELECT match_id, data IS NULL, cold_key, dropped_at IS NOT NULL FROM match_logs ORDER BY 1"
    ) == [
        (hot, False, None, False),
        (cold, True, logs.cold_key(cold), False),
        (dropped, True, None, True),
        (to_delete, True, logs.cold_key(to_delete), True),
    ], "as 0033 kept them: a cold log's row names its object, a dropped one its leftover"
    upgrade(db)
    assert (states(), rows(logged)) == after


def test_migration_0035_narrows_the_seats_columns_and_keeps_their_values(db: Database) -> None:
    make_tournament(db, games=2)
    for match_id in match_ids(db):
        plan = matches.claim(db, match_id, "w")
        assert plan is not None and matches.record(db, plan, play(plan), 1.0)

    def seats() -> list[tuple]:
        with db.read() as s:
            return [
                (seat.seat, seat.place, seat.latency_mean_ms, seat.latency_p99_ms)
                for seat in s.scalars(
                    select(MatchSeat).order_by(MatchSeat.match_id, MatchSeat.seat)
                )
            ]

    def logged() -> list[tuple]:
        with db.read() as s:
            found = []
            for match_id in match_ids(db):
                log = MatchLog.from_dict(logs.decode(logs.blob(s, match_id) or b""))
                found += [(e.latency_ms["mean"], e.latency_ms["p99"]) for e in log.seats]
            return found

    def types() -> dict[str, str]:
        with db.engine.connect() as connection:
            columns = inspect(connection).get_columns("seats")
        wanted = ("seat", "place", "latency_mean_ms")
        return {c["name"]: type(c["type"]).__name__ for c in columns if c["name"] in wanted}

    narrow = seats()
    assert [row[2:] for row in narrow] == logged(), "a latency reads back as measured"
    assert types() == {"seat": "SMALLINT", "place": "SMALLINT", "latency_mean_ms": "REAL"}
    config = alembic_config()
    with db.engine.connect() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0034")
        connection.commit()
    assert types()["seat"] == "INTEGER" and types()["latency_mean_ms"] != "REAL"
    assert seats() == narrow
    upgrade(db)
    assert seats() == narrow and types()["seat"] == "SMALLINT"


def test_migration_0040_indexes_each_updates_number_and_charts_read_the_same(
    db: Database,
) -> None:
    """A chart reads every update's completion and number from the version's index alone
    (no row of the table: they lie scattered among every other version's), and draws the
    same points either way."""
    from arena.services.views.ratings import rating_history

    make_tournament(db, games=3)
    for match_id in match_ids(db):
        plan = matches.claim(db, match_id, "w")
        assert plan is not None and matches.record(db, plan, play(plan), 1.0)
    with db.read() as s:
        tournament, *_ = s.scalars(select(RatingChange.tournament_id)).all()
        versions = sorted(set(s.scalars(select(RatingChange.bot_version_id))))

    def charted() -> dict:
        with db.read() as s:
            return rating_history(s, tournament, versions)

    def indexed() -> list[str]:
        with db.engine.connect() as connection:
            found = inspect(connection).get_indexes("rating_history")
        return next(i["column_names"] for i in found if i["name"] == "ix_rating_history_version")

    drawn = charted()
    assert drawn and all(len(points) == 3 for points in drawn.values())
    assert indexed() == ["tournament_id", "bot_version_id", "completion", "number"]
    if db.engine.dialect.name == "postgresql":  # the index answers without the table
        with db.engine.connect() as connection:
            connection.execute(text("SET enable_seqscan = off"))
            connection.execute(text("SET enable_bitmapscan = off"))
            plan = connection.scalars(
                text(
                    "EXPLAIN SELECT bot_version_id, completion, number FROM rating_history "
                    "WHERE tournament_id = :t AND bot_version_id = ANY(:v)"
                ),
                {"t": tournament, "v": versions},
            ).all()
        assert "Index Only Scan using ix_rating_history_version" in " ".join(plan)
    config = alembic_config()
    with db.engine.connect() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0039")
        connection.commit()
    assert indexed() == ["tournament_id", "bot_version_id", "completion"]
    assert charted() == drawn
    upgrade(db)
    assert indexed()[-1] == "number" and charted() == drawn


def test_names_stay_unique_whatever_their_case_in_the_migrated_schema(db: Database) -> None:
    """The folded-name indexes survive every migration (a SQLite batch copy of a table
    would drop them, unseen: the store's own check would still pass)."""
    owner = "INSERT INTO owners (name, token_hash, created_at) VALUES (:name, :hash, :at)"
    bot = (
        "INSERT INTO bots (name, created_at, people_may_play, scrimmage_rival)"
        " VALUES (:name, :at, true, true)"
    )
    moment = {"at": datetime(2026, 1, 1)}
    for statement, first, second in ((owner, "Alice", "ALICE"), (bot, "bot", "BOT")):
        with db.engine.begin() as connection:
            connection.execute(text(statement), {"name": first, "hash": first, **moment})
        with pytest.raises(DBAPIError), db.engine.begin() as connection:
            connection.execute(text(statement), {"name": second, "hash": second, **moment})


def test_the_quick_schema_check_agrees_with_alembic(empty_database_url: str) -> None:
    """``upgrade`` reads the head from the file names and the revision with one query;
    Alembic's own answers are the same, before and after migrating. Migrating warns of
    nothing (a warning is a line on the terminal of whoever starts the platform)."""
    from alembic.script import ScriptDirectory

    assert head() == ScriptDirectory.from_config(alembic_config()).get_current_head()
    fresh = Database(empty_database_url)
    try:
        with fresh.engine.connect() as connection:
            assert MigrationContext.configure(connection).get_current_revision() is None
        assert current(fresh) is None
        with warnings.catch_warnings():  # a new platform's first start says nothing odd
            warnings.simplefilter("error")
            upgrade(fresh)
        with fresh.engine.connect() as connection:
            assert MigrationContext.configure(connection).get_current_revision() == head()
        assert current(fresh) == head()
    finally:
        fresh.dispose()


def test_bots_are_validated(db: Database) -> None:
    add_samples(db, ["random"])
    with pytest.raises(Refused, match="exists already"):
        db.transaction(lambda s: bots.add_bot(s, "random", BotKind.SAMPLE, "honest"))
    with pytest.raises(Refused, match="no sample bot 'nope'"):
        db.transaction(lambda s: bots.add_bot(s, "x", BotKind.SAMPLE, "nope"))
    with pytest.raises(Refused, match="'nowhere' is not HOST:PORT"):
        db.transaction(lambda s: bots.add_bot(s, "y", BotKind.ENDPOINT, "nowhere"))
    with db.read() as s:
        assert [b.name for b in bots.all_bots(s)] == ["random"]


def test_a_tournament_schedules_every_match_with_its_seats(db: Database) -> None:
    make_tournament(db, games=24)
    with db.read() as s:
        tournament = tournaments.get(s, "t")
        assert tournament.status is TournamentStatus.RUNNING
        all_matches = list(
            s.scalars(select(TournamentMatch).where(TournamentMatch.tournament_id == tournament.id))
        )
        assert len(all_matches) == 24 and {m.status for m in all_matches} == {MatchStatus.QUEUED}
        orders = {tuple(seat.bot_version_id for seat in m.seats) for m in all_matches}
        assert len(orders) == 24, "24 games of 4 bots cover every seat order once"
        by_job: dict[str, list[int]] = {}
        for match in sorted(all_matches, key=lambda m: m.index):
            by_job.setdefault(match.job_id, []).append(match.index)
        sizes = store_jobs.job_sizes(24, workers=1)
        assert sorted(map(len, by_job.values()), reverse=True) == sizes == [12, 6, 3, 1, 1, 1]
        assert all(
            indices == list(range(indices[0], indices[0] + len(indices)))
            for indices in by_job.values()
        ), "a job carries consecutive matches"


@pytest.mark.parametrize("workers", [1, 2, 3, 8])
@pytest.mark.parametrize("matches_", [0, 1, 3, 24, 200, 10_000])
def test_jobs_carry_a_few_matches_and_shrink_towards_the_end_of_the_queue(
    matches_: int, workers: int
) -> None:
    sizes = store_jobs.job_sizes(matches_, workers)
    assert sum(sizes) == matches_
    assert all(1 <= size <= store_jobs.MAX_BATCH for size in sizes)
    assert sizes == sorted(sizes, reverse=True)
    # what is left after any job is enough to keep every worker busy for that long
    for index, size in enumerate(sizes):
        assert size == 1 or sum(sizes[index + 1 :]) >= 2 * workers * size - size
    if matches_ >= 16 * workers * store_jobs.MAX_BATCH:
        assert sizes[0] == store_jobs.MAX_BATCH and sizes[-workers:] == [1] * workers


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"bot_names": ["random", "ghost"]}, "no bot named 'ghost'"),
        ({"table_size": 5}, "needs at least 5 bots"),
        ({"bot_names": ["random", "random"]}, "listed more than once: random"),
    ],
)
def test_bad_tournaments_are_refused(db: Database, kwargs: dict, message: str) -> None:
    add_samples(db)
    args = {"bot_names": SAMPLES, "table_size": 2} | kwargs
    with pytest.raises(Refused, match=message):
        db.transaction(
            lambda s: tournaments.create(
                s, "bad", Ruleset.parse("classic"), args["bot_names"], args["table_size"], 4
            )
        )


def test_a_match_is_claimed_and_recorded_exactly_once(db: Database) -> None:
    make_tournament(db, games=1)
    [match_id] = match_ids(db)
    plan = matches.claim(db, match_id, "w1")
    assert plan is not None and matches.claim(db, match_id, "w2") is None
    log = play(plan)
    assert matches.record(db, plan, log, 1.0) is True
    assert matches.record(db, plan, log, 1.0) is False, "a second record is discarded"
    with db.read() as s:
        match = s.get(TournamentMatch, match_id)
        assert match.status is MatchStatus.DONE and match.completion == 1
        assert (match.job_id, match.claim, match.lease_until) == (None, None, None), (
            "what named the attempt goes with it"
        )
        stored = logs.decode(s.get(StoredLog, match_id).data)
        assert stored == json.loads(json.dumps(log.to_dict()))
        assert replay(MatchLog.from_dict(stored)).ok
        assert s.scalar(select(func.count()).select_from(RatingChange)) == 4
        places = sorted(seat.place for seat in match.seats)
        assert places[0] == 1 and all(seat.decisions > 0 for seat in match.seats)
        assert tournaments.get(s, "t").status is TournamentStatus.DONE


def test_a_bots_page_lists_its_failed_seats_newest_first_and_no_other(db: Database) -> None:
    """Forfeited, late or illegal seats are the page's failures (read through their own
    partial index on PostgreSQL), newest first; a clean seat is not one."""
    make_tournament(db, games=4)
    for match_id in match_ids(db):
        plan = matches.claim(db, match_id, "w")
        assert matches.record(db, plan, play(plan), 1.0)
    name = SAMPLES[0]

    def fail(s) -> list[int]:
        version = bots.active_version(s, name).id
        seats = s.scalars(
            select(MatchSeat)
            .where(MatchSeat.bot_version_id == version)
            .order_by(MatchSeat.match_id)
        ).all()
        assert len(seats) >= 3
        seats[0].forfeit, seats[0].forfeit_kind = True, "crash"
        seats[1].strikes = 2
        seats[-1].illegal = 1
        return [seats[-1].match_id, seats[1].match_id, seats[0].match_id]

    failed = db.transaction(fail)
    with db.read() as s:
        page = bot_queries.bot(s, name)
    assert [f.match for f in page.failures] == failed


def test_matches_passed_on_keep_their_lane_when_one_of_their_job_was_recorded(
    db: Database,
) -> None:
    """A recorded match keeps no job id: matches passed on take their lane from those
    still queued, so an owner's private work stays behind ranked play."""
    add_samples(db)

    def create(s) -> None:
        owner, _ = add_owner(s, "busy")
        tournaments.create(s, "mine", Ruleset.parse("classic"), SAMPLES[:3], 3, 2, owner=owner)

    db.transaction(create)
    db.transaction(lambda s: tournaments.start(s, "mine"))
    first, second = match_ids(db)
    plan = matches.claim(db, first, "w")
    assert matches.record(db, plan, play(plan), 1.0)
    passed = leases.pass_on(db, [first, second])
    assert [match_id for match_id, _ in passed] == [second]
    assert passed[0][1].startswith(PRIVATE_JOB), passed


@pytest.mark.parametrize("wrong", [{"strikes": 0}, {"illegal_limit": COUNT_LIMIT + 1}])
def test_forfeit_limits_stay_within_what_a_seats_small_counts_hold(wrong: dict) -> None:
    """A seat's strikes and illegal actions are stored as small integers: a limit that
    would let them pass 1,000 (or forfeit before the first) is refused up front."""
    with pytest.raises(ValueError, match="from 1 to 1000"):
        RefereeSettings(**wrong)
    assert RefereeSettings(strikes=COUNT_LIMIT, illegal_limit=COUNT_LIMIT).strikes == COUNT_LIMIT


def test_an_endpoint_is_seated_within_its_owners_limit_else_its_announced_else_the_default(
    db: Database,
) -> None:
    """A bot on a thread-pool server that says nothing is sent no more streams than the
    default; what its Hello announced raises that, and its owner's limit wins over both."""
    default = bots.DEFAULT_ENDPOINT_MATCHES
    add_samples(db)
    version_id = db.transaction(
        lambda s: bots.add_bot(s, "far", BotKind.ENDPOINT, "127.0.0.1:1").id
    )
    db.transaction(
        lambda s: tournaments.create(
            s, "t", Ruleset.parse("classic"), ["far", *SAMPLES[:3]], 4, default + 4, seed="s"
        )
    )
    db.transaction(lambda s: tournaments.start(s, "t"))
    ids = match_ids(db)

    def claimed(wanted: list[int]) -> list[int]:
        return sorted(plan.match_id for plan in matches.claim_all(db, wanted, "w"))

    def limit(owner: int | None, announced: int | None) -> None:
        def change(s) -> None:
            s.get(BotVersion, version_id).max_matches = owner
            bots.note_announced(s, {version_id: announced})

        db.transaction(change)

    assert claimed(ids) == ids[:default], "no limit said: the default"
    rest = ids[default:]
    limit(owner=None, announced=default + 1)
    assert claimed(rest) == rest[:1], "its Hello's limit"
    limit(owner=default + 2, announced=default + 1)
    assert claimed(rest[1:]) == rest[1:2], "its owner's, above what it announced"
    limit(owner=1, announced=bots.MAX_MATCHES_LIMIT)
    assert claimed(rest[2:]) == [], "its owner's, below what it announced"
    limit(owner=None, announced=bots.MAX_MATCHES_LIMIT + 1)
    with db.read() as s:
        assert s.get(BotVersion, version_id).announced_matches == bots.MAX_MATCHES_LIMIT
    assert claimed(rest[2:]) == rest[2:]


def test_a_lost_claim_cannot_record(db: Database) -> None:
    make_tournament(db, games=1)
    [match_id] = match_ids(db)
    first = matches.claim(db, match_id, "w1")
    db.transaction(
        lambda s: s.execute(
            update(TournamentMatch).values(lease_until=now() - timedelta(seconds=1))
        )
    )
    repairs = matches.reconcile(db, job_pending=lambda job: True)
    assert [m for m, _ in repairs.requeued] == [match_id]
    second = matches.claim(db, match_id, "w2")
    assert second is not None and second.claim != first.claim
    assert matches.renew(db, [match_id], first.claim) == set(), "its lease is not the first's"
    assert matches.renew(db, [match_id], second.claim) == {match_id}
    log = play(first)
    assert matches.record(db, first, log, 1.0) is False, "the presumed-dead worker is ignored"
    assert matches.record(db, second, play(second), 1.0) is True
    assert matches.renew(db, [match_id], second.claim) == set(), "recorded: nothing to renew"
    with db.read() as s:
        assert s.get(TournamentMatch, match_id).attempts == 2
        assert s.scalar(select(func.count()).select_from(StoredLog)) == 1


def test_infrastructure_failures_are_retried_then_failed_with_the_reason(db: Database) -> None:
    make_tournament(db, games=1)
    [match_id] = match_ids(db)
    statuses = []
    for attempt in range(matches.MAX_ATTEMPTS):
        plan = matches.claim(db, match_id, "w")
        assert plan is not None
        status, job = matches.give_back(db, plan, f"OSError: disk full ({attempt})")
        statuses.append(status)
    assert statuses == [MatchStatus.QUEUED] * 3 + [MatchStatus.FAILED]
    with db.read() as s:
        match = s.get(TournamentMatch, match_id)
        assert match.error == "OSError: disk full (3)" and match.attempts == 4
        assert tournaments.get(s, "t").status is TournamentStatus.DONE


def test_an_operator_may_give_a_match_more_attempts_before_a_lost_worker_fails_it(
    db: Database,
) -> None:
    make_tournament(db, games=1)
    [match_id] = match_ids(db)
    lost = now() - timedelta(seconds=1)
    failed_at = []
    for attempt in range(1, 7):
        assert matches.claim(db, match_id, f"w{attempt}") is not None
        db.transaction(
            lambda s: s.execute(update(TournamentMatch).values(lease_until=lost))
        )  # the worker died: its lease ran out
        repairs = matches.reconcile(db, lambda job: True, attempts=6)
        failed_at += [attempt] * len(repairs.failed)
    assert failed_at == [6], "five lost workers queue it again, the sixth fails it"
    with db.read() as s:
        match = s.get(TournamentMatch, match_id)
        assert match.status is MatchStatus.FAILED and match.attempts == 6
        assert match.error == "the worker playing it was lost (attempt 6)"


def test_reconcile_resends_queued_matches_whose_job_is_gone(db: Database) -> None:
    make_tournament(db, games=3)
    db.transaction(
        lambda s: s.execute(update(TournamentMatch).values(queued_at=now() - timedelta(minutes=1)))
    )
    before = {m: j for m, j in _jobs(db)}
    repairs = matches.reconcile(db, job_pending=lambda job: job == before[1])
    assert sorted(m for m, _ in repairs.resent) == [2, 3]
    after = dict(_jobs(db))
    assert after[1] == before[1] and after[2] != before[2]


def _jobs(db: Database) -> list[tuple[int, str]]:
    with db.read() as s:
        return list(
            s.execute(
                select(TournamentMatch.id, TournamentMatch.job_id).order_by(TournamentMatch.id)
            ).all()
        )


def _assert_ratings_replay(db: Database) -> None:
    """Tournament "t"'s ratings equal a sequential replay of its results in completion order."""
    with db.read() as s:
        tournament = tournaments.get(s, "t")
        system = tournament.rating
        expected = {e.bot_version_id: system.start() for e in tournament.entries}
        recorded = (
            select(TournamentMatch)
            .where(TournamentMatch.completion.is_not(None))
            .order_by(TournamentMatch.completion)
        )
        for match in s.scalars(recorded):
            log = logs.decode(s.get(StoredLog, match.id).data)
            versions = [seat.bot_version_id for seat in match.seats]
            rated = system.rate([expected[v] for v in versions], log["result"]["ranking"])
            expected.update(zip(versions, rated, strict=True))
        for entry in s.scalars(select(Entry)):
            assert entry.mu == pytest.approx(expected[entry.bot_version_id].mu, abs=1e-9)
            assert entry.sigma == pytest.approx(expected[entry.bot_version_id].sigma, abs=1e-9)


def test_ratings_equal_a_sequential_replay_in_completion_order(db: Database) -> None:
    make_tournament(db, games=6)
    ids = match_ids(db)
    plans = [matches.claim(db, m, "w") for m in ids]
    for plan in reversed(plans):  # completion order differs from the schedule
        assert matches.record(db, plan, play(plan), 1.0)
    _assert_ratings_replay(db)
    with db.read() as s:
        tournament = tournaments.get(s, "t")
        assert all(entry.games == 6 for entry in s.scalars(select(Entry)))
        seats = list(s.scalars(select(MatchSeat)))
        for entry in s.scalars(select(Entry)):
            mine = [seat for seat in seats if seat.bot_version_id == entry.bot_version_id]
            assert entry.place_sum == sum(seat.place for seat in mine)
            assert entry.wins == sum(seat.place == 1 for seat in mine)
            for name in STYLE_FIELDS:
                assert getattr(entry, name) == sum(getattr(seat, name) for seat in mine), name
            assert entry.plays > 0 and entry.decisions >= entry.plays
        board = tournaments.leaderboard(s, tournament)
        scores = [row.score for row in board]
        assert scores == sorted(scores, reverse=True) and [r.rank for r in board] == [1, 2, 3, 4]


def _recorded(db: Database, name: str) -> dict[str, list]:
    """What recording left of tournament ``name``, without its ids."""
    with db.read() as s:
        tournament = tournaments.get(s, name)
        in_it = TournamentMatch.tournament_id == tournament.id
        entries = select(Entry).where(Entry.tournament_id == tournament.id)
        return {
            "status": [tournament.status, tournament.completed],
            "matches": [
                (m.index, m.status, m.completion, [(x.place, x.decisions) for x in m.seats])
                for m in s.scalars(
                    select(TournamentMatch).where(in_it).order_by(TournamentMatch.index)
                )
            ],
            "entries": sorted(
                (e.bot_version_id, e.mu, e.sigma, e.games, e.place_sum, e.wins, e.decisions)
                for e in s.scalars(entries)
            ),
            "history": [
                (c.completion, c.bot_version_id, c.mu, c.sigma)
                for c in s.scalars(
                    select(RatingChange)
                    .where(RatingChange.tournament_id == tournament.id)
                    .order_by(RatingChange.completion, RatingChange.bot_version_id)
                )
            ],
        }


def _tournament_matches(db: Database, name: str) -> list[int]:
    with db.read() as s:
        tournament = tournaments.get(s, name)
        query = (
            select(TournamentMatch.id)
            .where(TournamentMatch.tournament_id == tournament.id)
            .order_by(TournamentMatch.index)
        )
        return list(s.scalars(query))


def test_matches_recorded_together_are_recorded_as_one_by_one(db: Database) -> None:
    make_tournament(db, games=6, name="one")  # two tournaments with the same schedule
    db.transaction(
        lambda s: tournaments.create(s, "together", Ruleset.parse("classic"), SAMPLES, 4, 6, "s")
    )
    db.transaction(lambda s: tournaments.start(s, "together"))
    one = matches.claim_all(db, _tournament_matches(db, "one"), "w")
    together = matches.claim_all(db, _tournament_matches(db, "together"), "w")
    assert [[x.bot_version_id for x in p.seats] for p in one] == [
        [x.bot_version_id for x in p.seats] for p in together
    ]
    played = [play(plan) for plan in one]
    order = [4, 0, 5, 1, 2, 3]  # completion order differs from the schedule
    for index in order:
        assert matches.record(db, one[index], played[index], 1.0)
    first, rest = order[:2], order[2:]
    for indices in (first, rest):
        batch = [matches.PlayedMatch(together[i], played[i], 1.0) for i in indices]
        assert matches.record_all(db, batch) == [True] * len(indices)
    assert _recorded(db, "together") == _recorded(db, "one")
    assert _recorded(db, "one")["status"] == [TournamentStatus.DONE, 6]


def test_a_batch_records_the_matches_still_ours_and_discards_the_others(db: Database) -> None:
    make_tournament(db, games=3)
    ids = match_ids(db)
    mine = matches.claim_all(db, ids, "w1")
    db.transaction(  # the second match's lease expires and another worker takes it
        lambda s: s.execute(
            update(TournamentMatch)
            .where(TournamentMatch.id == ids[1])
            .values(lease_until=now() - LEASE_GONE)
        )
    )
    matches.reconcile(db, job_pending=lambda job: True)
    [taken] = matches.claim_all(db, [ids[1]], "w2")
    batch = [matches.PlayedMatch(plan, play(plan), 1.0) for plan in mine]
    assert matches.record_all(db, batch) == [True, False, True]
    with db.read() as s:
        assert [s.get(TournamentMatch, m).completion for m in ids] == [1, None, 2]
        assert s.get(TournamentMatch, ids[1]).status is MatchStatus.RUNNING
    assert matches.record(db, taken, play(taken), 1.0)
    with db.read() as s:
        assert [s.get(TournamentMatch, m).completion for m in ids] == [1, 3, 2]
        assert s.scalar(select(func.count()).select_from(StoredLog)) == 3
        assert tournaments.get(s, "t").status is TournamentStatus.DONE
    _assert_ratings_replay(db)


LEASE_GONE = timedelta(seconds=1)


def test_a_replaced_version_plays_out_the_round_robin_it_was_entered_in(db: Database) -> None:
    make_tournament(db, games=3)
    first, second, third = match_ids(db)
    playing = matches.claim(db, second, "w")
    db.transaction(lambda s: bots.add_version(s, "honest", BotKind.SAMPLE, "counter"))
    assert matches.record(db, playing, play(playing), 1.0), "the version entered plays on"
    for match_id in (first, third):
        plan = matches.claim(db, match_id, "w")
        assert plan is not None and "honest v1" in [seat.name for seat in plan.seats]
        assert matches.record(db, plan, play(plan), 1.0)
    with db.read() as s:
        assert tournaments.get(s, "t").status is TournamentStatus.DONE
        assert s.scalar(select(func.count()).select_from(RatingChange)) == 3 * 4


def test_a_ladder_table_of_a_retired_entry_is_discarded_and_not_rated(db: Database) -> None:
    add_samples(db)
    db.transaction(
        lambda s: tournaments.create(
            s, "l", Ruleset.parse("classic"), SAMPLES, 4, 3, format="ladder"
        )
    )
    db.transaction(lambda s: tournaments.start(s, "l"))
    first, second, third = match_ids(db)
    playing = matches.claim(db, second, "w")

    def retire_honest(session) -> None:
        honest = bots.active_version(session, "honest")
        entry = session.scalars(select(Entry).where(Entry.bot_version_id == honest.id)).one()
        entry.retired = True

    db.transaction(retire_honest)
    assert matches.claim(db, first, "w") is None, "a stale match is not even played"
    assert matches.record(db, playing, play(playing), 1.0) is False, "retired meanwhile"
    with db.read() as s:
        stale = [s.get(TournamentMatch, m) for m in (first, second)]
        assert all(m.status is MatchStatus.STALE for m in stale)
        assert all("honest v1" in m.error for m in stale)
        assert s.scalar(select(func.count()).select_from(RatingChange)) == 0
        assert all(e.games == 0 for e in s.scalars(select(Entry)))


def test_duplicate_deals_share_a_deal_across_seat_rotations(db: Database) -> None:
    add_samples(db)
    db.transaction(
        lambda s: tournaments.create(
            s, "dup", Ruleset.parse("classic"), SAMPLES, 4, 6, seed="d", duplicate=True
        )
    )
    db.transaction(lambda s: tournaments.start(s, "dup"))
    with db.read() as s:
        tournament = tournaments.get(s, "dup")
        assert tournament.duplicate and tournament.games == 8, "rounded up to whole groups"
        rows = list(s.scalars(select(TournamentMatch).order_by(TournamentMatch.index)))
        groups: dict[int, list[TournamentMatch]] = {}
        for match in rows:
            groups.setdefault(match.deal_group, []).append(match)
        assert sorted(groups) == [0, 1]
        for members in groups.values():
            assert len({m.seed for m in members}) == 1, "one deal per group"
            for bot in (seat.bot_version_id for seat in members[0].seats):
                seats = sorted(
                    seat.seat for m in members for seat in m.seats if seat.bot_version_id == bot
                )
                assert seats == [0, 1, 2, 3], "every bot holds every hand once"
    for match_id in match_ids(db):
        plan = matches.claim(db, match_id, "w")
        assert matches.record(db, plan, play(plan), 1.0)
    with db.read() as s:
        scores = tournaments.group_scores(s, tournaments.get(s, "dup"))
        assert [g["group"] for g in scores] == [1, 0]
        for group in scores:
            assert sorted(group["scores"]) == sorted(SAMPLES)
            assert sum(group["scores"].values()) == 4 * (1 + 2 + 3 + 4)


def _duplicate(db: Database, games: int = 8) -> list[list[int]]:
    """A started duplicate tournament 'dup'; its match ids by deal group."""
    add_samples(db)
    db.transaction(
        lambda s: tournaments.create(
            s, "dup", Ruleset.parse("classic"), SAMPLES, 4, games, seed="g", duplicate=True
        )
    )
    db.transaction(lambda s: tournaments.start(s, "dup"))
    with db.read() as s:
        groups: dict[int, list[int]] = {}
        for match_id, group in s.execute(
            select(TournamentMatch.id, TournamentMatch.deal_group).order_by(TournamentMatch.id)
        ):
            groups.setdefault(group, []).append(match_id)
    return [groups[g] for g in sorted(groups)]


def _ratings(db: Database) -> dict[int, tuple[float, float]]:
    with db.read() as s:
        return {e.bot_version_id: (e.mu, e.sigma) for e in s.scalars(select(Entry))}


@pytest.mark.parametrize("together", [1, 3, 8], ids=lambda n: f"{n}-at-a-time")
def test_duplicate_groups_are_rated_once_from_summed_places_in_closing_order(
    db: Database, together: int
) -> None:
    first, second = _duplicate(db)
    start = _ratings(db)
    # interleave the groups: the second group closes first
    order = [first[0], second[0], second[1], first[1], second[2], second[3], first[2], first[3]]
    plans = {m: matches.claim(db, m, "w") for m in order}
    for index in range(0, len(order), together):
        chunk = [plans[m] for m in order[index : index + together]]
        played = [matches.PlayedMatch(plan, play(plan), 1.0) for plan in chunk]
        assert matches.record_all(db, played) == [True] * len(chunk)
        if index + together <= 3:
            assert _ratings(db) == start, "no rating before a group is over"
    with db.read() as s:
        changes = list(s.scalars(select(RatingChange).order_by(RatingChange.id)))
        assert [c.match_id for c in changes] == [second[3]] * 4 + [first[3]] * 4
        expected = {e.bot_version_id: ratings.DEFAULT.start() for e in s.scalars(select(Entry))}
        for group in (second, first):  # the order the groups closed in
            summed: dict[int, int] = {}
            for seat in s.scalars(select(MatchSeat).where(MatchSeat.match_id.in_(group))):
                summed[seat.bot_version_id] = summed.get(seat.bot_version_id, 0) + seat.place
            versions = sorted(summed)
            levels = sorted(set(summed.values()))
            ranking = [[i for i, v in enumerate(versions) if summed[v] == x] for x in levels]
            rated = ratings.DEFAULT.rate([expected[v] for v in versions], ranking)
            expected.update(zip(versions, rated, strict=True))
        for entry in s.scalars(select(Entry)):
            assert entry.mu == pytest.approx(expected[entry.bot_version_id].mu, abs=1e-9)
            assert entry.sigma == pytest.approx(expected[entry.bot_version_id].sigma, abs=1e-9)
            assert entry.games == 8, "every rotation still counts as a game played"
        assert tournaments.get(s, "dup").status is TournamentStatus.DONE


def test_a_duplicate_group_closed_by_a_failed_rotation_is_rated_from_the_others(
    db: Database,
) -> None:
    group, _ = _duplicate(db)
    for match_id in group[:3]:
        plan = matches.claim(db, match_id, "w")
        assert matches.record(db, plan, play(plan), 1.0)
    assert _ratings(db) == {v: (25.0, 25 / 3) for v in _ratings(db)}
    for attempt in range(matches.MAX_ATTEMPTS):
        plan = matches.claim(db, group[3], "w")
        matches.give_back(db, plan, f"OSError: attempt {attempt}")
    with db.read() as s:
        changes = list(s.scalars(select(RatingChange)))
        assert len(changes) == 4 and {c.match_id for c in changes} == {group[3]}
        assert s.get(TournamentMatch, group[3]).status is MatchStatus.FAILED
    assert all(sigma < 25 / 3 for _, sigma in _ratings(db).values())


def test_reconcile_asks_redis_once_per_job_and_outside_the_write(db: Database) -> None:
    add_samples(db)
    db.transaction(
        lambda s: tournaments.create(s, "t", Ruleset.parse("classic"), SAMPLES, 4, 8, seed="s")
    )
    db.transaction(lambda s: tournaments.start(s, "t", workers=1))  # 4 jobs of 2 matches
    db.transaction(
        lambda s: s.execute(update(TournamentMatch).values(queued_at=now() - timedelta(minutes=1)))
    )
    before = dict(_jobs(db))
    first_job = before[1]
    asked: list[str] = []

    def job_pending(job_id: str) -> bool:
        asked.append(job_id)
        if job_id == first_job:  # meanwhile another worker's reconciler re-sent match 1
            db.transaction(
                lambda s: s.execute(
                    update(TournamentMatch).where(TournamentMatch.id == 1).values(job_id="other")
                )
            )
        return False

    repairs = matches.reconcile(db, job_pending=job_pending)
    assert sorted(asked) == sorted(set(before.values())) and len(asked) == 4
    assert sorted(m for m, _ in repairs.resent) == [2, 3, 4, 5, 6, 7, 8]
    after = dict(_jobs(db))
    assert after[1] == "other", "not re-sent a second time"
    assert all(after[m] == job for m, job in repairs.resent)


RULES = Ruleset.parse("classic")


def test_a_tournament_names_the_bot_it_cannot_use(db: Database) -> None:
    add_samples(db)
    with pytest.raises(Refused, match="listed more than once: counter"):
        db.transaction(
            lambda s: tournaments.create(
                s, "t", Ruleset.parse("classic"), ["counter", "random", "counter"], 2, 1
            )
        )

    def reject_counter(session) -> None:
        version = bots.active_version(session, "counter")
        version.active, version.status = False, VersionStatus.REJECTED
        version.reason = "did not start"

    db.transaction(reject_counter)
    with pytest.raises(Refused, match="bot 'counter' has no version that can play: v1 rejected"):
        db.transaction(
            lambda s: tournaments.create(
                s, "t", Ruleset.parse("classic"), ["counter", "random"], 2, 1
            )
        )


@pytest.mark.slow
@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_session_stranded_inside_a_transaction_lets_go_of_its_locks(db: Database) -> None:
    """A worker whose host vanished mid-transaction says nothing more: the server ends
    its session (idle in a transaction past the limit) and the locks it held are free
    for the others (they waited until TCP gave up, hours)."""
    make_tournament(db, games=1)
    stranded = db.engine.connect()
    stranded.begin()
    stranded.execute(update(TournamentMatch).values(attempts=7))  # holds the row's lock
    with db.engine.connect() as other, other.begin():
        other.execute(text("SET LOCAL statement_timeout = '300s'"))  # a hang fails, at last
        other.execute(update(TournamentMatch).values(attempts=1))  # waits for the lock
    with pytest.raises(DBAPIError, match="idle-in-transaction"):
        stranded.execute(select(1))  # the server ended it
    stranded.invalidate()
    with db.read() as session:
        assert session.scalars(select(TournamentMatch.attempts)).all() == [1]


def _rotations_by_group(db: Database) -> dict[int, list[int]]:
    with db.read() as s:
        rows = s.execute(select(TournamentMatch.deal_group, TournamentMatch.id)).all()
    groups: dict[int, list[int]] = {}
    for group, match_id in sorted(rows, key=lambda row: row[1]):
        groups.setdefault(group, []).append(match_id)
    return groups


def _duplicate_with(db: Database, name: str, bot: str) -> dict[int, list[int]]:
    db.transaction(
        lambda s: tournaments.create(
            s, name, Ruleset.parse("classic"), [bot, *SAMPLES[:3]], 4, 8, duplicate=True
        )
    )
    db.transaction(lambda s: tournaments.start(s, name))
    return _rotations_by_group(db)


def test_two_rotations_of_a_deal_with_an_outside_bot_never_play_at_once(db: Database) -> None:
    """Live channels (timing, host-wide numbers) join bots alive at the same moment: one
    deal's rotations take turns, over every worker, so none carries a hand to another."""
    from sample_bots.random import RandomBot
    from tests.support.engine import served

    add_samples(db)
    with served(RandomBot) as endpoint:
        db.transaction(lambda s: bots.add_bot(s, "far", BotKind.ENDPOINT, endpoint))
        groups = _duplicate_with(db, "dup", "far")
        assert [len(rotations) for rotations in groups.values()] == [4, 4]
        everything = [m for rotations in groups.values() for m in rotations]
        first = matches.claim_all(db, everything, "w1")
        assert [p.match_id for p in first] == [rotations[0] for rotations in groups.values()]
        assert matches.claim_all(db, everything, "w2") == [], "another worker waits too"
        for rotation in range(1, 4):
            plan = first[0]
            assert matches.record(db, plan, play(plan), 1.0)
            [after] = matches.claim_all(db, groups[plan.deal_group], "w2")
            assert after.match_id == groups[plan.deal_group][rotation]
            first[0] = after
    with db.read() as s:
        statuses = {m.id: m.status for m in s.scalars(select(TournamentMatch))}
    assert [statuses[m] for m in groups[first[1].deal_group]] == [MatchStatus.RUNNING] + [
        MatchStatus.QUEUED
    ] * 3, "the other deal's rotations still wait for its first"


def test_rotations_of_the_platforms_own_samples_play_at_once(db: Database) -> None:
    """In-process samples share nothing a bot controls: their rotations are not held."""
    add_samples(db)
    groups = _duplicate_with(db, "dup", SAMPLES[3])
    everything = [m for rotations in groups.values() for m in rotations]
    assert sorted(p.match_id for p in matches.claim_all(db, everything, "w")) == everything


def test_workers_claiming_together_start_one_rotation_of_a_deal(db: Database) -> None:
    """Two workers' claims at the same moment (PostgreSQL: concurrent transactions) still
    start one rotation of each deal between them."""
    import threading

    add_samples(db)
    db.transaction(lambda s: bots.add_bot(s, "far", BotKind.ENDPOINT, "127.0.0.1:1"))
    groups = _duplicate_with(db, "dup", "far")
    start = threading.Barrier(2)
    taken: list[int] = []

    def claim(worker: str, order: list[int]) -> None:
        start.wait()
        taken.extend(p.match_id for p in matches.claim_all(db, order, worker))

    for rotations in groups.values():
        threads = [
            threading.Thread(target=claim, args=("w1", rotations)),
            threading.Thread(target=claim, args=("w2", rotations[::-1])),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert sorted(len(set(taken) & set(r)) for r in groups.values()) == [1, 1]


def test_owners_take_turns_in_the_private_lane(db: Database) -> None:
    """One owner's two private tournaments and another's one: a private match starts
    only while no other owner with matches waiting has fewer in play, on any worker."""

    add_samples(db)

    def create(session) -> None:
        for owner_name, count in (("many", 2), ("one", 1)):
            owner, _ = add_owner(session, owner_name)
            bots.add_bot(session, f"{owner_name}-bot", BotKind.ENDPOINT, "127.0.0.1:1", owner.id)
            for index in range(count):
                tournaments.create(
                    session, f"{owner_name}-{index}", Ruleset.parse("classic"),
                    [f"{owner_name}-bot", "random"], 2, 4, owner=owner,
                )  # fmt: skip
        for name in ("many-0", "many-1", "one-0"):
            tournaments.start(session, name)

    db.transaction(create)
    with db.read() as s:
        rows = s.execute(
            select(TournamentMatch.id, Tournament.name)
            .join(Tournament)
            .order_by(TournamentMatch.id)
        ).all()
    many = [m for m, name in rows if name.startswith("many")]
    one = [m for m, name in rows if name.startswith("one")]
    claimed = lambda ids, worker: [p.match_id for p in matches.claim_all(db, ids, worker)]  # noqa: E731
    assert claimed(many, "w1") == many[:1], "the other owner waits with none in play"
    assert claimed(many, "w2") == [], "on any worker"
    assert claimed(one, "w2") == one[:2], "its turn: no owner goes two ahead of another"
    assert claimed(many[1:], "w1") == many[1:3]
    assert claimed(many[3:] + one[2:], "w1") == one[2:4], "the other's turn in one claim"


def test_a_host_left_behind_refuses_a_schema_a_newer_release_migrated(
    database_url: str, tmp_path
) -> None:
    """A rolling upgrade: the database was migrated by a newer release; an older worker
    would read it wrongly, so it refuses to start and says why."""
    from arena.base.errors import SchemaTooNew
    from tests.support.cli import arena

    db = Database(database_url)
    upgrade(db)
    newer = f"{int(head()) + 1:04d}"
    with db.engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = :v"), {"v": newer})
    with pytest.raises(SchemaTooNew, match=f"schema {newer}, newer than this release's"):
        upgrade(db)
    db.dispose()
    import os

    env = os.environ | {"ARENA_DATA_DIR": str(tmp_path), "ARENA_DATABASE_URL": database_url}
    worker = arena("worker", "--burst", env=env | {"REDIS_URL": "redis://127.0.0.1:1/0"})
    assert worker.returncode == 1 and f"schema {newer}" in worker.stderr, worker.stderr


@pytest.mark.parametrize(
    ("format", "said"),
    [
        (
            "bracket",
            "unknown format 'bracket': expected round_robin or ladder or swiss or knockout",
        ),
        ("abtest", "`arena abtest create`"),
        ("qualification", "played when a bot is submitted"),
        ("scrimmage", "`arena scrimmage`"),
    ],
)
def test_a_tournament_is_made_only_as_a_format_it_can_be_made_as(
    db: Database, format: str, said: str
) -> None:
    add_samples(db)
    with pytest.raises(Refused, match=re.escape(said)):
        db.transaction(
            lambda s: tournaments.create(
                s, "t", Ruleset.parse("classic"), SAMPLES, 4, 4, format=format
            )
        )


BUILT_IN_FORMATS = {
    "round_robin", "ladder", "swiss", "knockout", "abtest", "qualification", "scrimmage",
}  # fmt: skip


def test_a_tournament_s_format_is_a_name_the_database_knows(db: Database) -> None:
    """The formats table holds the registered formats; the database itself refuses any
    other string as a tournament's format (a foreign key), and the store refuses a name
    no format is registered under before it gets there."""
    make_tournament(db, games=1)
    with db.read() as session:
        assert set(session.scalars(select(FormatName.name))) == BUILT_IN_FORMATS
    with pytest.raises(IntegrityError), db.engine.begin() as connection:
        connection.execute(text("UPDATE tournaments SET format = 'bracket'"))
    with db.engine.begin() as connection:  # a registered name goes in
        connection.execute(text("UPDATE tournaments SET format = 'swiss'"))
    with pytest.raises(formats.UnknownFormat):
        db.transaction(lambda s: s.add(Tournament(name="u", rules={}, format="bracket")))


def test_a_format_a_tournament_held_before_the_constraint_is_kept(db: Database) -> None:
    """Migration 0023 adds every format name tournaments already hold (an operator's
    format) before the key; the tables pointing at tournaments survive SQLite's copy."""
    make_tournament(db, games=2)
    config = alembic_config()
    with db.engine.connect() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0022")
        connection.commit()
    with db.engine.begin() as connection:
        connection.execute(text("UPDATE tournaments SET format = 'operators_own'"))
    upgrade(db)
    with db.read() as session:
        assert set(session.scalars(select(FormatName.name))) == BUILT_IN_FORMATS | {"operators_own"}
        assert session.scalar(select(func.count()).select_from(TournamentMatch)) == 2
        assert session.scalars(select(Tournament.format)).one() == "operators_own"
    with pytest.raises(IntegrityError), db.engine.begin() as connection:
        connection.execute(text("UPDATE tournaments SET format = 'bracket'"))


def test_a_bot_that_has_not_played_is_ranked_after_every_bot_that_has(db: Database) -> None:
    """The demo ladder put counter 3rd on 0 games: a start rating outranked bots that had
    played and lost."""
    make_tournament(db, games=1)
    [match_id] = match_ids(db)
    plan = matches.claim(db, match_id, "w")
    assert plan is not None and matches.record(db, plan, play(plan), 1.0)
    db.transaction(lambda s: bots.register_sample(s, "latecomer", "random"))

    def late_entry(s) -> None:
        tournament = tournaments.get(s, "t")
        s.add(tournament.new_entry(bots.active_version(s, "latecomer").id))

    db.transaction(late_entry)
    with db.read() as s:
        board = tournaments.leaderboard(s, tournaments.get(s, "t"))
    assert [row.games for row in board] == [1, 1, 1, 1, 0]
    assert board[-1].bot == "latecomer" and board[-1].rank == 5


def test_a_tournament_s_done_matches_are_its_own_counts_after_records_and_voids(
    db: Database,
) -> None:
    """The pages read the matches done from the tournament's counts (completed less
    voided), not by counting a season's matches: they agree with the matches as
    recorded, voided, failed and queued."""
    make_tournament(db, games=4)
    first, second, third, fourth = match_ids(db)
    for match_id in (first, second, third):
        plan = matches.claim(db, match_id, "w")
        assert plan is not None and matches.record(db, plan, play(plan), 1.0)
    plan = matches.claim(db, fourth, "w")
    assert plan is not None
    matches.give_back(db, plan, "lost", attempts=1)  # failed: its attempts spent
    db.transaction(lambda s: moderation.void(s, second, "a bug", datetime.now(UTC)))

    with db.read() as s:
        found = tournaments.progress(s, tournaments.get(s, "t"))
        by_status = dict(
            s.execute(
                select(TournamentMatch.status, func.count()).group_by(TournamentMatch.status)
            ).all()
        )
    assert found["done"] == by_status[MatchStatus.DONE] == 3  # a voided match stays done
    assert found["failed"] == by_status[MatchStatus.FAILED] == 1
    assert (found["total"], found["ended"]) == (4, 4)
