"""The store driven directly: sample bots, a started tournament, playing a claimed match."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import select

from arena.base.states import MatchStatus
from arena.engine import Ruleset
from arena.fairplay.counting import Tally
from arena.referee.log import MatchLog
from arena.store import bots, matches, scheduling, tournaments
from arena.store.db import Database
from arena.store.models import Tournament, TournamentMatch
from worker import local

SAMPLES = ["random", "honest", "counter", "bluffer"]


def add_samples(db: Database, names: list[str] = SAMPLES) -> None:
    """The operator's sample bots (a qualification match may have registered some)."""
    db.transaction(lambda s: [bots.register_sample(s, n) for n in names])


def make_tournament(db: Database, games: int = 8, name: str = "t", **kwargs) -> Tournament:
    add_samples(db)
    tournament = db.transaction(
        lambda s: tournaments.create(
            s, name, Ruleset.parse("classic"), SAMPLES, 4, games, seed="s", **kwargs
        )
    )
    db.transaction(lambda s: tournaments.start(s, name))
    return tournament


def play(plan: matches.MatchPlan) -> MatchLog:
    return play_counted(plan)[0]


def play_counted(plan: matches.MatchPlan) -> tuple[MatchLog, tuple[Tally, ...]]:
    """Play a claimed match as a worker does: its log and the referee's fair-play tallies."""
    return local.play(plan)


def match_ids(db: Database) -> list[int]:
    with db.read() as s:
        return list(s.scalars(select(TournamentMatch.id).order_by(TournamentMatch.index)))


def played_competition(
    db: Database, name: str, bots: list[str], rounds: int = 4, table_size: int = 4
) -> int:
    """Open the default competition ``name`` (tables of ``table_size``) with ``bots`` and
    record ``rounds`` rounds of its tables in play, refilling as a worker does; its
    ladder's id."""
    from arena.store import competitions, ladder

    rules = Ruleset.parse("classic")
    db.transaction(
        lambda s: competitions.create(
            s, name, rules, table_size, tables=2, bot_names=bots, default=True
        )
    )
    with db.read() as s:
        tournament_id = competitions.get(s, name).tournament_id
    ladder.refill(db, tournament_id)
    for _ in range(rounds):
        with db.read() as s:
            open_ids = s.scalars(
                select(TournamentMatch.id).where(
                    TournamentMatch.tournament_id == tournament_id,
                    TournamentMatch.status == MatchStatus.QUEUED,
                )
            ).all()
        for match_id in open_ids:
            plan = matches.claim(db, match_id, "test")
            if plan is not None:
                assert matches.record(db, plan, play(plan), 1.0)
        ladder.refill(db, tournament_id)
    return tournament_id


def play_abtest(db: Database, tournament_id: int) -> int:
    """Claim, play and record every queued match of an A/B test, refilling as a worker
    does, until none is queued; how many were recorded."""
    from arena.store import abtests

    recorded = 0
    while True:
        with db.read() as s:
            queued = s.scalars(
                select(TournamentMatch.id).where(
                    TournamentMatch.tournament_id == tournament_id,
                    TournamentMatch.status == MatchStatus.QUEUED,
                )
            ).all()
        if not queued:
            return recorded
        for match_id in queued:
            plan = matches.claim(db, match_id, "test")
            if plan is not None and matches.record(db, plan, play(plan), 1.0):
                recorded += 1
        abtests.refill(db, tournament_id)


def alices_running_table(
    db: Database, seed: str, changed: Callable[[MatchLog, int], MatchLog] | None = None
) -> tuple[int, int, list[int]]:
    """A round robin "t" still running (its logs are not public) with one match recorded,
    owner alice's bot "mine" (the counter sample) at one of its seats; alice must exist.
    ``changed(log, alice's seat)``: the log as recorded instead of as played.
    (the match, alice's seat, the matches still queued)."""
    from arena.base.states import BotKind
    from arena.store.models import Owner

    add_samples(db)

    def alices_bot(session) -> None:
        alice = session.scalars(select(Owner).where(Owner.name == "alice")).one()
        bots.add_bot(session, "mine", BotKind.SAMPLE, "counter", owner_id=alice.id)

    db.transaction(alices_bot)
    field = ["mine", "random", "honest", "bluffer"]
    db.transaction(
        lambda s: tournaments.create(s, "t", Ruleset.parse("classic"), field, 4, 3, seed=seed)
    )
    db.transaction(lambda s: tournaments.start(s, "t"))
    first, *rest = match_ids(db)
    plan = matches.claim(db, first, "w")
    assert plan is not None
    seat = next(i for i, s in enumerate(plan.seats) if s.name == "mine v1")
    played = play(plan) if changed is None else changed(play(plan), seat)
    assert matches.record(db, plan, played, 1.0)
    return first, seat, rest


def play_out(db: Database, name: str) -> int:
    """Play tournament ``name`` as workers do, whatever its format: claim what is queued,
    record it, refill (a ladder's tables, an A/B test's pairs, a round when the last is
    over) until nothing more is queued; the matches played."""
    jobs = db.transaction(lambda s: tournaments.start(s, name))
    played = 0
    while jobs:
        for match_id, _ in jobs:
            plan = matches.claim(db, match_id, "test")
            assert plan is not None
            assert matches.record(db, plan, play(plan), 1.0)
            played += 1
        with db.read() as s:
            found = tournaments.get(s, name)
        jobs = scheduling.refill(db, found.id, found.format)
    return played
