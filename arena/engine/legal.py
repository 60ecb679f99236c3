"""The legal actions of the seat to act, described rather than enumerated.

The subsets of a hand are exponential, so a play is described by the ranks it
may claim and its card-count limits; calls, pass and quartets are flags.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final, NamedTuple


class Phase(StrEnum):
    """What a deal waits for: a lead, a response to the live group, a continuation,
    the fours to discard, the final call on the last group, or nothing (over)."""

    LEAD = "lead"
    RESPOND = "respond"
    CONTINUE = "continue"
    QUARTETS = "quartets"
    FINAL_CALL = "final_call"
    OVER = "over"


class PlaySpec(NamedTuple):
    """A legal play: 1..``max_cards`` cards from the hand, claiming one of ``ranks``.

    With ``honest`` the claimed count must equal the cards placed; otherwise it
    may be any number from 1 to ``max_count`` (``max_play`` when the rules cap plays,
    else the cards in play).
    """

    ranks: tuple[str, ...]
    max_cards: int
    honest: bool
    max_count: int


class LegalActions(NamedTuple):
    seat: int
    phase: Phase
    play: PlaySpec | None
    challenge: bool
    believe: bool
    can_pass: bool
    #: in the ``quartets`` phase: the ranks whose complete fours may be discarded
    quartets: tuple[str, ...]

    @property
    def kinds(self) -> tuple[str, ...]:
        """The action kinds allowed, e.g. ``("play", "challenge", "believe")``."""
        return kinds_allowed(
            self.play is not None,
            self.challenge,
            self.believe,
            self.can_pass,
            self.phase == Phase.QUARTETS,
        )


def kinds_allowed(
    play: bool, challenge: bool, believe: bool, can_pass: bool, quartets: bool
) -> tuple[str, ...]:
    """The action kinds these flags allow, in the order of :attr:`LegalActions.kinds`."""
    return _KINDS[play | challenge << 1 | believe << 2 | can_pass << 3 | quartets << 4]


#: the kinds allowed by each combination of flags (bit i: ``_KIND_ORDER[i]`` allowed)
_KIND_ORDER = ("play", "challenge", "believe", "pass", "quartets")
_KINDS: Final = tuple(
    tuple(kind for bit, kind in enumerate(_KIND_ORDER) if flags >> bit & 1)
    for flags in range(1 << len(_KIND_ORDER))
)
