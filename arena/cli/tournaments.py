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
from arena.services.tournaments import TournamentRequest as Asked
from arena.services.tournaments import TournamentState
from arena.tournament import formats

if TYPE_CHECKING:
    from arena.services.fairplay import FairPlayReport

app = typer.Typer(help="Create, start and follow tournaments.", no_args_is_help=True)


@app.command("create")
def tournament_create(
    name: Annotated[str, typer.Argument(help=Asked.model_fields["name"].description)],
    bots: Annotated[str, options.of(Asked, "bots", "--bots", help="Bot names, comma separated.")],
    rules: options.Rules = "classic",
    option: options.Overrides = None,
    table_size: Annotated[int, options.of(Asked, "table_size", "--table-size")] = Asked.defaults(
        "table_size"
    ),
    games: Annotated[int, options.of(Asked, "games", "--games")] = Asked.defaults("games"),
    seed: Annotated[str | None, options.of(Asked, "seed")] = Asked.defaults("seed"),
    deadline: Annotated[float, options.of(Asked, "deadline")] = Asked.defaults("deadline"),
    time_bank: Annotated[float, options.of(Asked, "time_bank", "--time-bank")] = Asked.defaults(
        "time_bank"
    ),
    duplicate: Annotated[bool, options.of(Asked, "duplicate")] = Asked.defaults("duplicate"),
    format: Annotated[str, options.of(Asked, "format", "--format")] = Asked.defaults("format"),
    rounds: Annotated[int, options.of(Asked, "rounds", "--rounds")] = Asked.defaults("rounds"),
    advance: Annotated[int, options.of(Asked, "advance", "--advance")] = Asked.defaults("advance"),
    reveal_after: Annotated[
        int, options.of(Asked, "reveal_after", "--reveal-after")
    ] = Asked.defaults("reveal_after"),
    fresh_processes: Annotated[bool, options.of(Asked, "fresh_processes")] = Asked.defaults(
        "fresh_processes"
    ),
    same_owner_tables: Annotated[bool, options.of(Asked, "same_owner_tables")] = Asked.defaults(
        "same_owner_tables"
    ),
    rating: Annotated[str, options.of(Asked, "rating", "--rating")] = Asked.defaults("rating"),
) -> None:
    """Create a tournament and schedule its matches (every option but --bots, --rules and
    --option is a field of the request the API takes too)."""
    given = {key: value for key, value in locals().items() if key in Asked.model_fields}
    ruleset, _ = checked_ruleset(rules, option or [], table_size)
    names = [bot.strip() for bot in bots.split(",") if bot.strip()]
    request = Asked.asked(**given | {"rules": ruleset, "bots": names})
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
    table = Table(
        "pair", "teams", "test", "pair's rate", "others'", "chances", "p (Holm)", "matches"
    )
    for flag in flags:
        both = f" (both: {', '.join(flag.shared_people)})" if flag.shared_people else ""
        table.add_row(
            " -> ".join(flag.pair),
            " · ".join(team or "operator" for team in flag.teams) + both,
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
