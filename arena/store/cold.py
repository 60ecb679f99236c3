"""The cold store: match logs moved out of the database once they are old, kept as
objects named by key under a root URL that fsspec opens (a folder by default,
``s3://bucket/prefix`` through s3fs, with its options: an endpoint, credentials). The
database keeps each moved log's key (arena.store.logs); reading it back is transparent.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

import fsspec


class ColdStore:
    """Objects (a log's stored bytes) by key under ``url``."""

    def __init__(self, url: str, options: Mapping[str, Any] | None = None) -> None:
        self.url = url
        self.fs, root = fsspec.core.url_to_fs(url, **dict(options or {}))
        self.root = root.rstrip("/")

    def path(self, key: str) -> str:
        return f"{self.root}/{key}"

    def put(self, key: str, data: bytes) -> None:
        """Write (or write again: the same key, the same bytes) the object ``key``."""
        path = self.path(key)
        parent = path.rsplit("/", 1)[0]
        self.fs.makedirs(parent, exist_ok=True)
        self.fs.pipe_file(path, data)

    def get(self, key: str) -> bytes:
        data: bytes = self.fs.cat_file(self.path(key))
        return data

    def delete(self, key: str) -> None:
        """Delete the object ``key`` (none there: nothing to do)."""
        with contextlib.suppress(FileNotFoundError):
            self.fs.rm_file(self.path(key))

    def size(self, key: str) -> int | None:
        """The object's size in bytes (None: there is none)."""
        try:
            return int(self.fs.size(self.path(key)))
        except FileNotFoundError:
            return None

    def keys(self) -> list[str]:
        """Every key held (for the tests and a check by hand)."""
        if not self.fs.exists(self.root):
            return []
        return sorted(path.removeprefix(self.root + "/") for path in self.fs.find(self.root))
