"""Attach with ptrace to processes outside the sandbox: another bot and the worker (their
host pids given away)."""

import ctypes
import time

from player import Plain, given, report

libc = ctypes.CDLL(None, use_errno=True)
PTRACE_ATTACH = 16
for pid in (given("PID"), given("WORKER_PID")):
    result = libc.ptrace(PTRACE_ATTACH, pid, None, None)
    report(f"ptrace {pid}", "attached" if result == 0 else f"refused ({ctypes.get_errno()})")
time.sleep(0.2)


class Ptrace(Plain):
    name = "ptrace"
