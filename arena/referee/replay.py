"""Re-referee a match log from its seed and recorded steps: ``arena replay LOG``.

The deals are dealt again from the match seed, every recorded step (action,
late answer, forfeit) is applied to the engine again, and every event, deal
ranking and the match result are compared with the log.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from arena.engine import Action, Deal, Game
from arena.engine.deal import Group
from arena.engine.events import Event, event_to_dict
from arena.engine.match import Match
from arena.referee.log import DealRecord, MatchLog, Result, Step, StepKind


@dataclass
class ReplayReport:
    deals: int = 0
    steps: int = 0
    events: int = 0
    mismatches: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches


@dataclass(frozen=True)
class DealOpened:
    """A recorded deal dealt again (its opening events applied)."""

    deal: Deal
    recorded: DealRecord


@dataclass(frozen=True)
class StepApplied:
    """A recorded step applied to the deal."""

    deal: Deal
    recorded: DealRecord
    number: int
    step: Step
    #: the group a call turns over, and the seat's hand, before the step
    claim: Group | None
    held: list[str]
    #: the events the step made
    events: list[Event]


@dataclass(frozen=True)
class DealClosed:
    """The recorded steps of a deal are over; the walk records the deal in the match if
    it is over, else it stops."""

    deal: Deal
    recorded: DealRecord


@dataclass(frozen=True)
class MatchOverEarly:
    """The log holds a deal the match, played again, never reaches (the walk stops)."""

    recorded: DealRecord


Visit = DealOpened | StepApplied | DealClosed | MatchOverEarly


class Walk:
    """A full log played again on the engine, one visit per deal opened, step applied
    and deal closed: the one walk the replay check and the replay's frames share.
    ``match`` is the match played again (its result once the walk is over)."""

    def __init__(self, log: MatchLog) -> None:
        if log.is_view:
            raise ValueError(f"a {log.view} view of a match keeps its cards secret: no replay")
        assert log.seed is not None  # a full log has its seed
        self.log = log
        self.match = Match(Game(log.ruleset, log.players), log.seed, log.dealer)

    def __iter__(self) -> Iterator[Visit]:
        match = self.match
        for forfeit in self.log.forfeits:
            if forfeit.deal is None:
                match.forfeit(forfeit.seat)
        for recorded in self.log.deals:
            if match.over:
                yield MatchOverEarly(recorded)
                return
            deal = match.next_deal()
            yield DealOpened(deal, recorded)
            for number, step in enumerate(recorded.steps):
                yield self._apply(deal, recorded, number, step)
            yield DealClosed(deal, recorded)
            if not deal.over:
                return
            match.record(deal)

    def _apply(self, deal: Deal, recorded: DealRecord, number: int, step: Step) -> StepApplied:
        seat, before = step.seat, len(deal.events)
        claim = deal.pile[-1] if deal.live else None
        held = list(deal.hands[seat])
        if step.kind is StepKind.ACT:
            assert isinstance(step.action, Action)  # a full log's plays have their cards
            deal.apply(seat, step.action)
        elif step.kind is StepKind.TIMEOUT:
            deal.time_out(seat)
        else:
            self.match.forfeit(seat)
        return StepApplied(deal, recorded, number, step, claim, held, deal.events[before:])


def replay(log: MatchLog) -> ReplayReport:
    """Play ``log``'s steps again on the engine and report where its events differ."""
    walk = Walk(log)
    report = ReplayReport()
    for visit in walk:
        where = f"deal {visit.recorded.index}"
        if isinstance(visit, MatchOverEarly):
            report.mismatches.append(f"{where}: the match was already over")
        elif isinstance(visit, DealOpened):
            report.deals += 1
            _compare_layout(report, where, visit.recorded, visit.deal)
            _compare_events(report, where, visit.recorded.opening_events, visit.deal.events)
        elif isinstance(visit, StepApplied):
            report.steps += 1
            _compare_events(report, f"{where} step {visit.number}", visit.step.events, visit.events)
        elif not visit.deal.over:
            report.mismatches.append(f"{where}: the deal is not over after the recorded steps")
        elif tuple(tuple(g) for g in visit.deal.ranking or ()) != visit.recorded.ranking:
            report.mismatches.append(
                f"{where}: ranking {visit.deal.ranking} != {visit.recorded.ranking}"
            )
    _compare_result(report, log.result, walk.match)
    return report


def _compare_layout(report: ReplayReport, where: str, recorded: DealRecord, deal: Deal) -> None:
    layout = {
        "hands": (recorded.hands, tuple(tuple(h) for h in deal.dealt)),
        "stock": (recorded.stock, tuple(deal.stock)),
        "hidden": (recorded.hidden, deal.hidden),
    }
    for key, (logged, dealt) in layout.items():
        if logged != dealt:
            report.mismatches.append(f"{where}: {key} dealt differently")


def _compare_result(report: ReplayReport, logged: Result, match: Match) -> None:
    replayed = Result(
        tuple(tuple(g) for g in match.ranking()), tuple(match.losses), tuple(match.place_sums)
    )
    for key in ("ranking", "losses", "place_sums"):
        if getattr(logged, key) != getattr(replayed, key):
            report.mismatches.append(
                f"result: {key} {getattr(replayed, key)} != recorded {getattr(logged, key)}"
            )


def _compare_events(
    report: ReplayReport, where: str, recorded: tuple[Event, ...], actual: list[Event]
) -> None:
    # as JSON: two event types with equal fields are equal tuples, not equal events
    replayed = [event_to_dict(event) for event in actual]
    logged = [event_to_dict(event) for event in recorded]
    report.events += len(replayed)
    if replayed != logged:
        report.mismatches.append(f"{where}: events differ: recorded {logged}, replayed {replayed}")
