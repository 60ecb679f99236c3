"""``arena worker``: play queued matches."""

from __future__ import annotations

from typing import Annotated

import typer

app = typer.Typer()


@app.command("worker")
def worker_command(
    burst: Annotated[
        bool,
        typer.Option(
            help="Stop when the queue is empty: play what is queued and A/B tests to their "
            "verdict, but seat no new ladder table (a ladder never ends)."
        ),
    ] = False,
) -> None:
    """Run a worker that plays queued matches (needs REDIS_URL, and ARENA_DATABASE_URL
    unless the database is the local default)."""
    from worker import runner

    runner.run(burst=burst)
