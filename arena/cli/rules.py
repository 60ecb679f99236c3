"""``arena rules``: check conformance scenarios and play in-process series."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from arena import scenarios

app = typer.Typer(help="The rules engine: conformance scenarios and in-process play.",
                  no_args_is_help=True)  # fmt: skip
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
            out.print(f"  {key}: expected {json.dumps(expected)}, actual {json.dumps(actual)}",
                      markup=False)  # fmt: skip
    total = passed + failed + malformed
    out.print(f"{passed} passed, {failed} failed" + (f", {malformed} malformed" if malformed else ""),
              markup=False)  # fmt: skip
    if total == 0:
        out.print("no scenario files found", markup=False)
        raise typer.Exit(2)
    raise typer.Exit(2 if malformed else 1 if failed else 0)
