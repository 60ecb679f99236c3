"""The store's one error: a request it refuses, with a message for the user."""

from __future__ import annotations


class StoreError(ValueError):
    """A request the store refuses, with a message for the user."""
