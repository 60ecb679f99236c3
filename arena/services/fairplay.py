"""The fair-play report as a use case: the tournament's pending batches folded, the
statistics run (arena.fairplay.report) and the flags put in the words and figures the
API, the CLI and the page show. The store keeps the totals (arena.store.fairplay)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlalchemy.orm import Session

from arena.store.db import Database
from arena.store.fairplay import fold_tournament, matches_together, names, totals
from arena.store.models import Tournament

if TYPE_CHECKING:
    from arena.fairplay.report import Finding


def report(db: Database, name: str) -> dict[str, Any]:
    """The tournament's collusion report: every flag with the pair's registered names,
    the test, its strength and the matches that show it; every recorded match counts.

    The statistics (SciPy, statsmodels) load on the first report, never in a worker."""
    tournament_id = fold_tournament(db, name)
    with db.read() as session:
        tournament = session.get(Tournament, tournament_id)
        assert tournament is not None
        return _report(session, tournament)


def _report(session: Session, tournament: Tournament) -> dict[str, Any]:
    from arena.fairplay.report import ALPHA, MARGIN, MIN_CHANCES, MIN_TOGETHER
    from arena.fairplay.report import report as fair_play_report

    found = fair_play_report(totals(session, tournament.id))
    named = names(session, {version for f in found.findings for version in f.pair})
    return {
        "tournament": tournament.name,
        "same_owner_tables": tournament.same_owner_tables,
        "alpha": ALPHA,
        "error_control": "Holm (family-wise error rate) over every test of every pair",
        "margin": round(MARGIN, 4),
        "tests": len(found.findings),
        "min_chances": MIN_CHANCES,
        "min_together": MIN_TOGETHER,
        "flags": [
            {
                "pair": [named[version] for version in finding.pair],
                "test": str(finding.test),
                "statistic": round(finding.statistic, 3),
                "effect": round(finding.effect, 3),
                "p_value": finding.p_value,
                "p_raw": finding.p_raw,
                "pair_rate": round(finding.pair_rate, 4),
                "others_rate": round(finding.others_rate, 4),
                "opportunities": finding.opportunities,
                "matches": matches_together(session, tournament.id, finding.pair),
                "outcome": _outcome(found.outcome(finding.pair)),
            }
            for finding in found.flags
        ],
    }


def _outcome(finding: Finding | None) -> dict[str, Any] | None:
    """The pair's places together, as evidence beside a flag (never a flag by itself)."""
    if finding is None:
        return None
    return {
        "places_gained": round(finding.effect, 3),
        "others_ahead": round(finding.pair_rate, 3),
        "others_ahead_expected": round(finding.others_rate, 3),
        "statistic": round(finding.statistic, 3),
        "p_raw": finding.p_raw,
        "matches": finding.opportunities,
    }
