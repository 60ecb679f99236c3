"""The match queue runs only the platform's job: whatever else lands on it is refused,
nothing of it is imported, unpickled or called, and the worker goes on."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import redis
from rq import Callback, Queue
from rq.job import Job

from arena.platform import queue as work_queue
from arena.platform.redis_server import RedisServer, masked
from arena.platform.settings import Settings
from tests.support.cli import arena, environment
from worker import rq_classes

pytestmark = pytest.mark.processes


class Evil:
    """Runs a command when unpickled: what a pickle-reading worker would do."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def marker_for(tmp_path: Path, name: str) -> Path:
    return tmp_path / f"pwned-{name}"


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_foreign_jobs_are_refused_and_the_worker_plays_on(
    settings: Settings, tmp_path: Path
) -> None:
    env = environment(settings)
    assert arena("db", "upgrade", env=env).returncode == 0
    for bot in ("random", "honest"):
        assert arena("bot", "add", bot, "--sample", bot, env=env).returncode == 0
    created = arena(
        "tournament",
        "create",
        "cup",
        "--bots",
        "random,honest",
        "--table-size",
        "2",
        "--games",
        "4",
        env=env,
    )
    assert created.returncode == 0, created.stderr

    connection = work_queue.connect(settings.redis_url or "")
    pickled = Queue(work_queue.QUEUE_NAME, connection=connection)  # RQ's default: pickle
    locked = work_queue.match_queue(connection)
    marks = {name: marker_for(tmp_path, name) for name in ("system", "json", "arg", "callback")}
    foreign = [
        pickled.enqueue(os.system, f"touch {marks['system']}"),
        pickled.enqueue(work_queue.JOB_FUNCTION, Evil(marks["arg"])),
        locked.enqueue("os.system", f"touch {marks['json']}"),
        locked.enqueue(
            work_queue.JOB_FUNCTION,
            [10**9],
            on_failure=Callback("os.system"),
            on_success=Callback("os.system"),
        ),
        locked.enqueue(work_queue.JOB_FUNCTION, [f"touch {marks['callback']}"]),
        locked.enqueue(work_queue.JOB_FUNCTION, args=([1],), kwargs={"x": 1}),
    ]
    assert arena("tournament", "start", "cup", env=env).returncode == 0

    worker = arena("worker", "--burst", env=env)
    assert worker.returncode == 0, worker.stderr[-3000:]
    refused = worker.stderr.count("refused job")
    assert refused == len(foreign), worker.stderr[-3000:]
    assert not [name for name, mark in marks.items() if mark.exists()], "a foreign job ran"
    for job in foreign:
        assert not connection.exists(Job.key_for(job.id)), "refused jobs are deleted"
    status = json.loads(arena("tournament", "status", "cup", "--json", env=env).stdout)
    assert status["matches"]["done"] == 4, "the platform's own jobs still ran"


def test_refusal_names_what_is_wrong_with_a_job(redis_url: str) -> None:
    queue = rq_classes.locked_queue(work_queue.connect(redis_url))
    ours = queue.enqueue(work_queue.JOB_FUNCTION, [1, 2])
    assert rq_classes.refusal(ours) is None
    qualification = queue.enqueue(work_queue.QUALIFY_FUNCTION, 7)
    assert rq_classes.refusal(qualification) is None
    cases = {
        "not one bot version id": queue.enqueue(work_queue.QUALIFY_FUNCTION, "7; rm -rf /"),
        "calls 'os.system'": queue.enqueue("os.system", "true"),
        "a failure callback": queue.enqueue(
            work_queue.JOB_FUNCTION, [1], on_failure=Callback("os.system")
        ),
        "not one list of match ids": queue.enqueue(work_queue.JOB_FUNCTION, [True]),
        "dependencies": queue.enqueue(work_queue.JOB_FUNCTION, [3], depends_on=ours),
    }
    for expected, job in cases.items():
        fetched = queue.fetch_job(job.id)
        assert fetched is not None
        assert expected in (rq_classes.refusal(fetched) or ""), expected
        with pytest.raises(rq_classes.ForeignJob):
            _ = fetched.func
        assert fetched.failure_callback is None and fetched.success_callback is None


def test_the_private_redis_requires_its_password(tmp_path: Path) -> None:
    with RedisServer(tmp_path / "redis") as server:
        stranger = redis.Redis(port=server.port, socket_connect_timeout=1)
        with pytest.raises(redis.AuthenticationError):
            stranger.ping()
        assert work_queue.connect(server.url).ping()
        assert server.password not in masked(server.url) and "***" in masked(server.url)


def test_a_tls_url_gives_a_tls_connection() -> None:
    client = work_queue.connect("rediss://:secret@127.0.0.1:6380/0")
    assert client.connection_pool.connection_class is redis.SSLConnection
    assert client.connection_pool.connection_kwargs["password"] == "secret"
