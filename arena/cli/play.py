"""``arena play`` and ``arena replay``: real matches between real bots, and their logs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from arena.base import aio
from arena.cli import console, options
from arena.cli.errors import fail
from arena.cli.rules import checked_ruleset
from arena.platform.launcher import BotProcesses, first_traceback, parse_bot
from arena.referee import RefereeSettings
from arena.referee.log import MatchLog
from arena.referee.replay import replay
from arena.tournament import seeds
from arena.tournament.series import BotFigures, run_grpc_series

out = console.stdout()
err = console.stderr()


def play(
    bots: Annotated[
        list[str], typer.Argument(help="host:port, a Python bot file, or sample:NAME.")
    ],
    rules: options.Rules = "classic",
    option: options.Overrides = None,
    games: options.Games = 10,
    seed: Annotated[
        str | None,
        typer.Option(
            "--seed",
            help="Text the series' secret key is derived from, to replay it;"
            " default: a random key.",
        ),
    ] = None,
    deadline: Annotated[
        float, typer.Option("--deadline", min=0.001, help="Seconds per decision.")
    ] = 1.0,
    time_bank: Annotated[
        float, typer.Option("--time-bank", min=0.0, help="Extra seconds per seat per match.")
    ] = 5.0,
    logs: Annotated[Path | None, typer.Option("--logs", help="Write each match log here.")] = None,
    json_: options.JsonFlag = False,
) -> None:
    """Play matches between bots (seats rotate) and print a table per bot.

    Exit status: 0 when no bot forfeited, 3 when one forfeited some games, 1 when one
    forfeited every game (or could not be reached or started). A bot that crashed has its
    first traceback printed, whole, once."""
    if len(bots) < 2:
        fail("name at least two bots")
    specs = [parse_bot(bot) for bot in bots]  # BotSpecError: said by arena.cli.main
    ruleset, _ = checked_ruleset(rules, option or [], len(specs))
    settings = RefereeSettings(deadline=deadline, time_bank=time_bank)
    names = _unique([spec.name for spec in specs])
    with BotProcesses(log_dir=logs) as processes:
        endpoints = [processes.endpoint(spec) for spec in specs]  # or BotDidNotStart
        with Progress(
            TextColumn("playing"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=err,
            transient=True,
        ) as bar:
            task = bar.add_task("games", total=games)
            figures = aio.run(
                run_grpc_series(
                    names,
                    endpoints,
                    ruleset,
                    games,
                    seeds.key_for(seed),
                    settings,
                    logs,
                    progress=lambda done: bar.update(task, completed=done),
                )
            )
        _print(figures, len(specs), ruleset, games, json_)
        _explain_forfeits(figures, processes)
    raise typer.Exit(_exit_status(figures))


#: ``arena play``'s exit status when a bot forfeited some of its games (every game: 1)
SOME_FORFEITS = 3


def _exit_status(figures: list[BotFigures]) -> int:
    """1 if a bot forfeited every game it played, 3 if one forfeited some, else 0."""
    forfeited = [f for f in figures if f.forfeit_reasons]
    if not forfeited:
        return 0
    every = [f.name for f in forfeited if f.games and sum(f.forfeit_reasons.values()) >= f.games]
    if every:
        unreachable = all(set(f.forfeit_reasons) == {"unreachable"} for f in forfeited)
        why = (
            "could not be reached or started in any game" if unreachable else "forfeited every game"
        )
        err.print(f"error: {', '.join(every)} {why}", markup=False)
        return 1
    return SOME_FORFEITS


def _explain_forfeits(figures: list[BotFigures], processes: BotProcesses) -> None:
    """Each bot's forfeits with the platform's reason (the table only counts them), and a
    crashed bot's first traceback from its own output, whole, once."""
    for figure in figures:
        for sentence, times in figure.forfeit_details.most_common(3):
            err.print(f"{figure.name} forfeited {times} game(s): {sentence}", markup=False)
        if figure.forfeit_reasons["crashed"]:
            shown = first_traceback(processes.output(figure.name))
            if shown:
                err.print(f"{figure.name}'s first traceback:\n{shown}", markup=False)


def replay_command(
    log: Annotated[Path, typer.Argument(help="A match log written by the referee.", exists=True)],
) -> None:
    """Re-referee a match log from its seed and actions; exit 1 if anything differs."""
    try:
        report = replay(MatchLog.from_dict(json.loads(log.read_text())))
    except (ValueError, KeyError) as error:
        raise typer.BadParameter(f"not a readable match log: {error}", param_hint="LOG") from None
    for mismatch in report.mismatches[:20]:
        out.print(f"MISMATCH {mismatch}", markup=False)
    verdict = "reproduced" if report.ok else "NOT reproduced"
    out.print(f"{verdict}: {report.deals} deals, {report.steps} steps, {report.events} events")
    raise typer.Exit(0 if report.ok else 1)


def _unique(names: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    result = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        result.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return result


def _print(figures: list[BotFigures], players: int, ruleset, games: int, as_json: bool) -> None:
    rows = [figure.to_dict(players) for figure in figures]
    if as_json:
        print(json.dumps({"rules": ruleset.to_dict(), "games": games, "bots": rows}))
        return
    table = Table(title=f"{games} games of {ruleset}, seat orders balanced")
    for column in (
        "bot",
        "games",
        "mean place",
        *[f"#{p}" for p in range(1, players + 1)],
        "forfeits",
        "timeouts",
        "illegal",
        "mean ms",
        "p99 ms",
        "mu",
        "sigma",
    ):
        table.add_column(column, justify="left" if column == "bot" else "right")
    for row in sorted(rows, key=lambda r: r["mean_place"]):
        latency = [
            f"{v:.2f}" if v is not None else "-"
            for v in (row["latency_ms_mean"], row["latency_ms_p99"])
        ]
        table.add_row(
            row["bot"],
            str(row["games"]),
            f"{row['mean_place']:.2f}",
            *map(str, row["places"].values()),
            str(row["forfeits"]),
            str(row["timeouts"]),
            str(row["illegal"]),
            *latency,
            f"{row['mu']:.2f}",
            f"{row['sigma']:.2f}",
        )
    out.print(table)
