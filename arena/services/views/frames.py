"""Replay frames for the match page: the engine re-applies the log's steps and each
frame is the table after one step (every hand, the pile group by group, the claim, the
call and the cards it revealed, what happened), plus one summary per deal.

Until the log is public (arena.services.views.disclosure) the frames keep every card face down
that the table did not see: hands show only their sizes, the pile only its claims;
cards a call turned over were seen by everyone and stay shown. An owner's view shows
what the owner's bots saw besides: their own hands (``held``: the hand a seat decided
with) and the cards of their own plays."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.engine import Action
from arena.engine.cards import JOKER, truthful
from arena.engine.events import CallKind
from arena.referee.log import MatchLog, Step, StepKind
from arena.referee.replay import DealOpened, StepApplied, Walk

#: every seat's cards shown (the log is public)
EVERY_SEAT = None


def frames(log: MatchLog, shown: frozenset[int] | None = EVERY_SEAT) -> list[dict[str, Any]]:
    """The replay's frames; ``shown``: the seats whose cards may be seen (None: all)."""
    names = log.names
    result: list[dict[str, Any]] = []
    for visit in Walk(log):
        if isinstance(visit, DealOpened):
            deal, index = visit.deal, visit.recorded.index
            opening = visit.recorded.opening_events
            result.append(_frame(deal, index, "the deal", None, None, opening, names))
        elif isinstance(visit, StepApplied):
            step, seat = visit.step, visit.step.seat
            made = _frame(
                visit.deal,
                visit.recorded.index,
                _step_title(step, names[seat], _sees(shown, seat)),
                seat,
                step.latency_ms,
                step.events,
                names,
                visit.claim,
            )
            made["held"] = visit.held
            result.append(made)
    if result:
        result.append(_final_frame(result[-1], log, names))
    if shown is not EVERY_SEAT:
        for frame in result:
            _face_down(frame, shown)
    return result


def _step_title(step: Step, name: str, seen: bool) -> str:
    if step.kind is StepKind.ACT:
        assert isinstance(step.action, Action)  # the full log: plays have their cards
        return f"{name}: {action_title(step.action, seen)}"
    if step.kind is StepKind.TIMEOUT:
        return f"{name}: no answer in time"
    return f"{name} forfeits"


def _sees(shown: frozenset[int] | None, seat: int) -> bool:
    return shown is EVERY_SEAT or seat in shown


def _face_down(frame: dict[str, Any], shown: frozenset[int]) -> None:
    """Turn face down the cards no seat in ``shown`` saw: other hands, others' plays."""
    frame["hands"] = [
        hand if seat in shown else [None] * len(hand) for seat, hand in enumerate(frame["hands"])
    ]
    if frame.get("seat") not in shown:
        frame["held"] = None
    for group in frame["pile_groups"]:
        if group["author"] not in shown:
            group["cards"] = [None] * len(group["cards"])
            group["bluff"] = None  # known only once the log is public


def _final_frame(last: dict[str, Any], log: MatchLog, names: list[str]) -> dict[str, Any]:
    """The table as the match left it, titled with the match's places."""
    places = "; ".join(
        f"{number}. {' = '.join(names[seat] for seat in group)}"
        for number, group in enumerate(log.result.ranking, start=1)
    )
    return {
        **last,
        "title": f"the match is over: {places}",
        "seat": None,
        "held": None,
        "kind": "end",
        "latency_ms": None,
        "events": [f"final places: {places}"],
        "call": None,
        "revealed": None,
        "ranking": None,
        "ending": None,
        "final": [[names[seat] for seat in group] for group in log.result.ranking],
    }


def card_text(code: str) -> str:
    """A card as the pages write it: rank and suit symbol (10 for T, ★ for the joker)."""
    if code == JOKER:
        return "★"
    rank, suit = code[:-1], code[-1]
    return f"{'10' if rank == 'T' else rank}{SUIT_SYMBOLS[suit]}"


SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def rank_text(rank: str) -> str:
    return "10" if rank == "T" else rank


def cards_text(cards: Sequence[str]) -> str:
    return " ".join(card_text(card) for card in cards)


def action_title(action: Any, seen: bool) -> str:
    """An action in the pages' notation: a play's cards shown to who may see them."""
    if action.kind != "play":
        return str(action)
    claim = f"claiming {action.count} × {rank_text(action.rank)}"
    if not seen:
        return f"places {len(action.cards)} {claim}"
    return f"places {cards_text(action.cards)} {claim}"


def deal_summaries(frames_: list[dict[str, Any]], names: list[str]) -> list[dict[str, Any]]:
    """One line per deal for the replay's index: where it starts in the frames, how many
    plays and calls it took, how many calls were right, and how it ended."""
    summaries: dict[int, dict[str, Any]] = {}
    for position, frame in enumerate(frames_):
        deal = summaries.setdefault(
            frame["deal"],
            {"deal": frame["deal"], "start": position, "plays": 0, "calls": 0, "caught": 0},
        )
        deal["plays"] += frame["kind"] == "play"
        if frame["call"] is not None:
            deal["calls"] += 1
            deal["caught"] += frame["call"]["right"]
        if frame["ranking"] is not None:
            deal["ranking"] = [[names[seat] for seat in group] for group in frame["ranking"]]
            deal["reason"] = frame["ending"]
    return list(summaries.values())


def _frame(
    deal,
    index: int,
    title: str,
    seat: int | None,
    latency: float | None,
    events: Sequence[Any],
    names: list[str],
    claim: Any = None,
) -> dict[str, Any]:
    live = deal.pile[-1] if deal.live else None
    return {
        "deal": index,
        "title": title,
        "seat": seat,
        "kind": _kind(events),
        "latency_ms": latency,
        "events": [describe(event, names, claim) for event in events],
        "call": _call(events),
        "revealed": next(
            (
                {"author": e.author, "cards": list(e.cards), "truthful": e.truthful}
                for e in events
                if e.kind == "revealed"
            ),
            None,
        ),
        "ranking": next((e.ranking for e in events if e.kind == "deal_over"), None),
        "ending": next((e.reason for e in events if e.kind == "deal_over"), None),
        "pile_groups": [
            {
                "author": g.author,
                "cards": list(g.cards),
                "rank": g.rank,
                "count": g.count,
                "bluff": not truthful(g.cards, g.rank, g.count),
            }
            for g in deal.pile
        ],
        "hands": [list(hand) for hand in deal.hands],
        #: the hand the acting seat held when it decided (set by the caller)
        "held": None,
        "pile": deal.pile_count,
        "discard": len(deal.discard),
        "stock": len(deal.stock),
        "round_rank": deal.round_rank,
        "to_act": deal.to_act,
        "phase": deal.phase.value,
        "active": list(deal.active),
        "live": None
        if live is None
        else {
            "author": live.author,
            "placed": len(live.cards),
            "rank": live.rank,
            "count": live.count,
        },
    }


def _kind(events: Sequence[Any]) -> str:
    """What a step was, for the replay's seat bubbles: a play, a call, a pass, other."""
    kinds = {event.kind for event in events}
    for kind, name in (("played", "play"), ("called", "call"), ("passed", "pass")):
        if kind in kinds:
            return name
    return "other"


def _call(events: Sequence[Any]) -> dict[str, Any] | None:
    """A call and whether it was right: a challenge is right when the cards were a bluff,
    a belief when they were true."""
    called = next((e for e in events if e.kind == "called"), None)
    if called is None:
        return None
    revealed = next((e for e in events if e.kind == "revealed"), None)
    truthful = revealed.truthful if revealed is not None else None
    right = truthful is not None and (truthful == (called.call is not CallKind.CHALLENGE))
    return {"seat": called.seat, "call": called.call, "author": called.author, "right": right}


def describe(event: Any, names: list[str], claim: Any = None) -> str:
    """One line of English per engine event (``claim``: the group a call turned over)."""
    kind = event.kind
    who = names[event.seat] if getattr(event, "seat", None) is not None else ""
    if kind == "dealt":
        return f"dealt {list(event.hand_sizes)} cards; stock {event.stock}"
    if kind == "played":
        return f"{who} places {event.placed} claiming {event.count} × {rank_text(event.rank)}"
    if kind == "called":
        verb = "does not believe" if event.call is CallKind.CHALLENGE else "believes"
        return f"{who} {verb} {names[event.author]}"
    if kind == "revealed":
        truth = "true" if event.truthful else "bluff"
        said = f"claimed {claim.count} × {rank_text(claim.rank)}, " if claim is not None else ""
        return f"{said}was {cards_text(event.cards)}: {truth}"
    if kind == "picked_up":
        return f"{who} picks up {event.count} cards"
    if kind == "discarded":
        shown = cards_text(event.cards)
        hidden = f" and {event.unseen} face down" if event.unseen else ""
        return f"discarded ({event.reason}): {shown or '-'}{hidden}"
    if kind == "passed":
        return f"{who} passes"
    if kind == "drew":
        return f"{who} draws {event.count}"
    if kind == "left":
        return f"{who} is out (place {event.place})"
    if kind == "illegal":
        return f"{who}: illegal ({event.reason})"
    if kind == "forfeited":
        return f"{who} forfeits"
    if kind == "deal_over":
        groups = [" = ".join(names[s] for s in group) for group in event.ranking]
        return f"deal over ({event.reason}): {', '.join(groups)}"
    return kind
