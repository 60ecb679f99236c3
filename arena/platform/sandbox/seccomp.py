"""The system calls a sandboxed bot may not make: a seccomp filter, built with libseccomp.

A bot needs Python, gRPC over its Unix socket, threads and child processes; it never
needs to reach the kernel's shared objects. Everything that could carry bits between
two sandboxes, or outlive one, or widen the kernel's attack surface is refused with an
error (the bot sees ``EPERM``; it is never killed for asking):

- the kernel keyring (``add_key``, ``request_key``, ``keyctl``): keys are per uid, shared
  by every process of that uid, and outlive the process;
- file locks and leases (``flock``, ``fcntl`` lock, lease and notify commands): a lock
  on a shared read-only file (under ``/usr``) is seen by every sandbox;
- file watches (``inotify``, ``fanotify``): another sandbox opening a shared file is seen;
- shared futexes: a futex on a page of a file is keyed by the file's inode and the
  page's offset, so a waiter in one sandbox is woken from another that maps the same
  file (the C library of one runtime image); only private futexes (``FUTEX_PRIVATE_FLAG``,
  keyed by the process's own memory: what threads, locks and ``asyncio`` use) are
  allowed, and the futex2 calls, whose flags sit in memory the filter cannot read or
  that a private call does not need, answer ``ENOSYS``;
- sockets other than Unix, IP and netlink ones (``AF_VSOCK`` in particular: the VM
  socket family has no network namespace and reaches the host);
- new namespaces (``unshare``, ``setns``, ``clone`` with a namespace flag; ``clone3``
  answers ``ENOSYS`` so that the C library falls back to ``clone``), mounts, ``chroot``;
- ``io_uring``, ``bpf``, ``perf_event_open``, ``userfaultfd``, ``ptrace`` and the
  cross-process memory calls, kernel modules, ``kexec``, ``reboot``, clocks, swap,
  quotas, accounting, ``open_by_handle_at`` and the rest of Docker's default refusals.

Docker's default profile allows a list and refuses the rest; this filter refuses a list
and allows the rest (a call unknown to the list passes): it refuses everything Docker
refuses that a process without capabilities could reach, and more (locks, watches,
``io_uring``, ``AF_VSOCK``). docs/sandbox.md compares the two.
"""

from __future__ import annotations

import errno
import functools
import os

#: refused outright
DENIED = (
    # the keyring
    "add_key", "request_key", "keyctl",
    # locks and watches on shared files
    "flock", "inotify_init", "inotify_init1", "inotify_add_watch",
    "fanotify_init", "fanotify_mark",
    # other processes and the kernel's insides
    "ptrace", "process_vm_readv", "process_vm_writev", "process_madvise", "kcmp",
    "pidfd_getfd", "perf_event_open", "bpf", "userfaultfd", "lookup_dcookie",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    # namespaces and mounts
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "fsopen",
    "fsconfig", "fsmount", "fspick", "move_mount", "open_tree", "mount_setattr",
    "name_to_handle_at", "open_by_handle_at",
    # the machine
    "kexec_load", "kexec_file_load", "reboot", "init_module", "finit_module",
    "delete_module", "acct", "quotactl", "quotactl_fd", "swapon", "swapoff", "syslog",
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "iopl", "ioperm",
    "vhangup", "uselib", "ustat", "sysfs", "_sysctl", "nfsservctl",
    "mbind", "set_mempolicy", "migrate_pages", "move_pages",
    # the page cache of shared files: what is cached, dropping it, loading it ahead
    "mincore", "cachestat", "fadvise64", "fadvise64_64", "readahead",
    # the kernel's asynchronous I/O: one host-wide pool (fs.aio-max-nr), its count readable
    "io_setup", "io_destroy", "io_submit", "io_cancel", "io_getevents", "io_pgetevents",
    # host-wide counters: processes, free memory and load (sysinfo), a shared file
    # system's free blocks and files (statfs)
    "sysinfo", "statfs", "fstatfs", "statfs64", "fstatfs64",
)  # fmt: skip

#: ``madvise`` advice that pushes a shared file's pages out of memory
MADV_EVICTING = {"MADV_COLD": 20, "MADV_PAGEOUT": 21}

#: ``fcntl`` commands refused: record locks (classic and open file description), leases
#: and directory notifications
FCNTL_LOCKS = {
    "F_GETLK": 5, "F_SETLK": 6, "F_SETLKW": 7,
    "F_OFD_GETLK": 36, "F_OFD_SETLK": 37, "F_OFD_SETLKW": 38,
    "F_SETLEASE": 1024, "F_GETLEASE": 1025, "F_NOTIFY": 1026,
}  # fmt: skip

#: ``futex`` operations without this flag are keyed by a shared file's inode and refused
FUTEX_PRIVATE_FLAG = 128
#: the futex2 calls (Linux 5.16 and 6.7): no C library needs them yet
FUTEX2_CALLS = ("futex_waitv", "futex_wake", "futex_wait", "futex_requeue")
#: their numbers, the same on x86_64 and aarch64, for a libseccomp older than the calls
_FUTEX2_NUMBERS = {"futex_waitv": 449, "futex_wake": 454, "futex_wait": 455, "futex_requeue": 456}

#: socket families a bot may open: Unix and netlink. Not IP, not even on its own
#: loopback: TCP and UDP buffers are counted in one host-wide figure per protocol, which
#: every network namespace reads in /proc/net/sockstat
ALLOWED_FAMILIES = frozenset({1, 16})
#: families above this are unknown to the kernel (AF_MAX is 46 on Linux 6.x)
_FAMILIES = range(64)

_NAMESPACE_FLAGS = (
    0x00020000,  # CLONE_NEWNS
    0x02000000,  # CLONE_NEWCGROUP
    0x04000000,  # CLONE_NEWUTS
    0x08000000,  # CLONE_NEWIPC
    0x10000000,  # CLONE_NEWUSER
    0x20000000,  # CLONE_NEWPID
    0x40000000,  # CLONE_NEWNET
    0x00000080,  # CLONE_NEWTIME
)


class SeccompUnavailable(RuntimeError):
    """libseccomp cannot be loaded here."""


#: what a bot's build may do that a seat may not: it sees none of the files a seat sees
#: (the host's toolchains, not the runtime image), so neither its locks nor its shared
#: futexes meet a seat's; Go's build cache locks its files, rustc waits on shared futexes
BUILD_ALLOWED = frozenset({"flock"})
_FCNTL_BUILD = {"F_GETLK", "F_SETLK", "F_SETLKW", "F_OFD_GETLK", "F_OFD_SETLK", "F_OFD_SETLKW"}


@functools.cache
def program(build: bool = False) -> bytes:
    """The filter as a BPF program (what ``bwrap --seccomp FD`` reads), built once;
    ``build``: a build's, which may lock files and wait on shared futexes."""
    try:
        import pyseccomp as seccomp
    except (ImportError, OSError) as error:  # the bindings, or libseccomp.so.2, missing
        raise SeccompUnavailable(f"libseccomp is not available: {error}") from None
    refuse = seccomp.ERRNO(errno.EPERM)
    rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    for name in DENIED:
        if not (build and name in BUILD_ALLOWED):
            _add(rules, seccomp, refuse, name)
    for name in ("fcntl", "fcntl64"):
        for key, command in FCNTL_LOCKS.items():
            if not (build and key in _FCNTL_BUILD):
                _add(rules, seccomp, refuse, name, seccomp.Arg(1, seccomp.EQ, command))
    for advice in MADV_EVICTING.values():
        _add(rules, seccomp, refuse, "madvise", seccomp.Arg(2, seccomp.EQ, advice))
    for name in ("preadv2", "pwritev2"):  # any flag: RWF_NOWAIT tells cached pages apart
        _add(rules, seccomp, refuse, name, seccomp.Arg(5, seccomp.NE, 0))
    for name in ("socket", "socketpair"):
        for family in _FAMILIES:
            if family not in ALLOWED_FAMILIES:
                no_family = seccomp.ERRNO(errno.EAFNOSUPPORT)
                _add(rules, seccomp, no_family, name, seccomp.Arg(0, seccomp.EQ, family))
    for flag in _NAMESPACE_FLAGS:
        _add(rules, seccomp, refuse, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    _add(rules, seccomp, seccomp.ERRNO(errno.ENOSYS), "clone3")
    shared = seccomp.Arg(1, seccomp.MASKED_EQ, FUTEX_PRIVATE_FLAG, 0)
    for name in ("futex", "futex_time64"):
        if not build:
            _add(rules, seccomp, refuse, name, shared)
    for name in FUTEX2_CALLS:
        _add(rules, seccomp, seccomp.ERRNO(errno.ENOSYS), name, number=_FUTEX2_NUMBERS[name])
    memory = os.memfd_create("arena-seccomp", os.MFD_CLOEXEC)
    with os.fdopen(memory, "w+b") as sink:
        rules.export_bpf(sink)
        sink.seek(0)
        return sink.read()


def _add(rules, seccomp, action, name: str, *args, number: int | None = None) -> None:
    """Add a rule, skipping a call this architecture does not have (``number``: the
    call's number where this libseccomp may not know its name)."""
    try:
        resolved = seccomp.resolve_syscall(seccomp.Arch.NATIVE, name)
    except ValueError:
        resolved = -1
    if resolved >= 0:
        rules.add_rule(action, name, *args)
    elif number is not None:
        rules.add_rule(action, number, *args)
