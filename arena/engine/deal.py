"""The state of one deal and its transitions: the rules of docs/rules.md, pure and deterministic.

Entry points:

- :meth:`Deal.apply` — the checked path for every player action. An action that
  breaks a rule is penalised (``Illegal`` event, the offender takes the pile);
  an action by a seat that may not act at all raises :class:`NotYourTurn`.
- :meth:`Deal.forfeit` — the referee removes a seat.
- :meth:`Deal.legal` and :meth:`Deal.observation` — what the seat to act may do
  and may know.

Every rule outcome goes through a few shared steps: ``_author_done`` (a group
can no longer be called; an empty-handed author leaves), ``_take_pile`` (a
pickup and who plays next), ``_end_round`` and ``_advance_from`` / ``_begin_turn``
(who acts next, draws, pass-outs and final calls).
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterable, Sequence
from typing import Any, Final, NamedTuple

from arena.engine import records
from arena.engine.actions import Action, Play, Quartets
from arena.engine.cards import CARDS, RANK_OF, fours_in, true_to
from arena.engine.events import (
    Called,
    CallKind,
    DealOver,
    Dealt,
    Discarded,
    DiscardReason,
    Drew,
    EndReason,
    Event,
    Forfeited,
    Illegal,
    IllegalReason,
    Left,
    Passed,
    PickedUp,
    Played,
    Revealed,
    illegal_text,
)
from arena.engine.game import Game
from arena.engine.legal import LegalActions, Phase, PlaySpec
from arena.engine.observation import LiveGroup, Observation

# Final: compiled (arena/native.py), a module's final names are read without a lookup
_CALL_KINDS: Final = {kind.value: kind for kind in CallKind}
_LATE_ANSWER: Final = illegal_text(IllegalReason.LATE_ANSWER)
#: builds a named tuple from its fields without the class's keyword-argument ``__new__``
#: (arena/engine/records.py: the hot path makes several a decision)
_new: Final = records.new


LEAD: Final = Phase.LEAD
RESPOND: Final = Phase.RESPOND
CONTINUE: Final = Phase.CONTINUE
QUARTETS: Final = Phase.QUARTETS
FINAL_CALL: Final = Phase.FINAL_CALL
OVER: Final = Phase.OVER


class NotYourTurn(Exception):
    """A seat acted when it may not act at all (a harness error, not an illegal move)."""


class DealIsOver(NotYourTurn):
    """An action was sent after the deal ended."""


class Group(NamedTuple):
    author: int
    cards: tuple[str, ...]
    rank: str
    count: int  # type: ignore[assignment]  # a field named like tuple.count
    opening: bool


# The named tuples and tables every step uses, as final names: compiled (arena/native.py), an
# imported class is looked up in the module's globals at each use, a final name is not.
_GROUP: Final = Group
_LIVE_GROUP: Final = LiveGroup
_OBSERVATION: Final = Observation
_PLAYED: Final = Played
_CALLED: Final = Called
_REVEALED: Final = Revealed
_PICKED_UP: Final = PickedUp
_PLAY: Final = Play
_CARDS: Final = CARDS

#: a deal's attributes (its slots, and what a copy copies)
_FIELDS = (
    "_active_view",
    "_anchor",
    "_cap",
    "_legal_memo",
    "_live_view",
    "_declarable",
    "_exits_view",
    "_legal_span",
    "_next_rank",
    "_pile_cards",
    "_in_play_at_deal",
    "_lead_ranks",
    "_passed",
    "_pending",
    "_resume",
    "_rng",
    "_seed",
    "_stock",
    "rules",
    "active",
    "dealer",
    "dealt",
    "discard",
    "end_reason",
    "events",
    "exits",
    "forfeits",
    "game",
    "hands",
    "hidden",
    "live",
    "options",
    "phase",
    "pile",
    "pile_count",
    "players",
    "ranking",
    "round_rank",
    "to_act",
    "turns",
)


class Deal:
    """One deal: hands, stock, pile, whose turn, and the public event log."""

    # slots: attribute access is on every step's path, and CPython shares the keys of
    # instance dicts only up to 30 attributes (past that every access slows by ~8 %)
    __slots__ = _FIELDS

    def __init__(
        self,
        game: Game,
        hands: list[list[str]],
        *,
        dealer: int,
        stock: list[str] | None = None,
        hidden: str | None = None,
        seed: int | str | float = 0,
        absent: frozenset[int] = frozenset(),
    ) -> None:
        if len(hands) != game.players:
            raise ValueError(f"{len(hands)} hands for a {game.players}-player game")
        self.game = game
        self.options = game.options
        self.players = game.players
        self.dealer = dealer
        #: the hands as dealt, before any automatic discard of fours
        self.dealt = tuple(tuple(hand) for hand in hands)
        self.hands = [_canonical(hand) for hand in hands]
        self._stock = _canonical(reversed(stock or []))  # top of the stock: the last element
        #: every card leaves play through the discard
        self._in_play_at_deal = sum(map(len, hands)) + len(self._stock)
        self.hidden = hidden
        self.pile: list[Group] = []
        self._pile_cards: list[str] = []  # the pile's cards, group by group
        self.pile_count = 0
        self.live = False
        self.discard: list[str] = []
        self.round_rank: str | None = None
        self.phase: Phase = LEAD
        self.to_act: int | None = None
        self.active = [seat not in absent for seat in range(self.players)]
        self.exits: list[int] = []
        # the two as an observation shows them, made again when a seat leaves
        self._active_view = tuple(self.active)
        self._exits_view: tuple[int, ...] = ()
        self.forfeits: list[int] = []
        self.ranking: tuple[tuple[int, ...], ...] | None = None
        self.end_reason: EndReason | None = None
        self.turns = 0
        self.events: list[Event] = []
        self._seed = seed
        self._rng: random.Random | None = None  # made when first needed (reveal one)
        self._anchor: int | None = None  # the last seat to act other than by passing this round
        self._passed: set[int] = set()
        self._pending: list[int] = []  # final_call: played out, waiting for their final call
        self._resume: tuple[int, Phase] | None = None  # after a quartets answer: next after seat
        self.rules = game.deal_rules  # the rules' answers, asked at every decision
        self._legal_memo = game.legal_memo
        self._live_view: LiveGroup | None = None  # the live group as an observation shows it
        self._cap = game.max_play
        self._declarable = game.declarable
        self._next_rank = game.next_rank
        self._lead_ranks = game.lead_ranks
        self._legal_span = len(game.deck) + 1  # a card count's range in a legal-actions key
        self._start()

    def __deepcopy__(self, memo: dict[int, Any]) -> Deal:
        """An independent copy of the deal in its present state (OpenSpiel clones states).
        Made field by field: compiled (arena/native.py), a deal has no ``__dict__``."""
        twin = Deal(self.game, [[] for _ in range(self.players)], dealer=self.dealer)
        for name in _FIELDS:
            value = getattr(self, name)
            setattr(twin, name, value if name in _SHARED else copy.deepcopy(value, memo))
        return twin

    # ------------------------------------------------------------------ queries

    @property
    def over(self) -> bool:
        return self.phase is OVER

    def cards_in_play(self) -> int:
        """The cards not out of play: in the hands, on the table and in the stock (a claimed
        count above this is illegal)."""
        return self._in_play_at_deal - len(self.discard)

    @property
    def stock(self) -> list[str]:
        """The stock, top card first."""
        return self._stock[::-1]

    @property
    def stock_size(self) -> int:
        return len(self._stock)

    def may_act(self, seat: int, kind: str = "") -> bool:
        """May ``seat`` act now (its turn, or an open call on the live group)?"""
        if self.phase is OVER:
            return False
        if seat == self.to_act:
            return True
        return (
            self.rules.calls_open
            and kind in ("challenge", "believe")
            and self.live
            and 0 <= seat < self.players
            and self.active[seat]
            and seat != self.pile[-1].author
        )

    def legal(self, seat: int | None = None) -> LegalActions | None:
        """The legal actions of ``seat`` (default: the seat to act), or ``None``."""
        to_act = self.to_act
        if seat is None:
            seat = to_act
            if seat is None:
                return None
        phase = self.phase
        if to_act is None or seat != to_act:  # an open call out of turn, if any
            if not self.may_act(seat, "challenge"):
                return None
            can_call = self._call_allowed(seat)
            return _new(
                LegalActions,
                (seat, phase, None, can_call, can_call and self.rules.believe_allowed, False, ()),
            )
        if phase is QUARTETS:
            ranks = tuple(sorted(self._fours(seat), key=_RANK_INDEX.__getitem__))
            return _new(LegalActions, (seat, phase, None, False, False, False, ranks))
        if phase is FINAL_CALL:
            can_call = self._call_allowed(seat)
            return _new(
                LegalActions,
                (seat, phase, None, can_call, can_call and self.rules.believe_allowed, False, ()),
            )
        cap = self._cap
        max_cards = len(self.hands[seat])
        if cap is not None and cap < max_cards:
            max_cards = cap
        max_count = 0
        rank = None
        if max_cards:
            max_count = self._in_play_at_deal - len(self.discard)
            if cap is not None and cap < max_count:
                max_count = cap
            if phase is not LEAD:
                rank = self._required_rank()
        can_call = phase is RESPOND and self._call_allowed(seat)
        # made once per game and kept: the same few answers come back at every decision,
        # found by one number (a tuple key hashes and compares field by field)
        step = 0 if phase is LEAD else 2 if phase is RESPOND else 4
        span = self._legal_span
        key = (
            (
                (max_count * span + max_cards) * _RANK_CODES
                + (0 if rank is None else _RANK_CODE[rank])
            )
            * 6
            + step
            + can_call
        ) * self.players + seat
        memo = self._legal_memo
        legal = memo.get(key)
        if legal is None:
            if len(memo) >= _LEGAL_MEMO_SIZE:
                memo.clear()
            legal = memo[key] = self._new_legal(seat, phase, rank, max_cards, max_count, can_call)
        return legal  # type: ignore[return-value]  # the memo holds LegalActions only

    def _new_legal(
        self,
        seat: int,
        phase: Phase,
        rank: str | None,
        max_cards: int,
        max_count: int,
        can_call: bool,
    ) -> LegalActions:
        """The legal actions of the seat to lead, respond or continue (see :meth:`legal`)."""
        play = None
        if max_cards:
            ranks = self._lead_ranks if rank is None else _ALONE[rank]
            play = _new(PlaySpec, (ranks, max_cards, self.rules.honest_counts, max_count))
        can_pass = phase is not LEAD and self.rules.allow_pass
        return _new(
            LegalActions,
            (seat, phase, play, can_call, can_call and self.rules.believe_allowed, can_pass, ()),
        )

    def observation(self, seat: int, since: int = 0) -> Observation:
        """What ``seat`` may know now, with the public events from index ``since`` on."""
        live = self._live_view if self.live else None
        return _new(
            _OBSERVATION,
            (
                seat,
                self.phase,
                self.to_act,
                self.turns,
                tuple(self.hands[seat]),
                tuple(len(hand) for hand in self.hands),
                len(self._stock),
                self.pile_count,
                len(self.discard),
                self.round_rank,
                live,
                self.legal(seat),
                tuple(self.events[since:]),
                self._active_view,
                self._exits_view,
            ),
        )

    def pile_cards(self) -> list[str]:
        """The cards on the table, group by group in the order played."""
        return self._pile_cards.copy()

    # ------------------------------------------------------------------ actions

    def apply(self, seat: int, action: Action) -> None:
        """Carry out ``action`` by ``seat``, penalising it if it breaks a rule."""
        to_act = self.to_act
        if to_act is None or seat != to_act:  # over, out of turn, or an open call
            if self.phase is OVER:
                raise DealIsOver("the deal is over")
            if not self.may_act(seat, action.kind):
                raise NotYourTurn(
                    f"seat {seat} may not {action.kind} now (seat {self.to_act} acts)"
                )
        self.turns += 1
        reason = self._dispatch(seat, action)
        if reason is not None:
            self._penalise(seat, reason)
        if self.turns >= self.rules.max_turns and self.phase is not OVER:
            self._finish(EndReason.MAX_TURNS)

    def time_out(self, seat: int) -> None:
        """The seat to act answered too late: an illegal action, penalised as one."""
        if self.phase is OVER:
            raise DealIsOver("the deal is over")
        if seat != self.to_act:
            raise NotYourTurn(f"seat {seat} is not the seat to act (seat {self.to_act} is)")
        self.turns += 1
        self._penalise(seat, _LATE_ANSWER)
        self._check_max_turns()

    def _check_max_turns(self) -> None:
        if self.phase is not OVER and self.turns >= self.rules.max_turns:
            self._finish(EndReason.MAX_TURNS)

    def forfeit(self, seat: int) -> None:
        """Remove ``seat`` at once: its hand leaves play unrevealed; it ranks below all others."""
        if self.phase is OVER or not self.active[seat]:
            raise NotYourTurn(f"seat {seat} is not in the deal")
        self.events.append(_new(Forfeited, (seat,)))
        self.active[seat] = False
        self._active_view = tuple(self.active)
        self.forfeits.append(seat)
        if seat in self._pending:
            self._pending.remove(seat)
        hand = self.hands[seat]
        if hand:
            self.discard.extend(hand)
            self.events.append(_new(Discarded, (seat, DiscardReason.FORFEIT, (), len(hand))))
            self.hands[seat] = []
        authored_live = self.live and self.pile[-1].author == seat
        if authored_live:
            self.live = False  # the group is accepted; its cards stay in the pile
        if self._check_over():
            return
        phase = self.phase
        if seat == self.to_act:
            if phase is QUARTETS:
                self._resume_after_quartets()
            else:
                following = RESPOND if phase is FINAL_CALL else phase
                if following is RESPOND and not self.live:
                    following = CONTINUE
                self._advance_from(seat, following)
        elif authored_live and phase in (RESPOND, FINAL_CALL):
            assert self.to_act is not None  # the deal goes on: someone acts
            self._begin_turn(self.to_act, CONTINUE)

    # ------------------------------------------------------------------ dispatch

    def _dispatch(self, seat: int, action: Action) -> str | None:
        """Carry out a legal action; return the reason when it is illegal."""
        phase = self.phase
        if phase is QUARTETS:
            if not isinstance(action, Quartets):
                return illegal_text(IllegalReason.WRONG_ANSWER_TO_QUARTETS, kind=action.kind)
            return self._answer_quartets(seat, action)
        if isinstance(action, _PLAY):
            if phase is FINAL_CALL:
                return illegal_text(IllegalReason.PLAY_AT_FINAL_CALL)
            return self._play(seat, action)
        kind = action.kind
        if kind == "challenge" or kind == "believe":
            return self._call(seat, kind)
        if kind == "pass":
            return self._pass(seat)
        return illegal_text(IllegalReason.QUARTETS_OUT_OF_PHASE)

    def _play(self, seat: int, play: Play) -> str | None:
        cards, rank, count = play
        placed = len(cards)
        if not placed:
            return illegal_text(IllegalReason.NO_CARDS)
        if count < 1:
            return illegal_text(IllegalReason.ZERO_COUNT)
        if self.rules.honest_counts and count != placed:
            return illegal_text(IllegalReason.COUNT_NOT_CARDS)
        cap = self._cap
        if cap is not None and (placed > cap or count > cap):
            return illegal_text(IllegalReason.OVER_PLAY_LIMIT, limit=cap)
        if count > self._in_play_at_deal - len(self.discard):
            return illegal_text(IllegalReason.COUNT_OVER_CARDS_IN_PLAY)
        leading = self.phase is LEAD
        if leading:
            if rank not in self._declarable:
                return illegal_text(IllegalReason.UNDECLARABLE_RANK, rank=rank)
        elif rank != self._required_rank():
            return illegal_text(IllegalReason.WRONG_RANK, rank=rank, due=self._required_rank())
        hands = self.hands
        remaining = hands[seat].copy()
        taken = _take(remaining, cards)
        if taken is None:
            return illegal_text(IllegalReason.CARDS_NOT_IN_HAND)
        cards = taken  # the hand's own card objects
        hands[seat] = remaining
        pile = self.pile
        covered = pile[-1].author if self.live else None
        pile.append(_new(_GROUP, (seat, cards, rank, count, leading)))
        self._live_view = _new(_LIVE_GROUP, (seat, placed, rank, count, leading))
        self._pile_cards.extend(cards)
        self.pile_count += placed
        self.live = True
        self.round_rank = rank
        self._anchor = seat
        self._passed.clear()
        self.events.append(_new(_PLAYED, (seat, placed, rank, count)))
        if (
            covered is not None
            and not hands[covered]
            and self._author_done(covered, played_over=True)
        ):
            return None
        self._advance_from(seat, RESPOND)
        return None

    def _call(self, seat: int, kind: str) -> str | None:
        if not self.live or self.phase not in (RESPOND, FINAL_CALL):
            return illegal_text(IllegalReason.NO_LIVE_GROUP, kind=kind)
        if not self._call_allowed(seat):
            return illegal_text(IllegalReason.PROTECTED_LEAD, kind=kind)
        if kind == "believe" and not self.rules.believe_allowed:
            return illegal_text(IllegalReason.BELIEVE_NOT_ALLOWED)
        group = self.pile[-1]
        author, cards, rank, count, _ = group
        events = self.events
        events.append(_new(_CALLED, (seat, _CALL_KINDS[kind], author)))
        shown = (
            (cards[self._reveal_rng().randrange(len(cards))],) if self.rules.reveals_one else cards
        )
        # judged by the cards shown (one, where only one is revealed) and the count played
        truthful = len(cards) == count and true_to(shown, rank)
        events.append(_new(_REVEALED, (author, shown, truthful)))
        self._anchor = seat
        if kind == "challenge":
            if truthful:
                keep = self.rules.keeps_value
                self._take_pile(seat, author_accepted=True, keep_value=keep)
            else:
                self._take_pile(author, author_accepted=False)
        elif not truthful:
            self._take_pile(seat, author_accepted=True)
        elif self.rules.believe_discards_group:
            self._believed_group(seat, group, shown)
        else:
            self._believed_table(seat, shown)
        return None

    def _pass(self, seat: int) -> str | None:
        if not self.rules.allow_pass:
            return illegal_text(IllegalReason.PASS_NOT_ALLOWED)
        if self.phase not in (RESPOND, CONTINUE):
            return illegal_text(IllegalReason.PASS_OUT_OF_PHASE, phase=self.phase.value)
        self.events.append(_new(Passed, (seat,)))
        self._passed.add(seat)
        self._advance_from(seat, self.phase)
        return None

    def _answer_quartets(self, seat: int, answer: Quartets) -> str | None:
        held = self._fours(seat)
        ranks = list(answer.ranks)
        if len(set(ranks)) != len(ranks) or any(rank not in held for rank in ranks):
            return illegal_text(IllegalReason.NO_COMPLETE_FOUR, ranks=ranks)
        if ranks:
            self._discard_fours(seat, ranks)
        if self.phase is not OVER:
            self._resume_after_quartets()
        return None

    def _penalise(self, seat: int, reason: str) -> None:
        """docs/rules.md "Illegal actions": the offender takes the pile as a caught bluffer."""
        self.events.append(_new(Illegal, (seat, reason)))
        if self.phase is QUARTETS:
            self._resume_after_quartets()  # an illegal answer means "discard nothing"
            return
        author_accepted = self.live and self.pile[-1].author != seat
        self._take_pile(seat, author_accepted=author_accepted)

    # ------------------------------------------------------------------ outcomes

    def _take_pile(self, picker: int, *, author_accepted: bool, keep_value: bool = False) -> None:
        """``picker`` takes the whole pile; the round ends; the next player after them acts."""
        cards = self._pile_cards
        author = self._clear_pile()
        if cards:
            self.hands[picker].extend(cards)
            self.events.append(_new(_PICKED_UP, (picker, len(cards))))
        if picker in self._pending:
            self._pending.remove(picker)
        if (
            author_accepted
            and author is not None
            and not self.hands[author]
            and self._author_done(author)
        ):
            return
        rank = self.round_rank
        if self._end_round():
            return
        if self.rules.quartets_always and self._discard_all_fours(picker):
            return
        following = LEAD
        if keep_value:
            self.round_rank = rank
            self._anchor = picker
            following = CONTINUE
        if cards and self.rules.quartets_after_pickup and self._fours(picker):
            self.phase = QUARTETS
            self.to_act = picker
            self._resume = (picker, following)
            return
        self._advance_from(picker, following)

    def _believed_group(self, believer: int, group: Group, shown: tuple[str, ...]) -> None:
        """A correct ``group`` belief: the group leaves play, the round goes on."""
        self.pile.pop()
        del self._pile_cards[-len(group.cards) :]
        self.pile_count -= len(group.cards)
        self.live = False
        self.discard.extend(group.cards)
        self.events.append(
            _new(
                Discarded,
                (group.author, DiscardReason.BELIEVED, shown, len(group.cards) - len(shown)),
            )
        )
        if self._author_done(group.author):
            return
        if believer in self._pending and self._leave(believer):  # a right final call
            return
        self._passed.clear()
        self._advance_from(believer, CONTINUE)

    def _believed_table(self, believer: int, shown: tuple[str, ...]) -> None:
        """A correct ``table`` belief: the whole pile leaves play and the believer leads."""
        cards = self._pile_cards
        author = self._clear_pile()
        self.discard.extend(cards)
        self.events.append(
            _new(Discarded, (None, DiscardReason.BELIEVED, shown, len(cards) - len(shown)))
        )
        if author is not None and self._author_done(author):
            return
        if self._end_round():
            return
        self._begin_turn(believer if self.active[believer] else self._next_active(believer), LEAD)

    def _pass_out(self) -> None:
        """Everyone else passed: the pile leaves play unrevealed and its author leads."""
        leader = self._anchor
        cards = self._pile_cards
        author = self._clear_pile()
        if cards:
            self.discard.extend(cards)
            self.events.append(_new(Discarded, (None, DiscardReason.PASSED_OUT, (), len(cards))))
        if author is not None and self._author_done(author):
            return
        if self._end_round():
            return
        if leader is None or not self.active[leader]:
            after = self.to_act if leader is None else leader
            assert after is not None  # a pile passed out had a seat to act
            leader = self._next_active(after)
        self._begin_turn(leader, LEAD)

    def _clear_pile(self) -> int | None:
        """Empty the table (a new list of its cards: callers keep the old one); return the
        author of the group that was live, if any."""
        author = self.pile[-1].author if self.live else None
        self.pile.clear()
        self._pile_cards = []
        self.pile_count = 0
        self.live = False
        return author

    def _author_done(self, author: int, *, played_over: bool = False) -> bool:
        """``author``'s group was accepted; an empty hand leaves. True if the deal ended."""
        if not self.active[author] or self.hands[author] or self._stock:
            return False
        if played_over and self.rules.final_call:
            self._pending.append(author)
            return False
        return self._leave(author)

    def _end_round(self) -> bool:
        """Close the round; players waiting for a final call leave. True if the deal ended."""
        self.round_rank = None
        self._anchor = None
        self._passed.clear()
        while self._pending:
            if self._leave(self._pending[0]):
                return True
        return False

    # ------------------------------------------------------------------ turns

    def _advance_from(self, seat: int, phase: Phase) -> None:
        """Give the turn to the next active player after ``seat``, or pass the pile out."""
        following = self._next_active(seat)
        if phase is not LEAD and (following == self._anchor or following in self._passed):
            self._pass_out()
            return
        self._begin_turn(following, phase)

    def _begin_turn(self, seat: int, phase: Phase) -> None:
        """Start ``seat``'s turn: a final call if due, draws, or leaving on an empty hand."""
        if seat in self._pending:
            if self.live:
                self.phase, self.to_act = FINAL_CALL, seat
                return
            if not self._leave(seat):  # nothing left to call: the round accepted their cards
                self._advance_from(seat, phase)
            return
        hand = self.hands[seat]
        size = self.rules.hand_size
        if size is not None and self._stock and len(hand) < size:
            take = min(size - len(hand), len(self._stock))
            drawn = self._stock[-take:]
            del self._stock[-take:]
            drawn.reverse()
            hand.extend(drawn)
            self.events.append(_new(Drew, (seat, take)))
            if self.rules.quartets_always and self._discard_all_fours(seat):
                return
        if not hand:  # empty hand, empty stock: the player leaves at the start of the turn
            if not self._leave(seat):
                self._advance_from(seat, phase)
            return
        self.phase, self.to_act = phase, seat

    def _resume_after_quartets(self) -> None:
        assert self._resume is not None
        seat, phase = self._resume
        self._resume = None
        self._advance_from(seat, phase)

    def _next_active(self, seat: int) -> int:
        active, players = self.active, self.players
        following = (seat + 1) % players
        while not active[following]:
            following = (following + 1) % players
        return following

    # ------------------------------------------------------------------ helpers

    def _required_rank(self) -> str:
        rank = self.round_rank
        assert rank is not None
        return rank if self.rules.fixed_sequence else self._next_rank[rank]

    def _reveal_rng(self) -> random.Random:
        """The deal's own generator (which card a one-card reveal shows), seeded once."""
        if self._rng is None:
            self._rng = random.Random(self._seed)
        return self._rng

    def _call_allowed(self, seat: int) -> bool:
        """False for the next player on a protected one-card lead."""
        if not self.live or not self.rules.protect_single_lead:
            return self.live
        group = self.pile[-1]
        return not (
            group.opening and len(group.cards) == 1 and seat == self._next_active(group.author)
        )

    def _fours(self, seat: int) -> dict[str, int]:
        return fours_in(self.hands[seat], self.options.quartet_exempt)

    def _discard_fours(self, seat: int, ranks: list[str]) -> bool:
        """Discard every complete four of ``ranks`` from ``seat``'s hand. True if the deal ended."""
        hand = self.hands[seat]
        fours = self._fours(seat)
        removed: list[str] = []
        for rank in ranks:
            quota = 4 * fours[rank]
            for card in [c for c in hand if RANK_OF[c] == rank][:quota]:
                hand.remove(card)
                removed.append(card)
        self.discard.extend(removed)
        self.events.append(_new(Discarded, (seat, DiscardReason.QUARTETS, tuple(removed), 0)))
        if not hand and not self._stock and self.active[seat]:
            return self._leave(seat)
        return False

    def _discard_all_fours(self, seat: int) -> bool:
        fours = self._fours(seat)
        return bool(fours) and self._discard_fours(seat, sorted(fours, key=_RANK_INDEX.__getitem__))

    def _leave(self, seat: int) -> bool:
        """``seat`` takes the next finishing place. True if that ended the deal."""
        if seat in self._pending:
            self._pending.remove(seat)
        self.active[seat] = False
        self.exits.append(seat)
        self._active_view, self._exits_view = tuple(self.active), tuple(self.exits)
        self.events.append(_new(Left, (seat, len(self.exits))))
        if self.rules.first_out_wins:
            self._finish(EndReason.FINISHED)
            return True
        return self._check_over()

    def _check_over(self) -> bool:
        if sum(self.active) <= 1:
            self._finish(EndReason.FINISHED)
            return True
        return False

    def _finish(self, reason: EndReason) -> None:
        self.phase = OVER
        self.to_act = None
        self.round_rank = None
        self.end_reason = reason
        self.ranking = self._rank(
            by_cards=reason is EndReason.MAX_TURNS or self.rules.first_out_wins
        )
        self.events.append(_new(DealOver, (self.ranking, reason)))

    def _rank(self, *, by_cards: bool) -> tuple[tuple[int, ...], ...]:
        groups: list[tuple[int, ...]] = [(seat,) for seat in self.exits]
        remaining = [seat for seat in range(self.players) if self.active[seat]]
        if by_cards:
            for size in sorted({len(self.hands[seat]) for seat in remaining}):
                groups.append(tuple(s for s in remaining if len(self.hands[s]) == size))
        elif remaining:
            groups.append(tuple(remaining))
        groups.extend((seat,) for seat in reversed(self.forfeits))
        return tuple(groups)

    # ------------------------------------------------------------------ start

    def _start(self) -> None:
        options = self.options
        sizes = tuple(len(hand) for hand in self.hands)
        self.events.append(
            _new(Dealt, (self.dealer, sizes, len(self._stock), self.hidden is not None))
        )
        if options.quartets_always:
            for seat in range(self.players):
                if self.active[seat] and self._discard_all_fours(seat):
                    return
        if self._check_over():
            return
        first = self.dealer if options.dealer_leads else self._next_active(self.dealer)
        if not self.active[first]:
            first = self._next_active(first)
        self._begin_turn(first, LEAD)


def _canonical(cards: Iterable[str]) -> list[str]:
    """``cards`` as the engine's shared card objects (:data:`~arena.engine.cards.CARDS`);
    a string that is no card id stays as it is."""
    shared = _CARDS
    return [shared.get(card, card) for card in cards]


def _take(hand: list[str], cards: Sequence[str]) -> tuple[str, ...] | None:
    """Remove ``cards`` from ``hand``, each at its first place in the hand as
    ``list.remove`` takes it; return the hand's own objects for them, or None (and a
    hand to throw away) if it does not hold them all."""
    taken = []
    for card in cards:
        found = -1
        for index, held in enumerate(hand):
            if held is card:  # card ids are shared objects: the first equal is the first same
                found = index
                break
        if found < 0:  # a card that came as a string of its own: compared by value
            if card not in hand:
                return None
            found = hand.index(card)
        taken.append(hand.pop(found))
    return tuple(taken)


#: fields a copy shares: immutable
_SHARED: Final = frozenset(
    {"game", "options", "rules", "dealt", "hidden", "_declarable", "_next_rank", "_legal_memo"}
)
#: legal actions a game keeps at most (Deal.legal); then it starts again
_LEGAL_MEMO_SIZE: Final = 1 << 16
_RANK_INDEX: Final = {rank: index for index, rank in enumerate("23456789TJQKA")}
#: a rank as a number from 1 (0: none), in a legal-actions key
_RANK_CODE: Final = {rank: index + 1 for rank, index in _RANK_INDEX.items()}
_RANK_CODES: Final = len(_RANK_CODE) + 1
#: each rank alone, as a play's ranks (made once, asked at every response)
_ALONE: Final = {rank: (rank,) for rank in _RANK_INDEX}
