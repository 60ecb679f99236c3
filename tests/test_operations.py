"""What an operator's tools read (issue 39): Prometheus metrics at ``/metrics`` from the
database and the queue, ``/healthz`` and ``/readyz``; with Redis away the metrics still
report what the database holds and readiness says what is missing."""

from __future__ import annotations

from dataclasses import replace

import pytest
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


def test_the_site_times_each_request_by_route(
    app_and_token: tuple[TestClient, str, Platform],
) -> None:
    client, token, arena = app_and_token
    played_tournament(client, token, arena, games=2)
    for path in ("/leaderboard", "/leaderboard", "/api/v1/matches", "/matches/1", "/"):
        assert client.get(path).status_code == 200
    found = _samples(client)

    def counted(route: str) -> float:
        return found["arena_http_request_seconds_count", (("route", route),)]

    assert counted("/leaderboard") == 2 and counted("/api/v1/matches") == 1
    assert counted("/matches/{match_id}") == 1 and counted("/") == 1
    every = found["arena_http_request_seconds_bucket", (("le", "+Inf"), ("route", "/leaderboard"))]
    assert every == 2


def test_no_path_a_stranger_asks_for_adds_a_series(
    app_and_token: tuple[TestClient, str, Platform],
) -> None:
    """20,000 made-up paths once took /metrics from 27 kB to 26.7 MB: every label is a
    route's template, or 'unmatched'."""
    client, _, _ = app_and_token
    client.get("/metrics")
    before = len(client.get("/metrics").text)
    for number in range(300):
        client.get(f"/nope-{number}/x")
        client.get(f"/matches/{number}")
        client.post(f"/api/v1/nothing-{number}", json={})
    found = _samples(client)
    routes = {dict(labels).get("route") for name, labels in found if "http_request" in name}
    assert "unmatched" in routes and "/matches/{match_id}" in routes
    assert not any(route and ("nope" in route or "nothing" in route) for route in routes)
    assert len(client.get("/metrics").text) < before + 8000


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


@pytest.mark.processes
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_worker_exports_its_own_matches_and_timings(settings: Settings) -> None:
    """A worker started with ARENA_WORKER_METRICS serves what only it sees: the matches
    it recorded, those in flight, and how long claims, set-up and recording took."""
    import subprocess
    import sys
    import urllib.request

    from arena.platform.children import spawn
    from tests.support.cli import environment
    from tests.support.store import add_samples
    from tests.support.waiting import wait_until

    arena = Platform(settings)
    add_samples(arena.db)
    arena.db.transaction(
        lambda s: tournaments.create(s, "cup", Ruleset.parse("classic"), SAMPLES, 4, 6)
    )
    address = f"127.0.0.1:{free_port()}"
    env = environment(settings) | {"ARENA_WORKER_METRICS": address}
    worker = spawn(
        [sys.executable, "-m", "arena", "worker"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        arena.start_tournament("cup")

        def scraped() -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
            try:
                text = urllib.request.urlopen(f"http://{address}/metrics", timeout=5).read()
            except OSError:
                return {}
            return {
                (sample.name, tuple(sorted(sample.labels.items()))): sample.value
                for family in text_string_to_metric_families(text.decode())
                for sample in family.samples
            }

        found = wait_until(
            lambda: (
                (m := scraped()).get(("arena_worker_matches_total", (("outcome", "recorded"),)))
                == 6
                and m
            ),
            "the worker never exported its six recorded matches",
        )
    finally:
        worker.terminate()
        worker.wait(30)
    assert found["arena_worker_matches_in_flight", ()] == 0
    for timing in ("claim", "setup", "record"):
        assert found[f"arena_worker_{timing}_seconds_count", ()] > 0, timing
    assert found["arena_worker_record_seconds_count", ()] == 6


def test_the_grafana_dashboard_reads_only_metrics_the_platform_exports(
    app_and_token: tuple[TestClient, str, Platform],
) -> None:
    """docs/grafana/arena.json: every series its panels query is one the dashboard's or a
    worker's /metrics serves (a renamed metric would leave a panel empty)."""
    import json
    import re
    from pathlib import Path

    from worker import metrics as worker_metrics

    client, token, arena = app_and_token
    played_tournament(client, token, arena, games=2)
    families = [
        *text_string_to_metric_families(client.get("/metrics").text),
        *worker_metrics.REGISTRY.collect(),
    ]
    suffixes = {"counter": ["_total"], "histogram": ["_bucket", "_count", "_sum"]}
    served = {
        family.name + suffix
        for family in families
        for suffix in ["", *suffixes.get(family.type, [])]
    }
    board = json.loads((Path(__file__).parents[1] / "docs/grafana/arena.json").read_text())
    queried = {
        name
        for panel in board["panels"]
        for target in panel["targets"]
        for name in re.findall(r"\barena_[a-z_]+", target["expr"])
    }
    assert len(board["panels"]) >= 8 and queried
    assert queried <= served, queried - served
