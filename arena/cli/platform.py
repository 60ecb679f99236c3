"""``arena bot``, ``arena tournament``, ``arena worker`` and ``arena db``: the platform."""

from __future__ import annotations

import json
import time
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from arena.cli import console, options
from arena.cli.rules import ruleset_or_exit
from arena.endpoints import EndpointError, reachable
from arena.platform import Platform, PlatformError
from arena.platform import queue as work_queue
from arena.platform.errors import SERVICE_ERRORS, unavailable
from arena.referee import RefereeSettings
from arena.store import bots as bot_store
from arena.store import tournaments as tournament_store
from arena.store.bots import StoreError
from arena.store.errors import Invalid
from arena.store.models import BotKind, TournamentFormat

out = console.stdout()
err = console.stderr()

bot_app = typer.Typer(help="Register bots.", no_args_is_help=True)
tournament_app = typer.Typer(help="Create, start and follow tournaments.", no_args_is_help=True)
db_app = typer.Typer(help="The database.", no_args_is_help=True)


def platform() -> Platform:
    try:
        return Platform()
    except SERVICE_ERRORS as error:
        fail(unavailable(error), 1)
        raise
    except Exception as error:
        fail(f"cannot open the database: {error}", 1)
        raise


def fail(message: str, code: int = 2) -> None:
    err.print(f"error: {message}", markup=False)
    raise typer.Exit(code)


@bot_app.command("add")
def bot_add(
    name: Annotated[str, typer.Argument(help="The bot's name.")],
    endpoint: Annotated[str | None, typer.Option(help="A running bot at HOST:PORT.")] = None,
    path: Annotated[str | None, typer.Option(help="A Python bot file the workers run.")] = None,
    sample: Annotated[str | None, typer.Option(help="A sample bot: random, honest, ...")] = None,
) -> None:
    """Register a bot (one of --endpoint, --path, --sample)."""
    given = [(BotKind.ENDPOINT, endpoint), (BotKind.PATH, path), (BotKind.SAMPLE, sample)]
    chosen = [(kind, value) for kind, value in given if value]
    if len(chosen) != 1:
        fail("give exactly one of --endpoint, --path, --sample")
    kind, target = chosen[0]
    if kind is BotKind.ENDPOINT:
        _check_reachable(target)
    try:
        version = platform().db.transaction(
            lambda session: bot_store.add_bot(session, name, kind, target)
        )
    except StoreError as error:
        fail(str(error))
    out.print(
        f"added bot {name} (version {version.number}, {kind.value} {version.target})", markup=False
    )


def _check_reachable(endpoint: str) -> None:
    """Fail unless ``endpoint`` is a valid HOST:PORT that accepts a connection now."""
    try:
        why = reachable(endpoint)
    except EndpointError as error:
        fail(str(error))
    if why is not None:
        fail(f"cannot connect to {endpoint} ({why}): start the bot first, or check the address")


@bot_app.command("submit")
def bot_submit(
    name: Annotated[str, typer.Argument(help="The bot's name (new, or a new version).")],
    endpoint: Annotated[str | None, typer.Option(help="A running bot at HOST:PORT.")] = None,
    path: Annotated[
        str | None, typer.Option(help="A Python bot file, or a folder with bot.py.")
    ] = None,
    wait: Annotated[
        bool, typer.Option(help="Wait for the qualification match (--no-wait: queue it and go).")
    ] = True,
) -> None:
    """Submit a new version; it is ranked only after it finishes a match against random.

    With workers running, a worker plays the qualification match; without, it is
    played here."""
    from arena.platform import submission

    if (endpoint is None) == (path is None):
        fail("give exactly one of --endpoint, --path")
    kind, target = (BotKind.ENDPOINT, endpoint) if endpoint else (BotKind.PATH, path)
    arena = platform()
    queued = _workers_running(arena)
    if not queued and not wait:
        fail("no worker is running to qualify it later: start one, or submit without --no-wait")
    doing = "queued for a worker" if queued else "one match against random, here"
    with err.status(f"qualifying {name}: {doing}...") as status:
        try:
            result = submission.submit(arena, name, kind, target, queued=queued)
            if queued and wait:
                status.update(f"qualifying {name} v{result.version}: waiting for a worker...")
                result = submission.wait(arena.db, name, result.version)
        except (StoreError, PlatformError) as error:
            fail(str(error))
    verdict = {"ready": "accepted", "rejected": "REJECTED"}.get(result.status, "pending")
    out.print(f"{name} v{result.version} {verdict}: {result.reason}", markup=False)
    if result.status == "rejected":
        raise typer.Exit(1)


def _workers_running(arena: Platform) -> bool:
    if not arena.settings.redis_url:
        return False
    try:
        return work_queue.workers_listening(arena.queue) > 0
    except Exception:  # Redis is away: qualify here
        return False


@bot_app.command("list")
def bot_list() -> None:
    """List the registered bots and their active versions."""
    with platform().db.read() as session:
        table = Table("bot", "version", "status", "active", "kind", "target", "reason")
        for bot in bot_store.all_bots(session):
            for version in bot.versions:
                table.add_row(
                    bot.name,
                    f"v{version.number}",
                    version.status.value,
                    "yes" if version.active else "",
                    version.kind.value,
                    version.target,
                    version.reason or "",
                )
    out.print(table)


@tournament_app.command("create")
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
    deadline: Annotated[float, typer.Option(min=0.001, help="Seconds per decision.")] = 1.0,
    duplicate: Annotated[bool, typer.Option(help="Play each deal once per seat rotation.")] = False,
    format_: Annotated[
        str,
        typer.Option(
            "--format", help="round_robin, or ladder (plays until stopped; --games tables in play)."
        ),
    ] = "round_robin",
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
) -> None:
    """Create a tournament and schedule its matches."""
    ruleset, _ = ruleset_or_exit(rules, option or [], table_size)
    names = [bot.strip() for bot in bots.split(",") if bot.strip()]
    settings = RefereeSettings(deadline=deadline)
    try:
        tournament = platform().db.transaction(
            lambda session: tournament_store.create(
                session,
                name,
                ruleset,
                names,
                table_size,
                games,
                seed,
                settings,
                duplicate=duplicate,
                format=format_,
                reveal_delay=reveal_after,
                fresh_processes=fresh_processes,
            )
        )
    except StoreError as error:
        fail(str(error))
    out.print(
        f"created tournament {name}: {tournament.games} matches of {ruleset}, "
        f"tables of {table_size} from {len(names)} bots, dealt from "
        + ("the key of --seed" if seed is not None else "a random secret key"),
        markup=False,
    )


@tournament_app.command("start")
def tournament_start(name: Annotated[str, typer.Argument(help="The tournament.")]) -> None:
    """Send the tournament's matches to the workers."""
    try:
        sent = platform().start_tournament(name)
    except (StoreError, PlatformError) as error:
        fail(str(error))
    out.print(f"started {name}: {sent} matches queued")


@tournament_app.command("stop")
def tournament_stop(name: Annotated[str, typer.Argument(help="The ladder.")]) -> None:
    """Stop a ladder: no new tables; matches already playing are still recorded."""
    from arena.store import ladder

    def work(session) -> int:  # noqa: ANN001
        tournament = tournament_store.get(session, name)
        if tournament.format != TournamentFormat.LADDER:
            raise Invalid(f"{name!r} is not a ladder (a round robin ends by itself)")
        return ladder.stop(session, tournament)

    try:
        dropped = platform().db.transaction(work)
    except StoreError as error:
        fail(str(error))
    out.print(f"stopped {name}: {dropped} queued matches dropped")


@tournament_app.command("status")
def tournament_status(
    name: Annotated[str, typer.Argument(help="The tournament.")],
    json_: options.JsonFlag = False,
) -> None:
    """Progress and leaderboard (ordered by mu - 3 sigma)."""
    try:
        status = platform().tournament_status(name)
    except StoreError as error:
        fail(str(error))
    if json_:
        print(json.dumps(status))
        return
    print_status(status)


@tournament_app.command("wait")
def tournament_wait(
    name: Annotated[str, typer.Argument(help="The tournament.")],
    timeout: Annotated[float, typer.Option(help="Give up after this many seconds.")] = 3600,
) -> None:
    """Show progress until the tournament is over (exit 1 on timeout)."""
    try:
        status = follow(platform(), name, timeout)
    except StoreError as error:
        fail(str(error))
    except TimeoutError:
        fail(f"{name} is not over after {timeout:.0f} s", 1)
    print_status(status)


def follow(arena: Platform, name: str, timeout: float | None = None) -> dict:
    """A progress bar on stderr until the tournament is over; its final status.
    Raises TimeoutError after ``timeout`` seconds."""
    status = arena.tournament_status(name)
    deadline = None if timeout is None else time.monotonic() + timeout
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
    ) as bar:
        task = bar.add_task(name, total=status["matches"]["total"])
        while status["status"] != "done":
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(name)
            time.sleep(0.5)
            status = arena.tournament_status(name)
            counts = status["matches"]
            bar.update(
                task,
                completed=counts["finished"],
                description=f"{name}: {counts['running']} running, {counts['failed']} failed",
            )
    return status


def print_status(status: dict) -> None:
    counts = status["matches"]
    out.print(
        f"{status['name']}: {status['status']}, {counts['done']}/{counts['total']} "
        f"matches done, {counts['running']} running, {counts['queued']} queued, "
        f"{counts['failed']} failed",
        markup=False,
    )
    table = Table(
        "rank",
        "bot",
        "mu",
        "sigma",
        "mu-3sigma",
        "games",
        "mean place",
        "wins",
        "forfeits",
        "strikes",
        "illegal",
    )
    for row in status["leaderboard"]:
        mean = f"{row['mean_place']:.2f}" if row["mean_place"] is not None else "-"
        table.add_row(
            str(row["rank"]),
            f"{row['bot']} v{row['version']}",
            f"{row['mu']:.2f}",
            f"{row['sigma']:.2f}",
            f"{row['score']:.2f}",
            str(row["games"]),
            mean,
            str(row["wins"]),
            str(row["forfeits"]),
            str(row["strikes"]),
            str(row["illegal"]),
        )
    out.print(table)


@db_app.command("upgrade")
def db_upgrade() -> None:
    """Bring the database to the current schema (every command does this too)."""
    arena = platform()
    out.print(f"database at {arena.settings.database_url} is current")


def worker_command(
    burst: Annotated[bool, typer.Option(help="Stop when the queue is empty.")] = False,
) -> None:
    """Run a worker that plays queued matches (needs REDIS_URL, and ARENA_DATABASE_URL
    unless the database is the local default)."""
    from worker import runner

    runner.run(burst=burst)


def dashboard_command(
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
) -> None:
    """Serve the dashboard and the API (http://HOST:PORT/, the API under /api/v1)."""
    import uvicorn

    from dashboard.app import create_app

    app = create_app()
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    out.print(
        f"Dashboard: http://{shown}:{port}/  (API: /api/v1, docs: /docs); Ctrl-C stops it",
        markup=False,
    )
    uvicorn.run(app, host=host, port=port, log_level="info", access_log=True)


owner_app = typer.Typer(help="Owners and their API tokens.", no_args_is_help=True)


@owner_app.command("list")
def owner_list() -> None:
    """Owners, their bots and whether their token works (tokens are never shown)."""
    from arena.store import owners

    with platform().db.read() as session:
        rows = [owners.describe(session, owner) for owner in owners.all_owners(session)]
    table = Table("owner", "token", "bots", "since")
    for row in rows:
        table.add_row(row["name"], row["token"], ", ".join(row["bots"]), row["created_at"][:19])
    out.print(table)


@owner_app.command("rotate")
def owner_rotate(name: Annotated[str, typer.Argument(help="The owner's name.")]) -> None:
    """Give an owner a new API token (printed once); the old one stops working."""
    from arena.store import owners

    try:
        token = platform().db.transaction(
            lambda session: owners.rotate_token(session, owners.get(session, name))
        )
    except StoreError as error:
        fail(str(error))
    out.print(f"new API token for {name} (the old one no longer works):", markup=False)
    print(token)


@owner_app.command("revoke")
def owner_revoke(name: Annotated[str, typer.Argument(help="The owner's name.")]) -> None:
    """Stop an owner's API token from working (``rotate`` gives a new one)."""
    from arena.store import owners

    try:
        platform().db.transaction(
            lambda session: owners.revoke_token(session, owners.get(session, name))
        )
    except StoreError as error:
        fail(str(error))
    out.print(f"{name}'s API token is revoked", markup=False)


@owner_app.command("add")
def owner_add(name: Annotated[str, typer.Argument(help="The owner's name.")]) -> None:
    """Create an owner and print its API token (shown once)."""
    from arena.store.owners import add_owner

    try:
        _, token = platform().db.transaction(lambda session: add_owner(session, name))
    except StoreError as error:
        fail(str(error))
    out.print(
        f"owner {name} created; API token (keep it, it is not shown again; "
        f"'arena owner rotate {name}' makes a new one):",
        markup=False,
    )
    print(token)
