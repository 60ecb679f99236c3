"""Rulesets: a preset plus option overrides, validated, as in ``docs/rules.md``.

Every option is declared once in :data:`OPTIONS` with its parser; presets are
plain data. A :class:`Ruleset` is immutable and round-trips through
``{"preset": ..., "options": {...}}``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from enum import StrEnum
from typing import Any

from arena.engine.cards import RANKS, CardError, parse_rank


class RulesError(ValueError):
    """An unknown preset or option, or a bad option value."""


# --- the options that choose between named behaviours (docs/rules.md names them) ---


class Deck(StrEnum):
    CARDS_36 = "36"
    CARDS_52 = "52"
    AUTO = "auto"  # 36 cards for up to 3 players, else 52


class FirstPlayer(StrEnum):
    LEFT_OF_DEALER = "left_of_dealer"
    DEALER = "dealer"


class Count(StrEnum):
    FREE = "free"  # the claimed count may differ from the cards placed
    HONEST = "honest"  # the claimed count is the number of cards placed


class BelieveScope(StrEnum):
    NONE = "none"  # no "I believe" call
    GROUP = "group"  # believing discards the live group
    TABLE = "table"  # believing discards the whole table


class Reveal(StrEnum):
    GROUP = "group"  # a challenge turns over the whole live group
    ONE = "one"  # a challenge turns over one card of it


class AfterPickup(StrEnum):
    NEW_ROUND = "new_round"
    KEEP_VALUE = "keep_value"  # the round's rank stays after a pickup


class Calls(StrEnum):
    NEXT = "next"  # only the next player may call
    OPEN = "open"  # any other player may call


class RankSequence(StrEnum):
    FIXED = "fixed"  # every claim of a round names the round's rank
    ASCENDING = "ascending"  # each claim names the next rank up


class QuartetDiscard(StrEnum):
    NONE = "none"
    AFTER_PICKUP = "after_pickup"  # a player who picks up may discard complete fours
    ALWAYS = "always"  # complete fours are discarded whenever they form


class End(StrEnum):
    LAST_LOSER = "last_loser"  # play until one player is left with cards
    FIRST_OUT = "first_out"  # the first player out wins; the rest rank by cards


class NextDealer(StrEnum):
    ROTATE = "rotate"
    LOSER = "loser"


# --- value parsers: each takes a JSON or command-line value and returns the canonical one ---


def _choice(kind: type[StrEnum]) -> Callable[[Any], StrEnum]:
    def parse(value: Any) -> StrEnum:
        text = str(value).strip().lower()
        try:
            return kind(text)
        except ValueError:
            allowed = ", ".join(member.value for member in kind)
            raise RulesError(f"expected one of {allowed}, got {value!r}") from None

    return parse


def _boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "yes", "on", "1"):
        return True
    if text in ("false", "no", "off", "0"):
        return False
    raise RulesError(f"expected true or false, got {value!r}")


def _integer(value: Any, minimum: int) -> int:
    if isinstance(value, bool):
        raise RulesError(f"expected a whole number, got {value!r}")
    try:
        number = int(str(value).strip()) if not isinstance(value, int) else value
    except ValueError:
        raise RulesError(f"expected a whole number, got {value!r}") from None
    if number < minimum:
        raise RulesError(f"expected a whole number of at least {minimum}, got {value!r}")
    return number


def _is_null(value: Any) -> bool:
    return value is None or str(value).strip().lower() in ("null", "none", "")


def _deck(value: Any) -> Deck:
    return Deck(_choice(Deck)(value))


def _decks(value: Any) -> int | str:
    if str(value).strip().lower() == "auto":
        return "auto"
    number = _integer(value, 1)
    if number not in (1, 2):
        raise RulesError(f"expected 1, 2 or auto, got {value!r}")
    return number


def _jokers(value: Any) -> int:
    number = _integer(value, 0)
    if number not in (0, 2):
        raise RulesError(f"expected 0 or 2, got {value!r}")
    return number


def _hand_size(value: Any) -> int | None:
    return None if _is_null(value) else _integer(value, 1)


def _max_play(value: Any) -> int | str | None:
    if _is_null(value):
        return None
    if str(value).strip().lower() == "possible":
        return "possible"
    return _integer(value, 1)


def _ranks(value: Any) -> tuple[str, ...]:
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, list | tuple):
        raise RulesError(f"expected a list of ranks, got {value!r}")
    try:
        ranks = {parse_rank(item) for item in items if str(item).strip()}
    except CardError as error:
        raise RulesError(str(error)) from None
    return tuple(sorted(ranks, key=RANKS.index))


@dataclass(frozen=True, slots=True)
class Options:
    """Every rule option, by its ``docs/rules.md`` name (``pass`` is :attr:`allow_pass`)."""

    deck: Deck
    decks: int | str
    jokers: int
    hidden_card: bool
    hand_size: int | None
    first_player: FirstPlayer
    max_play: int | str | None
    count: Count
    believe: BelieveScope
    reveal: Reveal
    protect_single_lead: bool
    allow_pass: bool
    after_pickup: AfterPickup
    calls: Calls
    sequence: RankSequence
    banned_ranks: tuple[str, ...]
    quartets: QuartetDiscard
    quartet_exempt: tuple[str, ...]
    final_call: bool
    end: End
    deals: int
    next_dealer: NextDealer
    max_turns: int

    # --- the questions the engine asks of the rules ---

    @property
    def honest_counts(self) -> bool:
        return self.count is Count.HONEST

    @property
    def fixed_sequence(self) -> bool:
        return self.sequence is RankSequence.FIXED

    @property
    def calls_open(self) -> bool:
        """Any other player may call, not only the next one."""
        return self.calls is Calls.OPEN

    @property
    def reveals_one(self) -> bool:
        return self.reveal is Reveal.ONE

    @property
    def keeps_value(self) -> bool:
        """The round's rank stays after a pickup."""
        return self.after_pickup is AfterPickup.KEEP_VALUE

    @property
    def believe_allowed(self) -> bool:
        return self.believe is not BelieveScope.NONE

    @property
    def believe_discards_group(self) -> bool:
        return self.believe is BelieveScope.GROUP

    @property
    def quartets_always(self) -> bool:
        return self.quartets is QuartetDiscard.ALWAYS

    @property
    def quartets_after_pickup(self) -> bool:
        return self.quartets is QuartetDiscard.AFTER_PICKUP

    @property
    def first_out_wins(self) -> bool:
        return self.end is End.FIRST_OUT

    @property
    def dealer_leads(self) -> bool:
        return self.first_player is FirstPlayer.DEALER

    @property
    def loser_deals_next(self) -> bool:
        return self.next_dealer is NextDealer.LOSER


#: option name (as in docs/rules.md) -> (attribute of :class:`Options`, parser)
OPTIONS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "deck": ("deck", _deck),
    "decks": ("decks", _decks),
    "jokers": ("jokers", _jokers),
    "hidden_card": ("hidden_card", _boolean),
    "hand_size": ("hand_size", _hand_size),
    "first_player": ("first_player", _choice(FirstPlayer)),
    "max_play": ("max_play", _max_play),
    "count": ("count", _choice(Count)),
    "believe": ("believe", _choice(BelieveScope)),
    "reveal": ("reveal", _choice(Reveal)),
    "protect_single_lead": ("protect_single_lead", _boolean),
    "pass": ("allow_pass", _boolean),
    "after_pickup": ("after_pickup", _choice(AfterPickup)),
    "calls": ("calls", _choice(Calls)),
    "sequence": ("sequence", _choice(RankSequence)),
    "banned_ranks": ("banned_ranks", _ranks),
    "quartets": ("quartets", _choice(QuartetDiscard)),
    "quartet_exempt": ("quartet_exempt", _ranks),
    "final_call": ("final_call", _boolean),
    "end": ("end", _choice(End)),
    "deals": ("deals", lambda value: _integer(value, 1)),
    "next_dealer": ("next_dealer", _choice(NextDealer)),
    "max_turns": ("max_turns", lambda value: _integer(value, 1)),
}
_NAME_OF = {attribute: name for name, (attribute, _) in OPTIONS.items()}

CLASSIC = Options(
    deck=Deck.CARDS_36, decks="auto", jokers=0, hidden_card=False, hand_size=None,
    first_player=FirstPlayer.LEFT_OF_DEALER, max_play=None, count=Count.FREE,
    believe=BelieveScope.GROUP, reveal=Reveal.GROUP, protect_single_lead=False, allow_pass=False,
    after_pickup=AfterPickup.NEW_ROUND, calls=Calls.NEXT, sequence=RankSequence.FIXED,
    banned_ranks=(), quartets=QuartetDiscard.NONE, quartet_exempt=(), final_call=False,
    end=End.LAST_LOSER, deals=1, next_dealer=NextDealer.ROTATE, max_turns=2000,
)  # fmt: skip

PRESETS: dict[str, Options] = {
    "classic": CLASSIC,
    "pagat": replace(
        CLASSIC,
        deck=Deck.AUTO,
        decks=1,
        hidden_card=True,
        max_play=3,
        count=Count.HONEST,
        believe=BelieveScope.NONE,
        quartets=QuartetDiscard.AFTER_PICKUP,
    ),  # fmt: skip
    "russian": replace(
        CLASSIC,
        decks=1,
        first_player=FirstPlayer.DEALER,
        max_play="possible",
        count=Count.HONEST,
        believe=BelieveScope.TABLE,
        protect_single_lead=True,
        next_dealer=NextDealer.LOSER,
    ),  # fmt: skip
}


@dataclass(frozen=True, slots=True)
class Ruleset:
    """A preset name and the options it resolves to after overrides."""

    preset: str
    options: Options

    @classmethod
    def parse(cls, preset: str = "classic", overrides: Mapping[str, Any] | None = None) -> Ruleset:
        """Build a ruleset, raising :class:`RulesError` with a clear message on bad input."""
        if preset not in PRESETS:
            raise RulesError(f"unknown preset {preset!r}: expected one of {', '.join(PRESETS)}")
        changes: dict[str, Any] = {}
        for name, value in (overrides or {}).items():
            if name not in OPTIONS:
                raise RulesError(f"unknown option {name!r}: expected one of {', '.join(OPTIONS)}")
            attribute, parser = OPTIONS[name]
            try:
                changes[attribute] = parser(value)
            except RulesError as error:
                raise RulesError(f"option {name}: {error}") from None
        options = replace(PRESETS[preset], **changes)
        _check_consistent(options)
        return cls(preset, options)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Ruleset:
        """Parse ``{"preset": ..., "options": {...}}`` (both keys optional)."""
        unknown = set(data) - {"preset", "options"}
        if unknown:
            raise RulesError(f"unknown key(s) in rules: {', '.join(sorted(unknown))}")
        options = data.get("options") or {}
        if not isinstance(options, Mapping):
            raise RulesError("rules.options must be an object")
        return cls.parse(data.get("preset", "classic"), options)

    def overrides(self) -> dict[str, Any]:
        """The options that differ from the preset, by docs/rules.md name (JSON-ready)."""
        base = PRESETS[self.preset]
        result: dict[str, Any] = {}
        for field in fields(Options):
            value = getattr(self.options, field.name)
            if value != getattr(base, field.name):
                result[_NAME_OF[field.name]] = list(value) if isinstance(value, tuple) else value
        return result

    def to_dict(self) -> dict[str, Any]:
        return {"preset": self.preset, "options": self.overrides()}

    def effective(self) -> dict[str, Any]:
        """Every option's value, by docs/rules.md name (JSON-ready): the rules in full."""
        return {
            _NAME_OF[field.name]: _plain(getattr(self.options, field.name))
            for field in fields(Options)
        }

    def __str__(self) -> str:
        extra = ",".join(f"{name}={value}" for name, value in self.overrides().items())
        return f"{self.preset}({extra})" if extra else self.preset


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def parse_option_pairs(pairs: list[str]) -> dict[str, str]:
    """Turn command-line ``key=value`` strings into an overrides mapping."""
    overrides: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise RulesError(f"bad --option {pair!r}: expected key=value, e.g. deck=52")
        overrides[name.strip()] = value.strip()
    return overrides


def _check_consistent(options: Options) -> None:
    if (
        set(options.banned_ranks) >= set(RANKS[RANKS.index("6") :])
        and options.deck is Deck.CARDS_36
    ):
        raise RulesError("banned_ranks bans every rank of the 36-card deck")
    if set(options.banned_ranks) >= set(RANKS):
        raise RulesError("banned_ranks bans every rank")
