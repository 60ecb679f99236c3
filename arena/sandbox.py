"""Running an uploaded Python bot as a contained subprocess.

Each bot process gets, for one match:

- resource limits: CPU time, address space (memory), open files, and the size of the
  file its output goes to (stdout and stderr are captured there, so output is capped);
- its own session and process group, and a marker in its environment, so that
  everything it started, even a child that left the group, is killed afterwards;
- a minimal environment: none of the platform's settings (database, Redis) or tokens;
- a private mount namespace (``unshare``) in which the platform's data directory and
  any other hidden path is an empty tmpfs: the database and logs are out of reach;
- a time limit to start and answer (the launcher's start timeout).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
import shlex
import shutil
import signal
import sys
import tempfile
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.launcher import BotProcesses
from arena.referee.seats import GrpcSeat, SeatFailure

MARKER = "ARENA_SANDBOX"


@dataclass(frozen=True)
class Limits:
    cpu_seconds: int = 300
    memory_bytes: int = 1024 * 1024 * 1024
    open_files: int = 256
    output_bytes: int = 1024 * 1024
    start_seconds: float = 10.0


class SandboxError(RuntimeError):
    """The bot could not be started in its sandbox (the reason is for its owner)."""


class Sandbox:
    """One contained bot process; a context manager that kills it and all it started."""

    def __init__(
        self,
        bot: Path,
        hidden: Sequence[Path] = (),
        limits: Limits = Limits(),
        output: Path | None = None,
    ) -> None:
        """``bot`` is a bot file, or a folder with ``bot.py``; it is copied into the sandbox's
        own home first, so hiding the folder it came from (the data directory) is fine."""
        self.hidden = [Path(p) for p in hidden]
        self.limits = limits
        self.marker = uuid.uuid4().hex
        self._home = Path(tempfile.mkdtemp(prefix="arena-bot-"))
        self.bot_file = _copy_bot(Path(bot), self._home / "bot")
        self.output = output or self._home / "output.log"
        self._processes = BotProcesses(start_timeout=limits.start_seconds)
        self.endpoint: str | None = None

    def __enter__(self) -> Sandbox:
        try:
            self.endpoint = self._processes.start(
                self._command(),
                self.bot_file.stem,
                env=self._environment(),
                cwd=self._home,
                clean_env=True,
                preexec=self._limit,
                output=self.output,
            )
        except RuntimeError as error:
            self.close()
            raise SandboxError(f"{error}; its output: {self.output_tail()}") from None
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._processes.stop_all()
        kill_marked(self.marker)
        shutil.rmtree(self._home, ignore_errors=True)

    def output_tail(self, size: int = 400) -> str:
        try:
            data = self.output.read_bytes()
        except OSError:
            return "(none)"
        return data[-size:].decode(errors="replace").strip() or "(none)"

    @property
    def returncode(self) -> int | None:
        processes = self._processes.processes
        return processes[0].poll() if processes else None

    def _command(self) -> list[str]:
        run = [sys.executable, "-m", "arena.sdk.run", str(self.bot_file), "--port", "0"]
        mounts = " && ".join(
            f"mount -t tmpfs -o size=64k,mode=0555 arena-hidden {shlex.quote(str(p))}"
            for p in self.hidden
            if p.exists()
        )
        script = f"{mounts + ' && ' if mounts else ''}exec {shlex.join(run)}"
        user = [] if os.geteuid() == 0 else ["--user", "--map-root-user"]
        return ["unshare", *user, "--mount", "--propagation", "private", "sh", "-c", script]

    def _environment(self) -> dict[str, str]:
        keep = {
            key: os.environ[key] for key in ("PATH", "LANG", "LC_ALL", "TZ") if key in os.environ
        }
        return {
            **keep,
            "HOME": str(self._home),
            "TMPDIR": str(self._home),
            "PYTHONUNBUFFERED": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
            MARKER: self.marker,
        }

    def _limit(self) -> None:
        """Runs in the child before exec: the limits are inherited by all it starts."""
        limits = self.limits
        # SIGXCPU at the soft CPU limit ends the bot; the hard limit (SIGKILL) is a backstop
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 5))
        for which, value in (
            (resource.RLIMIT_AS, limits.memory_bytes),
            (resource.RLIMIT_NOFILE, limits.open_files),
            (resource.RLIMIT_FSIZE, limits.output_bytes),
            (resource.RLIMIT_CORE, 0),
        ):
            resource.setrlimit(which, (value, value))


def _copy_bot(source: Path, target: Path) -> Path:
    """Copy a bot file, or a folder with ``bot.py``, to ``target``; return the entry file."""
    if source.is_dir():
        if not (source / "bot.py").is_file():
            raise SandboxError(f"{source} has no bot.py")
        shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", ".*"))
        return target / "bot.py"
    if not source.is_file():
        raise SandboxError(f"no bot file at {source}")
    target.mkdir(parents=True)
    shutil.copy2(source, target / source.name)
    return target / source.name


_SIGNALS = {
    signal.SIGXCPU: "killed at its CPU time limit",
    signal.SIGXFSZ: "killed at its output limit",
    signal.SIGKILL: "killed (memory, CPU backstop, or stopped)",
    signal.SIGSEGV: "crashed (segmentation fault; memory limit?)",
}


def limit_broken(returncode: int | None) -> str | None:
    """What a sandboxed bot's exit status says about a limit it broke, if anything."""
    if returncode is None or returncode >= 0:
        return None
    return _SIGNALS.get(-returncode, f"killed by signal {-returncode}")


def kill_marked(marker: str) -> int:
    """SIGKILL every process whose environment carries ``marker``; return how many."""
    needle = f"{MARKER}={marker}".encode()
    killed = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            if needle in (entry / "environ").read_bytes().split(b"\0"):
                os.kill(int(entry.name), signal.SIGKILL)
                killed += 1
    return killed


class SandboxedSeat(GrpcSeat):
    """A sandboxed bot's seat: when the bot fails, the reason names the limit it broke."""

    def __init__(self, box: Sandbox, name: str) -> None:
        super().__init__(box.endpoint or "", name)
        self.box = box

    async def start(self, start, timeout: float) -> None:  # noqa: ANN001
        try:
            await super().start(start, timeout)
        except SeatFailure as failure:
            raise await self._explained(failure) from None

    async def decide(self, observation, deal: int, allowed: float):  # noqa: ANN001, ANN201
        try:
            return await super().decide(observation, deal, allowed)
        except SeatFailure as failure:
            raise await self._explained(failure) from None

    async def _explained(self, failure: SeatFailure) -> SeatFailure:
        for _ in range(20):  # the process may take a moment to be reaped
            if self.box.returncode is not None:
                break
            await asyncio.sleep(0.05)
        limit = limit_broken(self.box.returncode)
        if limit is None:
            return failure
        return SeatFailure(failure.kind, f"{limit} ({failure.detail})")
