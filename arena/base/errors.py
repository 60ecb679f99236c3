"""A request the platform refuses, with a message for the user. The kind says why, so
each adapter (the API's status codes, the CLI's exit) maps it once. The store, the
services and the platform raise them alike."""

from __future__ import annotations

from typing import Self

from arena.base.words import said


class Refused(ValueError):
    """A request refused: invalid input unless a subclass says otherwise."""

    #: the sentence's key (arena.base.words), when it was raised by one
    key: str | None = None

    @classmethod
    def of(cls, key: str, **values: object) -> Self:
        """The refusal saying the sentence ``key`` names, with ``values`` in it."""
        refused = cls(said(key, **values))
        refused.key = key
        return refused

    @classmethod
    def like(cls, other: Refused) -> Self:
        """``other``'s refusal, of this kind (a name the request gives that does not
        exist is its fault: invalid, not a missing page)."""
        refused = cls(str(other))
        refused.key = other.key
        return refused


class NotFound(Refused):
    """What the request names does not exist."""


class Gone(NotFound):
    """What the request names existed and was removed for good (a match's log its
    competition's retention dropped)."""


class Conflict(Refused):
    """The request clashes with what exists (a name taken, a tournament over)."""


class Forbidden(Refused):
    """The requester may not change this (another owner's bot, or one only the operator
    may change)."""


class Unauthorized(Refused):
    """Who the request says it is was not proven (a wrong password, no session)."""


class Invalid(Refused):
    """The request itself is wrong: a bad name, target, option or argument."""


class TooMany(Refused):
    """Over a rate limit: try again in ``retry_after`` seconds."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class SchemaTooNew(RuntimeError):
    """The database was migrated by a newer release than this one: this code would read
    it wrongly (a host left behind in a rolling upgrade)."""
