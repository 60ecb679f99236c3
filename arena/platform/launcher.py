"""Bots named on the command line, and local bot processes started for a series.

A BOT is ``host:port`` (a running bot), a path to a Python bot file, a bot's folder
in any language (:mod:`arena.sdk.languages`, built here first), or ``sample:NAME``.
Local bots run as subprocesses in their own process group on a free port;
:class:`BotProcesses` stops every one of them, whatever happens.
"""

from __future__ import annotations

import contextlib
import os
import re
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import IO

from arena.base.endpoints import EndpointError, parse_endpoint
from arena.platform.children import spawn
from arena.sdk.languages import KitError, kit_of
from sample_bots import SAMPLES

_ENDPOINT = re.compile(r"^[\w.\-\[\]:]+:\d{1,5}$")
_LISTENING = re.compile(r"listening on (\S+:\d+)")


class BotSpecError(ValueError):
    """A BOT argument that names no bot."""


class BotDidNotStart(RuntimeError):
    """A bot process that exited, or did not say where it listens in time."""


class SpecKind(StrEnum):
    """What a BOT argument of ``arena play`` names."""

    ENDPOINT = "endpoint"  # a running bot at HOST:PORT
    FILE = "file"  # a Python bot file, started as a local process
    FOLDER = "folder"  # a bot's folder in any language, built here and started
    SAMPLE = "sample"  # sample:NAME


@dataclass(frozen=True)
class BotSpec:
    kind: SpecKind
    value: str

    @property
    def name(self) -> str:
        if self.kind is SpecKind.SAMPLE:
            return self.value
        if self.kind is SpecKind.FILE:
            return Path(self.value).stem
        if self.kind is SpecKind.FOLDER:
            return Path(self.value).name
        return self.value


def parse_bot(text: str) -> BotSpec:
    if text.startswith("sample:"):
        name = text.removeprefix("sample:")
        if name not in SAMPLES:
            raise BotSpecError(f"no sample bot {name!r}: expected one of {', '.join(SAMPLES)}")
        return BotSpec(SpecKind.SAMPLE, name)
    if Path(text).is_dir():
        try:
            kit_of(Path(text))
        except KitError as error:
            raise BotSpecError(f"{text}: {error}") from None
        return BotSpec(SpecKind.FOLDER, str(Path(text).resolve()))
    if text.endswith(".py") or Path(text).is_file():
        if not Path(text).is_file():
            raise BotSpecError(f"no bot file {text!r}")
        return BotSpec(SpecKind.FILE, str(Path(text).resolve()))
    if _ENDPOINT.match(text):
        try:
            parse_endpoint(text)
        except EndpointError as error:
            raise BotSpecError(str(error)) from None
        return BotSpec(SpecKind.ENDPOINT, text)
    raise BotSpecError(
        f"{text!r} is not host:port, a Python bot file, a bot's folder, or sample:NAME"
    )


def command_for(spec: BotSpec) -> list[str]:
    if spec.kind is SpecKind.SAMPLE:
        return [sys.executable, "-m", f"sample_bots.{spec.value}", "--port", "0"]
    return [sys.executable, "-m", "arena.sdk.run", spec.value, "--port", "0"]


class BotProcesses:
    """Starts local bots and stops them all on exit (a context manager)."""

    def __init__(self, log_dir: Path | None = None, start_timeout: float = 20.0) -> None:
        self.log_dir = log_dir
        self.start_timeout = start_timeout
        self.processes: list[subprocess.Popen[str]] = []
        #: where bots' folders are built (made on the first)
        self._builds: tempfile.TemporaryDirectory[str] | None = None
        #: what each started bot wrote to stderr, by its name
        self._outputs: dict[str, IO[str]] = {}

    def __enter__(self) -> BotProcesses:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop_all()
        if self._builds is not None:
            self._builds.cleanup()

    def endpoint(self, spec: BotSpec) -> str:
        """The endpoint of ``spec``: as given, or of a process started for it (a folder
        built first, in a copy)."""
        if spec.kind is SpecKind.ENDPOINT:
            return spec.value
        if spec.kind is SpecKind.FOLDER:
            spec = BotSpec(SpecKind.FOLDER, str(self._built(Path(spec.value))))
        return self.start(command_for(spec), spec.name)

    def _built(self, folder: Path) -> Path:
        from arena.platform.sandbox.build import built_copy  # `arena play --help` needs not

        if kit_of(folder).build is None:
            return folder
        if self._builds is None:
            self._builds = tempfile.TemporaryDirectory(prefix="arena-play-")
        work, built = built_copy(folder, Path(self._builds.name), contained=False)
        if not built.ok:
            raise BotDidNotStart(f"bot {folder.name} did not build:\n{built.log}")
        return work

    def start(
        self,
        command: list[str],
        name: str,
        *,
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
    ) -> str:
        """Run ``command`` (a bot that prints ``listening on HOST:PORT``); return its endpoint.

        Only for the user's own bots on their machine: uploaded bots run in
        :mod:`arena.platform.sandbox`, where nothing the bot prints is trusted."""
        stderr = self._stderr(name)
        self._outputs[name] = stderr
        process = spawn(
            command,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            cwd=cwd,
            start_new_session=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
        )
        self.processes.append(process)
        endpoint = _wait_listening(process, self.start_timeout)
        if endpoint is None:
            code = _exit_code(process)
            self.stop(process)
            state = f"exited with code {code}" if code is not None else "did not start in time"
            raise BotDidNotStart(
                f"bot {name} {state} (command: {' '.join(command)}); "
                f"the end of its output:\n{_tail(stderr)}"
            )
        threading.Thread(target=_drain, args=(process.stdout,), daemon=True).start()
        return endpoint

    def _stderr(self, name: str) -> IO[str]:
        """Where the bot's stderr goes: a file under ``log_dir``, else a temporary one (read
        back when the bot fails to start: a traceback is what its author needs)."""
        if self.log_dir is None:
            return tempfile.TemporaryFile("w+")
        self.log_dir.mkdir(parents=True, exist_ok=True)
        return open(self.log_dir / f"{name}.{len(self.processes)}.stderr.log", "w+")

    def output(self, name: str, size: int = 64_000) -> str:
        """The end of what the bot ``name`` started here wrote to stderr ("" if none)."""
        found = self._outputs.get(name)
        return "" if found is None else _tail(found, size, empty="")

    def stop(self, process: subprocess.Popen[str]) -> None:
        """Stop the process and its whole group: SIGTERM, then SIGKILL after a grace period."""
        if process.poll() is None:
            _signal_group(process, signal.SIGTERM)
            try:
                process.wait(timeout=3)
            except subprocess.TimeoutExpired:
                _signal_group(process, signal.SIGKILL)
                process.wait(timeout=3)
        else:
            _signal_group(process, signal.SIGKILL)  # children it may have left behind

    def stop_all(self) -> None:
        for process in self.processes:
            self.stop(process)
        self.processes.clear()


def _exit_code(process: subprocess.Popen[str], grace: float = 2.0) -> int | None:
    """Its exit code, waiting a moment: a bot that closed its output is exiting, and an
    exit must be reported as one, not as a slow start."""
    try:
        return process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        return None


def _tail(output: IO[str], size: int = 2000, empty: str = "(nothing)") -> str:
    """The last ``size`` characters written to ``output`` (or ``empty`` if none)."""
    try:
        output.flush()
        output.seek(0)
        text = output.read()[-size:].strip()
    except (OSError, ValueError):
        return "(unreadable)"
    return text or empty


def first_traceback(output: str) -> str | None:
    """The first Python traceback in a bot's output, whole: from its header to the line
    naming the exception (None if there is none)."""
    lines = output.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("Traceback (")), None)
    if start is None:
        return None
    for end in range(start + 1, len(lines)):
        if lines[end] and not lines[end][0].isspace():
            return "\n".join(lines[start : end + 1])
    return "\n".join(lines[start:])


def _signal_group(process: subprocess.Popen[str], signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signum)


def _wait_listening(process: subprocess.Popen[str], timeout: float) -> str | None:
    """Read the process's first lines until it says where it listens."""
    assert process.stdout is not None
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout
    try:
        while (remaining := deadline - time.monotonic()) > 0:
            if not selector.select(remaining):
                return None
            line = process.stdout.readline()
            if not line:
                return None
            match = _LISTENING.search(line)
            if match:
                return match.group(1)
        return None
    finally:
        selector.close()


def _drain(stream: IO[str] | None) -> None:
    """Read the child's stdout to the end (a full pipe would block it)."""
    if stream is not None:
        for _ in stream:
            pass
