"""What an operator's tools read (issue 39): Prometheus metrics at ``/metrics`` from the
database and the queue, ``/healthz`` and ``/readyz``; with Redis away the metrics still
report what the database holds and readiness says what is missing."""

from __future__ import annotations

from dataclasses import replace

from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from arena.engine import Ruleset
from arena.platform import Platform
from arena.platform.redis_server import free_port
from arena.platform.settings import Settings
from arena.store import tournaments
from dashboard.app import create_app
from tests.support.api import played_tournament
from tests.support.store import SAMPLES


def _samples(client: TestClient) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    answer = client.get("/metrics")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/plain")
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(answer.text)
        for sample in family.samples
    }


def test_metrics_count_matches_forfeits_queued_jobs_and_workers(
    app_and_token: tuple[TestClient, str, Platform],
) -> None:
    client, token, arena = app_and_token
    played_tournament(client, token, arena, games=6)
    rules = Ruleset.parse("classic")
    arena.db.transaction(lambda s: tournaments.create(s, "later", rules, SAMPLES, 4, 5))
    assert arena.start_tournament("later") == 5
    found = _samples(client)
    assert found["arena_matches", (("status", "done"), ("tournament", "cup"))] == 6
    assert found["arena_matches", (("status", "queued"), ("tournament", "later"))] == 5
    assert found["arena_queue_jobs", (("lane", "ranked"),)] == arena.queue.count > 0
    assert found["arena_queue_jobs", (("lane", "private"),)] == 0
    assert found["arena_workers", ()] == 0
    assert found["arena_up", (("component", "database"),)] == 1
    assert found["arena_up", (("component", "redis"),)] == 1
    assert client.get("/healthz").json() == {"status": "ok"}
    ready = client.get("/readyz")
    assert ready.status_code == 200 and ready.json() == {"database": "ok", "redis": "ok"}


def test_an_owners_own_tournament_is_counted_without_its_name(
    app_and_token: tuple[TestClient, str, Platform],
) -> None:
    client, token, arena = app_and_token
    played_tournament(client, token, arena, games=4, private=True)
    found = _samples(client)
    assert found["arena_matches", (("status", "done"), ("tournament", "(owners' own)"))] == 4
    assert not [key for key in found if ("tournament", "cup") in key[1]]


def test_with_redis_away_metrics_report_the_database_and_readiness_fails(
    settings: Settings,
) -> None:
    nowhere = replace(settings, redis_url=f"redis://127.0.0.1:{free_port()}/0")
    client = TestClient(create_app(nowhere))
    found = _samples(client)
    assert found["arena_up", (("component", "redis"),)] == 0
    assert found["arena_up", (("component", "database"),)] == 1
    assert ("arena_queue_jobs", (("lane", "ranked"),)) not in found
    ready = client.get("/readyz")
    assert ready.status_code == 503
    assert ready.json()["database"] == "ok" and ready.json()["redis"] != "ok"
    assert client.get("/healthz").status_code == 200
