"""The stored form of a match log: compact JSON, zlib-compressed (level 1: a log
compresses about 6x and a worker records hundreds a second). Every reader and writer
of ``match_logs.data`` goes through here."""

from __future__ import annotations

import json
import zlib
from typing import Any

from arena.referee.log import MatchLog


def encode(log: MatchLog) -> bytes:
    """A log as stored: its JSON (docs/match-log.md), compressed."""
    return zlib.compress(json.dumps(log.to_dict(), separators=(",", ":")).encode(), 1)


def decode(blob: bytes) -> dict[str, Any]:
    """A stored log's JSON data (read it as arena.referee.log.MatchLog)."""
    data: dict[str, Any] = json.loads(zlib.decompress(blob))
    return data
