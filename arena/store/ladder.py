"""Ladders: tournaments that keep playing until stopped.

A ladder keeps ``games`` tables in play. Whenever a match is recorded the worker
refills it (and the reconciler does too, in case a worker died in between), under
the tournament's lock so concurrent refills never overshoot. Each new table is
seeded by the bot with the fewest games (ties: the highest sigma, the least known),
so no bot is starved. Its opponents are drawn at random from the bots within one game
of the least played, each with a weight that favours close and uncertain ratings
(``arena.tournament.matchmaking``) but never reaches zero, so every pair keeps meeting and no
pairing locks in. With duplicate deals a table is played once per seat rotation, every
rotation dealt the same (a deal group, rated once when its last rotation is over).
Seats go where each bot has sat least (each entry counts its seats: a
placement reads the entries and the tables in play, never the ladder's history, so it
costs the same at the 100,000th match as at the 100th).

A paced ladder (a competition's, by default) keeps its tables in play only while an
entry's rating is provisional, each such table seeded by a provisional entry; once all
are settled it seats one table every ``60 / pace`` seconds (arena.tournament.pacing).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from arena.base.jobs import new_job_id
from arena.base.states import OPEN_STATUSES, CompetitionStatus, MatchStatus, TournamentStatus
from arena.base.words import said
from arena.store.db import Database, locked, rows_changed
from arena.store.models import Competition, Entry, MatchSeat, Tournament, TournamentMatch, now
from arena.store.teams import households
from arena.tournament import formats, matchmaking, pacing, seeds
from arena.tournament.schedule import assign_seats


def refill(db: Database, tournament_id: int) -> list[tuple[int, str]]:
    """Queue tables until the ladder has its number in play; return (match, job) to enqueue."""
    return db.transaction(lambda session: refill_in(session, tournament_id))


def refill_in(session: Session, tournament_id: int) -> list[tuple[int, str]]:
    tournament = locked(session, Tournament, tournament_id)
    if (
        not formats.named(tournament.format).keeps_tables
        or tournament.status is not TournamentStatus.RUNNING
        or not _seats_tables(session, tournament)
    ):
        return []
    entries = _entries(session, tournament)
    seeders, tables = _paced(
        tournament, entries, tournament.games - _tables_in_play(session, tournament)
    )
    jobs: list[tuple[int, str]] = []
    for _ in range(tables):
        matches = _new_table(session, tournament, entries, seeders)
        if not matches:
            break  # too few owners in play for a table
        jobs.extend((match.id, match.job_id) for match in matches if match.job_id is not None)
    return jobs


def _paced(tournament: Tournament, entries: list[Entry], free: int) -> tuple[list[Entry], int]:
    """The entries that may seed a table now and how many tables to seat: every free
    one around the provisional entries, else (paced, settled) one when its time came."""
    if tournament.pace is None or free <= 0:
        return entries, max(0, free)
    settled = tournament.rating.settled_sigma
    provisional = [e for e in entries if pacing.provisional(e.games, e.sigma, settled)]
    if provisional:
        return provisional, free
    moment = now()
    due = tournament.next_table_at
    if due is not None and moment < due:
        return entries, 0
    tournament.next_table_at = moment + pacing.interval(tournament.pace)
    return entries, 1


def pace_of(session: Session, tournament: Tournament) -> dict[str, Any]:
    """How the ladder plays now: ``unpaced``, ``provisional`` (the entries still
    uncertain, with their games) or ``settled`` (the next table's moment)."""
    if tournament.pace is None:
        return {"mode": "unpaced", "pace": None, "tables": tournament.games}
    settled = tournament.rating.settled_sigma
    entries = _entries(session, tournament)
    uncertain = [e for e in entries if pacing.provisional(e.games, e.sigma, settled)]
    due = tournament.next_table_at
    return {
        "mode": "provisional" if uncertain else "settled",
        "pace": tournament.pace,
        "tables": tournament.games,
        "provisional": [
            {
                "bot": e.version.bot.name,
                "version": e.version.number,
                "games": e.games,
                "sigma": e.sigma,
            }
            for e in uncertain
        ],  # fmt: skip
        "next_table_at": due.isoformat(timespec="seconds") if due else None,
        "provisional_games": pacing.PROVISIONAL_GAMES,
        "settled_sigma": settled,
    }


def _tables_in_play(session: Session, tournament: Tournament) -> int:
    """Tables not played yet: matches, or with duplicate deals, deal groups."""
    counted = (
        func.count(func.distinct(TournamentMatch.deal_group))
        if tournament.duplicate
        else func.count()
    )
    open_matches = select(counted).where(
        TournamentMatch.tournament_id == tournament.id, TournamentMatch.status.in_(OPEN_STATUSES)
    )
    return session.scalar(open_matches) or 0


def _seats_tables(session: Session, tournament: Tournament) -> bool:
    """Whether the ladder may seat new tables: enough bots in play for one, and, for a
    competition's (arena.store.competitions), one open now; a competition past its
    closing time closes here (its ladder stops: final standings)."""
    competition = session.scalar(
        select(Competition).where(Competition.tournament_id == tournament.id)
    )
    if competition is not None:
        moment = now()
        if competition.closes_at is not None and moment >= competition.closes_at:
            competition.status = CompetitionStatus.CLOSED
            stop(session, tournament)
            return False
        if competition.status is not CompetitionStatus.OPEN:
            return False
        if competition.opens_at is not None and moment < competition.opens_at:
            return False
    return len(_entries(session, tournament)) >= tournament.table_size


def _entries(session: Session, tournament: Tournament) -> list[Entry]:
    """The entries in play (a competition retires the older versions of a bot)."""
    return list(
        session.scalars(
            select(Entry)
            .where(Entry.tournament_id == tournament.id, Entry.retired.is_(False))
            .order_by(Entry.id)
        )
    )


def _teams(session: Session, tournament: Tournament, entries: list[Entry]) -> dict[Entry, int]:
    """Each entry's owner, unless the ladder lets one owner's bots share a table."""
    if tournament.same_owner_tables:
        return {}
    owners = households(session, [e.bot_version_id for e in entries])
    return {e: owners[e.bot_version_id] for e in entries if e.bot_version_id in owners}


def _new_table(
    session: Session, tournament: Tournament, entries: list[Entry], seeders: list[Entry]
) -> list[TournamentMatch]:
    """The next table's matches, seeded by one of ``seeders``: one, or with duplicate deals
    one per seat rotation, all dealt the same (none when the bots in play have too few
    owners for a table)."""
    last = session.scalar(
        select(func.max(TournamentMatch.index)).where(
            TournamentMatch.tournament_id == tournament.id
        )
    )
    index = 0 if last is None else last + 1
    place = seeds.ladder_place(index)
    rng = random.Random(seeds.match_seed(tournament.secret_key, f"table/{place}"))
    table = _draw_table(session, tournament, entries, seeders, rng)
    if table is None:
        return []
    by_version = {e.bot_version_id: e for e in entries}
    seated = Counter(
        {
            (version, seat): n
            for version in table
            for seat, n in enumerate(by_version[version].seat_counts or [])
        }
    )
    order = assign_seats(table, seated, rng)
    if tournament.duplicate:
        rotations = [order[shift:] + order[:shift] for shift in range(len(order))]
        group = index  # the group's first match index: unique, and it names the deal
        seed = seeds.match_seed(tournament.secret_key, seeds.ladder_group_place(group))
    else:
        rotations, group, seed = [order], None, seeds.match_seed(tournament.secret_key, place)
    matches = []
    for offset, seats in enumerate(rotations):
        for seat, version in enumerate(seats):
            _count_seat(by_version[version], seat)
        match = TournamentMatch.queued(tournament.id, index + offset, seed, seats, group)
        session.add(match)
        matches.append(match)
    session.flush()
    for match in matches:
        match.job_id = new_job_id(match.id)
    return matches


def _draw_table(
    session: Session,
    tournament: Tournament,
    entries: list[Entry],
    seeders: list[Entry],
    rng: random.Random,
) -> list[int] | None:
    """The versions of the next table: the least played of ``seeders`` and opponents drawn
    near its rating (None when the bots in play have too few owners for a table)."""
    team = _teams(session, tournament, entries)
    busy = Counter(
        session.scalars(
            select(MatchSeat.bot_version_id)
            .join(TournamentMatch, TournamentMatch.id == MatchSeat.match_id)
            .where(
                TournamentMatch.tournament_id == tournament.id,
                TournamentMatch.status.in_(OPEN_STATUSES),
            )
        )
    )
    # count matches scheduled, not only recorded, so tables in play are spread too
    load = {e.bot_version_id: e.games + busy[e.bot_version_id] for e in entries}
    seed = min(seeders, key=lambda e: (load[e.bot_version_id], -e.sigma, rng.random()))
    others = [
        e for e in entries if e is not seed and (seed not in team or team.get(e) != team[seed])
    ]
    if not others:
        return None
    lightest = min(load[e.bot_version_id] for e in others)
    # opponents within one game of the least played (nobody falls behind), then the
    # others if the table is not full yet
    near = [e for e in others if load[e.bot_version_id] <= lightest + 1]
    far = [e for e in others if load[e.bot_version_id] > lightest + 1]
    wanted = tournament.table_size - 1
    system = tournament.rating
    chosen = matchmaking.draw(
        system, _rating(seed), {e: _rating(e) for e in near}, wanted, rng, team
    )
    if len(chosen) < wanted:
        taken = {team[e] for e in chosen if e in team}
        far = [e for e in far if team.get(e, e) not in taken]
        chosen += matchmaking.draw(
            system, _rating(seed), {e: _rating(e) for e in far}, wanted - len(chosen), rng, team
        )
    if len(chosen) < wanted:
        return None
    return [seed.bot_version_id] + [e.bot_version_id for e in chosen]


def _rating(entry: Entry) -> tuple[float, float]:
    return entry.mu, entry.sigma


def _count_seat(entry: Entry, seat: int) -> None:
    counts = list(entry.seat_counts or [])
    counts.extend([0] * (seat + 1 - len(counts)))
    counts[seat] += 1
    entry.seat_counts = counts  # a new list: the ORM sees the change


def stop(session: Session, tournament: Tournament) -> int:
    """End a ladder: matches not yet started are dropped; running ones are still recorded."""
    tournament.status = TournamentStatus.DONE
    tournament.finished_at = now()
    return rows_changed(
        session.execute(
            update(TournamentMatch)
            .where(
                TournamentMatch.tournament_id == tournament.id,
                TournamentMatch.status.in_([MatchStatus.PENDING, MatchStatus.QUEUED]),
            )
            .values(
                status=MatchStatus.STALE,
                error=said("match.ladder_stopped"),
                job_id=None,
                finished_at=now(),
            )
        )
    )
