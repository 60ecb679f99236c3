"""What a competition costs once its ratings settle, and how soon a new version plays.

A platform as ``arena up`` runs it (a private Redis, SQLite, two workers, uploads in
sandboxes) with a field of six in a competition (tables of 4, 2 in play, the default
pace): the four samples and two uploaded bots (the README's truthful bot and a variant
that challenges any claim of two cards or more). The platform runs in a control group of
its own (v1 ``cpuacct``, where the host has one: every process it starts is counted,
sandboxes and Redis too; else the CPU of its process tree from /proc).

1. It plays until every rating is settled (arena.tournament.pacing).
2. Settled: the share of one core it uses over ``window`` seconds, in ``windows``
   windows (the median reported). Then the same unpaced (every table kept in play, as
   before pacing): the figure pacing is measured against.
3. A new version of the truthful bot is submitted (qualified by a worker, live at once):
   the ranked matches it plays in its first minute after it qualified.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from arena.base.states import BotKind, MatchStatus
from arena.bench.local import local_platform
from arena.bench.pipeline import wait_registered
from arena.engine import Ruleset
from arena.platform import Platform
from arena.platform.sandbox.cgroup import own_hierarchies
from arena.platform.services import Workers
from arena.platform.submission import submit, wait
from arena.store import bots as bot_store
from arena.store import competitions, ladder
from arena.store.models import MatchSeat, TournamentMatch
from arena.tournament import pacing

SAMPLES = ["random", "honest", "counter", "bluffer"]
UPLOADED = Path(__file__).with_name("uploaded_bot.py")
#: the seconds after a new version qualified in which its ranked matches are counted
FIRST_MINUTE = 60.0


def run(
    window: float = 60.0,
    windows: int = 3,
    workers: int = 2,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    say = progress or (lambda _: None)
    with (
        CpuMeter(f"arena-bench-pacing-{os.getpid()}") as meter,  # first: it counts Redis too
        local_platform("arena-bench-pacing-") as (arena, tmp),
    ):
        ladder_id = _field(arena, tmp)
        with Workers(arena.settings, workers, tmp / "logs"):
            wait_registered(arena, workers)
            say("playing until every rating is settled")
            started = time.monotonic()
            _start(arena, ladder_id)
            settled_after = _until_settled(arena, ladder_id)
            settled_matches = _played(arena, ladder_id)
            say(f"settled after {settled_after:.0f} s; measuring {windows} x {window:g} s")
            settled = [_share(meter, window, arena, ladder_id) for _ in range(windows)]
            say("the same field unpaced")
            arena.db.transaction(lambda s: competitions.set_pace(s, "main", None))
            _start(arena, ladder_id)
            unpaced = [_share(meter, window, arena, ladder_id) for _ in range(windows)]
            arena.db.transaction(lambda s: competitions.set_pace(s, "main", 6.0))
            _until_settled(arena, ladder_id)
            say("a new version of truthful")
            first_minute, to_settle = _new_version(arena, ladder_id, tmp)
        total = time.monotonic() - started
    return {
        "cpu_method": meter.method,
        "window_s": window,
        "settled_after_s": round(settled_after, 1),
        "matches_to_settle": settled_matches,
        "settled_cpu_cores": round(statistics.median(s for s, _ in settled), 3),
        "settled_matches_per_min": round(statistics.median(m for _, m in settled), 1),
        "unpaced_cpu_cores": round(statistics.median(s for s, _ in unpaced), 3),
        "unpaced_matches_per_min": round(statistics.median(m for _, m in unpaced), 1),
        "new_version_matches_first_minute": first_minute,
        "new_version_s_to_provisional_games": to_settle,
        "provisional_games": pacing.PROVISIONAL_GAMES,
        "total_s": round(total, 1),
    }


def _field(arena: Platform, folder: Path) -> int:
    """The samples, two uploads qualified here, and the competition they play in."""
    arena.db.transaction(lambda s: [bot_store.register_sample(s, n) for n in SAMPLES])
    arena.db.transaction(
        lambda s: competitions.create(
            s, "main", Ruleset.parse("classic"), 4, tables=2, bot_names=SAMPLES, default=True
        )
    )
    for name, path in (("truthful", UPLOADED), ("doubter", _doubter(folder))):
        made = submit(arena, name, BotKind.PATH, str(path))
        if not made.accepted:
            raise RuntimeError(f"{name} did not qualify: {made.reason}")
    with arena.db.read() as session:
        return competitions.get(session, "main").tournament_id


def _doubter(folder: Path) -> Path:
    path = folder / "doubter" / "bot.py"
    path.parent.mkdir()
    source = UPLOADED.read_text().replace("obs.live.count > 2", "obs.live.count > 1")
    path.write_text(source.replace('name = "truthful"', 'name = "doubter"'))
    return path


def _start(arena: Platform, ladder_id: int) -> None:
    from arena.platform import queue as work_queue

    work_queue.enqueue_all(arena.queue, ladder.refill(arena.db, ladder_id))


def _pace(arena: Platform, ladder_id: int) -> dict[str, Any]:
    from arena.store.models import Tournament

    with arena.db.read() as session:
        return ladder.pace_of(session, session.get_one(Tournament, ladder_id))


def _until_settled(arena: Platform, ladder_id: int, timeout: float = 900.0) -> float:
    started = time.monotonic()
    while _pace(arena, ladder_id)["mode"] != "settled":
        if time.monotonic() - started > timeout:
            raise RuntimeError(f"the field did not settle within {timeout:.0f} s")
        time.sleep(1.0)
    return time.monotonic() - started


def _played(arena: Platform, ladder_id: int, version_id: int | None = None) -> int:
    query = select(func.count(func.distinct(TournamentMatch.id))).where(
        TournamentMatch.tournament_id == ladder_id, TournamentMatch.status == MatchStatus.DONE
    )
    if version_id is not None:
        query = query.join(MatchSeat, MatchSeat.match_id == TournamentMatch.id).where(
            MatchSeat.bot_version_id == version_id
        )
    with arena.db.read() as session:
        return session.scalar(query) or 0


def _share(meter: CpuMeter, window: float, arena: Platform, ladder_id: int) -> tuple[float, float]:
    """The cores used and the matches played a minute over ``window`` seconds."""
    cpu, matches, started = meter.seconds(), _played(arena, ladder_id), time.monotonic()
    time.sleep(window)
    elapsed = time.monotonic() - started
    used = (meter.seconds() - cpu) / elapsed
    return used, (_played(arena, ladder_id) - matches) * 60 / elapsed


def _new_version(arena: Platform, ladder_id: int, folder: Path) -> tuple[int, float | None]:
    """Submit truthful's next version (a worker qualifies it): the ranked matches it
    played in the minute after it qualified, and the seconds it took to play its
    provisional matches (None: not within the minute)."""
    copy = folder / "truthful-2" / "bot.py"
    copy.parent.mkdir()
    copy.write_text(UPLOADED.read_text())
    made = submit(arena, "truthful", BotKind.PATH, str(copy.parent), queued=True)
    settled = wait(arena.db, "truthful", made.version)
    if settled.status != "ready":
        raise RuntimeError(f"the new version did not qualify: {settled.reason}")
    time.sleep(FIRST_MINUTE)
    with arena.db.read() as session:
        version = bot_store.active_version(session, "truthful")
        assert version.live_since is not None
        qualified = version.live_since  # when it went live, in its worker
        finished = session.scalars(
            select(TournamentMatch.finished_at)
            .join(MatchSeat, MatchSeat.match_id == TournamentMatch.id)
            .where(
                TournamentMatch.tournament_id == ladder_id,
                TournamentMatch.status == MatchStatus.DONE,
                MatchSeat.bot_version_id == version.id,
            )
            .order_by(TournamentMatch.finished_at)
        ).all()
    moments = [moment for moment in finished if moment is not None]
    in_minute = [m for m in moments if 0 <= (m - qualified).total_seconds() <= FIRST_MINUTE]
    enough = len(moments) >= pacing.PROVISIONAL_GAMES
    last = moments[pacing.PROVISIONAL_GAMES - 1] if enough else None
    return len(in_minute), (round((last - qualified).total_seconds(), 1) if last else None)


class CpuMeter:
    """The CPU seconds of everything this process starts from now on: a cpuacct control
    group of its own that this process joins (children inherit it; the sandboxes'
    groups are made under it), else the CPU of its process tree read from /proc."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.group: Path | None = None
        self.home: Path | None = None
        self.method = "proc"

    def __enter__(self) -> CpuMeter:
        found = {h.controller: h.path for h in own_hierarchies()}
        if "cpuacct" in found:
            with contextlib.suppress(OSError):
                group = found["cpuacct"] / self.name
                group.mkdir()
                (group / "cgroup.procs").write_text(str(os.getpid()))
                self.group, self.home, self.method = group, found["cpuacct"], "cpuacct"
        return self

    def seconds(self) -> float:
        if self.group is not None:
            return int((self.group / "cpuacct.usage").read_text()) / 1e9
        return sum(_process_seconds(pid) for pid in _descendants(os.getpid()))

    def __exit__(self, *exc: object) -> None:
        if self.group is None or self.home is None:
            return
        with contextlib.suppress(OSError):
            (self.home / "cgroup.procs").write_text(str(os.getpid()))
        for _ in range(50):  # the platform's groups go as its processes end
            with contextlib.suppress(OSError):
                for child in sorted(self.group.rglob("*"), reverse=True):
                    if child.is_dir():
                        child.rmdir()
                self.group.rmdir()
                return
            time.sleep(0.1)


def _descendants(root: int) -> Iterator[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                children.setdefault(parent, []).append(int(entry.name))
    stack = list(children.get(root, []))
    while stack:
        pid = stack.pop()
        yield pid
        stack.extend(children.get(pid, []))


def _process_seconds(pid: int) -> float:
    """A process's CPU and its reaped children's (utime, stime, cutime, cstime)."""
    with contextlib.suppress(OSError, IndexError, ValueError):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    return 0.0
