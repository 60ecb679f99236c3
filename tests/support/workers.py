"""Tournaments played by real workers: setting one up, waiting for it, checking that every
match was recorded once and that the ratings equal a sequential replay."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from rq import Worker
from sqlalchemy import func, select

from arena.base.states import BotKind, MatchStatus
from arena.engine import Ruleset
from arena.platform import Platform
from arena.platform.settings import Settings
from arena.services.tournaments import TournamentState
from arena.store import bots, logs, tournaments
from arena.store.models import Entry, RatingChange, StoredLog, Tournament, TournamentMatch
from arena.tournament import ratings
from tests.support.store import SAMPLES
from tests.support.waiting import HANG_SECONDS, wait_until
from worker.rq_classes import UNPREPARED, sandbox_of


def setup_tournament(arena: Platform, games: int, name: str = "t", **options) -> None:
    arena.db.transaction(lambda s: [bots.add_bot(s, n, BotKind.SAMPLE, n) for n in SAMPLES])
    arena.db.transaction(
        lambda s: tournaments.create(
            s, name, Ruleset.parse("classic", options), SAMPLES, 4, games, seed=name
        )
    )


def wait_done(arena: Platform, name: str = "t", timeout: float = HANG_SECONDS) -> TournamentState:
    deadline = time.monotonic() + timeout
    while not (status := arena.tournament_status(name)).over:
        assert time.monotonic() < deadline, f"not done in {timeout:g} s: {status.matches}"
        time.sleep(0.2)
    return status


def ready_at(arena: Platform, process: subprocess.Popen[bytes]) -> float:
    """Wait until the worker ``process`` is ready to play (registered and its sandbox
    probed: it takes no job before); when it was seen ready (monotonic). The recovery
    bound holds while another worker runs: a worker still starting (seconds, or tens of
    seconds on a loaded machine) is not running yet."""

    def ready() -> bool:
        return any(
            f":{process.pid}-" in worker.name and sandbox_of(worker) != UNPREPARED
            for worker in Worker.all(connection=arena.queue.connection)
        )

    wait_until(ready, f"worker {process.pid} never got ready to play")
    return time.monotonic()


def assert_recorded_exactly_once(arena: Platform, games: int) -> None:
    with arena.db.read() as s:
        assert (
            s.scalar(
                select(func.count())
                .select_from(TournamentMatch)
                .where(TournamentMatch.status == MatchStatus.DONE)
            )
            == games
        )
        assert s.scalar(select(func.count()).select_from(StoredLog)) == games
        completions = sorted(s.scalars(select(TournamentMatch.completion)))
        assert completions == list(range(1, games + 1)), "each match completed once"
        assert s.scalar(select(func.count()).select_from(RatingChange)) == 4 * games


def assert_ratings_replay(arena: Platform) -> None:
    """The stored ratings equal a sequential replay of the recorded results under their
    tournament's rating system."""
    with arena.db.read() as s:
        expected: dict[int, ratings.Rating] = {}
        recorded = (
            select(TournamentMatch)
            .where(TournamentMatch.completion.is_not(None))
            .order_by(TournamentMatch.completion)
        )
        for match in s.scalars(recorded):
            log = logs.decode(s.get(StoredLog, match.id).data)
            versions = [seat.bot_version_id for seat in match.seats]
            system = s.get(Tournament, match.tournament_id).rating
            current = [expected.get(v, system.start()) for v in versions]
            expected.update(
                zip(versions, system.rate(current, log["result"]["ranking"]), strict=True)
            )
        for entry in s.scalars(select(Entry)):
            assert entry.mu == pytest.approx(expected[entry.bot_version_id].mu, abs=1e-9)
            assert entry.sigma == pytest.approx(expected[entry.bot_version_id].sigma, abs=1e-9)


@contextmanager
def worker_in_this_process(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Iterator:
    """``worker.jobs`` configured for ``settings``, to run jobs in the test's process."""
    from worker import jobs

    for key, value in (
        ("ARENA_DATA_DIR", str(settings.data_dir)),
        ("ARENA_DATABASE_URL", settings.database_url),
        ("REDIS_URL", settings.redis_url or ""),
        ("ARENA_QUEUE", settings.queue_name),
    ):
        monkeypatch.setenv(key, value)
    jobs.reset()
    try:
        yield jobs
    finally:
        jobs.reset()
