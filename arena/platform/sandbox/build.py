"""A bot's build, run once at upload in a sandbox of its own.

The build command of a bot's kit (:mod:`arena.sdk.languages`) runs on a copy of its
folder, with the machine's toolchains (the system's packages: g++, rustc, go, javac)
read only, no network, a host uid of its own, 1 GiB of memory, 60 s, at the lowest CPU
weight (ranked play goes first), and its output capped; what it leaves in the folder is
the built bot. The same filter of system calls as a seat's, but for file locks and
shared futexes (Go's build cache and rustc use them; a build sees none of the files a
seat sees, so they meet nobody's).
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from arena.platform.sandbox import bwrap
from arena.platform.sandbox.box import joining, new_folder, scrub
from arena.platform.sandbox.cgroup import Cgroup
from arena.platform.sandbox.errors import SandboxUnavailable
from arena.platform.sandbox.uids import NoUidLeft, UidLease
from arena.platform.settings import unsandboxed
from arena.sdk.languages import MANIFEST, Kit, kit_of


@dataclass(frozen=True)
class BuildLimits:
    """What a build may use: seconds (of CPU in its sandbox, where its control group
    counts them; else of the clock), memory and processes (for all it starts
    together), and the largest file it may write."""

    seconds: float = 60.0
    memory_bytes: int = 1024 * 1024 * 1024
    processes: int = 256
    file_bytes: int = 256 * 1024 * 1024


DEFAULT_LIMITS = BuildLimits()
#: a contained build's seconds are CPU seconds; the clock may run this many times longer
WALL_FACTOR = 10
#: the end of a build's output kept for its owner
LOG_BYTES = 16 * 1024
_ENV = {
    "PATH": "/usr/bin:/bin",
    "HOME": str(bwrap.HOME),
    "TMPDIR": str(bwrap.HOME),
    "LANG": "C.UTF-8",
    "GOCACHE": f"{bwrap.HOME}/go-cache",
    "GOPATH": f"{bwrap.HOME}/go",
    "GOFLAGS": "-mod=mod",
    "GOPROXY": "off",
    "GOTOOLCHAIN": "local",
    "CARGO_NET_OFFLINE": "true",
}


@dataclass(frozen=True)
class Build:
    """How a build went: its output (the end of it, host paths removed) and its time."""

    ok: bool
    log: str
    seconds: float


def build(
    kit: Kit, folder: Path, *, contained: bool = True, limits: BuildLimits = DEFAULT_LIMITS
) -> Build:
    """Run ``kit``'s build in ``folder`` (a copy of the upload, changed in place) and
    write its built manifest there; SandboxUnavailable when no build sandbox can be made
    (the platform's failure, never the bot's). ``contained=False``: on this machine as
    it is, for a bot's own author (``arena play``)."""
    began = time.monotonic()
    _check_toolchain(kit)
    if kit.build is None:
        ok, log = True, ""
    elif unsandboxed() or not contained:
        ok, log = _run_plain(kit.build, folder, limits)
    else:
        ok, log = _run_contained(kit.build, folder, limits)
    if ok:
        (folder / MANIFEST).write_text(kit.built().manifest(), encoding="utf-8")
    return Build(ok, log, time.monotonic() - began)


def built_copy(
    source: Path, into: Path, *, contained: bool = True, limits: BuildLimits = DEFAULT_LIMITS
) -> tuple[Path, Build]:
    """A copy of the bot's folder ``source`` in ``into`` (its hidden files left out),
    built there (:func:`build`): the copy, and how its build went."""
    work = into / source.name
    shutil.copytree(source, work, ignore=shutil.ignore_patterns(".*"))
    return work, build(kit_of(work), work, contained=contained, limits=limits)


def _check_toolchain(kit: Kit) -> None:
    """SandboxUnavailable when this machine lacks the language's own compiler: the
    platform's failure (the version waits), never the bot's."""
    default = kit.language.build
    if kit.build is None or default is None:
        return
    tool = shlex.split(default)[0]
    if shutil.which(tool, path=_ENV["PATH"]) is None:
        raise SandboxUnavailable(
            f"this machine has no {tool} to build {kit.language.title} bots (make toolchains)"
        )


def _run_plain(command: str, folder: Path, limits: BuildLimits) -> tuple[bool, str]:
    """The build on this machine as it is (a bot's own author, or tests without
    sandboxes): the same time limit and output cap."""
    with tempfile.TemporaryDirectory(prefix="arena-build-home-") as home:
        env = {**os.environ, **_ENV, "HOME": home, "TMPDIR": home}
        env |= {"GOCACHE": f"{home}/go-cache", "GOPATH": f"{home}/go"}
        log = Path(home) / "build.log"
        with open(log, "wb") as out:
            process = subprocess.Popen(
                ["/bin/sh", "-c", command],
                cwd=folder,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=out,
                env=env,
                start_new_session=True,
            )
            code = _wait(process, limits)
        return code == 0, _describe(code, _tail(log), limits)


def _run_contained(command: str, folder: Path, limits: BuildLimits) -> tuple[bool, str]:
    home = new_folder("build-")
    try:
        lease = UidLease()
    except NoUidLeft as error:
        shutil.rmtree(home, ignore_errors=True)
        raise SandboxUnavailable(str(error)) from None
    group = Cgroup.create(home.name, limits.memory_bytes, limits.processes, 1.0)
    try:
        _give(folder, lease.uid)
        empty = home / "empty"
        empty.touch(mode=0o644)
        options = bwrap.build_options(
            work=folder, empty=empty, env=_ENV, tmp_bytes=limits.memory_bytes
        )
        launch = bwrap.launch(options, ["/bin/sh", "-c", command], lease.uid, build=True)
        groups = group.procs_files if group is not None else []
        rlimits = ["prlimit", f"--fsize={limits.file_bytes}", "--core=0"]
        rlimits.append(f"--cpu={int(limits.seconds * 2)}")
        argv = bwrap.reaped([*joining(groups), *rlimits, "--", *launch.argv])
        log = home / "build.log"
        with open(log, "wb") as out:
            try:
                process = subprocess.Popen(
                    argv,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=out,
                    pass_fds=launch.pass_fds,
                    start_new_session=True,
                    env={"LANG": "C.UTF-8", "PATH": _host_path(launch)},
                )
            except OSError as error:
                launch.close()
                raise SandboxUnavailable(f"cannot start a build: {error}") from None
            try:
                launch.started(process.pid)
                launch.map_user(timeout=max(limits.seconds, 60.0))
            except (bwrap.LaunchFailed, OSError) as error:
                _kill(process)
                raise SandboxUnavailable(f"the build's sandbox was not made: {error}") from None
            code = _watch(process, group, limits)
        killed = group is not None and group.memory_killed()
        return code == 0, _describe(code, _tail(log), limits, killed)
    finally:
        if group is not None:
            group.remove()
        lease.release()
        _give(folder, os.getuid())
        shutil.rmtree(home, ignore_errors=True)


def _host_path(launch: bwrap.Launch) -> str:
    """The PATH that finds bwrap and the host's tools (prlimit, unshare)."""
    host = os.environ.get("PATH", "/usr/bin:/bin")
    return f"{launch.path}:{host}"


def _watch(
    process: subprocess.Popen[bytes], group: Cgroup | None, limits: BuildLimits
) -> int | None:
    """The contained build's exit code, or None when it used its seconds of CPU (its
    control group's count, whatever the machine's load: a build waits at the lowest
    weight while ranked play runs), or sat idle (neither computing nor waiting for a
    CPU half the time) past its seconds of the clock. SandboxUnavailable when it is
    still not done after :data:`WALL_FACTOR` times its seconds: a machine too busy to
    build is the platform's failure, never the bot's."""
    if group is None or group.cpu_seconds() is None:
        return _wait(process, limits)
    began = time.monotonic()
    waited: dict[int, float] = {}  # each process's seconds waiting for a CPU
    while True:
        try:
            return process.wait(timeout=0.2)
        except subprocess.TimeoutExpired:
            used = group.cpu_seconds() or 0.0
            waited |= _runqueue_seconds(group)
            busy = used + sum(waited.values())
            elapsed = time.monotonic() - began
            if used > limits.seconds or (elapsed > limits.seconds and busy < elapsed / 2):
                _kill(process)  # it computed too long, or it sat idle past its time
                return None
            if elapsed > limits.seconds * WALL_FACTOR:
                _kill(process)
                raise SandboxUnavailable(
                    f"the build was not done after {elapsed:.0f} s of the clock with "
                    f"{used:.0f} s of CPU: the machine is too busy to build"
                ) from None


def _runqueue_seconds(group: Cgroup) -> dict[int, float]:
    """Seconds each process of ``group`` has waited for a CPU (``/proc/PID/schedstat``):
    a build starved by ranked play waits there; one that sleeps does not."""
    found: dict[int, float] = {}
    for procs in group.procs_files:
        with contextlib.suppress(OSError):
            for pid in procs.read_text().split():
                with contextlib.suppress(OSError, ValueError, IndexError):
                    fields = Path(f"/proc/{pid}/schedstat").read_text().split()
                    found[int(pid)] = int(fields[1]) / 1e9
    return found


def _wait(process: subprocess.Popen[bytes], limits: BuildLimits) -> int | None:
    """The build's exit code, or None when it ran out of time (it is killed then)."""
    try:
        return process.wait(timeout=limits.seconds)
    except subprocess.TimeoutExpired:
        _kill(process)
        return None


def _kill(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def _give(folder: Path, uid: int) -> None:
    """Make ``folder`` and all it holds ``uid``'s (the build writes in it)."""
    for path in [folder, *folder.rglob("*")]:
        os.lchown(path, uid, uid)


def _tail(log: Path) -> str:
    with open(log, "rb") as out:
        size = out.seek(0, os.SEEK_END)
        out.seek(max(0, size - LOG_BYTES))
        data = out.read()
    text = data.decode(errors="replace")
    if size > LOG_BYTES and "\n" in text:
        text = "…\n" + text.split("\n", 1)[1]
    return scrub(text.replace(str(bwrap.BUILD) + "/", "").strip())


def _describe(code: int | None, log: str, limits: BuildLimits, memory_killed: bool = False) -> str:
    if code == 0:
        return log
    if memory_killed:
        ending = f"the build was killed at its memory limit ({limits.memory_bytes // 2**20} MiB)"
    elif code is None:
        ending = f"the build took more than {limits.seconds:g} s and was stopped"
    elif code > 128:
        ending = f"the build was killed by signal {code - 128}"
    else:
        ending = f"the build failed (exit code {code})"
    return f"{log}\n{ending}".strip()
