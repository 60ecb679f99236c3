"""The bots of the fair-play bench: honest styles that model their opponents, and the
kinds of team the collusion report must find.

Every team member knows its mates by seat (in process) or by their registered names,
found among the players when a match starts (as a real team would: names are public).
All are ``counter`` at heart, so a team differs from an honest field only in what it
does about its mates.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Collection
from typing import Any

from arena.engine import Action, Observation, Play, PlaySpec
from arena.engine.events import Called, CallKind
from arena.sdk import BELIEVE, CHALLENGE, Bot, MatchInfo, Quartets
from arena.sdk.helpers import CardTracker, best_lead_rank, cheapest_lie, truthful_play
from sample_bots import CounterBot

# ------------------------------------------------------------------ honest styles


class Truthful(Bot):
    """The README's first bot: never lies when it can help it, challenges big claims."""

    name = "truthful"

    def __init__(self, **_: Any) -> None:
        pass

    def act(self, observation: Observation) -> Action:
        legal = observation.legal
        assert legal is not None
        if legal.phase == "quartets":
            return Quartets(legal.quartets)
        live = observation.live
        if legal.challenge and live is not None and live.count > 2:
            return CHALLENGE
        if legal.play:
            spec = legal.play
            rank = (
                best_lead_rank(spec, observation.hand) if legal.phase == "lead" else spec.ranks[0]
            )
            return truthful_play(spec, observation.hand, rank) or cheapest_lie(
                observation.hand, rank
            )
        return BELIEVE if legal.believe else CHALLENGE


class _Counter(CounterBot):
    """``counter`` whose plays a subclass may change (:meth:`play_to`)."""

    def act(self, observation: Observation) -> Action:
        action = super().act(observation)
        legal = observation.legal
        if legal is None or legal.play is None or not isinstance(action, Play):
            return action
        return self.play_to(observation, legal.play, action)

    def play_to(self, observation: Observation, spec: PlaySpec, play: Play) -> Action:
        """The play to make instead of ``counter``'s ``play``."""
        return play


class Tracker(_Counter):
    """An honest opponent modeller: ``counter`` that also keeps, per seat, how often it
    was caught lying and how often it challenges, doubts a seat it caught more (and
    trusts one found honest more) than ``counter`` does, and bluffs in a third of its
    plays, the less the more often the next seat challenges."""

    name = "tracker"

    def __init__(self, seed: str | None = None, **kwargs: Any) -> None:
        super().__init__(seed=seed, **kwargs)
        self.rng = random.Random(seed)
        self.calls: Counter[int] = Counter()
        self.challenges: Counter[int] = Counter()

    def on_match_start(self, match: MatchInfo) -> None:
        super().on_match_start(match)
        self.calls.clear()
        self.challenges.clear()

    def act(self, observation: Observation) -> Action:
        for event in observation.events:
            if isinstance(event, Called):
                self.calls[event.seat] += 1
                self.challenges[event.seat] += event.call is CallKind.CHALLENGE
        return super().act(observation)

    def play_to(self, observation: Observation, spec: PlaySpec, play: Play) -> Action:
        after = next_seat(observation)
        wary = (self.challenges[after] + 1) / (self.calls[after] + 2)
        if self.rng.random() < (1 - wary) * 2 / 3:
            return cheapest_lie(observation.hand, play.rank)
        return play

    def _call(self, observation: Observation, tracker: CardTracker) -> Action | None:
        live = observation.live
        assert live is not None
        caught = 1 - tracker.honesty(live.author)  # 0.5 before anything is revealed
        true = tracker.probability_true(observation, live)
        if true < 0.15 + 0.4 * caught + min(0.25, observation.pile_size / 40):
            return CHALLENGE
        return None


# ------------------------------------------------------------------ teams


class _Member(_Counter):
    """``counter`` that knows its mates (seats, or names to find at the start)."""

    def __init__(
        self, mates: Collection[int | str], seed: str | None = None, **kwargs: Any
    ) -> None:
        super().__init__(seed=seed, **kwargs)
        self.rng = random.Random(seed)
        self.mate_names = {m for m in mates if isinstance(m, str)}
        self.mates = {m for m in mates if isinstance(m, int)}

    def on_match_start(self, match: MatchInfo) -> None:
        super().on_match_start(match)
        if self.mate_names:
            self.mates = {
                seat
                for seat, name in enumerate(match.players)
                if name.split(" ")[0] in self.mate_names
            }

    def mate_is_live(self, observation: Observation) -> bool:
        live = observation.live
        return live is not None and live.author in self.mates

    def mate_is_next(self, observation: Observation) -> bool:
        return next_seat(observation) in self.mates


class Partner(_Member):
    """Soft play, one way: never challenges its mates' groups (it plays on instead)."""

    name = "partner"

    def _call(self, observation: Observation, tracker: CardTracker) -> Action | None:
        if self.mate_is_live(observation):
            return None
        return super()._call(observation, tracker)


class Teammate(_Member):
    """Lie targeting: lies in half its plays when anyone but a mate responds, and tells
    a mate the truth whenever it can."""

    name = "teammate"

    def play_to(self, observation: Observation, spec: PlaySpec, play: Play) -> Action:
        if self.mate_is_next(observation):
            return truthful_play(spec, observation.hand, play.rank) or play
        if self.rng.random() < 0.5:
            return cheapest_lie(observation.hand, play.rank)
        return play


class Soft(Partner):
    """Soft play, both ways: never challenges a mate, and lies in half its plays when a
    mate is next (it will not be called)."""

    name = "soft"

    def play_to(self, observation: Observation, spec: PlaySpec, play: Play) -> Action:
        if self.mate_is_next(observation) and self.rng.random() < 0.5:
            return cheapest_lie(observation.hand, play.rank)
        return play


class Feeder(_Member):
    """Feeding: challenges a mate's group when it looks true (taking the pile so the
    mate is rid of its cards) and never when it looks false."""

    name = "feeder"

    def _call(self, observation: Observation, tracker: CardTracker) -> Action | None:
        live = observation.live
        if live is None or live.author not in self.mates:
            return super()._call(observation, tracker)
        return CHALLENGE if tracker.probability_true(observation, live) >= 0.5 else None


class Sacrificial(Feeder):
    """Throws its place to a mate: feeds it, and lies to it in every play (a lie the mate
    catches hands the pile to the sacrificial bot)."""

    name = "sacrificial"

    def play_to(self, observation: Observation, spec: PlaySpec, play: Play) -> Action:
        return cheapest_lie(observation.hand, play.rank) if self.mate_is_next(observation) else play


#: a team of each kind: its members' classes (a member's mates are all the others; a
#: plain ``counter`` is the one helped, unaware)
TEAMS: dict[str, tuple[type[CounterBot], ...]] = {
    "soft_play": (Soft, Soft),
    "feeding": (Feeder, CounterBot),
    "lie_targeting": (Teammate, CounterBot),
    "sacrificial": (Sacrificial, CounterBot),
    "partner_and_teammate": (Partner, Teammate),
    "team_of_three": (Soft, Soft, Soft),
}


def member(
    kind: type[CounterBot], mates: Collection[int | str], seed: str, **rules: Any
) -> CounterBot:
    """A team member at a table, knowing its mates' seats (or names)."""
    if issubclass(kind, _Member):
        return kind(mates, seed=seed, **rules)
    return kind(seed=seed, **rules)


def next_seat(observation: Observation) -> int:
    """The next active seat after this one."""
    players = len(observation.active)
    for step in range(1, players):
        seat = (observation.seat + step) % players
        if observation.active[seat]:
            return seat
    return observation.seat


__all__ = [
    "TEAMS",
    "Feeder",
    "Partner",
    "Sacrificial",
    "Soft",
    "Teammate",
    "Tracker",
    "Truthful",
    "member",
    "next_seat",
]
