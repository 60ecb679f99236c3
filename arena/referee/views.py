"""What each reader of a match log may see before the match is settled.

The full log (``arena.referee.referee``) holds the match seed and every hand: who
knows it knows the deals of every match dealt from the same seed (the rotations of a
duplicate group) and could check a theory about the key. Until the platform settles
the match (docs/match-log.md "When a log becomes public"), readers get a view:

- :func:`public_view`, for spectators: the moves and the result, the public events
  (calls, reveals, pickups, the cards shown when discarded), each seat's statistics;
  no seed, no hand, no stock, no hidden card, no card a play placed face down.
- :func:`seat_view`, for the bot in ``seat`` (``MatchEnd.log_json``): the public view
  plus that seat's own hands as dealt and its own actions in full.

A view keeps the log's shape with the secret parts set to ``null`` and says which
view it is in ``view``; it cannot be replayed.
"""

from __future__ import annotations

from typing import Any

#: the parts of a log every reader may see as they are
_PUBLIC_KEYS = (
    "format",
    "match_id",
    "ruleset",
    "players",
    "dealer",
    "settings",
    "forfeits",
    "result",
    "started_at",
    "duration_ms",
)


def public_view(log: dict[str, Any]) -> dict[str, Any]:
    """What a spectator may see of a match that is not settled."""
    return _view(log, None)


def seat_view(log: dict[str, Any], seat: int) -> dict[str, Any]:
    """What the bot in ``seat`` may see of its match: its own cards and actions too."""
    return _view(log, seat)


def is_view(log: dict[str, Any]) -> bool:
    return log.get("view", "full") != "full"


def _view(log: dict[str, Any], seat: int | None) -> dict[str, Any]:
    view = {key: log[key] for key in _PUBLIC_KEYS}
    view["view"] = "public" if seat is None else f"seat {seat}"
    view["seed"] = None
    # a seat's style counts its bluffs: whether a face-down play matched its claim
    view["seats"] = [{k: v for k, v in seat.items() if k != "style"} for seat in log["seats"]]
    view["deals"] = [_deal(deal, seat) for deal in log["deals"]]
    return view


def _deal(deal: dict[str, Any], seat: int | None) -> dict[str, Any]:
    return {
        "index": deal["index"],
        "seed": None,
        "dealer": deal["dealer"],
        "hands": [hand if index == seat else None for index, hand in enumerate(deal["hands"])],
        "stock": None,
        "hidden": None,
        "opening_events": deal["opening_events"],
        "steps": [_step(step, seat) for step in deal["steps"]],
        **{key: deal[key] for key in ("ranking", "end_reason", "turns") if key in deal},
    }


def _step(step: dict[str, Any], seat: int | None) -> dict[str, Any]:
    if step["seat"] == seat:
        return step
    return {**step, "action": public_action(step["action"])}


def public_action(action: dict[str, Any] | None) -> dict[str, Any] | None:
    """An action as the other seats saw it: a play's cards are face down."""
    if action is None or action.get("do") != "play":
        return action
    return {
        "do": "play",
        "cards": None,
        "placed": len(action["cards"]),
        "rank": action["rank"],
        "count": action["count"],
    }
