"""Read queries for the dashboard and the API: plain data out (dicts and lists)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import String, cast, func, select
from sqlalchemy.orm import Session, selectinload

from arena.referee.views import public_view
from arena.store import competitions, logs, pairs
from arena.store import tournaments as tournament_store
from arena.store.disclosure import Disclosure, disclosure
from arena.store.errors import Invalid, NotFound
from arena.store.models import (
    Bot,
    BotVersion,
    Entry,
    Match,
    MatchLog,
    MatchStatus,
    Owner,
    RatingChange,
    Seat,
    Tournament,
    TournamentFormat,
)
from dashboard import charts

PER_PAGE = 50
#: bots drawn on a tournament's rating chart (its leaders)
CHART_BOTS = 8
#: bots in a tournament's head-to-head table (its leaders)
HEAD_TO_HEAD_BOTS = 12
#: deal groups a tournament page lists (the newest; the API lists all of them)
GROUPS_SHOWN = 20


def tournaments(session: Session) -> list[dict[str, Any]]:
    """Every tournament, newest first, with its bot count and current leader."""
    entries = session.execute(
        select(Entry.tournament_id, Bot.name, BotVersion.number, Entry.mu, Entry.sigma, Entry.games)
        .join(BotVersion, BotVersion.id == Entry.bot_version_id)
        .join(Bot, Bot.id == BotVersion.bot_id)
    ).all()
    bots: dict[int, int] = {}
    leaders: dict[int, tuple[float, str]] = {}
    for entry in entries:
        bots[entry.tournament_id] = bots.get(entry.tournament_id, 0) + 1
        score = entry.mu - 3 * entry.sigma
        best = leaders.get(entry.tournament_id)
        if entry.games and (best is None or score > best[0]):
            leaders[entry.tournament_id] = (score, f"{entry.name} v{entry.number}")
    rows = []
    # A/B tests are on /abtests, qualification matches on their versions' pages
    unlisted = (TournamentFormat.ABTEST, TournamentFormat.QUALIFICATION)
    listed = select(Tournament).where(Tournament.format.not_in(unlisted))
    for tournament in session.scalars(listed.order_by(Tournament.id.desc())):
        leader = leaders.get(tournament.id)
        rows.append(
            {
                **_tournament_summary(session, tournament),
                "bots": bots.get(tournament.id, 0),
                "leader": leader[1] if leader else None,
            }
        )
    return rows


def _tournament_summary(session: Session, tournament: Tournament) -> dict[str, Any]:
    return {
        **tournament_store.summary(session, tournament),
        "created_at": tournament.created_at.isoformat(),
    }


def tournament(session: Session, name: str) -> dict[str, Any]:
    found = tournament_store.get(session, name)
    summary = _tournament_summary(session, found)
    summary["id"] = found.id
    summary["leaderboard"] = tournament_store.leaderboard(session, found)
    summary["duplicate"] = found.duplicate
    groups = tournament_store.group_scores(session, found) if found.duplicate else []
    summary["groups"] = groups[:GROUPS_SHOWN]
    summary["groups_total"] = len(groups)
    return summary


def leaders_ratings(session: Session, name: str) -> dict[str, list[dict[str, Any]]]:
    """The rating histories of a tournament's leaders (its chart)."""
    found = tournament_store.get(session, name)
    leaders = tournament_store.leaderboard(session, found)[:CHART_BOTS]
    return rating_history(session, found.id, [row["version_id"] for row in leaders])


def tournament_page(session: Session, name: str) -> dict[str, Any]:
    """A tournament as its page shows it: ``tournament`` plus the leaders' head-to-head
    table (the rating chart comes separately: ``leaders_ratings``)."""
    summary = tournament(session, name)
    table = summary["leaderboard"][:HEAD_TO_HEAD_BOTS]
    summary["head_to_head"] = head_to_head(
        session, summary["id"], [row["version_id"] for row in table]
    )
    return summary


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
    # each version's completions as one string (a covering index scan, one row per
    # version: fast where rows by the thousand are not), then only the kept rows
    mine = (RatingChange.tournament_id == tournament_id) & RatingChange.bot_version_id.in_(ids)
    listed = session.execute(
        select(
            RatingChange.bot_version_id,
            func.aggregate_strings(cast(RatingChange.completion, String), ","),
        )
        .where(mine)
        .group_by(RatingChange.bot_version_id)
    ).all()
    kept: dict[int, dict[int, int]] = {}  # by version: completion -> its update number
    for version, completions in listed:
        ordered = sorted(map(int, completions.split(",")))
        kept[version] = {ordered[n - 1]: n for n in _thinned(len(ordered), charts.MAX_POINTS)}
    rows = [
        row
        for version, points in kept.items()
        for row in session.execute(
            select(
                RatingChange.bot_version_id,
                RatingChange.completion,
                RatingChange.mu,
                RatingChange.sigma,
                Match.finished_at,
            )
            .join(Match, Match.id == RatingChange.match_id)
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
        select(BotVersion.id, Bot.name, BotVersion.number)
        .join(Bot, Bot.id == BotVersion.bot_id)
        .where(BotVersion.id.in_(ids))
    )
    return {version: f"{name} v{number}" for version, name, number in found}


def bots(session: Session) -> list[dict[str, Any]]:
    return [
        _bot_summary(bot)
        for bot in session.scalars(
            select(Bot).options(selectinload(Bot.versions)).order_by(Bot.name)
        )
    ]


def global_leaderboard(session: Session) -> list[dict[str, Any]]:
    """The default competition's standings (one field: ratings from different fields are
    never compared), then the bots that have not played there yet."""
    main = competitions.default(session)
    rated = []
    if main is not None:
        for row in tournament_store.leaderboard(session, main.tournament):
            if row["games"]:
                rated.append(
                    {
                        "bot": row["bot"],
                        "version": row["version"],
                        "tournament": main.tournament.name,
                        "competition": main.name,
                        "mu": row["mu"],
                        "sigma": row["sigma"],
                        "score": row["score"],
                        "games": row["games"],
                    }
                )
    ranked = {row["bot"] for row in rated}
    unplayed = [
        {"bot": name, "version": None, "tournament": None, "games": 0}
        for name in session.scalars(select(Bot.name).order_by(Bot.name))
        if name not in ranked
    ]
    return [{"rank": i + 1, **row} for i, row in enumerate(rated)] + unplayed


def duplicate_tournaments(session: Session, names: list[str]) -> set[str]:
    """Those of the tournaments ``names`` that play duplicate deals."""
    found = select(Tournament.name).where(Tournament.name.in_(names), Tournament.duplicate)
    return set(session.scalars(found))


def bot_owners(session: Session) -> dict[str, str]:
    """Bot name -> its owner's name (bots without an owner are the operator's)."""
    return dict(
        session.execute(select(Bot.name, Owner.name).join(Owner, Owner.id == Bot.owner_id)).all()
    )


def _bot_summary(bot: Bot) -> dict[str, Any]:
    return {
        "name": bot.name,
        "versions": [
            {
                "number": v.number,
                "kind": v.kind.value,
                "target": v.target,
                "active": v.active,
                "status": v.status.value,
                "reason": v.reason,
                "qualification_match": v.qualification_match_id,
                "max_matches": v.max_matches,
                "announced_matches": v.announced_matches,
                "created_at": v.created_at.isoformat(),
            }
            for v in bot.versions
        ],
    }


def bot_ratings(
    session: Session, found: Bot, tournament: str | None = None
) -> dict[str, list[dict[str, Any]]]:
    """A bot's rating histories by tournament (or in ``tournament`` only), every version
    that played there on one chart."""
    versions = [v.id for v in found.versions]
    played_in = session.execute(
        select(Tournament.id, Tournament.name, Entry.bot_version_id)
        .join(Entry, Entry.tournament_id == Tournament.id)
        .where(
            Entry.bot_version_id.in_(versions),
            Entry.games > 0,
            *([Tournament.name == tournament] if tournament is not None else []),
        )
        .order_by(Tournament.id, Entry.bot_version_id)
    ).all()
    by_tournament: dict[tuple[int, str], list[int]] = {}
    for tournament_id, tournament_name, version in played_in:
        by_tournament.setdefault((tournament_id, tournament_name), []).append(version)
    return {
        tournament_name: rating_history(session, tournament_id, compared)
        for (tournament_id, tournament_name), compared in by_tournament.items()
    }


def bot_chart(session: Session, name: str, tournament: str) -> dict[str, list[dict[str, Any]]]:
    """A bot's rating histories in one tournament (its chart on the bot's page)."""
    histories = bot_ratings(session, _bot(session, name), tournament)
    if tournament not in histories:
        raise NotFound(f"bot {name!r} has no rated match in {tournament!r}")
    return histories[tournament]


def _bot(session: Session, name: str) -> Bot:
    found = session.scalar(select(Bot).where(Bot.name == name).options(selectinload(Bot.versions)))
    if found is None:
        raise NotFound(f"no bot named {name!r}")
    return found


def bot(session: Session, name: str, recent: int = 20) -> dict[str, Any]:
    found = _bot(session, name)
    versions = [v.id for v in found.versions]
    ratings = bot_ratings(session, found)
    matches_page = matches(session, bot=name, per_page=recent)
    failures = session.execute(
        select(
            Seat.match_id,
            Seat.seat,
            Seat.forfeit_kind,
            Seat.forfeit_reason,
            Seat.strikes,
            Seat.illegal,
            BotVersion.number,
        )
        .join(BotVersion, BotVersion.id == Seat.bot_version_id)
        .where(
            Seat.bot_version_id.in_(versions),
            (Seat.forfeit.is_(True)) | (Seat.strikes > 0) | (Seat.illegal > 0),
        )
        .order_by(Seat.match_id.desc())
        .limit(recent)
    ).all()
    summary = _bot_summary(found)
    summary.update(
        unreachable=_unreachable(session, [v.id for v in found.versions if v.active]),
        ratings=ratings,
        recent_matches=matches_page["items"],
        failures=[
            {
                "match": f.match_id,
                "seat": f.seat,
                "version": f.number,
                "forfeit": f.forfeit_kind,
                "reason": f.forfeit_reason,
                "strikes": f.strikes,
                "illegal": f.illegal,
            }
            for f in failures
        ],
    )
    return summary


#: recorded matches in a row the active version could not be reached in before its
#: page says so
UNREACHABLE_STREAK = 3


def _unreachable(session: Session, active: list[int]) -> str | None:
    """Why the active version was unreachable in each of its last matches, if it was."""
    last = session.execute(
        select(Seat.forfeit_kind, Seat.forfeit_reason)
        .join(Match, Match.id == Seat.match_id)
        .where(Seat.bot_version_id.in_(active), Match.status == MatchStatus.DONE)
        .order_by(Match.id.desc())
        .limit(UNREACHABLE_STREAK)
    ).all()
    if len(last) < UNREACHABLE_STREAK or any(kind != "unreachable" for kind, _ in last):
        return None
    return last[0].forfeit_reason


def matches(
    session: Session,
    tournament: str | None = None,
    bot: str | None = None,
    status: str | None = None,
    page: int = 1,
    per_page: int = PER_PAGE,
) -> dict[str, Any]:
    """A page of matches, newest first, filtered by tournament, bot and status."""
    query = select(Match.id).order_by(Match.id.desc())
    if tournament:
        query = query.join(Tournament, Tournament.id == Match.tournament_id).where(
            Tournament.name == tournament
        )
    if status:
        if status not in {s.value for s in MatchStatus}:
            raise Invalid(
                f"unknown status {status!r}: expected one of "
                f"{', '.join(s.value for s in MatchStatus)}"
            )
        query = query.where(Match.status == MatchStatus(status))
    if bot:
        versions = select(BotVersion.id).join(Bot).where(Bot.name == bot)
        query = query.where(
            Match.id.in_(select(Seat.match_id).where(Seat.bot_version_id.in_(versions)))
        )
    ids = list(session.scalars(query.limit(per_page + 1).offset((page - 1) * per_page)))
    has_next = len(ids) > per_page
    ids = ids[:per_page]
    found = {
        m.id: m
        for m in session.scalars(
            select(Match)
            .where(Match.id.in_(ids))
            .options(selectinload(Match.seats).joinedload(Seat.version).joinedload(BotVersion.bot))
        )
    }
    names = dict(
        session.execute(
            select(Tournament.id, Tournament.name).where(
                Tournament.id.in_({m.tournament_id for m in found.values()})
            )
        ).all()
    )
    return {
        "items": [_match_row(found[i], names[found[i].tournament_id]) for i in ids],
        "page": page,
        "per_page": per_page,
        "has_next": has_next,
    }


def _match_row(match: Match, tournament_name: str) -> dict[str, Any]:
    return {
        "id": match.id,
        "tournament": tournament_name,
        "index": match.index,
        "status": match.status.value,
        "attempts": match.attempts,
        "error": match.error,
        "finished_at": match.finished_at.isoformat() if match.finished_at else None,
        "seats": [
            {
                "seat": s.seat,
                "bot": s.version.bot.name,
                "version": s.version.number,
                "place": s.place,
                "forfeit": s.forfeit_kind,
                "reason": s.forfeit_reason,
                "strikes": s.strikes,
                "illegal": s.illegal,
                "latency_mean_ms": s.latency_mean_ms,
                "latency_p99_ms": s.latency_p99_ms,
            }
            for s in match.seats
        ],
    }


def match(session: Session, match_id: int) -> dict[str, Any]:
    found = session.scalar(
        select(Match)
        .where(Match.id == match_id)
        .options(selectinload(Match.seats).joinedload(Seat.version).joinedload(BotVersion.bot))
    )
    if found is None:
        raise NotFound(f"no match {match_id}")
    name = session.scalar(select(Tournament.name).where(Tournament.id == found.tournament_id))
    return _match_row(found, name)


def match_log(session: Session, match_id: int) -> tuple[dict[str, Any], Disclosure]:
    """The full log, for the server's own use, and whether it may be shown whole."""
    found = session.get(Match, match_id)
    blob = session.scalar(select(MatchLog.data).where(MatchLog.match_id == match_id))
    if found is None or blob is None:
        raise NotFound(f"match {match_id} has no log (not played yet?)")
    tournament = session.get(Tournament, found.tournament_id)
    assert tournament is not None
    return logs.decode(blob), disclosure(session, found, tournament)


def public_log(session: Session, match_id: int) -> dict[str, Any]:
    """What anyone may read of a match's log now: the full log once its seed and hands
    are public (arena.store.disclosure), else its public view (arena.referee.views)."""
    log, shown = match_log(session, match_id)
    readable = log if shown.public else public_view(log)
    return {**readable, "disclosure": shown.reason}


def owner_seats(
    session: Session, owner_id: int, bot: str | None = None, limit: int = PER_PAGE
) -> list[dict[str, Any]]:
    """An owner's own seats in recorded matches, newest first (optionally one bot's): how
    each went and what the bot printed while playing it (``Seat.output``: the owner's
    eyes only, so this is only ever served to the owner's token)."""
    query = (
        select(
            Seat.match_id,
            Tournament.name.label("tournament"),
            Match.finished_at,
            Seat.seat,
            Bot.name.label("bot"),
            BotVersion.number,
            Seat.place,
            Seat.forfeit_kind,
            Seat.forfeit_reason,
            Seat.strikes,
            Seat.illegal,
            Seat.output,
        )
        .join(Match, Match.id == Seat.match_id)
        .join(Tournament, Tournament.id == Match.tournament_id)
        .join(BotVersion, BotVersion.id == Seat.bot_version_id)
        .join(Bot, Bot.id == BotVersion.bot_id)
        .where(Bot.owner_id == owner_id, Match.status == MatchStatus.DONE)
        .order_by(Seat.match_id.desc(), Seat.seat)
        .limit(limit)
    )
    if bot:
        query = query.where(Bot.name == bot)
    return [
        {
            "match": row.match_id,
            "tournament": row.tournament,
            "finished_at": row.finished_at.isoformat() if row.finished_at else None,
            "seat": row.seat,
            "bot": row.bot,
            "version": row.number,
            "place": row.place,
            "forfeit": row.forfeit_kind,
            "reason": row.forfeit_reason,
            "strikes": row.strikes,
            "illegal": row.illegal,
            "output": row.output,
        }
        for row in session.execute(query)
    ]


def counts(session: Session) -> dict[str, int]:
    return {
        "bots": session.scalar(select(func.count()).select_from(Bot)) or 0,
        "matches": session.scalar(select(func.count()).select_from(Match)) or 0,
    }
