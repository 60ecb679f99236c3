"""The library every program of a sandbox preloads to join threads without a shared
futex wait (``arena/platform/sandbox/join.c``): joins end with the thread's result, a
timed join gives up at its deadline, and a long join (the JVM's launcher waits on the
JVM's main thread for the program's whole life) wakes ever more rarely."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from arena.platform.sandbox import runtime

PROGRAM = r"""
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static void *short_one(void *arg) { usleep(10000); return (void *)7; }
static void *until_stdin_closes(void *arg) {
    char byte;
    while (read(0, &byte, 1) > 0) {}
    return (void *)42;
}

int main(void) {
    pthread_t thread;
    void *result = NULL;
    pthread_create(&thread, NULL, short_one, NULL);
    int code = pthread_join(thread, &result);
    printf("short %d %ld\n", code, (long)result);
    pthread_create(&thread, NULL, until_stdin_closes, NULL);
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_nsec += 50000000;
    if (deadline.tv_nsec >= 1000000000) { deadline.tv_sec += 1; deadline.tv_nsec -= 1000000000; }
    code = pthread_timedjoin_np(thread, &result, &deadline);
    printf("timed %s\n", code == ETIMEDOUT ? "ETIMEDOUT" : "?");
    printf("joining\n");
    fflush(stdout);
    code = pthread_join(thread, &result);
    printf("long %d %ld\n", code, (long)result);
    return 0;
}
"""


def _wakeups(pid: int) -> int:
    """How often the program's main thread (the joiner) has gone to sleep and woken."""
    for line in Path(f"/proc/{pid}/task/{pid}/status").read_text().splitlines():
        if line.startswith("voluntary_ctxt_switches:"):
            return int(line.split()[1])
    raise AssertionError("no voluntary_ctxt_switches")


@pytest.mark.processes
def test_joins_end_with_the_result_and_a_long_join_wakes_ever_more_rarely(tmp_path: Path) -> None:
    library = tmp_path / "libarena-join.so"
    runtime._compile_join(library)
    (tmp_path / "joins.c").write_text(PROGRAM)
    subprocess.run(["cc", "-O2", "-pthread", "-o", "joins", "joins.c"], cwd=tmp_path, check=True)
    program = subprocess.Popen(
        [tmp_path / "joins"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={"LD_PRELOAD": str(library)},
    )
    assert program.stdin is not None and program.stdout is not None
    try:
        lines = [program.stdout.readline().strip() for _ in range(3)]
        assert lines == ["short 0 7", "timed ETIMEDOUT", "joining"]
        time.sleep(1.0)  # the join has waited a second at least: it tries every 50 ms or less often
        before = _wakeups(program.pid)
        time.sleep(2.0)
        woken = _wakeups(program.pid) - before
        program.stdin.close()  # the thread ends: the join gives its result
        assert program.stdout.readline().strip() == "long 0 42"
        assert program.wait(timeout=60) == 0
    finally:
        program.kill()
    # at 5 ms a try it woke 400 times in these two seconds; a slow machine wakes it less
    assert woken < 100, woken
