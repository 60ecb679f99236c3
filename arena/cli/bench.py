"""``arena bench``: benchmarks that print figures."""

from __future__ import annotations

import typer

app = typer.Typer(help="Benchmarks that print figures.", no_args_is_help=True)
