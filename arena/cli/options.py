"""Command-line options shared by several commands, declared once."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer
from annotated_types import Ge, Le

if TYPE_CHECKING:
    from arena.services.requests import Request

Rules = Annotated[str, typer.Option("--rules", help="Preset: classic, pagat or russian.")]
Overrides = Annotated[
    list[str] | None,
    typer.Option("--option", help="Rule override key=value, as in docs/rules.md (repeatable)."),
]
Seed = Annotated[int, typer.Option("--seed", help="Seed of the whole series.")]
Games = Annotated[int, typer.Option("--games", min=1, help="Games (matches) to play.")]
JsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]
#: the slowest a tournament may ask bots to be: thinking bots (a remote model, a search)
MAX_DEADLINE_SECONDS = 60.0
Rating = Annotated[
    str,
    typer.Option(
        "--rating",
        help="The rating of record: trueskill (the default) or openskill (Weng-Lin,"
        " Plackett-Luce; docs/benchmarks.md compares them).",
    ),
]
Deadline = Annotated[
    float,
    typer.Option(min=0.001, max=MAX_DEADLINE_SECONDS, help="Seconds per decision (up to 60)."),
]
TimeBank = Annotated[
    float,
    typer.Option(
        "--time-bank",
        min=0.0,
        max=10 * MAX_DEADLINE_SECONDS,
        help="Seconds per seat per match beyond the deadlines (up to 600).",
    ),
]


def of(request: type[Request], key: str, *declarations: str, **more: Any) -> Any:
    """The option for a request's field (arena.services.requests): its help and its
    bounds are the field's, so the command says what the API's schema says."""
    field = request.model_fields[key]
    bounds: dict[str, Any] = {}
    for rule in field.metadata:
        if isinstance(rule, Ge):
            bounds["min"] = rule.ge
        elif isinstance(rule, Le):
            bounds["max"] = rule.le
    return typer.Option(*declarations, **{"help": field.description} | bounds | more)
