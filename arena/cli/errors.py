"""How a command fails: one exception, said by arena.cli.main as one line on stderr."""

from __future__ import annotations

from typing import NoReturn


class CommandFailed(Exception):
    """A request a command cannot carry out: arena.cli.main prints it as one line on
    stderr and exits with ``code``, as it does for every failure it can explain."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


def fail(message: str, code: int = 2) -> NoReturn:
    """End the command: ``message`` on stderr, exit status ``code`` (by arena.cli.main)."""
    raise CommandFailed(message, code)
