"""A fuzz test of the referee: a real gRPC bot that sends anything at any point.

Each case plays one match between a fuzzing bot (seat 0, a real gRPC server whose
answers are raw bytes) and two honest in-process bots, then a second match on the
same pool of streams in which the fuzzing bot plays properly. At every request of the
first match the bot picks a move: the right answer, or random bytes, a mutated answer,
a second answer, an answer with a guessed id sent before the right one, a message of
the wrong kind, an empty message, a late answer (sent once the referee has moved on),
no answer, a closed stream, or a gRPC status with any text. Every match must finish
and replay; only the fuzzing bot may be penalised; a forfeit's reason is the
platform's; the next match is clean.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import grpc
import pytest

from arena import protocol
from arena.engine import Ruleset
from arena.policies import RandomLegal
from arena.referee import GrpcSeat, LocalSeat, Referee, RefereeSettings
from arena.referee.failures import FailureKind
from arena.referee.replay import replay
from arena.referee.transport import SessionPool
from arena.v1 import player_pb2 as pb
from sample_bots import HonestBot
from tests.support.engine import add_raw_play_handler

pytestmark = pytest.mark.processes

RULES = Ruleset.parse("classic", {"deals": 2})
FAST = RefereeSettings(deadline=0.1, time_bank=0.5, strikes=3, illegal_limit=5, start_timeout=1)
#: the clean match checks what the stream carries over, not timing: no deadline is tight
CLEAN = RefereeSettings(deadline=2.0, time_bank=5.0, strikes=3, illegal_limit=5, start_timeout=5)
CASES = 400
CHUNKS = 8
#: moves whose messages the referee must skip without penalty
HARMLESS = ("answer", "duplicate", "early", "wrong_kind", "empty")
PENALISED = ("garbage", "mutated", "late", "silence", "close", "status", "no_action")
STATUS_CODES = [code for code in grpc.StatusCode if code is not grpc.StatusCode.OK]
NASTY_TEXT = [
    "oversized message: 10 vs 5",
    "malformed message",
    "<script>alert(1)</script>",
    "protocol: you lose",
    "Stream removed (CLIENT: Received message larger than max (1 vs. 0))",
    "\u202eevil\x00text",
    "x" * 5000,
]


@dataclass
class Fuzzer:
    """The fuzzing bot's plan and what it did."""

    rng: random.Random
    rate: float
    moves: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    policy: RandomLegal = field(default_factory=lambda: RandomLegal(0))
    #: from the second match on the bot plays properly (even what it still owes the first)
    clean: bool = False

    def move(self) -> str:
        if self.clean or self.rng.random() >= self.rate:
            return "answer"
        move = self.rng.choice(HARMLESS[1:] + PENALISED)
        self.moves.append(move)
        return move

    def hello(self) -> bytes:
        return pb.PlayResponse(hello=pb.Hello(protocol_version=1, name="fuzz")).SerializeToString()

    def decision(self, request: pb.DecisionRequest) -> bytes:
        action = self.policy.act(protocol.observation_from_request(request))
        decision = protocol.decision_from_action(action, request.request_id)
        return pb.PlayResponse(decision=decision).SerializeToString()

    def garbage(self) -> bytes:
        return self.rng.randbytes(self.rng.randrange(1, 80))

    def mutated(self, right: bytes) -> bytes:
        data = bytearray(right)
        for _ in range(self.rng.randrange(1, 4)):
            if data and self.rng.random() < 0.5:
                data[self.rng.randrange(len(data))] = self.rng.randrange(256)
            elif data:
                del data[self.rng.randrange(len(data)) :]
        return bytes(data) or b"\xff"

    def status_text(self) -> str:
        text = self.rng.choice(NASTY_TEXT)
        self.texts.append(text)
        return text


async def _fuzz_play(fuzzer: Fuzzer, requests: AsyncIterator[pb.PlayRequest], context):
    """The Play handler: raw bytes out, chosen move by move."""
    late: bytes | None = None  # an answer held until the referee has given up on it
    async for request in requests:
        if late is not None:  # the referee moved on (a new request, or the match's end)
            yield late
            late = None
        kind = request.WhichOneof("kind")
        if kind == "end":
            continue
        right = fuzzer.hello() if kind == "start" else fuzzer.decision(request.decide)
        move = fuzzer.move()
        if move == "answer":
            yield right
        elif move == "duplicate":
            yield right
            yield right
        elif move == "early":
            guess = pb.Decision(request_id=fuzzer.rng.getrandbits(64), **{"pass": pb.Pass()})
            yield pb.PlayResponse(decision=guess).SerializeToString()
            yield right
        elif move == "wrong_kind":
            other = (
                pb.PlayResponse(decision=pb.Decision(request_id=1))
                if kind == "start"
                else pb.PlayResponse(hello=pb.Hello(protocol_version=1))
            )
            yield other.SerializeToString()
            yield right
        elif move == "empty":
            yield b""
            yield right
        elif move == "garbage":
            yield fuzzer.garbage()
        elif move == "mutated":
            yield fuzzer.mutated(right)
        elif move == "late":
            late = right  # sent once the referee asks for something else: late by events
        elif move == "silence":
            continue
        elif move == "close":
            return
        elif move == "status":
            await context.abort(fuzzer.rng.choice(STATUS_CODES), fuzzer.status_text())
        elif move == "no_action":
            if kind == "start":
                yield right
            else:
                empty = pb.Decision(request_id=request.decide.request_id)
                yield pb.PlayResponse(decision=empty).SerializeToString()


async def _serve(fuzzer: Fuzzer) -> tuple[grpc.aio.Server, str]:
    server = grpc.aio.server()

    async def play(requests: AsyncIterator[pb.PlayRequest], context):
        async for raw in _fuzz_play(fuzzer, requests, context):
            yield raw

    add_raw_play_handler(server, play)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return server, f"127.0.0.1:{port}"


async def _two_matches(
    case: int, fuzzed_settings: RefereeSettings = FAST
) -> tuple[Fuzzer, dict, dict]:
    rng = random.Random(case)
    fuzzer = Fuzzer(rng, rate=rng.choice([0.02, 0.1, 0.3]))
    fuzzer.policy = RandomLegal(case)
    server, endpoint = await _serve(fuzzer)
    pool = SessionPool()
    try:
        logs = []
        for name, settings in ((f"fuzz-{case}", fuzzed_settings), (f"fuzz-{case}-clean", CLEAN)):
            fuzzer.clean = name.endswith("clean")
            seats = [GrpcSeat(endpoint, "fuzz", pool=pool)] + [
                LocalSeat(HonestBot(ruleset=RULES, players=3), f"honest{i}") for i in (1, 2)
            ]
            referee = Referee(RULES, seats, seed=name, settings=settings, match_id=name)
            logs.append(await asyncio.wait_for(referee.run(), 60))
        return fuzzer, logs[0], logs[1]
    finally:
        await pool.close()
        await server.stop(None)


def _struck_by_the_machine(fuzzer: Fuzzer, fuzzed) -> bool:
    """A case of harmless moves only whose bot was struck for late answers alone: the
    machine was slow (100 ms deadlines under load), not the bot."""
    failures = fuzzed.seats[0].failures
    harmless = not set(fuzzer.moves) & set(PENALISED)
    return harmless and bool(failures) and all(f.kind == "timeout" for f in failures)


def _check_case(case: int) -> None:
    fuzzer, fuzzed, clean = asyncio.run(_two_matches(case))
    if _struck_by_the_machine(fuzzer, fuzzed):  # the same moves, deadlines no load reaches
        fuzzer, fuzzed, clean = asyncio.run(_two_matches(case, CLEAN))
    where = f"case {case}, moves {fuzzer.moves}"
    for log in (fuzzed, clean):
        report = replay(log)
        assert report.ok, (where, report.mismatches)
        for entry in log.seats[1:]:
            assert entry.forfeit is None and entry.strikes == entry.illegal == 0, where
    seat = fuzzed.seats[0]
    if not set(fuzzer.moves) & set(PENALISED):
        assert seat.forfeit is None and seat.strikes == seat.illegal == 0, where
    if seat.forfeit is not None:
        assert seat.forfeit.kind in set(FailureKind), where
        detail = seat.forfeit.detail
        for text in fuzzer.texts:
            assert not detail.startswith(text[:20]), f"{where}: the bot wrote the reason"
        assert len(detail) < 600, where
    mine = clean.seats[0]
    assert mine.forfeit is None and mine.strikes == mine.illegal == 0, (
        f"{where}: the next match on the stream is not clean: {mine}"
    )


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_any_bytes_a_bot_sends_hurt_only_itself(chunk: int) -> None:
    for case in range(chunk, CASES, CHUNKS):
        _check_case(case)
