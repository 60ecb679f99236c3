"""A sandboxed bot process: started, watched, and killed with everything it started.

The platform, not the bot, decides where the bot listens: a Unix socket in a folder
made for this sandbox alone. The bot's runner writes one byte on a pipe before any of
the bot's code runs; whatever fails before that byte is the platform's failure
(:class:`SandboxUnavailable`, the match is played again), whatever fails after it is
the bot's (:class:`SandboxError`, a forfeit). Processes are started without running
any Python in the child (no ``preexec_fn``): a small shell joins the sandbox's control
groups, ``prlimit`` sets the per-process limits, and bubblewrap builds the rest.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import select
import shutil
import signal
import socket as socket_module
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

from arena.platform.children import alive
from arena.platform.sandbox import bwrap, runtime
from arena.platform.sandbox.cgroup import Cgroup
from arena.platform.sandbox.errors import SandboxError, SandboxUnavailable
from arena.platform.sandbox.limits import Limits
from arena.platform.sandbox.meter import process_tree_cpu
from arena.platform.sandbox.uids import NoUidLeft, UidLease
from arena.platform.settings import unsandboxed
from arena.sdk.languages import KitError, kit_of

log = logging.getLogger(__name__)
DEFAULT_LIMITS = Limits()

SOCKET = "bot.sock"
#: seconds the platform's own part of a start (bwrap, the user mapping, the runner up to
#: the bot's code) may take before it counts as a platform failure: only a hung start
#: should end there, never a machine that is merely busy
PLATFORM_START_SECONDS = 60.0
#: host uid that owns a socket folder once the bot listens (not mapped into the sandbox)
_NOBODY = 65534
#: the bot's environment inside the sandbox
_ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "HOME": str(bwrap.HOME),
    "TMPDIR": str(bwrap.HOME),
    "LANG": "C.UTF-8",
    "PYTHONUNBUFFERED": "1",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONNOUSERSITE": "1",
}
#: what starts a sandbox on the host (unsandboxed: the bot itself). It writes no
#: bytecode: under the output cap (RLIMIT_FSIZE) Python ignores SIGXFSZ and writes a
#: cached module cut short at the cap, which every later import of the module, the
#: platform's own included, reads as corrupt ("marshal data too short")
_HOST_ENV = {"LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"}
_JOIN_GROUPS = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'


def _scratch_root() -> str:
    """Sandbox folders live in memory where possible (/dev/shm): what a bot writes there
    is charged to its memory limit, never to the host's disk."""
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else tempfile.gettempdir()


#: a sandbox's folder is named after the process that made it: a sweep can tell the
#: folders whose maker died (a killed worker) from a live worker's
FOLDER_PREFIX = "arena-sandbox-"
#: what a sandbox is shown (its code and its socket's folder) is in a folder of its own,
#: linked from its sandbox's folder: a name with no pid in it (mountinfo shows it)
SEAT_PREFIX = "arena-seat-"


def _folder_prefix() -> str:
    return f"{FOLDER_PREFIX}{os.getpid()}-"


def new_folder(kind: str = "") -> Path:
    """A new sandbox folder in memory, named after this process (a sweep removes it once
    the process is dead); ``kind`` starts its name (``build-``)."""
    return Path(tempfile.mkdtemp(prefix=_folder_prefix() + kind, dir=_scratch_root()))


def joining(groups: Iterable[Path]) -> list[str]:
    """The start of a command that puts its process in ``groups`` (their ``procs`` files)
    before it runs the rest: no Python runs in the child."""
    return ["sh", "-c", _JOIN_GROUPS, "sh", *map(str, groups), "--"]


def sweep_folders() -> int:
    """Remove the sandbox folders whose maker is dead (a killed worker never removed
    them; the bots in them died with it); how many were removed."""
    removed = 0
    for folder in Path(_scratch_root()).glob(f"{FOLDER_PREFIX}*-*"):
        if orphaned(folder.name):
            _remove(folder)
            removed += not folder.exists()
    return removed


def _remove(home: Path) -> None:
    """Remove a sandbox's folder and the seat folder it links to."""
    seat = home / "seat"
    if seat.is_symlink():
        shutil.rmtree(os.readlink(seat), ignore_errors=True)
    shutil.rmtree(home, ignore_errors=True)


def orphaned(name: str) -> bool:
    """Whether a sandbox's folder or group (named ``arena-sandbox-<maker's pid>-…``) was
    made by a process that is dead now."""
    owner = name.removeprefix(FOLDER_PREFIX).split("-", 1)[0]
    return name.startswith(FOLDER_PREFIX) and owner.isdigit() and not alive(int(owner))


class Sandbox:
    """One contained bot process; a context manager that kills it and all it started."""

    def __init__(
        self,
        bot: Path,
        limits: Limits = DEFAULT_LIMITS,
        output: Path | None = None,
        image: int = 0,
    ) -> None:
        """``bot`` is a Python file, or a bot's folder (``bot.py``, or a built program in
        another language: :mod:`arena.sdk.languages`); it is shown read-only. The
        runtime is the machine's copy ``image`` of it (:func:`runtime.image`)."""
        self.code = Path(bot).resolve()
        if not self.code.exists():
            raise SandboxError("the bot's code is missing")
        #: the runtime its language needs beside the image (node, a JVM), if any
        self.layer: str | None = None
        if self.code.is_dir():
            try:
                self.layer = kit_of(self.code).language.layer
            except KitError as error:
                raise SandboxError(str(error)) from None
        self.limits = limits
        self.image = image
        self.isolated = not unsandboxed()
        self.home: Path | None = None
        self.output = output
        self.process: subprocess.Popen[bytes] | None = None
        self.cgroup: Cgroup | None = None
        self.endpoint: str | None = None
        #: the host uid the bot runs as (None unsandboxed)
        self.uid_lease: UidLease | None = None
        self._final_output: bytes | None = None

    def __enter__(self) -> Sandbox:
        try:
            self._start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- starting ---------------------------------------------------------------------

    def _start(self) -> None:
        self.home = new_folder()
        seat = Path(tempfile.mkdtemp(prefix=SEAT_PREFIX, dir=_scratch_root()))
        (self.home / "seat").symlink_to(seat)
        sockets = seat / "sock"
        sockets.mkdir(mode=0o700)
        if self.output is None:
            self.output = self.home / "output.log"
        limits = self.limits
        if self.isolated:
            self.cgroup = Cgroup.create(
                self.home.name, limits.memory_bytes, limits.processes, limits.cpu_cores
            )
        ready_read, ready_write = os.pipe()
        launch = None
        try:
            if self.isolated:
                launch = self._launch(sockets, ready_write)
            command = self._command(sockets, ready_write, launch)
            self.process = self._spawn(command, ready_write, launch)
            if launch is not None:
                self._map_user(launch)
        finally:
            os.close(ready_write)
            if launch is not None:
                launch.close()
        try:
            began = self._wait_ready(ready_read)
        finally:
            os.close(ready_read)
        socket = self._wait_listening(sockets / SOCKET, began + limits.start_seconds)
        self.endpoint = f"unix:{socket}"

    def _launch(self, sockets: Path, ready_fd: int) -> bwrap.Launch:
        """The bwrap run, as a host uid of the sandbox's own that owns its socket folder."""
        try:
            self.uid_lease = UidLease()
        except NoUidLeft as error:
            raise SandboxUnavailable(str(error)) from None
        os.chown(sockets, self.uid_lease.uid, self.uid_lease.uid)
        assert self.home is not None  # made before the launch
        try:
            image = runtime.image(self.image)
            layers = {self.layer: runtime.layer(self.layer, self.image)} if self.layer else {}
        except (OSError, subprocess.CalledProcessError) as error:
            raise SandboxUnavailable(f"cannot make the sandbox's runtime: {error}") from None
        env = _ENV
        if self.layer:
            env = env | {"PATH": f"{bwrap.OPT / self.layer / 'bin'}:{_ENV['PATH']}"}
        preload = runtime.preloaded(image)
        if preload:
            env = env | {"LD_PRELOAD": preload}
        options = bwrap.options(
            image=image,
            code=_in_memory(self.code, sockets.parent / "code"),
            socket_dir=sockets,
            env=env,
            tmp_bytes=self.limits.memory_bytes,
            layers=layers,
        )
        run = _runner(
            str(runtime.PYTHON), bwrap.entry_inside(self.code), bwrap.SOCKET_DIR / SOCKET, ready_fd
        )
        return bwrap.launch(options, run, self.uid_lease.uid)

    def _map_user(self, launch: bwrap.Launch) -> None:
        assert self.process is not None
        launch.started(self.process.pid)
        try:
            launch.map_user(timeout=max(self.limits.start_seconds, PLATFORM_START_SECONDS))
        except (bwrap.LaunchFailed, OSError) as error:
            log.error("sandbox %s: %s: %s", self.home, error, self._raw_tail())
            raise SandboxUnavailable(
                f"the sandbox was not built before the bot's code ran: {error}"
            ) from None

    def _command(self, sockets: Path, ready_fd: int, launch: bwrap.Launch | None) -> list[str]:
        limits = self.limits
        groups = self.cgroup.procs_files if self.cgroup is not None else []
        join = joining(groups)
        rlimits = [
            "prlimit",
            f"--cpu={limits.cpu_seconds}:{limits.cpu_seconds + 5}",
            f"--nofile={limits.open_files}",
            f"--fsize={limits.output_bytes}",
            "--core=0",
        ]
        if self.cgroup is None:  # no memory controller: per-process address space instead
            rlimits.append(f"--as={limits.memory_bytes}")
        if launch is not None:
            return bwrap.reaped([*join, *rlimits, "--", *launch.argv])
        runner = _runner(sys.executable, self.code, sockets / SOCKET, ready_fd)
        return [*join, *rlimits, "--", *runner]

    def _spawn(
        self, command: list[str], ready_fd: int, launch: bwrap.Launch | None
    ) -> subprocess.Popen[bytes]:
        assert self.output is not None and self.home is not None
        with open(self.output, "ab") as out:
            try:
                return subprocess.Popen(
                    command,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=out,
                    pass_fds=(ready_fd, *(launch.pass_fds if launch else ())),
                    start_new_session=True,
                    cwd=self.home,
                    env=_HOST_ENV | {"PATH": _path(launch)},
                )
            except OSError as error:  # no such program, no memory or processes left
                raise SandboxUnavailable(f"cannot start a sandbox: {error}") from None

    def _wait_ready(self, ready_fd: int) -> float:
        """Wait for the runner's byte: the sandbox is built and the bot's code loads next.
        Up to then every failure is the platform's."""
        assert self.process is not None
        deadline = time.monotonic() + max(self.limits.start_seconds, PLATFORM_START_SECONDS)
        while (left := deadline - time.monotonic()) > 0:
            readable, _, _ = select.select([ready_fd], [], [], left)
            if readable:
                if os.read(ready_fd, 1) == b"R":
                    return time.monotonic()
                break  # the pipe closed without the byte: the runner never ran
        code = self.process.poll()
        detail = "did not come up in time" if code is None else f"exited with code {code}"
        log.error("sandbox %s: %s before the bot ran: %s", self.home, detail, self._raw_tail())
        raise SandboxUnavailable(f"the sandbox {detail} before the bot's code ran")

    def _wait_listening(self, socket: Path, deadline: float) -> Path:
        """Wait until the bot accepts connections on its socket (its own start time: a
        socket that exists may not be listening yet, and a referee's connections to it
        would be refused), then lock the socket's folder so the bot cannot replace the
        socket by anything else."""
        assert self.process is not None
        pause = 0.002
        while True:
            if _is_socket(socket) and _accepts(socket):
                if self.isolated:
                    _lock(socket.parent)
                    if not _is_socket(socket):
                        raise SandboxError("its socket was replaced by something else")
                return socket
            code = self.process.poll()
            if code is not None:
                raise SandboxError(
                    f"exited ({_status(code)}) before listening; its output: {self.output_tail()}"
                )
            if time.monotonic() > deadline:
                raise SandboxError(
                    f"did not start in time ({self.limits.start_seconds:g} s); "
                    f"its output: {self.output_tail()}"
                )
            time.sleep(pause)
            pause = min(pause * 2, 0.05)

    # -- running and ending -------------------------------------------------------------

    @property
    def returncode(self) -> int | None:
        return self.process.poll() if self.process is not None else None

    def exit_signal(self) -> int | None:
        """The signal that ended the bot, if one did (bubblewrap reports a signal N that
        ended the bot as exit code 128 + N)."""
        return _signal_of(self.returncode)

    def cpu_seconds(self) -> float | None:
        """CPU seconds the bot and its children used so far: the control group's counter,
        else the process tree's (None when neither can be read)."""
        if self.cgroup is not None:
            used = self.cgroup.cpu_seconds()
            if used is not None:
                return used
        if self.process is None or self.process.returncode is not None:
            return None
        return process_tree_cpu(self.process.pid)

    def set_busy(self, busy: bool) -> None:
        """The referee waits on the bot (``busy``) or not: its CPU weight follows."""
        if self.cgroup is not None:
            self.cgroup.set_busy(busy)

    def limit_broken(self) -> str | None:
        """Which limit ended the bot, if one did."""
        if self.cgroup is not None and self.cgroup.memory_killed():
            return "killed at its memory limit"
        signum = self.exit_signal()
        if signum is None:
            return None
        return _SIGNALS.get(signum, f"killed by signal {signum}")

    def close(self) -> None:
        """Kill the bot and all it started, keep its output, and remove its folder."""
        process, self.process = self.process, None
        if process is not None:
            if process.poll() is None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            self.process = process  # its exit status stays readable
        if self.cgroup is not None:
            self.cgroup.remove()
        if self.uid_lease is not None:  # the uid's processes are gone with the group
            self.uid_lease.release()
        if self.home is not None:
            self._final_output = self._read_output()
            _remove(self.home)
            self.home = None

    def output_tail(self, size: int = 400) -> str:
        """The end of what the bot printed, for its owner (host paths removed), in whole
        lines: cut at a line's start, with "…" where earlier lines were left out."""
        data = self._read_output()
        text = data[-size:].decode(errors="replace")
        if len(data) > size and "\n" in text:
            text = "…\n" + text.split("\n", 1)[1]
        return scrub(text.strip()) or "(none)"

    def output_size(self) -> int:
        """Bytes the bot has printed so far (a mark for ``output_since``)."""
        try:
            return self.output.stat().st_size if self.output is not None and self.home else 0
        except OSError:
            return 0

    def output_since(self, mark: int, size: int = 4096) -> str:
        """What the bot printed after ``mark`` (its last ``size`` bytes, host paths
        removed; empty if nothing)."""
        try:
            with open(self.output, "rb") as out:  # type: ignore[arg-type]
                out.seek(max(mark, out.seek(0, os.SEEK_END) - size))
                data = out.read(size)
        except (OSError, TypeError):
            return ""
        return scrub(data.decode(errors="replace").strip())

    def _read_output(self) -> bytes:
        if self._final_output is not None and self.home is None:
            return self._final_output
        try:
            return self.output.read_bytes() if self.output is not None else b""
        except OSError:
            return b""

    def _raw_tail(self) -> str:
        return self._read_output()[-2000:].decode(errors="replace").strip()


def _in_memory(code: Path, staging: Path) -> Path:
    """A copy of ``code`` in ``staging`` (the sandbox's folder, in memory), readable by
    any uid (the bot is not its owner). A copy, never the upload itself: pages of a file
    on disk are a channel between the sandboxes that read it (:mod:`.runtime`), two
    rotations of one bot in a duplicate competition among them."""
    staging.mkdir(mode=0o755)
    copy = staging / code.name
    if code.is_file():
        shutil.copyfile(code, copy)
    else:
        shutil.copytree(code, copy, copy_function=shutil.copyfile)
    for part in [copy, *copy.rglob("*")]:  # a built program stays executable
        source = code / part.relative_to(copy)
        runs = part.is_dir() or source.stat().st_mode & 0o111
        part.chmod(0o755 if runs else 0o644)
    return copy


def _path(launch: bwrap.Launch | None) -> str:
    """The PATH that finds the sandbox's programs (bwrap's folder first)."""
    path = os.environ.get("PATH", "/usr/bin:/bin")
    return f"{launch.path}:{path}" if launch is not None else path


def _runner(python: str, entry: Path, socket: Path, ready_fd: int) -> list[str]:
    return [
        python, "-m", "arena.sdk.run", str(entry),
        "--socket", str(socket), "--ready-fd", str(ready_fd),
    ]  # fmt: skip


def _is_socket(path: Path) -> bool:
    try:
        return stat.S_ISSOCK(os.lstat(path).st_mode)
    except OSError:
        return False


def _accepts(path: Path) -> bool:
    """Whether something listens on the Unix socket at ``path`` (a connection, closed at
    once: the bot's server sees a client that left). Never blocks: a bot whose backlog is
    full, or that never accepts, is not listening, and runs out its own start time."""
    with socket_module.socket(socket_module.AF_UNIX, socket_module.SOCK_STREAM) as probe:
        probe.setblocking(False)
        try:
            probe.connect(str(path))
        except OSError:
            return False
        return True


def _lock(folder: Path) -> None:
    """Give the folder to a uid the sandbox does not have: the bot can no longer add,
    rename or remove anything in it (the socket it made keeps working)."""
    os.chown(folder, _NOBODY, _NOBODY)
    os.chmod(folder, 0o755)


def _signal_of(code: int | None) -> int | None:
    if code is None:
        return None
    if code < 0:
        return -code
    if code > 128:
        return code - 128
    return None


def _status(code: int) -> str:
    signum = _signal_of(code)
    return f"signal {signum}" if signum else f"code {code}"


_SIGNALS: dict[int, str] = {
    signal.SIGXCPU: "killed at its CPU time limit",
    signal.SIGXFSZ: "killed at its output limit",
    signal.SIGKILL: "killed (memory, CPU backstop, or stopped)",
    signal.SIGSEGV: "crashed (segmentation fault)",
}


@functools.cache
def _host_paths() -> tuple[str, ...]:
    import arena

    found = {sys.prefix, sys.base_prefix, str(Path(arena.__file__).parents[1]), _scratch_root()}
    found |= {os.path.realpath(path) for path in found}
    paths = [path for path in found if len(path) > 1]
    return tuple(sorted(paths, key=len, reverse=True))


def scrub(text: str) -> str:
    """``text`` without the host's paths (the Python runtime, the sandbox folders)."""
    for path in _host_paths():
        text = text.replace(path, "…")
    return text
