"""A person's seat: the referee asks, and waits for the person's answer (given through
:meth:`PersonSeat.answer`, by a web page or a script) under the seat's deadline.

The person is refereed like any bot: a late answer is a strike, an illegal action is
counted, and a person who leaves forfeits (:class:`~arena.referee.failures.SeatFailure`
of kind ``left``). The seat tells whoever waits on it when something changed.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any

from arena.engine import Action, LegalActions, Observation
from arena.engine.events import event_to_dict
from arena.referee.failures import FailureKind, SeatFailure, SeatTimeout
from arena.v1 import player_pb2 as pb


class NotAsked(Exception):
    """An answer when the referee is not waiting for one from this seat."""


@dataclass(frozen=True)
class Question:
    """What the referee asks the person: the seat's observation and the time allowed."""

    observation: Observation
    deal: int
    allowed: float
    #: when it was asked (time.monotonic())
    asked_at: float

    def seconds_left(self) -> float:
        return max(0.0, self.allowed - (time.monotonic() - self.asked_at))


class PersonSeat:
    def __init__(self, name: str) -> None:
        self.name = name
        #: the question waiting for the person's answer (None: not the person's turn)
        self.question: Question | None = None
        #: the observations of the deal in play, in order: the page shows their events
        self.seen: list[Observation] = []
        self.left = False
        self._answer: asyncio.Future[Action] | None = None
        self._changed = asyncio.Event()

    async def start(self, start: pb.MatchStart, timeout: float) -> None:
        return None

    async def decide(self, observation: Observation, deal: int, allowed: float) -> Action:
        if self.left:
            raise SeatFailure(FailureKind.LEFT, "left the table")
        if self.seen and self._deal != deal:
            self.seen = []
        self._deal = deal
        self.seen.append(observation)
        self._answer = asyncio.get_running_loop().create_future()
        self.question = Question(observation, deal, allowed, time.monotonic())
        self.notify()
        try:
            return await asyncio.wait_for(self._answer, allowed)
        except TimeoutError:
            raise SeatTimeout from None
        finally:
            self._answer, self.question = None, None

    def answer(self, action: Action) -> None:
        """The person's action; :class:`NotAsked` when it is not their turn."""
        if self._answer is None or self._answer.done():
            raise NotAsked("it is not your turn")
        self._answer.set_result(action)

    def leave(self) -> None:
        """The person leaves: the seat forfeits now, or at its next turn."""
        self.left = True
        if self._answer is not None and not self._answer.done():
            self._answer.set_exception(SeatFailure(FailureKind.LEFT, "left the table"))

    def notify(self) -> None:
        """Wake whoever waits on :meth:`watch`."""
        self._changed.set()
        self._changed = asyncio.Event()

    def watch(self) -> asyncio.Event:
        """An event set at the next change: the person asked, or the seat done with."""
        return self._changed

    async def end(self, end: pb.MatchEnd) -> None:
        return None

    async def close(self) -> None:
        return None

    _deal = 0


def observation_to_dict(observation: Observation) -> dict[str, Any]:
    """What the seat may know, as JSON: its hand, the public counts, the live group and
    the public events since it last decided (docs/match-log.md's event forms)."""
    live = observation.live
    return {
        "seat": observation.seat,
        "phase": str(observation.phase),
        "to_act": observation.to_act,
        "turn": observation.turn,
        "hand": list(observation.hand),
        "hand_sizes": list(observation.hand_sizes),
        "stock_size": observation.stock_size,
        "pile_size": observation.pile_size,
        "discard_size": observation.discard_size,
        "round_rank": observation.round_rank,
        "live": None if live is None else live._asdict(),
        "active": list(observation.active),
        "exits": list(observation.exits),
        "events": [event_to_dict(event) for event in observation.events],
    }


def legal_to_list(legal: LegalActions | None) -> list[dict[str, Any]]:
    """The legal actions as the match log's action forms, a play described by what it
    may hold (its cards are any 1 to ``max_cards`` of the hand) rather than listed."""
    if legal is None:
        return []
    found: list[dict[str, Any]] = []
    if legal.play is not None:
        play = legal.play
        found.append(
            {
                "do": "play",
                "ranks": list(play.ranks),
                "max_cards": play.max_cards,
                "honest": play.honest,
                "max_count": play.max_count,
            }
        )
    found += [{"do": kind} for kind in ("challenge", "believe") if getattr(legal, kind)]
    if legal.can_pass:
        found.append({"do": "pass"})
    if legal.phase == "quartets":
        found.append({"do": "quartets", "ranks": list(legal.quartets)})
    return found
