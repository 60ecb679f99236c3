"""Re-referee a match log from its seed and recorded steps: ``arena replay LOG``.

The deals are dealt again from the match seed, every recorded step (action,
late answer, forfeit) is applied to the engine again, and every event, deal
ranking and the match result are compared with the log.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from arena.engine import Action, Game
from arena.engine.events import Event, event_to_dict
from arena.engine.match import Match
from arena.referee.log import MatchLog, Result, StepKind


@dataclass
class ReplayReport:
    deals: int = 0
    steps: int = 0
    events: int = 0
    mismatches: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches


def replay(log: MatchLog) -> ReplayReport:
    """Play ``log``'s steps again on the engine and report where its events differ."""
    if log.is_view:
        raise ValueError(f"a {log.view} view of a match keeps its cards secret: no replay")
    assert log.seed is not None  # a full log has its seed
    match = Match(Game(log.ruleset, log.players), log.seed, log.dealer)
    report = ReplayReport()
    for forfeit in log.forfeits:
        if forfeit.deal is None:
            match.forfeit(forfeit.seat)
    for recorded in log.deals:
        where = f"deal {recorded.index}"
        if match.over:
            report.mismatches.append(f"{where}: the match was already over")
            break
        deal = match.next_deal()
        report.deals += 1
        layout = {
            "hands": (recorded.hands, tuple(tuple(h) for h in deal.dealt)),
            "stock": (recorded.stock, tuple(deal.stock)),
            "hidden": (recorded.hidden, deal.hidden),
        }
        for key, (logged, dealt) in layout.items():
            if logged != dealt:
                report.mismatches.append(f"{where}: {key} dealt differently")
        _compare_events(report, where, recorded.opening_events, deal.events)
        for number, step in enumerate(recorded.steps):
            before = len(deal.events)
            if step.kind is StepKind.ACT:
                assert isinstance(step.action, Action)  # a full log's plays have their cards
                deal.apply(step.seat, step.action)
            elif step.kind is StepKind.TIMEOUT:
                deal.time_out(step.seat)
            else:
                match.forfeit(step.seat)
            report.steps += 1
            _compare_events(report, f"{where} step {number}", step.events, deal.events[before:])
        if not deal.over:
            report.mismatches.append(f"{where}: the deal is not over after the recorded steps")
            break
        match.record(deal)
        if tuple(tuple(group) for group in deal.ranking or ()) != recorded.ranking:
            report.mismatches.append(f"{where}: ranking {deal.ranking} != {recorded.ranking}")
    replayed = Result(
        tuple(tuple(g) for g in match.ranking()), tuple(match.losses), tuple(match.place_sums)
    )
    for key in ("ranking", "losses", "place_sums"):
        if getattr(log.result, key) != getattr(replayed, key):
            report.mismatches.append(
                f"result: {key} {getattr(replayed, key)} != recorded {getattr(log.result, key)}"
            )
    return report


def _compare_events(
    report: ReplayReport, where: str, recorded: tuple[Event, ...], actual: list[Event]
) -> None:
    # as JSON: two event types with equal fields are equal tuples, not equal events
    replayed = [event_to_dict(event) for event in actual]
    logged = [event_to_dict(event) for event in recorded]
    report.events += len(replayed)
    if replayed != logged:
        report.mismatches.append(f"{where}: events differ: recorded {logged}, replayed {replayed}")
