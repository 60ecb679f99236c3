"""``arena competition``: open, follow, pause, close and reopen competitions."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Annotated

import typer

from arena.base.figures import rounded
from arena.base.states import CompetitionStatus
from arena.cli import options
from arena.cli.platform import out, platform
from arena.cli.rules import checked_ruleset
from arena.services import competitions as competition_service
from arena.services.retention import Retention
from arena.tournament import pacing
from arena.tournament.pacing import DEFAULT_PACE

app = typer.Typer(
    help="Competitions: standing ladders every qualified version joins by itself.",
    no_args_is_help=True,
)
Name = Annotated[str, typer.Argument(help="The competition.")]
PACE_HELP = (
    "Tables a minute once every rating is settled (provisional entries play at once), "
    "or off: every table kept in play."
)
Pace = Annotated[str, typer.Option("--pace", help=PACE_HELP)]
LogDays = Annotated[
    float | None,
    typer.Option(
        "--log-days",
        min=1,
        help="Drop a match's log this many days after it (its result and ratings stay); "
        "by default every log is kept.",
    ),
]
TOP_HELP = "Keep every log of the season's best N entries."
LogTop = Annotated[int, typer.Option("--log-top", min=0, help=TOP_HELP)]
#: how --opens and --closes are written (UTC)
TIMES = ["%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M", "%Y-%m-%d"]


def _utc(moment: datetime | None) -> datetime | None:
    return None if moment is None else moment.replace(tzinfo=UTC)


@app.command("create")
def competition_create(
    name: Name,
    rules: options.Rules = "classic",
    option: options.Overrides = None,
    table_size: Annotated[int, typer.Option("--table-size", min=2, help="Seats per table.")] = 4,
    tables: Annotated[int, typer.Option("--tables", min=1, help="Tables in play at once.")] = 2,
    bots: Annotated[
        str, typer.Option("--bots", help="Bots to enter now, comma separated (more join later).")
    ] = "",
    deadline: options.Deadline = 1.0,
    time_bank: options.TimeBank = 5.0,
    default: Annotated[
        bool, typer.Option(help="Make it the default: submissions enter it, /leaderboard shows it.")
    ] = False,
    opens: Annotated[
        datetime | None,
        typer.Option(formats=TIMES, help="No table before this time (UTC)."),
    ] = None,
    closes: Annotated[
        datetime | None,
        typer.Option(formats=TIMES, help="Closes at this time (UTC): final standings."),
    ] = None,
    format_: Annotated[
        str,
        typer.Option(
            "--format",
            help="ladder, or duplicate-ladder: each table played once per seat rotation on "
            "the same deal (luck cancels out; rated once per table).",
        ),
    ] = competition_service.LADDER,
    pace: Pace = str(DEFAULT_PACE),
    rating: options.Rating = "trueskill",
    log_days: LogDays = None,
    log_top: LogTop = 0,
) -> None:
    """Open a competition: a ladder that plays as soon as a table's worth of bots entered.

    It keeps its tables in play while a rating is provisional (a new version's first
    matches), then seats --pace tables a minute (docs/tournaments.md, "Pace")."""
    ruleset, _ = checked_ruleset(rules, option or [], table_size)
    names = [bot.strip() for bot in bots.split(",") if bot.strip()]
    request = competition_service.CompetitionRequest(
        name, ruleset, table_size, tables, names, deadline, time_bank, default, _utc(opens),
        _utc(closes), format_, _pace(pace), rating, Retention(log_days, log_top),
    )  # fmt: skip
    competition_service.create(platform().db, request)
    out.print(
        f"opened competition {name} ({format_}, {rating}): {tables} tables of {table_size},"
        f" {ruleset}, "
        f"{len(names)} bots entered" + (" (the default)" if default else ""),
        markup=False,
    )


@app.command("enter")
def competition_enter(
    name: Name, bot: Annotated[str, typer.Argument(help="The bot to enter.")]
) -> None:
    """Enter a bot: its active version plays now, each later one once it qualifies."""
    competition_service.enter(platform().db, name, bot)
    out.print(f"entered {bot} in {name}", markup=False)


@app.command("list")
def competition_list(json_: options.JsonFlag = False) -> None:
    """Every competition, its season, status and number of bots."""
    rows = competition_service.listing(platform().db)
    if json_:
        print(json.dumps(rows))
        return
    for row in rows:
        mark = " (default)" if row["default"] else ""
        out.print(
            f"{row['name']}{mark}: season {row['season']}, {row['status']}, {row['bots']} bots, "
            f"{row['tables']} tables of {row['table_size']}",
            markup=False,
        )


@app.command("status")
def competition_status(name: Name, json_: options.JsonFlag = False) -> None:
    """The competition's standings (mu - 3 sigma), in 80 columns."""
    summary = competition_service.summary(platform().db, name)
    if json_:
        print(json.dumps(rounded(summary)))
        return
    out.print(
        f"{summary['name']}: season {summary['season']}, {summary['status']}, "
        f"{pacing.describe(summary['pace'])}",
        markup=False,
    )
    for row in summary["leaderboard"]:
        out.print(
            f"{row.rank:>4}  {row.bot[:30]:<30} v{row.version:<4} "
            f"{row.score:>8.2f} {row.games:>7} games",
            markup=False,
        )


@app.command("pace")
def competition_pace(name: Name, pace: Annotated[str, typer.Argument(help=PACE_HELP)]) -> None:
    """Set how many tables a minute it seats once every rating is settled."""
    tables = _pace(pace)
    competition_service.set_pace(platform().db, name, tables)
    said = "unpaced: every table kept in play" if tables is None else f"{tables:g} tables a minute"
    out.print(f"{name}: once settled, {said}", markup=False)


@app.command("logs")
def competition_logs(
    name: Name,
    days: Annotated[
        float | None,
        typer.Option(
            "--days", min=1, help="Drop a match's log this many days after it (omit: keep all)."
        ),
    ] = None,
    top: Annotated[int, typer.Option("--top", min=0, help=TOP_HELP)] = 0,
) -> None:
    """Set how long its matches' logs are kept: results, ratings and totals stay for
    ever (`arena logs drop` or the workers drop the old logs)."""
    competition_service.set_retention(platform().db, name, Retention(days, top))
    out.print(f"{name}: {_retention_said(days, top)}", markup=False)


def _retention_said(days: float | None, top: int) -> str:
    if days is None:
        return "every match's log kept"
    kept = f", but every log of its best {top} entries kept" if top else ""
    return f"a match's log dropped {days:g} days after it{kept}"


@app.command("pause")
def competition_pause(name: Name) -> None:
    """No new tables (those in play finish)."""
    _set(name, CompetitionStatus.PAUSED, "paused")


@app.command("resume")
def competition_resume(name: Name) -> None:
    """Seat tables again."""
    _set(name, CompetitionStatus.OPEN, "resumed")


@app.command("close")
def competition_close(name: Name) -> None:
    """End the season: its standings are final."""
    _set(name, CompetitionStatus.CLOSED, "closed (final standings kept)")


@app.command("new-season")
def competition_new_season(name: Name) -> None:
    """Close the season in play and open the next, with the same bots and fresh ratings."""
    season = competition_service.new_season(platform().db, name)["season"]
    out.print(f"{name}: season {season} open", markup=False)


def _set(name: str, status: CompetitionStatus, said: str) -> None:
    competition_service.set_status(platform().db, name, status)
    out.print(f"{name}: {said}", markup=False)


def _pace(text: str) -> float | None:
    """A pace as written: a number of tables a minute, or ``off``."""
    if text.strip().lower() in ("off", "none", "unpaced"):
        return None
    try:
        return float(text)
    except ValueError:
        raise typer.BadParameter(
            f"a number of tables a minute, or off: not {text!r}", param_hint="--pace"
        ) from None
