"""What an operator's tools read: ``/metrics`` (Prometheus' text format), ``/healthz``
(the process answers) and ``/readyz`` (it reaches the database and Redis).

The figures are read from the database and Redis when Prometheus scrapes, so every
dashboard replica reports the whole platform, and a scrape while Redis is away still
reports what the database holds (with ``arena_up{component="redis"} 0``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fastapi import APIRouter, Request, Response, status
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from rq import Worker
from sqlalchemy import text

from arena.platform import Platform
from arena.platform.queue import lane_names
from arena.services.views import operations

router = APIRouter(include_in_schema=False)


class PlatformCollector(Collector):
    """The platform's state at scrape time."""

    def __init__(self, platform: Platform) -> None:
        self.platform = platform

    def collect(self) -> Iterator[Metric]:
        up = GaugeMetricFamily("arena_up", "Whether a component answers", labels=["component"])
        try:
            yield from self._database()
            up.add_metric(["database"], 1)
        except Exception:
            up.add_metric(["database"], 0)
        try:
            yield from self._redis()
            up.add_metric(["redis"], 1)
        except Exception:
            up.add_metric(["redis"], 0)
        yield up

    def _database(self) -> Iterator[Metric]:
        with self.platform.db.read() as session:
            matches = operations.matches_by_status(session)
            forfeits = operations.forfeits_by_kind(session)
        by_status = GaugeMetricFamily(
            "arena_matches",
            "Matches by tournament (owners' own summed) and status",
            labels=["tournament", "status"],
        )
        for tournament, state, count in matches:
            by_status.add_metric([tournament, state], count)
        forfeited = CounterMetricFamily(
            "arena_forfeits", "Seats forfeited in recorded matches, by kind", labels=["kind"]
        )
        for kind, count in forfeits:
            forfeited.add_metric([kind], count)
        return iter([by_status, forfeited])

    def _redis(self) -> Iterator[Metric]:
        queue = self.platform.queue
        connection = queue.connection
        depth = GaugeMetricFamily("arena_queue_jobs", "Jobs waiting, by lane", labels=["lane"])
        for name in lane_names(queue.name):
            lane = "private" if name != queue.name else "ranked"
            depth.add_metric([lane], connection.llen(f"rq:queue:{name}"))
        workers = GaugeMetricFamily("arena_workers", "Workers registered on the queue")
        workers.add_metric([], Worker.count(queue=queue))
        return iter([depth, workers])


def registry(platform: Platform) -> CollectorRegistry:
    """A registry of the platform's collector (one per app: tests run several)."""
    made = CollectorRegistry(auto_describe=False)
    made.register(PlatformCollector(platform))
    return made


@router.get("/metrics")
def metrics(request: Request) -> Response:
    return Response(generate_latest(request.app.state.metrics), media_type=CONTENT_TYPE_LATEST)


@router.get("/healthz")
def healthz() -> dict[str, str]:
    """The process answers."""
    return {"status": "ok"}


@router.get("/readyz")
def readyz(request: Request, response: Response) -> dict[str, Any]:
    """Whether the database and Redis answer (503 if either does not)."""
    platform: Platform = request.app.state.platform
    checks = {
        "database": _answers(lambda: _select_one(platform)),
        "redis": _answers(lambda: platform.queue.connection.ping()),
    }
    if any(value != "ok" for value in checks.values()):
        response.status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    return checks


def _select_one(platform: Platform) -> None:
    with platform.db.read() as session:
        session.execute(text("SELECT 1"))


def _answers(check: Any) -> str:
    try:
        check()
    except Exception as error:
        return f"{type(error).__name__}: {error}"[:300]
    return "ok"
