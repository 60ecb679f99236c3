"""A player's actions: one small immutable type each, round-tripping to text and JSON.

Text forms (``Action.parse`` / ``str``): ``play 7C,9D as 7`` (claimed count =
cards placed), ``play 7C as 7x2`` (claimed count 2), ``challenge``, ``believe``,
``pass``, ``quartets 7,K`` / ``quartets -``. The JSON form is the scenario
format's: ``{"do": "play", "cards": [...], "rank": "7", "count": 2}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from arena.engine.cards import JOKER, RANK_OF, RANKS


class ActionError(ValueError):
    """Text or JSON that does not describe an action (a harness error, not an illegal move)."""


class Play(NamedTuple):
    """Place ``cards`` face down claiming ``count`` cards of ``rank``."""

    cards: tuple[str, ...]
    rank: str
    count: int  # type: ignore[assignment]  # a field named like tuple.count

    @property
    def kind(self) -> str:
        return "play"

    @classmethod
    def of(cls, cards: Any, rank: str, count: int | None = None) -> Play:
        cards = tuple(cards)
        return cls(cards, rank, len(cards) if count is None else count)

    def __str__(self) -> str:
        suffix = "" if self.count == len(self.cards) else f"x{self.count}"
        return f"play {','.join(self.cards)} as {self.rank}{suffix}"

    def to_dict(self) -> dict[str, Any]:
        return {"do": "play", "cards": list(self.cards), "rank": self.rank, "count": self.count}


class Challenge(NamedTuple):
    """ "Ne veryu": the live group is a bluff."""

    @property
    def kind(self) -> str:
        return "challenge"

    def __str__(self) -> str:
        return "challenge"

    def to_dict(self) -> dict[str, Any]:
        return {"do": "challenge"}


class Believe(NamedTuple):
    """ "Veryu": the live group is true."""

    @property
    def kind(self) -> str:
        return "believe"

    def __str__(self) -> str:
        return "believe"

    def to_dict(self) -> dict[str, Any]:
        return {"do": "believe"}


class Pass(NamedTuple):
    """Let the turn move on without playing or calling."""

    @property
    def kind(self) -> str:
        return "pass"

    def __str__(self) -> str:
        return "pass"

    def to_dict(self) -> dict[str, Any]:
        return {"do": "pass"}


class Quartets(NamedTuple):
    """Discard the complete fours of these ranks (empty: keep them)."""

    ranks: tuple[str, ...]

    @property
    def kind(self) -> str:
        return "quartets"

    def __str__(self) -> str:
        return f"quartets {','.join(self.ranks) or '-'}"

    def to_dict(self) -> dict[str, Any]:
        return {"do": "quartets", "ranks": list(self.ranks)}


Action = Play | Challenge | Believe | Pass | Quartets


def _same_action(self: tuple[object, ...], other: object) -> bool:
    return type(other) is type(self) and tuple.__eq__(self, other)


def _other_action(self: tuple[object, ...], other: object) -> bool:
    return not _same_action(self, other)


def _action_hash(self: tuple[object, ...]) -> int:
    return hash((type(self).__name__, *self))


# Tuples compare by their items only: ``Challenge() == Believe() == Pass() == ()`` and
# ``Quartets(("7",)) == (("7",),)``. An action equals only an action of its own kind.
for _kind in (Play, Challenge, Believe, Pass, Quartets):
    _kind.__eq__ = _same_action  # type: ignore[method-assign]
    _kind.__ne__ = _other_action  # type: ignore[method-assign,assignment]
    _kind.__hash__ = _action_hash  # type: ignore[method-assign]

# Each ``kind`` is declared as a property, which type checkers read; at run time it is a
# plain class attribute, read at every decision (a property is a call each time).
for _kind_name, _action_type in (
    ("play", Play),
    ("challenge", Challenge),
    ("believe", Believe),
    ("pass", Pass),
    ("quartets", Quartets),
):
    setattr(_action_type, "kind", _kind_name)  # noqa: B010

CHALLENGE = Challenge()
BELIEVE = Believe()
PASS = Pass()
#: the actions without fields, by kind
BARE_ACTIONS: dict[str, Action] = {"challenge": CHALLENGE, "believe": BELIEVE, "pass": PASS}

_FIELDS: dict[str, set[str]] = {
    "play": {"cards", "rank", "count"},
    "challenge": set(),
    "believe": set(),
    "pass": set(),
    "quartets": {"ranks"},
}


def action_from_dict(data: Mapping[str, Any]) -> Action:
    """Parse the JSON form; unknown keys are errors (so a typo never passes silently)."""
    kind = data.get("do")
    if not isinstance(kind, str) or kind not in _FIELDS:
        raise ActionError(f"unknown action {kind!r}: expected one of {', '.join(_FIELDS)}")
    unknown = set(data) - _FIELDS[kind] - {"do"}
    if unknown:
        raise ActionError(f"unknown key(s) for {kind}: {', '.join(sorted(unknown))}")
    if kind == "play":
        cards = data.get("cards")
        if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
            raise ActionError("play needs 'cards', a list of card ids")
        rank, count = data.get("rank"), data.get("count")
        if not isinstance(rank, str):
            raise ActionError("play needs 'rank', a rank id such as '7'")
        if count is not None and (not isinstance(count, int) or isinstance(count, bool)):
            raise ActionError("play 'count' must be a whole number")
        return Play.of(cards, rank, count)
    if kind == "quartets":
        ranks = data.get("ranks")
        if not isinstance(ranks, list) or not all(isinstance(r, str) for r in ranks):
            raise ActionError("quartets needs 'ranks', a list of rank ids")
        return Quartets(tuple(ranks))
    return BARE_ACTIONS[kind]


#: cards an action may name at most: more than any hand can hold
MAX_ACTION_CARDS = 64


def check_vocabulary(action: Action) -> Action:
    """``action`` if it names only cards and ranks that exist, in sane numbers (what a
    person's table accepts before the action is counted and kept: an illegal action is
    still one of the game's words); else ActionError."""
    if isinstance(action, Play):
        if not 1 <= len(action.cards) <= MAX_ACTION_CARDS:
            raise ActionError(f"a play places 1 to {MAX_ACTION_CARDS} cards")
        unknown = [card for card in action.cards if card not in RANK_OF and card != JOKER]
        if unknown:
            raise ActionError(f"no such card: {unknown[0][:8]!r} (cards are like '7C' or 'JK')")
        if action.rank not in RANKS:
            raise ActionError(f"no such rank: {action.rank[:8]!r} (ranks are 2-9, T, J, Q, K, A)")
        if not 1 <= action.count <= MAX_ACTION_CARDS:
            raise ActionError(f"a play claims 1 to {MAX_ACTION_CARDS} cards")
    elif isinstance(action, Quartets) and (
        len(action.ranks) > len(RANKS) or any(rank not in RANKS for rank in action.ranks)
    ):
        raise ActionError("quartets names ranks, each 2-9, T, J, Q, K or A")
    return action


def parse_action(text: str) -> Action:
    """Parse the text form (see the module docstring)."""
    word, _, rest = text.strip().partition(" ")
    word, rest = word.lower(), rest.strip()
    if word in ("challenge", "believe", "pass") and not rest:
        return BARE_ACTIONS[word]
    if word == "quartets":
        return Quartets(() if rest in ("", "-") else tuple(rest.split(",")))
    if word == "play":
        cards, sep, claim = rest.rpartition(" as ")
        if not sep:
            raise ActionError(f"bad play {text!r}: expected 'play 7C,9D as 7' or 'as 7x2'")
        rank, _, count = claim.partition("x")
        try:
            claimed = int(count) if count else None
        except ValueError:
            raise ActionError(f"bad claimed count in {text!r}") from None
        return Play.of([c for c in cards.split(",") if c], rank, claimed)
    raise ActionError(f"unknown action {text!r}")
