"""Each starter kit uploaded to a fresh platform, as a competitor would upload it.

``arena up`` on a new data folder (a private Redis, SQLite, a worker per core, the
demo), an owner made with ``arena owner add``, then each language's kit uploaded as
its own bot through the API as an archive (what the /owner form sends), one after the
other. Measured per kit: seconds from its upload to its version qualified (built in its
sandbox, one qualification match played), to its first ranked match in the default
competition, and to its ``matches``-th; its forfeits and illegal actions over them.
First, each language's start-up in a seat (:func:`startup`), Python's as the yardstick.
"""

from __future__ import annotations

import base64
import contextlib
import io
import os
import re
import signal
import socket
import subprocess
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from statistics import median
from typing import Any

import httpx

from arena.bench.startup import arena_command
from sample_bots import KITS, kit

#: the target: qualified and ranked within a minute of the upload
TARGET_S = 60.0


def archive_of(folder: Path) -> str:
    """``folder`` as a base64 .tar.gz (its files at the top)."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w:gz") as tar:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                tar.add(path, arcname=str(path.relative_to(folder)))
    return base64.b64encode(raw.getvalue()).decode()


def startup(
    language: str, folder: Path, repeats: int, say: Callable[[str], None]
) -> dict[str, float]:
    """A seat's start-up in ``language``: seconds from its sandbox's start to its socket
    (the adapter listening), then ms to its first answer (the program started, a JVM
    warming) and the median of its other answers, over ``repeats`` matches against the
    honest sample, each in a new sandbox (the first on a new image copy)."""
    from arena.base import aio
    from arena.engine import Ruleset
    from arena.platform.sandbox import Sandbox
    from arena.platform.sandbox.build import built_copy
    from arena.referee import GrpcSeat, LocalSeat, Referee, RefereeSettings, Seat
    from sample_bots import HonestBot

    work, made = built_copy(kit(language), folder)
    if not made.ok:
        raise RuntimeError(f"the {language} kit did not build: {made.log}")
    rules = Ruleset.parse("classic")
    settings = RefereeSettings(deadline=10, time_bank=10, start_timeout=60)
    listening, first, later = [], [], []
    for repeat in range(repeats):
        say(f"start-up of a {language} seat, {repeat + 1}/{repeats}")
        began = time.perf_counter()
        with Sandbox(work) as box:
            listening.append(time.perf_counter() - began)
            assert box.endpoint is not None  # set once it listens
            seats: list[Seat] = [
                GrpcSeat(box.endpoint, language),
                LocalSeat(HonestBot(ruleset=rules, players=2)),
            ]
            log = aio.run(Referee(rules, seats, seed=repeat, settings=settings).run())
        steps = [step for deal in log.deals for step in deal.steps]
        mine = [step.latency_ms for step in steps if step.seat == 0 and step.latency_ms]
        first.append(mine[0])
        later.extend(mine[1:])
    return {
        "listening_s": round(median(listening), 3),
        "first_answer_ms": round(median(first), 1),
        "answer_ms": round(median(later), 3),
    }


def run(
    matches: int = 50,
    languages: tuple[str, ...] = KITS,
    progress: Callable[[str], None] | None = None,
    timeout: float = 1800.0,
    repeats: int = 5,
) -> dict[str, Any]:
    """The figures of each kit (see the module's docstring)."""
    say = progress or (lambda _: None)
    with tempfile.TemporaryDirectory(prefix="arena-bench-startup-") as tmp:
        starts = {
            language: startup(language, Path(tmp), repeats, say)
            for language in ("python", *languages)
        }
    with (
        tempfile.TemporaryDirectory(prefix="arena-bench-kits-") as tmp,
        _platform(Path(tmp), say) as (url, token),
    ):
        client = httpx.Client(base_url=url, timeout=60.0)
        headers = {"Authorization": f"Bearer {token}"}
        uploaded: dict[str, float] = {}
        for language in languages:
            body = {
                "name": f"kit-{language}",
                "kind": "archive",
                "archive": archive_of(kit(language)),
            }
            sent = client.post("/api/v1/bots", headers=headers, json=body)
            sent.raise_for_status()
            uploaded[language] = time.monotonic()
        figures = _follow(client, uploaded, matches, timeout, say)
    return {
        "kits": figures,
        "startup": starts,
        "matches": matches,
        "target_s": TARGET_S,
        "met": all(
            f["ranked_s"] is not None and f["ranked_s"] <= TARGET_S and f["forfeits"] == 0
            for f in figures.values()
        ),
    }


def _follow(
    client: httpx.Client,
    uploaded: dict[str, float],
    matches: int,
    timeout: float,
    say: Callable[[str], None],
) -> dict[str, dict[str, Any]]:
    figures: dict[str, dict[str, Any]] = {
        language: {"qualified_s": None, "ranked_s": None, "done_s": None, "status": "pending"}
        for language in uploaded
    }
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        board = {row["bot"]: row for row in _leaderboard(client)}
        for language, began in uploaded.items():
            mine, name = figures[language], f"kit-{language}"
            if mine["status"] == "pending":
                [version] = client.get(f"/api/v1/bots/{name}").json()["versions"][:1]
                if version["status"] != "pending":
                    mine["status"], mine["reason"] = version["status"], version["reason"]
                    mine["qualified_s"] = round(time.monotonic() - began, 1)
            row = board.get(name)
            played = row["games"] if row else 0
            mine |= {
                "games": played,
                "forfeits": row["forfeits"] if row else 0,
                "illegal": row["illegal"] if row else 0,
            }
            if played and mine["ranked_s"] is None:
                mine["ranked_s"] = round(time.monotonic() - began, 1)
            if played >= matches and mine["done_s"] is None:
                mine["done_s"] = round(time.monotonic() - began, 1)
        say(", ".join(f"{lang} {f['games']}/{matches}" for lang, f in figures.items()))
        if all(f["done_s"] is not None or f["status"] == "rejected" for f in figures.values()):
            break
        time.sleep(1.0)
    return figures


def _leaderboard(client: httpx.Client) -> list[dict[str, Any]]:
    found = client.get("/api/v1/competitions/main")
    return found.json().get("leaderboard", []) if found.status_code == 200 else []


@contextlib.contextmanager
def _platform(folder: Path, say: Callable[[str], None]) -> Iterator[tuple[str, str]]:
    """``arena up`` on ``folder`` (its URL) and an owner's token; stopped on exit."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARENA_", "REDIS_URL"))}
    env["ARENA_DATA_DIR"] = str(folder)
    port = _free_port()
    command = arena_command()
    say("starting the platform (arena up)")
    process = subprocess.Popen(
        [*command, "up", "--port", str(port), "--games", "20"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        _wait_healthy(url, process)
        made = subprocess.run(
            [*command, "owner", "add", "bench"], env=env, capture_output=True, text=True, check=True
        )
        token = re.search(r"arena_[\w-]+", made.stdout + made.stderr)
        if token is None:
            raise RuntimeError(f"arena owner add printed no token: {made.stdout}")
        yield url, token.group(0)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGINT)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def _wait_healthy(url: str, process: subprocess.Popen[bytes], timeout: float = 300.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"arena up exited with {process.returncode}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                return
        time.sleep(0.5)
    raise RuntimeError("arena up did not answer in time")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
