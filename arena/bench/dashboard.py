"""Dashboard response times with a big database: 100 bots, 100,000 matches (SQLite).

The matches are written in bulk (four seats each, recorded results and running
totals), and real match logs are stored for the matches whose pages are timed. Each
figure is the median over ``repeats`` requests through the ASGI app, rendering included.
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import insert, select

from arena.base.states import BotKind, MatchStatus, TournamentStatus
from arena.bench.client import TestClient
from arena.engine import Ruleset
from arena.platform.settings import Settings
from arena.referee import LocalSeat, play_match
from arena.store import logs, pairs
from arena.store.models import (
    BotVersion,
    Entry,
    MatchSeat,
    RatingChange,
    RegisteredBot,
    StoredLog,
    Tournament,
    TournamentMatch,
    now,
)
from arena.tournament import formats, ratings, seeds
from dashboard.app import create_app
from sample_bots import RandomBot


def run(
    bots: int = 100,
    matches: int = 100_000,
    repeats: int = 30,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="arena-bench-dashboard-") as tmp:
        app = create_app(Settings(Path(tmp), f"sqlite:///{tmp}/arena.db", None))
        began = time.perf_counter()
        if progress:
            progress(f"writing {matches:,} matches")
        logged = _seed(app.state.platform.db, bots, matches, repeats)
        seeded = time.perf_counter() - began
        client = TestClient(app)
        timings = {
            "leaderboard_ms": _median(client, ["/tournaments/bench"] * repeats),
            "matches_ms": _median(client, ["/matches"] * repeats),
            "match_ms": _median(client, [f"/matches/{m}" for m in logged]),
            "matches_by_bot_ms": _median(
                client, [f"/matches?bot=bot-{i % bots:03d}" for i in range(repeats)]
            ),
            "leaderboard_api_ms": _median(
                client, ["/api/v1/tournaments/bench/leaderboard"] * repeats
            ),
            "chart_ms": _median(client, ["/tournaments/bench/chart"] * repeats),
            "bot_page_ms": _median(client, [f"/bots/bot-{i % bots:03d}" for i in range(repeats)]),
        }
    return {
        **timings,
        "bots": bots,
        "matches": matches,
        "seed_seconds": round(seeded, 1),
        "repeats": repeats,
        "database": "sqlite",
    }


def _median(client: TestClient, urls: list[str]) -> float:
    client.get(urls[0])  # warm the caches once
    samples = []
    for url in urls:
        began = time.perf_counter()
        response = client.get(url)
        samples.append((time.perf_counter() - began) * 1000)
        if response.status_code != 200:
            raise RuntimeError(f"GET {url}: {response.status_code}")
    return round(statistics.median(samples), 2)


def _seed(db, bots: int, matches: int, logged_matches: int) -> list[int]:
    rng = random.Random(0)
    rules = Ruleset.parse("classic")
    with db.engine.begin() as connection:
        connection.execute(
            insert(RegisteredBot),
            [{"id": i + 1, "name": f"bot-{i:03d}", "created_at": now()} for i in range(bots)],
        )
        connection.execute(
            insert(BotVersion),
            [
                {
                    "id": i + 1,
                    "bot_id": i + 1,
                    "number": 1,
                    "kind": BotKind.SAMPLE,
                    "target": "random",
                    "active": True,
                    "created_at": now(),
                }
                for i in range(bots)
            ],
        )
        connection.execute(
            insert(Tournament).values(
                id=1,
                name="bench",
                rules=rules.to_dict(),
                format=formats.ROUND_ROBIN.name,
                table_size=4,
                games=matches,
                secret_key=seeds.key_from_seed("bench"),
                settings={},
                status=TournamentStatus.DONE,
                completed=matches,
                created_at=now(),
            )
        )
        start = ratings.DEFAULT.start()
        connection.execute(
            insert(Entry),
            [
                {
                    "tournament_id": 1,
                    "bot_version_id": i + 1,
                    "mu": start.mu + rng.gauss(0, 3),
                    "sigma": 1.0 + rng.random(),
                    "games": matches * 4 // bots,
                    "place_sum": matches * 10 // bots,
                    "wins": matches // bots,
                    "plays": 1000,
                    "bluffs": 400,
                    "decisions": 3000,
                    "challenges": 500,
                    "challenges_right": 300,
                    "believes": 300,
                    "believes_right": 200,
                }
                for i in range(bots)
            ],
        )
        for first in range(0, matches, 10_000):
            chunk = range(first, min(matches, first + 10_000))
            connection.execute(
                insert(TournamentMatch),
                [
                    {
                        "id": i + 1,
                        "tournament_id": 1,
                        "index": i,
                        "seed": f"bench/{i}",
                        "status": MatchStatus.DONE,
                        "attempts": 1,
                        "completion": i + 1,
                        "finished_at": now(),
                        "referee_ms": 1.0,
                    }
                    for i in chunk
                ],
            )
            tables = {i: [bot + 1 for bot in rng.sample(range(bots), 4)] for i in chunk}
            connection.execute(
                insert(MatchSeat),
                [
                    {
                        "match_id": i + 1,
                        "seat": seat,
                        "bot_version_id": version,
                        "place": seat + 1,
                        "strikes": 0,
                        "illegal": 0,
                        "decisions": 9,
                    }
                    for i, table in tables.items()
                    for seat, version in enumerate(table)
                ],
            )
            connection.execute(
                insert(RatingChange),
                [
                    {
                        "tournament_id": 1,
                        "bot_version_id": version,
                        "match_id": i + 1,
                        "completion": i,
                        "mu": 25 + rng.gauss(0, 3),
                        "sigma": 1 + rng.random(),
                    }
                    for i, table in tables.items()
                    for version in table
                ],
            )
            pairs.add(
                connection,
                [row for table in tables.values() for row in pairs.rows(1, table, [1, 2, 3, 4])],
            )
        logged = rng.sample(range(1, matches + 1), logged_matches)
        rows = connection.execute(
            select(MatchSeat.match_id, MatchSeat.bot_version_id).where(
                MatchSeat.match_id.in_(logged)
            )
        ).all()
        for match_id in logged:
            names = [f"bot-{v - 1:03d} v1" for m, v in rows if m == match_id]
            log = play_match(
                rules, [LocalSeat(RandomBot(seed=s), n) for s, n in enumerate(names)], seed=match_id
            )
            blob = logs.encode(log)
            connection.execute(
                insert(StoredLog).values(match_id=match_id, data=blob, size=len(blob))
            )
    return logged
