"""The operator's moderation as the store keeps it: a disqualified bot or version (off
every leaderboard at once: its entries retire, so no new table seats it and a table in
play is not recorded), and a voided match (its result leaves the ratings: they are
recomputed from the recorded results in completion order, as they were applied)."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from arena.base.errors import Conflict, Invalid, NotFound
from arena.base.states import OPEN_STATUSES, MatchStatus
from arena.referee.style import STYLE_FIELDS
from arena.store.models import (
    BotVersion,
    Entry,
    MatchSeat,
    RatingChange,
    RegisteredBot,
    Tournament,
    TournamentMatch,
)
from arena.tournament import formats, ratings
from arena.tournament.formats.base import Counting

#: an entry's running totals, summed again from its seats when a match is voided
TOTALS = ("place_sum", "wins", "forfeits", "strikes", "illegal", "decisions", *STYLE_FIELDS)


def disqualify_version(
    session: Session, version: BotVersion, reason: str, moment: datetime
) -> None:
    """``version`` is off every leaderboard and seated at no new table, for good."""
    if version.disqualified_at is not None:
        raise Conflict.of("moderation.again", what=f"{version.bot.name} v{version.number}")
    version.disqualified_at, version.disqualified_reason = moment, reason
    version.active = False
    session.execute(update(Entry).where(Entry.bot_version_id == version.id).values(retired=True))
    session.flush()


def disqualify_bot(session: Session, bot: RegisteredBot, reason: str, moment: datetime) -> None:
    """The bot and every version of it: no new version is taken, none plays again."""
    if bot.disqualified_at is not None:
        raise Conflict.of("moderation.again", what=bot.name)
    bot.disqualified_at, bot.disqualified_reason = moment, reason
    for version in bot.versions:
        if version.disqualified_at is None:
            disqualify_version(session, version, reason, moment)


def void(session: Session, match_id: int, reason: str, moment: datetime) -> Tournament:
    """Void a recorded match: its result leaves its tournament's ratings and totals."""
    match = session.get(TournamentMatch, match_id)
    if match is None:
        raise NotFound.of("moderation.no_match", match=match_id)
    if match.status is not MatchStatus.DONE:
        raise Conflict.of("moderation.not_a_result", match=match_id, status=match.status.value)
    if match.voided_at is not None:
        raise Conflict.of("moderation.voided", match=match_id)
    tournament = session.get_one(Tournament, match.tournament_id)
    if formats.named(tournament.format).counting is Counting.PAIRS:
        raise Invalid.of("moderation.pairs")
    if tournament.format == formats.QUALIFICATION.name:
        raise Invalid.of("moderation.qualification")
    # takes the tournament's row (on PostgreSQL a lock the recorder waits on) and moves
    # its count, so a batch rated from an earlier snapshot is rated again
    session.execute(
        update(Tournament)
        .where(Tournament.id == tournament.id)
        .values(completed=Tournament.completed + 1, voided=Tournament.voided + 1)
    )
    match.voided_at, match.void_reason = moment, reason
    session.flush()
    rerate(session, tournament)
    return tournament


def rerate(session: Session, tournament: Tournament) -> None:
    """The tournament's ratings and totals again from its recorded, unvoided results, in
    completion order (a duplicate tournament's deal groups in the order they closed)."""
    system = tournament.rating
    entries = {
        e.bot_version_id: e
        for e in session.scalars(select(Entry).where(Entry.tournament_id == tournament.id))
    }
    start = system.start()
    for entry in entries.values():
        entry.mu, entry.sigma, entry.games = start.mu, start.sigma, 0
        entry.history_numbered = 0  # its history is written whole again (arena.store.history)
        for name in TOTALS:
            setattr(entry, name, 0)
    session.execute(delete(RatingChange).where(RatingChange.tournament_id == tournament.id))
    played = _played(session, tournament.id)
    for _, seats in played:
        for seat in seats:
            _count(entries[seat.bot_version_id], seat)
    current = {v: ratings.Rating(e.mu, e.sigma) for v, e in entries.items()}
    for match_id, completion, versions, places in _rated_steps(session, tournament, played):
        rated = system.rate([current[v] for v in versions], ratings.ranking_by_score(places))
        for version, rating in zip(versions, rated, strict=True):
            current[version] = rating
            session.add(
                RatingChange(
                    tournament_id=tournament.id,
                    bot_version_id=version,
                    match_id=match_id,
                    completion=completion,
                    mu=rating.mu,
                    sigma=rating.sigma,
                )
            )
    for version, rating in current.items():
        entries[version].mu, entries[version].sigma = rating.mu, rating.sigma
    session.flush()


Played = list[tuple[TournamentMatch, list[MatchSeat]]]


def _played(session: Session, tournament_id: int) -> Played:
    """The tournament's recorded, unvoided matches with their seats, in completion order."""
    matches = list(
        session.scalars(
            select(TournamentMatch)
            .where(
                TournamentMatch.tournament_id == tournament_id,
                TournamentMatch.status == MatchStatus.DONE,
                TournamentMatch.voided_at.is_(None),
            )
            .order_by(TournamentMatch.completion)
        )
    )
    seats: dict[int, list[MatchSeat]] = defaultdict(list)
    for seat in session.scalars(
        select(MatchSeat)
        .join(TournamentMatch, TournamentMatch.id == MatchSeat.match_id)
        .where(
            TournamentMatch.tournament_id == tournament_id,
            TournamentMatch.status == MatchStatus.DONE,
            TournamentMatch.voided_at.is_(None),
        )
        .order_by(MatchSeat.match_id, MatchSeat.seat)
    ):
        seats[seat.match_id].append(seat)
    return [(match, seats[match.id]) for match in matches]


def _count(entry: Entry, seat: MatchSeat) -> None:
    entry.games += 1
    entry.place_sum += seat.place or 0
    entry.wins += int(seat.place == 1)
    entry.forfeits += int(seat.forfeit)
    for name in ("strikes", "illegal", "decisions", *STYLE_FIELDS):
        setattr(entry, name, getattr(entry, name) + getattr(seat, name))


Step = tuple[int, int, list[int], list[int]]  # match id, completion, versions, places


def _rated_steps(session: Session, tournament: Tournament, played: Played) -> list[Step]:
    """The rating updates, in order: one per match, or one per closed deal group (places
    summed over its rotations), as the recorder applied them."""
    if not tournament.duplicate:
        return [
            (
                m.id,
                m.completion or 0,
                [s.bot_version_id for s in seats],
                [s.place or 0 for s in seats],
            )
            for m, seats in played
        ]
    open_groups = set(
        session.scalars(
            select(TournamentMatch.deal_group).where(
                TournamentMatch.tournament_id == tournament.id,
                TournamentMatch.status.in_(OPEN_STATUSES),
            )
        )
    )
    groups: dict[int, tuple[int, int, dict[int, int]]] = {}
    for match, seats in played:
        group = match.deal_group
        if group is None or group in open_groups:
            continue
        _, _, summed = groups.pop(group, (0, 0, {}))
        for seat in seats:
            summed[seat.bot_version_id] = summed.get(seat.bot_version_id, 0) + (seat.place or 0)
        groups[group] = (match.id, match.completion or 0, summed)  # re-inserted: closing order
    return [
        (match_id, completion, sorted(summed), [summed[v] for v in sorted(summed)])
        for match_id, completion, summed in groups.values()
    ]
