"""Real ``arena worker`` processes on real Redis and both databases."""

from __future__ import annotations

import json
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from rq.job import JobStatus
from sqlalchemy import func, select, update

from arena import ratings
from arena.engine import Ruleset
from arena.platform import Platform
from arena.services import Workers
from arena.settings import Settings
from arena.store import bots, tournaments
from arena.store.models import (
    BotKind,
    Entry,
    Match,
    MatchLog,
    MatchStatus,
    RatingChange,
    Tournament,
    TournamentStatus,
)
from worker import queue as work_queue

SAMPLES = ["random", "honest", "counter", "bluffer"]


def setup_tournament(arena: Platform, games: int, name: str = "t", **options) -> None:
    arena.db.transaction(lambda s: [bots.add_bot(s, n, BotKind.SAMPLE, n) for n in SAMPLES])
    arena.db.transaction(
        lambda s: tournaments.create(
            s, name, Ruleset.parse("classic", options), SAMPLES, 4, games, seed=name
        )
    )


def wait_done(arena: Platform, name: str = "t", timeout: float = 120.0) -> dict:
    deadline = time.monotonic() + timeout
    while (status := arena.tournament_status(name))["status"] != TournamentStatus.DONE.value:
        assert time.monotonic() < deadline, f"not done in {timeout} s: {status['matches']}"
        time.sleep(0.2)
    return status


def assert_recorded_exactly_once(arena: Platform, games: int) -> None:
    with arena.db.read() as s:
        assert (
            s.scalar(
                select(func.count()).select_from(Match).where(Match.status == MatchStatus.DONE)
            )
            == games
        )
        assert s.scalar(select(func.count()).select_from(MatchLog)) == games
        completions = sorted(s.scalars(select(Match.completion)))
        assert completions == list(range(1, games + 1)), "each match completed once"
        assert s.scalar(select(func.count()).select_from(RatingChange)) == 4 * games


def assert_ratings_replay(arena: Platform) -> None:
    """The stored ratings equal a sequential replay of the recorded results."""
    with arena.db.read() as s:
        expected: dict[int, ratings.Rating] = {}
        for match in s.scalars(select(Match).order_by(Match.completion)):
            log = json.loads(zlib.decompress(s.get(MatchLog, match.id).data))
            versions = [seat.bot_version_id for seat in match.seats]
            current = [expected.get(v, ratings.new_rating()) for v in versions]
            expected.update(
                zip(versions, ratings.rate(current, log["result"]["ranking"]), strict=True)
            )
        for entry in s.scalars(select(Entry)):
            assert entry.mu == pytest.approx(expected[entry.bot_version_id].mu, abs=1e-9)
            assert entry.sigma == pytest.approx(expected[entry.bot_version_id].sigma, abs=1e-9)


def test_four_workers_play_200_matches_once_with_ratings_in_completion_order(
    settings: Settings,
) -> None:
    arena = Platform(settings)
    setup_tournament(arena, 200)
    with Workers(settings, 4, settings.data_dir / "logs"):
        arena.start_tournament("t")
        status = wait_done(arena)
    assert status["matches"]["done"] == 200 and status["matches"]["failed"] == 0
    assert_recorded_exactly_once(arena, 200)
    assert_ratings_replay(arena)
    with arena.db.read() as s:
        workers = set(s.scalars(select(Match.worker)))
    assert len(workers) >= 2, "the matches were shared between workers"


@contextmanager
def worker_in_this_process(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Iterator:
    """``worker.jobs`` configured for ``settings``, to run jobs in the test's process."""
    from worker import jobs

    for key, value in (
        ("ARENA_DATA_DIR", str(settings.data_dir)),
        ("ARENA_DATABASE_URL", settings.database_url),
        ("REDIS_URL", settings.redis_url or ""),
    ):
        monkeypatch.setenv(key, value)
    jobs.reset()
    try:
        yield jobs
    finally:
        jobs.reset()


@pytest.mark.parametrize(("flush_seconds", "transactions"), [(60.0, 1), (0.0, 3)])
def test_a_job_records_its_matches_together_within_the_flush_interval(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, flush_seconds: float, transactions: int
) -> None:
    """Fast matches share one transaction; a match that ends after the interval is
    recorded as soon as it ends (the interval 0 makes every match such a match)."""
    arena = Platform(settings)
    setup_tournament(arena, 3)
    queued = arena.db.transaction(lambda s: tournaments.start(s, "t"))
    with worker_in_this_process(settings, monkeypatch) as jobs:
        monkeypatch.setattr(jobs, "FLUSH_SECONDS", flush_seconds)
        assert jobs.play_matches([match for match, _ in queued]) == "3 recorded"
    with arena.db.read() as s:
        rows = s.execute(select(Match.completion, Match.finished_at).order_by(Match.id)).all()
    assert [completion for completion, _ in rows] == [1, 2, 3]
    assert len({finished for _, finished in rows}) == transactions, "one time per write"
    assert_recorded_exactly_once(arena, 3)
    assert_ratings_replay(arena)


def test_a_job_tops_its_ladder_up_after_recording(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    arena = Platform(settings)
    arena.db.transaction(lambda s: [bots.add_bot(s, n, BotKind.SAMPLE, n) for n in SAMPLES])
    arena.db.transaction(
        lambda s: tournaments.create(
            s, "ladder", Ruleset.parse("classic"), SAMPLES, 2, 2, seed="l", format="ladder"
        )
    )
    first = [match for match, _ in arena.db.transaction(lambda s: tournaments.start(s, "ladder"))]
    with worker_in_this_process(settings, monkeypatch) as jobs:
        assert jobs.play_matches(first) == "2 recorded"
    with arena.db.read() as s:
        rows = s.execute(select(Match.id, Match.status, Match.job_id).order_by(Match.id)).all()
    assert [status for _, status, _ in rows[:2]] == [MatchStatus.DONE] * 2
    refilled = [(match, job) for match, status, job in rows[2:] if status is MatchStatus.QUEUED]
    assert len(refilled) == 2, "both tables are in play again"
    assert all(work_queue.job_pending(arena.queue, job) for _, job in refilled), "and sent"


def test_a_job_of_several_matches_plays_the_others_when_one_fails(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    arena = Platform(settings)
    setup_tournament(arena, 2, name="good")
    arena.db.transaction(
        lambda s: tournaments.create(
            s, "broken", Ruleset.parse("classic"), SAMPLES, 4, 1, seed="broken"
        )
    )
    queued = {
        name: arena.db.transaction(lambda s, n=name: tournaments.start(s, n))
        for name in ("good", "broken")
    }
    # stored rules that no longer parse: an infrastructure failure, not a bot's
    arena.db.transaction(
        lambda s: s.execute(
            update(Tournament).where(Tournament.name == "broken").values(rules={"preset": "nope"})
        )
    )
    (good_1, _), (good_2, _) = queued["good"]
    [(broken, _)] = queued["broken"]
    with worker_in_this_process(settings, monkeypatch) as jobs:
        with pytest.raises(jobs.MatchesFailed, match=f"match {broken}: .*nope"):
            jobs.play_matches([good_1, broken, good_2])
        assert jobs.play_matches([good_1]).startswith("1 skipped")
    with arena.db.read() as s:
        assert s.get(Match, good_1).status is MatchStatus.DONE
        assert s.get(Match, good_2).status is MatchStatus.DONE
        given_back = s.get(Match, broken)
        assert given_back.status is MatchStatus.QUEUED and given_back.attempts == 1
        assert "nope" in given_back.error
    assert work_queue.job_pending(arena.queue, given_back.job_id), "sent again"


def test_a_queued_match_whose_job_ended_without_it_counts_as_lost(settings: Settings) -> None:
    """A job RQ failed (its worker died before claiming) will never play its matches:
    the reconciler must send them again, not wait for it."""
    arena = Platform(settings)
    queue = arena.queue
    work_queue.enqueue_all(queue, [(1, "arena-match-1-test"), (2, "arena-match-1-test")])
    assert work_queue.job_pending(queue, "arena-match-1-test")
    job = queue.fetch_job("arena-match-1-test")
    assert job is not None and list(job.args) == [[1, 2]], "one job for both matches"
    job.set_status(JobStatus.FAILED)
    assert not work_queue.job_pending(queue, "arena-match-1-test")
    assert not work_queue.job_pending(queue, "arena-match-404-none")
