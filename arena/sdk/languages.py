"""The languages a bot may be uploaded in: how a bot's folder says which, and how it is
built and run.

A folder says it in ``arena.toml``::

    language = "rust"                      # one of LANGUAGES
    build = "rustc -O -o bot src/main.rs"  # optional: the language's own by default;
                                           # "" for nothing to build
    run = "./bot"                          # optional: the language's own by default
    interleave = true                      # optional: one program plays the matches
                                           # its sandbox plays at once (default false)

or, without one, by a starter kit's files (``bot.py``: Python; ``bot.cpp``: C++;
``src/main.rs``: Rust; ``go.mod``: Go; ``Bot.java``: Java; ``bot.js``: JavaScript;
``bot.ts``: TypeScript).
Python bots are served by the SDK itself; the others are programs that speak the line
protocol (:mod:`arena.sdk.lines`) on their standard input and output. A build runs once,
at upload, in a sandbox of its own (``arena.platform.sandbox.build``); what it made is
stored with a manifest whose ``build`` is done, and plays as it is.
"""

from __future__ import annotations

import shlex
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path

MANIFEST = "arena.toml"
#: the longest build or run command a manifest may give
MAX_COMMAND = 1000


class KitError(ValueError):
    """A bot's folder is not a bot in any language accepted here."""


@dataclass(frozen=True)
class Language:
    name: str
    title: str
    #: files that make a folder this language's kit (any one of them)
    marks: tuple[str, ...]
    #: the shell command that builds it, in its folder (None: nothing to build)
    build: str | None
    #: the command that runs it, in its folder
    run: str
    #: the runtime its programs need beside the sandbox's image (node, a JVM), if any
    layer: str | None = None


LANGUAGES: dict[str, Language] = {
    language.name: language
    for language in (
        Language("python", "Python", ("bot.py",), None, "python3 bot.py"),
        Language("cpp", "C++", ("bot.cpp",), "g++ -O2 -std=c++17 -pipe -o bot *.cpp", "./bot"),
        Language(
            "rust",
            "Rust",
            ("src/main.rs",),
            "rustc --edition 2021 -C opt-level=2 -C strip=symbols -o bot src/main.rs",
            "./bot",
        ),
        Language("go", "Go", ("go.mod",), "go build -o bot .", "./bot"),
        Language(
            "java",
            "Java",
            ("Bot.java",),
            "javac -encoding UTF-8 -d classes *.java",
            "java -Xmx256m -Xss1m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -cp classes Bot",
            layer="java",
        ),
        Language("javascript", "JavaScript", ("bot.js",), None, "node bot.js", layer="node"),
        Language(
            "typescript",
            "TypeScript",
            ("bot.ts",),
            "tsc --strict --target es2020 --module commonjs --outDir out *.ts",
            "node out/bot.js",
            layer="node",
        ),
    )
}


@dataclass(frozen=True)
class Kit:
    """What a bot's folder is: its language, and how it is built and run."""

    language: Language
    build: str | None
    run: str
    #: one program plays the matches its sandbox plays at once, their lines interleaved
    #: (each says its ``match``); otherwise each match at once has a program of its own
    interleave: bool = False

    @property
    def python(self) -> bool:
        return self.language.name == "python"

    def built(self) -> Kit:
        """The kit once its build is done: nothing left to build."""
        return replace(self, build=None)

    def manifest(self) -> str:
        """Its ``arena.toml``."""
        lines = [f"language = {_quoted(self.language.name)}"]
        lines.append(f"build = {_quoted(self.build or '')}")  # "": nothing (left) to build
        lines.append(f"run = {_quoted(self.run)}")
        if self.interleave:
            lines.append("interleave = true")
        return "\n".join(lines) + "\n"

    def argv(self) -> list[str]:
        """The run command as a program and its arguments."""
        return shlex.split(self.run)


def accepted() -> str:
    """The languages accepted, for people: "Python, C++, …"."""
    return ", ".join(language.title for language in LANGUAGES.values())


def kit_of(folder: Path) -> Kit:
    """What the bot in ``folder`` is; KitError if nothing says."""
    manifest = folder / MANIFEST
    if manifest.is_file():
        return _from_manifest(manifest)
    for language in LANGUAGES.values():
        if any((folder / mark).is_file() for mark in language.marks):
            return Kit(language, language.build, language.run)
    marks = ", ".join(mark for language in LANGUAGES.values() for mark in language.marks)
    raise KitError(
        f"no {MANIFEST} and no starter kit's files ({marks}): languages accepted: {accepted()}"
    )


def _from_manifest(path: Path) -> Kit:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise KitError(f"{MANIFEST} is not valid TOML: {error}") from None
    unknown = set(data) - {"language", "build", "run", "interleave"}
    if unknown:
        raise KitError(f"{MANIFEST}: unknown keys {', '.join(sorted(unknown))}")
    name = data.get("language")
    if name not in LANGUAGES:
        raise KitError(f"{MANIFEST}: language {name!r} is not one of {', '.join(LANGUAGES)}")
    language = LANGUAGES[name]
    build = _command(data, "build", language.build)
    run = _command(data, "run", language.run)
    if run is None or not shlex.split(run):
        raise KitError(f"{MANIFEST}: run is empty")
    if language.name == "python" and (build is not None or run != language.run):
        # a manifest written for a Python bot
        raise KitError(f"{MANIFEST}: a Python bot is bot.py, with no build or run command")
    interleave = data.get("interleave", False)
    if not isinstance(interleave, bool):
        raise KitError(f"{MANIFEST}: interleave must be true or false")
    if interleave and language.name == "python":
        raise KitError(f"{MANIFEST}: interleave is for programs (Python serves its own matches)")
    return Kit(language, build, run, interleave)


def _command(data: dict[str, object], key: str, default: str | None) -> str | None:
    value = data.get(key, default)
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > MAX_COMMAND or "\n" in value:
        raise KitError(f"{MANIFEST}: {key} must be one line of at most {MAX_COMMAND} characters")
    try:
        shlex.split(value)
    except ValueError as error:
        raise KitError(f"{MANIFEST}: {key}: {error}") from None
    return value or None


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
