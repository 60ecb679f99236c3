"""A worker's runtime: concurrent matches, exact deadlines, streams and warm sandboxes
kept across matches, and a bot that fails in one match replaced for the next."""

from __future__ import annotations

import asyncio
import inspect
import json
from pathlib import Path

import pytest
from sqlalchemy import select

from arena.base.states import BotKind
from arena.engine import Ruleset
from arena.platform import Platform
from arena.platform.services import Workers
from arena.platform.settings import Settings
from arena.referee import RefereeSettings
from arena.sdk import Bot
from arena.store import bots, logs, tournaments
from arena.store.models import StoredLog, TournamentMatch
from tests.support.engine import served, simple_play
from tests.support.forks import session_forks
from tests.support.workers import wait_done

pytestmark = pytest.mark.processes


RULES = Ruleset.parse("classic")
#: an answer on time comes DEADLINE - THINK_SECONDS early (3.98 s of room for a loaded
#: machine: a stall of 1.5 s on a CI machine busy with four test processes made an
#: answer on time late); a late one is rare (one per match: seat 0's second decision), so
#: the long deadline costs the test little
THINK_SECONDS = 0.02
DEADLINE = 4.0
#: a late answer that finds the referee still waiting (it never should) goes after this
LATE_LIMIT_SECONDS = 60.0


class Thinker(Bot):
    """Deterministic, and slow: it awaits before each answer (``async def act``), and in
    seat 0 it answers its second decision of a match late.

    Late by events, not by a sleep (an answer 50 ms after the deadline was once taken on
    time by a referee whose loop ran 50 ms behind, which favours the bot, as it should):
    seat 0 answers once another seat of its match is asked to act, which the referee does
    only after it gave up waiting for seat 0."""

    name = "thinker"
    #: per match id, set when another seat acts while seat 0 holds its late answer
    moved_on: dict[str, asyncio.Event] = {}

    def on_match_start(self, match) -> None:
        self.decisions = 0
        self.match_id = match.match_id
        self.answers_late = match.seat == 0

    async def act(self, obs):
        self.decisions += 1
        if self.answers_late and self.decisions == 2:
            moved_on = Thinker.moved_on[self.match_id] = asyncio.Event()
            await asyncio.wait_for(moved_on.wait(), LATE_LIMIT_SECONDS)
        else:
            if (waiting := Thinker.moved_on.get(self.match_id)) is not None:
                waiting.set()
            await asyncio.sleep(THINK_SECONDS)
        return simple_play(obs)


def play_tournament(settings: Settings, name: str, concurrency: int, monkeypatch) -> list[dict]:
    """The tournament's logs by schedule index, played by one worker process."""
    arena = Platform(settings)
    arena.db.transaction(
        lambda s: tournaments.create(
            s,
            name,
            RULES,
            ["a", "b", "c", "d"],
            4,
            4,
            seed="same deals",
            settings=RefereeSettings(deadline=DEADLINE, time_bank=0.0, strikes=100),
        )
    )
    monkeypatch.setenv("ARENA_WORKER_CONCURRENCY", str(concurrency))
    with Workers(settings, 1, settings.data_dir / "logs", forks=session_forks()):
        arena.start_tournament(name)
        wait_done(arena, name)
    with arena.db.read() as s:
        tournament = tournaments.get(s, name)
        rows = s.scalars(
            select(StoredLog.data)
            .join(TournamentMatch, StoredLog.match_id == TournamentMatch.id)
            .where(TournamentMatch.tournament_id == tournament.id)
            .order_by(TournamentMatch.index)
        ).all()
    return [{"log": logs.decode(data)} for data in rows]


def overlaps(matches: list[dict]) -> int:
    """Pairs of matches that the referee played at the same time (from their logs)."""
    spans = [
        (m["log"]["started_at"], m["log"]["started_at"] + m["log"]["duration_ms"] / 1000)
        for m in matches
    ]
    return sum(
        1
        for i, (start, end) in enumerate(spans)
        for other_start, other_end in spans[i + 1 :]
        if start < other_end and other_start < end
    )


def test_a_worker_plays_waiting_bots_at_once_with_every_deadline_kept(
    settings: Settings, monkeypatch
) -> None:
    arena = Platform(settings)
    with served(Thinker) as endpoint:
        arena.db.transaction(
            lambda s: [bots.add_bot(s, n, BotKind.ENDPOINT, endpoint) for n in "abcd"]
        )
        together = play_tournament(settings, "together", 4, monkeypatch)
        alone = play_tournament(settings, "alone", 1, monkeypatch)
    assert overlaps(together) >= 4, "matches overlap in one worker"
    assert overlaps(alone) == 0
    for one, other in zip(together, alone, strict=True):
        assert one["log"]["seed"] == other["log"]["seed"]
        assert one["log"]["deals"] == _without_timing(other["log"]["deals"], one["log"]["deals"])
        assert one["log"]["result"] == other["log"]["result"]
        for index, (seat, again) in enumerate(
            zip(one["log"]["seats"], other["log"]["seats"], strict=True)
        ):
            assert seat["strikes"] == again["strikes"], "the same answers were late"
            if index == 0:
                assert seat["strikes"] > 0, "every late answer is a strike"
                assert seat["latency_ms"]["max"] == DEADLINE * 1000, (
                    "a late answer counts the deadline"
                )


def _without_timing(deals: list[dict], like: list[dict]) -> list[dict]:
    """``deals`` with the step timings of ``like`` (timings differ run to run)."""
    copied = json.loads(json.dumps(deals))
    for deal, other in zip(copied, like, strict=True):
        for step, timed in zip(deal["steps"], other["steps"], strict=True):
            step["latency_ms"], step["at_ms"] = timed["latency_ms"], timed["at_ms"]
    return copied


#: the start of the test bots' sources: a plain legal play
SIMPLE_PLAY = (
    "from typing import Any\n\nfrom arena.sdk import Bot, serve\n\n\n"
    + inspect.getsource(simple_play)
)

CRASHY = (
    SIMPLE_PLAY
    + """
import os


class Crashy(Bot):
    \"\"\"Exits in the middle of every match whose id is 1 more than a multiple of 5.\"\"\"

    def on_match_start(self, match):
        self.doomed = int(match.match_id) % 5 == 1

    def act(self, obs):
        if self.doomed and obs.turn > 3:
            os._exit(3)
        return simple_play(obs)


if __name__ == "__main__":
    serve(Crashy)
"""
)


@pytest.mark.sandbox
def test_a_warm_bot_that_crashes_is_replaced_and_only_its_match_is_charged(
    settings: Settings, monkeypatch, tmp_path: Path
) -> None:
    """One process serves match after match; the one that crashed is replaced and the
    replacement plays the next match cleanly."""
    monkeypatch.setenv("ARENA_WORKER_CONCURRENCY", "1")  # a crash ends every seat of its process
    forfeits, others = play_against_samples(settings, tmp_path, "crash", CRASHY)
    assert len(forfeits) == 12
    doomed = {match_id for match_id in forfeits if match_id % 5 == 1}
    assert {m for m, f in forfeits.items() if f is not None} == doomed, forfeits
    assert all(forfeits[m]["kind"] == "crashed" for m in doomed)
    worker_log = (settings.data_dir / "logs" / "worker-0.log").read_text()
    assert worker_log.count("replacing the sandbox of") == len(doomed), "only after a crash"
    assert all(e["forfeit"] is None for e in others)


BURNER = (
    SIMPLE_PLAY
    + """
import time


class Burner(Bot):
    \"\"\"Computes 0.15 s of CPU per decision in every match whose id is 1 more than a
    multiple of 4; plays at once in the others.\"\"\"

    def on_match_start(self, match):
        self.burns = int(match.match_id) % 4 == 1

    def act(self, obs):
        if self.burns:
            until = time.process_time() + 0.15
            while time.process_time() < until:
                pass
        return simple_play(obs)


if __name__ == "__main__":
    serve(Burner)
"""
)


@pytest.mark.sandbox
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_bot_over_its_cpu_budget_forfeits_that_match_only(
    settings: Settings, monkeypatch, tmp_path: Path
) -> None:
    """The CPU a warm process uses while a match waits on it is that match's: over the
    budget (here 1 s) the seat forfeits, the other matches of the same process (played
    at the same time) are not charged, and the other bots play on."""
    monkeypatch.setenv("ARENA_MATCH_CPU_SECONDS", "1")
    forfeits, others = play_against_samples(settings, tmp_path, "burner", BURNER)
    assert len(forfeits) == 12
    burning = {match_id for match_id in forfeits if match_id % 4 == 1}
    assert burning
    assert {m for m, f in forfeits.items() if f is not None} == burning, forfeits
    for match_id in burning:
        assert forfeits[match_id]["kind"] == "cpu_limit"
        assert "over its budget of 1 s" in forfeits[match_id]["detail"]
    assert all(e["forfeit"] is None for e in others)


def play_against_samples(
    settings: Settings, tmp_path: Path, name: str, source: str
) -> tuple[dict[int, dict | None], list[dict]]:
    """An uploaded bot from ``source`` plays 12 matches against two samples on one
    worker: its forfeit by match id, and the other seats' log entries."""
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    arena = Platform(settings)
    arena.db.transaction(lambda s: bots.add_bot(s, name, BotKind.PATH, str(path)))
    arena.db.transaction(
        lambda s: [bots.add_bot(s, n, BotKind.SAMPLE, n) for n in ("random", "honest")]
    )
    arena.db.transaction(
        lambda s: tournaments.create(s, "t", RULES, [name, "random", "honest"], 3, 12, seed=name)
    )
    with Workers(settings, 1, settings.data_dir / "logs", forks=session_forks()):
        arena.start_tournament("t")
        wait_done(arena, "t")
    with arena.db.read() as s:
        played = [
            logs.decode(data)
            for data in s.scalars(
                select(StoredLog.data).join(
                    TournamentMatch, TournamentMatch.id == StoredLog.match_id
                )
            )
        ]
    seats = [(int(log["match_id"]), entry) for log in played for entry in log["seats"]]
    mine = {match_id: e["forfeit"] for match_id, e in seats if e["name"] == f"{name} v1"}
    return mine, [e for _, e in seats if e["name"] != f"{name} v1"]


MEMORY = (
    SIMPLE_PLAY
    + """

STARTED = 0


class Memory(Bot):
    # says in its Hello how many matches its process has started

    def __init__(self):
        global STARTED
        STARTED += 1
        self.name = f"match {STARTED} of this process"

    def act(self, obs):
        return simple_play(obs)


if __name__ == "__main__":
    serve(Memory)
"""
)


@pytest.mark.sandbox
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_processes_stay_warm_across_matches_unless_fresh_ones_are_asked_for(
    settings: Settings, monkeypatch, tmp_path: Path
) -> None:
    """Two bots with the same code never share a process, and in a duplicate tournament
    each seat gets a fresh process: a bot cannot remember a deal's hands from one
    rotation to the next; a tournament may ask for a fresh process per match too. A warm
    process serves its bot at either seat (its copy of the runtime stays free for it)."""
    source = tmp_path / "memory.py"
    source.write_text(MEMORY)
    arena = Platform(settings)
    arena.db.transaction(
        lambda s: [bots.add_bot(s, n, BotKind.PATH, str(source)) for n in ("m1", "m2")]
    )
    monkeypatch.setenv("ARENA_WORKER_CONCURRENCY", "1")
    kinds = {"warm": {}, "rotations": {"duplicate": True}, "fresh": {"fresh_processes": True}}
    for name, options in kinds.items():
        arena.db.transaction(
            lambda s, name=name, options=options: tournaments.create(
                s, name, RULES, ["m1", "m2"], 2, 6, seed=name, **options
            )
        )
    hellos: dict[str, list[tuple[str, int, str]]] = {}
    with Workers(settings, 1, settings.data_dir / "logs", forks=session_forks()):
        for name in kinds:
            arena.start_tournament(name)
            wait_done(arena, name)
            with arena.db.read() as s:
                tournament = tournaments.get(s, name)
                played = [
                    logs.decode(data)
                    for data in s.scalars(
                        select(StoredLog.data)
                        .join(TournamentMatch, TournamentMatch.id == StoredLog.match_id)
                        .where(TournamentMatch.tournament_id == tournament.id)
                        .order_by(TournamentMatch.index)
                    )
                ]
            hellos[name] = [
                (e["name"], e["seat"], e["hello"]["name"]) for log in played for e in log["seats"]
            ]
    for bot in ("m1 v1", "m2 v1"):  # one warm process a bot, serving match after match
        seen = [hello for who, _, hello in hellos["warm"] if who == bot]
        assert seen == [f"match {n} of this process" for n in range(1, 7)], seen
        assert {at for who, at, _ in hellos["warm"] if who == bot} == {0, 1}  # at either seat
    for name in ("rotations", "fresh"):
        assert len(hellos[name]) == 12
        assert all(hello == "match 1 of this process" for _, _, hello in hellos[name]), name
