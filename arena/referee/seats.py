"""Seats: how the referee reaches a bot. ``LocalSeat`` (in process) and ``GrpcSeat`` (remote,
over arena.referee.transport).

A seat turns every bot failure into one of two exceptions, never anything else:
:class:`SeatTimeout` (a late answer: a strike) and :class:`SeatFailure` (a crash,
an unreachable bot or a protocol violation: a forfeit; arena.referee.failures).
"""

from __future__ import annotations

import time
from typing import Protocol

from arena import protocol
from arena.engine import Action, Observation
from arena.policies import Policy
from arena.referee.failures import FailureKind, SeatFailure, SeatTimeout
from arena.referee.transport import Session, SessionPool, open_channel
from arena.v1 import player_pb2 as pb


class Seat(Protocol):
    name: str

    async def start(self, start: pb.MatchStart, timeout: float) -> None: ...

    async def decide(self, observation: Observation, deal: int, allowed: float) -> Action: ...

    async def end(self, end: pb.MatchEnd) -> None: ...

    async def close(self) -> None: ...


class LocalSeat:
    """A trusted in-process policy (the platform's own bots, tests, benchmarks): no
    serialisation, and no deadline: its time is the worker's, so a slow or loaded
    machine is never charged to it as a late answer."""

    def __init__(self, policy: Policy, name: str = "local") -> None:
        self.policy = policy
        self.name = name

    async def start(self, start: pb.MatchStart, timeout: float) -> None:
        return None

    async def decide(self, observation: Observation, deal: int, allowed: float) -> Action:
        try:
            return self.policy.act(observation)
        except Exception as error:  # a bot's bug is match data, never the referee's crash
            raise SeatFailure(FailureKind.CRASHED, f"{type(error).__name__}: {error}") from None

    async def end(self, end: pb.MatchEnd) -> None:
        return None

    async def close(self) -> None:
        return None


class GrpcSeat:
    """A bot behind a gRPC endpoint for one match.

    With a :class:`SessionPool` the stream outlives the match and carries the next one;
    without one the seat opens its own channel and closes it at the end.
    """

    def __init__(
        self, endpoint: str, name: str | None = None, *, pool: SessionPool | None = None
    ) -> None:
        self.endpoint = endpoint
        self.name = name or endpoint
        self.pool = pool
        self.hello: pb.Hello | None = None
        #: when the latest decision request was sent (perf_counter): a decision's time
        #: runs from there, so a busy referee loop is never charged to the bot
        self.sent_at: float | None = None
        self._session: Session | None = None

    async def start(self, start: pb.MatchStart, timeout: float) -> None:
        session = self._take()
        kept = session.opened
        try:
            self.hello = await self._greet(session, start, timeout)
        except SeatFailure:
            if not (kept and session.ended):
                raise
            # the bot ended the stream kept from its last match (docs/protocol.md: it may,
            # and the referee may learn of it only now): that match's end, not a failure of
            # this one, which starts once more on a new stream
            await self.close()
            self.hello = await self._greet(self._take(), start, timeout)

    def _take(self) -> Session:
        if self.pool is not None:
            self._session = self.pool.take(self.endpoint)
        else:
            self._session = Session(self.endpoint, open_channel(self.endpoint))
        return self._session

    @staticmethod
    async def _greet(session: Session, start: pb.MatchStart, timeout: float) -> pb.Hello:
        """Send the match's start on ``session``; the bot's Hello to it."""
        if not session.opened:
            await session.open(timeout)
        session.stray = 0
        await session.send(pb.PlayRequest(start=start))
        hello = await session.receive(timeout, "hello")
        if hello is None:
            raise session.fail(FailureKind.UNREACHABLE, "no hello before the start deadline")
        version = hello.hello.protocol_version
        if version != protocol.PROTOCOL_VERSION:
            detail = f"protocol version {version} is not {protocol.PROTOCOL_VERSION}"
            raise session.fail(FailureKind.PROTOCOL, detail)
        return hello.hello

    async def decide(self, observation: Observation, deal: int, allowed: float) -> Action:
        session = self._session
        assert session is not None
        request_id = session.open_request()
        request = protocol.request_from_observation(observation, request_id, deal, allowed)
        await session.send(pb.PlayRequest(decide=request))
        self.sent_at = time.perf_counter()
        response = await session.receive(allowed, "decision")
        if response is None:
            raise SeatTimeout
        try:
            return protocol.action_from_decision(response.decision)
        except protocol.ProtocolError as error:
            raise session.fail(FailureKind.PROTOCOL, str(error)) from None

    async def end(self, end: pb.MatchEnd) -> None:
        session = self._session
        if session is None or not session.alive:
            return
        try:
            await session.send(pb.PlayRequest(end=end))
        except SeatFailure:
            return

    async def close(self) -> None:
        session, self._session = self._session, None
        if session is None:
            return
        if self.pool is not None:
            await self.pool.give_back(session)
            return
        await session.finish()
        await session.channel.close(grace=None)
