"""Ranked play first: an owner's private tournaments wait in a lane of their own, which a
worker reads only when no ranked match (a competition's, a qualification, an A/B test's,
an operator's tournament) is queued. The stall it prevents: one owner's three private
tournaments of a slow bot once put ~550 matches ahead of the competition's."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from rq import Worker
from sqlalchemy import select

from arena.base.jobs import PRIVATE_JOB
from arena.base.states import BotKind
from arena.engine import Ruleset
from arena.platform import Platform
from arena.platform.queue import PRIVATE_LANE, lane_names, match_queue
from arena.platform.services import Workers
from arena.platform.settings import Settings
from arena.policies import RandomLegal
from arena.referee import RefereeSettings
from arena.sdk import Bot
from arena.store import bots, tournaments
from arena.store.limits import PrivateLimits
from arena.store.models import TournamentMatch
from arena.store.owners import add_owner
from sample_bots.random import RandomBot
from tests.support.cli import arena as arena_command
from tests.support.cli import environment
from tests.support.engine import served
from tests.support.forks import session_forks
from tests.support.store import SAMPLES, add_samples
from tests.support.waiting import HANG_SECONDS, wait_until
from worker.rq_classes import RANKED_ONLY

pytestmark = [pytest.mark.services, pytest.mark.processes]

RULES = Ruleset.parse("classic")


def _start_times(platform: Platform, name: str) -> list:
    with platform.db.read() as session:
        tournament = tournaments.get(session, name)
        return sorted(
            session.scalars(
                select(TournamentMatch.started_at).where(
                    TournamentMatch.tournament_id == tournament.id
                )
            )
        )


def test_private_work_queued_first_is_played_after_the_ranked_work(settings: Settings) -> None:
    platform = Platform(settings)
    add_samples(platform.db)

    def create(session) -> None:
        owner, _ = add_owner(session, "busy")
        tournaments.create(session, "mine", RULES, SAMPLES[:3], 3, 12, owner=owner)
        tournaments.create(session, "ranked", RULES, SAMPLES[:3], 3, 6)

    platform.db.transaction(create)
    platform.start_tournament("mine")  # queued first: a FIFO would play it first
    platform.start_tournament("ranked")
    connection = platform.queue.connection
    ranked, private = (match_queue(connection, name) for name in lane_names(platform.queue.name))
    assert private.name.endswith(PRIVATE_LANE)
    assert len(ranked) > 0 and len(private) > 0
    assert all(job_id.startswith(PRIVATE_JOB) for job_id in private.job_ids)
    assert not any(job_id.startswith(PRIVATE_JOB) for job_id in ranked.job_ids)

    env = environment(settings) | {"ARENA_WORKER_CONCURRENCY": "1"}
    worker = arena_command("worker", "--burst", env=env)
    assert worker.returncode == 0, worker.stderr[-2000:]
    ranked_times, private_times = _start_times(platform, "ranked"), _start_times(platform, "mine")
    assert len(ranked_times) == 6 and len(private_times) == 12 and None not in private_times
    assert max(ranked_times) < min(private_times), "a private match went before a ranked one"


class Stuck(Bot):
    """Thinks until the test lets it go (its tournament gives it all the time)."""

    name = "stuck"
    asked = threading.Event()
    go = threading.Event()

    def act(self, observation):
        Stuck.asked.set()
        Stuck.go.wait(HANG_SECONDS)
        return RandomLegal(0).act(observation)


def _finished(platform: Platform, name: str) -> bool:
    with platform.db.read() as session:
        tournament = tournaments.get(session, name)
        return tournament.completed == tournament.games


def _job_of(platform: Platform, name: str) -> tuple[str | None, str]:
    with platform.db.read() as session:
        tournament = tournaments.get(session, name)
        match = session.scalars(
            select(TournamentMatch).where(TournamentMatch.tournament_id == tournament.id)
        ).one()
        return match.job_id, match.status


def _reads_ranked_only(platform: Platform) -> bool:
    connection = platform.queue.connection
    return any(
        connection.hget(worker.key, "arena_lanes") == RANKED_ONLY.encode()
        for worker in Worker.all(queue=platform.queue)
    )


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_private_matches_never_hold_every_slot_of_a_worker(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker of two slots; an owner's two private tournaments, each of one match whose
    bot thinks until told (it would hold its slot for ever): a ranked tournament started
    once the worker has seen both still plays to its end, because private matches get
    half a worker at most."""
    Stuck.asked.clear()
    Stuck.go.clear()
    monkeypatch.setenv("ARENA_WORKER_CONCURRENCY", "2")
    platform = Platform(settings)
    add_samples(platform.db, ["random"])
    patient = RefereeSettings(deadline=HANG_SECONDS, time_bank=HANG_SECONDS)
    with (
        served(Stuck) as first,
        served(Stuck) as second,  # a server each: each match blocks on its own
        served(RandomBot) as quick,
    ):

        def create(session) -> None:
            owner, _ = add_owner(session, "busy")
            grant = PrivateLimits(deadline=HANG_SECONDS)  # an operator's grant
            for name, endpoint in (("one", first), ("two", second)):
                bots.add_bot(session, name, BotKind.ENDPOINT, endpoint, owner_id=owner.id)
                tournaments.create(
                    session, f"mine-{name}", RULES, [name, "random"], 2, 1,
                    settings=patient, owner=owner, limits=grant,
                )  # fmt: skip
            bots.add_bot(session, "quick", BotKind.ENDPOINT, quick)
            tournaments.create(session, "ranked", RULES, ["quick", "random"], 2, 4)

        platform.db.transaction(create)
        platform.start_tournament("mine-one")
        platform.start_tournament("mine-two")
        queued = _job_of(platform, "mine-two")[0]
        with Workers(settings, 1, tmp_path / "logs", forks=session_forks()):
            assert Stuck.asked.wait(HANG_SECONDS), "no private match started"
            # the worker has taken the second private job, or reads the ranked lane only
            wait_until(
                lambda: (
                    _job_of(platform, "mine-two") != (queued, "queued")
                    or _reads_ranked_only(platform)
                ),
                "the worker never took the second private match nor kept it waiting",
            )
            platform.start_tournament("ranked")
            wait_until(lambda: _finished(platform, "ranked"), "the ranked tournament stalled")
            assert not _finished(platform, "mine-one") or not _finished(platform, "mine-two")
            Stuck.go.set()
            for name in ("mine-one", "mine-two"):
                wait_until(lambda n=name: _finished(platform, n), f"{name} never ended")


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_an_owners_private_tournament_plays_beside_anothers_stuck_ones(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker with two private slots; one owner's three private tournaments, queued
    first, whose bot thinks until told; another owner's tournament, queued after them,
    still plays to its end: owners take turns in the private lane (a FIFO gave the first
    owner both slots until its 3 tournaments ended)."""
    Stuck.asked.clear()
    Stuck.go.clear()
    monkeypatch.setenv("ARENA_WORKER_CONCURRENCY", "16")  # private: an eighth, 2 slots
    platform = Platform(settings)
    add_samples(platform.db, ["random"])
    patient = RefereeSettings(deadline=HANG_SECONDS, time_bank=HANG_SECONDS)
    with served(Stuck) as stuck, served(RandomBot) as quick:

        def create(session) -> None:
            grant = PrivateLimits(deadline=HANG_SECONDS)  # an operator's grant
            busy, _ = add_owner(session, "busy")
            bots.add_bot(session, "slow", BotKind.ENDPOINT, stuck, owner_id=busy.id)
            for index in range(3):
                tournaments.create(
                    session, f"busy-{index}", RULES, ["slow", "random"], 2, 2,
                    settings=patient, owner=busy, limits=grant,
                )  # fmt: skip
            other, _ = add_owner(session, "other")
            bots.add_bot(session, "quick", BotKind.ENDPOINT, quick, owner_id=other.id)
            tournaments.create(session, "other", RULES, ["quick", "random"], 2, 4, owner=other)

        platform.db.transaction(create)
        for name in ("busy-0", "busy-1", "busy-2", "other"):
            platform.start_tournament(name)
        with Workers(settings, 1, tmp_path / "logs", forks=session_forks()):
            assert Stuck.asked.wait(HANG_SECONDS), "no private match started"
            wait_until(lambda: _finished(platform, "other"), "the other owner's tournament waited")
            assert not any(_finished(platform, f"busy-{index}") for index in range(3))
            Stuck.go.set()
            for index in range(3):
                wait_until(lambda i=index: _finished(platform, f"busy-{i}"), "busy never ended")
