"""``arena bench``: benchmarks that print figures (``--json`` for machines)."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.console import Console

app = typer.Typer(help="Benchmarks that print figures.", no_args_is_help=True)
out = Console(highlight=False)

JsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]


@app.command()
def engine(
    json_: JsonFlag = False,
    seconds: Annotated[float, typer.Option(min=0.05, help="Length of each repeat.")] = 2.0,
    repeats: Annotated[int, typer.Option(min=1, help="Repeats; figures are medians.")] = 5,
    players: Annotated[int, typer.Option(min=2, help="Seats at the table.")] = 4,
) -> None:
    """Engine decisions and deals per second (4-player classic, random-legal policies)."""
    from arena.bench import engine as bench_engine

    with Console(stderr=True).status("benchmarking the engine...") as status:
        figures = bench_engine.run(
            seconds,
            repeats,
            players,
            progress=lambda done: status.update(f"benchmarking the engine: {done}/{repeats}"),
        )
    if json_:
        print(json.dumps(figures))
        return
    out.print(
        f"engine, {players}-player classic, random-legal policies, one core, "
        f"median of {repeats} x {seconds:g} s"
    )
    out.print(f"  decisions per second: {figures['decisions_per_s']:,}")
    out.print(f"  deals per second:     {figures['deals_per_s']:,}")
    out.print(f"  decisions per deal:   {figures['decisions_per_deal']}")
