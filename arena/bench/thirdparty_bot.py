"""A third-party bot as a competitor would write it from docs/protocol.md alone: no SDK,
the standard synchronous ``grpc.server`` and the stubs generated from the proto.

``python -m arena.bench.thirdparty_bot --port P [--think-ms N]``: it plays its first card claiming
the first allowed rank, challenges a claim of more than two cards, and sleeps N ms
before each answer (a bot that waits on something).
"""

from __future__ import annotations

import argparse
import time
from concurrent import futures

import grpc

from arena.v1 import player_pb2 as pb
from arena.v1 import player_pb2_grpc

#: the server's thread pool: it serves one stream a thread (the benchmark registers the
#: bot with this limit of matches at once)
THREADS = 32


class Player(player_pb2_grpc.PlayerServiceServicer):
    def __init__(self, think: float) -> None:
        self.think = think

    def Play(self, request_iterator, context):
        for request in request_iterator:
            kind = request.WhichOneof("kind")
            if kind == "start":
                yield pb.PlayResponse(hello=pb.Hello(protocol_version=1, name="third-party"))
            elif kind == "decide":
                if self.think:
                    time.sleep(self.think)
                yield pb.PlayResponse(decision=decide(request.decide))


def decide(request: pb.DecisionRequest) -> pb.Decision:
    legal = request.legal
    decision = pb.Decision(request_id=request.request_id)
    if legal.quartets_phase:
        decision.quartets.ranks.extend(legal.quartets)
    elif legal.challenge and request.live.count > 2:
        decision.challenge.SetInParent()
    elif legal.play:
        decision.play.cards.append(request.hand[0])
        decision.play.rank = legal.ranks[0]
    elif legal.believe:
        decision.believe.SetInParent()
    elif legal.challenge:
        decision.challenge.SetInParent()
    else:
        getattr(decision, "pass").SetInParent()
    return decision


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=50051)
    parser.add_argument("--think-ms", type=float, default=0.0)
    args = parser.parse_args()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=THREADS))
    player_pb2_grpc.add_PlayerServiceServicer_to_server(Player(args.think_ms / 1000), server)
    port = server.add_insecure_port(f"127.0.0.1:{args.port}")
    server.start()
    print(f"listening on 127.0.0.1:{port}", flush=True)
    server.wait_for_termination()


if __name__ == "__main__":
    main()
