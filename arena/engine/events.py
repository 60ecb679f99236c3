"""What each step of a deal produces. Every event here is public.

Private knowledge (a player's own cards, what it drew or picked up) reaches a
player through its hand in the observation, never through an event, so the
event log can be shown to every seat as it is. Card identities appear only in
:class:`Revealed` and in the public part of :class:`Discarded`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from enum import StrEnum
from typing import Any, NamedTuple


class Dealt(NamedTuple):
    dealer: int
    hand_sizes: tuple[int, ...]
    stock: int
    hidden: bool

    @property
    def kind(self) -> str:
        return "dealt"


class Drew(NamedTuple):
    seat: int
    count: int  # type: ignore[assignment]  # a field named like tuple.count

    @property
    def kind(self) -> str:
        return "drew"


class Played(NamedTuple):
    """``seat`` placed ``placed`` cards claiming ``count`` of ``rank``."""

    seat: int
    placed: int
    rank: str
    count: int  # type: ignore[assignment]  # a field named like tuple.count

    @property
    def kind(self) -> str:
        return "played"


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

    @property
    def kind(self) -> str:
        return "called"


class Revealed(NamedTuple):
    """Cards shown to everyone by a call, and whether the group was true."""

    author: int
    cards: tuple[str, ...]
    truthful: bool

    @property
    def kind(self) -> str:
        return "revealed"


class PickedUp(NamedTuple):
    seat: int
    count: int  # type: ignore[assignment]  # a field named like tuple.count

    @property
    def kind(self) -> str:
        return "picked_up"


class Discarded(NamedTuple):
    """Cards left play: ``cards`` were shown, ``unseen`` more left face down."""

    seat: int | None
    reason: DiscardReason
    cards: tuple[str, ...]
    unseen: int

    @property
    def kind(self) -> str:
        return "discarded"


class Passed(NamedTuple):
    seat: int

    @property
    def kind(self) -> str:
        return "passed"


class Left(NamedTuple):
    """``seat`` emptied its hand and left the deal, taking finishing ``place``."""

    seat: int
    place: int

    @property
    def kind(self) -> str:
        return "left"


class IllegalReason(StrEnum):
    """The rule an illegal action broke (docs/rules.md "Illegal actions"); the event's
    text (:func:`illegal_text`) says it in full, with its details."""

    #: the seat answered after its deadline (the referee counts a strike, not a rule broken)
    LATE_ANSWER = "late_answer"
    WRONG_ANSWER_TO_QUARTETS = "wrong_answer_to_quartets"
    PLAY_AT_FINAL_CALL = "play_at_final_call"
    QUARTETS_OUT_OF_PHASE = "quartets_out_of_phase"
    NO_CARDS = "no_cards"
    ZERO_COUNT = "zero_count"
    COUNT_NOT_CARDS = "count_not_cards"
    OVER_PLAY_LIMIT = "over_play_limit"
    COUNT_OVER_CARDS_IN_PLAY = "count_over_cards_in_play"
    UNDECLARABLE_RANK = "undeclarable_rank"
    WRONG_RANK = "wrong_rank"
    CARDS_NOT_IN_HAND = "cards_not_in_hand"
    NO_LIVE_GROUP = "no_live_group"
    PROTECTED_LEAD = "protected_lead"
    BELIEVE_NOT_ALLOWED = "believe_not_allowed"
    PASS_NOT_ALLOWED = "pass_not_allowed"
    PASS_OUT_OF_PHASE = "pass_out_of_phase"
    NO_COMPLETE_FOUR = "no_complete_four"


#: each reason's text as logs and bots read it, its details in braces
_ILLEGAL_TEXTS: dict[IllegalReason, str] = {
    IllegalReason.LATE_ANSWER: "late answer",
    IllegalReason.WRONG_ANSWER_TO_QUARTETS: "{kind} when asked which fours to discard",
    IllegalReason.PLAY_AT_FINAL_CALL: "a play when the final call is due",
    IllegalReason.QUARTETS_OUT_OF_PHASE: "quartets outside the quartets phase",
    IllegalReason.NO_CARDS: "a play of no cards",
    IllegalReason.ZERO_COUNT: "a claimed count of zero",
    IllegalReason.COUNT_NOT_CARDS: "a claimed count that differs from the cards placed",
    IllegalReason.OVER_PLAY_LIMIT: "more than {limit} cards",
    IllegalReason.COUNT_OVER_CARDS_IN_PLAY: "a claimed count above the cards in play",
    IllegalReason.UNDECLARABLE_RANK: "rank {rank!r} may not be declared",
    IllegalReason.WRONG_RANK: "rank {rank!r} where {due!r} is due",
    IllegalReason.CARDS_NOT_IN_HAND: "cards not in the hand",
    IllegalReason.NO_LIVE_GROUP: "{kind} with no live group",
    IllegalReason.PROTECTED_LEAD: "{kind} on a one-card lead by the next player",
    IllegalReason.BELIEVE_NOT_ALLOWED: "believe is not allowed in these rules",
    IllegalReason.PASS_NOT_ALLOWED: "pass is not allowed in these rules",
    IllegalReason.PASS_OUT_OF_PHASE: "a pass in the {phase} phase",
    IllegalReason.NO_COMPLETE_FOUR: "no complete four to discard among {ranks}",
}


def illegal_text(reason: IllegalReason, **details: object) -> str:
    """The text of ``reason`` with its details, as an ``Illegal`` event carries it."""
    return _ILLEGAL_TEXTS[reason].format(**details)


def _text_pattern(template: str) -> re.Pattern[str]:
    parts = re.split(r"\{[a-z]+(?:![a-z])?\}", template)
    return re.compile("(?s)" + ".+".join(map(re.escape, parts)))


#: the texts read back: the fixed ones by lookup, the others by their pattern
_FIXED_TEXTS = {text: reason for reason, text in _ILLEGAL_TEXTS.items() if "{" not in text}
_TEXT_PATTERNS = [
    (_text_pattern(text), reason) for reason, text in _ILLEGAL_TEXTS.items() if "{" in text
]


def illegal_reason(text: str) -> IllegalReason:
    """The reason an ``Illegal`` event's text gives (the inverse of :func:`illegal_text`)."""
    reason = _FIXED_TEXTS.get(text)
    if reason is not None:
        return reason
    for pattern, reason in _TEXT_PATTERNS:
        if pattern.fullmatch(text):
            return reason
    raise ValueError(f"not the text of an illegal action: {text!r}")


class Illegal(NamedTuple):
    """``seat``'s action broke a rule: ``reason`` is the text (:func:`illegal_text`)."""

    seat: int
    reason: str

    @property
    def kind(self) -> str:
        return "illegal"

    @property
    def rule(self) -> IllegalReason:
        """Which rule was broken."""
        return illegal_reason(self.reason)


class Forfeited(NamedTuple):
    seat: int

    @property
    def kind(self) -> str:
        return "forfeited"


class DealOver(NamedTuple):
    ranking: tuple[tuple[int, ...], ...]
    reason: EndReason

    @property
    def kind(self) -> str:
        return "deal_over"


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

#: each event type by its ``kind``
EVENT_TYPES: dict[str, type[Event]] = {
    "dealt": Dealt,
    "drew": Drew,
    "played": Played,
    "called": Called,
    "revealed": Revealed,
    "picked_up": PickedUp,
    "discarded": Discarded,
    "passed": Passed,
    "left": Left,
    "illegal": Illegal,
    "forfeited": Forfeited,
    "deal_over": DealOver,
}
# Each ``kind`` is declared as a property, which type checkers read; at run time it is a
# plain class attribute, read at every step (a property is a call each time).
for _kind, _event_type in EVENT_TYPES.items():
    setattr(_event_type, "kind", _kind)  # noqa: B010


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


def _reader(kind: str, cls: type[Event]) -> Callable[[dict[str, Any]], Event]:
    """A parser for one event type, built once: each field read as its type wants (lists
    as tuples, enums as members, the rest as it is)."""
    fields: list[tuple[str, Callable[[Any], Any] | None]] = []
    for name, annotation in cls.__annotations__.items():
        enum = _ENUMS.get((kind, name))
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


_READERS = {kind: _reader(kind, cls) for kind, cls in EVENT_TYPES.items()}
