"""Streams kept between matches (docs/protocol.md "One bidirectional stream"): a bot that
ends its stream after a match, whenever the referee learns of it, plays the next match on
a new stream; a bot that ends the stream of the match itself forfeits, with no endless
retries. Each bot is a real gRPC server on the loopback."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

import grpc
import pytest

from arena import protocol
from arena.engine import Ruleset
from arena.policies import RandomLegal
from arena.referee import GrpcSeat, LocalSeat, Referee, RefereeSettings
from arena.referee.log import MatchLog
from arena.referee.replay import replay
from arena.referee.transport import SessionPool
from arena.v1 import player_pb2 as pb
from sample_bots import HonestBot
from tests.support.engine import add_raw_play_handler

pytestmark = pytest.mark.processes

RULES = Ruleset.parse("classic", {"deals": 1})
SETTINGS = RefereeSettings(deadline=2.0, time_bank=5.0, strikes=3, illegal_limit=5, start_timeout=5)
HELLO = pb.PlayResponse(hello=pb.Hello(protocol_version=1, name="ender"))

#: when a bot ends its stream: it sees the request and whether it started a match before
Ender = Callable[[str, int], bool]


def after_match_end(kind: str, starts: int) -> bool:
    """One match per stream, the stream ended as soon as the match is."""
    return kind == "end"


def at_a_second_start(kind: str, starts: int) -> bool:
    """Ends a stream when a second match starts on it: the referee learns that the
    stream is over only once the next match has begun on it."""
    return kind == "start" and starts == 1


def at_every_start(kind: str, starts: int) -> bool:
    """Never plays: every stream ends at its first MatchStart."""
    return kind == "start"


async def _serve(ends_stream: Ender, streams: list[int]) -> tuple[grpc.aio.Server, str]:
    async def play(requests: AsyncIterator[pb.PlayRequest], context):
        streams.append(1)
        policy, starts = RandomLegal(len(streams)), 0
        async for request in requests:
            kind = request.WhichOneof("kind")
            if ends_stream(kind, starts):
                return
            if kind == "start":
                starts += 1
                yield HELLO.SerializeToString()
            elif kind == "decide":
                action = policy.act(protocol.observation_from_request(request.decide))
                decision = protocol.decision_from_action(action, request.decide.request_id)
                yield pb.PlayResponse(decision=decision).SerializeToString()

    server = grpc.aio.server()
    add_raw_play_handler(server, play)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return server, f"127.0.0.1:{port}"


async def _matches(ends_stream: Ender, count: int) -> tuple[list[dict], int]:
    """``count`` matches of the bot (seat 0) on one pool; their logs and the streams opened."""
    streams: list[int] = []
    server, endpoint = await _serve(ends_stream, streams)
    pool = SessionPool()
    try:
        logs = []
        for index in range(count):
            seats = [GrpcSeat(endpoint, "ender", pool=pool)] + [
                LocalSeat(HonestBot(ruleset=RULES, players=3), f"honest{i}") for i in (1, 2)
            ]
            referee = Referee(RULES, seats, seed=index, settings=SETTINGS, match_id=str(index))
            logs.append(await asyncio.wait_for(referee.run(), 60))
        return logs, len(streams)
    finally:
        await pool.close()
        await server.stop(None)


def _clean(log: MatchLog, seats: slice = slice(None)) -> bool:
    assert replay(log).ok
    return all(
        seat.forfeit is None and seat.strikes == seat.illegal == 0 and seat.decisions
        for seat in log.seats[seats]
    )


@pytest.mark.parametrize("ends_stream", [after_match_end, at_a_second_start])
def test_a_bot_that_ends_its_stream_between_matches_plays_every_match(ends_stream: Ender) -> None:
    logs, streams = asyncio.run(_matches(ends_stream, 3))
    assert [_clean(log) for log in logs] == [True, True, True]
    assert streams == 3, "one stream per match"


def test_a_bot_that_ends_the_stream_of_the_match_forfeits_each_match_once() -> None:
    logs, streams = asyncio.run(_matches(at_every_start, 3))
    forfeits = [log.seats[0].forfeit for log in logs]
    assert [f and f.kind for f in forfeits] == ["crashed"] * 3, forfeits
    assert all(f and f.detail == "the bot closed its stream" for f in forfeits), forfeits
    assert all(_clean(log, slice(1, None)) for log in logs)
    # a new stream that ends is the match's own failure (not retried), and a failed stream
    # is never kept for the next match: one stream per match
    assert streams == 3
