"""One fork server per test process (:mod:`arena.platform.forkserver`): the workers,
dashboards and ``arena`` commands the tests start are forked from it, real processes
that skip a new interpreter's imports (0.7 s of CPU for a worker, 1.5 s for a
dashboard). It dies with the test process, and its children with it."""

from __future__ import annotations

import atexit
import os
import threading
from functools import cache

from arena.platform.forkserver import ForkServer


@cache
def _server() -> ForkServer:
    server = ForkServer(dict(os.environ)).start()
    atexit.register(server.close)
    return server


def session_forks() -> ForkServer | None:
    """This test process's fork server, started on first use; None off the main thread
    (the kernel ties the server's life to the thread that started it)."""
    if threading.current_thread() is not threading.main_thread():
        return _server() if _server.cache_info().currsize else None
    return _server()
