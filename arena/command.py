"""The ``arena`` command's entry point: the CLI when the platform is installed, else a
one-line note of what to install (the SDK alone has no ``arena`` command)."""

from __future__ import annotations

import sys


def main() -> None:
    try:
        from arena.cli import main as run
    except ModuleNotFoundError as error:
        sys.exit(
            f"arena: the command needs the platform's packages ({error.name} is missing): "
            "pip install 'arena[platform]'"
        )
    run()
