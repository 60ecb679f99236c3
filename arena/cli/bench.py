"""``arena bench``: benchmarks that print figures (``--json`` for machines)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, Any

import typer
from rich.console import Console

from arena.cli import console, options

app = typer.Typer(help="Benchmarks that print figures.", no_args_is_help=True)
out = Console(highlight=False)

Seconds = Annotated[float, typer.Option(min=0.05, help="Length of each repeat.")]
Repeats = Annotated[int, typer.Option(min=1, help="Repeats; figures are medians.")]
Players = Annotated[int, typer.Option(min=2, help="Seats at the table.")]
EmptyDatabase = Annotated[
    str | None,
    typer.Option(
        "--database-url",
        help="An empty database to use (e.g. a PostgreSQL one made with createdb); "
        "default: SQLite in a temporary folder.",
    ),
]


def _measured(
    what: str, run: Callable[[Callable[[str], None]], dict[str, Any]], json_: bool
) -> dict[str, Any] | None:
    """Run a benchmark under a status line (``run(progress)``); with ``--json`` print its
    figures and return None, else return them for the caller to print."""
    with console.stderr().status(f"benchmarking {what}...") as status:
        figures = run(lambda step: status.update(f"{what}: {step}"))
    if json_:
        print(json.dumps(figures))
        return None
    return figures


_ENGINE_KINDS = {"compiled": "compiled with mypyc", "python": "plain Python: make native"}


@app.command()
def engine(
    json_: options.JsonFlag = False,
    seconds: Seconds = 2.0,
    repeats: Repeats = 5,
    players: Players = 4,
    chess: Annotated[
        bool,
        typer.Option(
            "--chess", help="Time python-chess's perft too, in the same run (a yardstick)."
        ),
    ] = False,
) -> None:
    """Engine decisions and deals per second (4-player classic, random-legal policies)."""
    from arena.bench import engine as bench_engine

    figures = _measure(
        "the engine",
        repeats,
        lambda progress: bench_engine.run(
            seconds, repeats, players, progress=progress, chess=chess
        ),
    )
    if json_:
        print(json.dumps(figures))
        return
    out.print(
        f"engine ({_ENGINE_KINDS[figures['engine']]}), {players}-player classic, "
        f"random-legal policies, one core, median of {repeats} x {seconds:g} s"
    )
    out.print(f"  decisions per second: {figures['decisions_per_s']:,}")
    out.print(f"  deals per second:     {figures['deals_per_s']:,}")
    out.print(f"  decisions per deal:   {figures['decisions_per_deal']}")
    if chess:
        out.print(
            f"  python-chess perft:   {figures['chess_perft_nodes_per_s']:,} nodes/s "
            f"(engine x{figures['over_chess_perft']}), "
            f"{figures['chess_moves_made_per_s']:,} moves made/s "
            f"(engine x{figures['over_chess_moves_made']})"
        )
        out.print(
            f"  engine moves made:    {figures['engine_moves_made_per_s']:,}/s, recorded "
            f"decisions made again (x{figures['made_over_chess_moves_made']} python-chess's "
            f"moves made, x{figures['made_over_chess_perft']} its perft nodes)"
        )
        out.print(
            f"  plays open at deal 0's first lead: {figures['first_lead_plays']:,} "
            "(a perft's bulk-counted leaves there)"
        )


@app.command()
def instructions(
    json_: options.JsonFlag = False,
    deals: Annotated[int, typer.Option(min=1, help="Deals counted.")] = 1000,
    warm: Annotated[int, typer.Option(min=0, help="Deals played before the count.")] = 300,
    players: Players = 4,
) -> None:
    """Instructions per engine decision, counted by valgrind (the figure of `bench engine`'s
    loop that does not move with the machine's speed)."""
    from arena.bench import instructions as bench_instructions

    figures = _measured(  # without valgrind: ValgrindMissing, said by arena.cli.main
        "instructions",
        lambda progress: bench_instructions.run(
            warm, deals, players, progress=lambda runs: progress(f"{runs} of 2 runs")
        ),
        json_,
    )
    if figures is None:
        return
    out.print(
        f"engine ({_ENGINE_KINDS[figures['engine']]}), {players}-player classic, "
        f"random-legal policies, {deals} deals after {warm}, under valgrind"
    )
    out.print(f"  instructions per decision: {figures['instructions_per_decision']:,}")
    out.print(f"  decisions counted:         {figures['decisions']:,}")


@app.command("grpc")
def grpc_(
    json_: options.JsonFlag = False,
    matches: Annotated[int, typer.Option(min=1, help="Matches per repeat and mode.")] = 20,
    repeats: Repeats = 5,
    round_trips: Annotated[int, typer.Option(min=10, help="Bare round trips per repeat.")] = 2000,
) -> None:
    """The player protocol's cost per decision against in-process play and a bare round trip."""
    from arena.bench import grpc as bench_grpc

    figures = _measure(
        "gRPC",
        repeats,
        lambda progress: bench_grpc.run(matches, repeats, round_trips, progress=progress),
    )
    if json_:
        print(json.dumps(figures))
        return
    out.print(
        f"4-player classic matches of random bots, {figures['event_loop']}, "
        f"median of {repeats} repeats"
    )
    out.print(
        f"  in process:                   {figures['inprocess_us_per_decision']:8.1f} us/decision"
    )
    out.print(
        f"  gRPC, bots in one process:    {figures['grpc_us_per_decision']:8.1f} us/decision"
        f"   bare round trip {figures['bare_rtt_us']:.1f} us (one echo server)"
    )
    out.print(
        f"  gRPC, one process per bot:    {figures['grpc_us_per_decision_4_processes']:8.1f}"
        f" us/decision   bare round trip {figures['bare_rtt_us_4_processes']:.1f} us"
        " (four echo servers in turn)"
    )
    out.print(
        f"  the protocol adds {figures['added_over_bare_rtt']:.2f} x the bare round trip "
        f"({figures['added_over_bare_rtt_4_processes']:.2f} x with one process per bot);"
        " target <= 1.5"
    )


def _measure(what: str, repeats: int, run: Callable[[Callable[[int], None]], dict]) -> dict:
    """Run a benchmark with a status line on stderr that counts the repeats done."""
    with Console(stderr=True).status(f"benchmarking {what}...") as status:
        return run(lambda done: status.update(f"benchmarking {what}: {done}/{repeats}"))


@app.command()
def pipeline(
    json_: options.JsonFlag = False,
    workers: Annotated[int, typer.Option("--workers", min=1, help="Up to this many workers.")] = 2,
    matches: Annotated[int, typer.Option("--matches", min=1, help="Matches per run.")] = 200,
    bots: Annotated[
        str,
        typer.Option(
            "--bots",
            help="Kinds of bots, comma separated: sample, endpoint, thirdparty, node, uploaded,"
            " uploaded-cpp, uploaded-rust, uploaded-go, uploaded-java, uploaded-js.",
        ),
    ] = "sample",
    repeats: Annotated[int, typer.Option("--repeats", min=1, help="Runs per worker count.")] = 5,
    think_ms: Annotated[
        float, typer.Option("--think-ms", min=0, help="Bots wait this long before each answer.")
    ] = 0.0,
    calibration_seconds: Annotated[
        float,
        typer.Option(
            "--calibration-seconds",
            min=0.05,
            help="Each run of the CPU-bound loop that measures the machine's own scaling.",
        ),
    ] = 1.0,
    warm_up: Annotated[
        int,
        typer.Option(
            "--warm-up",
            min=0,
            help="Matches each worker plays untimed before a timed run (0: time the seats'"
            " start too).",
        ),
    ] = 50,
) -> None:
    """Matches through Redis, workers and the database: rate per kind of bot, scaling."""
    from arena.bench import pipeline as bench_pipeline

    try:
        kinds = bench_pipeline.parse_kinds(bots)
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--bots") from None
    with console.stderr().status("benchmarking the pipeline...") as status:
        figures = bench_pipeline.run(
            workers,
            matches,
            ",".join(kinds),
            repeats,
            progress=lambda what: status.update(f"pipeline: {what}"),
            think_ms=think_ms,
            calibration_seconds=calibration_seconds,
            warm_up=warm_up,
        )
    if json_:
        print(json.dumps(figures))
        return
    thinking = f", bots think {think_ms:g} ms" if think_ms else ""
    out.print(
        f"{matches} matches of 4 bots per run{thinking}, after {warm_up} untimed a worker; "
        f"SQLite, private Redis; medians of {repeats} runs"
    )
    for kind, kind_figures in figures["kinds"].items():
        out.print(
            f"  {kind} (x{figures['ratios'][kind]:.2f} of {kinds[0]}; per decision "
            f"x{figures['decision_ratios'][kind]:.2f}, "
            f"{kind_figures['decisions_per_s']:,} decisions/s; steady "
            f"x{figures['steady_decision_ratios'][kind]:.2f}, "
            f"{kind_figures['steady_decisions_per_s']:,} decisions/s):"
        )
        for count, rate in kind_figures["matches_per_s_by_workers"].items():
            out.print(
                f"    {count} worker(s): {rate:7.1f} matches/s   speed-up "
                f"{kind_figures['scaling'][count]:.2f} x (this machine's CPU ceiling: "
                f"{kind_figures['cpu_scaling'][count]:.2f} x)"
            )
        out.print(f"    a match takes {kind_figures['referee_ms_per_match']:.1f} ms in the referee")
        out.print(
            f"    {kind_figures['in_flight']:.1f} matches in flight on average; the last 10 % "
            f"of matches took {kind_figures['tail_share']:.0%} of the wall time"
        )
        split = kind_figures["split_ms_per_match"]
        out.print(
            f"    per match with {workers} worker(s), ms (matches overlap): "
            + ", ".join(f"{phase} {ms:.2f}" for phase, ms in split.items())
        )
    for kind, ratio in figures["decision_ratios"].items():
        if kind in bench_pipeline.COST_TARGETS and kind != kinds[0]:
            target = bench_pipeline.COST_TARGETS[kind]
            verdict = "met" if ratio >= target else "NOT MET"
            out.print(
                f"  target: {kind} per decision at least x{target:.2f} of {kinds[0]}: "
                f"x{ratio:.2f}, {verdict}"
            )
    kinds_figures = figures["kinds"]
    if "uploaded" in kinds_figures:
        for kind in bench_pipeline.UPLOADED_KITS:
            if kind in kinds_figures:
                out.print(
                    f"  target: {kind} costs at most 1.2x the uploaded Python bot per "
                    "decision: "
                    + "; ".join(
                        _kit_cost(
                            kinds_figures[kind][key],
                            kinds_figures["uploaded"][key],
                            bench_pipeline.KIT_TARGET,
                        )
                        + what
                        for key, what in (
                            ("decisions_per_s", " over the run"),
                            ("steady_decisions_per_s", " in the run's steady middle"),
                        )
                    )
                )


def _kit_cost(decisions_per_s: float, python_per_s: float, target: float) -> str:
    """A kit's cost per decision against the uploaded Python bot's, and its verdict
    (``target``: the least share of the Python bot's decisions a second)."""
    if not decisions_per_s or not python_per_s:
        return "not measured"
    share = decisions_per_s / python_per_s
    verdict = "met" if share >= target else "NOT MET"
    return f"x{1 / share:.2f}, {verdict}"


@app.command()
def dashboard(
    json_: options.JsonFlag = False,
    matches: Annotated[
        int, typer.Option("--matches", min=100, help="Matches in the database.")
    ] = 100_000,
    bots: Annotated[int, typer.Option("--bots", min=4, help="Bots in the database.")] = 100,
) -> None:
    """Leaderboard, match list and match page times with a big database."""
    from arena.bench import dashboard as bench_dashboard

    figures = _measured(
        "the dashboard", lambda p: bench_dashboard.run(bots, matches, progress=p), json_
    )
    if figures is None:
        return
    out.print(f"{bots} bots, {matches:,} matches (SQLite), median of {figures['repeats']} requests")
    for key, label in (
        ("leaderboard_ms", "leaderboard page"),
        ("matches_ms", "match list page"),
        ("match_ms", "match page (replay)"),
        ("matches_by_bot_ms", "matches of one bot"),
        ("leaderboard_api_ms", "leaderboard API"),
        ("chart_ms", "leaders' rating chart"),
        ("bot_page_ms", "bot page (its chart)"),
    ):
        out.print(f"  {label:22} {figures[key]:7.2f} ms")
    out.print("  target: each of the first three under 50 ms")


@app.command()
def recovery(
    json_: options.JsonFlag = False,
    workers: Annotated[int, typer.Option("--workers", min=1, help="Worker processes.")] = 2,
    matches: Annotated[int, typer.Option("--matches", min=300, help="Matches to play.")] = 3000,
) -> None:
    """Matches per second before and after Redis is lost (stopped, back empty)."""
    from arena.bench import recovery as bench_recovery

    figures = _measured(
        "a Redis loss", lambda p: bench_recovery.run(workers, matches, progress=p), json_
    )
    if figures is None:
        return
    out.print(
        f"{matches:,} matches of in-process bots, {workers} workers, SQLite; Redis lost "
        f"after a third: {figures['before_per_s']} matches/s before, "
        f"{figures['after_per_s']} after (first match recorded "
        f"{figures['first_match_after_loss_s']} s after the loss)"
    )


@app.command("rl")
def rl_(
    json_: options.JsonFlag = False,
    seconds: Seconds = 2.0,
    repeats: Repeats = 5,
    players: Players = 4,
) -> None:
    """Engine decisions and the AEC environment's steps per second (raw and wrapped)."""
    try:
        from arena.bench import rl as bench_rl
        from arena.rl import aec  # noqa: F401 - the extra is there
    except ImportError as error:
        raise typer.BadParameter(f"needs the rl extra: pip install 'arena[rl]' ({error})") from None

    figures = _measured(
        "the learning environments",
        lambda p: bench_rl.run(seconds, repeats, players, progress=p),
        json_,
    )
    if figures is None:
        return
    out.print(
        f"{players}-player classic, random legal actions, one core, "
        f"median of {repeats} x {seconds:g} s; engine {_ENGINE_KINDS[figures['engine']]}"
    )
    out.print(f"  engine decisions per second:       {figures['engine_decisions_per_s']:>8,}")
    out.print(f"  AEC steps per second, raw:         {figures['aec_raw_steps_per_s']:>8,}")
    out.print(
        f"  AEC steps per second, aec_env():   {figures['aec_env_steps_per_s']:>8,}"
        "   target >= 30,000 (the checks of PettingZoo's wrappers built in)"
    )
    out.print(
        f"  AEC steps per second, in PettingZoo's wrappers: "
        f"{figures['aec_pettingzoo_wrapped_steps_per_s']:>8,}"
    )


@app.command("ladder")
def ladder_(
    json_: options.JsonFlag = False,
    placements: Annotated[
        int, typer.Option("--placements", min=10, help="Placements timed per history.")
    ] = 200,
) -> None:
    """The cost of placing a ladder table after 1,000 and after 50,000 matches."""
    from arena.bench import ladder as bench_ladder

    figures = _measured(
        "ladder placements", lambda p: bench_ladder.run(placements=placements, progress=p), json_
    )
    if figures is None:
        return
    out.print(
        f"record a match and place the next table ({figures['bots']} bots, tables of "
        f"{figures['table']}, SQLite), median of {placements}:"
    )
    for key, value in figures.items():
        if key.startswith("ms_per_placement_at_"):
            history = int(key.removeprefix("ms_per_placement_at_"))
            out.print(f"  after {history:>7,} matches: {value:7.3f} ms")


@app.command()
def ranking(
    json_: options.JsonFlag = False,
    trials: Annotated[int, typer.Option("--trials", min=1, help="Independent trials.")] = 41,
    horizon: Annotated[int, typer.Option("--horizon", min=8, help="Matches per trial.")] = 400,
    ratings: Annotated[
        str, typer.Option("--ratings", help="Rating systems to compare, comma-separated.")
    ] = "trueskill,openskill,elo-mmr",
) -> None:
    """Matches until each rating system finds a planted order: random seating vs duplicate."""
    from arena.bench import ranking as bench_ranking
    from arena.tournament import rating_systems

    names = [name.strip() for name in ratings.split(",") if name.strip()]
    try:
        rating_systems.named(names)
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--ratings") from None
    figures = _measured(
        "rankings", lambda p: bench_ranking.run(trials, horizon, progress=p, systems=names), json_
    )
    if figures is None:
        return
    out.print(f"planted field of 4 ({', '.join(figures['field'])}); {trials} trials")
    rows = (
        ("random seating", "random", "matches_random"),
        ("duplicate (rated per deal group)", "duplicate_group", "matches_duplicate"),
        ("duplicate rated per rotation", "duplicate_match", "matches_duplicate_rated_per_match"),
    )
    for name, system in figures["systems"].items():
        heading = f"{name}: matches until the order is found and kept"
        out.print(f"{heading:52} median   mean  quartiles")
        for label, mode, key in rows:
            low, _, high = system["quartiles"][mode]
            out.print(
                f"  {label:50} {system[key]:6} {system['mean'][mode]:6.0f}  {low:.0f}-{high:.0f}"
            )
        late = system["right_late"]
        out.print(
            f"  order right in the second half: {late['random']:.0%} of the checks (random"
            f" seating), {late['duplicate_group']:.0%} (duplicate, per deal group)"
        )
        out.print(
            f"  duplicate / random: {system['ratio']:.2f} (medians), "
            f"{system['ratio_of_means']:.2f} (means); target <= 0.5; "
            f"{system['us_per_update']:.1f} us an update"
        )
    out.print(f"fastest to find the order with duplicate deals: {figures['fastest']}")


@app.command()
def fairplay(
    json_: options.JsonFlag = False,
    honest_trials: Annotated[
        int, typer.Option("--honest-trials", min=1, help="Honest fields per size and length.")
    ] = 20,
    team_trials: Annotated[
        int, typer.Option("--team-trials", min=1, help="Fields with a team per kind and length.")
    ] = 6,
    flag_trials: Annotated[
        int, typer.Option("--flag-trials", min=1, help="Runs to a flag per kind of team.")
    ] = 8,
) -> None:
    """The collusion report: false flags in honest fields, honest bots named beside a
    team, and the matches to flag each kind of team (seeded trials, two processes)."""
    from arena.bench import fairplay as bench_fairplay

    figures = _measured(
        "the collusion report",
        lambda p: bench_fairplay.run(
            honest_trials,
            team_trials,
            flag_trials,
            progress=lambda done, total: p(f"{done}/{total} trials"),
        ),
        json_,
    )
    if figures is None:
        return
    out.print(
        f"honest fields: reports with any flag (the report promises <= {figures['alpha']:.0%})"
    )
    for row in figures["honest"]:
        low, high = row["rate_ci"]
        out.print(
            f"  {row['size']:>2} bots, {row['per_bot']:>4} matches a bot: "
            f"{row['reports_with_a_flag']}/{row['trials']} = {row['rate']:.1%} "
            f"(95 % interval {low:.1%}-{high:.1%})"
        )
    out.print("fields of 8 with a team: reports naming an honest bot")
    for row in figures["team"]:
        out.print(
            f"  {row['kind']:<21} {row['per_bot']:>4} matches a bot: "
            f"{row['reports_naming_an_honest_bot']}/{row['trials']}"
        )
    out.print(f"matches together to a flag (target <= {figures['target']})")
    for row in figures["flag"]:
        out.print(
            f"  {row['kind']:<21} caught {row['caught']}/{row['trials']}, median "
            f"{row['median_together']}, worst {row['worst_together']}"
        )


@app.command()
def abtest(
    json_: options.JsonFlag = False,
    pairs: Annotated[int, typer.Option(min=10, help="Pairs played per setting (the pool).")] = 2000,
    tests: Annotated[
        int, typer.Option(min=1, help="Simulated tests per setting and design.")
    ] = 400,
) -> None:
    """A/B tests by simulation: false acceptance, acceptance at a gap, paired vs unpaired."""
    from arena.bench import abtest as bench_abtest

    figures = _measured("A/B tests", lambda p: bench_abtest.run(pairs, tests, progress=p), json_)
    if figures is None:
        return
    out.print(
        f"tables of {figures['table_size']} with {', '.join(figures['field'])}; "
        "SPRT alpha = beta = 0.05; a pool of pairs per setting, tests drawn from it"
    )
    for row in figures["settings"]:
        pool = row["pool"]
        out.print(
            f"{row['name']}: elo bounds [{row['elo0']:g}, {row['elo1']:g}], pool of "
            f"{pool['pairs']} pairs: elo {pool['elo']:+.1f}, correlation of the two versions' "
            f"scores on a deal {pool['correlation']:.2f}"
        )
        for design in ("paired", "unpaired"):
            r = row[design]
            low, high = r["rate_ci"]
            out.print(
                f"  {design:>8}: accepted {r['accepted']}/{r['tests']} = {r['rate']:.1%} "
                f"(95 % interval {low:.1%}-{high:.1%}), matches to decide: mean "
                f"{r['mean_matches']:.0f}, median {r['median_matches']:.0f}, capped {r['capped']}"
            )
        out.print(f"  paired / unpaired expected matches: {row['matches_ratio']:.2f}")


@app.command()
def startup(
    json_: options.JsonFlag = False,
    repeats: Annotated[int, typer.Option("--repeats", min=1, help="Runs of each command.")] = 10,
) -> None:
    """Start times: arena --help, arena play (to its first match), arena worker (to
    registered)."""
    from arena.bench import startup as bench_startup

    figures = _measured("start times", lambda p: bench_startup.run(repeats, progress=p), json_)
    if figures is None:
        return
    out.print(f"start times, new processes, median of {repeats}:")
    rows = (
        ("arena --help", "help_s"),
        ("arena play (1 game)", "play_s"),
        ("arena worker (registered)", "worker_s"),
    )
    for label, key in rows:
        met = "met" if figures["met"][key] else "NOT met"
        out.print(
            f"  {label:28} {figures[key]:6.3f} s   target <= {figures['targets'][key]} s: {met}"
        )


@app.command()
def pacing(
    json_: options.JsonFlag = False,
    window: Annotated[
        float, typer.Option("--window", min=5, help="Seconds of each CPU measurement.")
    ] = 60.0,
    windows: Annotated[int, typer.Option("--windows", min=1, help="Windows; medians.")] = 3,
) -> None:
    """A paced competition's CPU once its field of six settled (and unpaced), and the
    ranked matches a new version plays in its first minute."""
    from arena.bench import pacing as bench_pacing

    figures = _measured(
        "a paced competition",
        lambda p: bench_pacing.run(window, windows, progress=p),
        json_,
    )
    if figures is None:
        return
    out.print(
        f"a field of six (4 samples, 2 uploads in sandboxes), tables of 4, 2 in play, 2 "
        f"workers, SQLite; CPU by {figures['cpu_method']}, median of {windows} x {window:g} s"
    )
    out.print(
        f"  settled after {figures['settled_after_s']} s ({figures['matches_to_settle']} matches)"
    )
    out.print(
        f"  settled, paced:  {figures['settled_cpu_cores']:.3f} cores, "
        f"{figures['settled_matches_per_min']:.1f} matches a minute   target <= 0.25 cores"
    )
    out.print(
        f"  settled, unpaced: {figures['unpaced_cpu_cores']:.3f} cores, "
        f"{figures['unpaced_matches_per_min']:.1f} matches a minute"
    )
    out.print(
        f"  a new version's ranked matches in its first minute: "
        f"{figures['new_version_matches_first_minute']}   target >= 50 (its "
        f"{figures['provisional_games']} provisional ones took "
        f"{figures['new_version_s_to_provisional_games']} s)"
    )


@app.command()
def lanes(
    json_: options.JsonFlag = False,
    window: Annotated[float, typer.Option("--window", min=5, help="Seconds of each count.")] = 60.0,
    windows: Annotated[int, typer.Option("--windows", min=1, help="Windows; medians.")] = 3,
    kinds: Annotated[
        str | None,
        typer.Option(
            "--kinds",
            help="Kinds of private work, comma-separated (tournaments, abtests, scrimmages; "
            "default: all).",
        ),
    ] = None,
    pace: Annotated[
        float | None,
        typer.Option(
            "--pace",
            min=0.1,
            help="Tables a minute once settled, as arena up's competition (default: unpaced).",
        ),
    ] = None,
    database_url: Annotated[
        str | None,
        typer.Option(
            "--database-url",
            help="An empty database to use, for one kind (e.g. a PostgreSQL one made with "
            "createdb); default: SQLite in a temporary folder.",
        ),
    ] = None,
) -> None:
    """A competition's matches a minute alone, then beside an owner's private work of
    each kind (tournaments, A/B tests, scrimmages) of a bot that sleeps almost its whole
    deadline at each decision."""
    from arena.bench import lanes as bench_lanes

    asked = tuple(k.strip() for k in (kinds or "").split(",") if k.strip()) or bench_lanes.KINDS
    unknown = set(asked) - set(bench_lanes.KINDS)
    if unknown:
        raise typer.BadParameter(
            f"no kind {', '.join(sorted(unknown))}: give {', '.join(bench_lanes.KINDS)}",
            param_hint="--kinds",
        )
    if database_url is not None and len(asked) != 1:
        raise typer.BadParameter("an empty database serves one kind", param_hint="--kinds")
    figures = _measured(
        "ranked play beside private work",
        lambda p: bench_lanes.run(
            window, windows, progress=p, kinds=asked, pace=pace, database_url=database_url
        ),
        json_,
    )
    if figures is None:
        return
    paced = f"{pace:g} tables a minute once settled" if pace else "unpaced"
    out.print(
        f"a competition of 4 samples and an upload (tables of 4, 2 in play, {paced}), "
        f"{figures['workers']} workers, SQLite; medians of {windows} x {window:g} s"
    )
    for kind, found in figures["kinds"].items():
        out.print(
            f"  {kind}: alone {found['alone_matches_per_min']:.1f} matches a minute, beside "
            f"{found['beside_private_matches_per_min']:.1f} ({found['drop_percent']}% fewer;"
            f" target <= 10%); {found['private_matches_played']} private matches played"
        )
        alone, beside = found["queue_wait_ms_alone"], found["queue_wait_ms_beside"]
        out.print(
            f"    its matches' wait in the queue: median {alone['median']} ms alone, "
            f"{beside['median']} ms beside; 90th percentile {alone['p90']} / {beside['p90']} ms"
        )


@app.command()
def channels(
    json_: options.JsonFlag = False,
    bits: Annotated[int, typer.Option("--bits", min=8, help="Bits a trial sends.")] = 128,
    slot: Annotated[float, typer.Option("--slot", min=0.005, help="Seconds a bit.")] = 0.05,
    batches: Annotated[
        int,
        typer.Option("--batches", min=1, help="Batches of 1,024 numbers the sender takes for a 1."),
    ] = 1,
    trials: Annotated[int, typer.Option("--trials", min=1, help="Trials; medians.")] = 3,
    relay: Annotated[
        bool,
        typer.Option(
            "--relay",
            help="Through a third sandbox: the sender is gone before the receiver starts "
            "(two rotations of a duplicate deal and a bot alive across both).",
        ),
    ] = False,
) -> None:
    """What a live channel between two sandboxes alive at once carries: bits through the
    inode numbers of pipes (one host-wide counter), sent and read by real sandboxes."""
    from arena.bench import channels as bench_channels

    figures = _measured(
        "a live channel between two sandboxes",
        lambda p: bench_channels.run(bits, slot, batches, trials, progress=p, relay=relay),
        json_,
    )
    if figures is None:
        return
    out.print(
        f"{figures['channel']}: {bits} bits a trial, {figures['rate_bits_per_s']:g} bits/s "
        f"sent, medians of {trials} trials"
    )
    out.print(
        f"  bit errors {figures['error_rate']:.1%}, capacity "
        f"{figures['capacity_bits_per_s']:g} bits/s (a binary symmetric channel)"
    )
    for number, trial in enumerate(figures["trials"], 1):
        first_hop = (
            f" (first hop {trial['first_hop_error_rate']:.1%})"
            if "first_hop_error_rate" in trial
            else ""
        )
        out.print(
            f"  trial {number}: errors {trial['error_rate']:.1%}{first_hop}, batches others "
            f"took in a slot: {trial['median_move_on_0']:g} on a 0, "
            f"{trial['median_move_on_1']:g} on a 1"
        )


@app.command()
def hosts(
    json_: options.JsonFlag = False,
    games: Annotated[int, typer.Option("--games", min=8, help="Games a tournament.")] = 48,
) -> None:
    """The platform on several hosts (network namespaces: needs root): a tournament on two
    worker hosts, then one whose first worker host is cut off while it plays."""
    from arena.bench import hosts as bench_hosts

    figures = _measured("the platform on several hosts", lambda p: bench_hosts.run(games, p), json_)
    if figures is None:
        return
    out.print(
        f"the upload qualified in {figures['upload_qualified_s']} s; {games} games on "
        f"{', '.join(figures['hosts_that_played'])}: {figures['matches_per_min_two_hosts']} "
        "matches a minute"
    )
    again = figures["cut_host_recorded_again_after_s"]
    out.print(
        f"cut mid-match holding {figures['matches_held_by_the_cut_host']} matches: given back "
        f"after {figures['given_back_after_s']} s and mended, all recorded after "
        f"{figures['held_recorded_after_s']} s; the mended host recorded again after "
        f"{'- (nothing was left)' if again is None else again} s; recorded once: "
        f"{figures['recorded_once']}, "
        f"rated once: {figures['rated_once']}, failed: {figures['failed']}"
    )


@app.command(name="page-state")
def page_state(
    json_: options.JsonFlag = False,
    bits: Annotated[int, typer.Option("--bits", min=16, help="Bits a trial writes.")] = 256,
    trials: Annotated[int, typer.Option("--trials", min=1, help="Trials per copy.")] = 5,
) -> None:
    """What a sandbox reads from the pages a sandbox before it read: bits written by one
    sandbox, timed by a new one on the same copy of the runtime and on another."""
    from arena.bench import page_state as bench_page_state

    figures = _measured(
        "the state of shared pages",
        lambda p: bench_page_state.run(bits, trials, progress=p),
        json_,
    )
    if figures is None:
        return
    out.print(f"{bits} bits a trial in pages of {figures['file']}, {trials} trials a copy")
    for name, copy in figures["copies"].items():
        pvalues = ", ".join(f"{t['p_value']:.2g}" for t in copy["trials"])
        out.print(
            f"  reader on {name}: {copy['median_right']:.1%} right (median; chance 50 %), "
            f"{copy['trials_beyond_chance']} of {trials} trials beyond chance at 1 % "
            f"(p: {pvalues})"
        )


@app.command()
def site(
    json_: options.JsonFlag = False,
    readers: Annotated[int, typer.Option("--readers", min=1, help="Concurrent readers.")] = 200,
    window: Annotated[float, typer.Option("--window", min=5, help="Seconds of each part.")] = 60.0,
    think: Annotated[
        float, typer.Option("--think", min=0, help="Seconds a reader waits between pages.")
    ] = 1.0,
    database_url: EmptyDatabase = None,
    workers: Annotated[
        int, typer.Option("--workers", min=0, help="Workers recording meanwhile (0: none).")
    ] = 2,
    processes: Annotated[
        int, typer.Option("--processes", min=1, help="Client processes the readers share.")
    ] = 2,
) -> None:
    """The dashboard's latency under concurrent readers (loopback) while two workers
    record a competition at full speed, and what the readers cost the recording."""
    from arena.bench import site as bench_site

    figures = _measured(
        "the site under readers",
        lambda p: bench_site.run(readers, window, think, database_url, p, workers, processes),
        json_,
    )
    if figures is None:
        return
    out.print(
        f"{readers} readers ({think:g} s between pages) for {window:g} s beside {workers} "
        f"workers recording at full speed, {figures['database']}"
    )
    out.print(
        f"  {figures['requests']} requests ({figures['requests_per_s']}/s), "
        f"{figures['errors']} errors; latency p50 {figures['p50_ms']} ms, p95 "
        f"{figures['p95_ms']} ms, p99 {figures['p99_ms']} ms (after the first "
        f"{figures['steady_after_s']:g} s: {figures['steady_p99_ms']} ms)   target p99 <= "
        "250 ms, 0 errors"
    )
    out.print(
        f"  as the server timed them (at most): p50 {figures['server_p50_ms']} ms, p95 "
        f"{figures['server_p95_ms']} ms, p99 {figures['server_p99_ms']} ms"
    )
    out.print(
        f"  recorded a minute: {figures['recorded_per_min_alone']} alone, "
        f"{figures['recorded_per_min_beside_readers']} beside the readers "
        f"({figures['recording_drop_percent']}% fewer; target <= 20%)"
    )


@app.command()
def kits(
    json_: options.JsonFlag = False,
    matches: Annotated[
        int, typer.Option("--matches", min=1, help="Ranked matches to follow per kit.")
    ] = 50,
) -> None:
    """Each language's starter kit uploaded to a fresh arena up: qualified, ranked, forfeits."""
    from arena.bench import kits as bench_kits

    figures = _measured("the kits", lambda p: bench_kits.run(matches, progress=p), json_)
    if figures is None:
        return
    out.print(f"each kit uploaded through the API to a fresh `arena up`, {matches} ranked matches:")
    for language, f in figures["kits"].items():
        out.print(
            f"  {language:<10} {f['status']:<8} qualified {f['qualified_s']} s, first ranked "
            f"match {f['ranked_s']} s, {f['games']} matches by {f['done_s']} s: "
            f"{f['forfeits']} forfeits, {f['illegal']} illegal actions"
        )
    verdict = "met" if figures["met"] else "NOT MET"
    out.print(f"  target: each ranked within {figures['target_s']:.0f} s, no forfeit: {verdict}")
    out.print("a seat's start-up (medians): its sandbox listening, its first answer, the others")
    for language, f in figures["startup"].items():
        out.print(
            f"  {language:<10} {f['listening_s']:.2f} s, first answer "
            f"{f['first_answer_ms']:.1f} ms, then {f['answer_ms']:.2f} ms"
        )


@app.command()
def season(
    json_: options.JsonFlag = False,
    bots: Annotated[int, typer.Option("--bots", min=8, help="Bots in the competition.")] = 1000,
    matches: Annotated[
        int, typer.Option("--matches", min=1000, help="Matches in the season.")
    ] = 10_000_000,
    database_url: EmptyDatabase = None,
    days: Annotated[
        float, typer.Option("--days", min=1, help="Days the season's matches span.")
    ] = 100.0,
) -> None:
    """A season's database: every public page cold and warm, the recorder, a match's bytes."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from arena.bench import season as bench_season

    with Progress(
        TextColumn("writing the season"), BarColumn(), MofNCompleteColumn(),
        TextColumn("{task.fields[rate]} matches/s"), console=console.stderr(), transient=True,
    ) as bar:  # fmt: skip
        task = bar.add_task("fill", total=matches, rate="-")

        def filled(done: int) -> None:
            elapsed = bar.tasks[task].elapsed or 0.0
            bar.update(task, completed=done, rate=f"{done / elapsed:,.0f}" if elapsed else "-")

        figures = bench_season.run(
            bots, matches, database_url, days, progress=bar.console.print, filling=filled
        )
    if json_:
        print(json.dumps(figures))
        return
    _print_season(figures)


def _print_season(f: dict[str, Any]) -> None:
    out.print(
        f"{f['bots']:,} bots, {f['matches']:,} matches over {f['days']:g} days on "
        f"{f['database']} (logs hot for {f['hot_days']:g} days); written in "
        f"{f['fill_seconds']:,.0f} s ({f['fill_matches_per_s']:,}/s); rating histories "
        f"thinned in {f['thin_seconds']:,.1f} s ({f['history_updates_thinned']:,} old updates: "
        f"{f['history_bytes_a_match_unthinned']:,} bytes a match before)"
    )
    out.print(
        f"  {'page or read':34} {'cold p50':>9} {'cold p99':>9} {'warm p50':>9} {'warm p99':>9}"
    )
    for name, p in f["pages"].items():
        out.print(
            f"  {name:34}{p['cold_p50_ms']:10.1f}{p['cold_p99_ms']:10.1f}"
            f"{p['warm_p50_ms']:10.1f}{p['warm_p99_ms']:10.1f}"
        )
    out.print("  targets (ms): warm p99 <= 50, cold p99 <= 250")
    out.print(
        f"  recorder: {f['recorder_empty_per_s']}/s on an empty database, "
        f"{f['recorder_season_per_s']}/s beside the season (medians of "
        f"{len(f['recorder_pairs'])} adjacent pairs: {f['recorder_drop_percent']}% fewer; "
        "target <= 10%): " + ", ".join(f"{e}/{b}" for e, b in f["recorder_pairs"])
    )
    if f["fold_matches"]:
        out.print(
            f"  folding their fair play: {f['fold_matches']:,} matches in {f['fold_seconds']} s "
            f"({1000 * f['fold_cpu_seconds'] / f['fold_matches']:.2f} ms of CPU a match)"
        )
    out.print(
        f"  a match: {f['bytes_a_match']:,} bytes in the database as filled, "
        f"{f['bytes_a_match_tiered']:,} once its log is cold (target <= 1,024), "
        f"{f['cold_bytes_a_match']:,} in the cold store"
    )
    out.print("  bytes a match, by table: " + ", ".join(
        f"{name} {size / f['matches']:,.0f}" for name, size in f["table_bytes"].items()
    ))  # fmt: skip
    out.print("  a pair's fair-play row after N matches together: " + ", ".join(
        f"{n:,}: {size:,} bytes" for n, size in f["pair_row_bytes_by_matches_together"].items()
    ))  # fmt: skip
