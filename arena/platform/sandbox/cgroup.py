"""One control group per sandbox: memory, process count and CPU for a bot and all its
children.

Version 1 hierarchies (``memory``, ``pids``, ``cpuacct``, ``cpu``) and the unified
version 2 hierarchy are both used where the host offers them. CPU: every sandbox has a
ceiling (``cpu_cores`` of CPU time per period) and a weight that follows whether the
referee waits on it: a busy sandbox (a request open) outweighs an idle one 5,000 to 1,
so a bot computing between its requests only gets the CPU nobody waiting needs.

Each sandbox's group is made under the worker's own group, in ``arena-sandboxes/``, so
several workers on a machine (and their tests) never touch each other's.
:meth:`Cgroup.create` answers None where no usable controller exists; the sandbox then
falls back to per-process rlimits.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

PARENT = "arena-sandboxes"
_V1 = ("memory", "pids", "cpuacct", "cpu")
#: CPU weights (v1 ``cpu.shares``, v2 ``cpu.weight``) of a sandbox the referee waits on,
#: and of one it does not
BUSY_WEIGHT = {1: 10240, 2: 10000}
IDLE_WEIGHT = {1: 2, 2: 1}
_PERIOD_US = 100_000


@dataclass(frozen=True)
class Hierarchy:
    """Where one controller's group of this process lives (``version`` 1 or 2)."""

    controller: str  # "memory", "pids", "cpuacct", or "unified"
    path: Path

    @property
    def version(self) -> int:
        return 2 if self.controller == "unified" else 1


def _mounts() -> dict[str, tuple[str, Path]]:
    """Controller -> (the mounted hierarchy's root, its mount point), from mountinfo."""
    found: dict[str, tuple[str, Path]] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/mountinfo").read_text().splitlines():
            fields = line.split()
            separator = fields.index("-")
            fstype, options = fields[separator + 1], fields[separator + 3].split(",")
            root, mount_point = fields[3], Path(fields[4])
            if fstype == "cgroup2":
                found.setdefault("unified", (root, mount_point))
            elif fstype == "cgroup":
                for controller in _V1:
                    if controller in options:
                        found.setdefault(controller, (root, mount_point))
    return found


def own_hierarchies() -> list[Hierarchy]:
    """The groups this process is in, for each controller a sandbox can use."""
    mounts = _mounts()
    groups: dict[str, str] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            for controller in controllers.split(",") if controllers else ["unified"]:
                groups[controller] = path
    found = []
    for controller, (root, mount_point) in mounts.items():
        if controller not in groups:
            continue
        relative = os.path.relpath(groups[controller], root) if root != "/" else groups[controller]
        found.append(Hierarchy(controller, mount_point / relative.lstrip("/").removeprefix(".")))
    return found


class Cgroup:
    """A sandbox's control groups: limits written at creation, its processes killed and
    the groups removed at :meth:`remove`."""

    def __init__(self, paths: dict[str, Path]) -> None:
        self.paths = paths  # controller -> this group's folder
        self._cpu_fd: int | None = None  # the CPU counter, kept open: read at every request
        self._weight: tuple[int, int] | None = None  # the CPU weight's descriptor, version
        #: removed: nothing opens the group's files again (a late request would leak them)
        self._removed = False

    @classmethod
    def create(
        cls, name: str, memory_bytes: int, processes: int, cpu_cores: float = 1.0
    ) -> Cgroup | None:
        """A new group limited to ``memory_bytes``, ``processes`` (threads count) and
        ``cpu_cores`` (where the host has a CPU controller), idle; or None when the host
        gives no writable memory and pids controllers."""
        paths: dict[str, Path] = {}
        hierarchies = {h.controller: h for h in own_hierarchies()}
        try:
            if "memory" in hierarchies and "pids" in hierarchies:
                for controller in _V1:
                    if controller in hierarchies:
                        paths[controller] = _make(hierarchies[controller].path / PARENT / name)
                group = cls(paths)
                group._limit_v1(memory_bytes, processes)
                group._limit_cpu(cpu_cores)
                return group
            if "unified" in hierarchies:
                unified = hierarchies["unified"].path
                available = (unified / "cgroup.controllers").read_text().split()
                if "memory" in available and "pids" in available:
                    parent = _make(unified / PARENT)
                    (parent / "cgroup.subtree_control").write_text("+memory +pids")
                    if "cpu" in available:
                        with contextlib.suppress(OSError):
                            (parent / "cgroup.subtree_control").write_text("+cpu")
                    paths["unified"] = _make(parent / name)
                    group = cls(paths)
                    group._limit_v2(memory_bytes, processes)
                    group._limit_cpu(cpu_cores)
                    return group
        except OSError:
            cls(paths).remove()
        return None

    def _limit_v1(self, memory_bytes: int, processes: int) -> None:
        memory = self.paths["memory"]
        (memory / "memory.limit_in_bytes").write_text(str(memory_bytes))
        swap = memory / "memory.memsw.limit_in_bytes"
        if swap.exists():  # no swap beyond the memory limit
            with contextlib.suppress(OSError):
                swap.write_text(str(memory_bytes))
        (self.paths["pids"] / "pids.max").write_text(str(processes))

    def _limit_v2(self, memory_bytes: int, processes: int) -> None:
        group = self.paths["unified"]
        (group / "memory.max").write_text(str(memory_bytes))
        with contextlib.suppress(OSError):
            (group / "memory.swap.max").write_text("0")
        (group / "pids.max").write_text(str(processes))

    def _cpu_files(self) -> tuple[int, Path] | None:
        """(version, the group's folder) of its CPU controller, if it has one."""
        if "cpu" in self.paths:
            return 1, self.paths["cpu"]
        unified = self.paths.get("unified")
        if unified is not None and (unified / "cpu.weight").exists():
            return 2, unified
        return None

    def _limit_cpu(self, cores: float) -> None:
        found = self._cpu_files()
        if found is None:
            return
        version, folder = found
        quota = max(1000, int(_PERIOD_US * cores))
        if version == 1:
            (folder / "cpu.cfs_period_us").write_text(str(_PERIOD_US))
            (folder / "cpu.cfs_quota_us").write_text(str(quota))
        else:
            (folder / "cpu.max").write_text(f"{quota} {_PERIOD_US}")
        self.set_busy(False)

    def set_busy(self, busy: bool) -> None:
        """Weigh the group as one the referee waits on (``busy``) or not: one ``pwrite``
        on a descriptor kept open (2 µs, where opening the file each time took 39: the
        weight changes twice a decision)."""
        with contextlib.suppress(OSError):
            opened = self._weight_file()
            if opened is not None:
                fd, version = opened
                weight = (BUSY_WEIGHT if busy else IDLE_WEIGHT)[version]
                os.pwrite(fd, str(weight).encode(), 0)

    def _weight_file(self) -> tuple[int, int] | None:
        """The group's CPU weight file, opened once, and its version (None: the group has
        no CPU controller)."""
        if self._weight is None and not self._removed:
            found = self._cpu_files()
            if found is None:
                return None
            version, folder = found
            name = "cpu.shares" if version == 1 else "cpu.weight"
            self._weight = (os.open(folder / name, os.O_WRONLY | os.O_CLOEXEC), version)
        return self._weight

    @property
    def procs_files(self) -> list[Path]:
        """The files a process writes its pid to, to enter every one of the groups."""
        return [path / "cgroup.procs" for path in self.paths.values()]

    def pids(self) -> set[int]:
        found: set[int] = set()
        for procs in self.procs_files:
            with contextlib.suppress(OSError):
                found.update(int(pid) for pid in procs.read_text().split())
        return found

    def memory_killed(self) -> bool:
        """Whether the kernel killed a process of the group at its memory limit."""
        for controller, name in (("memory", "memory.oom_control"), ("unified", "memory.events")):
            path = self.paths.get(controller)
            if path is None:
                continue
            with contextlib.suppress(OSError, ValueError):
                for line in (path / name).read_text().splitlines():
                    key, _, value = line.partition(" ")
                    if key == "oom_kill" and int(value) > 0:
                        return True
        return False

    def cpu_seconds(self) -> float | None:
        """CPU time used by the group's processes so far, where the host counts it (read
        with one ``pread`` on a descriptor kept open: about a microsecond)."""
        if self._removed:
            return None
        with contextlib.suppress(OSError, ValueError, KeyError):
            if self._cpu_fd is None:
                counter = (
                    self.paths["cpuacct"] / "cpuacct.usage"
                    if "cpuacct" in self.paths
                    else self.paths["unified"] / "cpu.stat"
                )
                self._cpu_fd = os.open(counter, os.O_RDONLY | os.O_CLOEXEC)
            data = os.pread(self._cpu_fd, 4096, 0)
            if "cpuacct" in self.paths:
                return int(data) / 1e9
            stat = data.split()
            return int(stat[stat.index(b"usage_usec") + 1]) / 1e6
        return None

    def kill(self) -> None:
        """SIGKILL every process left in the group (the sandbox's PID namespace normally
        took them all with it already)."""
        for _ in range(50):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.01)

    def remove(self) -> None:
        self._removed = True
        if self._cpu_fd is not None:
            os.close(self._cpu_fd)
            self._cpu_fd = None
        if self._weight is not None:
            os.close(self._weight[0])
            self._weight = None
        self.kill()
        for path in self.paths.values():
            for _ in range(100):  # a killed process leaves its group a moment later
                try:
                    path.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)


def _make(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


def _remove_at_once(group: Path) -> bool:
    """Kill what runs in a group and try to remove it, without waiting (a worker's
    reconciler sweeps: the next sweep tries again what is not gone yet)."""
    with contextlib.suppress(OSError, ValueError):
        for pid in (group / "cgroup.procs").read_text().split():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(int(pid), signal.SIGKILL)
    try:
        group.rmdir()
    except OSError:
        return False
    return True


def sweep(orphaned: Callable[[str], bool], older_than: float = 60.0) -> int:
    """Remove the sandbox groups that a killed worker left: an ``orphaned`` one (its
    maker is dead) with whatever still runs in it, killed (a process the worker's death
    did not take), and any empty one older than ``older_than`` seconds (a live worker's
    new group is empty for a moment too). Never waits: a group whose processes are still
    dying is removed by a later sweep."""
    removed = 0
    cutoff = time.time() - older_than
    for hierarchy in own_hierarchies():
        parent = hierarchy.path / PARENT
        if not parent.is_dir():
            continue
        for group in parent.iterdir():
            with contextlib.suppress(OSError):
                if group.is_dir() and orphaned(group.name):
                    removed += _remove_at_once(group)
                elif group.is_dir() and group.stat().st_mtime < cutoff:
                    group.rmdir()
                    removed += 1
    return removed
