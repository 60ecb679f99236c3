"""``arena up``: run the platform on one machine.

At this stage the platform is the rules engine: ``up`` plays a demo series of
each preset between the built-in policies and prints where to go next. The
scheduler, workers and dashboard join it as they land.
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from arena.engine import Game, Ruleset
from arena.selfplay import play_series

out = Console(highlight=False)


def up(
    games: Annotated[int, typer.Option(min=1, help="Demo games per preset.")] = 200,
    players: Annotated[int, typer.Option(min=2, help="Seats at the demo tables.")] = 4,
) -> None:
    """Run the platform on this machine (now: a demo series of every preset)."""
    out.print(f"Arena: demo series, {games} games of each preset, {players} random-legal players")
    for preset in ("classic", "pagat", "russian"):
        ruleset = Ruleset.parse(preset)
        Game(ruleset, players)
        summary = play_series(ruleset, players, games, seed=0)
        places = ", ".join(f"seat {s}: {summary.mean_place(s):.2f}" for s in range(players))
        out.print(
            f"  {preset:8} {summary.deals} deals, {summary.mean_turns:.1f} turns per deal;"
            f" mean places {places}"
        )
    out.print("Next: 'arena rules play --help', 'arena rules check PATH', 'arena bench engine'.")
