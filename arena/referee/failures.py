"""How a bot fails, as a seat reports it: :class:`SeatTimeout` (a late answer: a strike)
and :class:`SeatFailure` (a crash, an unreachable bot or a protocol violation: a forfeit,
of the kind :class:`FailureKind` names)."""

from __future__ import annotations

from enum import StrEnum


class FailureKind(StrEnum):
    CRASHED = "crashed"
    UNREACHABLE = "unreachable"
    PROTOCOL = "protocol"
    STRIKES = "strikes"
    ILLEGAL_LIMIT = "illegal_limit"
    #: an uploaded bot used more CPU in one match than its budget
    CPU_LIMIT = "cpu_limit"
    #: a person left the table (arena.referee.person)
    LEFT = "left"


class SeatTimeout(Exception):
    """The bot did not answer in time."""


class SeatFailure(Exception):
    """The bot cannot go on: it forfeits."""

    def __init__(self, kind: FailureKind, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail


def quoted(text: str, limit: int = 200) -> str:
    """A bot's text as a quoted, escaped, bounded string for a reason the platform writes."""
    shown = repr(text[:limit])
    return shown + (f" and {len(text) - limit} more characters" if len(text) > limit else "")
