"""Tournaments played in rounds (Swiss, knockout): the store's side of the formats
played in rounds (arena.tournament.formats.rounds).

When no match of the tournament is open, ``refill`` asks its format for the next round
and seats it: each table one deal, played once per seat rotation (a deal group, rated
once when its last rotation is over). When the format has no next round the tournament
is done. The worker refills after recording and the reconciler for every running one
(as for ladders), under the tournament's lock, so a round is seated once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session, joinedload

from arena.base.jobs import new_job_id
from arena.base.states import OPEN_STATUSES, MatchStatus, TournamentStatus
from arena.store.db import Database, locked
from arena.store.models import BotVersion, Entry, MatchSeat, Tournament, TournamentMatch, now
from arena.tournament import formats, seeds
from arena.tournament.formats.rounds import Field, InRounds, TableResult
from arena.tournament.ratings import conservative


def format_of(tournament: Tournament) -> InRounds:
    return formats.in_rounds(tournament.format)


def option_of(tournament: Tournament) -> int:
    """The format's parameter: a Swiss tournament's rounds, a knockout's advance."""
    return format_of(tournament).option_of(tournament.games, tournament.advance)


def refill(db: Database, tournament_id: int) -> list[tuple[int, str]]:
    """Seat the next round if the last is over; (match, job) to enqueue."""
    return db.transaction(lambda session: refill_in(session, tournament_id))


def refill_in(session: Session, tournament_id: int) -> list[tuple[int, str]]:
    tournament = locked(session, Tournament, tournament_id)
    if (
        not formats.named(tournament.format).in_rounds
        or tournament.status is not TournamentStatus.RUNNING
    ):
        return []
    if _open(session, tournament):
        return []
    field = _field(session, tournament)
    played = field.played
    tables = format_of(tournament).next_round(field)
    if not tables:
        tournament.status = TournamentStatus.DONE
        tournament.finished_at = now()
        return []
    number = 1 + max((t.round for t in played), default=-1)
    return _seat(session, tournament, number, tables)


def _open(session: Session, tournament: Tournament) -> bool:
    return bool(
        session.scalar(
            select(func.count()).where(
                TournamentMatch.tournament_id == tournament.id,
                TournamentMatch.status.in_(OPEN_STATUSES),
            )
        )
    )


def _field(session: Session, tournament: Tournament) -> Field:
    """What the format decides from: the bots in their seeding order (as entered), the
    tables played, and the bots' leaderboard scores."""
    entries = session.scalars(
        select(Entry).where(Entry.tournament_id == tournament.id).order_by(Entry.id)
    ).all()
    return Field(
        bots=[e.bot_version_id for e in entries],
        played=tables_played(session, tournament),
        table_size=tournament.table_size,
        option=option_of(tournament),
        rating={e.bot_version_id: conservative(e.mu, e.sigma) for e in entries},
    )


def tables_played(session: Session, tournament: Tournament) -> list[TableResult]:
    """Every table of the rounds seated so far that is over: its bots (by the seats of
    its first rotation) and each one's mean place over the rotations played."""
    rows = session.execute(
        select(
            TournamentMatch.round,
            TournamentMatch.deal_group,
            TournamentMatch.index,
            TournamentMatch.status,
            MatchSeat.seat,
            MatchSeat.bot_version_id,
            MatchSeat.place,
        )
        .join(MatchSeat, MatchSeat.match_id == TournamentMatch.id)
        .where(TournamentMatch.tournament_id == tournament.id, TournamentMatch.round.is_not(None))
        .order_by(TournamentMatch.index, MatchSeat.seat)
    ).all()
    groups: dict[int, dict[str, Any]] = {}
    for row in rows:
        group = groups.setdefault(
            row.deal_group, {"round": row.round, "first": row.index, "bots": {}, "places": {}}
        )
        if row.index == group["first"]:
            group["bots"][row.seat] = row.bot_version_id
        if row.status is MatchStatus.DONE and row.place is not None:
            group["places"].setdefault(row.bot_version_id, []).append(row.place)
        if row.status in OPEN_STATUSES:
            group["open"] = True
    results = []
    for group in groups.values():
        if group.get("open"):
            continue
        bots = tuple(group["bots"][seat] for seat in sorted(group["bots"]))
        places = group["places"]
        worst = float(len(bots) - 1)  # no rotation played: level, last
        score = {b: sum(places[b]) / len(places[b]) if places.get(b) else worst for b in bots}
        results.append(TableResult(group["round"], bots, score))
    return results


def _seat(
    session: Session, tournament: Tournament, number: int, tables: list[list[int]]
) -> list[tuple[int, str]]:
    """The round's tables as matches: each one deal, once per seat rotation."""
    last = session.scalar(
        select(func.max(TournamentMatch.index)).where(
            TournamentMatch.tournament_id == tournament.id
        )
    )
    index = 0 if last is None else last + 1
    created: list[TournamentMatch] = []
    for table_number, table in enumerate(tables):
        group = index  # the group's first match index: unique, and it names the deal
        seed = seeds.match_seed(tournament.secret_key, seeds.round_place(number, table_number))
        for shift in range(len(table)):
            seats = table[shift:] + table[:shift]
            match = TournamentMatch.queued(tournament.id, index, seed, seats, group, number)
            session.add(match)
            created.append(match)
            index += 1
    session.flush()
    for match in created:
        match.job_id = new_job_id(match.id)
    return [(match.id, match.job_id) for match in created if match.job_id is not None]


@dataclass(frozen=True)
class Placing:
    """A bot's place in its tournament's standings, and the figures that placed it (in
    its format's words: points, round reached, score)."""

    bot: str
    version: int
    #: 1 is first
    place: int
    figures: Mapping[str, float | int | str]

    def as_row(self) -> dict[str, Any]:
        """One flat row, as JSON and the pages show it: its figures beside its place."""
        return {"bot": self.bot, "version": self.version, "place": self.place, **self.figures}


def standings(session: Session, tournament: Tournament) -> list[Placing]:
    """The format's standings: bot, version, place and the figures that placed it."""
    field = _field(session, tournament)
    ranked = format_of(tournament).standings(field)
    names = _names(session, list(field.bots))
    return [Placing(*names[s.bot], s.place, s.figures) for s in ranked]


def rounds(session: Session, tournament: Tournament) -> list[dict[str, Any]]:
    """Each round's tables (a bracket, for a knockout): the bots best first with their
    scores once the table is over."""
    field = _field(session, tournament)
    names = _names(session, list(field.bots))
    played = {(t.round, t.bots): t for t in field.played}
    seated = session.execute(
        select(
            TournamentMatch.round,
            TournamentMatch.deal_group,
            MatchSeat.seat,
            MatchSeat.bot_version_id,
        )
        .join(MatchSeat, MatchSeat.match_id == TournamentMatch.id)
        .where(
            TournamentMatch.tournament_id == tournament.id,
            TournamentMatch.round.is_not(None),
            TournamentMatch.index == TournamentMatch.deal_group,  # the first rotation
        )
        .order_by(TournamentMatch.round, TournamentMatch.deal_group, MatchSeat.seat)
    ).all()
    tables: dict[tuple[int, int], list[int]] = {}
    for row in seated:
        tables.setdefault((row.round, row.deal_group), []).append(row.bot_version_id)
    view: dict[int, list[dict[str, Any]]] = {}
    for (number, _), table in tables.items():
        result = played.get((number, tuple(table)))
        order = result.order(field.rating) if result else table
        places = result.places(field.rating) if result else {}
        view.setdefault(number, []).append(
            {
                "over": result is not None,
                "bots": [
                    {
                        "bot": names[b][0],
                        "version": names[b][1],
                        "score": result.score[b] if result else None,
                        # tied scores share a place; the rating ordered them
                        "place": places.get(b),
                        "tied": bool(result and result.tied(b)),
                    }
                    for b in order
                ],
            }
        )
    return [{"round": number + 1, "tables": view[number]} for number in sorted(view)]


def _names(session: Session, versions: list[int]) -> dict[int, tuple[str, int]]:
    found = session.scalars(
        select(BotVersion).where(BotVersion.id.in_(versions)).options(joinedload(BotVersion.bot))
    ).all()
    return {v.id: (v.bot.name, v.number) for v in found}
