"""Serve a bot from a Python file:
``python -m arena.sdk.run FILE [--port P] [--host H | --socket PATH]``.

The file defines one :class:`~arena.sdk.Bot` subclass (or a ``bot`` factory).
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import sys
from pathlib import Path

from arena.sdk.bot import Bot
from arena.sdk.server import BotFactory, serve


def load_bot(path: Path) -> BotFactory:
    """The bot factory defined in ``path``: its ``bot`` attribute, or its one Bot subclass."""
    spec = importlib.util.spec_from_file_location(f"arena_bot_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    spec.loader.exec_module(module)
    if callable(getattr(module, "bot", None)):
        return module.bot
    classes = [
        obj
        for obj in vars(module).values()
        if inspect.isclass(obj)
        and issubclass(obj, Bot)
        and obj is not Bot
        and obj.__module__ == module.__name__
    ]
    if len(classes) != 1:
        raise ImportError(f"{path} must define exactly one Bot subclass (found {len(classes)})")
    return classes[0]


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if not args:
        sys.exit("usage: python -m arena.sdk.run FILE [--port P] [--host H | --socket PATH]")
    path, rest = Path(args[0]), args[1:]
    if "--ready-fd" in rest:  # the platform's sandbox: tell it the bot's own code runs next
        at = rest.index("--ready-fd")
        ready = int(rest[at + 1])
        del rest[at : at + 2]
        os.write(ready, b"R")
        os.close(ready)
    serve(load_bot(path), rest)


if __name__ == "__main__":
    main()
