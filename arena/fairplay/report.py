"""The collusion report: tests of every pair of bots on their running totals, and the
flags that survive the error control over all of them. docs/fair-play.md has the maths.

Pure: totals in (:class:`Tally`, by bot version), flags out. Four tests per pair:

- ``soft_play`` (ordered: author, responder): the responder challenges the author's
  groups less than it challenges everyone else's, in the same situations
  (Cochran–Mantel–Haenszel over the strata of arena.fairplay.counting, one-sided);
- ``feeding`` (author, responder): the responder challenges the author's *true* groups
  (taking the pile for it) more than everyone else's true groups (CMH, one-sided);
- ``lie_targeting`` (author, responder): the author lies less when that responder is
  next than when another is (CMH, one-sided: honest to a partner, free with the rest);
Every test with enough chances is one hypothesis of the family; Holm's method keeps the
chance of any false flag in a report at most ``alpha`` (family-wise).

Beside them, ``outcome`` (a pair): when seated together, fewer of the other bots finish
ahead of either than each third bot's head-to-head record with each of them expects (a
z-test on the mean). It is evidence shown with a flagged pair, never a flag by itself:
places at a table depend on how the styles seated interact (two weak bluffers together
finish better than their records apart predict), so in honest fields it would flag
pairs of similar bots far more often than ``alpha``.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np
from scipy import stats
from statsmodels.stats.contingency_tables import StratifiedTable
from statsmodels.stats.multitest import multipletests

from arena.fairplay.counting import Chance, Tally

#: the family-wise error rate of a report
ALPHA = 0.05
#: a pair is tested once the tested side has this many chances (fewer say nothing)
MIN_CHANCES = 30
#: and once they sat together this often (outcome)
MIN_TOGETHER = 20


class FairPlayTest(StrEnum):
    SOFT_PLAY = "soft_play"
    FEEDING = "feeding"
    LIE_TARGETING = "lie_targeting"
    OUTCOME = "outcome"


@dataclass(frozen=True, slots=True)
class Finding:
    """One test of one pair: its evidence, before and after the error control."""

    test: FairPlayTest
    #: [author, responder] for the ordered tests, the pair (lower id first) for outcome
    pair: tuple[int, int]
    #: CMH: the pooled odds ratio (< 1 less often with this pair); outcome: places gained
    #: per match (others ahead of the pair: expected less observed)
    effect: float
    #: z of the one-sided test
    statistic: float
    p_raw: float
    #: the pair's rate (or joint place) and everyone else's, for the reader
    pair_rate: float
    others_rate: float
    opportunities: int
    p_value: float = 1.0
    flagged: bool = False


@dataclass
class Report:
    #: the behaviour tests (the family Holm's method controls)
    findings: list[Finding] = field(default_factory=list)
    #: each pair's outcome test, by the pair (lower version id first): evidence only
    outcomes: dict[tuple[int, int], Finding] = field(default_factory=dict)
    alpha: float = ALPHA

    @property
    def flags(self) -> list[Finding]:
        return [finding for finding in self.findings if finding.flagged]

    def outcome(self, pair: tuple[int, int]) -> Finding | None:
        return self.outcomes.get((min(pair), max(pair)))


def report(totals: Iterable[Tally], alpha: float = ALPHA) -> Report:
    """Test every pair with enough chances and control the family-wise error."""
    by_chance: dict[str, list[Tally]] = defaultdict(list)
    for total in totals:
        by_chance[str(total.chance)].append(total)
    findings = [
        *_stratified(by_chance[Chance.CALLS], FairPlayTest.SOFT_PLAY, "less", lambda s: True),
        *_stratified(by_chance[Chance.CALLS], FairPlayTest.FEEDING, "greater", _true_group),
        *_stratified(by_chance[Chance.PLAYS], FairPlayTest.LIE_TARGETING, "less", lambda s: True),
    ]
    outcomes = {f.pair: f for f in _outcomes(by_chance[Chance.PLACES], by_chance[Chance.TABLES])}
    if findings:
        reject, adjusted, _, _ = multipletests([f.p_raw for f in findings], alpha, "holm")
        findings = [
            _with(finding, float(p), bool(flag))
            for finding, p, flag in zip(findings, adjusted, reject, strict=True)
        ]
    findings.sort(key=lambda f: (f.p_value, f.p_raw, f.test, f.pair))
    return Report(findings, outcomes, alpha)


def _with(finding: Finding, p_value: float, flagged: bool) -> Finding:
    return dataclasses.replace(finding, p_value=p_value, flagged=flagged)


def _true_group(stratum: str) -> bool:
    return stratum.startswith("t1")


def _stratified(
    totals: list[Tally], test: FairPlayTest, direction: str, keep: object
) -> list[Finding]:
    """For each ordered pair: the actor's rate about ``other`` against its rate about
    everyone else, stratum by stratum (a 2x2 table each), pooled by CMH."""
    # actor -> stratum -> other -> (chances, taken)
    cells: dict[int, dict[str, dict[int, tuple[int, int]]]] = defaultdict(lambda: defaultdict(dict))
    for total in totals:
        if keep(total.stratum):  # type: ignore[operator]
            cells[total.actor][total.stratum][total.other] = (total.chances, total.taken)
    found = []
    for actor, strata in cells.items():
        others = {other for by_other in strata.values() for other in by_other}
        for other in sorted(others):
            finding = _cmh(actor, other, strata, test, direction)
            if finding is not None:
                found.append(finding)
    return found


def _cmh(
    actor: int,
    other: int,
    strata: Mapping[str, Mapping[int, tuple[int, int]]],
    test: FairPlayTest,
    direction: str,
) -> Finding | None:
    tables = []
    pair_n = pair_k = rest_n = rest_k = 0
    for by_other in strata.values():
        n1, k1 = by_other.get(other, (0, 0))
        n2 = sum(n for o, (n, _) in by_other.items() if o != other)
        k2 = sum(k for o, (_, k) in by_other.items() if o != other)
        pair_n, pair_k, rest_n, rest_k = pair_n + n1, pair_k + k1, rest_n + n2, rest_k + k2
        if n1 and n2 and 0 < k1 + k2 < n1 + n2:  # a stratum that carries evidence
            tables.append([[k1, n1 - k1], [k2, n2 - k2]])
    if pair_n < MIN_CHANCES or not tables:
        return None
    table = StratifiedTable(np.array(tables, dtype=float).transpose(1, 2, 0))
    chi2 = table.test_null_odds(correction=True)
    observed = sum(t[0][0] for t in tables)
    expected = sum((t[0][0] + t[0][1]) * (t[0][0] + t[1][0]) / _n(t) for t in tables)
    z = math.copysign(math.sqrt(max(chi2.statistic, 0.0)), observed - expected)
    p = float(stats.norm.sf(z) if direction == "greater" else stats.norm.cdf(z))
    pair = (other, actor) if test is not FairPlayTest.LIE_TARGETING else (actor, other)
    with np.errstate(divide="ignore", invalid="ignore"):  # no discordant cells: infinite
        odds_ratio = _safe(table.oddsratio_pooled)
    return Finding(
        test,
        pair,
        odds_ratio,
        z,
        p,
        pair_k / pair_n,
        rest_k / rest_n if rest_n else math.nan,
        pair_n,
    )


def _n(table: list[list[int]]) -> int:
    return sum(map(sum, table))


def _safe(value: float) -> float:
    return float(value) if math.isfinite(value) else math.inf


def _outcomes(places: list[Tally], tables: list[Tally]) -> list[Finding]:
    """Each pair's matches together: how many others finished ahead of either, against
    what each third bot's head-to-head record with each of them expects."""
    joint: dict[tuple[int, int], Counter[tuple[int, int]]] = defaultdict(Counter)
    for total in places:
        if total.actor < total.other:
            low, high = (int(p) for p in total.stratum.split("-"))
            joint[total.actor, total.other][low, high] += total.chances
    ahead: Counter[tuple[int, int]] = Counter()  # (o, x): matches o finished ahead of x
    met: Counter[tuple[int, int]] = Counter()
    for (a, b), histogram in joint.items():
        for (place_a, place_b), count in histogram.items():
            met[a, b] += count
            met[b, a] += count
            ahead[a, b] += count * (place_a < place_b)
            ahead[b, a] += count * (place_b < place_a)
    thirds: dict[tuple[int, int], Counter[int]] = defaultdict(Counter)
    for total in tables:
        thirds[total.actor, total.other][int(total.stratum)] += total.chances
    found = []
    for (a, b), histogram in sorted(joint.items()):
        # others ahead of a or b in a match: their places less 2 and less the one between them
        others_ahead: Counter[int] = Counter()
        for (place_a, place_b), count in histogram.items():
            others_ahead[place_a + place_b - 2 - (place_a != place_b)] += count
        n, mean, variance = _moments(others_ahead)
        if n < MIN_TOGETHER or variance == 0:
            continue
        expected = (
            sum(
                count * (ahead[o, a] / met[o, a] + ahead[o, b] / met[o, b])
                for o, count in thirds[a, b].items()
                if met[o, a] and met[o, b]
            )
            / n
        )
        z = (expected - mean) / math.sqrt(variance / n)
        found.append(
            Finding(
                FairPlayTest.OUTCOME, (a, b), expected - mean, z, float(stats.norm.sf(z)),
                mean, expected, n,
            )
        )  # fmt: skip
    return found


def _moments(histogram: Mapping[int, int]) -> tuple[int, float, float]:
    """Count, mean and sample variance of a histogram of values."""
    n = sum(histogram.values())
    if n == 0:
        return 0, 0.0, 0.0
    mean = sum(value * count for value, count in histogram.items()) / n
    squares = sum(count * (value - mean) ** 2 for value, count in histogram.items())
    return n, mean, squares / (n - 1) if n > 1 else 0.0
