"""Replay frames for the match page: the engine re-applies the log's steps and each
frame is the table after one step (every hand, the pile, the claim, what happened).

Until the log is public (arena.store.disclosure) the frames keep every card face down
that the table did not see: hands show only their sizes, plays only their claims."""

from __future__ import annotations

from typing import Any

from arena.engine import Game, Ruleset, action_from_dict
from arena.engine.events import event_from_dict
from arena.engine.match import Match


def frames(log: dict[str, Any], reveal: bool = True) -> list[dict[str, Any]]:
    game = Game(Ruleset.from_dict(log["ruleset"]), log["players"])
    names = [f"{seat['name']}" for seat in log["seats"]]
    match = Match(game, log["seed"], log["dealer"])
    for forfeit in log["forfeits"]:
        if forfeit["deal"] is None:
            match.forfeit(forfeit["seat"])
    result: list[dict[str, Any]] = []
    for recorded in log["deals"]:
        deal = match.next_deal()
        result.append(
            _frame(
                deal,
                recorded["index"],
                "the deal",
                None,
                None,
                [describe(event_from_dict(e), names) for e in recorded["opening_events"]],
            )
        )
        for step in recorded["steps"]:
            seat = step["seat"]
            if step["kind"] == "act":
                action = action_from_dict(step["action"])
                deal.apply(seat, action)
                title = f"{names[seat]}: {action if reveal else public_title(action)}"
            elif step["kind"] == "timeout":
                deal.time_out(seat)
                title = f"{names[seat]}: no answer in time"
            else:
                match.forfeit(seat)
                title = f"{names[seat]} forfeits"
            result.append(
                _frame(
                    deal,
                    recorded["index"],
                    title,
                    seat,
                    step.get("latency_ms"),
                    [describe(event_from_dict(e), names) for e in step["events"]],
                )
            )
        match.record(deal)
    if not reveal:
        for frame in result:
            frame["hands"] = [[None] * len(hand) for hand in frame["hands"]]
    return result


def public_title(action: Any) -> str:
    """An action as the table saw it: a play's cards face down."""
    if action.kind != "play":
        return str(action)
    return f"places {len(action.cards)} claiming {action.count} x {action.rank}"


def _frame(
    deal, index: int, title: str, seat: int | None, latency: float | None, events: list[str]
) -> dict[str, Any]:  # noqa: ANN001
    live = deal.pile[-1] if deal.live else None
    return {
        "deal": index,
        "title": title,
        "seat": seat,
        "latency_ms": latency,
        "events": events,
        "hands": [list(hand) for hand in deal.hands],
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


def describe(event: Any, names: list[str]) -> str:
    """One line of English per engine event."""
    kind = event.kind
    who = names[event.seat] if getattr(event, "seat", None) is not None else ""
    if kind == "dealt":
        return f"dealt {list(event.hand_sizes)} cards; stock {event.stock}"
    if kind == "played":
        return f"{who} places {event.placed} claiming {event.count} x {event.rank}"
    if kind == "called":
        verb = "does not believe" if event.call == "challenge" else "believes"
        return f"{who} {verb} {names[event.author]}"
    if kind == "revealed":
        truth = "true" if event.truthful else "a bluff"
        return f"revealed {' '.join(event.cards)}: {truth}"
    if kind == "picked_up":
        return f"{who} picks up {event.count} cards"
    if kind == "discarded":
        shown = " ".join(event.cards)
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
