"""Ratings over time and between versions: the charts' series and the head-to-head table."""

from __future__ import annotations

import bisect
from typing import Any

from sqlalchemy import String, cast, func, select
from sqlalchemy.orm import Session

from arena.services.views import charts
from arena.services.views.visibility import tournament_named
from arena.store import pairs
from arena.store import tournaments as tournament_store
from arena.store.models import (
    BotVersion,
    RatingChange,
    RegisteredBot,
    TournamentMatch,
)

#: bots drawn on a tournament's rating chart (its leaders)
CHART_BOTS = 8


def leaders_ratings(session: Session, name: str) -> dict[str, list[dict[str, Any]]]:
    """The rating histories of a tournament's leaders (its chart)."""
    found = tournament_named(session, name)
    leaders = tournament_store.leaderboard(session, found, top=CHART_BOTS)
    return rating_history(session, found.id, [row.version_id for row in leaders])


def rating_history(
    session: Session, tournament_id: int, versions: list[int]
) -> dict[str, list[dict[str, Any]]]:
    """Each version's ratings in a tournament ("bot vN": points with ``x`` the
    tournament's rated-match number, ``n`` the version's own update number, ``mu``,
    ``sigma``, ``at``; the last point's ``n`` is its number of updates), thinned in the
    database to about ``charts.MAX_POINTS`` each, so a ladder of 50,000 matches costs
    what one of 200 does."""
    if not versions:
        return {}
    ids = _version_labels(session, set(versions))
    # each version's updates as one string of completion:number (one row per version:
    # fast where rows by the thousand are not; a young update's number is 0, counted
    # on from the thinned ones'), then only the kept rows
    mine = (RatingChange.tournament_id == tournament_id) & RatingChange.bot_version_id.in_(ids)
    update = cast(RatingChange.completion, String) + ":"
    update += cast(func.coalesce(RatingChange.number, 0), String)
    listed = session.execute(
        select(RatingChange.bot_version_id, func.aggregate_strings(update, ","))
        .where(mine)
        .group_by(RatingChange.bot_version_id)
    ).all()
    kept: dict[int, dict[int, int]] = {}  # by version: completion -> its update number
    for version, updates in listed:
        held = [tuple(map(int, u.split(":"))) for u in updates.split(",")]
        numbered = {completion: number for completion, number in held if number}
        numbers = _update_numbers(sorted(c for c, _ in held), numbered)
        kept[version] = _picked(numbers, charts.MAX_POINTS)
    rows = [
        row
        for version, points in kept.items()
        for row in session.execute(
            select(
                RatingChange.bot_version_id,
                RatingChange.completion,
                RatingChange.mu,
                RatingChange.sigma,
                TournamentMatch.finished_at,
            )
            .join(TournamentMatch, TournamentMatch.id == RatingChange.match_id)
            .where(
                RatingChange.tournament_id == tournament_id,
                RatingChange.bot_version_id == version,
                RatingChange.completion.in_(points),
            )
            .order_by(RatingChange.completion)
        )
    ]
    history: dict[str, list[dict[str, Any]]] = {ids[v]: [] for v in ids}
    for row in rows:
        history[ids[row.bot_version_id]].append(
            {
                "x": row.completion + 1,
                "n": kept[row.bot_version_id][row.completion],
                "mu": row.mu,
                "sigma": row.sigma,
                "at": row.finished_at.isoformat() if row.finished_at else None,
            }
        )
    return {ids[v]: history[ids[v]] for v in versions if v in ids}


def _update_numbers(completions: list[int], numbered: dict[int, int]) -> dict[int, int]:
    """Each update's number (completion -> n): a thinned history's old ones say theirs,
    the young ones count on from the last of them (arena.store.history)."""
    base = max(numbered.values(), default=0)
    young = (c for c in completions if c not in numbered)
    return {**numbered, **{c: base + place for place, c in enumerate(young, 1)}}


def _picked(numbers: dict[int, int], limit: int) -> dict[int, int]:
    """About ``limit`` of the updates, evenly spaced by update number (the first at or
    after each mark: a thinned history has gaps), always the first and the last."""
    by_number = sorted((n, c) for c, n in numbers.items())
    held = [n for n, _ in by_number]
    picked: dict[int, int] = {}
    for mark in _thinned(held[-1] if held else 0, limit):
        at = bisect.bisect_left(held, mark)
        if at < len(held):
            n, completion = by_number[at]
            picked[completion] = n
    return picked


def _thinned(count: int, limit: int) -> list[int]:
    """About ``limit`` of the numbers 1..count, evenly spaced, always the first and last."""
    stride = max(1, -(-count // limit))
    return sorted({*range(1, count + 1, stride), count}) if count else []


def head_to_head(session: Session, tournament_id: int, versions: list[int]) -> dict[str, Any]:
    """For each pair of ``versions`` that met: how often the row's version finished ahead
    of the column's, behind it, or level (places compared within each match), from the
    running totals (arena.store.pairs)."""
    totals = pairs.between(session, tournament_id, versions)
    labels = _version_labels(session, set(versions))
    return {
        "bots": [labels[v] for v in versions if v in labels],
        "cells": {f"{labels[a]}|{labels[b]}": cell for (a, b), cell in totals.items()},
    }


def _version_labels(session: Session, ids: set[int]) -> dict[int, str]:
    """``bot vN`` for each bot version id."""
    found = session.execute(
        select(BotVersion.id, RegisteredBot.name, BotVersion.number)
        .join(RegisteredBot, RegisteredBot.id == BotVersion.bot_id)
        .where(BotVersion.id.in_(ids))
    )
    return {version: f"{name} v{number}" for version, name, number in found}
