"""What each bot did to each other bot at the table, counted as a match goes.

Two kinds of chance are counted, by ordered pair of seats and by situation (a
*stratum*, so that a test compares like with like):

- ``calls``: a responder may challenge the live group an author just played (its turn,
  in the ``respond`` phase, a challenge allowed): the chance, and whether it challenged.
  Situation: whether the group was true (the referee knows every card); how likely it
  is true to the responder, from what it sees (provably false, or steps of the SDK's
  estimate: the author's record of revealed groups in the match, else a blind draw of
  the right cards from those the responder cannot see); the claimed count; the pile's
  size; the author's hand after the play (a bot about to go out is challenged more by
  anyone); and the responder's own record of calls in the match (an author may rightly
  lie where it is least often called).
- ``plays``: an author plays with a responder next: the play, and whether it lied (the
  cards placed are not all of the claimed rank, or their count is not the claimed one).
  Situation: the phase (a lead chooses its rank), how many of the due rank the author
  held, its hand's size, and the responder's record of calls.

Pure: the engine's deal state in, counts out. The referee (and the fair-play bench)
calls :meth:`FairPlayCounter.before` with the deal and the legal actions as the seat is
asked, and
:meth:`FairPlayCounter.after` once its action is carried out. An illegal action,
a timeout or a forfeit counts as nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from math import comb

from arena.engine import JOKER, RANK_OF, Action, Deal, LegalActions, Phase, Play
from arena.engine.cards import truthful as cards_truthful
from arena.engine.events import Called, CallKind, Discarded, Event, Illegal, Revealed
from arena.fairplay import strata

_RESPOND, _LEAD = Phase.RESPOND, Phase.LEAD
_PLAYING = frozenset({Phase.LEAD, Phase.RESPOND, Phase.CONTINUE})
#: the SDK's estimate that a group is true cut in steps: fifths for a false group, tenths
#: for a true one. An author's true groups are rare when it lies a lot, and its record
#: puts them low within a fifth: a bot that reads records (``counter``) challenged them
#: more than the rest of a fifth, and honest pairs were named as feeding (3 reports in 72,
#: arena bench fairplay; none in tenths). Lies are judged where the field challenges
#: them, mostly provably false: finer steps there only split the evidence.
STEPS = (5, 10)
_PHASE_CODES = {Phase.RESPOND: 1, Phase.CONTINUE: 2}


class Chance(StrEnum):
    CALLS = "calls"  # the responder's chance to challenge the author's group: challenged?
    PLAYS = "plays"  # the author's play with the responder next: a lie?
    #: a match's places: a version's own (stratum: its place) and a pair's ("A-B", the
    #: lower version id first), counted by the recorder
    PLACES = "places"
    #: a pair (lower id first) sat with a third bot (stratum: its id): for the outcome
    #: test's expected places
    TABLES = "tables"


@dataclass(frozen=True, slots=True)
class Tally:
    """Chances of one kind between two seats in one situation, and how many were taken;
    summed over matches (arena.store.fairplay), between two bot versions. For places a
    chance is a match, its stratum the place (``actor`` == ``other``) or the pair's two
    places ("2-1")."""

    chance: str
    #: the seat (version) that decided: the responder for calls, the author for plays
    actor: int
    #: the seat (version) it decided about: the author for calls, the responder for plays
    other: int
    stratum: str
    chances: int
    taken: int


class FairPlayCounter:
    """Counts the chances of a match, seat by seat."""

    def __init__(self) -> None:
        #: (chance, actor, other, stratum) -> [chances, taken]; the stratum is packed in
        #: an int while counting (cheaper at every decision), text in tallies
        self._counts: dict[tuple[Chance, int, int, int], list[int]] = {}
        self._pending: tuple[Chance, int, int, int] | None = None
        #: each author's groups revealed by a call in this match, and how many were true
        self._revealed: Counter[int] = Counter()
        self._true: Counter[int] = Counter()
        #: each seat's calls in this match, and how many were challenges
        self._calls: Counter[int] = Counter()
        self._challenges: Counter[int] = Counter()
        #: the deal being counted, its deck's copies per rank, the ranks seen leaving play
        self._deal: Deal | None = None
        self._copies: Counter[str] = Counter()
        self._jokers = 0
        self._gone: Counter[str] = Counter()

    def before(self, deal: Deal, seat: int, legal: LegalActions | None) -> None:
        """The seat to act is asked (``legal``: its legal actions): note its situation."""
        self._pending = None
        if deal is not self._deal:
            self._new_deal(deal)
        phase = deal.phase
        if legal is None or seat != deal.to_act or phase not in _PLAYING:
            return
        hand = deal.hands[seat]
        if phase is _RESPOND and deal.live and legal.challenge:
            group = deal.pile[-1]
            self._pending = (Chance.CALLS, seat, group.author, self._call_stratum(deal, hand))
            return
        # a play may follow: its situation is the phase, the due rank held, the hand
        if phase is _LEAD:
            stratum = _hand_size(len(hand))  # phase code 0
        elif legal.play is None:
            return
        else:
            held, _ = _held(hand, legal.play.ranks[0])
            stratum = _hand_size(len(hand)) | min(held, 2) << 2 | _PHASE_CODES[phase] << 4
        self._pending = (Chance.PLAYS, seat, -1, stratum)

    def _call_stratum(self, deal: Deal, hand: Sequence[str]) -> int:
        """The situation packed in bits (a dictionary key costs less as one number):
        true; how likely the group is true to the responder (:meth:`_plausibility`);
        claimed count; pile; author's hand; the responder's record of calls."""
        author, cards, rank, count, _ = deal.pile[-1]
        truthful = int(cards_truthful(cards, rank, count))
        pile = deal.pile_count
        left = len(deal.hands[author])
        return (
            truthful
            | self._plausibility(deal, hand, author, len(cards), rank, count, STEPS[truthful]) << 1
            | min(count, 3) << 5
            | (0 if pile <= 2 else 1 if pile <= 6 else 2) << 7
            | (0 if left == 0 else 1 if left <= 3 else 2) << 9
            | self._wariness(deal.to_act) << 11
        )

    def _plausibility(
        self,
        deal: Deal,
        hand: Sequence[str],
        author: int,
        placed: int,
        rank: str,
        count: int,
        steps: int,
    ) -> int:
        """How likely the group is true from what the responder sees: 0 provably false
        (a count that differs from the cards placed, or more cards of the rank than its
        hand and the cards shown leaving play leave possible), else 1 to ``steps`` by steps of the
        SDK's estimate (``CardTracker.probability_true``: the author's record of revealed
        groups, or a blind draw of the right cards from those the responder cannot see)."""
        held, jokers = _held(hand, rank)
        gone = self._gone
        good = self._copies[rank] + self._jokers - gone[rank] - gone[JOKER] - held - jokers
        if placed != count or placed > good:
            return 0
        unseen = max(1, len(deal.game.deck) - len(hand) - sum(gone.values()))
        blind = comb(good, placed) / comb(max(unseen, good), placed)
        honest = (self._true[author] + 1) / (self._revealed[author] + 2)
        return 1 + min(steps - 1, int((honest + (1 - honest) * blind) * steps))

    def after(self, deal: Deal, seat: int, action: Action, events: Sequence[Event]) -> None:
        """The seat's action was carried out, causing ``events``."""
        pending, self._pending = self._pending, None
        if self._see(events) or pending is None or pending[1] != seat:
            return  # an illegal action (the engine refused it) counts as nothing
        chance, actor, other, stratum = pending
        if chance is Chance.CALLS:
            self._add(chance, actor, other, stratum, action.kind == "challenge")
        elif isinstance(action, Play):
            responder = deal.to_act
            if responder is None or responder == seat or deal.phase is not _RESPOND:
                return  # nobody responds to it (the deal ended, or the author went out)
            lie = not cards_truthful(action.cards, action.rank, action.count)
            self._add(chance, actor, responder, stratum | self._wariness(responder) << 6, lie)

    def _new_deal(self, deal: Deal) -> None:
        self._deal = deal
        self._copies = Counter(_rank(card) for card in deal.game.deck)
        self._jokers = self._copies[JOKER]
        self._gone = Counter()
        self._see(deal.events)  # the deal's opening: fours discarded at the deal

    def _see(self, events: Sequence[Event]) -> bool:
        """What the table saw: called groups revealed, cards shown leaving play; whether
        the events hold an illegal action."""
        illegal = False
        for event in events:
            if isinstance(event, Revealed):
                self._revealed[event.author] += 1
                self._true[event.author] += event.truthful
            elif isinstance(event, Called):
                self._calls[event.seat] += 1
                self._challenges[event.seat] += event.call is CallKind.CHALLENGE
            elif isinstance(event, Discarded):
                self._gone.update(_rank(card) for card in event.cards)
            elif isinstance(event, Illegal):
                illegal = True
        return illegal

    def _wariness(self, responder: int | None) -> int:
        """The responder's public record of calls: 0 none yet, 1 mostly believes, 2
        mixed, 3 mostly challenges (an author may rightly lie where it is least called)."""
        calls = self._calls[responder] if responder is not None else 0
        if not calls:
            return 0
        share = (self._challenges[responder] + 1) / (calls + 2)  # type: ignore[index]
        return 1 if share < 0.4 else 2 if share <= 0.7 else 3

    def _add(self, chance: Chance, actor: int, other: int, stratum: int, taken: bool) -> None:
        key = (chance, actor, other, stratum)
        tally = self._counts.get(key)
        if tally is None:
            self._counts[key] = [1, int(taken)]
        else:
            tally[0] += 1
            tally[1] += taken

    def tallies(self) -> list[Tally]:
        """What the match counted, in a stable order."""
        counted = [
            Tally(chance, actor, other, strata.text(chance, stratum), chances, taken)
            for (chance, actor, other, stratum), (chances, taken) in self._counts.items()
        ]
        return sorted(counted, key=lambda t: (t.chance, t.actor, t.other, t.stratum))


def _rank(card: str) -> str:
    return JOKER if card == JOKER else RANK_OF[card]


def _held(hand: Sequence[str], rank: str) -> tuple[int, int]:
    """How many cards of ``rank``, and how many jokers, a hand holds."""
    held = jokers = 0
    for card in hand:
        if card == JOKER:
            jokers += 1
        elif card[0] == rank:
            held += 1
    return held, jokers


def _hand_size(cards: int) -> int:
    return 0 if cards == 0 else 1 if cards <= 3 else 2


def match_tallies(
    versions: Sequence[int], places: Sequence[int], tallies: Sequence[Tally]
) -> list[Tally]:
    """What one match adds to a tournament's totals, by bot version: the referee's
    tallies (``versions`` by seat; a version facing itself is left out), each version's
    place, each pair's two places, and which third bots each pair sat with."""
    added = [
        Tally(t.chance, versions[t.actor], versions[t.other], t.stratum, t.chances, t.taken)
        for t in tallies
        if versions[t.actor] != versions[t.other]
    ]
    seated = sorted(zip(versions, places, strict=True))
    for version, place in seated:
        added.append(Tally(Chance.PLACES, version, version, str(place), 1, 0))
    for i, (low, low_place) in enumerate(seated):
        for high, high_place in seated[i + 1 :]:
            if low == high:
                continue
            added.append(Tally(Chance.PLACES, low, high, f"{low_place}-{high_place}", 1, 0))
            for third, _ in seated:
                if third not in (low, high):
                    added.append(Tally(Chance.TABLES, low, high, str(third), 1, 0))
    return added
