"""Two seats that try to talk through the kernel: the writer leaves its token in the
keyring, as a lock on a shared read-only file and as opens a watch would see; the
reader looks for it in all three places."""

import ctypes
import fcntl
import os
import select
import struct

from player import Plain, given, report

libc = ctypes.CDLL(None, use_errno=True)
NUMBERS = {  # x86_64, aarch64
    "add_key": {"x86_64": 248, "aarch64": 217},
    "keyctl": {"x86_64": 250, "aarch64": 219},
}
SHARED = given("FILE")  # a file under /usr: every sandbox shows the same one
TOKEN = given("TOKEN")
KEY_SPEC_USER_KEYRING, KEY_SPEC_SESSION_KEYRING = -4, -3
KEYCTL_SEARCH = 10


def call(name: str, *args) -> str:
    number = NUMBERS[name][os.uname().machine]
    result = libc.syscall(number, *args)
    return "done" if result >= 0 else f"refused ({ctypes.get_errno()})"


def write() -> None:
    for keyring in (KEY_SPEC_USER_KEYRING, KEY_SPEC_SESSION_KEYRING):
        outcome = call("add_key", b"user", TOKEN.encode(), b"1", 1, keyring)
        report(f"add_key {keyring}", outcome)
    shared = os.open(SHARED, os.O_RDONLY)
    for name, lock in (("flock", fcntl.flock), ("lockf", fcntl.lockf)):
        try:
            lock(shared, fcntl.LOCK_SH | fcntl.LOCK_NB)
            report(name, "done: holding")
        except OSError as error:
            report(name, f"refused ({error.errno})")
    for _ in range(50):  # opens that a watch in another sandbox would see
        os.close(os.open(SHARED, os.O_RDONLY))


def read() -> None:
    with open("/proc/keys") as keys:
        report("proc keys", "found token" if TOKEN in keys.read() else "nothing")
    for keyring in (KEY_SPEC_USER_KEYRING, KEY_SPEC_SESSION_KEYRING):
        outcome = call("keyctl", KEYCTL_SEARCH, keyring, b"user", TOKEN.encode(), 0)
        report(f"keyctl search {keyring}", outcome)
    shared = os.open(SHARED, os.O_RDONLY)
    probe = struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 0, 0)
    try:
        answer = fcntl.fcntl(shared, fcntl.F_GETLK, probe)
        held = struct.unpack("hhqqi", answer)[0] != fcntl.F_UNLCK
        report("getlk", "done: " + ("held" if held else "free"))
    except OSError as error:
        report("getlk", f"refused ({error.errno})")
    watch = libc.inotify_init1(os.O_NONBLOCK)
    if watch < 0:
        report("inotify", f"refused ({ctypes.get_errno()})")
    else:
        added = libc.inotify_add_watch(watch, SHARED.encode(), 0x20)  # IN_OPEN
        seen = select.select([watch], [], [], 0.5)[0]
        report("inotify", f"done: watch {added}, {'events' if seen else 'quiet'}")


write() if given("ROLE") == "write" else read()


class Channel(Plain):
    name = "channel"
