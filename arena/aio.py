"""Running coroutines: on uvloop where it is installed (gRPC's asyncio stack is
markedly faster on it: see ``arena bench grpc``), else on the standard loop."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

try:
    import uvloop
except ImportError:  # pragma: no cover - e.g. Windows
    uvloop = None


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` on the fastest available event loop."""
    if uvloop is not None:
        return uvloop.run(coroutine)
    return asyncio.run(coroutine)
