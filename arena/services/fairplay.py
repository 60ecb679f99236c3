"""The fair-play report as a use case: the tournament's pending batches folded, the
statistics run (arena.fairplay.report) and the flags put in the words and figures the
API, the CLI and the page show. The store keeps the totals (arena.store.fairplay)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy.orm import Session

from arena.store import teams
from arena.store.db import Database
from arena.store.fairplay import fold_tournament, matches_together, names, totals
from arena.store.models import Tournament

if TYPE_CHECKING:
    from arena.fairplay.report import Finding


@dataclass(frozen=True)
class PairOutcome:
    """A flagged pair's places together: evidence beside the flag, never a flag itself."""

    #: others finishing ahead of either, expected less observed, per match together
    places_gained: float
    #: its 95 % interval
    places_gained_low: float
    places_gained_high: float
    others_ahead: float
    others_ahead_expected: float
    statistic: float
    p_raw: float
    matches: int


@dataclass(frozen=True)
class Flag:
    #: registered names: [author, responder] for an ordered test, the pair for outcome
    pair: list[str]
    #: soft_play, soft_play_pair, feeding, lie_targeting or outcome (docs/fair-play.md)
    test: str
    statistic: float
    effect: float
    #: after Holm's adjustment over every test of the report
    p_value: float
    p_raw: float
    pair_rate: float
    others_rate: float
    opportunities: int
    #: recorded matches where the pair sat together, newest first
    matches: list[int]
    outcome: PairOutcome | None
    #: the pair's teams (None: the operator's bot), in the pair's order
    teams: list[str | None]
    #: the people in both teams: one person behind both bots
    shared_people: list[str]


@dataclass(frozen=True)
class PairGain:
    """A pair of bots and what sitting together did for them (a flag or not)."""

    pair: list[str]
    teams: list[str | None]
    shared_people: list[str]
    outcome: PairOutcome


@dataclass(frozen=True)
class FairPlayReport:
    tournament: str
    same_owner_tables: bool
    alpha: float
    error_control: str
    #: how far (log odds ratio) past both references a pair's treatment must be to flag it
    margin: float
    tests: int
    min_chances: int
    min_together: int
    flags: list[Flag]
    #: on request (``all_pairs``): every pair that sat together often enough, with the
    #: places it gained together and their interval, the most first (evidence, no flag)
    pairs: list[PairGain] | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def report(db: Database, name: str, all_pairs: bool = False) -> FairPlayReport:
    """The tournament's collusion report: every flag with the pair's registered names,
    the test, its strength and the matches that show it; every recorded match counts.

    The statistics (SciPy, statsmodels) load on the first report, never in a worker."""
    tournament_id = fold_tournament(db, name)
    with db.read() as session:
        tournament = session.get(Tournament, tournament_id)
        assert tournament is not None
        return _report(session, tournament, all_pairs)


def _report(session: Session, tournament: Tournament, all_pairs: bool) -> FairPlayReport:
    from arena.fairplay.report import ALPHA, MARGIN, MIN_CHANCES, MIN_TOGETHER
    from arena.fairplay.report import report as fair_play_report

    found = fair_play_report(totals(session, tournament.id))
    gains = sorted(found.outcomes.values(), key=lambda f: -f.effect) if all_pairs else []
    versions = {version for f in [*found.findings, *gains] for version in f.pair}
    named = names(session, versions)
    people = teams.people_of(session, list(versions))
    return FairPlayReport(
        tournament=tournament.name,
        same_owner_tables=tournament.same_owner_tables,
        alpha=ALPHA,
        error_control="Holm (family-wise error rate) over every test of every pair",
        margin=round(MARGIN, 4),
        tests=len(found.findings),
        min_chances=MIN_CHANCES,
        min_together=MIN_TOGETHER,
        flags=[
            Flag(
                pair=[named[version] for version in finding.pair],
                test=str(finding.test),
                statistic=round(finding.statistic, 3),
                effect=round(finding.effect, 3),
                p_value=finding.p_value,
                p_raw=finding.p_raw,
                pair_rate=round(finding.pair_rate, 4),
                others_rate=round(finding.others_rate, 4),
                opportunities=finding.opportunities,
                matches=matches_together(session, tournament.id, finding.pair),
                outcome=_outcome(found.outcome(finding.pair)),
                **_households(people, finding.pair),
            )
            for finding in found.flags
        ],
        pairs=[
            PairGain(
                pair=[named[version] for version in gain.pair],
                outcome=_gain(gain),
                **_households(people, gain.pair),
            )
            for gain in gains
        ]
        if all_pairs
        else None,
    )


def _households(people: dict[int, tuple[str, set[str]]], pair: tuple[int, ...]) -> dict[str, Any]:
    """The pair's teams and the people behind both (the report works by team and by
    person: two teams that share a member are one household)."""
    found = [people.get(version) for version in pair]
    behind = [set(f[1]) if f else set() for f in found]
    return {
        "teams": [f[0] if f else None for f in found],
        "shared_people": sorted(set.intersection(*behind)) if behind else [],
    }


def _outcome(finding: Finding | None) -> PairOutcome | None:
    """The pair's places together, as evidence beside a flag (never a flag by itself)."""
    return None if finding is None else _gain(finding)


def _gain(finding: Finding) -> PairOutcome:
    """What sitting together did for the pair: places gained per match, and their 95 %
    interval."""
    low, high = finding.interval()
    return PairOutcome(
        places_gained=round(finding.effect, 3),
        places_gained_low=round(low, 3),
        places_gained_high=round(high, 3),
        others_ahead=round(finding.pair_rate, 3),
        others_ahead_expected=round(finding.others_rate, 3),
        statistic=round(finding.statistic, 3),
        p_raw=finding.p_raw,
        matches=finding.opportunities,
    )
