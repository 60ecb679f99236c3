"""Match seeds: keyed hashes of a secret key, reproducible only for whoever holds it."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from arena.base.states import BotKind
from arena.engine import Ruleset
from arena.store import bots, tournaments
from arena.store.db import Database
from arena.store.models import TournamentMatch
from arena.tournament import seeds
from tests.support.store import SAMPLES

#: the store's contract: on SQLite and PostgreSQL alike
pytestmark = pytest.mark.both_databases


def test_a_random_key_holds_256_bits_and_is_new_each_time() -> None:
    keys = {seeds.new_key() for _ in range(100)}
    assert len(keys) == 100 and all(len(bytes.fromhex(key)) == 32 for key in keys)
    assert seeds.key_for(None) not in keys


def test_a_chosen_seed_always_gives_the_same_key_and_other_seeds_other_keys() -> None:
    assert seeds.key_for("spring") == seeds.key_from_seed("spring") == seeds.key_for("spring")
    assert seeds.key_for("spring") != seeds.key_for("spring ")
    assert seeds.key_for(0) == seeds.key_for("0")


def test_match_seeds_are_hmac_sha256_of_the_place_under_the_key() -> None:
    import hashlib
    import hmac

    key = seeds.new_key()
    expected = hmac.new(bytes.fromhex(key), b"match/3", hashlib.sha256).hexdigest()
    assert seeds.match_seed(key, seeds.round_robin_place(3)) == expected
    places = [seeds.round_robin_place(0), seeds.group_place(0), seeds.ladder_place(0)]
    places.append(seeds.game_place(0))
    assert len({seeds.match_seed(key, place) for place in places}) == 4
    assert seeds.match_seed(seeds.new_key(), "match/3") != expected


def _create(db: Database, name: str, seed: str | None, duplicate: bool = False) -> list[str]:
    tournament = db.transaction(
        lambda s: tournaments.create(
            s, name, Ruleset.parse("classic"), SAMPLES, 4, 8, seed=seed, duplicate=duplicate
        )
    )
    with db.read() as session:
        return list(
            session.scalars(
                select(TournamentMatch.seed)
                .where(TournamentMatch.tournament_id == tournament.id)
                .order_by(TournamentMatch.index)
            )
        )


def test_tournament_seeds_come_from_a_secret_key(db: Database) -> None:
    db.transaction(lambda s: [bots.add_bot(s, n, BotKind.SAMPLE, n) for n in SAMPLES])
    random_a, random_b = _create(db, "a", None), _create(db, "b", None)
    assert not set(random_a) & set(random_b), "without --seed every tournament has its own key"
    assert len(set(random_a)) == len(random_a)
    assert _create(db, "c", "spring") == _create(db, "d", "spring"), "--seed replays"
    duplicate = _create(db, "e", None, duplicate=True)
    assert len(set(duplicate)) == 2, "the rotations of a group share their deal"
    with db.read() as session:
        key = session.scalar(select(tournaments.Tournament.secret_key).limit(1))
    assert key is not None and len(bytes.fromhex(key)) == 32
