"""Rulesets: a preset plus option overrides, validated, as in ``docs/rules.md``.

Every option is declared once in :data:`OPTIONS` with its parser; presets are
plain data. A :class:`Ruleset` is immutable and round-trips through
``{"preset": ..., "options": {...}}``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from arena.engine.cards import RANKS, CardError, parse_rank


class RulesError(ValueError):
    """An unknown preset or option, or a bad option value."""


# --- value parsers: each takes a JSON or command-line value and returns the canonical one ---


def _choice(*allowed: str) -> Callable[[Any], str]:
    def parse(value: Any) -> str:
        text = str(value).strip().lower()
        if text not in allowed:
            raise RulesError(f"expected one of {', '.join(allowed)}, got {value!r}")
        return text

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


def _deck(value: Any) -> str:
    return _choice("36", "52", "auto")(value)


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

    deck: str
    decks: int | str
    jokers: int
    hidden_card: bool
    hand_size: int | None
    first_player: str
    max_play: int | str | None
    count: str
    believe: str
    reveal: str
    protect_single_lead: bool
    allow_pass: bool
    after_pickup: str
    calls: str
    sequence: str
    banned_ranks: tuple[str, ...]
    quartets: str
    quartet_exempt: tuple[str, ...]
    final_call: bool
    end: str
    deals: int
    next_dealer: str
    max_turns: int


#: option name (as in docs/rules.md) -> (attribute of :class:`Options`, parser)
OPTIONS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "deck": ("deck", _deck),
    "decks": ("decks", _decks),
    "jokers": ("jokers", _jokers),
    "hidden_card": ("hidden_card", _boolean),
    "hand_size": ("hand_size", _hand_size),
    "first_player": ("first_player", _choice("left_of_dealer", "dealer")),
    "max_play": ("max_play", _max_play),
    "count": ("count", _choice("free", "honest")),
    "believe": ("believe", _choice("none", "group", "table")),
    "reveal": ("reveal", _choice("group", "one")),
    "protect_single_lead": ("protect_single_lead", _boolean),
    "pass": ("allow_pass", _boolean),
    "after_pickup": ("after_pickup", _choice("new_round", "keep_value")),
    "calls": ("calls", _choice("next", "open")),
    "sequence": ("sequence", _choice("fixed", "ascending")),
    "banned_ranks": ("banned_ranks", _ranks),
    "quartets": ("quartets", _choice("none", "after_pickup", "always")),
    "quartet_exempt": ("quartet_exempt", _ranks),
    "final_call": ("final_call", _boolean),
    "end": ("end", _choice("last_loser", "first_out")),
    "deals": ("deals", lambda value: _integer(value, 1)),
    "next_dealer": ("next_dealer", _choice("rotate", "loser")),
    "max_turns": ("max_turns", lambda value: _integer(value, 1)),
}
_NAME_OF = {attribute: name for name, (attribute, _) in OPTIONS.items()}

CLASSIC = Options(
    deck="36", decks="auto", jokers=0, hidden_card=False, hand_size=None,
    first_player="left_of_dealer", max_play=None, count="free", believe="group",
    reveal="group", protect_single_lead=False, allow_pass=False, after_pickup="new_round",
    calls="next", sequence="fixed", banned_ranks=(), quartets="none", quartet_exempt=(),
    final_call=False, end="last_loser", deals=1, next_dealer="rotate", max_turns=2000,
)  # fmt: skip

PRESETS: dict[str, Options] = {
    "classic": CLASSIC,
    "pagat": replace(
        CLASSIC,
        deck="auto",
        decks=1,
        hidden_card=True,
        max_play=3,
        count="honest",
        believe="none",
        quartets="after_pickup",
    ),  # fmt: skip
    "russian": replace(
        CLASSIC,
        decks=1,
        first_player="dealer",
        max_play="possible",
        count="honest",
        believe="table",
        protect_single_lead=True,
        next_dealer="loser",
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
    if set(options.banned_ranks) >= set(RANKS[RANKS.index("6") :]) and options.deck == "36":
        raise RulesError("banned_ranks bans every rank of the 36-card deck")
    if set(options.banned_ranks) >= set(RANKS):
        raise RulesError("banned_ranks bans every rank")
