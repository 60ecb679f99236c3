"""Tournaments: create and schedule, start, follow, and the leaderboard."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy import Row, func, select, update
from sqlalchemy.orm import Session

from arena.base.errors import Conflict, Invalid, NotFound
from arena.base.jobs import job_sizes, new_job_id
from arena.base.people import Someone
from arena.base.states import MatchStatus, TournamentStatus
from arena.engine import Game, RulesError, Ruleset
from arena.referee import RefereeSettings
from arena.store import ladder, rounds
from arena.store.bots import active_version, check_name
from arena.store.limits import PrivateLimits
from arena.store.models import (
    BotVersion,
    Entry,
    MatchSeat,
    RegisteredBot,
    Tournament,
    TournamentMatch,
    now,
)
from arena.store.rounds import Placing
from arena.store.teams import households
from arena.tournament import formats, ratings, seeds
from arena.tournament.formats.base import Format, NewTournament, Plays

#: name prefixes of the platform's own tournaments (A/B tests, qualification matches)
RESERVED = ("abtest.", "platform.")


def create(
    session: Session,
    name: str,
    ruleset: Ruleset,
    bot_names: list[str],
    table_size: int,
    games: int,
    seed: str | None = None,
    settings: RefereeSettings | None = None,
    duplicate: bool = False,
    format: str = formats.DEFAULT.name,
    reveal_delay: int = 3600,
    fresh_processes: bool = False,
    owner: Someone | None = None,
    limits: PrivateLimits | None = None,
    waits_for_bots: bool = False,
    same_owner_tables: bool = False,
    advance: int = 2,
    rating: str = ratings.DEFAULT.name,
) -> Tournament:
    """A tournament: round robin (matches scheduled now, not yet started), or a ladder
    (tables scheduled as it plays, ``games`` of them in play at once).

    Its match seeds are keyed hashes of a secret key (arena.tournament.seeds): random, or derived
    from ``seed`` to replay a tournament. A ladder's full match logs become public
    ``reveal_delay`` seconds after their match. With ``fresh_processes`` uploaded bots
    get a new process for each match (slower; by default a worker keeps them warm).
    An ``owner``'s tournament is private, within ``limits`` (its rights are the
    caller's: arena.services.rights). A
    ladder that ``waits_for_bots`` (a competition's) may start with fewer bots than a
    table: it plays once enough have entered. Two bots of one owner never share a table
    unless ``same_owner_tables`` (the operator's bots, without an owner, always may).
    ``format``: its format's registered name (arena.tournament.formats): a Swiss
    tournament plays ``games`` rounds; a knockout sends each table's best ``advance`` on
    (arena.store.rounds). ``rating``: its rating of record's name (arena.tournament.ratings)."""
    name = check_new(session, name, ruleset, table_size, games, reveal_delay)
    settings = settings or RefereeSettings()
    played_as = format_named(format)
    if played_as.made_by is not None:
        raise Invalid(played_as.made_by)
    twice = sorted({name for name in bot_names if bot_names.count(name) > 1})
    if twice:
        raise Invalid.of("tournament.listed_twice", names=", ".join(twice))
    try:
        versions = [active_version(session, bot) for bot in bot_names]
    except NotFound as error:  # the request names it: invalid input, not a missing page
        raise Invalid.like(error) from None
    shape = Shape(
        duplicate,
        format,
        reveal_delay,
        fresh_processes,
        waits_for_bots,
        same_owner_tables,
        advance,
        rating,
    )
    return add(
        session, name, ruleset, versions, table_size, games, seed, settings, shape, owner, limits
    )


@dataclass(frozen=True)
class Shape:
    """How a tournament plays, beside its bots and size (see :func:`create`)."""

    duplicate: bool = False
    format: str = formats.DEFAULT.name
    reveal_delay: int = 3600
    fresh_processes: bool = False
    waits_for_bots: bool = False
    same_owner_tables: bool = False
    advance: int = 2
    rating: str = ratings.DEFAULT.name


def format_named(name: str) -> Format:
    """The registered format ``name`` (``Invalid`` when there is none)."""
    try:
        return formats.named(name)
    except formats.UnknownFormat as error:
        raise Invalid(str(error)) from None


def check_new(
    session: Session, name: str, ruleset: Ruleset, table_size: int, games: int, reveal_delay: int
) -> str:
    """The name of a new tournament, checked with what any tournament must be."""
    name = check_name(name, "tournament")
    if name.startswith(RESERVED):
        raise Invalid.of("tournament.reserved", prefixes=" or ".join(RESERVED))
    if session.scalar(select(Tournament).where(Tournament.name == name)) is not None:
        raise Conflict.of("name.taken", what="tournament", name=name)
    if games < 1:
        raise Invalid.of("tournament.no_games")
    try:
        Game(ruleset, table_size)
    except RulesError as error:
        raise Invalid.of("tournament.table_size", size=table_size, error=error) from None
    if reveal_delay < 0:
        raise Invalid.of("tournament.reveal_delay")
    return name


def add(
    session: Session,
    name: str,
    ruleset: Ruleset,
    versions: list[BotVersion],
    table_size: int,
    games: int,
    seed: str | None,
    settings: RefereeSettings,
    shape: Shape,
    owner: Someone | None = None,
    limits: PrivateLimits | None = None,
) -> Tournament:
    """A checked tournament of these ``versions``, its matches scheduled by its format
    (see :func:`create`)."""
    format = format_named(shape.format)
    key = seeds.key_for(seed)
    ids = [v.id for v in versions]
    # an owner's tournament ranks nothing: its bots (all theirs) may share tables
    same_owner_tables = shape.same_owner_tables or owner is not None
    teams = {} if same_owner_tables else households(session, ids)
    games_limit = (limits or PrivateLimits()).games if owner is not None else None
    new = NewTournament(
        ids, table_size, games, key, teams, shape.duplicate, shape.waits_for_bots, shape.advance,
        games_limit,
    )  # fmt: skip
    try:
        ratings.named(shape.rating)
    except ValueError as error:
        raise Invalid(str(error)) from None
    try:
        seated = format.seating(new)
    except ValueError as error:
        raise Invalid(str(error)) from None
    plan = seated.plan
    tournament = Tournament(
        name=name,
        rules=ruleset.to_dict(),
        table_size=table_size,
        games=seated.games,
        format=format.name,
        rating_system=shape.rating,
        advance=shape.advance if "advance" in format.parameters else None,
        secret_key=key,
        reveal_delay=shape.reveal_delay,
        duplicate=seated.duplicate,
        fresh_processes=shape.fresh_processes,
        same_owner_tables=same_owner_tables,
        settings=asdict(settings),
        owner_id=owner.id if owner is not None else None,
    )
    session.add(tournament)
    session.flush()
    session.add_all(tournament.new_entry(v.id) for v in versions)
    for index, (group, table, match_seed) in enumerate(plan):
        match = TournamentMatch(
            tournament_id=tournament.id, index=index, seed=match_seed, deal_group=group
        )
        match.seats = [
            MatchSeat(seat=seat, bot_version_id=version) for seat, version in enumerate(table)
        ]
        session.add(match)
    session.flush()
    return tournament


def stop(session: Session, name: str) -> int:
    """Stop a ladder, or an owner's private run of any format (a scrimmage, a private
    round robin); the matches not yet started dropped. The operator's round robin ends
    by itself."""
    tournament = get(session, name)
    private = tournament.owner_id is not None
    if format_named(tournament.format).ends_by_itself and not private:
        raise Invalid.of("tournament.not_a_ladder", name=name, format=tournament.format)
    if tournament.status is TournamentStatus.DONE:
        raise Conflict.of("tournament.over", name=name)
    return ladder.stop(session, tournament)


def is_private_tournament(tournament: Tournament) -> bool:
    """An owner's own tournament (not ranked work, as an A/B test is): its matches are
    played only when no ranked match (a competition's, a qualification, an A/B test's)
    waits."""
    return tournament.owner_id is not None and not format_named(tournament.format).ranked_work


def get(session: Session, name: str) -> Tournament:
    tournament = session.scalar(select(Tournament).where(Tournament.name == name))
    if tournament is None:
        raise NotFound.of("name.missing", what="tournament", name=name)
    return tournament


#: the most matches one queue job carries (a worker plays a job's matches at once when
#: their bots are outside it: worker.runtime)


def start(session: Session, name: str, workers: int = 1) -> list[tuple[int, str]]:
    """Mark the tournament running and its pending matches queued, in jobs sized for
    ``workers`` workers (``job_sizes``: the matches of a job share its id).

    Returns ``(match id, job id)`` pairs to enqueue once this transaction commits (a
    failed enqueue is repaired by the reconciler, which re-sends queued matches whose
    job is missing)."""
    tournament = get(session, name)
    if tournament.status is TournamentStatus.DONE:
        raise Conflict.of("tournament.over", name=name)
    tournament.status = TournamentStatus.RUNNING
    tournament.started_at = tournament.started_at or now()
    plays = format_named(tournament.format).plays
    if plays is Plays.TABLES_IN_PLAY:
        return ladder.refill_in(session, tournament.id)
    if plays is Plays.IN_ROUNDS:
        return rounds.refill_in(session, tournament.id)
    pending = list(
        session.scalars(
            select(TournamentMatch.id)
            .where(
                TournamentMatch.tournament_id == tournament.id,
                TournamentMatch.status == MatchStatus.PENDING,
            )
            .order_by(TournamentMatch.index)
        )
    )
    jobs: list[tuple[int, str]] = []
    matches = iter(pending)
    for size in job_sizes(len(pending), workers):
        batch = [next(matches) for _ in range(size)]
        job_id = new_job_id(batch[0], private=is_private_tournament(tournament))
        jobs.extend((match_id, job_id) for match_id in batch)
    if jobs:  # one executemany (an ORM bulk update by primary key)
        moment = now()
        session.execute(
            update(TournamentMatch).execution_options(synchronize_session=False),
            [
                {"id": match_id, "status": MatchStatus.QUEUED, "job_id": job, "queued_at": moment}
                for match_id, job in jobs
            ],
        )
    return jobs


#: the statuses counted by reading the matches (done ones are counted as recorded)
_NOT_DONE = [status for status in MatchStatus if status is not MatchStatus.DONE]


def progress(session: Session, tournament: Tournament) -> dict[str, int]:
    """A tournament's matches by status: those still to play or given up read from the
    matches (few, through the tournament and status index), those done from the
    tournament's own counts (a season's millions are not counted again per page)."""
    counts = dict(
        session.execute(
            select(TournamentMatch.status, func.count())
            .where(
                TournamentMatch.tournament_id == tournament.id,
                TournamentMatch.status.in_(_NOT_DONE),
            )
            .group_by(TournamentMatch.status)
        ).all()
    )
    counts[MatchStatus.DONE] = tournament.completed - tournament.voided
    result = {status.value: counts.get(status, 0) for status in MatchStatus}
    result["total"] = sum(counts.values())
    # played to the end or given up (failed, stale): none of them will play again
    result["ended"] = result["done"] + result["failed"] + result["stale"]
    return result


@dataclass(frozen=True)
class BoardRow:
    """An entry as the leaderboard ranks it: its rating, running totals and play style
    (the figures as stored: presenters round them)."""

    rank: int
    bot: str
    version: int
    version_id: int
    mu: float
    sigma: float
    #: ``mu - 3 sigma``: what the board is ordered by
    score: float
    games: int
    mean_place: float | None
    win_share: float | None
    wins: int
    forfeits: int
    strikes: int
    illegal: int
    bluff_rate: float | None
    challenge_rate: float | None
    challenge_accuracy: float | None
    believe_rate: float | None
    believe_accuracy: float | None


def leaderboard(session: Session, tournament: Tournament, top: int | None = None) -> list[BoardRow]:
    """Entries by ``mu - 3 sigma`` with their running totals and play style; those that
    have not played yet last (a start rating is no result: it outranked bots that had
    played and lost). ``top``: the first ranks only (a chart's leaders: a thousand rows
    built for eight took 12 ms)."""
    entries = session.execute(
        select(*_BOARD_COLUMNS)
        .join(BotVersion, BotVersion.id == Entry.bot_version_id)
        .join(RegisteredBot, RegisteredBot.id == BotVersion.bot_id)
        .where(Entry.tournament_id == tournament.id, Entry.retired.is_(False))
    ).all()
    ranked = sorted(entries, key=lambda e: (e.games == 0, -ratings.conservative(e.mu, e.sigma)))
    ranked = ranked[:top]
    return [_board_row(rank, entry) for rank, entry in enumerate(ranked, 1)]


#: what a leaderboard row is made of: the entry's figures and its bot's name and version
#: (columns, not loaded objects: a thousand entries as objects took 35-100 ms)
_BOARD_COLUMNS = (
    *(
        getattr(Entry, name)
        for name in (
            "bot_version_id", "mu", "sigma", "games", "place_sum", "wins", "forfeits",
            "strikes", "illegal", "bluffs", "plays", "decisions", "challenges",
            "challenges_right", "believes", "believes_right",
        )
    ),
    RegisteredBot.name.label("bot"),
    BotVersion.number.label("version"),
)  # fmt: skip


def _board_row(rank: int, entry: Row[Any]) -> BoardRow:
    games = entry.games
    return BoardRow(
        rank=rank,
        bot=entry.bot,
        version=entry.version,
        version_id=entry.bot_version_id,
        mu=entry.mu,
        sigma=entry.sigma,
        score=ratings.conservative(entry.mu, entry.sigma),
        games=games,
        mean_place=_share(entry.place_sum, games),
        win_share=_share(entry.wins, games),
        wins=entry.wins,
        forfeits=entry.forfeits,
        strikes=entry.strikes,
        illegal=entry.illegal,
        bluff_rate=_share(entry.bluffs, entry.plays),
        challenge_rate=_share(entry.challenges, entry.decisions),
        challenge_accuracy=_share(entry.challenges_right, entry.challenges),
        believe_rate=_share(entry.believes, entry.decisions),
        believe_accuracy=_share(entry.believes_right, entry.believes),
    )


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def summary(session: Session, tournament: Tournament) -> dict[str, Any]:
    """What a tournament is and how far it got (plain data)."""
    return {
        "name": tournament.name,
        "status": tournament.status.value,
        "format": tournament.format,
        "rating": tournament.rating_system,
        "rules": tournament.rules,
        "table_size": tournament.table_size,
        "games": tournament.games,
        "matches": progress(session, tournament),
        #: bots of one owner may share a table (off: no team play)
        "same_owner_tables": tournament.same_owner_tables,
    }


def standings(
    session: Session, tournament: Tournament, board: list[BoardRow] | None = None
) -> list[Placing]:
    """Every format's final word: bot, version and place (a format in rounds by its own
    rule, the others by the leaderboard's score)."""
    if format_named(tournament.format).in_rounds:
        return rounds.standings(session, tournament)
    board = leaderboard(session, tournament) if board is None else board
    return [Placing(row.bot, row.version, row.rank, {"score": row.score}) for row in board]


def group_scores(
    session: Session, tournament: Tournament, limit: int | None = None
) -> list[dict[str, Any]]:
    """Duplicate tournaments: each bot's summed places per deal group (lower is better),
    newest groups first (all of them, or the newest ``limit``); a group counts once all
    its rotations are played."""
    rows = session.execute(
        select(
            TournamentMatch.deal_group, RegisteredBot.name, func.sum(MatchSeat.place), func.count()
        )
        .join(MatchSeat, MatchSeat.match_id == TournamentMatch.id)
        .join(BotVersion, BotVersion.id == MatchSeat.bot_version_id)
        .join(RegisteredBot, RegisteredBot.id == BotVersion.bot_id)
        .where(
            TournamentMatch.tournament_id == tournament.id,
            TournamentMatch.status == MatchStatus.DONE,
            TournamentMatch.deal_group.is_not(None),
        )
        .group_by(TournamentMatch.deal_group, RegisteredBot.name)
    ).all()
    groups: dict[int, dict[str, int]] = {}
    for group, bot, places, played in rows:
        if group is not None and played == tournament.table_size:
            groups.setdefault(group, {})[bot] = int(places or 0)
    complete = sorted(
        (g for g, scores in groups.items() if len(scores) == tournament.table_size), reverse=True
    )[:limit]
    return [
        {"group": g, "scores": dict(sorted(groups[g].items(), key=lambda kv: kv[1]))}
        for g in complete
    ]
