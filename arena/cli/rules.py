"""``arena rules``: check conformance scenarios and play in-process series."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from arena.cli import options
from arena.engine import Game, Ruleset
from arena.engine.cards import deck_ranks
from arena.engine.rules import parse_option_pairs
from arena.game import scenarios
from arena.game.selfplay import play_series

app = typer.Typer(
    help="The rules engine: conformance scenarios and in-process play.", no_args_is_help=True
)
out = Console(highlight=False, soft_wrap=True)


@app.command()
def check(
    paths: Annotated[list[Path], typer.Argument(help="Scenario files or folders of *.json.")],
) -> None:
    """Check scenario files: exit 0 when all pass, 1 when any fails, 2 when any is malformed."""
    passed = failed = malformed = 0
    for path in scenarios.find(paths):
        try:
            outcome = scenarios.run(scenarios.load(path))
        except scenarios.ScenarioError as error:
            malformed += 1
            out.print(f"ERROR {path}: {error}", markup=False)
            continue
        name = outcome.scenario.name
        if outcome.passed:
            passed += 1
            out.print(f"PASS {name}", markup=False)
            continue
        failed += 1
        out.print(f"FAIL {name}", markup=False)
        for key, (expected, actual) in outcome.differences.items():
            out.print(
                f"  {key}: expected {json.dumps(expected)}, actual {json.dumps(actual)}",
                markup=False,
            )
    total = passed + failed + malformed
    out.print(
        f"{passed} passed, {failed} failed" + (f", {malformed} malformed" if malformed else ""),
        markup=False,
    )
    if total == 0:
        out.print("no scenario files found", markup=False)
        raise typer.Exit(2)
    raise typer.Exit(2 if malformed else 1 if failed else 0)


@app.command()
def play(
    rules: options.Rules = "classic",
    option: options.Overrides = None,
    players: Annotated[int, typer.Option("--players", min=2, help="Seats at the table.")] = 4,
    games: options.Games = 100,
    seed: options.Seed = 0,
) -> None:
    """Play games between built-in random-legal policies and summarise them."""
    ruleset, game_players = checked_ruleset(rules, option or [], players)
    with Progress(
        TextColumn("playing"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task("games", total=games)
        summary = play_series(
            ruleset,
            game_players,
            games,
            seed,
            progress=lambda done: bar.update(task, completed=done),
        )
    out.print(
        f"{summary.games} games, {summary.deals} deals of {ruleset} with {players} players,"
        f" seed {seed}"
    )
    out.print(
        f"mean turns per deal: {summary.mean_turns:.1f}"
        f" (stopped by max_turns: {summary.max_turn_stops})"
    )
    table = Table(
        "seat",
        "mean place",
        *[f"#{i + 1}" for i in range(players)],
        "pickups",
        "cards picked up",
        "illegal",
    )
    for seat in range(players):
        table.add_row(
            str(seat),
            f"{summary.mean_place(seat):.2f}",
            *map(str, summary.places[seat]),
            str(summary.pickups[seat]),
            str(summary.cards_picked_up[seat]),
            str(summary.illegal[seat]),
        )
    out.print(table)


@app.command()
def show(
    rules: options.Rules = "classic",
    option: options.Overrides = None,
    players: Annotated[int, typer.Option("--players", min=2, help="Seats at the table.")] = 4,
    json_: options.JsonFlag = False,
) -> None:
    """Print the effective rules: every option (the overridden ones marked) and what they
    make of a table of --players (the deck, the ranks that can be declared)."""
    ruleset, _ = checked_ruleset(rules, option or [], players)
    game = Game(ruleset, players)
    effective = ruleset.effective()
    declarable = [r for r in deck_ranks(game.deck_size) if r in game.declarable]
    table_facts = {
        "players": players,
        "cards": len(game.deck),
        "decks": game.decks,
        "declarable_ranks": declarable,
    }
    if json_:
        print(json.dumps({**ruleset.to_dict(), "effective": effective, "table": table_facts}))
        return
    changed = ruleset.overrides()
    table = Table(title=f"{ruleset} for {players} players (docs/rules.md)")
    table.add_column("option")
    table.add_column("value")
    table.add_column("")
    for name, value in effective.items():
        shown = ",".join(value) if isinstance(value, list) else str(value)
        table.add_row(name, shown or "-", "set" if name in changed else "")
    out.print(table)
    ranks = "".join(declarable)
    out.print(
        f"a deck of {table_facts['cards']} cards ({game.decks} pack(s), {game.options.jokers} "
        f"jokers); ranks that can be declared: {ranks}"
    )


def checked_ruleset(preset: str, pairs: list[str], players: int) -> tuple[Ruleset, int]:
    """Parse and resolve the ruleset for ``players`` (a RulesError if it cannot be: said by
    arena.cli.main, exit 2)."""
    ruleset = Ruleset.parse(preset, parse_option_pairs(pairs))
    Game(ruleset, players)
    return ruleset, players
