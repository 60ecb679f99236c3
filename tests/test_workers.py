"""Real ``arena worker`` processes on real Redis and both databases."""

from __future__ import annotations

import pytest
from rq.job import JobStatus
from sqlalchemy import select, update

from arena.engine import Ruleset
from arena.platform import Platform
from arena.platform import queue as work_queue
from arena.platform.services import Workers
from arena.platform.settings import Settings
from arena.store import bots, tournaments
from arena.store.models import (
    BotKind,
    Match,
    MatchStatus,
    Tournament,
)
from tests.support.store import SAMPLES
from tests.support.workers import (
    assert_ratings_replay,
    assert_recorded_exactly_once,
    setup_tournament,
    wait_done,
    worker_in_this_process,
)

pytestmark = pytest.mark.processes


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
