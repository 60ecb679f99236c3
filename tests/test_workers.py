"""Real ``arena worker`` processes on real Redis and both databases."""

from __future__ import annotations

import asyncio
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from rq.job import JobStatus
from sqlalchemy import select, update

from arena.base.states import BotKind, MatchStatus
from arena.engine import Ruleset
from arena.platform import Platform
from arena.platform import queue as work_queue
from arena.platform.services import Workers
from arena.platform.settings import Settings
from arena.referee import RefereeSettings
from arena.sdk import Bot
from arena.store import bots, tournaments
from arena.store.models import Tournament, TournamentMatch
from tests.support.engine import served, simple_play
from tests.support.forks import session_forks
from tests.support.store import SAMPLES
from tests.support.waiting import wait_until
from tests.support.workers import (
    assert_ratings_replay,
    assert_recorded_exactly_once,
    setup_tournament,
    wait_done,
    worker_in_this_process,
)

pytestmark = [pytest.mark.processes, pytest.mark.both_databases]


def test_four_workers_play_200_matches_once_with_ratings_in_completion_order(
    settings: Settings,
) -> None:
    arena = Platform(settings)
    setup_tournament(arena, 200)
    with Workers(settings, 4, settings.data_dir / "logs", forks=session_forks()):
        arena.start_tournament("t")
        status = wait_done(arena)
    assert status.matches.done == 200 and status.matches.failed == 0
    assert_recorded_exactly_once(arena, 200)
    assert_ratings_replay(arena)
    with arena.db.read() as s:
        workers = set(s.scalars(select(TournamentMatch.worker)))
    assert len(workers) >= 2, "the matches were shared between workers"


class Gated(Bot):
    """Plays at once while its gate is open, and waits at each decision while it is shut."""

    name = "gated"
    gate = threading.Event()

    async def act(self, obs):
        await asyncio.to_thread(Gated.gate.wait)
        return simple_play(obs)


def _endpoint_tournament(
    arena: Platform, bot: str, endpoint: str, name: str, games: int, deadline: float
) -> None:
    """Tournament ``name`` of the endpoint bot ``bot`` and two samples, tables of three."""
    arena.db.transaction(lambda s: [bots.register_sample(s, n) for n in SAMPLES[:2]])
    arena.db.transaction(lambda s: bots.add_bot(s, bot, BotKind.ENDPOINT, endpoint))
    arena.db.transaction(
        lambda s: tournaments.create(
            s, name, Ruleset.parse("classic"), [bot, *SAMPLES[:2]], 3, games, seed=name,
            settings=RefereeSettings(deadline=deadline, time_bank=0.0),
        )
    )  # fmt: skip


def _started(arena: Platform, name: str) -> list[int]:
    """Start tournament ``name`` (its matches queued, not sent): their ids."""
    return [match for match, _ in arena.db.transaction(lambda s: tournaments.start(s, name))]


def _status(arena: Platform, match_id: int) -> MatchStatus:
    with arena.db.read() as s:
        return s.get(TournamentMatch, match_id).status


@pytest.mark.parametrize(("flush_seconds", "writes"), [(60.0, 1), (0.0, 2)])
def test_a_result_waits_for_other_matches_at_most_the_flush_interval(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, flush_seconds: float, writes: int
) -> None:
    """A quick match ends while a slow one (its bot waits at a shut gate) still plays:
    within the interval both results share one write; with an interval of 0 the quick
    one is written while the slow one still plays."""
    arena = Platform(settings)
    setup_tournament(arena, 1, name="quick")
    Gated.gate.clear()
    with served(Gated) as endpoint:
        _endpoint_tournament(arena, "gated", endpoint, "slow", 1, deadline=60.0)
        [slow], [quick] = _started(arena, "slow"), _started(arena, "quick")
        with worker_in_this_process(settings, monkeypatch) as jobs:
            monkeypatch.setattr(jobs, "FLUSH_SECONDS", flush_seconds)
            assert jobs.play_matches([slow, quick]) == "2 in play"  # back once quick is played
            if flush_seconds == 0:
                deadline = time.monotonic() + 120
                while _status(arena, quick) is not MatchStatus.DONE:
                    assert time.monotonic() < deadline, "the quick result is still not written"
                    time.sleep(0.05)
                assert _status(arena, slow) is MatchStatus.RUNNING, "written while slow plays"
            Gated.gate.set()
            assert str(jobs.drain()) == "2 recorded"
    with arena.db.read() as s:
        rows = s.execute(
            select(
                TournamentMatch.status, TournamentMatch.completion, TournamentMatch.finished_at
            ).where(TournamentMatch.id.in_([quick, slow]))
        ).all()
    assert [(status, completion) for status, completion, _ in rows] == [(MatchStatus.DONE, 1)] * 2
    assert len({finished for _, _, finished in rows}) == writes, "one time per write"


def test_a_ladders_result_never_waits_for_the_batch_while_other_ranked_matches_play(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ladder's next table waits for its last one's record, so its result is written
    at once, even within a long flush interval and beside a ranked match still playing
    (batched, a competition fell to a table or two a second beside A/B tests)."""
    arena = Platform(settings)
    first_table = _started_ladder(arena)[0]
    Gated.gate.clear()
    with served(Gated) as endpoint:
        _endpoint_tournament(arena, "gated", endpoint, "slow", 1, deadline=60.0)
        [slow] = _started(arena, "slow")
        with worker_in_this_process(settings, monkeypatch) as jobs:
            monkeypatch.setattr(jobs, "FLUSH_SECONDS", 3600.0)
            assert jobs.play_matches([slow, first_table]) == "2 in play"
            wait_until(
                lambda: _status(arena, first_table) is MatchStatus.DONE,
                "the ladder's result waited for the batch",
            )
            assert _status(arena, slow) is MatchStatus.RUNNING, "written while slow plays"
            Gated.gate.set()
            assert str(jobs.drain()) == "2 recorded"


def _started_ladder(arena: Platform) -> list[int]:
    """A ladder of the samples, two tables of two, started: its first tables' matches."""
    arena.db.transaction(lambda s: [bots.add_bot(s, n, BotKind.SAMPLE, n) for n in SAMPLES])
    arena.db.transaction(
        lambda s: tournaments.create(
            s, "ladder", Ruleset.parse("classic"), SAMPLES, 2, 2, seed="l", format="ladder"
        )
    )
    return [match for match, _ in arena.db.transaction(lambda s: tournaments.start(s, "ladder"))]


def test_a_job_tops_its_ladder_up_after_recording(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    arena = Platform(settings)
    first = _started_ladder(arena)
    with worker_in_this_process(settings, monkeypatch) as jobs:
        jobs.play_matches(first)
        assert str(jobs.drain()) == "2 recorded"
    with arena.db.read() as s:
        rows = s.execute(
            select(TournamentMatch.id, TournamentMatch.status, TournamentMatch.job_id).order_by(
                TournamentMatch.id
            )
        ).all()
    assert [status for _, status, _ in rows[:2]] == [MatchStatus.DONE] * 2
    refilled = [(match, job) for match, status, job in rows[2:] if status is MatchStatus.QUEUED]
    assert len(refilled) == 2, "both tables are in play again"
    assert all(work_queue.job_pending(arena.queue, job) for _, job in refilled), "and sent"


def test_a_burst_worker_seats_no_ladder_table_after_recording_nor_when_reconciling(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker that stops once the queue is empty plays a ladder's queued tables but
    queues no next ones, after the record or in its reconciler's pass (a ladder never
    ends: its worker would not stop); a long-running worker's reconciler seats them."""
    arena = Platform(settings)
    first = _started_ladder(arena)
    with worker_in_this_process(settings, monkeypatch) as jobs:
        from worker import runner

        jobs.stop_when_empty(True)
        jobs.play_matches(first)
        assert str(jobs.drain()) == "2 recorded"
        assert runner.refill_ladders() == [], "the reconciler seats none either"
        with arena.db.read() as s:
            statuses = s.scalars(select(TournamentMatch.status)).all()
        assert statuses == [MatchStatus.DONE] * 2
        jobs.stop_when_empty(False)
        assert len(runner.refill_ladders()) == 2, "a long-running worker's seats both tables"


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
        jobs.play_matches([good_1, broken, good_2])
        outcomes = jobs.drain()
        assert outcomes.counts == {"recorded": 2}
        [failure] = outcomes.failures
        assert re.match(f"match {broken}: .*nope", failure), failure
        assert jobs.play_matches([good_1]).startswith("0 in play, 1 skipped: not queued")
    with arena.db.read() as s:
        assert s.get(TournamentMatch, good_1).status is MatchStatus.DONE
        assert s.get(TournamentMatch, good_2).status is MatchStatus.DONE
        given_back = s.get(TournamentMatch, broken)
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


def test_a_worker_keeps_the_matches_of_several_jobs_in_flight(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker played one job's matches at a time: a job of one waiting match held the
    worker until the bots answered, however many slots it had free."""
    arena = Platform(settings)
    Gated.gate.clear()
    with served(Gated) as endpoint:
        _endpoint_tournament(arena, "gated", endpoint, "slow", 3, deadline=60.0)
        queued = _started(arena, "slow")
        with worker_in_this_process(settings, monkeypatch) as jobs:
            for match in queued:  # three jobs, each back while its match still plays
                assert jobs.play_matches([match]) == "1 in play"
            with arena.db.read() as s:
                playing = s.execute(select(TournamentMatch.status, TournamentMatch.worker)).all()
            assert {status for status, _ in playing} == {MatchStatus.RUNNING}
            assert len({worker for _, worker in playing}) == 1, "all three in this worker"
            Gated.gate.set()
            assert str(jobs.drain()) == "3 recorded"


class Pondering(Bot):
    """Thinks 20 s over its first decision of a match (the deadline is 30 s)."""

    name = "pondering"

    def on_match_start(self, match) -> None:
        self.first = True

    async def act(self, obs):
        if self.first:
            self.first = False
            await asyncio.sleep(20)
        return await Gated().act(obs)


@pytest.mark.slow
def test_a_match_that_waits_20_s_for_an_answer_is_never_taken_for_lost(
    settings: Settings,
) -> None:
    """Its lease (9 s) is renewed while it plays, whatever the match's length."""
    arena = Platform(settings)
    Gated.gate.set()
    with served(Pondering) as endpoint:
        _endpoint_tournament(arena, "pondering", endpoint, "t", 1, deadline=30.0)
        with Workers(settings, 1, settings.data_dir / "logs", forks=session_forks()):
            arena.start_tournament("t")
            status = wait_done(arena, timeout=300)
    assert status.matches.done == 1
    with arena.db.read() as s:
        match = s.scalars(select(TournamentMatch)).one()
        assert match.attempts == 1, "played once: never given to another worker"
    [entry] = [row for row in status.leaderboard if row.bot == "pondering"]
    assert (entry.forfeits, entry.strikes) == (0, 0)


def test_an_endpoint_never_plays_more_matches_at_once_than_its_own_limit(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bot on a thread-pool server was sent as many streams as the workers had slots."""
    from arena.base.errors import Invalid
    from arena.store import matches

    arena = Platform(settings)
    Gated.gate.clear()
    with served(Gated) as endpoint:
        _endpoint_tournament(arena, "gated", endpoint, "slow", 3, deadline=60.0)
        arena.db.transaction(
            lambda s: bots.limit_matches(bots.active_version(s, "gated"), max_matches=2)
        )
        first, second, third = _started(arena, "slow")
        with worker_in_this_process(settings, monkeypatch) as jobs:
            said = jobs.play_matches([first, second, third])
            assert said == "2 in play, 1 waiting for a bot's limit of matches at once", said
            assert _status(arena, third) is MatchStatus.QUEUED
            assert matches.claim_all(arena.db, [third], "another worker") == [], "over all workers"
            Gated.gate.set()  # once one of the two ends, the worker claims the third itself
            assert str(jobs.drain()) == "3 recorded"
        with arena.db.read() as s:
            rows = s.execute(select(TournamentMatch.started_at, TournamentMatch.referee_ms)).all()
        spans = sorted((start, start + timedelta(milliseconds=ms)) for start, ms in rows)
        assert spans[2][0] >= min(spans[0][1], spans[1][1]), "never three at once"
    with arena.db.read() as s, pytest.raises(Invalid, match="only an endpoint"):
        bots.limit_matches(bots.active_version(s, SAMPLES[0]), 4)


class Plain(Bot):
    """A plain ``def act``: it holds its server's loop while it thinks."""

    name = "plain"

    def act(self, obs):
        return simple_play(obs)


@pytest.mark.parametrize(
    ("bot", "served_with", "kept"),
    [(Gated, None, 256), (Plain, None, None), (Gated, 3, 3), (Plain, 5, 5)],
    ids=["async", "plain", "async-said-3", "plain-said-5"],
)
def test_the_limit_a_bot_announces_in_its_hello_is_kept_once_its_match_is_recorded(
    settings: Settings,
    monkeypatch: pytest.MonkeyPatch,
    bot: type[Bot],
    served_with: int | None,
    kept: int | None,
) -> None:
    arena = Platform(settings)
    Gated.gate.set()
    with served(bot, max_matches=served_with) as endpoint:
        _endpoint_tournament(arena, "announcing", endpoint, "t", 1, deadline=30.0)
        with worker_in_this_process(settings, monkeypatch) as jobs:
            assert jobs.play_matches(_started(arena, "t")) == "1 in play"
            assert str(jobs.drain()) == "1 recorded"
    with arena.db.read() as s:
        version = bots.active_version(s, "announcing")
        assert (version.max_matches, version.announced_matches) == (None, kept)


def test_what_a_bot_announces_lifts_its_limit_as_soon_as_it_says_hello(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An endpoint nobody has heard yet is seated in the default number of matches at
    once; its Hello announces more (the SDK's async bot: 256), and the matches the
    default kept queued start while the first ones still play (the bot waits at a shut
    gate: none of its matches can end before all of them are running)."""
    arena = Platform(settings)
    games = bots.DEFAULT_ENDPOINT_MATCHES + 8
    Gated.gate.clear()
    with served(Gated) as endpoint:
        _endpoint_tournament(arena, "newcomer", endpoint, "t", games, deadline=60.0)
        ids = _started(arena, "t")
        with worker_in_this_process(settings, monkeypatch) as jobs:
            said = jobs.play_matches(ids)
            assert said.startswith(f"{bots.DEFAULT_ENDPOINT_MATCHES} in play"), said
            assert "8 waiting for a bot's limit" in said, said

            def running() -> bool:
                with arena.db.read() as s:
                    statuses = s.scalars(
                        select(TournamentMatch.status).where(TournamentMatch.id.in_(ids))
                    ).all()
                return statuses.count(MatchStatus.RUNNING) == games

            wait_until(running, "the matches its default kept queued never started")
            Gated.gate.set()
            assert str(jobs.drain()) == f"{games} recorded"
    with arena.db.read() as s:
        assert bots.active_version(s, "newcomer").announced_matches == 256


def test_a_job_larger_than_the_room_left_passes_the_rest_on_to_another_worker(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker with room for two more matches takes a job of three: it plays two and
    sends the third back to the queue in a job of its own, at once, for a worker with
    room (it would otherwise wait here for a slot, and end the tournament late)."""
    arena = Platform(settings)
    Gated.gate.clear()
    with served(Gated) as endpoint:
        _endpoint_tournament(arena, "gated", endpoint, "t", 3, deadline=60.0)
        first, second, third = _started(arena, "t")
        monkeypatch.setenv("ARENA_WORKER_CONCURRENCY", "2")
        with worker_in_this_process(settings, monkeypatch) as jobs:
            taking = ThreadPoolExecutor(1).submit(jobs.play_matches, [first, second, third])
            queue = work_queue.match_queue(arena.queue.connection, settings.queue_name)

            def passed_on() -> str | None:
                with arena.db.read() as s:
                    match = s.get(TournamentMatch, third)
                    job_id = match.job_id if match.status is MatchStatus.QUEUED else None
                return job_id if job_id in queue.get_job_ids() else None

            job_id = wait_until(passed_on, "the third match was never passed on")
            assert [list(a) for a in queue.fetch_job(job_id).args] == [[third]]
            assert not taking.done(), "the job waits for room while its two matches play"
            Gated.gate.set()
            assert taking.result() == "2 in play, 1 passed on to a worker with room"
            assert str(jobs.drain()) == "2 recorded"
            assert jobs.play_matches([third]) == "1 in play"
            assert str(jobs.drain()) == "1 recorded"
