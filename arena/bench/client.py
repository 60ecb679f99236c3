"""The app's in-process client for the benches that read pages (starlette's notice that
it would rather use httpx2 is silenced: the client works as is)."""

from __future__ import annotations

import warnings

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", "Using `httpx` with `starlette.testclient`")
    from fastapi.testclient import TestClient

__all__ = ["TestClient"]
