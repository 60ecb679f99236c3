"""The collusion report: tests of every pair of bots on their running totals, and the
flags that survive the error control over all of them. docs/fair-play.md has the maths.

Pure: totals in (:class:`Tally`, by bot version), flags out. Three tests per ordered
pair, each against **both** of the pair's references in the same situations (the strata
of arena.fairplay.counting): the actor's treatment of the rest of the field (its own
habits: ``random`` ignores who plays) and the rest of the field's treatment of the other
bot (its style: a bluffer is doubted by anyone who looks). A fair bot that models its
opponents departs from one of them, not from both by a margin; a team does:

- ``soft_play`` (author, responder): the responder challenges the author's *false*
  groups less (a partner's lies let through);
- ``feeding`` (author, responder): the responder challenges the author's *true* groups
  more (taking the pile for it);
- ``lie_targeting`` (author, responder): the author lies less when that responder is
  next (honest to a partner, free with the rest).

``soft_play_pair`` (a pair): the pair's two ``soft_play`` directions as one hypothesis
(Fisher's combination of their p), which sees a pair that spares each other both ways
sooner.

Each is one-sided past :data:`MARGIN` in both references (an intersection-union test:
the larger p); each actor's references are first cleared of the bots it treats most
unlike the rest (its partners, found round by round). Every test with enough chances is
one hypothesis of the family; Holm's method keeps the chance of any false flag in a
report at most ``alpha`` (family-wise).

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
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np
from scipy import special, stats
from statsmodels.stats.contingency_tables import StratifiedTable

from arena.fairplay.counting import Chance, Tally

#: the family-wise error rate of a report
ALPHA = 0.05
#: a pair is tested once the tested side has this many chances (fewer say nothing)
MIN_CHANCES = 30
#: a pair's p is exact up to this many chances, the score test's normal tail after
EXACT_UP_TO = 400
#: how far (log odds ratio) a pair's treatment must stray past both of its references
#: before it is a team's: a fair bot's modelling of its opponents stays within it
#: (arena bench fairplay measures both sides)
MARGIN = math.log(3)
#: the bot an actor treats most unlike the rest (past this z, at no margin) leaves the
#: actor's reference, round by round, at most this many rounds (a team of four)
SUSPECT_Z = 3.0
SUSPECT_ROUNDS = 3
#: and once they sat together this often (outcome)
MIN_TOGETHER = 20


class FairPlayTest(StrEnum):
    SOFT_PLAY = "soft_play"
    SOFT_PLAY_PAIR = "soft_play_pair"
    FEEDING = "feeding"
    LIE_TARGETING = "lie_targeting"
    OUTCOME = "outcome"


@dataclass(frozen=True, slots=True)
class Finding:
    """One test of one pair: its evidence, before and after the error control."""

    test: FairPlayTest
    #: [author, responder] for the ordered tests, the pair (lower id first) for
    #: soft_play_pair and outcome
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
    #: the effect's standard error (outcome: of the places gained per match)
    stderr: float = math.nan

    def interval(self, level: float = 0.95) -> tuple[float, float]:
        """The effect's two-sided ``level`` interval (normal)."""
        half = float(stats.norm.ppf(0.5 + level / 2)) * self.stderr
        return self.effect - half, self.effect + half


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


def report(totals: Iterable[Tally], alpha: float = ALPHA, margin: float = MARGIN) -> Report:
    """Test every pair with enough chances and control the family-wise error."""
    by_chance: dict[str, list[Tally]] = defaultdict(list)
    for total in totals:
        by_chance[str(total.chance)].append(total)
    calls, plays = by_chance[Chance.CALLS], by_chance[Chance.PLAYS]
    # a pair suspected in any of the calls' views is left out of every calls baseline
    on_calls = _suspects(calls, (_any, _false_group, _true_group))
    soft = _tested(calls, FairPlayTest.SOFT_PLAY, "less", _false_group, margin, on_calls)
    findings = [
        *soft,
        *_pairs(soft),
        *_tested(calls, FairPlayTest.FEEDING, "greater", _true_group, margin, on_calls),
        *_tested(
            plays, FairPlayTest.LIE_TARGETING, "less", _any, margin, _suspects(plays, (_any,))
        ),
    ]
    outcomes = {f.pair: f for f in _outcomes(by_chance[Chance.PLACES], by_chance[Chance.TABLES])}
    if findings:
        reject, adjusted = holm([f.p_raw for f in findings], alpha)
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


def _false_group(stratum: str) -> bool:
    return stratum.startswith("t0")


def _any(stratum: str) -> bool:
    return True


@dataclass(frozen=True)
class _Cell:
    """One ordered pair's evidence in one test: per stratum, the actor's chances about
    ``other`` against its chances about the rest of the field, taken or not."""

    tables: np.ndarray  # (strata, 2, 2): [[taken, not] about other, [taken, not] the rest]
    log_odds: float  # pooled (Mantel-Haenszel, half a count added to every cell)
    variance: float
    pair_n: int
    pair_k: int
    rest_n: int
    rest_k: int


def _tested(
    totals: list[Tally],
    test: FairPlayTest,
    direction: str,
    keep: Callable[[str], bool],
    margin: float,
    suspects: frozenset[tuple[int, int]],
) -> list[Finding]:
    """Each ordered pair against both of its references, past ``margin`` in each: the
    actor's treatment of the rest of the field (its habits), and the rest of the field's
    treatment of the other (the other's style); intersection-union: the larger p. The
    effect shown is the smaller of the two odds ratios."""
    rows = _cells(totals, keep, suspects)
    columns = _column_cells(totals, keep)
    found = []
    for (actor, other), row in sorted(rows.items()):
        column = columns.get((actor, other))
        if row.pair_n < MIN_CHANCES or column is None:
            continue
        bound = -margin if direction == "less" else margin
        p = max(conditional_p(cell.tables, bound, direction) for cell in (row, column))
        z = float(stats.norm.ppf(p) if direction == "less" else stats.norm.isf(p))
        pair = (other, actor) if test is not FairPlayTest.LIE_TARGETING else (actor, other)
        found.append(
            Finding(
                test, pair, math.exp(min(row.log_odds, column.log_odds, key=abs)), z, p,
                row.pair_k / row.pair_n,
                row.rest_k / row.rest_n if row.rest_n else math.nan,
                row.pair_n,
            )
        )  # fmt: skip
    return found


def _pairs(soft: list[Finding]) -> list[Finding]:
    """Each pair tested for soft play in both directions, once more as one hypothesis:
    "neither lets the other's lies through past the margin" against "one of them does",
    the two p combined by Fisher's method (the two directions are different bots' own
    chances). A pair that spares each other both ways is seen sooner than by either
    direction alone (a one-sided partner is named by this test too, and by its own
    direction's). The effect shown is the weaker direction's, the rates the two
    directions' together."""
    by_pair = {finding.pair: finding for finding in soft}
    found = []
    for (author, responder), one in sorted(by_pair.items()):
        other = by_pair.get((responder, author))
        if other is None or author > responder:
            continue
        p = float(stats.combine_pvalues([one.p_raw, other.p_raw], method="fisher").pvalue)
        chances = one.opportunities + other.opportunities
        found.append(
            Finding(
                FairPlayTest.SOFT_PLAY_PAIR, (author, responder),
                max(one.effect, other.effect), float(stats.norm.ppf(p)), p,
                _pooled(one, other, "pair_rate"), _pooled(one, other, "others_rate"), chances,
            )
        )  # fmt: skip
    return found


def _pooled(one: Finding, other: Finding, rate: str) -> float:
    """Two findings' ``rate``, weighed by their chances."""
    weights = one.opportunities, other.opportunities
    values = getattr(one, rate), getattr(other, rate)
    return sum(w * v for w, v in zip(weights, values, strict=True)) / sum(weights)


def holm(p_values: Sequence[float], alpha: float) -> tuple[list[bool], list[float]]:
    """Holm's step-down adjustment of ``p_values`` and which it rejects at family-wise
    error ``alpha``: statsmodels' ``multipletests(method="holm")``, without the full
    garbage collection it runs on every call (a second's pause in a large process)."""
    adjusted = [0.0] * len(p_values)
    running = 0.0
    for rank, index in enumerate(sorted(range(len(p_values)), key=p_values.__getitem__)):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[index]))
        adjusted[index] = running
    return [p <= alpha for p in adjusted], adjusted


def _column_cells(totals: list[Tally], keep: Callable[[str], bool]) -> dict[tuple[int, int], _Cell]:
    """Every ordered pair's chances against the other actors' chances about the same
    other bot in the same situations. (A partner in that reference makes an honest pair
    look only the more like the rest, never less: it is left in.)"""
    cells = {}
    for other, strata in _grouped(totals, keep, by_actor=False).items():
        sums = _stratum_sums(strata)
        for actor in {actor for by_actor in strata.values() for actor in by_actor}:
            cell = _cell(strata, sums, actor, set())
            if cell is not None:
                cells[actor, other] = cell
    return cells


def _grouped(
    totals: list[Tally], keep: Callable[[str], bool], by_actor: bool
) -> dict[int, dict[str, dict[int, tuple[int, int]]]]:
    """The kept totals as actor (or other) -> stratum -> the other (or actor) ->
    (chances, taken)."""
    grouped: dict[int, dict[str, dict[int, tuple[int, int]]]] = defaultdict(
        lambda: defaultdict(dict)
    )
    for t in totals:
        if keep(t.stratum):
            first, second = (t.actor, t.other) if by_actor else (t.other, t.actor)
            grouped[first][t.stratum][second] = (t.chances, t.taken)
    return grouped


def _suspects(
    totals: list[Tally], views: Sequence[Callable[[str], bool]]
) -> frozenset[tuple[int, int]]:
    """Each actor's partners as far as its own play shows them: round by round, the bot
    it treats most unlike the rest of its reference (past :data:`SUSPECT_Z` either way, at
    no margin, in any of ``views``: subsets of the strata) leaves its reference, and the
    others are compared again without it (a partner never drags the baseline of everyone
    else; two partners are found in two rounds)."""
    suspects: set[tuple[int, int]] = set()
    for _ in range(SUSPECT_ROUNDS):
        worst: dict[int, tuple[float, int]] = {}
        for keep in views:
            for (actor, other), row in _cells(totals, keep, frozenset(suspects)).items():
                if (actor, other) in suspects:
                    continue
                z = abs(_score(row.tables, 0.0, 0.0))
                if z > SUSPECT_Z and z > worst.get(actor, (0.0, -1))[0]:
                    worst[actor] = (z, other)
        if not worst:
            break
        suspects.update((actor, other) for actor, (_, other) in worst.items())
    return frozenset(suspects)


def _cells(
    totals: list[Tally], keep: Callable[[str], bool], suspects: frozenset[tuple[int, int]]
) -> dict[tuple[int, int], _Cell]:
    """Every ordered pair's chances against the actor's chances about the other bots in
    the same situations (the actor's own habits, stratum by stratum), leaving out of that
    reference the bots it is suspected of treating as a team (``suspects``: (actor,
    other) pairs), so that a partner never drags the baseline of everyone else."""
    cells = {}
    for actor, strata in _grouped(totals, keep, by_actor=True).items():
        others = {other for by_other in strata.values() for other in by_other}
        left_out = {other for other in others if (actor, other) in suspects}
        sums = _stratum_sums(strata)
        for other in others:
            cell = _cell(strata, sums, other, left_out - {other})
            if cell is not None:
                cells[actor, other] = cell
    return cells


def _stratum_sums(
    strata: Mapping[str, Mapping[int, tuple[int, int]]],
) -> dict[str, tuple[int, int]]:
    """Each stratum's chances and taken, summed over every bot in it."""
    return {
        stratum: (sum(n for n, _ in by.values()), sum(k for _, k in by.values()))
        for stratum, by in strata.items()
    }


def _cell(
    strata: Mapping[str, Mapping[int, tuple[int, int]]],
    sums: Mapping[str, tuple[int, int]],
    other: int,
    left_out: set[int],
) -> _Cell | None:
    """``other``'s chances against the rest's (every bot in ``sums`` but ``other`` and
    those ``left_out``), stratum by stratum."""
    tables = []
    pair_n = pair_k = rest_n = rest_k = 0
    for stratum, by_other in strata.items():
        n1, k1 = by_other.get(other, (0, 0))
        n2, k2 = sums[stratum]
        n2, k2 = n2 - n1, k2 - k1
        for out in left_out - {other}:
            n, k = by_other.get(out, (0, 0))
            n2, k2 = n2 - n, k2 - k
        pair_n, pair_k, rest_n, rest_k = pair_n + n1, pair_k + k1, rest_n + n2, rest_k + k2
        if n1 and n2 and 0 < k1 + k2 < n1 + n2:  # a stratum that carries evidence
            tables.append([[k1, n1 - k1], [k2, n2 - k2]])
    if not tables:
        return None
    counts = np.array(tables, dtype=float)
    pooled = StratifiedTable((counts + 0.5).transpose(1, 2, 0))
    return _Cell(
        counts,
        float(pooled.logodds_pooled),
        float(pooled.logodds_pooled_se) ** 2,
        pair_n, pair_k, rest_n, rest_k,
    )  # fmt: skip


def _score(tables: np.ndarray, log_odds: float, uncertainty: float) -> float:
    """z of the pair's taken chances against what a common odds ratio of
    ``exp(log_odds)`` in every stratum expects (each stratum's margins fixed: the
    large-sample mean and variance of Breslow and Day), the variance widened by the
    prediction's own (``uncertainty``, on the log-odds scale)."""
    taken = tables[:, 0, 0]
    n = tables[:, 0].sum(axis=1)  # the pair's chances
    k = tables[:, :, 0].sum(axis=1)  # chances taken, the pair's and the rest's
    total = tables.sum(axis=(1, 2))
    mean = _expected_taken(n, k, total, math.exp(log_odds))
    with np.errstate(divide="ignore"):
        cells = np.stack([mean, n - mean, k - mean, total - n - k + mean])
        variance = np.where(
            (cells > 1e-9).all(axis=0), 1 / (1 / np.maximum(cells, 1e-9)).sum(axis=0), 0.0
        )
    spread = float(variance.sum())
    if spread == 0:
        return 0.0
    return float((taken.sum() - mean.sum()) / math.sqrt(spread + spread**2 * uncertainty))


def conditional_p(tables: np.ndarray, log_odds: float, direction: str) -> float:
    """One-sided p of the pair's taken chances against a common odds ratio of
    ``exp(log_odds)`` in every stratum, each stratum's margins fixed: exact (the
    strata's noncentral hypergeometric laws convolved) while the pair has at most
    :data:`EXACT_UP_TO` chances, where the normal approximation misjudges the tails
    (ten strata of one chance each, none taken by the pair and all by the rest: exact
    0.028, normal 0.0003), the score test's z after."""
    if tables[:, 0].sum() > EXACT_UP_TO:
        z = _score(tables, log_odds, 0.0)
        return float(stats.norm.cdf(z) if direction == "less" else stats.norm.sf(z))
    law = np.ones(1)
    for stratum in tables:
        law = np.convolve(law, _stratum_law(stratum, log_odds))
    taken = int(tables[:, 0, 0].sum())
    beyond = law[:taken].sum() if direction == "less" else law[taken + 1 :].sum()
    tail = beyond + law[taken] / 2  # mid-p: the observed count weighs half
    return float(np.clip(tail, np.finfo(float).tiny, 1.0))  # a z stays finite


def _stratum_law(table: np.ndarray, log_odds: float) -> np.ndarray:
    """P(the pair took x), x = 0 … its chances, in one 2x2 table with its margins fixed
    and odds ratio ``exp(log_odds)`` (Fisher's noncentral hypergeometric law)."""
    n, rest = int(table[0].sum()), int(table[1].sum())
    k = int(table[:, 0].sum())
    x = np.arange(n + 1)
    possible = (x <= k) & (k - x <= rest)
    log_weight = np.full(n + 1, -np.inf)
    xs = x[possible]
    log_weight[possible] = _log_choose(n, xs) + _log_choose(rest, k - xs) + xs * log_odds
    weight = np.exp(log_weight - log_weight.max())
    return weight / weight.sum()


def _log_choose(n: int, k: np.ndarray) -> np.ndarray:
    return special.gammaln(n + 1) - special.gammaln(k + 1) - special.gammaln(n - k + 1)


def _expected_taken(n: np.ndarray, k: np.ndarray, total: np.ndarray, odds: float) -> np.ndarray:
    """The pair's taken count that makes each 2x2 table's odds ratio ``odds`` (margins
    fixed): the root of a quadratic within the table's possible range."""
    low, high = np.maximum(0, n + k - total), np.minimum(n, k)
    a = 1 - odds
    b = total - n - k + odds * (n + k)
    c = -odds * n * k
    if abs(a) < 1e-12:
        return np.clip(-c / b, low, high)
    root = np.sqrt(np.maximum(b * b - 4 * a * c, 0))
    first, second = (-b + root) / (2 * a), (-b - root) / (2 * a)
    inside = (first >= low - 1e-9) & (first <= high + 1e-9)
    return np.clip(np.where(inside, first, second), low, high)


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
        stderr = math.sqrt(variance / n)
        z = (expected - mean) / stderr
        found.append(
            Finding(
                FairPlayTest.OUTCOME, (a, b), expected - mean, z, float(stats.norm.sf(z)),
                mean, expected, n, stderr=stderr,
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
