"""A tournament of the sample bots, the operator's or an owner's (through the API),
started and played."""

from __future__ import annotations

from argon2 import profiles
from fastapi.testclient import TestClient

from arena.engine import Ruleset
from arena.platform import Platform
from arena.store import matches as match_store
from arena.store import tournaments
from tests.support.store import SAMPLES, add_samples, match_ids, play

#: the operator's API token of the ``app_and_token`` app (tests/conftest.py)
OPERATOR_TOKEN = "operator-" + "0" * 32
#: what a password's hash costs in the tests' apps: Argon2id at its least (the
#: platform's is RFC 9106's, 0.16 s of CPU a hash; Django advises the same for tests);
#: the same code hashes, verifies, and makes a hash again at a new cost
#: (tests/test_accounts.py)
TEST_HASHING = profiles.CHEAPEST


def played_tournament(
    client: TestClient, token: str, arena: Platform, games: int = 6, private: bool = False
) -> None:
    """Play a tournament "cup" of the samples: the operator's, or (``private``) one the
    token's owner makes and starts through the API."""
    add_samples(arena.db)
    if private:
        created = client.post(
            "/api/v1/tournaments",
            headers=auth(token),
            json={"name": "cup", "bots": SAMPLES, "table_size": 4, "games": games},
        )
        assert created.status_code == 201, created.text
        started = client.post("/api/v1/tournaments/cup/start", headers=auth(token))
        assert started.json() == {"name": "cup", "queued": games}
    else:
        rules = Ruleset.parse("classic")
        arena.db.transaction(lambda s: tournaments.create(s, "cup", rules, SAMPLES, 4, games))
        assert arena.start_tournament("cup") == games
    for match_id in match_ids(arena.db):
        plan = match_store.claim(arena.db, match_id, "test")
        assert match_store.record(arena.db, plan, play(plan), 1.0)


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}
