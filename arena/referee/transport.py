"""The gRPC transport to a bot: a channel, a :class:`Session` (one bidirectional stream,
the requests written and the answers read under deadlines) and a :class:`SessionPool`
that keeps streams open from match to match. Every failure of the stream becomes a
:class:`~arena.referee.failures.SeatFailure`; the seats (arena.referee.seats) speak the
protocol over it."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from typing import cast

import grpc

from arena import protocol
from arena.referee.failures import FailureKind, SeatFailure, quoted
from arena.v1 import player_pb2 as pb
from arena.v1 import player_pb2_grpc


def open_channel(endpoint: str, max_message: int = protocol.MAX_MESSAGE_BYTES) -> grpc.aio.Channel:
    """A channel to a bot: answers over ``max_message`` bytes are refused, no retries."""
    options = [
        ("grpc.max_receive_message_length", max_message),
        ("grpc.max_send_message_length", 64 * 1024 * 1024),
        ("grpc.enable_retries", 0),
        # a refused connection is tried again soon (gRPC waits 1 s, then longer)
        ("grpc.initial_reconnect_backoff_ms", 100),
        ("grpc.min_reconnect_backoff_ms", 100),
        ("grpc.max_reconnect_backoff_ms", 2000),
    ]
    return grpc.aio.insecure_channel(endpoint, options=options)


#: connection attempts that fail (refused, no route) before a seat is unreachable: a
#: bot that is restarting gets a moment, a dead port costs ~0.3 s, not the start timeout
CONNECT_ATTEMPTS = 3
RETRY_SECONDS = 0.15


async def connect(channel: grpc.aio.Channel, endpoint: str, timeout: float) -> None:
    """Wait until ``channel`` is connected; SeatFailure (unreachable) after
    ``CONNECT_ATTEMPTS`` failed attempts or ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    failures = 0
    state = channel.get_state(try_to_connect=True)
    while state is not grpc.ChannelConnectivity.READY:
        left = deadline - loop.time()
        if state is grpc.ChannelConnectivity.TRANSIENT_FAILURE:
            failures += 1  # gRPC stays in this state while its new attempts fail
            if failures >= CONNECT_ATTEMPTS:
                detail = f"cannot connect to {endpoint} (refused or unreachable)"
                raise SeatFailure(FailureKind.UNREACHABLE, detail)
            left = min(left, RETRY_SECONDS)
        elif left <= 0:
            detail = f"cannot connect to {endpoint} within {timeout:g} s"
            raise SeatFailure(FailureKind.UNREACHABLE, detail)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(channel.wait_for_state_change(state), max(0.0, left))
        state = channel.get_state(try_to_connect=True)


#: messages that answer no open request a bot may send in one match before it forfeits
MAX_STRAY = 100


class Session:
    """One Play stream to a bot.

    A stream may carry several matches in sequence (MatchStart ... MatchEnd, again).
    Only the answer to the open request is taken: a Hello after a MatchStart, or the
    Decision naming the open request's id, which is random (an answer cannot be sent
    before its request). Everything else a bot sends that parses (late answers, second
    answers, answers to nothing) is skipped, up to ``MAX_STRAY`` a match.
    A read is started once a request is written and is never cancelled on a deadline
    (cancelling a read cancels the whole stream): a late answer is picked up, and
    skipped, by the next read. Keeping a read in flight while writing instead (a
    background reader) cost ~90 us per decision here.
    """

    def __init__(self, endpoint: str, channel: grpc.aio.Channel) -> None:
        self.endpoint = endpoint
        self.channel = channel
        self.failed = False
        #: the open decision request's id; 0 when none is open
        self.request_id = 0
        self.stray = 0
        self._call: grpc.aio.StreamStreamCall | None = None
        self._reading: asyncio.Task[pb.PlayResponse | None] | None = None
        self._closed: SeatFailure | None = None  # why the stream ended, once it has

    @property
    def opened(self) -> bool:
        return self._call is not None

    @property
    def ended(self) -> bool:
        """Whether the stream is over (the bot ended it, or it broke)."""
        return self._closed is not None or (self._call is not None and self._call.done())

    @property
    def alive(self) -> bool:
        return (
            not self.failed
            and self._closed is None
            and self._call is not None
            and not self._call.done()
        )

    async def open(self, timeout: float) -> None:
        try:
            await connect(self.channel, self.endpoint, timeout)
        except SeatFailure:
            self.failed = True
            raise
        stub = player_pb2_grpc.PlayerServiceStub(self.channel)  # type: ignore[no-untyped-call]
        self._call = stub.Play()

    def fail(self, kind: FailureKind, detail: str) -> SeatFailure:
        self.failed = True
        return SeatFailure(kind, detail)

    async def send(self, message: pb.PlayRequest) -> None:
        assert self._call is not None
        try:
            await self._call.write(message)
        except (grpc.aio.AioRpcError, asyncio.InvalidStateError) as error:
            self.failed = True
            raise await self._failure_after_write(error) from None

    def open_request(self) -> int:
        """A new decision request's id: random, never 0 (an unset id)."""
        self.request_id = secrets.randbits(64) or 1
        return self.request_id

    async def receive(self, allowed: float, expected: str) -> pb.PlayResponse | None:
        """The answer of kind ``expected`` to the open request; None when time is up.

        Either way the request is closed: a later answer to it is skipped."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + allowed
        try:
            while True:
                item = await self._next(deadline - loop.time())
                if item is None or self._answers(item, expected):
                    return item
                self.stray += 1
                if self.stray > MAX_STRAY:
                    detail = f"more than {MAX_STRAY} messages that answer no open request"
                    raise self.fail(FailureKind.PROTOCOL, detail)
        finally:
            self.request_id = 0

    def _answers(self, item: pb.PlayResponse, expected: str) -> bool:
        kind = item.WhichOneof("kind")
        if kind != expected:
            return False
        return kind != "decision" or item.decision.request_id == self.request_id

    async def _next(self, seconds: float) -> pb.PlayResponse | None:
        """The bot's next message, or None after ``seconds``; raises once the stream ended."""
        if self._closed is None and self._reading is None:
            self._reading = asyncio.ensure_future(self._read())
        if self._reading is not None and not self._reading.done():
            await asyncio.wait((self._reading,), timeout=max(0.0, seconds))
            if not self._reading.done():
                return None
        reading, self._reading = self._reading, None
        response = reading.result() if reading is not None else None
        if response is None:
            assert self._closed is not None
            self.failed = True
            raise self._closed  # every later call fails the same way
        return response

    async def _read(self) -> pb.PlayResponse | None:
        """One message; None once the stream ended (its reason in ``_closed``)."""
        assert self._call is not None
        try:
            response = await self._call.read()
        except grpc.aio.AioRpcError as error:
            self._closed = _classify(error)
            return None
        except asyncio.CancelledError:
            self._closed = SeatFailure(FailureKind.CRASHED, "the stream was cancelled")
            return None
        if response is grpc.aio.EOF:
            self._closed = SeatFailure(FailureKind.CRASHED, "the bot closed its stream")
            return None
        if response is None:  # gRPC could not parse the bytes the bot sent
            self._closed = SeatFailure(
                FailureKind.PROTOCOL, "malformed message: not a PlayResponse"
            )
            return None
        return cast(pb.PlayResponse, response)

    async def _read_until_closed(self, seconds: float) -> None:
        """Skip the bot's messages until its stream ends, for up to ``seconds``."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        with contextlib.suppress(SeatFailure):
            while await self._next(deadline - loop.time()) is not None:
                pass

    async def finish(self) -> None:
        """Close our side and give the bot a moment to close its own."""
        call = self._call
        if call is None:
            return
        if not call.done():
            with contextlib.suppress(grpc.aio.AioRpcError, asyncio.InvalidStateError):
                await call.done_writing()
        await self._read_until_closed(1.0)
        if self._reading is not None:
            self._reading.cancel()
        if not call.done():
            call.cancel()

    async def _failure_after_write(self, error: Exception) -> SeatFailure:
        """Prefer the stream's own reason (it ended first) to the write's error."""
        await self._read_until_closed(0.5)
        return self._closed or SeatFailure(FailureKind.CRASHED, f"cannot send to the bot: {error}")


class SessionPool:
    """Channels and idle Play streams per endpoint, shared by the matches of a series in one
    event loop: a new connection, stream and teardown for every match cost milliseconds.

    When a stream fails, its endpoint gets a new channel for the next matches; the old
    one is closed once no match in play still uses it (several matches may share it:
    one match's failure never closes another's stream)."""

    def __init__(self, max_message: int = protocol.MAX_MESSAGE_BYTES) -> None:
        self.max_message = max_message
        self._channels: dict[str, grpc.aio.Channel] = {}
        self._idle: dict[str, list[Session]] = {}
        #: sessions taken and not given back, by channel
        self._users: dict[grpc.aio.Channel, int] = {}
        #: channels replaced after a failure, closed when their last user is done
        self._retired: set[grpc.aio.Channel] = set()

    def take(self, endpoint: str) -> Session:
        idle = self._idle.get(endpoint, [])
        session = None
        while idle and session is None:
            candidate = idle.pop()
            if candidate.alive:
                session = candidate
        if session is None:
            channel = self._channels.get(endpoint)
            if channel is None:
                channel = self._channels[endpoint] = open_channel(endpoint, self.max_message)
            session = Session(endpoint, channel)
        self._users[session.channel] = self._users.get(session.channel, 0) + 1
        return session

    async def give_back(self, session: Session) -> None:
        channel = session.channel
        self._users[channel] = self._users.get(channel, 1) - 1
        if session.alive and channel not in self._retired:
            self._idle.setdefault(session.endpoint, []).append(session)
            return
        await session.finish()
        if self._channels.get(session.endpoint) is channel:  # reconnect next time
            del self._channels[session.endpoint]
            self._retired.add(channel)
            idle = self._idle.pop(session.endpoint, [])
            await asyncio.gather(*(other.finish() for other in idle))
        await self._close_if_unused(channel)

    async def _close_if_unused(self, channel: grpc.aio.Channel) -> None:
        if channel in self._retired and self._users.get(channel, 0) <= 0:
            self._retired.discard(channel)
            self._users.pop(channel, None)
            await channel.close(grace=None)

    async def forget(self, endpoint: str) -> None:
        """Close the idle streams and the channel to ``endpoint`` (a bot that is gone)."""
        idle = self._idle.pop(endpoint, [])
        await asyncio.gather(*(session.finish() for session in idle))
        channel = self._channels.pop(endpoint, None)
        if channel is not None:
            self._retired.add(channel)
            await self._close_if_unused(channel)

    async def close(self) -> None:
        sessions = [session for idle in self._idle.values() for session in idle]
        await asyncio.gather(*(session.finish() for session in sessions))
        channels = {*self._channels.values(), *self._retired}
        self._channels, self._idle, self._users, self._retired = {}, {}, {}, set()
        await asyncio.gather(*(channel.close(grace=None) for channel in channels))


#: how gRPC's client words a message over its receive limit (its own status, not the bot's)
_OVERSIZED = "CLIENT: Received message larger than max"


def _classify(error: grpc.aio.AioRpcError) -> SeatFailure:
    """Why a stream ended, in the platform's words: the bot's own status text is only
    quoted as detail, never taken for the reason."""
    code = error.code()
    details = error.details() or ""
    if code == grpc.StatusCode.RESOURCE_EXHAUSTED and details.startswith(
        f"Stream removed ({_OVERSIZED}"
    ):
        limit = protocol.MAX_MESSAGE_BYTES
        return SeatFailure(FailureKind.PROTOCOL, f"a message over {limit} bytes")
    if code == grpc.StatusCode.UNAVAILABLE:
        return SeatFailure(FailureKind.CRASHED, f"the bot went away ({quoted(details)})")
    if code == grpc.StatusCode.INTERNAL and details.startswith(protocol.RAISED_IN_ACT):
        raised = details.removeprefix(protocol.RAISED_IN_ACT)  # the SDK's words
        return SeatFailure(FailureKind.CRASHED, f"its act raised {quoted(raised, 300)}")
    return SeatFailure(
        FailureKind.CRASHED, f"the bot ended its stream with status {code.name} ({quoted(details)})"
    )
