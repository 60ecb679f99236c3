"""The game as small discrete decisions and fixed-size vectors (docs/learning.md).

A play is a subset of a hand: far too many to number. Here a turn is a few
sub-decisions instead: add a card of a rank to the play (as often as the play may
hold), then claim a rank, then (with free counts) claim a count; a call or a pass
is one decision, and so is each rank of fours discarded in the ``quartets`` phase
(then ``DONE``). :class:`Turn` carries a seat's sub-decisions until they make one
engine action; :func:`mask` says which of the :data:`ACTIONS` are legal at each one.

:func:`observe` is one seat's view as a vector: what :class:`~arena.engine.Observation`
says (never another hand), seats counted from the observer clockwise, plus the
turn under way and a window of the public history. Pure: no NumPy state, no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from arena.engine import (
    BELIEVE,
    CHALLENGE,
    JOKER,
    PASS,
    RANK_OF,
    RANKS,
    Action,
    Deal,
    Game,
    LegalActions,
    Observation,
    Play,
    Quartets,
)
from arena.engine.events import Called, CallKind, Left, Passed, PickedUp, Played, Revealed

#: the ranks a card may have: the thirteen, then the joker
CARD_RANKS: tuple[str, ...] = (*RANKS, JOKER)
#: actions ``ADD + i``: put one more card of rank ``CARD_RANKS[i]`` into the play
ADD = 0
#: actions ``CLAIM + i``: claim rank ``RANKS[i]`` (a play), or name it (quartets)
CLAIM = ADD + len(CARD_RANKS)
#: actions ``COUNT + k - 1``: claim ``k`` cards (free counts only), k = 1..MAX_COUNT
COUNT = CLAIM + len(RANKS)
#: the highest count an agent may claim here (the rules may allow more: never wise)
MAX_COUNT = 12
CHALLENGE_ACTION = COUNT + MAX_COUNT
BELIEVE_ACTION = CHALLENGE_ACTION + 1
PASS_ACTION = BELIEVE_ACTION + 1
#: end the ``quartets`` answer with the ranks named so far
DONE = PASS_ACTION + 1
ACTIONS = DONE + 1

PHASES = ("lead", "respond", "continue", "quartets", "final_call", "over")
#: where a seat's turn stands: choosing (cards, a call, a pass), claiming a count,
#: naming fours, or not its turn
STAGES = ("choose", "count", "quartets", "waiting")
#: the public events kept in the history window, newest first
HISTORY = 8
EVENT_KINDS = ("played", "challenge", "believe", "true", "false", "picked_up", "passed", "left")

_RANK_INDEX = {rank: i for i, rank in enumerate(CARD_RANKS)}


@dataclass
class Turn:
    """One seat's sub-decisions so far in the decision it is making."""

    cards: list[str] = field(default_factory=list)
    claim: str | None = None
    quartets: list[str] = field(default_factory=list)


def decision(deal: Deal) -> tuple[LegalActions | None, Sequence[str]]:
    """What :func:`mask` and :func:`advance` need of a deal: the legal actions of the
    seat to act, and its hand (a bot has both in its observation)."""
    seat = deal.to_act
    return deal.legal(), deal.hands[seat] if seat is not None else ()


def mask(legal: LegalActions | None, hand: Sequence[str], turn: Turn) -> np.ndarray:
    """The legal :data:`ACTIONS` of the seat to act, given its turn so far (int8)."""
    allowed = np.zeros(ACTIONS, dtype=np.int8)
    if legal is None:
        return allowed
    if legal.phase == "quartets":
        for rank in legal.quartets:
            if rank not in turn.quartets:
                allowed[CLAIM + _RANK_INDEX[rank]] = 1
        allowed[DONE] = 1
        return allowed
    spec = legal.play
    if turn.claim is not None:
        assert spec is not None
        allowed[COUNT : COUNT + min(MAX_COUNT, spec.max_count)] = 1
        return allowed
    if spec is not None and len(turn.cards) < spec.max_cards:
        for rank in _ranks_left(hand, turn.cards):
            allowed[ADD + _RANK_INDEX[rank]] = 1
    if turn.cards:
        for rank in spec.ranks if spec else ():
            allowed[CLAIM + _RANK_INDEX[rank]] = 1
        return allowed
    allowed[CHALLENGE_ACTION] = legal.challenge
    allowed[BELIEVE_ACTION] = legal.believe
    allowed[PASS_ACTION] = legal.can_pass
    return allowed


def _ranks_left(hand: Sequence[str], chosen: Sequence[str]) -> set[str]:
    if not chosen:
        return {RANK_OF[card] for card in hand}
    left = list(hand)
    for card in chosen:
        left.remove(card)
    return {RANK_OF[card] for card in left}


def advance(
    legal: LegalActions | None, hand: Sequence[str], turn: Turn, action: int
) -> Action | None:
    """Take sub-decision ``action`` (legal by :func:`mask`) into ``turn``; the engine
    action once the decision is complete, else None."""
    assert legal is not None, "no seat is to act"
    if legal.phase == "quartets":
        if action == DONE:
            return Quartets(tuple(turn.quartets))
        turn.quartets.append(RANKS[action - CLAIM])
        return Quartets(tuple(turn.quartets)) if len(turn.quartets) == len(legal.quartets) else None
    if action == CHALLENGE_ACTION:
        return CHALLENGE
    if action == BELIEVE_ACTION:
        return BELIEVE
    if action == PASS_ACTION:
        return PASS
    spec = legal.play
    assert spec is not None, f"action {action}: no play is legal"
    if action < CLAIM:
        turn.cards.append(_next_card(hand, turn.cards, CARD_RANKS[action]))
        return None
    if action < COUNT:
        rank = RANKS[action - CLAIM]
        if spec.honest:
            return Play(tuple(turn.cards), rank, len(turn.cards))
        turn.claim = rank
        return None
    return Play(tuple(turn.cards), turn.claim or "", action - COUNT + 1)


def steps_for(action: Action, legal: LegalActions) -> list[int]:
    """The sub-decisions that make the engine ``action`` (for imitating a bot): a play's
    cards by rank, its rank, and with free counts its count (at most ``MAX_COUNT``)."""
    if isinstance(action, Play):
        steps = [ADD + _CARD_INDEX[card] for card in action.cards]
        steps.append(CLAIM + _RANK_INDEX[action.rank])
        if legal.play is not None and not legal.play.honest:
            steps.append(COUNT + min(action.count, MAX_COUNT) - 1)
        return steps
    if isinstance(action, Quartets):
        ranks = [CLAIM + _RANK_INDEX[rank] for rank in action.ranks]
        return ranks if len(action.ranks) == len(legal.quartets) else [*ranks, DONE]
    return [
        {"challenge": CHALLENGE_ACTION, "believe": BELIEVE_ACTION, "pass": PASS_ACTION}[action.kind]
    ]


def _next_card(hand: Sequence[str], chosen: Sequence[str], rank: str) -> str:
    """The first card of ``rank`` in the hand not chosen yet (suits never matter)."""
    taken = list(chosen)
    for card in hand:
        if RANK_OF[card] == rank:
            if card in taken:
                taken.remove(card)
            else:
                return card
    raise ValueError(f"no more cards of rank {rank} in the hand")


#: seats the vector has room for whatever the table: a policy learned at one table size
#: plays at any other up to this many (a larger table widens the vector)
SEAT_SLOTS = 6


class Layout:
    """Where each part of the observation vector starts, for ``players`` seats and
    ``copies`` cards that make a claimed rank true (four a deck, and the jokers). Seats
    take ``max(players, SEAT_SLOTS)`` places, counted from the observer."""

    def __init__(self, players: int, copies: int = 4) -> None:
        self.players = players
        self.slots = p = max(players, SEAT_SLOTS)
        self.copies = copies
        self.event_width = len(EVENT_KINDS) + p + 2 + len(RANKS)
        #: the parts in order with their lengths (docs/learning.md)
        self.parts = {
            "hand": len(CARD_RANKS),
            "turn_cards": len(CARD_RANKS),
            "turn_claim": len(RANKS),
            "turn_quartets": len(RANKS),
            "stage": len(STAGES),
            "phase": len(PHASES),
            "to_act": p,
            "hand_sizes": p,
            "active": p,
            "sizes": 3,
            "round_rank": len(RANKS),
            "live": 7 + p,
            "history": HISTORY * self.event_width,
        }
        self.offsets: dict[str, int] = {}
        at = 0
        for name, length in self.parts.items():
            self.offsets[name] = at
            at += length
        self.size = at
        # read on every observation: plain attributes
        o = self.offsets
        self.at_hand, self.at_turn_cards, self.at_turn_claim = (
            o["hand"],
            o["turn_cards"],
            o["turn_claim"],
        )
        self.at_turn_quartets, self.at_stage, self.at_phase = (
            o["turn_quartets"],
            o["stage"],
            o["phase"],
        )
        self.at_to_act, self.at_hand_sizes, self.at_active = (
            o["to_act"],
            o["hand_sizes"],
            o["active"],
        )
        self.at_sizes, self.at_round_rank, self.at_live, self.at_history = (
            o["sizes"],
            o["round_rank"],
            o["live"],
            o["history"],
        )

    @classmethod
    def of(cls, game: Game) -> Layout:
        return cls(game.players, 4 * game.decks + game.options.jokers)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Layout) and (other.players, other.copies) == (
            self.players,
            self.copies,
        )

    def __hash__(self) -> int:
        return hash((self.players, self.copies))


class History:
    """The public events of the deal being played, encoded as they come: an environment
    keeps one, so each step encodes only the events that step made."""

    def __init__(self) -> None:
        self.deal: Deal | None = None
        self.seen = 0
        self.encoded: list[tuple[int, int, int, int, str | None]] = []

    def of(self, deal: Deal) -> list[tuple[int, int, int, int, str | None]]:
        if deal is not self.deal:
            self.deal, self.seen, self.encoded = deal, 0, []
        events = deal.events
        for event in events[self.seen :]:
            encode = _ENCODERS.get(type(event))
            if encode is not None:
                self.encoded.append(encode(event))
        self.seen = len(events)
        return self.encoded


def observe(
    deal: Deal, seat: int, turn: Turn | None, layout: Layout, history: History | None = None
) -> np.ndarray:
    """Seat ``seat``'s view of ``deal`` as a float32 vector (``turn``: its decision under
    way, or None when it is not its turn; ``history``: the deal's events encoded so far,
    kept by the caller, else encoded here)."""
    vector = state_vector(deal, seat, layout, history)
    add_turn(vector, layout, deal.phase, turn)
    return vector


def state_vector(
    deal: Deal, seat: int, layout: Layout, history: History | None = None
) -> np.ndarray:
    """The part of :func:`observe` that the deal's state alone decides (all but the turn
    under way and the stage): the same for every sub-decision of one decision, so an
    environment computes it once per engine step and completes copies with
    :func:`add_turn`."""
    live = None
    if deal.live:
        group = deal.pile[-1]
        live = (group.author, len(group.cards), group.rank, group.count, group.opening)
    return _state_vector(
        layout,
        seat,
        deal.hands[seat],
        deal.phase,
        deal.to_act,
        [len(hand) for hand in deal.hands],
        deal.active,
        (deal.pile_count, deal.stock_size, len(deal.discard)),
        deal.round_rank,
        live,
        history.of(deal) if history is not None else _encoded(deal.events),
    )


def observe_view(
    observation: Observation,
    events: Sequence[object],
    turn: Turn | None,
    layout: Layout,
) -> np.ndarray:
    """The same vector from what a bot is sent: its ``observation`` and every public
    event of the deal so far (``events``: the observations' events put together)."""
    o = observation
    vector = _state_vector(
        layout,
        o.seat,
        o.hand,
        o.phase,
        o.to_act,
        o.hand_sizes,
        o.active,
        (o.pile_size, o.stock_size, o.discard_size),
        o.round_rank,
        o.live,
        _encoded(events),
    )
    add_turn(vector, layout, o.phase, turn if o.legal is not None else None)
    return vector


def add_turn(v: np.ndarray, L: Layout, phase: str, turn: Turn | None) -> None:
    """Write the turn under way and the stage into a :func:`state_vector`."""
    if turn is not None:
        index = _CARD_INDEX
        at = L.at_turn_cards
        for card in turn.cards:
            v[at + index[card]] += 1
        if turn.claim is not None:
            v[L.at_turn_claim + _RANK_INDEX[turn.claim]] = 1
        for rank in turn.quartets:
            v[L.at_turn_quartets + _RANK_INDEX[rank]] = 1
    v[L.at_stage + _STAGE_INDEX[_stage(phase, turn)]] = 1


def _state_vector(
    L: Layout,
    seat: int,
    hand: Sequence[str],
    phase: str,
    to_act: int | None,
    hand_sizes: Sequence[int],
    active: Sequence[bool],
    sizes: tuple[int, int, int],
    round_rank: str | None,
    live: tuple[int, int, str, int, bool] | None,
    recent: Sequence[tuple[int, int, int, int, str | None]],
) -> np.ndarray:
    p = L.players  # seats are counted modulo the table; the parts are L.slots wide
    v = np.zeros(L.size, np.float32)
    counts = [0.0] * len(CARD_RANKS)
    index = _CARD_INDEX
    for card in hand:
        counts[index[card]] += 1
    at = L.at_hand
    v[at : at + len(CARD_RANKS)] = counts
    v[L.at_phase + _PHASE_INDEX[phase]] = 1
    if to_act is not None:
        v[L.at_to_act + (to_act - seat) % p] = 1
    for other in range(p):
        r = (other - seat) % p
        v[L.at_hand_sizes + r] = hand_sizes[other]
        v[L.at_active + r] = active[other]
    at = L.at_sizes
    v[at], v[at + 1], v[at + 2] = sizes
    if round_rank is not None:
        v[L.at_round_rank + _RANK_INDEX[round_rank]] = 1
    if live is not None:
        author, placed, rank, count, opening = live
        held = v[L.at_hand + _RANK_INDEX[rank]] + v[L.at_hand + _RANK_INDEX[JOKER]]
        at = L.at_live
        v[at : at + 4] = 1, placed, count, opening
        v[at + 4 : at + 7] = held, L.copies, max(0.0, count + held - L.copies)
        v[at + 7 + (author - seat) % p] = 1
    _history(v, L, recent, seat)
    return v


def _stage(phase: str, turn: Turn | None) -> str:
    if turn is None or phase == "over":
        return "waiting"
    if phase == "quartets":
        return "quartets"
    return "count" if turn.claim is not None else "choose"


def _encoded(events: Sequence[object]) -> list[tuple[int, int, int, int, str | None]]:
    """The newest :data:`HISTORY` events of the kinds the window keeps, encoded, oldest
    first."""
    kept = []
    for event in reversed(events):
        encode = _ENCODERS.get(type(event))
        if encode is not None:
            kept.append(encode(event))
            if len(kept) == HISTORY:
                break
    kept.reverse()
    return kept


def _history(
    v: np.ndarray,
    layout: Layout,
    recent: Sequence[tuple[int, int, int, int, str | None]],
    seat: int,
) -> None:
    """The newest :data:`HISTORY` of the encoded ``recent`` events, newest first."""
    p, width, at = layout.players, layout.event_width, layout.at_history
    kinds, slots = len(EVENT_KINDS), layout.slots
    for kind, actor, number, count, rank in reversed(recent[-HISTORY:]):
        v[at + kind] = 1
        v[at + kinds + (actor - seat) % p] = 1
        tail = at + kinds + slots
        v[tail], v[tail + 1] = number, count
        if rank is not None:
            v[tail + 2 + _RANK_INDEX[rank]] = 1
        at += width


_KIND = {kind: i for i, kind in enumerate(EVENT_KINDS)}
#: by event type: (kind index, seat, number, count, rank) of an event the window keeps
_ENCODERS = {
    Played: lambda e: (_KIND["played"], e.seat, e.placed, e.count, e.rank),
    Called: lambda e: (
        _KIND["challenge" if e.call == CallKind.CHALLENGE else "believe"],
        e.seat,
        0,
        0,
        None,
    ),
    Revealed: lambda e: (_KIND["true" if e.truthful else "false"], e.author, len(e.cards), 0, None),
    PickedUp: lambda e: (_KIND["picked_up"], e.seat, e.count, 0, None),
    Passed: lambda e: (_KIND["passed"], e.seat, 0, 0, None),
    Left: lambda e: (_KIND["left"], e.seat, e.place, 0, None),
}
_CARD_INDEX = {card: _RANK_INDEX[rank] for card, rank in RANK_OF.items()}
_STAGE_INDEX = {stage: i for i, stage in enumerate(STAGES)}
_PHASE_INDEX = {phase: i for i, phase in enumerate(PHASES)}
