"""A tournament of the sample bots created and started through the API, then played."""

from __future__ import annotations

from fastapi.testclient import TestClient

from arena.platform import Platform
from arena.store import matches as match_store
from tests.support.store import SAMPLES, add_samples, match_ids, play


def played_tournament(client: TestClient, token: str, arena: Platform, games: int = 6) -> None:
    add_samples(arena.db)
    created = client.post(
        "/api/v1/tournaments",
        headers=auth(token),
        json={"name": "cup", "bots": SAMPLES, "table_size": 4, "games": games},
    )
    assert created.status_code == 201, created.text
    assert client.post("/api/v1/tournaments/cup/start", headers=auth(token)).json() == {
        "name": "cup",
        "queued": games,
    }
    for match_id in match_ids(arena.db):
        plan = match_store.claim(arena.db, match_id, "test")
        assert match_store.record(arena.db, plan, play(plan), 1.0)


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}
