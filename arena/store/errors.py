"""The store's errors: a request it refuses, with a message for the user. The kind says
why, so each adapter (the API's status codes, the CLI's exit) maps it once."""

from __future__ import annotations


class StoreError(ValueError):
    """A request the store refuses: invalid input unless a subclass says otherwise."""


class NotFound(StoreError):
    """What the request names does not exist."""


class Conflict(StoreError):
    """The request clashes with what exists (a name taken, a tournament over)."""


class Forbidden(StoreError):
    """The requester may not change this (another owner's bot, or one only the operator
    may change)."""


class Invalid(StoreError):
    """The request itself is wrong: a bad name, target, option or argument."""


class TooMany(StoreError):
    """Over a rate limit: try again in ``retry_after`` seconds."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after
