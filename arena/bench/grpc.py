"""What the player protocol costs per decision.

The same 4-player ``classic`` matches of ``random`` bots are refereed in process
(no serialisation) and through gRPC; the difference per decision is what the
protocol adds, compared with a bare round trip of an empty message over the same
kind of stream (bidi, asyncio client), measured in the same run. Modes are
interleaved and every figure is a median over repeats.

Topology matters on a small machine, so each protocol figure is paired with a
bare round trip in the same topology:

- headline: one bot server process hosting the four bots (one stream per seat),
  against one echo server process;
- ``*_4_processes``: each bot in its own process, against four echo server
  processes taken in turn (what ``arena play`` does with local bots).

``bot_round_trip_us`` splits the figure: a match's recorded requests sent straight to
the bot server on one stream, with no referee (the bot's SDK and the real messages
against the bare round trip; the rest of ``grpc_us_per_decision`` is the referee's).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import grpc

from arena import protocol
from arena.base import aio
from arena.engine import Action, Observation, Ruleset
from arena.platform.launcher import BotProcesses, BotSpec, SpecKind, command_for
from arena.referee import GrpcSeat, LocalSeat, Referee, RefereeSettings
from arena.referee.transport import SessionPool, open_channel
from arena.v1 import bench_pb2, bench_pb2_grpc, player_pb2_grpc
from arena.v1 import player_pb2 as pb
from sample_bots import RandomBot

PLAYERS = 4


async def _us_per_decision(
    seats_for: Callable[[int, SessionPool], list], matches: int, rules: Ruleset
) -> float:
    pool = SessionPool()
    decisions = 0
    began = time.perf_counter()
    for match in range(matches):
        seats = seats_for(match, pool)
        log = await Referee(rules, seats, seed=match, settings=RefereeSettings()).run()
        decisions += sum(seat.decisions for seat in log.seats)
    elapsed = time.perf_counter() - began
    await pool.close()
    return elapsed / decisions * 1e6


async def _bare_rtt_us(endpoints: list[str], round_trips: int) -> float:
    """Empty-message round trips on one stream per endpoint, taking the endpoints in turn."""
    channels = [grpc.aio.insecure_channel(endpoint) for endpoint in endpoints]
    calls = [bench_pb2_grpc.EchoServiceStub(channel).Echo() for channel in channels]
    try:
        us = await _round_trip_us(calls, [bench_pb2.EchoRequest()], round_trips)
        for call in calls:
            await call.done_writing()
    finally:
        await asyncio.gather(*(channel.close() for channel in channels))
    return us


async def _round_trip_us(
    calls: list, messages: list, round_trips: int, warm_up: int = 100
) -> float:
    """Microseconds per write-and-read on ``calls`` (streams), taking the streams and the
    messages in turn, after ``warm_up`` round trips per stream."""

    async def exchange(index: int) -> None:
        call = calls[index % len(calls)]
        await call.write(messages[index % len(messages)])
        await call.read()

    for index in range(warm_up * len(calls)):
        await exchange(index)
    began = time.perf_counter()
    for index in range(round_trips):
        await exchange(index)
    return (time.perf_counter() - began) / round_trips * 1e6


class _Recorder(LocalSeat):
    """A local seat that keeps the DecisionRequest a remote seat would have been sent."""

    def __init__(self, policy: RandomBot, name: str, requests: list[pb.PlayRequest]) -> None:
        super().__init__(policy, name)
        self.requests = requests

    async def decide(self, observation: Observation, deal: int, allowed: float) -> Action:
        request = protocol.request_from_observation(observation, len(self.requests), deal, allowed)
        self.requests.append(pb.PlayRequest(decide=request))
        return await super().decide(observation, deal, allowed)


def _recorded_requests(rules: Ruleset, matches: int = 2) -> list[pb.PlayRequest]:
    requests: list[pb.PlayRequest] = []
    for match in range(matches):
        seats = [
            _Recorder(RandomBot(seed=f"{match}/{s}"), f"r{s}", requests) for s in range(PLAYERS)
        ]
        aio.run(Referee(rules, seats, seed=match, settings=RefereeSettings()).run())
    return requests


async def _bot_round_trip_us(
    endpoint: str, rules: Ruleset, requests: list[pb.PlayRequest], round_trips: int
) -> float:
    """A match's recorded requests sent straight to a bot on one stream, no referee: the
    floor the bot side (its SDK, the messages) sets."""
    channel = open_channel(endpoint)
    call = player_pb2_grpc.PlayerServiceStub(channel).Play()
    start = pb.MatchStart(
        protocol_version=protocol.PROTOCOL_VERSION,
        match_id="bench",
        players=[f"r{s}" for s in range(PLAYERS)],
        rules=protocol.ruleset_to_proto(rules),
        deadline_seconds=1.0,
        deals=rules.options.deals,
    )
    try:
        await call.write(pb.PlayRequest(start=start))
        await call.read()
        us = await _round_trip_us([call], requests, round_trips)
        await call.done_writing()
    finally:
        await channel.close()
    return us


def run(
    matches: int = 20,
    repeats: int = 5,
    round_trips: int = 2000,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    rules = Ruleset.parse("classic")
    random_bot = command_for(BotSpec(SpecKind.SAMPLE, "random"))
    echo = [sys.executable, "-m", "arena.bench.echo"]
    with BotProcesses() as processes:
        shared = processes.start(random_bot, "random")
        separate = [processes.start(random_bot, f"random{i}") for i in range(PLAYERS)]
        echoes = [processes.start(echo, f"echo{i}") for i in range(PLAYERS)]

        def local(match: int, pool: SessionPool) -> list:
            return [LocalSeat(RandomBot(seed=f"{match}/{s}"), f"random{s}") for s in range(PLAYERS)]

        def remote(endpoints: list[str]) -> Callable[[int, SessionPool], list]:
            return lambda match, pool: [
                GrpcSeat(endpoint, f"random{seat}", pool=pool)
                for seat, endpoint in enumerate(endpoints)
            ]

        requests = _recorded_requests(rules)
        samples: dict[str, list[float]] = {
            key: [] for key in ("inprocess", "grpc", "grpc_4", "bare", "bare_4", "bot")
        }
        for repeat in range(repeats):
            samples["inprocess"].append(aio.run(_us_per_decision(local, matches, rules)))
            samples["grpc"].append(
                aio.run(_us_per_decision(remote([shared] * PLAYERS), matches, rules))
            )
            samples["bare"].append(aio.run(_bare_rtt_us(echoes[:1], round_trips)))
            samples["bot"].append(aio.run(_bot_round_trip_us(shared, rules, requests, round_trips)))
            samples["grpc_4"].append(aio.run(_us_per_decision(remote(separate), matches, rules)))
            samples["bare_4"].append(aio.run(_bare_rtt_us(echoes, round_trips)))
            if progress is not None:
                progress(repeat + 1)
    median = {key: round(statistics.median(values), 1) for key, values in samples.items()}
    added = median["grpc"] - median["inprocess"]
    added_4 = median["grpc_4"] - median["inprocess"]
    return {
        "inprocess_us_per_decision": median["inprocess"],
        "grpc_us_per_decision": median["grpc"],
        "bare_rtt_us": median["bare"],
        "protocol_added_us": round(added, 1),
        "added_over_bare_rtt": round(added / median["bare"], 2),
        "bot_round_trip_us": median["bot"],
        "grpc_us_per_decision_4_processes": median["grpc_4"],
        "bare_rtt_us_4_processes": median["bare_4"],
        "added_over_bare_rtt_4_processes": round(added_4 / median["bare_4"], 2),
        "event_loop": "uvloop" if aio.uvloop is not None else "asyncio",
        "matches_per_repeat": matches,
        "repeats": repeats,
    }
