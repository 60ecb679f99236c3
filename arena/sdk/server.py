"""Serving a :class:`~arena.sdk.bot.Bot` over the player protocol (gRPC, asyncio)."""

from __future__ import annotations

import argparse
import asyncio
import inspect
import signal
import sys
import traceback
from collections.abc import AsyncIterator, Callable

import grpc

from arena import protocol
from arena.base import aio
from arena.sdk.bot import Bot, MatchInfo, MatchResult
from arena.v1 import player_pb2 as pb
from arena.v1 import player_pb2_grpc

BotFactory = Callable[[], Bot]
#: The referee's MatchEnd carries the seat's view of the match; accept it whole.
MAX_RECEIVE_BYTES = 64 * 1024 * 1024
#: matches at once an ``async def act`` bot announces unless it says otherwise: each
#: waits on its own, and a stream costs the server little
ASYNC_MATCHES = 256


def matches_at_once(bot: Bot, override: int | None = None) -> int:
    """What ``bot``'s Hello announces as its matches at once (0: nothing said)."""
    said = override if override is not None else bot.max_matches
    if said is not None:
        return said
    return ASYNC_MATCHES if inspect.iscoroutinefunction(type(bot).act) else 0


class PlayerServicer(player_pb2_grpc.PlayerServiceServicer):
    """A thin servicer: it converts messages and calls the bot."""

    def __init__(self, factory: BotFactory, max_matches: int | None = None) -> None:
        self.factory = factory
        self.max_matches = max_matches

    async def Play(
        self, request_iterator: AsyncIterator[pb.PlayRequest], context: grpc.aio.ServicerContext
    ) -> AsyncIterator[pb.PlayResponse]:
        bot: Bot | None = None
        async for request in request_iterator:
            kind = request.WhichOneof("kind")
            if kind == "start":
                bot = self.factory()
                bot.on_match_start(_match_info(request.start))
                hello = pb.Hello(
                    protocol_version=protocol.PROTOCOL_VERSION,
                    name=bot.name,
                    version=bot.version,
                    want_log=bot.wants_log,
                    max_matches=matches_at_once(bot, self.max_matches),
                )
                yield pb.PlayResponse(hello=hello)
            elif kind == "decide" and bot is not None:
                observation = protocol.observation_from_request(request.decide)
                try:
                    answer = bot.act(observation)
                    # ``async def act``: the other seats go on meanwhile
                    action = await answer if inspect.isawaitable(answer) else answer
                except Exception as error:
                    traceback.print_exc()  # the bot's own output: where its owner looks
                    sys.stderr.flush()
                    await context.abort(grpc.StatusCode.INTERNAL, raised_in_act(error))
                decision = protocol.decision_from_action(action, request.decide.request_id)
                yield pb.PlayResponse(decision=decision)
            elif kind == "end" and bot is not None:
                end = request.end
                ranking = protocol.ranking_from_proto(end.ranking)
                bot.on_match_end(MatchResult(ranking, end.forfeit_reason, end.log_json))
                bot = None  # the stream may carry the next match
            else:
                await context.abort(grpc.StatusCode.FAILED_PRECONDITION, f"unexpected {kind}")


def raised_in_act(error: BaseException) -> str:
    """``act raised ZeroDivisionError: division by zero (bot.py, line 12, in act)``: the
    exception and the line it came from."""
    frames = traceback.extract_tb(error.__traceback__)
    where = ""
    if frames:
        last = frames[-1]
        where = f" ({last.filename.rsplit('/', 1)[-1]}, line {last.lineno}, in {last.name})"
    text = "".join(traceback.format_exception_only(type(error), error)).strip()
    return f"{protocol.RAISED_IN_ACT}{text}{where}"


def _match_info(start: pb.MatchStart) -> MatchInfo:
    return MatchInfo(
        match_id=start.match_id,
        seat=start.seat,
        players=tuple(start.players),
        ruleset=protocol.ruleset_from_proto(start.rules),
        deadline=start.deadline_seconds,
        time_bank=start.time_bank_seconds,
        deals=start.deals,
    )


async def create_server(
    factory: BotFactory, address: str = "127.0.0.1:0", max_matches: int | None = None
) -> tuple[grpc.aio.Server, int]:
    """A started server for ``factory``'s bots and the port it listens on (port 0: any
    free); ``max_matches`` overrides what the bots announce as their matches at once."""
    server = grpc.aio.server(
        options=[("grpc.max_receive_message_length", MAX_RECEIVE_BYTES), ("grpc.so_reuseport", 0)]
    )
    servicer = PlayerServicer(factory, max_matches)
    player_pb2_grpc.add_PlayerServiceServicer_to_server(servicer, server)  # type: ignore[no-untyped-call]
    port = server.add_insecure_port(address)
    if port == 0:
        raise OSError(f"cannot listen on {address}")
    await server.start()
    return server, port


def serve(bot: type[Bot] | BotFactory, argv: list[str] | None = None) -> None:
    """Serve ``bot`` (a Bot subclass or a factory) until interrupted.

    Command line: ``--port P`` (default 50051; 0 picks a free port) and ``--host H``
    (default 127.0.0.1), or ``--socket PATH`` to listen on a Unix domain socket (how the
    platform runs uploaded bots); ``--max-matches N`` announces that the bot serves N
    matches at once (``Bot.max_matches``). Prints ``listening on HOST:PORT`` (or
    ``listening on unix:PATH``) once ready.
    """
    parser = argparse.ArgumentParser(description=f"Serve the {getattr(bot, 'name', 'bot')} bot.")
    parser.add_argument("--port", type=int, default=50051)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--socket", help="listen on this Unix socket instead of a TCP port")
    parser.add_argument(
        "--max-matches",
        type=_at_least_one,
        help="announce this many matches at once (default: 256 for an async act, else none)",
    )
    args = parser.parse_args(argv)
    address = f"unix:{args.socket}" if args.socket else f"{args.host}:{args.port}"
    aio.run(_serve_forever(bot, address, args.max_matches))


def _at_least_one(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"at least 1, not {value}")
    return value


async def _serve_forever(factory: BotFactory, address: str, max_matches: int | None) -> None:
    server, port = await create_server(factory, address, max_matches)
    where = address if address.startswith("unix:") else f"{address.rsplit(':', 1)[0]}:{port}"
    print(f"listening on {where}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()
    await server.stop(grace=0.5)


if __name__ == "__main__":  # pragma: no cover
    sys.exit("use arena.sdk.serve(YourBot) or python -m arena.sdk.run FILE")
