"""The line protocol: how a bot in another language plays, one line of text each way.

A bot uploaded in C++, Rust, Go, Java, JavaScript or TypeScript is a program that reads
lines on its standard input and answers on its standard output; inside its sandbox, the SDK's
adapter (:mod:`arena.sdk.program`) serves the seat's gRPC protocol and speaks these
lines to it. A line is a word and ``key=value`` fields separated by single spaces;
lists are comma-separated, ``-`` is empty or none, booleans are ``1`` and ``0``. Keys a
program does not know are to be ignored (new ones may come). docs/protocol.md shows
every field.

To the program::

    start match=1 seat=1 players=2 deals=1 deadline=1 preset=classic
    decide match=1 turn=0 seat=1 phase=lead hand=AS,KD,KH hand_sizes=3,3 stock=0 \
pile=0 discard=0 round_rank=- live=- play=2,3,4,5,6,7,8,9,T,J,Q,K,A max_cards=3 \
honest=0 max_count=3 challenge=0 believe=0 pass=0 quartets=- active=1,1 exits=- events=…
    end match=1 places=1;0

``match`` tells the sandbox's matches apart (numbered from 1): a program whose manifest says
``interleave = true`` plays the matches its sandbox plays at once, their lines
interleaved (it keeps whatever it remembers per ``match``); any other is given one
match at a time.

From the program, one line for each ``decide``: ``play CARDS RANK [COUNT]``,
``challenge``, ``believe``, ``pass`` or ``quartets RANKS``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from enum import Enum
from typing import Any

from arena.engine import BELIEVE, CHALLENGE, PASS, Action, Observation, Play, Quartets
from arena.sdk.bot import MatchInfo, MatchResult

NONE = "-"
#: the most a program's answer may hold (a longer line is a protocol error)
MAX_ANSWER = 4096


class BadAnswer(ValueError):
    """A program's line is not an action."""


def start_line(match: MatchInfo, number: int) -> str:
    """The line that opens the program's match ``number``."""
    return _line(
        "start",
        match=number,
        seat=match.seat,
        players=len(match.players),
        deals=match.deals,
        deadline=match.deadline,
        preset=match.ruleset.preset or NONE,
    )


def decide_line(obs: Observation, number: int) -> str:
    """The line that asks the program for its action in its match ``number`` (field by
    field, each of its known type: this is the adapter's work on every decision)."""
    legal = obs.legal
    spec = legal.play if legal is not None else None
    return " ".join(
        (
            f"decide match={number} turn={obs.turn} seat={obs.seat} phase={obs.phase.value}",
            f"hand={_texts(obs.hand)} hand_sizes={_texts(map(str, obs.hand_sizes))}",
            f"stock={obs.stock_size} pile={obs.pile_size} discard={obs.discard_size}",
            f"round_rank={obs.round_rank or NONE}",
            f"live={_value(obs.live)}",  # author, placed, rank, count, opening
            f"play={_texts(spec.ranks) if spec is not None else NONE}",
            f"max_cards={spec.max_cards if spec is not None else 0}",
            f"honest={_flag(spec is not None and spec.honest)}",
            f"max_count={spec.max_count if spec is not None else 0}",
            f"challenge={_flag(legal is not None and legal.challenge)}",
            f"believe={_flag(legal is not None and legal.believe)}",
            f"pass={_flag(legal is not None and legal.can_pass)}",
            f"quartets={_texts(legal.quartets) if legal is not None else NONE}",
            f"active={_texts(map(_flag, obs.active))}",
            f"exits={_texts(map(str, obs.exits))}",
            f"events={';'.join(map(event_text, obs.events)) or NONE}",
        )
    )


def _texts(items: Iterable[str]) -> str:
    return ",".join(items) or NONE


def _flag(value: bool) -> str:
    return "1" if value else "0"


def end_line(result: MatchResult, number: int) -> str:
    """The line that closes the program's match ``number``: its places, best first (tied
    seats share one)."""
    places = ";".join(_value(place) for place in result.ranking) or NONE
    return _line("end", match=number, places=places)


def event_text(event: Any) -> str:
    """One public event as ``name:field:field…``, its fields in the order of its message
    in player.proto (lists comma-separated)."""
    return ":".join([type(event).__name__.lower(), *map(_value, event)])


def parse_action(line: str) -> Action:
    """The action a program answered."""
    if len(line) > MAX_ANSWER:
        raise BadAnswer(f"an answer of {len(line)} characters (at most {MAX_ANSWER})")
    words = line.split()
    if not words:
        raise BadAnswer("an empty answer")
    word, rest = words[0].lower(), words[1:]
    simple: dict[str, Action] = {"challenge": CHALLENGE, "believe": BELIEVE, "pass": PASS}
    if word in simple and not rest:
        return simple[word]
    if word == "quartets" and len(rest) <= 1:
        return Quartets(_items(rest[0]) if rest else ())
    if word == "play" and len(rest) in (2, 3):
        cards = _items(rest[0])
        count = _count(rest[2]) if len(rest) == 3 else len(cards)
        return Play(cards, rest[1].upper(), count)
    raise BadAnswer(f"not an action: {line[:80]!r}")


def _count(text: str) -> int:
    if not text.isdigit():
        raise BadAnswer(f"a count that is not a number: {text[:20]!r}")
    return int(text)


def _items(text: str) -> tuple[str, ...]:
    return () if text == NONE else tuple(item.upper() for item in text.split(",") if item)


def _line(word: str, **fields: Any) -> str:
    return " ".join([word, *(f"{key}={_value(value)}" for key, value in fields.items())])


def _value(value: Any) -> str:
    """``value`` as the line writes it (a decision's line holds some 80 of them, so each
    type's way is looked up once, not tested for on every value)."""
    kind = type(value)
    render = _RENDERERS.get(kind)
    if render is None:
        render = _RENDERERS[kind] = _renderer(kind)
    return render(value)


def _renderer(kind: type) -> Callable[[Any], str]:
    if kind is type(None):
        return lambda _: NONE
    if issubclass(kind, bool):
        return _flag
    if issubclass(kind, Enum):
        return lambda value: str(value.value)
    if issubclass(kind, str):
        return lambda value: value or NONE
    if issubclass(kind, float):
        return lambda value: f"{value:g}"
    if issubclass(kind, Iterable):
        return lambda value: _texts(map(_value, value))
    return str


_RENDERERS: dict[type, Callable[[Any], str]] = {}
