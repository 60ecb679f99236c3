"""Two seats that try to talk through a futex on a page of a file both map: the C
library. A shared futex on a file's page is keyed by the file's inode and the page's
offset, whatever the namespaces, so a waiter in one sandbox is woken by a waker in
another that runs on the same copy of the runtime image.

``ROLE=wait`` waits on the word (shared, then with the futex2 calls); ``ROLE=wake``
wakes it until a waiter is woken or ``ROUNDS`` tries are spent. A private futex (what
threads use) is tried too: it must keep working."""

import ctypes
import os
import threading
import time

from player import Plain, given, report

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
NUMBERS = {  # x86_64, aarch64
    "futex": {"x86_64": 202, "aarch64": 98},
    "futex_waitv": {"x86_64": 449, "aarch64": 449},
    "futex_wake": {"x86_64": 454, "aarch64": 454},
    "futex_wait": {"x86_64": 455, "aarch64": 455},
}
FUTEX_WAIT, FUTEX_WAKE, FUTEX_PRIVATE_FLAG = 0, 1, 128
FUTEX2_SIZE_U32 = 2
CLOCK_MONOTONIC = 1
ROLE = given("ROLE")
ROUNDS = given("ROUNDS")
#: where in the C library's first page the word is: the same in every sandbox
OFFSET = 0x40


class Timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


def shared_word() -> int:
    """The address of a word on the first page of the C library's file, as mapped here."""
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split()
            if len(fields) >= 6 and "libc.so" in fields[5] and int(fields[2], 16) == 0:
                return int(fields[0].split("-")[0], 16) + OFFSET
    raise RuntimeError("the C library is not mapped")


def number(name: str) -> int:
    return NUMBERS[name][os.uname().machine]


def outcome(result: int) -> str:
    return f"done ({result})" if result >= 0 else f"refused ({ctypes.get_errno()})"


def wait(word: int, seconds: int) -> str:
    value = ctypes.c_uint32.from_address(word).value
    timeout = Timespec(seconds, 0)
    result = libc.syscall(number("futex"), ctypes.c_void_p(word), FUTEX_WAIT, value,
                          ctypes.byref(timeout), None, 0)  # fmt: skip
    if result == 0:
        return "woken"
    return "timed out" if ctypes.get_errno() == 110 else f"refused ({ctypes.get_errno()})"


def private_futex() -> str:
    """A private wait on a value that is not there: EAGAIN (11) means it was allowed."""
    word = ctypes.c_uint32(1)
    result = libc.syscall(number("futex"), ctypes.byref(word), FUTEX_WAIT | FUTEX_PRIVATE_FLAG,
                          0, None, None, 0)  # fmt: skip
    return outcome(result)


def futex2(word: int) -> None:
    value = ctypes.c_uint32.from_address(word).value
    report("futex_wake", outcome(libc.syscall(number("futex_wake"), ctypes.c_void_p(word),
                                              ctypes.c_ulong(-1 & 0xFFFFFFFF), 1,
                                              FUTEX2_SIZE_U32)))  # fmt: skip
    expired = Timespec(0, 0)  # an absolute time long past: never blocks
    report("futex_wait", outcome(libc.syscall(number("futex_wait"), ctypes.c_void_p(word),
                                              value, ctypes.c_ulong(0xFFFFFFFF),
                                              FUTEX2_SIZE_U32, ctypes.byref(expired),
                                              CLOCK_MONOTONIC)))  # fmt: skip
    report("futex_waitv", outcome(libc.syscall(number("futex_waitv"), None, 0, 0, None, 0)))


def wake(word: int) -> str:
    woken = 0
    for _ in range(ROUNDS):
        result = libc.syscall(number("futex"), ctypes.c_void_p(word), FUTEX_WAKE, 1,
                              None, None, 0)  # fmt: skip
        if result < 0:
            return f"refused ({ctypes.get_errno()})"
        woken += result
        if woken:
            return f"woke {woken}"
        time.sleep(0.01)
    return "woke nobody"


def attack() -> None:
    """Off the bot's start: the waiter may wait a while."""
    word = shared_word()
    report("private futex", private_futex())
    futex2(word)
    if ROLE == "wait":
        report("shared wait", wait(word, 60))
    else:
        report("shared wake", wake(word))


threading.Thread(target=attack, daemon=True).start()


class Futex(Plain):
    name = "futex"
