"""Fair play: one owner's bots never share a ranked table, and the collusion report flags
a planted team (in process and through the platform) and names nobody in an honest field;
its error rate and power are measured by ``arena bench fairplay`` (docs/fair-play.md)."""

from __future__ import annotations

import gc
import itertools
import json
import math
import random
from collections import Counter
from collections.abc import Callable
from contextlib import ExitStack

import numpy as np
import pytest
from alembic import command
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats
from sqlalchemy import select, text
from statsmodels.stats import multitest

from arena.base import aio
from arena.base.errors import Invalid, NotFound
from arena.base.states import BotKind, MatchStatus
from arena.bench import fairplay as bench
from arena.bench import teams
from arena.engine import Action, Observation, Phase, Ruleset
from arena.engine.match import Match as EngineMatch
from arena.fairplay.counting import Chance, FairPlayCounter, Tally, match_tallies
from arena.fairplay.report import conditional_p, holm, report
from arena.game.selfplay import play_deal
from arena.policies import RandomLegal
from arena.referee import Referee, RefereeSettings
from arena.services import fairplay as fairplay_service
from arena.services import teams as team_service
from arena.store import accounts, bots, ladder, tournaments
from arena.store import fairplay as fairplay_store
from arena.store import matches as match_store
from arena.store.leases import SeatPlan
from arena.store.models import MatchSeat, TournamentMatch
from arena.store.owners import add_owner
from arena.store.pair_packing import COLUMNS
from arena.store.schema import alembic_config, upgrade
from tests.support.cli import arena, environment, run_queued_jobs
from tests.support.engine import random_game, served
from tests.support.store import SAMPLES, add_samples, match_ids, play, play_counted
from worker.seats import seats_for

# ------------------------------------------------------------------ counting


def _counted_deal(seed: int) -> tuple[FairPlayCounter, Counter[str]]:
    """A random legal deal of random rules, counted, beside an independent count of the
    chances to call the counter should see."""
    rng = random.Random(seed)
    game = random_game(rng)
    deal = EngineMatch(game, seed=seed).next_deal()
    counter = FairPlayCounter()
    expected: Counter[str] = Counter()

    class Watching:
        def __init__(self, policy: RandomLegal) -> None:
            self.policy = policy

        def act(self, observation: Observation) -> Action:
            action = self.policy.act(observation)
            legal = observation.legal
            if observation.phase == Phase.RESPOND and legal is not None and legal.challenge:
                expected["calls"] += 1
                expected["challenges"] += action.kind == "challenge"
            return action

    policies = [Watching(RandomLegal(f"{seed}/{seat}")) for seat in range(game.players)]
    play_deal(deal, policies, counter)
    return counter, expected


@pytest.mark.parametrize("seed", range(30))
def test_every_chance_to_call_is_counted_once_and_every_challenge_taken(seed: int) -> None:
    counter, expected = _counted_deal(seed)
    calls = [t for t in counter.tallies() if t.chance == Chance.CALLS]
    # random legal actions are never illegal: every chance the seat had is counted
    assert sum(t.chances for t in calls) == expected["calls"]
    assert sum(t.taken for t in calls) == expected["challenges"]
    assert all(t.actor != t.other for t in counter.tallies())


def test_the_referee_counts_every_challenge_and_no_more_lies_than_bluffs() -> None:
    rules = Ruleset.parse("classic")  # calls by the next player only: every challenge counts
    plans = [SeatPlan(i, f"{n} v1", BotKind.SAMPLE, n) for i, n in enumerate(SAMPLES)]
    for seed in ("s1", "s2", "s3"):
        referee = Referee(
            rules, seats_for(plans, rules, seed, ExitStack()), seed, RefereeSettings()
        )
        log = aio.run(referee.run())
        tallies = referee.fairplay.tallies()
        challenges = sum(
            1
            for deal in log.deals
            for step in deal.steps
            if step.kind == "act"
            and step.action is not None
            and step.action.kind == "challenge"
            and not any(event.kind == "illegal" for event in step.events)
        )
        calls = [t for t in tallies if t.chance == Chance.CALLS]
        plays = [t for t in tallies if t.chance == Chance.PLAYS]
        assert sum(t.taken for t in calls) == challenges > 0
        style = [seat.style for seat in log.seats]
        for seat in range(4):
            mine = [t for t in plays if t.actor == seat]
            assert sum(t.chances for t in mine) <= style[seat]["plays"]
            assert sum(t.taken for t in mine) <= style[seat]["bluffs"]


# ------------------------------------------------------------------ the report


@pytest.mark.parametrize("kind", sorted(teams.TEAMS))
def test_each_kind_of_team_is_flagged_within_120_matches_together(kind: str) -> None:
    found = bench.matches_to_flag(kind, 8, f"test/{kind}")
    assert found["together"] is not None, "never flagged"
    assert found["together"] <= bench.TARGET_TOGETHER, found
    members = set(range(len(teams.TEAMS[kind])))
    assert all(set(flag["pair"]) <= members for flag in found["flags"]), found


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["soft_play", "feeding", "team_of_three"])
def test_no_honest_bot_is_named_beside_a_team_however_long_it_plays(kind: str) -> None:
    """A team's own distortion stays out of every honest pair's baseline: after 600
    matches (300 a bot) the report names the team and nobody else."""
    assert bench.accusations(kind, 8, 600, f"test-team/{kind}", rotation=1) == []


@pytest.mark.slow
@pytest.mark.parametrize(("kind", "trial"), [("feeding", 3), ("partner_and_teammate", 4)])
def test_a_bluffers_rare_true_groups_challenged_by_a_reader_of_records_name_nobody(
    kind: str, trial: int
) -> None:
    """Two of the bench's fields with a team, at 1,500 matches a bot, where the report
    named an honest pair as feeding while an author's likelihood of truth was cut in
    fifths: a bluffer's true groups sat low in their fifth (its record), and a bot that
    reads records challenged them more than the rest of that fifth."""
    seed = f"team/{kind}/1500/{trial}"
    assert bench.accusations(kind, 8, 1500 * 8 // 4, seed, rotation=trial) == []


@pytest.mark.parametrize(("size", "per_bot"), [(4, 60), (8, 60), (16, 60), (4, 1000)])
def test_an_honest_fields_report_names_nobody(size: int, per_bot: int) -> None:
    """Honest styles, opponent modellers among them (counter, tracker), at 60 matches a
    bot and at 1,000: the report of one seeded field names nobody. How often an honest
    field is flagged (the report's error rate, over many seeded fields) is measured by
    ``arena bench fairplay`` (docs/benchmarks.md), not here."""
    seed = f"test-honest/{size}/{per_bot}"
    assert bench.honest_flags(size, per_bot * size // 4, seed, rotation=size) == []


def _calls(rate: Callable[[int, int], float], chances: int = 2000) -> list[Tally]:
    """Six bots' calls on each other's false groups at ``rate(responder, author)``, and
    on their true groups at 10 % each, in one situation each."""
    totals = []
    for responder in range(6):
        for author in range(6):
            if author != responder:
                taken = round(rate(responder, author) * chances)
                totals.append(Tally("calls", responder, author, "t0q3c1p0a2w0", chances, taken))
                totals.append(Tally("calls", responder, author, "t1e6c1p0a2w0", chances, 200))
    return totals


def test_a_modeller_and_a_bot_that_ignores_styles_are_never_named_but_a_partner_is() -> None:
    """At 2,000 chances a pair: the bots that look doubt the bluffer (5) more and trust
    the truthful bot (2) more, as a modeller should; the random bot (3) treats both like
    everyone; bot 4 never doubts bot 0. Only the pair (0, 4) departs from both of its
    references (comparing each bot with its own habits alone named three honest pairs)."""

    def rate(responder: int, author: int) -> float:
        if responder == 4 and author == 0:
            return 0.02
        if author == 5 and responder != 3:
            return 0.9
        if author == 2 and responder in (0, 1, 5):
            return 0.2
        return 0.5

    flags = report(_calls(rate)).flags
    named = sorted((str(f.test), f.pair) for f in flags)
    assert named == [("soft_play", (0, 4)), ("soft_play_pair", (0, 4))]


@pytest.mark.parametrize("direction", ["less", "greater"])
@pytest.mark.parametrize("log_odds", [-math.log(3), 0.0, math.log(3)])
def test_a_pairs_p_is_the_exact_mid_p_of_its_strata(direction: str, log_odds: float) -> None:
    """Sparse strata, empty cells among them: the p is the mid-p of the pair's taken
    chances under the strata's Fisher noncentral hypergeometric laws, enumerated here
    outcome by outcome with scipy's own law."""
    tables = np.array(
        [[[0, 5], [4, 1]], [[1, 2], [0, 3]], [[0, 4], [6, 0]], [[2, 1], [3, 3]]], dtype=float
    )
    laws = []
    for (taken, not_taken), (rest_taken, rest_not) in tables.astype(int):
        n, k = taken + not_taken, taken + rest_taken
        total = n + rest_taken + rest_not
        law = stats.nchypergeom_fisher(total, k, n, math.exp(log_odds))
        laws.append({x: law.pmf(x) for x in range(n + 1) if law.pmf(x) > 0})
    observed = int(tables[:, 0, 0].sum())
    below = above = at = 0.0
    for outcome in itertools.product(*(law.items() for law in laws)):
        total_taken = sum(x for x, _ in outcome)
        chance = math.prod(p for _, p in outcome)
        if total_taken < observed:
            below += chance
        elif total_taken > observed:
            above += chance
        else:
            at += chance
    expected = (below if direction == "less" else above) + at / 2
    assert conditional_p(tables, log_odds, direction) == pytest.approx(expected, rel=1e-9)


def test_a_pair_that_spares_each_other_both_ways_is_flagged_before_either_way_is() -> None:
    """30 chances each way: bots 0 and 4 let 90 % of each other's lies through where the
    field challenges 60 %. Neither direction alone passes the error control; the two
    together (Fisher's combination of their p) do. One way only, the same numbers flag
    nothing."""

    def both(responder: int, author: int) -> float:
        return 0.1 if {responder, author} == {0, 4} else 0.6

    found = report(_calls(both, 30))
    flagged = [(str(f.test), f.pair) for f in found.flags]
    assert flagged == [("soft_play_pair", (0, 4))]
    ways = {f.pair: f for f in found.findings if str(f.test) == "soft_play"}
    combined = stats.combine_pvalues([ways[0, 4].p_raw, ways[4, 0].p_raw], method="fisher")
    assert found.flags[0].p_raw == pytest.approx(combined.pvalue)
    one_way = report(_calls(lambda r, a: 0.1 if (r, a) == (4, 0) else 0.6, 30))
    assert one_way.flags == []


def test_situations_of_one_chance_each_weigh_what_their_exact_law_says() -> None:
    """Ten situations with one chance of the pair's and one of the rest's, the pair's
    not taken and the rest's taken: at the margin (odds 1/3) each is the pair's with
    probability 3/4, so the mid-p is (3/4)^10 / 2 = 0.028, not the 0.0003 of the normal
    tail, which would flag such thin evidence in a family of a hundred pairs."""
    tables = np.array([[[0, 1], [1, 0]]] * 10, dtype=float)
    assert conditional_p(tables, -math.log(3), "less") == pytest.approx(0.75**10 / 2)


@given(
    st.lists(st.floats(0, 1) | st.sampled_from([0.0, 0.01, 0.05, 1.0]), max_size=40),
    st.sampled_from([0.01, 0.05, 0.2]),
)
def test_holms_adjustment_is_statsmodels(p_values: list[float], alpha: float) -> None:
    """The report's own Holm step-down (statsmodels' runs a full garbage collection at
    every call) adjusts and rejects exactly as ``multipletests(method="holm")``."""
    reject, adjusted = holm(p_values, alpha)
    if not p_values:
        assert (reject, adjusted) == ([], [])
        return
    with pytest.MonkeyPatch.context() as patch:  # its collection: 0.6 s in a test process
        patch.setattr(gc, "collect", lambda *_: 0)
        expected_reject, expected, _, _ = multitest.multipletests(p_values, alpha, "holm")
    assert reject == expected_reject.tolist()
    assert adjusted == pytest.approx(expected.tolist(), rel=1e-12, abs=0)


# ------------------------------------------------------------------ prevention


def _owned(db, owners: dict[str, str]) -> None:
    """Endpoint-free bots for seating tests: samples registered under owners."""

    def add(session) -> None:
        ids = {}
        for owner in sorted(set(owners.values())):
            ids[owner] = add_owner(session, owner)[0].id
        for name, owner in owners.items():
            bots.add_bot(session, name, BotKind.SAMPLE, "random", owner_id=ids[owner])

    db.transaction(add)


def _tables(db, tournament_id: int) -> list[set[int]]:
    with db.read() as s:
        rows = s.execute(
            select(MatchSeat.match_id, MatchSeat.bot_version_id)
            .join(TournamentMatch, TournamentMatch.id == MatchSeat.match_id)
            .where(TournamentMatch.tournament_id == tournament_id)
        ).all()
    tables: dict[int, set[int]] = {}
    for match_id, version in rows:
        tables.setdefault(match_id, set()).add(version)
    return list(tables.values())


def _version_ids(db, names: list[str]) -> dict[str, int]:
    with db.read() as s:
        return {name: bots.active_version(s, name).id for name in names}


def test_one_owners_bots_never_share_a_round_robin_table(db) -> None:
    add_samples(db)
    _owned(db, {"ann1": "ann", "ann2": "ann", "bob1": "bob"})
    field = [*SAMPLES, "ann1", "ann2", "bob1"]
    rules = Ruleset.parse("classic")
    cup = db.transaction(lambda s: tournaments.create(s, "cup", rules, field, 4, 200))
    ids = _version_ids(db, ["ann1", "ann2"])
    tables = _tables(db, cup.id)
    assert len(tables) == 200
    assert not [t for t in tables if {ids["ann1"], ids["ann2"]} <= t]
    assert any(ids["ann1"] in t for t in tables) and any(ids["ann2"] in t for t in tables)
    # the operator may allow it for a tournament (shown on its page)
    free = db.transaction(
        lambda s: tournaments.create(s, "free", rules, field, 4, 200, same_owner_tables=True)
    )
    assert [t for t in _tables(db, free.id) if {ids["ann1"], ids["ann2"]} <= t]
    with db.read() as s:
        assert tournaments.summary(s, tournaments.get(s, "free"))["same_owner_tables"] is True


def test_a_field_with_too_few_owners_for_a_table_is_refused(db) -> None:
    add_samples(db, ["random", "honest"])
    _owned(db, {"ann1": "ann", "ann2": "ann"})
    with pytest.raises(Invalid, match="needs bots of 4 different owners"):
        db.transaction(
            lambda s: tournaments.create(
                s, "cup", Ruleset.parse("classic"), ["random", "honest", "ann1", "ann2"], 4, 8
            )
        )


def test_a_ladder_never_seats_one_owners_bots_together(db) -> None:
    add_samples(db)
    _owned(db, {"ann1": "ann", "ann2": "ann"})
    field = [*SAMPLES, "ann1", "ann2"]
    rules = Ruleset.parse("classic")
    lad = db.transaction(
        lambda s: tournaments.create(s, "lad", rules, field, 4, 3, format="ladder")
    )
    db.transaction(lambda s: tournaments.start(s, "lad"))
    ids = _version_ids(db, ["ann1", "ann2"])
    for _ in range(20):  # play the tables in play, refill, twenty times over
        ladder.refill(db, lad.id)
        with db.read() as s:
            queued = s.scalars(
                select(TournamentMatch.id).where(
                    TournamentMatch.tournament_id == lad.id,
                    TournamentMatch.status == MatchStatus.QUEUED,
                )
            ).all()
        for match_id in queued:
            plan = match_store.claim(db, match_id, "test")
            assert match_store.record(db, plan, play(plan), 1.0)
    tables = _tables(db, lad.id)
    assert len(tables) >= 40
    assert not [t for t in tables if {ids["ann1"], ids["ann2"]} <= t]


# ------------------------------------------------------------------ through the platform


@pytest.mark.processes
def test_a_team_served_as_endpoints_is_flagged_by_the_cli_the_api_and_the_page(
    settings, app_and_token
) -> None:
    """Two owners' bots that know each other by name, served over gRPC and played by a
    real worker: the report names them, the test, and the matches that show it."""
    client, _, platform = app_and_token
    add_samples(platform.db, ["counter", "honest", "random", "bluffer"])
    with (
        served(lambda: teams.Partner({"mate"})) as partner,
        served(lambda: teams.Teammate({"buddy"}, seed="t")) as teammate,
    ):

        def register(session) -> None:
            first, _ = add_owner(session, "ann")
            second, _ = add_owner(session, "bob")
            bots.add_bot(session, "buddy", BotKind.ENDPOINT, partner, owner_id=first.id)
            bots.add_bot(session, "mate", BotKind.ENDPOINT, teammate, owner_id=second.id)

        platform.db.transaction(register)
        field = ["buddy", "mate", "counter", "honest", "random", "bluffer"]
        # the same deals every run (the bots are deterministic): a random key gave each
        # run the report's 5 % chance of a false flag beside the team's (CI: mate -> random)
        platform.db.transaction(
            lambda s: tournaments.create(
                s, "cup", Ruleset.parse("classic"), field, 4, 400, seed="fair play end to end"
            )
        )
        platform.start_tournament("cup")
        run_queued_jobs(platform)
    printed = arena("tournament", "fairplay", "cup", "--json", env=environment(settings))
    assert printed.returncode == 0, printed.stderr
    found = json.loads(printed.stdout)
    # the teammate ("mate") tells its partner the truth and lies to the rest; the partner
    # ("buddy") goes soft on its claims: either is flagged as [author, responder]
    flags = [f for f in found["flags"] if f["test"] in ("soft_play", "lie_targeting")]
    assert flags and all(f["pair"] == ["mate", "buddy"] for f in flags), json.dumps(found)
    # the pair's two soft_play directions as one test names the pair, in either order
    both = [f for f in found["flags"] if f["test"] == "soft_play_pair"]
    assert all(set(f["pair"]) == {"mate", "buddy"} for f in both), json.dumps(found)
    assert len(found["flags"]) == len(flags) + len(both), "no other pair is flagged"
    flag = flags[0]
    assert flag["p_value"] <= found["alpha"] and flag["pair_rate"] < flag["others_rate"]
    assert set(flag["matches"]) <= set(match_ids(platform.db)) and flag["matches"]
    assert (flag["teams"], flag["shared_people"]) == (["bob", "ann"], [])
    assert client.get("/api/v1/tournaments/cup/fairplay").json() == found
    # by person: once ann is in bob's team too, one person stands behind both bots
    with platform.db.read() as s:
        ann, bob = (accounts.named(s, name) for name in ("ann", "bob"))
    code = team_service.invite(platform.db, bob, "bob").code
    team_service.join(platform.db, ann, code)
    again = client.get("/api/v1/tournaments/cup/fairplay").json()
    assert again["flags"][0]["shared_people"] == ["ann"]
    # on request, every pair's places gained together, with its interval: the team's
    # gain is there beside each honest pair's
    every = client.get("/api/v1/tournaments/cup/fairplay?pairs=all").json()
    assert found["pairs"] is None and len(every["pairs"]) == 15  # 6 bots: every pair met
    for gain in every["pairs"]:
        low, high = gain["outcome"]["places_gained_low"], gain["outcome"]["places_gained_high"]
        assert low <= gain["outcome"]["places_gained"] <= high
    gains = {frozenset(g["pair"]): g["outcome"]["places_gained"] for g in every["pairs"]}
    flagged = again["flags"][0]["outcome"]
    assert gains[frozenset(["mate", "buddy"])] == flagged["places_gained"]
    assert flagged["places_gained_low"] <= flagged["places_gained"] <= flagged["places_gained_high"]
    assert "(both: ann)" in client.get("/tournaments/cup/fairplay").text
    page = client.get("/tournaments/cup/fairplay").text
    assert "mate → buddy" in page and flag["test"].replace("_", " ") in page
    assert f'href="/matches/{flag["matches"][0]}"' in page
    with platform.db.read() as s:
        assert fairplay_store.totals(s, tournaments.get(s, "cup").id)


@pytest.mark.both_databases
def test_recorded_batches_join_the_totals_once_when_folded(db) -> None:
    """The recorder keeps a batch's rows as one pending blob; a fold (the reconciler's,
    or a report's) adds them to the totals exactly once."""
    add_samples(db)
    rules = Ruleset.parse("classic")
    db.transaction(lambda s: tournaments.create(s, "cup", rules, SAMPLES, 4, 6, seed="f"))
    db.transaction(lambda s: tournaments.start(s, "cup"))
    expected: Counter[tuple] = Counter()
    for match_id in match_ids(db):
        plan = match_store.claim(db, match_id, "test")
        log, tallies = play_counted(plan)
        assert match_store.record(db, plan, log, 1.0, fairplay=tallies)
        places = {
            seat: place for place, group in enumerate(log.result.ranking, 1) for seat in group
        }
        versions = [seat.bot_version_id for seat in plan.seats]
        ranked = [places[seat] for seat in range(4)]
        for t in match_tallies(versions, ranked, tallies):
            expected[(t.chance, t.actor, t.other, t.stratum)] += t.chances
    with db.read() as s:
        cup = tournaments.get(s, "cup").id
        assert not fairplay_store.totals(s, cup), "pending until a fold"
    fairplay_service.report(db, "cup")  # folds first
    assert db.transaction(lambda s: fairplay_store.fold(s)) == 0, "nothing left to fold"
    with db.read() as s:
        found = {
            (t.chance, t.actor, t.other, t.stratum): t.chances
            for t in fairplay_store.totals(s, cup)
        }
    assert found == dict(expected)
    with pytest.raises(NotFound):
        fairplay_service.report(db, "nope")


@pytest.mark.both_databases
def test_migration_0028_packs_the_totals_a_row_a_pair_and_back(db) -> None:
    """The totals kept a row a situation (0027) become a row a pair (0028) and back, each
    total the same; folds then add to the packed rows."""
    add_samples(db)
    rules = Ruleset.parse("classic")
    db.transaction(lambda s: tournaments.create(s, "cup", rules, SAMPLES, 4, 4, seed="m"))
    db.transaction(lambda s: tournaments.start(s, "cup"))
    first, *rest = match_ids(db)
    _record_counted(db, first)
    db.transaction(lambda s: fairplay_store.fold(s))
    with db.read() as s:
        cup = tournaments.get(s, "cup").id
        packed = _by_key(fairplay_store.totals(s, cup))
    config = alembic_config()
    with db.engine.connect() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0027")
        connection.commit()
        rows = connection.execute(
            text(
                "SELECT chance, actor_version_id, other_version_id, stratum, chances, taken "
                "FROM fairplay_counts"
            )
        ).all()
    assert {(c, a, o, s): (n, t) for c, a, o, s, n, t in rows} == packed
    upgrade(db)
    with db.read() as s:
        assert _by_key(fairplay_store.totals(s, cup)) == packed
    for match_id in rest:
        _record_counted(db, match_id)
    db.transaction(lambda s: fairplay_store.fold(s))
    with db.read() as s:
        grown = _by_key(fairplay_store.totals(s, cup))
    assert all(grown[key][0] >= chances for key, (chances, _) in packed.items())
    assert sum(n for n, _ in grown.values()) > sum(n for n, _ in packed.values())


@pytest.mark.both_databases
def test_migration_0036_packs_the_pair_rows_in_columns_and_back(db) -> None:
    """A fold writes a pair's row in columns; 0036's downgrade writes every row as JSON
    again and its upgrade in columns, each total the same."""
    add_samples(db)
    rules = Ruleset.parse("classic")
    db.transaction(lambda s: tournaments.create(s, "cup", rules, SAMPLES, 4, 2, seed="p"))
    db.transaction(lambda s: tournaments.start(s, "cup"))
    for match_id in match_ids(db):
        _record_counted(db, match_id)
    db.transaction(lambda s: fairplay_store.fold(s))
    with db.read() as s:
        cup = tournaments.get(s, "cup").id
        packed = _by_key(fairplay_store.totals(s, cup))
    assert packed and _formats(db) == {COLUMNS}
    config = alembic_config()
    with db.engine.connect() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0035")
        connection.commit()
    assert _formats(db) == {b"\x78"}, "compressed JSON"
    with db.read() as s:
        assert _by_key(fairplay_store.totals(s, cup)) == packed
    upgrade(db)
    assert _formats(db) == {COLUMNS}
    with db.read() as s:
        assert _by_key(fairplay_store.totals(s, cup)) == packed


def _formats(db) -> set[bytes]:
    with db.engine.connect() as connection:
        return {
            bytes(data[:1]) for data in connection.scalars(text("SELECT data FROM fairplay_pairs"))
        }


def _record_counted(db, match_id: int) -> None:
    plan = match_store.claim(db, match_id, "test")
    log, tallies = play_counted(plan)
    assert match_store.record(db, plan, log, 1.0, fairplay=tallies)


def _by_key(found: list[Tally]) -> dict[tuple[str, int, int, str], tuple[int, int]]:
    by_key = {(t.chance, t.actor, t.other, t.stratum): (t.chances, t.taken) for t in found}
    assert len(by_key) == len(found), "a total read twice"
    return by_key
