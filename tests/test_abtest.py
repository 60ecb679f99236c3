"""A/B tests: the SPRT's maths, the pairing, the store (refusals, pairs counted once,
the test stopping itself), and the CLI with real workers."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize
from sqlalchemy import func, select, update

from arena.abtest import sprt
from arena.abtest.pairing import pair_table
from arena.base import jobs
from arena.base.errors import Conflict, Forbidden, Invalid
from arena.base.states import AbTestStatus, BotKind, MatchStatus, VersionStatus
from arena.engine import Ruleset
from arena.platform import Platform
from arena.platform.services import Workers
from arena.platform.settings import Settings
from arena.referee import RefereeSettings
from arena.services import abtests as abtest_service
from arena.services import releases as release_service
from arena.store import abtests, bots, competitions, matches
from arena.store.db import Database
from arena.store.models import (
    AbTest,
    AbTestPair,
    BotVersion,
    Entry,
    Owner,
    RatingChange,
    TournamentMatch,
)
from arena.store.owners import add_owner
from tests.support.cli import arena, environment, run_queued_jobs
from tests.support.forks import session_forks
from tests.support.store import SAMPLES, add_samples, play, play_abtest

CLASSIC = Ruleset.parse("classic")
BOUNDS = sprt.Bounds(0, 25)


# -- the maths ---------------------------------------------------------------------------


def test_a_pairs_class_is_the_new_versions_place_against_the_bases() -> None:
    assert sprt.classes(4) == 7
    assert sprt.pair_class(1, 4, 4) == 6  # new first, base last: the best class
    assert sprt.pair_class(4, 1, 4) == 0
    assert sprt.pair_class(2, 2, 4) == 3  # the same place: a draw, score 0.5
    assert sprt.class_scores(3) == [0.0, 0.25, 0.5, 0.75, 1.0]
    with pytest.raises(ValueError, match="place 5"):
        sprt.pair_class(5, 1, 4)


@pytest.mark.parametrize(
    ("elo0", "elo1", "alpha", "beta", "message"),
    [(5, 5, 0.05, 0.05, "below"), (10, 0, 0.05, 0.05, "below"), (0, 5, 0.7, 0.05, "alpha")],
)
def test_bounds_out_of_order_are_refused(
    elo0: float, elo1: float, alpha: float, beta: float, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        sprt.Bounds(elo0, elo1, alpha, beta)


def test_wald_bounds_at_five_percent() -> None:
    assert BOUNDS.upper == pytest.approx(2.944, abs=1e-3)
    assert BOUNDS.lower == pytest.approx(-2.944, abs=1e-3)


counts_strategy = st.lists(st.integers(0, 60), min_size=5, max_size=5).filter(lambda c: sum(c) > 0)


@given(counts_strategy, st.floats(0.2, 0.8))
@settings(max_examples=60, deadline=None)
def test_the_mle_has_the_mean_asked_for_and_is_a_distribution(
    counts: list[int], mean: float
) -> None:
    _, pdf = sprt._pdf(counts)
    scores = sprt.class_scores(3)
    fitted = sprt.mle(pdf, scores, mean)
    assert sum(fitted) == pytest.approx(1, abs=1e-9)
    assert all(p > 0 for p in fitted)
    assert sum(p * a for p, a in zip(fitted, scores, strict=True)) == pytest.approx(mean, abs=1e-9)


def test_the_mle_is_the_constrained_maximum_a_general_optimiser_finds() -> None:
    counts = [3, 8, 20, 11, 6]
    _, pdf = sprt._pdf(counts)
    scores = sprt.class_scores(3)
    mean = 0.56

    def minus_likelihood(q: list[float]) -> float:
        return -sum(p * math.log(x) for p, x in zip(pdf, q, strict=True))

    found = minimize(
        minus_likelihood,
        [0.2] * 5,
        method="SLSQP",
        bounds=[(1e-9, 1)] * 5,
        constraints=[
            {"type": "eq", "fun": lambda q: sum(q) - 1},
            {
                "type": "eq",
                "fun": lambda q: sum(x * a for x, a in zip(q, scores, strict=True)) - mean,
            },
        ],
        options={"ftol": 1e-14, "maxiter": 500},
    )
    assert found.success
    assert sprt.mle(pdf, scores, mean) == pytest.approx(list(found.x), abs=1e-5)


@given(counts_strategy)
@settings(max_examples=40, deadline=None)
def test_the_llr_changes_sign_when_the_versions_swap(counts: list[int]) -> None:
    """With bounds symmetric about 0, swapping new and base (the classes reversed)
    negates the statistic (to the solver's rounding: a statistic near 0 came out as
    -5.2e-13 one way and 5.2e-13 the other, outside approx's default 1e-12)."""
    symmetric = sprt.Bounds(-10, 10)
    forward = sprt.llr(counts, symmetric)
    assert sprt.llr(counts[::-1], symmetric) == pytest.approx(-forward, rel=1e-6, abs=1e-9)


def test_evidence_for_the_new_version_raises_the_llr_until_it_is_accepted() -> None:
    counts = [0] * 5
    values = []
    while sprt.verdict(sprt.llr(counts, BOUNDS), BOUNDS) is None:
        counts[3] += 1  # the new version a place ahead, again and again
        counts[2] += 1
        values.append(sprt.llr(counts, BOUNDS))
    assert values == sorted(values) and sprt.verdict(values[-1], BOUNDS) == "accepted"
    assert sprt.llr([0, 0, 0, 0, 0], BOUNDS) == 0.0
    assert sprt.verdict(sprt.llr([0, 0, 40, 0, 0], BOUNDS), BOUNDS) == "rejected"


def test_the_elo_estimate_brackets_the_mean_score() -> None:
    found = sprt.estimate([5, 10, 30, 25, 10])
    assert found.pairs == 80
    assert found.score == pytest.approx((10 * 0.25 + 30 * 0.5 + 25 * 0.75 + 10) / 80)
    assert found.elo_low < found.elo < found.elo_high
    assert found.elo == pytest.approx(sprt.elo_of_score(found.score))
    assert sprt.score_of_elo(sprt.elo_of_score(0.6)) == pytest.approx(0.6)


# -- the pairing -------------------------------------------------------------------------


def test_the_tested_seat_goes_round_the_table_and_the_opponents_take_turns() -> None:
    field = [11, 12, 13]
    tables = [pair_table(pair, field, 3) for pair in range(9)]
    assert [t.tested_seat for t in tables[:3]] == [0, 1, 2]
    assert tables[0].with_version(7) == [7, 11, 12]
    assert tables[1].with_version(8) == [11, 8, 12]
    seen = {(seat, v) for t in tables for seat, v in enumerate(t.seats) if v is not None}
    assert {v for _, v in seen} == set(field)
    with pytest.raises(ValueError, match="needs 3 opponents"):
        pair_table(0, [1, 2], 4)


# -- the store ---------------------------------------------------------------------------


def _second_version(db: Database, name: str, status: VersionStatus) -> None:
    def work(session) -> None:
        first = bots.active_version(session, name)
        session.add(
            BotVersion(
                bot_id=first.bot_id,
                number=2,
                kind=BotKind.SAMPLE,
                target=first.target,
                active=False,
                status=status,
                reason="crashed in act" if status is VersionStatus.REJECTED else None,
            )
        )

    db.transaction(work)


def _create(db: Database, name: str = "ab", **kwargs) -> AbTest:
    new = kwargs.pop("new", "counter")
    base = kwargs.pop("base", "random")
    return db.transaction(
        lambda s: abtest_service.create_in(
            s, name, new, base, CLASSIC, kwargs.pop("bounds", BOUNDS), **kwargs
        )
    )


@pytest.mark.parametrize(
    ("new", "base", "field", "message"),
    [
        ("nobody", "random", None, "no bot named 'nobody'"),
        ("counter:7", "random", None, "has no version 7"),
        ("counter", "counter:1", None, "the same version"),
        ("counter:2", "random", None, "never qualified"),
        ("counter", "random", ["random", "honest"], "the field holds a tested version"),
        ("counter", "random", ["honest"], "needs 3 opponents"),
    ],
)
def test_bad_input_is_refused_and_nothing_is_made(
    db: Database, new: str, base: str, field: list[str] | None, message: str
) -> None:
    add_samples(db)
    _second_version(db, "counter", VersionStatus.REJECTED)
    with pytest.raises(Invalid, match=message):
        _create(db, new=new, base=base, field=field, table_size=4)
    with db.read() as s:
        assert s.scalar(select(func.count()).select_from(AbTest)) == 0
        assert s.scalar(select(func.count()).select_from(TournamentMatch)) == 0


def test_a_replaced_version_that_qualified_can_be_tested(db: Database) -> None:
    add_samples(db)
    _second_version(db, "counter", VersionStatus.READY)
    test = _create(db, new="counter:2", base="counter:1", field=["random", "honest", "bluffer"])
    with db.read() as s:
        found = s.get(AbTest, test.id)
        assert (found.new_version.number, found.base_version.number) == (2, 1)
    with pytest.raises(Conflict, match="exists already"):
        _create(db, new="counter:2", base="counter:1")


def test_a_version_its_competition_retired_is_tested_to_a_verdict(db: Database) -> None:
    """A/B matches are never stale: a version replaced in a competition (its entry
    retired there) is tested like any qualified version (every match used to be thrown
    away when claimed, and such a test ran to its cap with no pair counted)."""
    add_samples(db)
    db.transaction(
        lambda s: competitions.create(s, "main", CLASSIC, 4, tables=2, bot_names=SAMPLES)
    )
    _second_version(db, "counter", VersionStatus.READY)
    db.transaction(lambda s: release_service.promote_in(s, "counter:2", None))
    with db.read() as s:
        retired = s.scalars(select(Entry).where(Entry.retired.is_(True))).one()
        assert retired.version.number == 1 and retired.version.bot.name == "counter"
    test = _create(db, new="counter:1", base="random", field=["honest", "bluffer"], table_size=3)
    db.transaction(lambda s: abtest_service.start_in(s, "ab"))
    play_abtest(db, test.tournament_id)
    status = _status(db)
    assert status.status == "accepted" and status.pairs > 0
    with db.read() as s:
        errors = s.scalars(
            select(TournamentMatch.error).where(TournamentMatch.tournament_id == test.tournament_id)
        ).all()
    assert not [e for e in errors if e and "replaced" in e]


def test_an_owner_tests_only_their_own_versions(db: Database) -> None:
    add_samples(db)
    owner, _ = db.transaction(lambda s: add_owner(s, "alice"))
    with pytest.raises(Forbidden, match="not a bot of your teams"):
        db.transaction(
            lambda s: abtest_service.create_in(
                s, "theirs", "counter", "random", CLASSIC, BOUNDS, owner=s.merge(owner)
            )
        )


def test_pairs_share_their_deal_and_table_and_the_test_stops_itself(db: Database) -> None:
    add_samples(db)
    test = _create(db, new="counter", base="random", field=["honest", "bluffer"], table_size=3)
    jobs = db.transaction(lambda s: abtest_service.start_in(s, "ab"))
    assert len(jobs) == 2 * abtests.DEFAULT_BATCH
    with db.read() as s:
        first = s.scalars(
            select(TournamentMatch)
            .where(TournamentMatch.tournament_id == test.tournament_id)
            .order_by(TournamentMatch.index)
        ).all()
        by_pair: dict[int, list[TournamentMatch]] = {}
        for match in first:
            by_pair.setdefault(match.deal_group, []).append(match)
        for pair in by_pair.values():
            new, base = pair
            assert new.seed == base.seed and new.job_id == base.job_id
            differ = [
                (a.bot_version_id, b.bot_version_id)
                for a, b in zip(new.seats, base.seats, strict=True)
                if a.bot_version_id != b.bot_version_id
            ]
            assert differ == [(test.new_version_id, test.base_version_id)]
    play_abtest(db, test.tournament_id)
    with db.read() as s:
        found = s.get(AbTest, test.id)
        assert found.status is AbTestStatus.ACCEPTED  # counter beats random by far
        counted = s.scalars(select(AbTestPair).where(AbTestPair.abtest_id == test.id)).all()
        assert len(counted) == found.pairs == sum(found.counts)
        assert [p.counted for p in counted] == sorted(p.counted for p in counted)
        assert found.llr == pytest.approx(sprt.llr(found.counts, BOUNDS))
        assert found.llr >= BOUNDS.upper
        left = s.scalars(
            select(TournamentMatch.status).where(
                TournamentMatch.tournament_id == test.tournament_id,
                TournamentMatch.status.in_([MatchStatus.QUEUED, MatchStatus.PENDING]),
            )
        ).all()
        assert left == [], "nothing is queued once the test decided"
        entries = s.scalars(select(Entry).where(Entry.tournament_id == test.tournament_id)).all()
        assert {(e.mu, e.sigma) for e in entries} == {(25.0, 25.0 / 3)}, "no rating changed"
        assert (
            s.scalar(
                select(func.count())
                .select_from(RatingChange)
                .where(RatingChange.tournament_id == test.tournament_id)
            )
            == 0
        )
    status = _status(db)
    assert status.status == "accepted" and status.matches >= 2 * status.pairs
    assert status.elo_ci[0] > 0 and len(status.history) == status.pairs


def _status(db: Database, name: str = "ab") -> abtest_service.AbTestState:
    with db.read() as s:
        return abtest_service.status(s, name)


def test_a_pair_is_counted_once_however_often_its_closing_is_seen(db: Database) -> None:
    add_samples(db)
    test = _create(db, field=["honest", "bluffer"], table_size=3, batch=1)
    db.transaction(lambda s: abtest_service.start_in(s, "ab"))
    with db.read() as s:
        ids = s.scalars(
            select(TournamentMatch.id).where(TournamentMatch.tournament_id == test.tournament_id)
        ).all()
    for match_id in ids:
        plan = matches.claim(db, match_id, "test")
        assert plan is not None and matches.record(db, plan, play(plan), 1.0)
    for _ in range(2):  # a reconciler or a second recorder sees the closed pair again
        db.transaction(
            lambda s: abtests.count_closed_pairs(s.connection(), test.tournament_id, [0])
        )
    assert _status(db).pairs == 1


def test_stopping_withdraws_the_queued_matches_and_keeps_the_result(db: Database) -> None:
    add_samples(db)
    test = _create(db, field=["honest", "bluffer"], table_size=3)
    db.transaction(lambda s: abtest_service.start_in(s, "ab"))
    withdrawn = db.transaction(lambda s: abtest_service.stop_in(s, "ab"))
    assert withdrawn == 2 * abtests.DEFAULT_BATCH
    assert abtests.refill(db, test.tournament_id) == []
    assert _status(db).status == "stopped"
    with pytest.raises(Conflict, match="over"):
        db.transaction(lambda s: abtest_service.start_in(s, "ab"))


def test_a_test_that_reaches_its_cap_undecided_is_capped_and_says_so(db: Database) -> None:
    add_samples(db)
    strict = sprt.Bounds(0.0, 25.0, 0.001, 0.001)  # two pairs cannot decide
    test = _create(db, new="counter", base="honest", field=["random", "bluffer"], table_size=3,
                   max_matches=4, batch=1, bounds=strict)  # fmt: skip
    before = _status(db)
    assert before.elo is None and before.elo_ci is None and before.score is None
    assert before.outcome == "not started: arena abtest start ab"
    db.transaction(lambda s: abtest_service.start_in(s, "ab"))
    assert play_abtest(db, test.tournament_id) == 4
    status = _status(db)
    assert status.status == "capped"
    assert status.matches == 4 and status.pairs == 2
    assert status.outcome == "capped: its 4 matches were spent with 2 pairs counted, undecided"
    interval = status.elo_ci
    assert interval is None or all(math.isfinite(end) for end in interval)
    assert status.class_places == [-2, -1, 0, 1, 2]


def test_the_outcome_says_which_matches_did_not_count_and_why(db: Database) -> None:
    add_samples(db)
    test = _create(db, field=["honest", "bluffer"], table_size=3, batch=1)
    db.transaction(lambda s: abtest_service.start_in(s, "ab"))
    error = "the worker playing it was lost (attempt 4)"
    db.transaction(
        lambda s: s.execute(
            update(TournamentMatch)
            .where(TournamentMatch.tournament_id == test.tournament_id)
            .values(status=MatchStatus.FAILED, error=error)
        )
    )
    db.transaction(lambda s: abtest_service.stop_in(s, "ab"))
    status = _status(db)
    assert status.uncounted == {"failed": 2}
    assert status.outcome == (
        f"stopped undecided with 0 pairs counted; matches that did not count: 2 failed ({error})"
    )


# -- as a user runs it -------------------------------------------------------------------


@pytest.mark.processes
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_worker_queues_each_next_pair_as_one_job_of_both_matches(settings: Settings) -> None:
    """A worker that recorded a pair queues the next ones itself: both matches of a pair
    in one job (sent one by one, the second overwrote the first's job: that match waited
    for the reconciler, a worker in burst mode left it queued)."""
    platform = Platform(settings)
    add_samples(platform.db)
    test = _create(platform.db, field=["honest", "bluffer"], table_size=3, batch=2)
    assert platform.start_abtest("ab") == 4
    said = run_queued_jobs(platform)  # plays until the queue is empty: no reconciler runs
    with platform.db.read() as s:
        pairs: dict[int, set[MatchStatus]] = {}
        for group, state in s.execute(
            select(TournamentMatch.deal_group, TournamentMatch.status).where(
                TournamentMatch.tournament_id == test.tournament_id
            )
        ):
            pairs.setdefault(group, set()).add(state)
    assert all(MatchStatus.QUEUED not in states for states in pairs.values()), (pairs, said)
    assert _status(platform.db).status == "accepted", said


@pytest.mark.processes
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_the_cli_accepts_counter_over_random_with_two_workers(settings: Settings) -> None:
    env = environment(settings)
    Platform(settings)
    add_samples(Database(settings.database_url), SAMPLES)
    made = arena("abtest", "create", "cr", "--new", "sample:counter", "--base", "sample:random",
                 env=env)  # fmt: skip
    assert made.returncode == 0, made.stderr
    refused = arena("abtest", "create", "bad", "--new", "counter", "--base", "counter", env=env)
    assert refused.returncode == 2 and "the same version" in refused.stderr
    backwards = arena("abtest", "create", "bad", "--new", "counter", "--base", "random",
                      "--elo0", "10", "--elo1", "0", env=env)  # fmt: skip
    assert backwards.returncode == 2 and "must be below" in backwards.stderr
    unknown = arena("abtest", "create", "bad", "--new", "counter:9", "--base", "random", env=env)
    assert unknown.returncode == 2 and "has no version 9" in unknown.stderr
    with Workers(settings, 2, settings.data_dir / "logs", forks=session_forks()):
        started = arena("abtest", "start", "cr", env=env)
        assert started.returncode == 0, started.stderr
        waited = arena("abtest", "wait", "cr", "--json", "--timeout", "240", env=env)
    assert waited.returncode == 0, waited.stderr
    result = json.loads(waited.stdout)
    assert result["status"] == "accepted"
    assert result["llr"] >= result["bounds"][1] and result["elo"] > 0
    assert {"status", "llr", "bounds", "matches", "elo", "elo_ci"} <= set(result)
    shown = arena("abtest", "status", "cr", env=env)
    assert "accepted" in shown.stdout and "LLR" in shown.stdout


@pytest.mark.processes
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_wait_says_the_verdict_in_its_exit_status(settings: Settings) -> None:
    env = environment(settings)
    platform = Platform(settings)
    add_samples(platform.db)
    strict = sprt.Bounds(0.0, 25.0, 0.001, 0.001)
    tests = {
        "worse": _create(platform.db, "worse", new="random", base="counter",
                         field=["honest", "bluffer"], table_size=3),
        "capped": _create(platform.db, "capped", new="counter", base="honest",
                          field=["random", "bluffer"], table_size=3, max_matches=4, batch=1,
                          bounds=strict),
    }  # fmt: skip
    for name, test in tests.items():
        platform.db.transaction(lambda s, name=name: abtest_service.start_in(s, name))
        play_abtest(platform.db, test.tournament_id)
    rejected = arena("abtest", "wait", "worse", env=env)
    assert rejected.returncode == 1, rejected.stderr
    assert "worse: rejected" in rejected.stdout and "new minus base" in rejected.stdout
    capped = arena("abtest", "wait", "capped", env=env)
    assert capped.returncode == 2, capped.stderr
    assert "capped: its 4 matches were spent with 2 pairs counted" in capped.stdout
    assert "inf" not in capped.stdout
    missing = arena("abtest", "wait", "nothing", env=env)
    assert missing.returncode == 3 and "no A/B test named" in missing.stderr


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_the_page_shows_the_llr_against_its_bounds_and_the_bot_page_lists_it(
    app_and_token,
) -> None:
    client, _, arena_ = app_and_token
    add_samples(arena_.db)
    test = _create(arena_.db, field=["honest", "bluffer"], table_size=3)
    arena_.db.transaction(lambda s: abtest_service.start_in(s, "ab"))
    play_abtest(arena_.db, test.tournament_id)
    page = client.get("/abtests/ab").text
    status = client.get("/api/v1/abtests/ab").json()
    assert status["status"] == "accepted"
    assert status == _status(arena_.db).to_dict(), "the API answers the service's state"
    assert 'class="llr"' in page and "accept +2.94" in page and "reject -2.94" in page
    assert f"{status['pairs']} pairs counted" in page
    assert "/abtests/ab" in client.get("/bots/counter").text
    assert "/abtests/ab" in client.get("/abtests").text
    assert "abtest.ab" not in client.get("/").text, "a test's matches are not a tournament"
    assert client.get("/abtests/nothing").status_code == 404


def _owners_counter(db: Database) -> Owner:
    """alice, owner of "mine" (the counter sample) with a second version qualified."""
    add_samples(db)
    owner, _ = db.transaction(lambda s: add_owner(s, "alice"))
    db.transaction(lambda s: bots.add_bot(s, "mine", BotKind.SAMPLE, "counter", owner.id))
    _second_version(db, "mine", VersionStatus.READY)
    return owner


@pytest.mark.parametrize(
    ("asked", "message"),
    [
        ({"bounds": sprt.Bounds(0, 5, alpha=1e-9)}, "alpha is between 0.01 and 0.2"),
        ({"bounds": sprt.Bounds(0, 5, beta=0.45)}, "beta is between 0.01 and 0.2"),
        ({"max_matches": 100_000}, "at most 4,000 matches"),
        ({"batch": 500}, "at most 8 pairs in play"),
        ({"settings": RefereeSettings(deadline=3.0)}, "deadline is at most 1 s"),
    ],
)
def test_an_owners_test_is_bounded_in_matches_pairs_deadline_and_error_rates(
    db: Database, asked: dict, message: str
) -> None:
    """Three owners' tests of 100,000 matches at a 5 s deadline once took the ranked
    competition from 4.8 to 1.6 matches a minute."""
    owner, asked = _owners_counter(db), dict(asked)
    db.transaction(
        lambda s: competitions.create(
            s, "main", CLASSIC, 4, tables=2, bot_names=SAMPLES, default=True
        )
    )
    with pytest.raises(Invalid, match=message):
        db.transaction(
            lambda s: abtest_service.create_in(
                s, "mine-2", "mine:2", "mine:1", CLASSIC, asked.pop("bounds", BOUNDS),
                owner=s.merge(owner), **asked,
            )
        )  # fmt: skip


def test_an_owners_test_waits_in_the_private_lane_and_the_operators_in_the_ranked(
    db: Database,
) -> None:
    owner = _owners_counter(db)
    db.transaction(
        lambda s: abtest_service.create_in(
            s, "mine-2", "mine:2", "mine:1", CLASSIC, BOUNDS, owner=s.merge(owner)
        )
    )
    _create(
        db, "operators", new="counter", base="random", field=["honest", "bluffer"], table_size=3
    )
    owners = db.transaction(lambda s: abtest_service.start_in(s, "mine-2"))
    operators = db.transaction(lambda s: abtest_service.start_in(s, "operators"))
    assert owners and all(jobs.is_private(job) for _, job in owners)
    assert operators and not any(jobs.is_private(job) for _, job in operators)
