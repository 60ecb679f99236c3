"""Running coroutines: on uvloop where it is installed (gRPC's asyncio stack is
markedly faster on it: see ``arena bench grpc``), else on the standard loop."""

from __future__ import annotations

import asyncio
import atexit
import threading
from collections.abc import Coroutine
from types import ModuleType
from typing import Any, TypeVar

T = TypeVar("T")

uvloop: ModuleType | None
try:
    import uvloop
except ImportError:  # pragma: no cover - e.g. Windows
    uvloop = None

_local = threading.local()


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine`` on this thread's event loop (uvloop where installed).

    The loop is kept for the thread's next call: a worker runs one match after another,
    and a new loop for each would cost more than some matches take.
    """
    runner = getattr(_local, "runner", None)
    if runner is None:
        factory = uvloop.new_event_loop if uvloop is not None else None
        runner = _local.runner = asyncio.Runner(loop_factory=factory)
        atexit.register(runner.close)
    return runner.run(coroutine)
