"""``arena tournament``: create, start, stop and follow tournaments."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer
from rich import box
from rich.table import Table

from arena.cli import console, options, runs
from arena.cli.platform import out, platform
from arena.cli.rules import checked_ruleset
from arena.platform import Platform
from arena.services import tournaments as tournament_service
from arena.services.tournaments import DEFAULT_SWISS_ROUNDS, TournamentRequest, TournamentState
from arena.tournament import formats

if TYPE_CHECKING:
    from arena.services.fairplay import FairPlayReport

app = typer.Typer(help="Create, start and follow tournaments.", no_args_is_help=True)


@app.command("create")
def tournament_create(
    name: Annotated[str, typer.Argument(help="The tournament's name.")],
    bots: Annotated[str, typer.Option("--bots", help="Bot names, comma separated.")],
    rules: options.Rules = "classic",
    option: options.Overrides = None,
    table_size: Annotated[int, typer.Option("--table-size", min=2, help="Seats per table.")] = 4,
    games: Annotated[int, typer.Option("--games", min=1, help="Matches to play.")] = 100,
    seed: Annotated[
        str | None,
        typer.Option(
            help="Text the secret key of the deals is derived from, to replay the tournament"
            " (keep it secret: who knows it knows every deal); default: a random key."
        ),
    ] = None,
    deadline: options.Deadline = 1.0,
    time_bank: options.TimeBank = 5.0,
    duplicate: Annotated[bool, typer.Option(help="Play each deal once per seat rotation.")] = False,
    format_: Annotated[
        str,
        typer.Option(
            "--format",
            help=formats.described(),
        ),
    ] = formats.DEFAULT.name,
    rounds: Annotated[
        int | None, typer.Option("--rounds", min=1, help="Swiss: rounds to play.")
    ] = None,
    advance: Annotated[
        int, typer.Option("--advance", min=1, help="Knockout: bots of each table that go on.")
    ] = 2,
    reveal_after: Annotated[
        int,
        typer.Option(
            "--reveal-after",
            min=0,
            help="Ladders: seconds after a match before its seed and hands are public.",
        ),
    ] = 3600,
    fresh_processes: Annotated[
        bool,
        typer.Option(
            help="Start uploaded bots afresh for every match (slower; by default a worker"
            " keeps each bot version's process warm across matches)."
        ),
    ] = False,
    same_owner_tables: Annotated[
        bool,
        typer.Option(
            help="Let two bots of one owner sit at one table (by default they never do:"
            " no team play; the operator's bots, without an owner, always may)."
        ),
    ] = False,
    rating: options.Rating = "trueskill",
) -> None:
    """Create a tournament and schedule its matches."""
    ruleset, _ = checked_ruleset(rules, option or [], table_size)
    names = [bot.strip() for bot in bots.split(",") if bot.strip()]
    request = TournamentRequest(
        name=name,
        rules=ruleset,
        bots=names,
        table_size=table_size,
        games=games,
        seed=seed,
        deadline=deadline,
        time_bank=time_bank,
        duplicate=duplicate,
        format=format_,
        rounds=rounds if rounds is not None else DEFAULT_SWISS_ROUNDS,
        advance=advance,
        reveal_after=reveal_after,
        fresh_processes=fresh_processes,
        same_owner_tables=same_owner_tables,
        rating=rating,
    )
    created = tournament_service.create(platform().db, request)
    out.print(
        f"created tournament {name}: {created.games} {created.unit} of {ruleset}, "
        f"tables of {table_size} from {len(names)} bots, dealt from "
        + ("the key of --seed" if seed is not None else "a random secret key"),
        markup=False,
    )


@app.command("fairplay")
def tournament_fairplay(
    name: Annotated[str, typer.Argument(help="The tournament or ladder.")],
    json_: options.JsonFlag = False,
) -> None:
    """The collusion report: pairs of bots that play as a team (docs/fair-play.md)."""
    from arena.services import fairplay

    found = fairplay.report(platform().db, name)
    if json_:
        print(json.dumps(found.to_dict()))
        return
    print_fairplay(found)


def print_fairplay(found: FairPlayReport) -> None:
    flags = found.flags
    out.print(
        f"{found.tournament}: {found.tests} tests of pairs, {len(flags)} flagged "
        f"(family-wise error {found.alpha:.0%}, Holm)",
        markup=False,
    )
    if not flags:
        return
    table = Table("pair", "test", "pair's rate", "others'", "chances", "p (Holm)", "matches")
    for flag in flags:
        table.add_row(
            " -> ".join(flag.pair),
            flag.test,
            f"{flag.pair_rate:.3f}",
            f"{flag.others_rate:.3f}",
            str(flag.opportunities),
            f"{flag.p_value:.2g}",
            ", ".join(map(str, flag.matches[:5])),
        )
    out.print(table)


def follow(arena: Platform, name: str, timeout: float | None = None) -> TournamentState:
    """A progress bar on stderr until the tournament is over; its final status.
    Raises TimeoutError after ``timeout`` seconds."""

    def shown(status: TournamentState) -> console.Shown:
        counts = status.matches
        return counts.ended, f"{name}: {counts.running} running, {counts.failed} failed"

    return console.follow(
        lambda: arena.tournament_status(name),
        lambda status: status.over,
        arena.tournament_status(name).matches.total,
        shown,
        timeout,
    )


def print_status(status: TournamentState) -> None:
    counts = status.matches
    out.print(
        f"{status.name}: {status.status}, {counts.done}/{counts.total} "
        f"matches done, {counts.running} running, {counts.queued} queued, "
        f"{counts.failed} failed",
        markup=False,
    )
    # fits 80 columns: a bot's faults share one column (forfeits/strikes/illegal)
    table = Table("rank", "bot", "mu", "sigma", "mu-3σ", "games", "place", "wins", "f/s/i")
    table.box = box.SIMPLE_HEAD
    for row in status.leaderboard:
        mean = f"{row.mean_place:.2f}" if row.mean_place is not None else "-"
        table.add_row(
            str(row.rank),
            f"{row.bot} v{row.version}",
            f"{row.mu:.2f}",
            f"{row.sigma:.2f}",
            f"{row.score:.2f}",
            str(row.games),
            mean,
            str(row.wins),
            f"{row.forfeits}/{row.strikes}/{row.illegal}",
        )
    out.print(table)
    if "standings" in formats.named(status.format).draws:
        out.print(f"standings ({status.format}):", markup=False)
        for placing in status.standings:
            figures = ", ".join(
                f"{key} {value:.3g}" if isinstance(value, float) else f"{key} {value}"
                for key, value in placing.figures.items()
            )
            out.print(
                f"  {placing.place:>3}. {placing.bot} v{placing.version}  {figures}",
                markup=False,
            )


def _stop(arena: Platform, name: str) -> int:
    return tournament_service.stop(arena.db, name)


runs.add_commands(
    app,
    runs.Run(
        noun="tournament",
        start=Platform.start_tournament,
        stop=_stop,
        status=Platform.tournament_status,
        follow=follow,
        print_status=print_status,
        helps={
            "start": "Send the tournament's matches to the workers.",
            "stop": "Stop a ladder: no new tables; matches already playing are still recorded.",
            "status": "Progress and leaderboard (ordered by mu - 3 sigma).",
            "wait": "Show progress until the tournament is over (exit 1 on timeout).",
        },
    ),
)
