"""Play style from match logs: bluffs known from the hands, calls and whether they were right."""

from __future__ import annotations

from arena.engine import Ruleset
from arena.referee import LocalSeat, play_match
from arena.referee.log import MatchLog
from arena.referee.style import style_counts
from sample_bots import SAMPLES

RULES = Ruleset.parse("classic")


def log_of(names: list[str], seed: int = 1) -> dict:
    """A match's log as stored (its JSON)."""
    seats = [
        LocalSeat(SAMPLES[n](ruleset=RULES, players=len(names), seed=i), n)
        for i, n in enumerate(names)
    ]
    return play_match(Ruleset.parse("classic", {"deals": 5}), seats, seed=seed).to_dict()


def test_counts_match_the_log() -> None:
    log = log_of(["honest", "bluffer", "counter"])
    counts = style_counts(MatchLog.from_dict(log))
    steps = [s for d in log["deals"] for s in d["steps"] if s["kind"] == "act"]
    for seat, mine in enumerate(counts):
        played = [
            s
            for s in steps
            if s["seat"] == seat
            and s["action"]["do"] == "play"
            and any(e["kind"] == "played" for e in s["events"])
        ]
        assert mine["plays"] == len(played)
        challenges = [
            s
            for s in steps
            if s["seat"] == seat
            and s["action"]["do"] == "challenge"
            and not any(e["kind"] == "illegal" for e in s["events"])
        ]
        assert mine["challenges"] == len(challenges)
        right = sum(
            not next(e for e in s["events"] if e["kind"] == "revealed")["truthful"]
            for s in challenges
        )
        assert mine["challenges_right"] == right


def test_the_bluffer_bluffs_more_than_the_honest_bot_and_never_believes() -> None:
    totals = {"honest": [0, 0], "bluffer": [0, 0]}
    believes = 0
    for seed in range(5):
        log = log_of(["honest", "bluffer"], seed)
        for name, counts in zip(
            ["honest", "bluffer"], style_counts(MatchLog.from_dict(log)), strict=True
        ):
            totals[name][0] += counts["bluffs"]
            totals[name][1] += counts["plays"]
            if name == "bluffer":
                believes += counts["believes"]
    honest_rate = totals["honest"][0] / totals["honest"][1]
    bluffer_rate = totals["bluffer"][0] / totals["bluffer"][1]
    assert bluffer_rate > 0.5 > honest_rate and believes == 0


def test_the_style_the_referee_counts_is_the_style_the_steps_show() -> None:
    """The referee counts style as the match goes (each seat's ``style``); counting the
    logged steps again (as for a log written before seats carried it) gives the same."""
    for seed in range(4):
        log = log_of(["honest", "bluffer", "counter"], seed)
        written = [seat["style"] for seat in log["seats"]]
        without = {
            **log,
            "seats": [{k: v for k, v in s.items() if k != "style"} for s in log["seats"]],
        }
        assert style_counts(MatchLog.from_dict(without)) == written
        assert style_counts(MatchLog.from_dict(log)) == written
        assert sum(counts["plays"] for counts in written) > 0
