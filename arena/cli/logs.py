"""``arena logs``: match logs in tiers (the database while young, then the cold store)."""

from __future__ import annotations

from typing import Annotated

import typer

from arena.cli.platform import err, out, platform

app = typer.Typer(
    help="Match logs: move old ones to the cold store, drop those retention lets go.",
    no_args_is_help=True,
)


@app.command("tier")
def logs_tier(
    days: Annotated[
        float | None,
        typer.Option(min=0, help="Move logs older than this (default: ARENA_LOGS_HOT_DAYS, 14)."),
    ] = None,
    most: Annotated[int | None, typer.Option(min=1, help="Move at most this many.")] = None,
) -> None:
    """Move the logs of old matches to the cold store (pages still show them), and thin
    the old part of every version's rating history (its newest updates stay whole)."""
    from arena.services import history, tiering

    arena = platform()
    hot_days = arena.settings.logs_hot_days if days is None else days
    with err.status("moving logs to the cold store...") as status:

        def shown(moved: int, size: int) -> None:
            status.update(f"moving logs to the cold store: {moved:,} moved ({size:,} bytes)...")

        done = tiering.tier(arena.db, hot_days, most=most, progress=shown)
    out.print(
        f"{done.moved:,} logs ({done.bytes:,} bytes) of matches finished before "
        f"{done.before[:16].replace('T', ' ')} UTC moved to {arena.settings.cold_store_url()}",
        markup=False,
    )
    with err.status("thinning rating histories...") as status:

        def thinned(versions: int, removed: int) -> None:
            status.update(f"thinning rating histories: {versions:,} versions, {removed:,} removed")

        removed = history.thin_histories(arena.db, progress=thinned)
    out.print(f"{removed:,} old rating updates thinned out of the charts' histories", markup=False)


@app.command("drop")
def logs_drop(
    most: Annotated[int | None, typer.Option(min=1, help="Drop at most this many.")] = None,
) -> None:
    """Drop the logs each competition's retention lets go (`arena competition logs`):
    its old matches' but its best entries'. Results and ratings stay."""
    from arena.services import retention

    arena = platform()
    with err.status("dropping old logs...") as status:
        dropped = retention.drop_old_logs(
            arena.db,
            most=most,
            progress=lambda done: status.update(f"dropping old logs: {done:,} dropped..."),
        )
    out.print(f"{dropped:,} match logs dropped by their competitions' retention", markup=False)
