"""Ask the kernel for what a bot never needs: each call's answer is reported."""

import ctypes
import os
import socket
import subprocess

from player import Plain, report

libc = ctypes.CDLL(None, use_errno=True)
NUMBERS = {  # x86_64, aarch64
    "io_uring_setup": (425, 425),
    "bpf": (321, 280),
    "perf_event_open": (298, 241),
    "userfaultfd": (323, 282),
    "unshare": (272, 97),
    "setns": (308, 268),
    "keyctl": (250, 219),
    "kexec_load": (246, 104),
    "open_by_handle_at": (304, 265),
}
CLONE_NEWUSER = 0x10000000
machine = 0 if os.uname().machine == "x86_64" else 1
for name, numbers in NUMBERS.items():
    argument = CLONE_NEWUSER if name == "unshare" else 0
    result = libc.syscall(numbers[machine], argument, 0, 0, 0, 0)
    report(name, "done" if result >= 0 else f"refused ({ctypes.get_errno()})")
try:
    socket.socket(40, socket.SOCK_STREAM).close()  # AF_VSOCK: created, never connected
    report("vsock", "done")
except OSError as error:
    report("vsock", f"refused ({error.errno})")
child = subprocess.run(["/bin/sh", "-c", "echo spawned"], capture_output=True, text=True)
report("child process", child.stdout.strip() or f"failed {child.returncode}")
namespace = subprocess.run(["unshare", "-U", "true"], capture_output=True)
report("unshare command", "done" if namespace.returncode == 0 else "refused")
with open("/proc/self/status") as status:
    report("seccomp", [line for line in status if line.startswith("Seccomp:")][0].split()[1])
with open("/proc/1/cmdline", "rb") as first:
    report("pid 1", first.read().replace(b"\0", b" ").decode())


class Syscalls(Plain):
    name = "syscalls"
