"""The hostile-bot suite: one uploaded bot per attack, each attack proved to fail from
outside the sandbox, each match finished.

Tests send traffic only to the loopback: a sandbox with no network is proved by
listeners the test runs on 127.0.0.1 and ::1 (and the machine's own Redis and
PostgreSQL) that never see a connection."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import os
import secrets
import shutil
import socket
import statistics
import sys
import time
from pathlib import Path

import psycopg
import pytest
import redis

from arena.base import aio
from arena.base.states import BotKind
from arena.engine import Ruleset
from arena.platform import children
from arena.platform.sandbox import (
    Limits,
    Sandbox,
    SandboxedSeat,
    SandboxError,
    availability,
    runtime,
)
from arena.platform.sandbox.uids import uid_range
from arena.platform.seating import seats_for
from arena.referee import LocalSeat, Referee, RefereeSettings
from arena.referee.transport import SessionPool
from arena.store.leases import SeatPlan
from sample_bots import HonestBot
from tests.sandboxing import ATTACKS, attack_bot, host_processes_with, listeners
from tests.support.services import POSTGRES_ADMIN, redis_test_url
from tests.support.waiting import wait_until
from worker.seats import warm_seats
from worker.warm import SeatLease, WarmSandboxes

pytestmark = pytest.mark.sandbox

RULES = Ruleset.parse("classic")
SETTINGS = RefereeSettings(deadline=1.0, time_bank=2.0, start_timeout=5)
LIMITS = Limits(
    cpu_seconds=10, memory_bytes=384 * 2**20, processes=48, open_files=64, start_seconds=8
)


def test_this_machine_builds_real_sandboxes() -> None:
    """CI runs as root with user namespaces: every attack below meets a real sandbox."""
    found = availability()
    assert found.mode == "sandboxed", found.describe()
    assert found.cgroups, found.describe()


def play(box: Sandbox) -> dict:
    """A heads-up match of the sandboxed bot against an honest bot in process."""
    seats = [SandboxedSeat(box, "attacker"), LocalSeat(HonestBot(ruleset=RULES, players=2))]
    log = aio.run(Referee(RULES, seats, seed=5, settings=SETTINGS).run()).to_dict()
    assert sorted(i for group in log["result"]["ranking"] for i in group) == [0, 1]
    return log


def test_no_network_reaches_the_hosts_services(tmp_path: Path) -> None:
    client = redis.Redis.from_url(redis_test_url())
    client.delete("rq:queue:arena-matches", "arena-attack")
    with listeners((socket.AF_INET, ("127.0.0.1", 0)), (socket.AF_INET6, ("::1", 0))) as found:
        targets = [
            (int(socket.AF_INET), "127.0.0.1", found[0].address[1]),
            (int(socket.AF_INET6), "::1", found[1].address[1]),
            (int(socket.AF_INET), "127.0.0.1", 6379),
            (int(socket.AF_INET), "127.0.0.1", 5432),
        ]
        db = redis_test_url().rsplit("/", 1)[1]
        bot = attack_bot(tmp_path, "network", TARGETS=targets, REDIS_DB=int(db))
        with Sandbox(bot, limits=LIMITS) as box:
            play(box)
            output = box.output_tail(4000)
        assert [listener.accepted for listener in found] == [0, 0]
    assert "connected" not in output and "enqueued" not in output, output
    assert output.count("refused") == 4, output
    assert client.llen("rq:queue:arena-matches") == 0 and client.get("arena-attack") is None
    with psycopg.connect(POSTGRES_ADMIN) as conn:
        table = conn.execute("SELECT to_regclass('arena_attack')").fetchone()
    assert table == (None,), "the bot reached PostgreSQL"


def test_another_seats_socket_and_the_hosts_abstract_sockets_are_out_of_reach(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "other-seat"
    folder.mkdir()
    path = str(folder / "bot.sock")
    abstract = f"arena-test-{secrets.token_hex(4)}"
    with listeners((socket.AF_UNIX, path), (socket.AF_UNIX, f"\0{abstract}")) as found:
        bot = attack_bot(tmp_path, "unix_socket", SOCKET=path, ABSTRACT=abstract)
        with Sandbox(bot, limits=LIMITS) as box:
            play(box)
            output = box.output_tail(4000)
        assert [listener.accepted for listener in found] == [0, 0], output
    assert output.count("refused") == 2, output


def test_the_data_directory_other_bots_and_the_workers_secrets_stay_hidden(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = secrets.token_hex(16)
    data = tmp_path / "data"
    data.mkdir()
    secret = data / "arena.db"
    secret.write_text(f"tokens and results {token}")
    monkeypatch.setenv("REDIS_URL", f"redis://:{token}@127.0.0.1:6379/0")
    victim = tmp_path / "victim"
    victim.mkdir()
    shutil.copy(ATTACKS / "player.py", victim / "bot.py")
    with open(victim / "bot.py", "a") as source:
        source.write(f"\nSECRET = {token!r}\n")
    bot = attack_bot(tmp_path, "files", SECRET_PATH=str(secret))
    with Sandbox(victim, limits=LIMITS), Sandbox(bot) as box:
        play(box)
        output = box.output_tail(10**6)
    assert "ATTACK files: read" in output, output[-2000:]
    assert "unmounted" not in output, output[:2000]
    assert token not in output, "the attacker read a secret"
    assert secret.read_text() == f"tokens and results {token}"


def tracer_of(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(status.split("TracerPid:")[1].split()[0])


def test_ptrace_reaches_no_other_process(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    shutil.copy(ATTACKS / "player.py", victim / "bot.py")
    with Sandbox(victim, limits=LIMITS) as other:
        assert other.process is not None
        bot = attack_bot(tmp_path, "ptrace", PID=other.process.pid, WORKER_PID=os.getpid())
        with Sandbox(bot, limits=LIMITS) as box:
            play(box)
            assert tracer_of(other.process.pid) == 0
            assert tracer_of(os.getpid()) == 0
            output = box.output_tail(4000)
    assert "attached" not in output and output.count("refused") == 2, output


def test_a_daemon_that_escapes_its_session_and_environment_dies_with_the_match(
    tmp_path: Path,
) -> None:
    mark = f"1000.{secrets.randbelow(10**6)}"
    bot = attack_bot(tmp_path, "daemon", MARK=mark)
    with Sandbox(bot, limits=LIMITS) as box:
        log = play(box)
        assert host_processes_with(mark), "the daemon runs during the match"
    assert log["seats"][0]["forfeit"] is None
    wait_until(lambda: not host_processes_with(mark), "the daemon outlived the match")


def test_memory_is_limited_for_the_bot_and_its_children_together(tmp_path: Path) -> None:
    chunk = 160 * 2**20  # four children of 160 MiB: each under the limit, not all four
    bot = attack_bot(tmp_path, "memory", CHUNK=chunk)
    with Sandbox(bot, limits=LIMITS) as box:
        play(box)
        assert box.cgroup is not None
        wait_until(box.cgroup.memory_killed, "no process was stopped at the memory limit")
        peak = int((box.cgroup.paths["memory"] / "memory.max_usage_in_bytes").read_text())
    assert peak <= LIMITS.memory_bytes


def test_a_fork_bomb_stops_at_the_process_limit(tmp_path: Path) -> None:
    bot = attack_bot(tmp_path, "fork_bomb")
    began = time.monotonic()
    with Sandbox(bot, limits=LIMITS) as box:
        play(box)
        assert box.cgroup is not None
        pids = box.cgroup.paths["pids"]
        wait_until(
            lambda: int((pids / "pids.events").read_text().split()[1]) > 0,
            "the bomb never reached the limit",
        )
        assert int((pids / "pids.current").read_text()) <= LIMITS.processes
    assert time.monotonic() - began < 60
    assert box.cgroup is not None and not box.cgroup.pids()


def test_a_fake_endpoint_is_never_contacted(tmp_path: Path) -> None:
    with listeners((socket.AF_INET, ("127.0.0.1", 0))) as found:
        endpoint = f"127.0.0.1:{found[0].address[1]}"
        bot = attack_bot(tmp_path, "fake_endpoint", ENDPOINT=endpoint)
        limits = Limits(start_seconds=2)
        with pytest.raises(SandboxError, match="did not start in time") as refused:
            Sandbox(bot, limits=limits).__enter__()
        assert found[0].accepted == 0
    assert "/dev/shm" not in str(refused.value) and "bwrap" not in str(refused.value)


# ------------------------------------------------------------------ sealed seats


def bot_uid(box: Sandbox) -> int:
    """The host uid of the bot's own process (the runner, found in its group)."""
    assert box.cgroup is not None
    for pid in sorted(box.cgroup.pids()):
        with contextlib.suppress(OSError):
            if Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[1:3] == [
                b"-m",
                b"arena.sdk.run",
            ]:
                return int(Path(f"/proc/{pid}/status").read_text().split("Uid:")[1].split()[0])
    raise AssertionError("no bot process in the sandbox's group")


def test_two_seats_share_no_keyring_lock_or_watch_and_no_uid(tmp_path: Path) -> None:
    token = f"arena-partner-{secrets.token_hex(8)}"
    shared = "/usr/bin/python3"  # in every sandbox's runtime image
    values = {"TOKEN": token, "FILE": shared}
    writer = attack_bot(tmp_path / "w", "channel", ROLE="write", **values)
    reader = attack_bot(tmp_path / "r", "channel", ROLE="read", **values)
    with Sandbox(writer, limits=LIMITS) as first, Sandbox(reader, limits=LIMITS) as second:
        written, read = first.output_tail(4000), second.output_tail(4000)
        with open(runtime.image() / "usr/bin/python3", "rb") as outside:  # nobody locks it
            fcntl.flock(outside, fcntl.LOCK_EX | fcntl.LOCK_NB)
        uids = {bot_uid(first), bot_uid(second)}
    assert written.count("refused (1)") == 4, written  # add_key twice, flock, lockf
    assert "holding" not in written and "ATTACK add_key -4: done" not in written
    assert "found token" not in read and "ATTACK proc keys: nothing" in read, read
    assert read.count("refused") == 4, read  # keyctl twice, getlk, inotify
    assert token not in Path("/proc/keys").read_text(), "the key outlived its sandbox"
    assert len(uids) == 2 and uids <= set(uid_range()) and os.getuid() not in uids


def test_the_kernels_shared_parts_are_refused_and_children_still_run(tmp_path: Path) -> None:
    output = tmp_path / "output.log"
    with Sandbox(attack_bot(tmp_path, "syscalls"), limits=LIMITS, output=output) as box:
        play(box)
    printed = output.read_text()  # as printed: host paths not scrubbed away
    for name in ("io_uring_setup", "bpf", "perf_event_open", "userfaultfd", "unshare",
                 "setns", "keyctl", "kexec_load", "open_by_handle_at"):  # fmt: skip
        assert f"ATTACK {name}: refused (1)" in printed, (name, printed)
    assert f"ATTACK vsock: refused ({errno.EAFNOSUPPORT})" in printed, printed
    assert "ATTACK child process: spawned" in printed and "unshare command: refused" in printed
    assert "ATTACK seccomp: 2" in printed, printed
    pid_one = printed.split("ATTACK pid 1: ")[1].splitlines()[0]
    assert "--args" in pid_one and "/dev/shm" not in pid_one and str(tmp_path) not in pid_one
    assert "--bind" not in pid_one and "arena-sandbox" not in pid_one, pid_one


# ------------------------------------------------------------------ CPU


def iterations_for(seconds: float) -> int:
    """How many turns of the thinker's loop take ``seconds`` of CPU here (CPU time, not
    the clock: what else the machine does changes nothing)."""
    turns, began = 2_000_000, time.process_time()
    total = 0
    for i in range(turns):
        total += i
    return int(turns * seconds / (time.process_time() - began))


def victims_latencies(log: dict, seats: tuple[int, ...]) -> list[float]:
    return [
        step["latency_ms"]
        for deal in log["deals"]
        for step in deal["steps"]
        if step["seat"] in seats and step.get("latency_ms") is not None
    ]


def _at_a_table(seats: list[SandboxedSeat]) -> dict:
    return aio.run(Referee(RULES, seats, seed=11, settings=SETTINGS).run()).to_dict()


class WatchedSeat(SandboxedSeat):
    """A victim's seat that counts, over its decisions, the CPU it got and the CPU a
    rival's sandbox got in the same moments (the control groups' counters)."""

    def __init__(self, box: Sandbox, name: str, rival: Sandbox) -> None:
        super().__init__(box, name)
        self.rival = rival
        self.own = self.rivals = 0.0

    async def decide(self, observation, deal: int, allowed: float):
        mine, theirs = _cpu(self.box), _cpu(self.rival)
        try:
            return await super().decide(observation, deal, allowed)
        finally:
            self.own += _cpu(self.box) - mine
            self.rivals += _cpu(self.rival) - theirs


def _cpu(box: Sandbox) -> float:
    used = box.cpu_seconds()
    assert used is not None, "the sandbox's CPU counter cannot be read"
    return used


@pytest.mark.slow
@pytest.mark.alone
def test_a_forking_hog_takes_no_cpu_from_a_rival_that_thinks(tmp_path: Path) -> None:
    """40 children in sessions of their own burn CPU while two honest bots think 150 ms
    of CPU a decision; all on one core. While a victim thinks, the hog gets a sliver of
    the CPU the victim gets (the verdict: CPU counted by the control groups, the same
    on a slow machine or a loaded one), and no victim forfeits. The victims' latencies,
    beside the hog and beside a calm third bot, are printed, not judged (the clock is
    the machine's)."""
    work = iterations_for(0.15)
    limits = Limits(cpu_seconds=120, memory_bytes=512 * 2**20, processes=64, start_seconds=8)
    thinkers = [attack_bot(tmp_path / f"v{i}", "thinker", ITERATIONS=work) for i in range(2)]
    calm = attack_bot(tmp_path / "calm", "thinker", ITERATIONS=0)
    hog = attack_bot(tmp_path / "hog", "forking_hog", CHILDREN=40)
    affinity = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(affinity)})  # the sandboxes started now inherit it
    latencies: dict[str, list[float]] = {"calm": [], "hog": []}
    shares: dict[str, list[float]] = {"calm": [], "hog": []}
    try:
        with contextlib.ExitStack() as stack:
            victims = [stack.enter_context(Sandbox(bot, limits=limits)) for bot in thinkers]
            for name, third in (("calm", calm), ("hog", hog), ("calm", calm), ("hog", hog)):
                with Sandbox(third, limits=limits) as box:
                    seats = [WatchedSeat(v, f"victim{i}", box) for i, v in enumerate(victims)]
                    log = _at_a_table([SandboxedSeat(box, "third"), *seats])
                assert [s["forfeit"] for s in log["seats"][1:]] == [None, None], log["seats"]
                latencies[name] += victims_latencies(log, (1, 2))
                shares[name].append(sum(s.rivals for s in seats) / sum(s.own for s in seats))
    finally:
        os.sched_setaffinity(0, affinity)
    print(
        f"victims' median latency: {statistics.median(latencies['calm']):.0f} ms beside a calm "
        f"bot, {statistics.median(latencies['hog']):.0f} ms beside the hog; CPU the third got "
        f"per CPU second of a thinking victim: calm {shares['calm']}, hog {shares['hog']}"
    )
    assert max(shares["hog"]) < 0.1, shares


def test_cpu_burnt_between_requests_is_charged_to_the_bot(tmp_path: Path) -> None:
    with Sandbox(attack_bot(tmp_path, "spinner"), limits=LIMITS) as box:
        seat = SandboxedSeat(box, "spinner", cpu_budget=1.0)
        began = box.cpu_seconds() or 0.0
        deadline = time.monotonic() + 120
        while (box.cpu_seconds() or 0.0) - began < 1.5:  # it spins while nobody asks
            assert time.monotonic() < deadline, "the spinner never got the CPU"
            time.sleep(0.05)
        seats = [seat, LocalSeat(HonestBot(ruleset=RULES, players=2))]
        log = aio.run(Referee(RULES, seats, seed=5, settings=SETTINGS).run()).to_dict()
    forfeit = log["seats"][0]["forfeit"]
    assert forfeit is not None and forfeit["kind"] == "cpu_limit", log["seats"][0]
    assert log["seats"][1]["forfeit"] is None


# ------------------------------------------------------------------ shared host state


def _bits(count: int) -> str:
    return "".join(secrets.choice("01") for _ in range(count))


def _right(output: str, attack: str) -> tuple[int, int]:
    """How many bits the reader's ``attack`` got right, of how many."""
    outcome = output.split(f"ATTACK {attack}: ")[1].splitlines()[0]
    assert outcome.startswith("right "), (attack, outcome)
    right, total = outcome.removeprefix("right ").split(" of ")
    return int(right), int(total)


def test_the_page_cache_carries_bits_between_plain_processes(tmp_path: Path) -> None:
    """The attack is real: two processes after one another, no sandbox, a file on disk."""
    shared = tmp_path / "shared.bin"
    with open(shared, "wb") as out:  # on disk: a dirty page would stay in the cache
        out.write(os.urandom(256 * 4 * 4096))
        os.fsync(out.fileno())
    bits = _bits(256)
    for role in ("write", "read"):
        folder = attack_bot(tmp_path / role, "page_cache", ROLE=role, BITS=bits, FILE=str(shared))
        done = children.run([sys.executable, "bot.py"], cwd=folder, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    right, total = _right(done.stdout, "mincore")
    assert right >= 0.95 * total, done.stdout  # mincore tells every page


def test_no_page_cache_channel_outlives_a_sandbox(tmp_path: Path) -> None:
    """The writer's sandbox is gone before the reader's is made: every probe of the
    cache is refused, and every page it can read is in memory. On its own copy of the
    runtime (a later rotation of a duplicate deal), timing tells it nothing either: on the
    same copy, pages the writer read are still faster for a while (arena bench
    page-state; they were right 167 times of 256 once here)."""
    shared = max(
        (path for path in (runtime.image() / "usr").rglob("*") if path.is_file()),
        key=lambda path: path.stat().st_size,
    )
    inside = "/" + str(shared.relative_to(runtime.image()))
    bits = _bits(256)
    values = {"BITS": bits, "FILE": inside}
    with Sandbox(attack_bot(tmp_path / "w", "page_cache", ROLE="write", **values)) as writer:
        written = writer.output_tail(4000)
    reading = attack_bot(tmp_path / "r", "page_cache", ROLE="read", **values)
    with Sandbox(reading, image=1) as reader:
        read = reader.output_tail(4000)
    for refused in ("fadvise random", "fadvise dontneed", "madvise pageout"):
        assert f"ATTACK {refused}: refused ({errno.EPERM})" in written, written
    for refused in ("nowait", "mincore", "cachestat"):
        assert f"ATTACK {refused}: refused ({errno.EPERM})" in read, read
    right, total = _right(read, "timing")
    # a reader that learnt nothing is right about half the time; 65 % of 256 random bits
    # is 4.8 standard deviations above that
    assert right <= 0.65 * total, read


def test_what_a_sandbox_can_read_is_all_in_memory(tmp_path: Path) -> None:
    """No file system a sandbox sees keeps its pages on a disk: the runtime image, the
    bot's code and its socket folder are tmpfs, like its /tmp and /dev."""
    output = tmp_path / "output.log"
    bot = attack_bot(tmp_path, "mounts")
    with Sandbox(bot, limits=LIMITS, output=output) as box:
        play(box)
    kinds = output.read_text().split("ATTACK mounts: ")[1].splitlines()[0].split(",")
    assert set(kinds) <= {"tmpfs", "proc", "devtmpfs", "devpts"}, kinds


def test_no_host_counter_crosses_between_two_live_sandboxes(tmp_path: Path) -> None:
    """A sender moves the host's counters (pseudo-terminals, the AIO pool) while a
    receiver in another sandbox reads every host-wide figure: none can be moved, none
    can be read."""
    sender = attack_bot(tmp_path / "s", "counters", ROLE="send")
    receiver = attack_bot(tmp_path / "r", "counters", ROLE="receive")
    with Sandbox(sender, limits=LIMITS) as sending, Sandbox(receiver) as receiving:
        sent, received = sending.output_tail(4000), receiving.output_tail(4000)
    assert f"ATTACK ptys: refused ({errno.ENOENT}) after 0" in sent, sent
    assert f"ATTACK io_setup: refused ({errno.EPERM})" in sent, sent
    assert "ATTACK sent: yes" in sent
    figures = [line for line in received.splitlines() if line.startswith("ATTACK read ")]
    assert len(figures) == 14 and all("figures" not in line for line in figures), received
    assert f"ATTACK sysinfo: refused ({errno.EPERM})" in received, received
    assert f"ATTACK statfs: refused ({errno.EPERM})" in received, received


def test_no_futex_on_a_shared_page_joins_two_sandboxes_on_one_image(tmp_path: Path) -> None:
    """A shared futex on a page of a file both sandboxes map (the C library, on the same
    copy of the runtime image) is keyed by the file, not the process: a waiter in one
    sandbox would be woken from the other. Every futex call but the private ones (what
    threads use) is refused, and the futex2 calls with it."""
    values = {"ROUNDS": 3000}
    waiter = attack_bot(tmp_path / "w", "futex", ROLE="wait", **values)
    waker = attack_bot(tmp_path / "k", "futex", ROLE="wake", **values)
    with Sandbox(waiter, limits=LIMITS) as waiting, Sandbox(waker, limits=LIMITS) as waking:
        waited = wait_until(
            lambda: _reported(waiting, "shared wait"), "the waiter says how its wait ended"
        )
        woke = wait_until(lambda: _reported(waking, "shared wake"), "the waker says what it did")
        reports = waiting.output_tail(4000) + waking.output_tail(4000)
    assert waited == f"refused ({errno.EPERM})", reports
    assert woke == f"refused ({errno.EPERM})", reports
    for futex2 in ("futex_wake", "futex_wait", "futex_waitv"):
        assert reports.count(f"ATTACK {futex2}: refused ({errno.ENOSYS})") == 2, reports
    assert reports.count(f"ATTACK private futex: refused ({errno.EAGAIN})") == 2, reports


def _reported(box: Sandbox, attack: str) -> str | None:
    """What an attack bot reported of ``attack``, once it has."""
    for line in box.output_tail(4000).splitlines():
        if line.startswith(f"ATTACK {attack}: "):
            return line.split(": ", 1)[1]
    return None


def test_the_seats_of_one_table_run_on_copies_of_the_runtime_of_their_own(
    tmp_path: Path,
) -> None:
    """Seats alive at one table share no page of the runtime image (no futex key, no
    cache line), warm or fresh; a duplicate deal's rotations take copies no other
    rotation or table uses."""
    bots = [attack_bot(tmp_path / f"b{i}", "runtime_copy") for i in range(3)]
    plans = [SeatPlan(i + 1, f"copy{i}", BotKind.PATH, str(bot)) for i, bot in enumerate(bots)]

    async def warm_inodes(rotation: int | None) -> list[str]:
        sandboxes = WarmSandboxes(limits=LIMITS)
        try:
            _, leases = await warm_seats(
                plans, RULES, "s", SessionPool(), sandboxes, Path, rotation=rotation
            )
            return [_runtime_inode(lease.warm.box) for lease in leases.values()]
        finally:
            await sandboxes.close()

    with contextlib.ExitStack() as stack:
        seats = seats_for(plans, RULES, "s", stack)
        fresh = [_runtime_inode(seat.box) for seat in seats if isinstance(seat, SandboxedSeat)]
    warm = aio.run(warm_inodes(None))
    rotations = [aio.run(warm_inodes(r)) for r in (0, 1)]
    assert len(fresh) == 3 and fresh == warm, (fresh, warm)
    assert len(set(warm + rotations[0] + rotations[1])) == 9, (warm, rotations)
    assert runtime.copy_for(2) == 2 and runtime.copy_for(0, rotation=1, players=3) == 15


@pytest.mark.parametrize("at_once", [False, True], ids=["one_after_the_other", "at_once"])
def test_a_bot_keeps_one_process_wherever_its_tables_seat_it(at_once: bool, tmp_path: Path) -> None:
    """Three bots at one table, then at the next the other way round: each plays on the
    process (and the copy) it had, and the table's seats still share no copy. Seated at
    once (as a worker's first jobs are), the second table chooses the copies of the
    processes the first is still starting and shares them: three processes, not one per
    bot and seat number."""
    bots = [attack_bot(tmp_path / f"b{i}", "runtime_copy") for i in range(3)]
    plans = [SeatPlan(i + 1, f"copy{i}", BotKind.PATH, str(bot)) for i, bot in enumerate(bots)]
    tables = (plans, plans[::-1])

    async def two_tables() -> tuple[list[dict[str, Sandbox]], list[set[str]], int]:
        sandboxes = WarmSandboxes(limits=LIMITS)

        async def seat(table: list[SeatPlan]) -> dict[int, SeatLease]:
            _, leases = await warm_seats(table, RULES, "s", SessionPool(), sandboxes, Path)
            if not at_once:  # the next table is seated once this one is over
                for lease in leases.values():
                    await sandboxes.release(lease.warm, failed=False)
            return leases

        try:
            if at_once:
                seated = list(await asyncio.gather(*map(seat, tables)))
            else:
                seated = [await seat(table) for table in tables]
            boxes = [
                {table[i].name: lease.warm.box for i, lease in leases.items()}
                for table, leases in zip(tables, seated, strict=True)
            ]
            inodes = [
                {_runtime_inode(lease.warm.box) for lease in leases.values()} for leases in seated
            ]
            return boxes, inodes, sandboxes.started
        finally:
            await sandboxes.close()

    (first, second), inodes, started = aio.run(two_tables())
    assert started == 3 and first == second
    assert [len(table) for table in inodes] == [3, 3], inodes


def _runtime_inode(box: Sandbox) -> str:
    return wait_until(lambda: _reported(box, "runtime"), "the bot says its runtime's inode")
