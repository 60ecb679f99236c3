"""Seats: how the referee reaches a bot. ``LocalSeat`` (in process) and ``GrpcSeat`` (remote).

A seat turns every bot failure into one of two exceptions, never anything else:
:class:`SeatTimeout` (a late answer: a strike) and :class:`SeatFailure` (a crash,
an unreachable bot or a protocol violation: a forfeit).
"""

from __future__ import annotations

import asyncio
import time
from enum import StrEnum
from typing import Protocol

import grpc

from arena import protocol
from arena.engine import Action, Observation
from arena.policies import Policy
from arena.v1 import player_pb2 as pb
from arena.v1 import player_pb2_grpc


class FailureKind(StrEnum):
    CRASHED = "crashed"
    UNREACHABLE = "unreachable"
    PROTOCOL = "protocol"
    STRIKES = "strikes"
    ILLEGAL_LIMIT = "illegal_limit"


class SeatTimeout(Exception):
    """The bot did not answer in time."""


class SeatFailure(Exception):
    """The bot cannot go on: it forfeits."""

    def __init__(self, kind: FailureKind, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail


class Seat(Protocol):
    name: str

    async def start(self, start: pb.MatchStart, timeout: float) -> None: ...

    async def decide(self, observation: Observation, deal: int, allowed: float) -> Action: ...

    async def end(self, end: pb.MatchEnd) -> None: ...

    async def close(self) -> None: ...


class LocalSeat:
    """A trusted in-process policy (built-in bots, tests, benchmarks): no serialisation."""

    def __init__(self, policy: Policy, name: str = "local") -> None:
        self.policy = policy
        self.name = name

    async def start(self, start: pb.MatchStart, timeout: float) -> None:
        return None

    async def decide(self, observation: Observation, deal: int, allowed: float) -> Action:
        began = time.perf_counter()
        try:
            action = self.policy.act(observation)
        except Exception as error:  # a bot's bug is match data, never the referee's crash
            raise SeatFailure(FailureKind.CRASHED, f"{type(error).__name__}: {error}") from None
        if time.perf_counter() - began > allowed:
            raise SeatTimeout
        return action

    async def end(self, end: pb.MatchEnd) -> None:
        return None

    async def close(self) -> None:
        return None


class _Closed:
    """Put in the inbox when the response stream ends."""

    def __init__(self, failure: SeatFailure) -> None:
        self.failure = failure


class GrpcSeat:
    """A bot behind a gRPC endpoint: one Play stream per match, read by a background task."""

    def __init__(
        self, endpoint: str, name: str | None = None, max_message: int = protocol.MAX_MESSAGE_BYTES
    ) -> None:
        self.endpoint = endpoint
        self.name = name or endpoint
        self.max_message = max_message
        self.hello: pb.Hello | None = None
        self._channel: grpc.aio.Channel | None = None
        self._call: grpc.aio.StreamStreamCall | None = None
        self._inbox: asyncio.Queue[pb.PlayResponse | _Closed] = asyncio.Queue()
        self._reader: asyncio.Task[None] | None = None
        self._request_id = 0

    async def start(self, start: pb.MatchStart, timeout: float) -> None:
        self._channel = grpc.aio.insecure_channel(
            self.endpoint,
            options=[
                ("grpc.max_receive_message_length", self.max_message),
                ("grpc.max_send_message_length", 64 * 1024 * 1024),
                ("grpc.enable_retries", 0),
            ],
        )
        try:
            await asyncio.wait_for(self._channel.channel_ready(), timeout)
        except TimeoutError:
            raise SeatFailure(
                FailureKind.UNREACHABLE, f"cannot connect to {self.endpoint}"
            ) from None
        self._call = player_pb2_grpc.PlayerServiceStub(self._channel).Play()
        self._reader = asyncio.create_task(self._read())
        await self._send(pb.PlayRequest(start=start))
        hello = await self._receive(timeout, "hello")
        if hello is None:
            raise SeatFailure(FailureKind.UNREACHABLE, "no hello before the start deadline")
        if hello.hello.protocol_version != protocol.PROTOCOL_VERSION:
            raise SeatFailure(
                FailureKind.PROTOCOL,
                f"protocol version {hello.hello.protocol_version} is not "
                f"{protocol.PROTOCOL_VERSION}",
            )
        self.hello = hello.hello

    async def decide(self, observation: Observation, deal: int, allowed: float) -> Action:
        self._request_id += 1
        request = protocol.request_from_observation(observation, self._request_id, deal, allowed)
        await self._send(pb.PlayRequest(decide=request))
        response = await self._receive(allowed, "decision")
        if response is None:
            raise SeatTimeout
        try:
            return protocol.action_from_decision(response.decision)
        except protocol.ProtocolError as error:
            raise SeatFailure(FailureKind.PROTOCOL, str(error)) from None

    async def end(self, end: pb.MatchEnd) -> None:
        if self._call is None or self._call.done():
            return
        try:
            await self._call.write(pb.PlayRequest(end=end))
            await self._call.done_writing()
        except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
            return

    async def close(self) -> None:
        if self._reader is not None:
            try:
                await asyncio.wait_for(asyncio.shield(self._reader), 1.0)
            except (TimeoutError, asyncio.CancelledError):
                self._reader.cancel()
        if self._call is not None and not self._call.done():
            self._call.cancel()
        if self._channel is not None:
            await self._channel.close(grace=None)

    async def _send(self, message: pb.PlayRequest) -> None:
        assert self._call is not None
        try:
            await self._call.write(message)
        except (grpc.aio.AioRpcError, asyncio.InvalidStateError) as error:
            raise await self._failure_after_write(error) from None

    async def _failure_after_write(self, error: Exception) -> SeatFailure:
        """Prefer the stream's own reason (it ended first) to the write's error."""
        try:
            item = await asyncio.wait_for(self._inbox.get(), 0.5)
        except TimeoutError:
            return SeatFailure(FailureKind.CRASHED, f"cannot send to the bot: {error}")
        return (
            item.failure
            if isinstance(item, _Closed)
            else SeatFailure(FailureKind.CRASHED, f"cannot send to the bot: {error}")
        )

    async def _receive(self, allowed: float, expected: str) -> pb.PlayResponse | None:
        """The next answer of kind ``expected`` to the current request; None when time is up."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + allowed
        while True:
            try:
                async with asyncio.timeout_at(deadline):
                    item = await self._inbox.get()
            except TimeoutError:
                return None
            if isinstance(item, _Closed):
                self._inbox.put_nowait(item)  # every later call fails the same way
                raise item.failure
            kind = item.WhichOneof("kind")
            if kind != expected:
                raise SeatFailure(
                    FailureKind.PROTOCOL, f"sent {kind or 'an empty message'}, expected {expected}"
                )
            if kind == "decision" and item.decision.request_id != self._request_id:
                continue  # a late answer to an earlier request
            return item

    async def _read(self) -> None:
        assert self._call is not None
        try:
            while True:
                response = await self._call.read()
                if response is grpc.aio.EOF:
                    failure = SeatFailure(FailureKind.PROTOCOL, "the bot closed its stream")
                    break
                self._inbox.put_nowait(response)
        except grpc.aio.AioRpcError as error:
            failure = _classify(error)
        except asyncio.CancelledError:
            failure = SeatFailure(FailureKind.CRASHED, "the stream was cancelled")
        self._inbox.put_nowait(_Closed(failure))


def _classify(error: grpc.aio.AioRpcError) -> SeatFailure:
    code = error.code()
    if code == grpc.StatusCode.RESOURCE_EXHAUSTED:
        return SeatFailure(FailureKind.PROTOCOL, f"oversized message: {error.details()}")
    if code == grpc.StatusCode.UNAVAILABLE:
        return SeatFailure(FailureKind.CRASHED, f"the bot went away: {error.details()}")
    if code == grpc.StatusCode.INTERNAL:
        return SeatFailure(FailureKind.PROTOCOL, f"malformed message: {error.details()}")
    return SeatFailure(
        FailureKind.CRASHED, f"the bot's stream failed: {code.name}: {error.details()}"
    )
