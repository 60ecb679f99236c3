"""The store driven directly: sample bots, a started tournament, playing a claimed match."""

from __future__ import annotations

from contextlib import ExitStack

from sqlalchemy import select

from arena import aio
from arena.engine import Ruleset
from arena.referee import Referee, RefereeSettings
from arena.store import bots, matches, tournaments
from arena.store.db import Database
from arena.store.models import BotKind, Match, Tournament
from worker.seats import seats_for

SAMPLES = ["random", "honest", "counter", "bluffer"]


def add_samples(db: Database, names: list[str] = SAMPLES) -> None:
    db.transaction(lambda s: [bots.add_bot(s, n, BotKind.SAMPLE, n) for n in names])


def make_tournament(db: Database, games: int = 8, name: str = "t", **kwargs) -> Tournament:
    add_samples(db)
    tournament = db.transaction(
        lambda s: tournaments.create(
            s, name, Ruleset.parse("classic"), SAMPLES, 4, games, seed="s", **kwargs
        )
    )
    db.transaction(lambda s: tournaments.start(s, name))
    return tournament


def play(plan: matches.MatchPlan) -> dict:
    ruleset = Ruleset.from_dict(plan.rules)
    referee = Referee(
        ruleset,
        seats_for(plan.seats, ruleset, plan.seed, ExitStack(), []),
        plan.seed,
        RefereeSettings(**plan.settings),
    )
    return aio.run(referee.run())


def match_ids(db: Database) -> list[int]:
    with db.read() as s:
        return list(s.scalars(select(Match.id).order_by(Match.index)))
