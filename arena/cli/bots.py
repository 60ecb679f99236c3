"""``arena bot``: register bots and submit new versions."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from arena.base.endpoints import reachable
from arena.base.states import AfterQualifying, BotKind, VersionStatus
from arena.cli.errors import fail
from arena.cli.login import Token, acting
from arena.cli.platform import err, out, platform
from arena.platform import Platform
from arena.sdk.languages import LANGUAGES
from arena.services import bots as bot_service
from arena.services import releases as release_service
from arena.services.releases import LiveVersion
from sample_bots import kit

app = typer.Typer(help="Register bots.", no_args_is_help=True)


@app.command("add")
def bot_add(
    name: Annotated[str, typer.Argument(help="The bot's name.")],
    endpoint: Annotated[str | None, typer.Option(help="A running bot at HOST:PORT.")] = None,
    path: Annotated[str | None, typer.Option(help="A Python bot file the workers run.")] = None,
    sample: Annotated[str | None, typer.Option(help="A sample bot: random, honest, ...")] = None,
    max_matches: MaxMatches = None,
) -> None:
    """Register a bot (one of --endpoint, --path, --sample)."""
    given = [(BotKind.ENDPOINT, endpoint), (BotKind.PATH, path), (BotKind.SAMPLE, sample)]
    chosen = [(kind, value) for kind, value in given if value]
    if len(chosen) != 1:
        fail("give exactly one of --endpoint, --path, --sample")
    kind, target = chosen[0]
    if kind is BotKind.ENDPOINT:
        _check_reachable(target)
    added = bot_service.add(platform().db, name, kind, target, max_matches)
    if not added.new:  # a qualification match seated it, or an earlier `bot add`
        out.print(f"bot {name} is registered already (version {added.number}, sample {target})")
        return
    out.print(
        f"added bot {name} (version {added.number}, {kind.value} {added.target})", markup=False
    )


def _check_reachable(endpoint: str) -> None:
    """Fail unless ``endpoint`` is a valid HOST:PORT that accepts a connection now."""
    why = reachable(endpoint)  # a malformed endpoint: EndpointError, said by arena.cli.main
    if why is not None:
        fail(f"cannot connect to {endpoint} ({why}): start the bot first, or check the address")


#: an endpoint's own limit of matches at once
MaxMatches = Annotated[
    int | None,
    typer.Option(
        "--max-matches",
        min=1,
        help="Endpoints: the most matches it serves at once, over every worker (default:"
        " what its Hello announces, else 32; a bot on a thread-pool server: its threads).",
    ),
]


@app.command("new")
def bot_new(
    folder: Annotated[Path, typer.Argument(help="The new bot's folder (made; must not exist).")],
    lang: Annotated[
        str, typer.Option("--lang", help=f"Its language: {', '.join(LANGUAGES)}.")
    ] = "python",
) -> None:
    """Write a starter bot in a language into a new folder, ready to play and submit.

    Play it with ``arena play FOLDER sample:counter`` (built here first) and submit it
    with ``arena bot submit NAME --path FOLDER`` (built in a sandbox at upload)."""
    if lang not in LANGUAGES:
        fail(f"no language {lang!r}: expected one of {', '.join(LANGUAGES)}")
    if folder.exists():
        fail(f"{folder} exists already: name a new folder")
    shutil.copytree(
        kit(lang), folder, ignore=shutil.ignore_patterns("__pycache__", "bot", "classes", "out")
    )
    out.print(
        f"wrote a {LANGUAGES[lang].title} bot in {folder}/ (its README.md says what is where)"
    )
    out.print(f"  arena play {folder} sample:counter --games 20")
    out.print(f"  arena bot submit NAME --path {folder}")


@app.command("submit")
def bot_submit(
    name: Annotated[str, typer.Argument(help="The bot's name (new, or a new version).")],
    endpoint: Annotated[str | None, typer.Option(help="A running bot at HOST:PORT.")] = None,
    path: Annotated[
        str | None,
        typer.Option(help="A Python bot file, or a bot's folder in any language (arena bot new)."),
    ] = None,
    wait: Annotated[
        bool, typer.Option(help="Wait for the qualification match (--no-wait: queue it and go).")
    ] = True,
    token: Annotated[
        str | None,
        typer.Option(
            envvar="ARENA_TOKEN",
            help="Submit as the owner of this API token (the bot is theirs, as on the web).",
        ),
    ] = None,
    competition: Annotated[
        str | None,
        typer.Option(help="The competition it enters (default: the default competition)."),
    ] = None,
    max_matches: MaxMatches = None,
    team: Annotated[
        str | None,
        typer.Option(help="A new bot's team, one of yours (default: your own team)."),
    ] = None,
    stage: Annotated[
        bool,
        typer.Option(
            "--stage", help="Qualify it but keep the live version playing (promote it later)."
        ),
    ] = False,
    promote_if_better: Annotated[
        bool,
        typer.Option(
            "--promote-if-better",
            help="Qualify it, then A/B test it against the live version: live if accepted.",
        ),
    ] = False,
) -> None:
    """Submit a new version; it is ranked only after it finishes a match against a sample bot.

    Once qualified it goes live at once, unless --stage (it waits for ``arena bot
    promote``) or --promote-if-better (an A/B test against the live version decides).
    With workers running, a worker plays the qualification match; without, it is
    played here. With --token (or ARENA_TOKEN) the bot is that owner's: the same bot
    can then be updated here or on the web."""
    from arena.platform import submission

    if (endpoint is None) == (path is None):
        fail("give exactly one of --endpoint, --path")
    if stage and promote_if_better:
        fail("give at most one of --stage, --promote-if-better")
    after = (
        AfterQualifying.STAGE
        if stage
        else AfterQualifying.GATE
        if promote_if_better
        else AfterQualifying.LIVE
    )
    kind, target = (BotKind.ENDPOINT, endpoint) if endpoint else (BotKind.PATH, path)
    assert target is not None  # exactly one was given
    arena = platform()
    owner_id = acting(arena, token, "submit")
    queued = arena.workers_running()
    if not queued and not wait:
        fail("no worker is running to qualify it later: start one, or submit without --no-wait")
    doing = "queued for a worker" if queued else "one match against a sample bot, here"
    with err.status(f"qualifying {name}: {doing}...") as status:
        result = submission.submit(
            arena,
            name,
            kind,
            target,
            owner_id,
            queued=queued,
            competition=competition,
            max_matches=max_matches,
            after=after,
            team=team,
        )
        if queued and wait:
            status.update(f"qualifying {name} v{result.version}: waiting for a worker...")
            result = submission.wait(arena.db, name, result.version)
    verdict = {"ready": "accepted", "rejected": "REJECTED"}.get(result.status, "pending")
    out.print(f"{name} v{result.version} {verdict}: {result.reason}", markup=False, soft_wrap=True)
    if result.status == "rejected":
        raise typer.Exit(1)


@app.command("promote")
def bot_promote(
    spec: Annotated[
        str, typer.Argument(help="BOT:VERSION (a number, or latest): the version to make live.")
    ],
    token: Token = None,
) -> None:
    """Make a qualified version the live one: its competitions seat it from now on.

    An older version goes back to its place with its rating (a rollback)."""
    _release(lambda arena, owner: release_service.promote(arena.db, spec, owner), token)


@app.command("rollback")
def bot_rollback(
    name: Annotated[str, typer.Argument(help="The bot.")], token: Token = None
) -> None:
    """Make the version that was live before the live one live again."""
    _release(lambda arena, owner: release_service.rollback(arena.db, name, owner), token)


def _release(change: Callable[[Platform, int | None], LiveVersion], token: str | None) -> None:
    """Run a change of live version as the token's owner (or the operator); say what
    plays now."""
    arena = platform()
    live = change(arena, acting(arena, token, "manage"))
    arena.send(live.jobs)  # else a worker's next pass seats them
    out.print(live.said(), markup=False)


@app.command("list")
def bot_list() -> None:
    """List the registered bots and their versions: which one is live, and since when."""
    table = Table("bot", "version", "status", "live", "kind", "target", "reason")
    for row in bot_service.listing(platform().db):
        table.add_row(
            row.bot, f"v{row.number}", row.status.value, _live(row), row.kind.value, row.target,
            row.reason,
        )  # fmt: skip
    out.print(table)


def _live(version: bot_service.VersionRow) -> str:
    """``live since ...``, ``staged`` (qualified, never live), ``earlier`` (live once)."""
    if not version.active:
        if version.status is not VersionStatus.READY:
            return ""
        return "earlier" if version.live_since else "staged"
    since = version.live_since
    return "live" + (f" since {since:%Y-%m-%d %H:%M} UTC" if since else "")
