"""What each step of a deal produces. Every event here is public.

Private knowledge (a player's own cards, what it drew or picked up) reaches a
player through its hand in the observation, never through an event, so the
event log can be shown to every seat as it is. Card identities appear only in
:class:`Revealed` and in the public part of :class:`Discarded`.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any, NamedTuple


class Dealt(NamedTuple):
    dealer: int
    hand_sizes: tuple[int, ...]
    stock: int
    hidden: bool

    kind = "dealt"


class Drew(NamedTuple):
    seat: int
    count: int

    kind = "drew"


class Played(NamedTuple):
    """``seat`` placed ``placed`` cards claiming ``count`` of ``rank``."""

    seat: int
    placed: int
    rank: str
    count: int

    kind = "played"


class CallKind(StrEnum):
    CHALLENGE = "challenge"  # "I don't believe": the live group is turned over
    BELIEVE = "believe"  # "I believe": the live group is discarded unseen


class DiscardReason(StrEnum):
    BELIEVED = "believed"
    PASSED_OUT = "passed_out"
    QUARTETS = "quartets"
    FORFEIT = "forfeit"


class EndReason(StrEnum):
    FINISHED = "finished"
    MAX_TURNS = "max_turns"


class Called(NamedTuple):
    """``seat`` challenged or believed the live group of ``author``."""

    seat: int
    call: CallKind
    author: int

    kind = "called"


class Revealed(NamedTuple):
    """Cards shown to everyone by a call, and whether the group was true."""

    author: int
    cards: tuple[str, ...]
    truthful: bool

    kind = "revealed"


class PickedUp(NamedTuple):
    seat: int
    count: int

    kind = "picked_up"


class Discarded(NamedTuple):
    """Cards left play: ``cards`` were shown, ``unseen`` more left face down."""

    seat: int | None
    reason: DiscardReason
    cards: tuple[str, ...]
    unseen: int

    kind = "discarded"


class Passed(NamedTuple):
    seat: int

    kind = "passed"


class Left(NamedTuple):
    """``seat`` emptied its hand and left the deal, taking finishing ``place``."""

    seat: int
    place: int

    kind = "left"


class Illegal(NamedTuple):
    seat: int
    reason: str

    kind = "illegal"


#: an ``Illegal`` event's reason when the seat answered after its deadline (the referee
#: counts it as a strike, not as a rule broken)
LATE_ANSWER = "late answer"


class Forfeited(NamedTuple):
    seat: int

    kind = "forfeited"


class DealOver(NamedTuple):
    ranking: tuple[tuple[int, ...], ...]
    reason: EndReason

    kind = "deal_over"


Event = (
    Dealt
    | Drew
    | Played
    | Called
    | Revealed
    | PickedUp
    | Discarded
    | Passed
    | Left
    | Illegal
    | Forfeited
    | DealOver
)

EVENT_TYPES: dict[str, type] = {
    cls.kind: cls
    for cls in (
        Dealt,
        Drew,
        Played,
        Called,
        Revealed,
        PickedUp,
        Discarded,
        Passed,
        Left,
        Illegal,
        Forfeited,
        DealOver,
    )
}


def event_to_dict(event: Event) -> dict[str, Any]:
    """JSON form: ``{"kind": ..., **fields}`` with tuples as lists."""
    data: dict[str, Any] = {"kind": event.kind}
    for name, value in zip(event._fields, event, strict=True):
        data[name] = _jsonable(value)
    return data


#: fields read back as their enum
_ENUMS: dict[tuple[str, str], type[StrEnum]] = {
    ("called", "call"): CallKind,
    ("discarded", "reason"): DiscardReason,
    ("deal_over", "reason"): EndReason,
}


def _reader(cls: type) -> Callable[[dict[str, Any]], Event]:
    """A parser for one event type, built once: each field read as its type wants (lists
    as tuples, enums as members, the rest as it is)."""
    fields: list[tuple[str, Callable[[Any], Any] | None]] = []
    for name, annotation in cls.__annotations__.items():
        enum = _ENUMS.get((cls.kind, name))
        text = str(annotation)
        fields.append((name, enum if enum is not None else _tupled if "tuple" in text else None))

    def read(data: dict[str, Any]) -> Event:
        return cls(*[data[n] if convert is None else convert(data[n]) for n, convert in fields])

    return read


def event_from_dict(data: dict[str, Any]) -> Event:
    return _READERS[data["kind"]](data)


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_jsonable(item) for item in value]
    return value


def _tupled(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tupled(item) for item in value)
    return value


_READERS = {kind: _reader(cls) for kind, cls in EVENT_TYPES.items()}
