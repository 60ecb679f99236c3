"""``arena abtest``: is a new version better? A sequential test on paired deals."""

from __future__ import annotations

from typing import Annotated

import typer

from arena.cli import console, options, runs
from arena.cli.platform import out, platform
from arena.cli.rules import checked_ruleset
from arena.platform import Platform
from arena.services import abtests as abtest_service
from arena.services.abtests import AbTestRequest as Asked
from arena.services.abtests import AbTestState

app = typer.Typer(
    help="A/B tests: is a new version better than a base, on paired deals (docs/abtest.md).",
    no_args_is_help=True,
)


@app.command("create")
def abtest_create(
    name: Annotated[str, typer.Argument(help=Asked.model_fields["name"].description)],
    new: Annotated[str, options.of(Asked, "new", "--new")],
    base: Annotated[str, options.of(Asked, "base", "--base")],
    field: Annotated[
        str | None, options.of(Asked, "field", help="The opponents, BOT[:VERSION] comma separated.")
    ] = None,
    table_size: Annotated[int | None, options.of(Asked, "table_size", "--table-size")] = None,
    rules: options.Rules = "classic",
    option: options.Overrides = None,
    elo0: Annotated[float, options.of(Asked, "elo0")] = Asked.defaults("elo0"),
    elo1: Annotated[float, options.of(Asked, "elo1")] = Asked.defaults("elo1"),
    alpha: Annotated[float, options.of(Asked, "alpha")] = Asked.defaults("alpha"),
    beta: Annotated[float, options.of(Asked, "beta")] = Asked.defaults("beta"),
    max_matches: Annotated[int, options.of(Asked, "max_matches", "--max-matches")] = (
        Asked.defaults("max_matches")
    ),
    deadline: Annotated[float, options.of(Asked, "deadline")] = Asked.defaults("deadline"),
) -> None:
    """Create an A/B test of two versions (start it with ``arena abtest start``)."""
    given = {key: value for key, value in locals().items() if key in Asked.model_fields}
    ruleset, _ = checked_ruleset(rules, option or [], table_size or 2)
    opponents = [spec.strip() for spec in field.split(",") if spec.strip()] if field else None
    request = Asked.asked(**given | {"rules": ruleset, "field": opponents})
    created = abtest_service.create(platform().db, request)
    out.print(
        f"created A/B test {name}: {created.new} against {created.base} at tables of "
        f"{created.table_size} with {', '.join(created.field)}; H0 elo <= {elo0:g}, "
        f"H1 elo >= {elo1:g}, alpha {alpha:g}, beta {beta:g}, at most {max_matches} matches",
        markup=False,
    )


#: ``arena abtest wait``'s exit status by verdict (any other end: ``NOT_OVER``)
EXIT_BY_STATUS = {"accepted": 0, "rejected": 1, "capped": 2, "stopped": 2}
NOT_OVER = 3


def follow(arena: Platform, name: str, timeout: float) -> AbTestState:
    """The LLR as a bar between its bounds on stderr until the test is over."""
    lower, upper = arena.abtest_status(name).bounds

    def shown(status: AbTestState) -> console.Shown:
        described = (
            f"{name}: LLR {status.llr:+.2f} [{lower:.2f}, {upper:.2f}], {status.matches} matches"
        )
        return min(max(status.llr, lower), upper) - lower, described

    return console.follow(
        lambda: arena.abtest_status(name),
        lambda status: status.over,
        upper - lower,
        shown,
        timeout,
        counted=False,
    )


def print_status(status: AbTestState) -> None:
    """The test in words; every figure is new minus base (positive: the new is better)."""
    lower, upper = status.bounds
    new, base = status.new, status.base
    out.print(
        f"{status.name}: {status.status} - {new.bot} v{new.version} (new) against "
        f"{base.bot} v{base.version} (base)\n"
        f"  {status.outcome}\n"
        f"  LLR {status.llr:+.3f} in [{lower:.3f}, {upper:.3f}] "
        f"(H0 elo <= {status.elo0:g}, H1 elo >= {status.elo1:g})\n"
        f"  {_estimate(status)}\n"
        f"  {status.matches} matches played ({status.pairs} pairs counted) of at most "
        f"{status.max_matches}"
        + (f", about {status.matches_left} left" if status.matches_left else "")
        + "\n  pairs by places the new version finished ahead of the base: "
        + " ".join(
            f"{places:+d}:{count}"
            for places, count in zip(status.class_places, status.counts, strict=True)
        ),
        markup=False,
    )


def _estimate(status: AbTestState) -> str:
    """The Elo estimate with its interval, or why there is none yet."""
    if status.elo is None:
        return "elo: no estimate yet" if not status.pairs else "elo: not finite yet"
    interval = status.elo_ci
    shown = f" [{interval[0]:+.1f}, {interval[1]:+.1f}] (95%)" if interval else ""
    return (
        f"elo {status.elo:+.1f}{shown}, pair score {status.score:.3f} "
        "(new minus base: positive is better)"
    )


def _stop(arena: Platform, name: str) -> int:
    return abtest_service.stop(arena.db, name)


runs.add_commands(
    app,
    runs.Run(
        noun="test",
        start=Platform.start_abtest,
        stop=_stop,
        status=Platform.abtest_status,
        follow=follow,
        print_status=print_status,
        helps={
            "start": "Send the test's first pairs to the workers; it queues more as they are"
            " recorded.",
            "stop": "Stop the test undecided: matches not yet started are withdrawn.",
            "status": "The LLR against its bounds, the Elo estimate, the pairs per class.",
            "wait": "Show the LLR until the test is over; the exit status says the verdict."
            "\n\n0: accepted (the new version is better), 1: rejected, 2: capped or stopped"
            " undecided, 3: not over when the timeout came, or no such test.",
        },
        exit_status=lambda status: EXIT_BY_STATUS.get(status.status, NOT_OVER),
        not_over=NOT_OVER,
        stopped="withdrawn",
    ),
)
