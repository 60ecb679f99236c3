"""The ``arena`` command as a user runs it: its output, its exit status and its errors
(commands that hold a process forked warm, the others through the same entry point in the
test's process: tests/support/cli.py), and its start in a new interpreter where the
start is the subject."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from arena.platform import children
from tests.support.cli import ROOT, arena

pytestmark = pytest.mark.processes


def test_rules_play_prints_a_summary_per_seat() -> None:
    result = arena(
        "rules",
        "play",
        "--rules",
        "russian",
        "--option",
        "pass=true",
        "--players",
        "3",
        "--games",
        "30",
        "--seed",
        "4",
    )
    assert result.returncode == 0, result.stderr
    assert "30 games, 30 deals of russian(pass=True) with 3 players, seed 4" in result.stdout
    assert re.search(r"mean turns per deal: \d+\.\d", result.stdout)
    rows = [line for line in result.stdout.splitlines() if re.match(r"│ [0-2] ", line)]
    assert len(rows) == 3
    firsts = [int(row.split("│")[3]) for row in rows]
    assert sum(firsts) == 30, "each game has exactly one winner"


def test_rules_play_is_deterministic_for_a_seed() -> None:
    args = ("rules", "play", "--games", "20", "--seed", "3")
    assert arena(*args).stdout == arena(*args).stdout


def test_rules_play_refuses_bad_options_clearly() -> None:
    result = arena("rules", "play", "--option", "deck=40")
    assert result.returncode == 2
    assert "option deck: expected one of 36, 52, auto, got '40'" in result.stderr
    result = arena("rules", "play", "--option", "nonsense")
    assert result.returncode == 2 and "expected key=value" in result.stderr


def test_rules_show_prints_every_option_in_effect() -> None:
    result = arena("rules", "show", "--option", "deals=3", "--players", "5", "--json")
    assert result.returncode == 0, result.stderr
    shown = json.loads(result.stdout)
    assert shown["options"] == {"deals": 3} and shown["effective"]["deals"] == 3
    assert shown["effective"]["deck"] == "36" and len(shown["effective"]) == 23
    assert shown["table"] == {
        "players": 5,
        "cards": 36,
        "decks": 1,
        "declarable_ranks": ["6", "7", "8", "9", "T", "J", "Q", "K", "A"],
    }
    text = arena("rules", "show", "--rules", "russian", "--option", "jokers=2")
    assert text.returncode == 0 and "russian(jokers=2)" in text.stdout
    assert re.search(r"jokers\s+.\s+2\s+.\s+set", text.stdout), text.stdout
    assert arena("rules", "show", "--option", "deck=40").returncode == 2


def test_bench_engine_json_has_the_documented_keys() -> None:
    result = arena("bench", "engine", "--json", "--seconds", "0.1", "--repeats", "1")
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert figures["decisions_per_s"] > 0 and figures["deals_per_s"] > 0
    assert figures["decisions_per_s"] > figures["deals_per_s"], "a deal takes many decisions"


def test_bench_engine_times_python_chess_perft_beside_it_when_asked() -> None:
    from arena.bench import perft

    result = arena("bench", "engine", "--json", "--seconds", "0.1", "--repeats", "1", "--chess")
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert figures["chess_perft_nodes_per_s"] > 0 and figures["chess_moves_made_per_s"] > 0
    ratio = figures["decisions_per_s"] / figures["chess_perft_nodes_per_s"]
    assert abs(figures["over_chess_perft"] - ratio) < 0.01 * ratio + 0.01
    made = figures["engine_moves_made_per_s"] / figures["chess_moves_made_per_s"]
    assert abs(figures["made_over_chess_moves_made"] - made) < 0.01 * made + 0.01
    assert figures["first_lead_plays"] > 1000, "a lead may place any cards of the hand"
    # the walks are the standard trees (python-chess's own perft figures)
    import chess

    assert perft._leaves(chess.Board(), 3) == 8_902


def test_bench_instructions_counts_the_decisions_between_its_two_runs() -> None:
    from arena.bench.instructions import play

    result = arena("bench", "instructions", "--json", "--warm", "2", "--deals", "3")
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert figures["decisions"] == play(5) - play(2)
    assert figures["instructions_per_decision"] > 1000, "a decision is thousands of them"


def test_bench_instructions_without_valgrind_says_what_is_missing(tmp_path: Path) -> None:
    result = children.run(
        [sys.executable, "-m", "arena", "bench", "instructions"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PATH": str(tmp_path)},
    )
    assert result.returncode == 2 and "valgrind is not installed" in result.stderr


def test_bench_grpc_json_has_the_documented_keys() -> None:
    result = arena(
        "bench", "grpc", "--json", "--matches", "2", "--repeats", "1", "--round-trips", "100"
    )
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    for key in ("inprocess_us_per_decision", "grpc_us_per_decision", "bare_rtt_us"):
        assert figures[key] > 0, key
    assert figures["bot_round_trip_us"] > 0, "the bot side alone, without the referee"
    assert figures["grpc_us_per_decision"] > figures["inprocess_us_per_decision"]
    added = figures["grpc_us_per_decision"] - figures["inprocess_us_per_decision"]
    assert figures["added_over_bare_rtt"] == round(round(added, 1) / figures["bare_rtt_us"], 2)


def test_bench_dashboard_json_has_the_documented_keys() -> None:
    result = arena("bench", "dashboard", "--json", "--matches", "2000", "--bots", "10")
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    for key in ("leaderboard_ms", "matches_ms", "match_ms"):
        assert 0 < figures[key] < 5000, key
    assert figures["matches"] == 2000 and figures["bots"] == 10


def test_bench_ranking_reports_each_systems_settle_times_within_the_horizon() -> None:
    result = arena(
        "bench", "ranking", "--json", "--trials", "3", "--horizon", "16",
        "--ratings", "trueskill,openskill,elo-mmr",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert figures["trials"] == 3 and figures["horizon"] == 16
    assert list(figures["systems"]) == ["trueskill", "openskill", "elo-mmr"]
    for name, system in figures["systems"].items():
        for mode in ("random", "duplicate_group", "duplicate_match"):
            settled = system["per_trial"][mode]
            assert len(settled) == 3 and all(1 <= n <= 16 for n in settled), (name, mode)
            assert system["mean"][mode] == round(sum(settled) / 3, 1)
        assert system["matches_duplicate"] == sorted(system["per_trial"]["duplicate_group"])[1]
        assert all(n % 4 == 0 for n in system["per_trial"]["duplicate_group"]), "whole groups"
        assert system["us_per_update"] > 0
        assert all(0 <= share <= 1 for share in system["right_late"].values()), name
    assert figures["fastest"] in figures["systems"]
    text = arena("bench", "ranking", "--trials", "1", "--horizon", "8", "--ratings", "openskill")
    assert text.returncode == 0, text.stderr
    assert "duplicate (rated per deal group)" in text.stdout and "target <= 0.5" in text.stdout
    assert "openskill:" in text.stdout and "trueskill" not in text.stdout
    assert "order right in the second half" in text.stdout
    refused = arena("bench", "ranking", "--ratings", "glicko")
    assert refused.returncode == 2 and "unknown rating system glicko" in refused.stderr


#: what a command that neither stores nor serves must not load (its start time)
HEAVY = ("arena.store", "alembic", "fastapi", "sqlalchemy", "rq", "uvicorn")

_LOADED_AT_EXIT = (
    "import atexit, json, sys\n"
    "atexit.register(lambda: print(json.dumps(sorted(sys.modules)), file=sys.stderr))\n"
    "sys.argv = ['arena', *json.loads(sys.argv[1])]\n"
    "from arena.command import main\n"
    "main()\n"
)


@pytest.mark.parametrize(
    "args", [["--help"], ["play", "--help"], ["rules", "--help"], ["rules", "show"]]
)
def test_commands_that_need_no_platform_load_none_of_it(args: list[str]) -> None:
    """``arena --help``, ``arena play --help`` and ``arena rules`` start in the time their
    own imports take: neither the store, Alembic, SQLAlchemy, RQ nor FastAPI."""
    ran = children.run(
        [sys.executable, "-c", _LOADED_AT_EXIT, json.dumps(args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.returncode == 0, ran.stderr
    loaded = json.loads(ran.stderr.strip().splitlines()[-1])
    heavy = [m for m in loaded if m.split(".")[0] in HEAVY or m.startswith(HEAVY)]
    assert heavy == [], heavy
    assert "arena.cli.play" in loaded if args[0] == "play" else "arena.cli.play" not in loaded


def test_the_command_list_says_what_each_command_says_of_itself() -> None:
    """``arena --help`` lists the commands without loading them, from a table: each line
    there is the start of the command's own help."""
    from arena.cli import COMMANDS, load

    for name, entry in COMMANDS.items():
        command = load(name)
        assert command.name == name
        assert " ".join((command.help or "").split()).startswith(" ".join(entry.help.split()))
    listed = arena("--help").stdout
    assert all(name in listed for name in COMMANDS)


def test_a_failing_command_says_its_error_as_written_brackets_and_all() -> None:
    """Every failure goes through one path (arena.cli.main): one line, never read as
    rich markup, whatever a name or a bot's output holds."""
    result = arena("play", "[bold]x[/bold]", "sample:honest")
    assert result.returncode == 2
    assert "error: '[bold]x[/bold]' is not host:port" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_usage_error_names_the_option_it_is_about() -> None:
    result = arena("bench", "pipeline", "--bots", "nonsense")
    assert result.returncode == 2
    assert "--bots" in result.stderr and "Traceback" not in result.stderr
