"""``arena scrimmage``: unranked matches of an owner's bot against rivals they choose."""

from __future__ import annotations

import json
from dataclasses import asdict, replace
from typing import Annotated

import typer
from rich import box
from rich.table import Table

from arena.cli import options
from arena.cli.platform import err, out, platform
from arena.cli.tournaments import follow
from arena.services import scrimmages as scrimmage_service
from arena.services import tournaments as tournament_service
from arena.services.scrimmages import ScrimmageRequest as Asked


def scrimmage(
    bot: Annotated[str, typer.Argument(help=Asked.model_fields["bot"].description)],
    against: Annotated[
        str,
        options.of(
            Asked, "against", help="The rivals, comma separated: sample:NAME, BOT or BOT:N."
        ),
    ],
    games: Annotated[int, options.of(Asked, "games")] = Asked.defaults("games"),
    rules: Annotated[str, options.of(Asked, "rules")] = Asked.defaults("rules"),
    deadline: Annotated[float, options.of(Asked, "deadline")] = Asked.defaults("deadline"),
    wait: Annotated[bool, typer.Option(help="Show progress until it is over.")] = False,
    json_: options.JsonFlag = False,
) -> None:
    """Queue unranked matches of a bot against rivals its owner chooses.

    Every match seats them all (seats rotating); played in sandboxes after ranked work,
    within the bot owner's private limits, never on a leaderboard (the results: /owner,
    or --wait)."""
    arena = platform()
    rivals = tuple(spec.strip() for spec in against.split(",") if spec.strip())
    asked = Asked.asked(bot=bot, against=rivals, games=games, rules=rules, deadline=deadline)
    made = scrimmage_service.create(arena.db, asked, None, arena.settings.private_limits)
    try:
        queued = arena.start_tournament(made.name)
    except Exception:  # nothing was queued: it must not hold one of the owner's runs
        tournament_service.stop(arena.db, made.name)
        err.print(f"scrimmage {made.name} is cancelled: it could not be queued", markup=False)
        raise
    made = replace(made, queued=queued)
    if wait:
        follow(arena, made.name)
        made = replace(scrimmage_service.named(arena.db, made.name), queued=queued)
    if json_:
        print(json.dumps(asdict(made)))
        return
    out.print(
        f"scrimmage {made.name}: {made.bot} against {', '.join(made.against)}, "
        f"{made.played}/{made.games} played ({queued} queued)",
        markup=False,
    )
    table = Table("bot", "games", "wins", "mean place", "forfeits", box=box.SIMPLE_HEAD)
    for line in made.results:
        mean = f"{line.mean_place:.2f}" if line.mean_place is not None else "-"
        table.add_row(
            f"{line.bot} v{line.version}", str(line.games), str(line.wins), mean, str(line.forfeits)
        )
    out.print(table)
