"""Reach every service the worker can: the test's listeners, Redis (enqueue a job),
PostgreSQL (create a table)."""

import socket

from player import Plain, given, report

TARGETS = given("TARGETS")  # (family, host, port) of the test's listeners


def _try_tcp(family, host, port):
    try:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.settimeout(1)
            probe.connect((host, port))
            probe.sendall(b"hello from the sandbox\n")
            return "connected"
    except OSError as error:
        return f"refused ({error.errno})"


for family, host, port in TARGETS:
    report(f"tcp {host}:{port}", _try_tcp(family, host, port))

try:
    import redis

    client = redis.Redis(host="127.0.0.1", port=6379, db=given("REDIS_DB"), socket_timeout=1)
    client.rpush("rq:queue:arena-matches", "pwned")
    client.set("arena-attack", "1")
    report("redis", "enqueued")
except Exception as error:
    report("redis", f"failed ({type(error).__name__})")

try:
    import psycopg

    with psycopg.connect("postgresql://postgres@127.0.0.1:5432/test", connect_timeout=1) as conn:
        conn.execute("CREATE TABLE arena_attack (x int)")
    report("postgresql", "created a table")
except Exception as error:
    report("postgresql", f"failed ({type(error).__name__})")


class Network(Plain):
    name = "network"
