"""Bots that misbehave, each a real gRPC server: ``python -m tests.hostile_bots KIND --port 0``.

sleeper: answers after the deadline; raiser: raises in act; cheater: plays cards it does
not hold; oversized: sends a message over the size limit; exiter: exits mid-match;
silent: never answers; empty: sends a decision with no action; old: speaks protocol 0;
malformed: answers its first decision with bytes that are no protocol message.
"""

from __future__ import annotations

import os
import sys
import time

from arena.base import aio
from arena.sdk import Bot, Observation, Play, serve
from arena.v1 import player_pb2 as pb
from arena.v1 import player_pb2_grpc
from sample_bots.honest import HonestBot
from tests.support.engine import add_raw_play_handler


class Sleeper(HonestBot):
    name = "sleeper"
    delay = float(os.environ.get("HOSTILE_DELAY", "0.5"))

    def act(self, observation: Observation):
        time.sleep(self.delay)
        return super().act(observation)


class Raiser(Bot):
    name = "raiser"

    def act(self, observation: Observation):
        raise RuntimeError("this bot has a bug")


class Cheater(Bot):
    """Always plays a card it does not hold."""

    name = "cheater"

    def act(self, observation: Observation):
        legal = observation.legal
        ranks = legal.play.ranks if legal.play else ("A",)
        missing = next(
            c for c in ("7S", "7H", "7D", "7C", "8S", "8H", "8D", "8C") if c not in observation.hand
        )
        return Play((missing,), ranks[0], 1)


class Oversized(HonestBot):
    name = "oversized"

    def act(self, observation: Observation):
        legal = observation.legal
        rank = legal.play.ranks[0] if legal.play else "A"
        return Play(("AS",) * 30_000, rank, 1)


class Exiter(HonestBot):
    name = "exiter"
    decisions = 0

    def act(self, observation: Observation):
        Exiter.decisions += 1
        if Exiter.decisions == 3:
            os._exit(3)
        return super().act(observation)


class Silent(Bot):
    name = "silent"

    def act(self, observation: Observation):
        time.sleep(3600)


class RawServicer(player_pb2_grpc.PlayerServiceServicer):
    """Protocol-level misbehaviour the SDK cannot produce."""

    def __init__(self, kind: str) -> None:
        self.kind = kind

    async def Play(self, request_iterator, context):
        async for request in request_iterator:
            which = request.WhichOneof("kind")
            if which == "start":
                version = 0 if self.kind == "old" else 1
                yield pb.PlayResponse(hello=pb.Hello(protocol_version=version, name=self.kind))
            elif which == "decide":
                yield pb.PlayResponse(decision=pb.Decision(request_id=request.decide.request_id))
            else:
                return


BOTS = {
    "sleeper": Sleeper,
    "raiser": Raiser,
    "cheater": Cheater,
    "oversized": Oversized,
    "exiter": Exiter,
    "silent": Silent,
}
RAW = ("empty", "old", "malformed")
MALFORMED = b"\x12\x05\x08"  # a decision field whose length runs past the message


async def _malformed(request_iterator, context):
    """Play's answers as raw bytes: a valid Hello, then bytes that parse as nothing."""
    async for request in request_iterator:
        if request.WhichOneof("kind") == "start":
            yield pb.PlayResponse(hello=pb.Hello(protocol_version=1)).SerializeToString()
        elif request.WhichOneof("kind") == "decide":
            yield MALFORMED


async def _serve_raw(kind: str, port: int) -> None:
    import grpc

    server = grpc.aio.server()
    if kind == "malformed":
        add_raw_play_handler(server, _malformed)
    else:
        player_pb2_grpc.add_PlayerServiceServicer_to_server(RawServicer(kind), server)
    bound = server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    print(f"listening on 127.0.0.1:{bound}", flush=True)
    await server.wait_for_termination()


def main() -> None:
    kind, rest = sys.argv[1], sys.argv[2:]
    if kind in RAW:
        port = int(rest[rest.index("--port") + 1]) if "--port" in rest else 0
        aio.run(_serve_raw(kind, port))
    else:
        serve(BOTS[kind], rest)


if __name__ == "__main__":
    main()
