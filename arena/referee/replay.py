"""Re-referee a match log from its seed and recorded steps: ``arena replay LOG``.

The deals are dealt again from the match seed, every recorded step (action,
late answer, forfeit) is applied to the engine again, and every event, deal
ranking and the match result are compared with the log.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from arena.engine import Game, Ruleset, action_from_dict
from arena.engine.events import event_to_dict
from arena.engine.match import Match
from arena.referee.referee import LOG_FORMAT
from arena.referee.views import is_view


@dataclass
class ReplayReport:
    deals: int = 0
    steps: int = 0
    events: int = 0
    mismatches: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches


def replay(log: dict[str, Any]) -> ReplayReport:
    if log.get("format") != LOG_FORMAT:
        raise ValueError(f"not an Arena match log (format {log.get('format')!r})")
    if is_view(log):
        raise ValueError(f"a {log['view']} view of a match keeps its cards secret: no replay")
    game = Game(Ruleset.from_dict(log["ruleset"]), log["players"])
    match = Match(game, log["seed"], log["dealer"])
    report = ReplayReport()
    for forfeit in log["forfeits"]:
        if forfeit["deal"] is None:
            match.forfeit(forfeit["seat"])
    for recorded in log["deals"]:
        where = f"deal {recorded['index']}"
        if match.over:
            report.mismatches.append(f"{where}: the match was already over")
            break
        deal = match.next_deal()
        report.deals += 1
        layout = {
            "hands": [list(h) for h in deal.dealt],
            "stock": deal.stock,
            "hidden": deal.hidden,
        }
        for key, value in layout.items():
            if recorded[key] != value:
                report.mismatches.append(f"{where}: {key} dealt differently")
        _compare_events(report, where, recorded["opening_events"], deal.events)
        for number, step in enumerate(recorded["steps"]):
            before = len(deal.events)
            seat = step["seat"]
            if step["kind"] == "act":
                deal.apply(seat, action_from_dict(step["action"]))
            elif step["kind"] == "timeout":
                deal.time_out(seat)
            else:
                match.forfeit(seat)
            report.steps += 1
            _compare_events(report, f"{where} step {number}", step["events"], deal.events[before:])
        if not deal.over:
            report.mismatches.append(f"{where}: the deal is not over after the recorded steps")
            break
        match.record(deal)
        if [list(group) for group in deal.ranking] != recorded["ranking"]:
            report.mismatches.append(f"{where}: ranking {deal.ranking} != {recorded['ranking']}")
    result = {
        "ranking": [list(g) for g in match.ranking()],
        "losses": list(match.losses),
        "place_sums": list(match.place_sums),
    }
    for key, value in result.items():
        if log["result"][key] != value:
            report.mismatches.append(f"result: {key} {value} != recorded {log['result'][key]}")
    return report


def _compare_events(report: ReplayReport, where: str, recorded: list, actual: list) -> None:
    replayed = [event_to_dict(event) for event in actual]
    report.events += len(replayed)
    if replayed != recorded:
        report.mismatches.append(
            f"{where}: events differ: recorded {recorded}, replayed {replayed}"
        )
