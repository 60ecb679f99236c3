"""start, stop, status and wait: the commands every run of matches has (a tournament, an
A/B test), written once and added to each kind's command group.

No ``from __future__ import annotations`` here: typer reads the commands' annotations,
and they name the kind of run (``run.noun``) from the enclosing call."""

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Generic, Protocol, TypeVar

import typer

from arena.base.errors import Refused
from arena.cli import options
from arena.cli.errors import fail
from arena.cli.platform import out, platform
from arena.platform import Platform


class RunStatus(Protocol):
    """What the shared commands read of a run's state (a service's frozen dataclass)."""

    @property
    def over(self) -> bool: ...

    def to_dict(self) -> dict[str, object]: ...


Status = TypeVar("Status", bound=RunStatus)


@dataclass(frozen=True)
class Run(Generic[Status]):
    """One kind of run, as its commands need it."""

    noun: str  # "tournament", "A/B test"
    start: Callable[[Platform, str], int]  # queue its matches; how many were queued
    stop: Callable[[Platform, str], int]  # stop it; how many queued matches went
    status: Callable[[Platform, str], Status]
    follow: Callable[[Platform, str, float], Status]  # a bar until over; TimeoutError
    print_status: Callable[[Status], None]
    #: each command's help
    helps: dict[str, str]
    #: ``wait``'s exit status once the run is over (a verdict, or 0)
    exit_status: Callable[[Status], int] = lambda status: 0
    #: ``wait``'s exit status when the run is not over in time, or there is no such run
    not_over: int = 1
    stopped: str = "dropped"  # what ``stop`` did to the queued matches


def add_commands(app: typer.Typer, run: Run[Status]) -> None:
    """Add ``start``, ``stop``, ``status`` and ``wait`` for ``run`` to ``app``."""
    Name = Annotated[str, typer.Argument(help=f"The {run.noun}.")]

    @app.command("start", help=run.helps["start"])
    def start(name: Name) -> None:
        sent = run.start(platform(), name)
        out.print(f"started {name}: {sent} matches queued", markup=False)

    @app.command("stop", help=run.helps["stop"])
    def stop(name: Name) -> None:
        gone = run.stop(platform(), name)
        out.print(f"stopped {name}: {gone} queued matches {run.stopped}", markup=False)

    @app.command("status", help=run.helps["status"])
    def status(name: Name, json_: options.JsonFlag = False) -> None:
        show(run, run.status(platform(), name), json_)

    @app.command("wait", help=run.helps["wait"])
    def wait(
        name: Name,
        timeout: Annotated[float, typer.Option(help="Give up after this many seconds.")] = 3600,
        json_: options.JsonFlag = False,
    ) -> None:
        try:
            final = run.follow(platform(), name, timeout)
        except Refused as error:  # no such run: an answer of wait's, its own status
            fail(str(error), run.not_over)
        except TimeoutError:
            fail(f"{name} is not over after {timeout:.0f} s", run.not_over)
        show(run, final, json_)
        raise typer.Exit(run.exit_status(final))


def show(run: Run[Status], status: Status, json_: bool) -> None:
    """The run's state: its fields as JSON, or in words."""
    if json_:
        print(json.dumps(status.to_dict()))
    else:
        run.print_status(status)
