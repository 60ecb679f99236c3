"""``arena status``: the platform across its hosts: the database, Redis, the queues, and
every registered worker with its host, load and last heartbeat."""

from __future__ import annotations

import json

import typer
from rich.table import Table

from arena.cli import options
from arena.cli.platform import out, platform

app = typer.Typer()


@app.command("status")
def status_command(json_: options.JsonFlag = False) -> None:
    """The platform across its hosts: queues, matches in play, and every worker (its
    host, load, last heartbeat, how it runs uploaded bots)."""
    from arena.base.states import MatchStatus
    from arena.platform.queue import lane_names, match_queue
    from arena.services.views import operations
    from dashboard import workers

    arena = platform()
    with arena.db.read() as session:
        counts = operations.match_counts(session)
    found = workers.info(arena)
    status = {
        "database": arena.db.shown_url,
        "matches": {s.value: counts.get(s, 0) for s in (MatchStatus.QUEUED, MatchStatus.RUNNING)},
        "redis": "ok" if found["available"] else found["error"],
        "queues": {},
        "workers": found.get("workers", []),
    }
    if found["available"]:
        connection = arena.queue.connection
        ranked, private = lane_names(arena.settings.queue_name)
        status["queues"] = {
            "ranked": len(match_queue(connection, ranked)),
            "private": len(match_queue(connection, private)),
        }
    if json_:
        print(json.dumps(status))
    else:
        _print(status)
    if not found["available"]:  # no platform answers: its queues and workers are unknown
        raise typer.Exit(1)


def _print(status: dict) -> None:
    queues = ", ".join(f"{lane} {jobs}" for lane, jobs in status["queues"].items()) or "-"
    out.print(f"database: {status['database']}", markup=False)
    out.print(f"redis: {status['redis']}; jobs queued: {queues}", markup=False)
    out.print(
        f"matches: {status['matches']['queued']} queued, {status['matches']['running']} playing",
        markup=False,
    )
    table = Table("host", "pid", "state", "load", "heartbeat", "done", "uploaded bots")
    for worker in sorted(status["workers"], key=lambda w: (w["host"], w["pid"])):
        age = worker["heartbeat_age_s"]
        table.add_row(
            worker["host"], str(worker["pid"]), worker["state"],
            "-" if worker["load"] is None else f"{worker['load']:.2f}",
            "-" if age is None else f"{age:.0f} s ago", str(worker["done"]),
            _sandbox(worker["sandbox"]),
        )  # fmt: skip
    out.print(table if status["workers"] else "no worker registered")


def _sandbox(described: str) -> str:
    """A worker's sandbox in a word or two (``--json`` keeps its whole sentence)."""
    if "UNSANDBOXED" in described:
        return "UNSANDBOXED"
    if "cannot run" in described:
        return "cannot run them"
    if "sandboxed" in described:
        return "sandboxed" + (", no cgroups" if "no cgroups" in described else "")
    return described
