"""The formats, by registered name: each is one module (a ``Format`` subclass) and one
``register`` line here. A format registered elsewhere (a test's) is one line too:
``formats.register(Gauntlet())``."""

from __future__ import annotations

from collections.abc import Callable

from arena.tournament.formats.abtest import AbTest
from arena.tournament.formats.base import Format
from arena.tournament.formats.knockout import Knockout
from arena.tournament.formats.ladder import Ladder
from arena.tournament.formats.qualification import Qualification
from arena.tournament.formats.round_robin import RoundRobin
from arena.tournament.formats.rounds import InRounds
from arena.tournament.formats.scrimmage import Scrimmage
from arena.tournament.formats.swiss import Swiss

#: every registered format by name
FORMATS: dict[str, Format] = {}


class UnknownFormat(ValueError):
    """A name no format is registered under."""


def register(format: Format) -> Format:
    """Register ``format`` under its name (once)."""
    if format.name in FORMATS and FORMATS[format.name] is not format:
        raise ValueError(f"a format named {format.name!r} is registered already")
    FORMATS[format.name] = format
    return format


def unregister(name: str) -> None:
    """Forget the format registered as ``name`` (a test's, once it is over)."""
    FORMATS.pop(name, None)


def named(name: str) -> Format:
    """The format registered as ``name`` (``UnknownFormat`` says which there are)."""
    found = FORMATS.get(name)
    if found is None:
        raise UnknownFormat(f"unknown format {name!r}: expected {' or '.join(creatable())}")
    return found


def having(test: Callable[[Format], bool]) -> tuple[str, ...]:
    """The names of the registered formats that pass ``test`` (as the store filters by)."""
    return tuple(name for name, format in FORMATS.items() if test(format))


def self_scheduling() -> tuple[str, ...]:
    """The formats that seat their matches as they play (a refill after each record)."""
    return having(lambda format: format.self_scheduling)


def self_ending() -> tuple[str, ...]:
    """Of those, the ones that end by themselves (a ladder plays until stopped)."""
    return having(lambda format: format.self_ending)


def creatable() -> tuple[str, ...]:
    """The formats ``arena tournament create`` (and the API) make."""
    return having(lambda format: format.made_by is None)


def described() -> str:
    """The formats a tournament is created as, with how each plays (the CLI's help)."""
    return "; ".join(f"{name} ({named(name).usage})" for name in creatable()) + "."


def in_rounds(name: str) -> InRounds:
    """The format played in rounds registered as ``name``."""
    found = named(name)
    if not isinstance(found, InRounds):
        raise UnknownFormat(f"{name!r} is not played in rounds")
    return found


ROUND_ROBIN = register(RoundRobin())
LADDER = register(Ladder())
SWISS = register(Swiss())
KNOCKOUT = register(Knockout())
ABTEST = register(AbTest())
QUALIFICATION = register(Qualification())
SCRIMMAGE = register(Scrimmage())
#: a tournament's format unless the request says
DEFAULT = ROUND_ROBIN
