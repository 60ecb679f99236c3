"""Serve a bot from a Python file:
``python -m arena.sdk.run FILE [--port P] [--host H | --socket PATH]``.

The file defines one :class:`~arena.sdk.Bot` subclass (or a ``bot`` factory).
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import sys
import traceback
from collections.abc import Callable
from pathlib import Path

from arena.sdk.bot import Bot
from arena.sdk.languages import kit_of
from arena.sdk.program import Programs
from arena.sdk.server import BotFactory, serve


def load_bot(path: Path) -> BotFactory:
    """The bot factory of ``path``: a folder in another language (a program speaking the
    line protocol, :mod:`arena.sdk.program`), or a Python file (or folder with
    ``bot.py``): its ``bot`` attribute, or its one Bot subclass."""
    if path.is_dir():
        kit = kit_of(path)
        if not kit.python:
            if kit.build is not None:
                raise ImportError(f"{path} is a {kit.language.title} bot that is not built")
            return Programs(kit, path.resolve()).bot
        path = path / "bot.py"
    spec = importlib.util.spec_from_file_location(f"arena_bot_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    spec.loader.exec_module(module)
    if callable(getattr(module, "bot", None)):
        factory: Callable[[], Bot] = module.bot
        return factory
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
    try:
        factory = load_bot(path)
    except Exception as error:  # the bot's code does not load: say where, briefly
        sys.stderr.write(loading_failure(error))
        sys.stderr.flush()
        sys.exit(1)
    serve(factory, rest)


def loading_failure(error: BaseException) -> str:
    """The traceback of a bot that does not load, without the import machinery's frames
    (``<frozen importlib…>``, this runner): the bot's own lines and the error."""
    frames = [
        frame
        for frame in traceback.extract_tb(error.__traceback__)
        if not frame.filename.startswith("<frozen") and frame.filename != __file__
    ]
    lines = ["the bot could not be loaded:\n"]
    if frames:
        lines += ["Traceback (most recent call last):\n", *traceback.format_list(frames)]
    lines += traceback.format_exception_only(type(error), error)
    return "".join(lines)


if __name__ == "__main__":
    main()
