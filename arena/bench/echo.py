"""A bare echo server for ``arena bench grpc``: ``python -m arena.bench.echo --port 0``."""

from __future__ import annotations

import argparse

import grpc

from arena.base import aio
from arena.v1 import bench_pb2, bench_pb2_grpc


class Echo(bench_pb2_grpc.EchoServiceServicer):
    async def Echo(self, request_iterator, context):
        async for _ in request_iterator:
            yield bench_pb2.EchoResponse()


async def serve(port: int) -> None:
    server = grpc.aio.server()
    bench_pb2_grpc.add_EchoServiceServicer_to_server(Echo(), server)
    bound = server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    print(f"listening on 127.0.0.1:{bound}", flush=True)
    await server.wait_for_termination()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    aio.run(serve(parser.parse_args().port))
