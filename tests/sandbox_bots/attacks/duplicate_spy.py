"""A duplicate spy: keeps the hand it is dealt every way it can (files wherever it may
write, the page cache of the files it reads, the host's counters), and looks, when it
starts, for hands an earlier rotation of the same deal kept."""

import ctypes
import json
import mmap
import os

from player import Plain, report

PLACES = ("/tmp/spy", "/run/arena/spy", "/dev/shm/spy", "/bot/spy", "/var/tmp/spy")
COUNTERS = ("/proc/sys/fs/aio-nr", "/proc/sys/kernel/pty/nr", "/proc/sys/fs/file-nr")
MARKED = "/usr/bin/python3"  # a file every sandbox reads
libc = ctypes.CDLL(None, use_errno=True)


def found_in_files() -> int:
    found = 0
    for place in PLACES:
        try:
            with open(place) as kept:
                found += len(json.load(kept))
        except (OSError, ValueError):
            continue
    return found


def found_in_cache() -> int:
    """Pages of MARKED an earlier rotation dropped (uncached): mincore tells them."""
    with open(MARKED, "rb") as handle:
        mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_COPY)
        size = len(mapped)
        vector = (ctypes.c_ubyte * ((size + 4095) // 4096))()
        address = ctypes.addressof(ctypes.c_char.from_buffer(mapped))
        if libc.mincore(ctypes.c_void_p(address), ctypes.c_size_t(size), vector) != 0:
            return 0
        return sum(1 for page in vector if not page & 1)


def found_in_counters() -> int:
    readable = 0
    for path in COUNTERS:
        try:
            with open(path) as counter:
                readable += bool(counter.read().strip())
        except OSError:
            continue
    return readable


report("found", found_in_files() + found_in_cache() + found_in_counters())


def keep(hand: list[str]) -> int:
    kept = 0
    for place in PLACES:
        try:
            with open(place, "w") as out:
                json.dump([hand], out)
            kept += 1
        except OSError:
            continue
    fd = os.open(MARKED, os.O_RDONLY)
    try:  # drop the pages the hand's cards name: a later rotation would see them gone
        for card in hand:
            os.posix_fadvise(fd, 4096 * (hash(card) % 64), 4096, os.POSIX_FADV_DONTNEED)
        kept += 1
    except OSError:
        pass
    return kept


class DuplicateSpy(Plain):
    name = "duplicate-spy"

    def on_match_start(self, match) -> None:
        self.kept = False
        report("runtime", os.stat(MARKED).st_ino)  # which copy of the runtime this is

    def act(self, obs):
        if not self.kept:
            self.kept = True
            report("kept", keep(list(obs.hand)))
        return super().act(obs)
