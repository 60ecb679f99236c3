"""The platform's own cost: matches through Redis, RQ workers and the database.

For each worker count from 1 to N, a fresh tournament of M matches between four
``random`` bots is queued to that many ``arena worker`` processes (already running
and registered), and timed from the start to the write that marks it over (its
``finished_at``). The platform's overhead per match is the wall time minus the time
spent inside the referee, over the matches (measured with one worker, where nothing
competes). Worker counts are interleaved over repeats and every figure is a median
(the scaling: of each repeat's ratio). ``cpu_scaling`` is the machine's own ceiling
for the scaling: a CPU-bound loop in N processes at once against one (virtual cores
may share a physical one, or a busy host). Kinds of bots (``--bots``, several
compared in one run): ``sample`` (``random``, in the workers: the figure isolates the
platform), ``endpoint`` (the README's Truthful bot served with the SDK, four
processes), ``thirdparty`` (a bot written without the SDK on the synchronous
``grpc.server``), ``node`` (the Node sample bot), ``uploaded`` (the Truthful bot
uploaded four times, run in warm sandboxes), ``uploaded-cpp``, ``-rust``, ``-go``,
``-java``, ``-js`` (the starter kit of that language, built and uploaded four times:
the same decisions as the Truthful bot, through the line protocol). Decisions a second
are given over the whole run and steady (between the moments 10 % and 90 % of its
matches had been played: without what is left of the seats' start, and without the
tail). Before each timed run, its workers play ``--warm-up`` matches each, untimed: a
worker's bots are then started as a worker's are for nearly all the matches it plays
(a process serves up to 500; a JVM's compiler is done with what it compiles in its
first few hundred decisions), and ``--warm-up 0`` times the seats' start as well (a
seat's start-up per language: ``arena bench kits``). ``--think-ms``
makes the endpoint, third-party and uploaded Python bots wait that long before each
answer. With several
matches in play per worker, the overhead figure (wall time minus time in the referee)
is not meaningful; the split of a match's time by phase (from the workers' timing
lines) is summed over the matches in play.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from statistics import median
from typing import Any

from rq import Worker
from sqlalchemy import bindparam, func, select

from arena.base.states import BotKind, TournamentStatus
from arena.bench import thirdparty_bot
from arena.bench.calibration import cpu_scaling
from arena.engine import Ruleset
from arena.platform import Platform
from arena.platform import queue as work_queue
from arena.platform.forkserver import ForkServer
from arena.platform.launcher import BotProcesses, BotSpec, SpecKind, command_for
from arena.platform.redis_server import RedisServer
from arena.platform.sandbox.build import built_copy
from arena.platform.services import Workers, environment
from arena.platform.settings import Settings
from arena.store import bots as bot_store
from arena.store import tournaments as tournament_store
from arena.store.models import MatchSeat, Tournament, TournamentMatch, now
from sample_bots import kit
from worker.pipeline import TIMING_PREFIX
from worker.rq_classes import UNPREPARED, sandbox_of

BOTS = 4
#: the kinds of bots a run can compare, and the names they are also known by
#: the starter kits in other languages, uploaded and built as any competitor's (issue 53)
UPLOADED_KITS = {
    "uploaded-cpp": "cpp",
    "uploaded-rust": "rust",
    "uploaded-go": "go",
    "uploaded-java": "java",
    "uploaded-js": "javascript",
    "uploaded-ts": "typescript",
}
BOT_KINDS = ("sample", "endpoint", "thirdparty", "node", "uploaded", *UPLOADED_KITS)
#: the least a kind's decisions per second may be, as a share of the first kind's (the
#: SDK endpoint's): a bot pays the same per decision whatever its gRPC stack (issue 13)
COST_TARGETS = {"thirdparty": 1 / 1.5, "node": 1 / 1.5, "uploaded": 0.5}
#: a kit's decisions per second, as a share of the uploaded Python bot's (its cost per
#: decision within 1.2 times)
KIT_TARGET = 1 / 1.2
#: matches each worker plays untimed before a timed run, its bots then started and warm
WARM_UP = 50
ALIASES = {"inprocess": "sample", "grpc": "endpoint"}
UPLOADED_BOT = Path(__file__).with_name("uploaded_bot.py")
#: what the workers' fork server imports before it forks them (``arena worker``'s own)
WORKER_IMPORTS = ("arena.cli", "worker.runner")
#: the third-party bot's thread pool: one stream a thread
THIRDPARTY_THREADS = thirdparty_bot.THREADS
NODE_BOT = Path(__file__).resolve().parents[2] / "sample_bots" / "node"


def node_bot_installed() -> Path:
    """The Node sample bot's folder, its packages installed from npm with its lock file
    (once); RuntimeError when Node or npm is missing or the install fails."""
    if not (NODE_BOT / "node_modules" / "@grpc" / "grpc-js").is_dir():
        try:
            subprocess.run(
                ["npm", "ci", "--no-audit", "--no-fund"],
                cwd=NODE_BOT,
                check=True,
                capture_output=True,
                timeout=600,
            )
        except (OSError, subprocess.SubprocessError) as error:
            raise RuntimeError(f"cannot install the Node sample bot's packages: {error}") from None
    return NODE_BOT


def parse_kinds(text: str) -> list[str]:
    """``sample,endpoint,uploaded`` -> the kinds, checked (ValueError names the bad one)."""
    kinds = [ALIASES.get(k.strip(), k.strip()) for k in text.split(",") if k.strip()]
    for kind in kinds:
        if kind not in BOT_KINDS:
            raise ValueError(f"unknown kind of bot {kind!r}: use {', '.join(BOT_KINDS)}")
    if not kinds:
        raise ValueError(f"name at least one kind of bot: {', '.join(BOT_KINDS)}")
    return kinds


def run(
    workers: int = 2,
    matches: int = 200,
    bots: str = "sample",
    repeats: int = 5,
    progress: Callable[[str], None] | None = None,
    think_ms: float = 0.0,
    calibration_seconds: float = 1.0,
    warm_up: int = WARM_UP,
) -> dict[str, Any]:
    """The figures of each kind of bot in ``bots`` (comma separated), in one run; the
    first kind's figures are also the top-level keys. Each run's workers first play
    ``warm_up`` matches each, untimed."""
    kinds = parse_kinds(bots)
    with (
        tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp,
        RedisServer(Path(tmp) / "redis") as redis,
        BotProcesses() as processes,
        contextlib.ExitStack() as stack,
    ):
        settings = Settings(Path(tmp), f"sqlite:///{tmp}/arena.db", redis.url)
        # the workers of every run forked warm, as `arena up` starts them
        forks = stack.enter_context(ForkServer(environment(settings), preload=WORKER_IMPORTS))
        arena = Platform(settings)
        code = _bot_code(Path(tmp), think_ms)
        names = {
            kind: _register_bots(arena, processes, kind, code, think_ms, Path(tmp))
            for kind in kinds
        }
        runs: dict[str, dict[int, list[dict[str, float]]]] = {
            kind: {n: [] for n in range(1, workers + 1)} for kind in kinds
        }
        for repeat in range(repeats):  # interleaved, so a slow spell of the machine hits all
            for kind in kinds:
                for count in runs[kind]:
                    if progress is not None:
                        progress(f"run {repeat + 1}/{repeats}, {kind}, {count} worker(s)")
                    name = f"bench-{kind}-{repeat}-{count}"
                    runs[kind][count].append(
                        _timed_tournament(
                            arena, forks, names[kind], count, matches, name, warm_up * count
                        )
                    )
    if progress is not None:
        progress("the machine's own scaling (a CPU-bound loop)")
    cpu = {str(n): round(cpu_scaling(n, calibration_seconds), 2) for n in runs[kinds[0]]}
    by_kind = {kind: _figures(runs[kind], workers, cpu) for kind in kinds}

    def ratios(key: str) -> dict[str, float]:
        """Each kind's ``key`` against the first kind's (0 where the first has none)."""
        yardstick = by_kind[kinds[0]][key]
        return {
            kind: round(f[key] / yardstick, 2) if yardstick else 0.0 for kind, f in by_kind.items()
        }

    return {
        **by_kind[kinds[0]],
        "kinds": by_kind,
        "ratios": ratios("matches_per_s"),
        # bots that play otherwise play longer or shorter matches: the cost per decision
        "decision_ratios": ratios("decisions_per_s"),
        "steady_decision_ratios": ratios("steady_decisions_per_s"),
        "workers": workers,
        "matches": matches,
        "repeats": repeats,
        "bots": ",".join(kinds),
        "think_ms": think_ms,
        "warm_up": warm_up,
        "database": "sqlite",
    }


def _figures(
    runs: dict[int, list[dict[str, float]]], workers: int, cpu: dict[str, float]
) -> dict[str, Any]:
    rate = {n: median(r["matches_per_s"] for r in results) for n, results in runs.items()}
    decisions = {n: median(r["decisions_per_s"] for r in results) for n, results in runs.items()}
    steady = median(r["steady_decisions_per_s"] for r in runs[workers])
    return {
        "matches_per_s": round(rate[workers], 1),
        "decisions_per_s": round(decisions[workers]),
        "steady_decisions_per_s": round(steady),
        "in_flight": round(median(r["in_flight"] for r in runs[workers]), 1),
        "tail_share": round(median(r["tail_share"] for r in runs[workers]), 3),
        "overhead_ms_per_match": round(median(r["overhead_ms_per_match"] for r in runs[1]), 2),
        "referee_ms_per_match": round(median(r["referee_ms_per_match"] for r in runs[1]), 2),
        "scaling": {str(n): round(_paired_speed_up(runs[n], runs[1]), 2) for n in runs},
        "matches_per_s_by_workers": {str(n): round(rate[n], 1) for n in runs},
        "cpu_scaling": cpu,
        "split_ms_per_match": {
            phase.removesuffix("_ms"): round(
                median(r.get(f"split_{phase}", 0.0) for r in runs[workers]), 2
            )
            for phase in PHASES
        },
    }


def _bot_code(folder: Path, think_ms: float) -> Path:
    """The Truthful bot, thinking ``think_ms`` before each answer."""
    if not think_ms:
        return UPLOADED_BOT
    code = folder / "truthful_thinking.py"
    source = UPLOADED_BOT.read_text()
    code.write_text(source.replace("THINK_SECONDS = 0.0", f"THINK_SECONDS = {think_ms / 1000!r}"))
    return code


def _paired_speed_up(runs: list[dict[str, float]], alone: list[dict[str, float]]) -> float:
    """The median of each repeat's speed-up over the one-worker run next to it (a slow
    spell of the machine then slows both sides of a ratio, not one of its medians)."""
    return median(
        n["matches_per_s"] / one["matches_per_s"] for n, one in zip(runs, alone, strict=True)
    )


def _register_bots(
    arena: Platform,
    processes: BotProcesses,
    kind: str,
    code: Path,
    think_ms: float,
    scratch: Path,
) -> list[str]:
    """The run's four bots of ``kind``, registered (kits built in ``scratch``)."""
    names = [f"{kind}-{i}" for i in range(BOTS)]

    def endpoint(name: str) -> str:
        if kind == "thirdparty":
            command = [sys.executable, "-m", "arena.bench.thirdparty_bot", "--port", "0"]
            return processes.start([*command, "--think-ms", str(think_ms)], name)
        if kind == "node":
            return processes.start(
                ["node", str(node_bot_installed() / "bot.js"), "--port", "0"], name
            )
        return processes.start(command_for(BotSpec(SpecKind.FILE, str(code))), name)

    built = _built_kit(UPLOADED_KITS[kind], scratch) if kind in UPLOADED_KITS else None

    def work(session) -> None:
        for name in names:
            if kind == "sample":
                bot_store.add_bot(session, name, BotKind.SAMPLE, "random")
            elif kind == "uploaded":
                bot_store.add_bot(session, name, BotKind.PATH, str(code))
            elif built is not None:
                bot_store.add_bot(session, name, BotKind.PATH, str(built))
            else:
                version = bot_store.add_bot(session, name, BotKind.ENDPOINT, endpoint(name))
                if kind == "thirdparty":  # as its owner would: its server has 32 threads
                    bot_store.limit_matches(version, THIRDPARTY_THREADS)

    arena.db.transaction(work)
    return names


def _built_kit(language: str, folder: Path) -> Path:
    """The starter kit of ``language``, built in its sandbox as an upload is."""
    work, made = built_copy(kit(language), folder)
    if not made.ok:
        raise RuntimeError(f"the {language} kit did not build: {made.log}")
    return work


def _timed_tournament(
    arena: Platform,
    forks: ForkServer,
    names: list[str],
    count: int,
    matches: int,
    name: str,
    warm_up: int = 0,
) -> dict[str, float]:
    """``count`` new workers play ``warm_up`` matches untimed (none if 0), then the
    ``matches`` of the timed tournament ``name``."""
    warm_up_name = f"{name}-warm-up"
    for tournament, size in ((warm_up_name, warm_up), (name, matches)):
        if size:
            _create_tournament(arena, tournament, names, size)
    settings = arena.settings
    with Workers(settings, count, settings.data_dir / "logs", forks=forks):
        wait_registered(arena, count)
        if warm_up:
            _play(arena, _tournament_id(arena, warm_up_name), warm_up_name)
        tournament_id = _tournament_id(arena, name)
        began = now()
        finished = _play(arena, tournament_id, name)
        wall = (finished - began).total_seconds()
    with arena.db.read() as session:
        referee_ms = (
            session.scalar(
                select(func.sum(TournamentMatch.referee_ms)).where(
                    TournamentMatch.tournament_id == tournament_id
                )
            )
            or 0.0
        )
        # when each match's play ended (its write may come a flush interval later), and
        # the decisions it took
        played = sorted(
            (started + timedelta(milliseconds=ms or 0.0), int(decisions or 0))
            for started, ms, decisions in session.execute(
                select(
                    TournamentMatch.started_at,
                    TournamentMatch.referee_ms,
                    func.sum(MatchSeat.decisions),
                )
                .join(MatchSeat, MatchSeat.match_id == TournamentMatch.id)
                .where(TournamentMatch.tournament_id == tournament_id)
                .group_by(TournamentMatch.id)
            )
            if started is not None
        )
    finishes = [finish for finish, _ in played]
    decisions = sum(count for _, count in played)
    return {
        # matches inside the referee at once, on average over the wall time
        "in_flight": referee_ms / 1000 / wall,
        "tail_share": tail_share(finishes, began, finished),
        "matches_per_s": matches / wall,
        "decisions_per_s": decisions / wall,
        "steady_decisions_per_s": steady_rate(played),
        "overhead_ms_per_match": (wall * 1000 * count - referee_ms) / matches,
        "referee_ms_per_match": referee_ms / matches,
        **{f"split_{phase}": ms for phase, ms in _split(settings, tournament_id).items()},
    }


def _create_tournament(arena: Platform, name: str, names: list[str], matches: int) -> None:
    arena.db.transaction(
        lambda session: tournament_store.create(
            session, name, Ruleset.parse("classic"), names, BOTS, matches, seed=name
        )
    )


def _play(arena: Platform, tournament_id: int, name: str) -> datetime:
    """Start the tournament and wait until it is done; when its last result was written."""
    arena.start_tournament(name)
    while (finished := _finished_at(arena, tournament_id)) is None:
        time.sleep(0.05)
    return finished


def tail_share(finishes: list[datetime], began: datetime, finished: datetime) -> float:
    """The share of the wall time spent on the last 10 % of matches: from the moment
    90 % of them had been played to the end."""
    if not finishes:
        return 0.0
    ninety = finishes[max(0, -(-len(finishes) * 9 // 10) - 1)]
    wall = (finished - began).total_seconds()
    return (finished - ninety).total_seconds() / wall if wall > 0 else 0.0


def steady_rate(played: list[tuple[datetime, int]]) -> float:
    """Decisions a second between the moments 10 % and 90 % of the matches had been
    played (``played``: each match's end and its decisions, in order of end): the run's
    rate without its start (sandboxes and their programs starting) and its tail. The
    matches ended in that span count whole; in a steady run the decisions they took
    before it make up for those the matches still in play took in it."""
    if len(played) < 10:
        return 0.0
    first = len(played) // 10
    last = -(-len(played) * 9 // 10) - 1
    span = (played[last][0] - played[first][0]).total_seconds()
    decisions = sum(count for _, count in played[first + 1 : last + 1])
    return decisions / span if span > 0 else 0.0


#: the phases of a match in the workers' timing lines (worker.pipeline), in order
PHASES = ("claim_ms", "setup_ms", "start_ms", "play_ms", "end_ms", "record_ms")


def _split(settings: Settings, tournament_id: int) -> dict[str, float]:
    """Where a match's time went, from the workers' timing lines: ms per match by phase
    (claiming, the seats' processes and streams, the referee's start, play and end,
    recording), summed over the matches a worker plays at once."""
    totals = dict.fromkeys(PHASES, 0.0)
    played = 0
    for path in (settings.data_dir / "logs").glob("worker-*.log"):
        for line in path.read_text(errors="replace").splitlines():
            _, found, data = line.partition(TIMING_PREFIX)
            if not found:
                continue
            timing = json.loads(data)
            if timing.pop("tournament") != tournament_id:
                continue
            played += timing.pop("matches", 0)
            for phase, ms in timing.items():
                totals[phase] = totals.get(phase, 0.0) + ms
    return {phase: ms / played for phase, ms in totals.items()} if played else {}


def _tournament_id(arena: Platform, name: str) -> int:
    with arena.db.read() as session:
        return tournament_store.get(session, name).id


_FINISHED_AT = select(Tournament.finished_at).where(
    Tournament.id == bindparam("tournament"), Tournament.status == TournamentStatus.DONE
)


def _finished_at(arena: Platform, tournament_id: int) -> datetime | None:
    """When the last result's write marked the tournament done (so the poll's own period
    does not count), or None. One row read on a plain connection: the poll must not take
    CPU from the workers, which have every core when there are as many of them."""
    with arena.db.read_core() as connection:
        finished = connection.execute(_FINISHED_AT, {"tournament": tournament_id}).scalar()
    if finished is None:
        return None
    return finished


def wait_registered(arena: Platform, count: int, timeout: float = 60.0) -> None:
    """Wait until ``count`` workers are registered and prepared to play (their sandbox
    probed: a worker registers first and prepares beside it), so that the figures
    measure play, not start-up (``arena bench startup`` measures that)."""
    connection = work_queue.connect(arena.settings.redis_url or "")
    deadline = time.monotonic() + timeout
    while sum(sandbox_of(w) != UNPREPARED for w in Worker.all(connection=connection)) < count:
        if time.monotonic() > deadline:
            raise RuntimeError(f"{count} workers did not start within {timeout:.0f} s")
        time.sleep(0.05)
