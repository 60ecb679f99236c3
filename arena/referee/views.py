"""What each reader of a match log may see before the match is settled.

The full log (``arena.referee.referee``) holds the match seed and every hand: who
knows it knows the deals of every match dealt from the same seed (the rotations of a
duplicate group) and could check a theory about the key. Until the platform settles
the match (docs/match-log.md "When a log becomes public"), readers get a view:

- :func:`public_view`, for spectators: the moves and the result, the public events
  (calls, reveals, pickups, the cards shown when discarded), each seat's statistics;
  no seed, no hand, no stock, no hidden card, no card a play placed face down.
- :func:`seat_view`, for the bot in ``seat`` (``MatchEnd.log_json``): the public view
  plus that seat's own hands as dealt and its own actions in full; :func:`seats_view`,
  the same for several seats (an owner whose bots sat at more than one).

A view is a :class:`~arena.referee.log.MatchLog` with the secret parts ``None`` (``null``
in its JSON) that says which view it is in ``view``; it cannot be replayed.

The words of a seat's forfeit (its exception's text, its traceback, what the platform
saw of its process) are its owner's, in every view and in the full log alike: other
readers get the forfeit's kind and :data:`PRIVATE_TEXT` (:func:`owners_text_only`).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

from arena.engine import Play
from arena.referee.log import DealRecord, FaceDownPlay, ForfeitRecord, MatchLog, SeatRecord, Step

#: what a reader who does not hold a seat reads in place of its forfeit's words
PRIVATE_TEXT = "(shown to its owner only)"


def public_view(log: MatchLog) -> MatchLog:
    """What a spectator may see of a match that is not settled."""
    return _view(log, frozenset())


def seat_view(log: MatchLog, seat: int) -> MatchLog:
    """What the bot in ``seat`` may see of its match: its own cards and actions too."""
    return _view(log, frozenset([seat]))


def seats_view(log: MatchLog, seats: Collection[int]) -> MatchLog:
    """What the bots in ``seats`` saw together: each one's cards and actions."""
    return _view(log, frozenset(seats))


def owners_text_only(log: MatchLog, seats: Collection[int]) -> MatchLog:
    """The log with the words of each forfeit kept only for ``seats`` (the reader's)."""
    mine = frozenset(seats)
    return replace(
        log,
        seats=tuple(_seat_text(entry, mine) for entry in log.seats),
        forfeits=tuple(_forfeit_text(forfeit, mine) for forfeit in log.forfeits),
    )


def _seat_text(entry: SeatRecord, seats: frozenset[int]) -> SeatRecord:
    if entry.seat in seats:
        return entry
    failures = tuple(
        replace(failure, detail=PRIVATE_TEXT) if failure.kind == "forfeit" else failure
        for failure in entry.failures
    )
    forfeit = None if entry.forfeit is None else _forfeit_text(entry.forfeit, seats)
    return replace(entry, failures=failures, forfeit=forfeit)


def _forfeit_text(forfeit: ForfeitRecord, seats: frozenset[int]) -> ForfeitRecord:
    return forfeit if forfeit.seat in seats else replace(forfeit, detail=PRIVATE_TEXT)


def _view(log: MatchLog, seats: frozenset[int]) -> MatchLog:
    shown = owners_text_only(log, seats)
    return replace(
        shown,
        view=_name(seats),
        seed=None,
        # a seat's style counts its bluffs: whether a face-down play matched its claim
        seats=tuple(replace(entry, style=None) for entry in shown.seats),
        deals=tuple(_deal(deal, seats) for deal in log.deals),
    )


def _name(seats: frozenset[int]) -> str:
    """``public``, ``seat N`` or ``seats N, M``."""
    if not seats:
        return "public"
    numbers = ", ".join(str(seat) for seat in sorted(seats))
    return f"seat{'s' if len(seats) > 1 else ''} {numbers}"


def _deal(deal: DealRecord, seats: frozenset[int]) -> DealRecord:
    return replace(
        deal,
        seed=None,
        hands=tuple(hand if index in seats else None for index, hand in enumerate(deal.hands)),
        stock=None,
        hidden=None,
        steps=tuple(_step(step, seats) for step in deal.steps),
    )


def _step(step: Step, seats: frozenset[int]) -> Step:
    if step.seat in seats or not isinstance(step.action, Play):
        return step
    return replace(step, action=face_down(step.action))


def face_down(play: Play) -> FaceDownPlay:
    """A play as the other seats saw it: its cards face down."""
    return FaceDownPlay(len(play.cards), play.rank, play.count)
