"""Host-wide counters as a live channel: the sender moves them (pseudo-terminals opened,
the kernel's AIO pool taken), the receiver, in another sandbox at the same time, reads
every global figure it can find (/proc/sys, /proc's global lines, sysinfo, statfs)."""

import ctypes
import os
import time

from player import Plain, given, report

libc = ctypes.CDLL(None, use_errno=True)
IO_SETUP = {"x86_64": 206, "aarch64": 0}[os.uname().machine]
SYSINFO = {"x86_64": 99, "aarch64": 179}[os.uname().machine]
FIGURES = (
    "/proc/sys/kernel/pty/nr", "/proc/sys/fs/aio-nr", "/proc/sys/fs/file-nr",
    "/proc/sys/fs/inode-nr", "/proc/sys/kernel/threads-max", "/proc/loadavg", "/proc/stat",
    "/proc/meminfo", "/proc/uptime", "/proc/vmstat", "/proc/diskstats", "/proc/interrupts",
    "/proc/pressure/cpu", "/proc/locks",
)  # fmt: skip


def send() -> None:
    held = []
    try:
        for _ in range(64):
            held.append(os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY))
        report("ptys", f"opened {len(held)}")
    except OSError as error:
        report("ptys", f"refused ({error.errno}) after {len(held)}")
    context = ctypes.c_ulong(0)
    result = libc.syscall(IO_SETUP, 65536, ctypes.byref(context))
    report("io_setup", "done" if result == 0 else f"refused ({ctypes.get_errno()})")
    report("sent", "yes")


def receive() -> None:
    for path in FIGURES:
        try:
            with open(path) as figure:
                text = figure.read().strip()
            report(f"read {path}", "empty" if not text else "figures")
        except OSError as error:
            report(f"read {path}", f"refused ({error.errno})")
    buffer = ctypes.create_string_buffer(256)
    result = libc.syscall(SYSINFO, buffer)
    report("sysinfo", "done" if result == 0 else f"refused ({ctypes.get_errno()})")
    try:
        os.statvfs("/run/arena")
        report("statfs", "done")
    except OSError as error:
        report("statfs", f"refused ({error.errno})")
    time.sleep(0)


send() if given("ROLE") == "send" else receive()


class Counters(Plain):
    name = "counters"
