"""Hostile bots, each a real gRPC server in its own process: a bot's failure never crashes
or hangs the referee; each ends in the exact outcome docs/rules.md "Forfeit" gives."""

from __future__ import annotations

import json
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.base import aio
from arena.engine import Ruleset
from arena.platform.launcher import BotProcesses
from arena.referee import GrpcSeat, LocalSeat, Referee, RefereeSettings
from arena.referee.log import MatchLog
from arena.referee.replay import replay
from sample_bots import HonestBot

pytestmark = pytest.mark.processes

ROOT = Path(__file__).resolve().parents[1]
RULES = Ruleset.parse("classic")
#: for the bots that are late or silent: their strikes come quickly
FAST = RefereeSettings(deadline=0.1, time_bank=0.2, strikes=3, illegal_limit=3, start_timeout=2.0)
#: for the others: no deadline is tight, so a stalled machine never turns their failure
#: into a late answer (their outcome is the exact one their failure earns)
PATIENT = RefereeSettings(deadline=5, time_bank=10, strikes=3, illegal_limit=3, start_timeout=10)


@pytest.fixture
def hostile() -> Iterator:
    with BotProcesses() as processes:

        def start(kind: str, **env: str) -> str:
            command = [sys.executable, "-m", "tests.hostile_bots", kind, "--port", "0"]
            return processes.start(command, kind, env=env, cwd=ROOT)

        yield start


def play(endpoint: str, settings: RefereeSettings = PATIENT) -> tuple[dict, float]:
    """The hostile bot at seat 0 against two honest in-process bots; the log as stored
    (its JSON) and seconds."""
    seats = [GrpcSeat(endpoint, "hostile")] + [
        LocalSeat(HonestBot(ruleset=RULES, players=3), f"honest{i}") for i in (1, 2)
    ]
    began = time.perf_counter()
    log = aio.run(Referee(RULES, seats, seed=11, settings=settings).run())
    elapsed = time.perf_counter() - began
    report = replay(log)
    assert report.ok, report.mismatches
    as_json = json.loads(json.dumps(log.to_dict()))
    assert MatchLog.from_dict(as_json) == log, "the typed log reads it whole"
    return as_json, elapsed


def seat0_steps(log: dict) -> list[str]:
    return [step["kind"] for deal in log["deals"] for step in deal["steps"] if step["seat"] == 0]


def assert_forfeited_last(log: dict, kind: str, detail: str) -> None:
    forfeit = log["seats"][0]["forfeit"]
    assert forfeit is not None and forfeit["kind"] == kind
    assert detail in forfeit["detail"]
    assert log["result"]["ranking"][-1] == [0], "a forfeit ranks below every other seat"
    assert sorted(s for group in log["result"]["ranking"] for s in group) == [0, 1, 2]


def test_a_bot_that_answers_late_takes_three_strikes_and_forfeits(hostile) -> None:
    log, elapsed = play(hostile("sleeper", HOSTILE_DELAY="0.5"), FAST)
    seat = log["seats"][0]
    assert (seat["strikes"], seat["illegal"]) == (3, 3)
    assert seat0_steps(log) == ["timeout", "timeout", "timeout", "forfeit"]
    late = [
        e
        for d in log["deals"]
        for s in d["steps"]
        for e in s["events"]
        if e["kind"] == "illegal" and e["seat"] == 0
    ]
    assert [e["reason"] for e in late] == ["late answer"] * 3
    assert_forfeited_last(log, "strikes", "3 late answers")
    assert elapsed < 10


def test_a_bot_that_never_answers_forfeits_within_the_bound(hostile) -> None:
    log, elapsed = play(hostile("silent"), FAST)
    latencies = [
        s["latency_ms"]
        for d in log["deals"]
        for s in d["steps"]
        if s["seat"] == 0 and s["kind"] == "timeout"
    ]
    assert latencies == [
        pytest.approx(300, abs=1),
        pytest.approx(100, abs=1),
        pytest.approx(100, abs=1),
    ], "the time bank is spent once"
    assert_forfeited_last(log, "strikes", "3 late answers")
    assert elapsed < 10


def test_a_bot_that_raises_forfeits_at_once(hostile) -> None:
    log, elapsed = play(hostile("raiser"))
    assert seat0_steps(log) == ["forfeit"]
    assert log["seats"][0]["strikes"] == 0 and log["seats"][0]["illegal"] == 0
    assert_forfeited_last(log, "crashed", "its act raised 'RuntimeError: this bot has a bug")
    assert elapsed < 10


def test_a_bot_that_plays_cards_it_does_not_hold_reaches_the_illegal_limit(hostile) -> None:
    log, elapsed = play(hostile("cheater"))
    seat = log["seats"][0]
    assert seat["illegal"] == 3 and seat["strikes"] == 0
    assert [f["detail"] for f in seat["failures"][:3]] == ["cards not in the hand"] * 3
    assert seat0_steps(log) == ["act", "act", "act", "forfeit"]
    assert_forfeited_last(log, "illegal_limit", "3 illegal actions")
    assert elapsed < 10


def test_an_oversized_message_is_a_protocol_violation(hostile) -> None:
    log, elapsed = play(hostile("oversized"))
    assert seat0_steps(log) == ["forfeit"]
    assert_forfeited_last(log, "protocol", "a message over 65536 bytes")
    assert elapsed < 10


def test_a_bot_that_exits_mid_match_forfeits(hostile) -> None:
    log, elapsed = play(hostile("exiter"))
    assert seat0_steps(log) == ["act", "act", "forfeit"]
    assert_forfeited_last(log, "crashed", "went away")
    assert elapsed < 10


def test_a_decision_without_an_action_is_a_protocol_violation(hostile) -> None:
    log, _ = play(hostile("empty"))
    assert seat0_steps(log) == ["forfeit"]
    assert_forfeited_last(log, "protocol", "a decision with no action")


def test_bytes_that_are_no_message_forfeit_the_sender_and_the_match_finishes(hostile) -> None:
    log, _ = play(hostile("malformed"))
    assert seat0_steps(log) == ["forfeit"]
    assert_forfeited_last(log, "protocol", "malformed message")


def test_a_wrong_protocol_version_forfeits_before_the_deal(hostile) -> None:
    log, _ = play(hostile("old"))
    assert log["forfeits"] == [
        {"seat": 0, "kind": "protocol", "deal": None, "detail": "protocol version 0 is not 1"}
    ]
    assert log["deals"][0]["hands"][0] == [], "a seat out before the deal is dealt no cards"
    assert_forfeited_last(log, "protocol", "protocol version")


def test_an_unreachable_bot_forfeits_before_the_deal() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log, elapsed = play(f"127.0.0.1:{port}", RefereeSettings(start_timeout=0.5))
    assert_forfeited_last(log, "unreachable", "cannot connect")
    assert elapsed < 5


class Stalled(HonestBot):
    """The platform's own bot on a worker that stalls: every answer comes after the
    deadline (the machine, not the bot, is slow)."""

    def act(self, observation):
        time.sleep(FAST.deadline + FAST.time_bank)
        return super().act(observation)


def test_the_platforms_own_bots_are_never_late_whatever_the_machine() -> None:
    """An in-process seat is the platform's (the samples): its time is the worker's, so
    a stall of the worker is never a strike (a platform failure is never charged)."""
    seats = [LocalSeat(Stalled(ruleset=RULES, players=2), "stalled")]
    seats.append(LocalSeat(HonestBot(ruleset=RULES, players=2), "honest"))
    log = aio.run(Referee(RULES, seats, seed=5, settings=FAST).run())
    stalled = log.seats[0]
    assert stalled.decisions > 3 and stalled.strikes == 0 and stalled.forfeit is None
    assert replay(log).ok
