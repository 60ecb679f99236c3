"""A pair's fair-play totals as stored: every situation's text packs into a number and
back, any totals come back as they went in (columns, or JSON for a situation with no
number), the same totals always give the same bytes, and the columns cost less."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from arena.fairplay import strata
from arena.fairplay.counting import FairPlayCounter
from arena.store.pair_packing import COLUMNS, add_to, pack_json, pack_pair, unpack_pair
from tests.support.engine import random_game

_CALLS = [
    f"t{t}{steps}{q}c{c}p{p}a{a}w{w}"
    for t in (0, 1)
    for steps in "qe"
    for q in range(11)
    for c in range(4)
    for p in range(3)
    for a in range(3)
    for w in range(4)
]
_PLAYS = [f"L{hand}w{w}" for hand in range(3) for w in range(4)] + [
    f"{phase}{held}{hand}w{w}"
    for phase in "RC"
    for held in range(3)
    for hand in range(3)
    for w in range(4)
]
_PLACES = [str(place) for place in range(1, 9)] + [
    f"{a}-{b}" for a in range(1, 9) for b in range(1, 9) if a != b
]


def test_every_situation_the_totals_hold_packs_into_a_number_and_back() -> None:
    for chance, texts in (("calls", _CALLS), ("plays", _PLAYS), ("places", _PLACES)):
        numbers = {strata.code(chance, stratum) for stratum in texts}
        assert None not in numbers and len(numbers) == len(texts), chance
        for stratum in texts:
            number = strata.code(chance, stratum)
            assert number is not None and strata.text(chance, number) == stratum
    assert strata.text("tables", strata.code("tables", "397") or 0) == "397"


def test_texts_that_are_no_situation_have_no_number() -> None:
    for chance, stratum in [
        ("calls", "t1e7c2p0a2"),
        ("calls", "t1e07c2p0a2w1"),
        ("calls", "t1e7c4p0a2w1"),
        ("plays", "L12w1"),
        ("plays", "X12w1"),
        ("places", "1-"),
        ("places", "01"),
        ("tables", "0397"),
        ("tables", "²"),
        ("tables", "-3"),
        ("tables", ""),
        ("nothing", "1"),
    ]:
        assert strata.code(chance, stratum) is None, (chance, stratum)


def test_the_counters_situations_are_the_codecs_numbers() -> None:
    """What a counted match's tallies say in text packs into the number it was counted
    in: the counter and the store speak one code."""
    seen = 0
    for seed in range(20):
        counter = FairPlayCounter()
        _play_counted(seed, counter)
        for (chance, _, _, number), _ in counter._counts.items():
            stratum = strata.text(chance, number)
            assert strata.code(chance, stratum) == number
            seen += 1
    assert seen > 100


def _play_counted(seed: int, counter: FairPlayCounter) -> None:
    from arena.engine.match import Match as EngineMatch
    from arena.game.selfplay import play_deal
    from arena.policies import RandomLegal

    game = random_game(random.Random(seed))
    deal = EngineMatch(game, seed=seed).next_deal()
    play_deal(deal, [RandomLegal(f"{seed}/{s}") for s in range(game.players)], counter)


_KNOWN = st.one_of(
    st.tuples(st.just("calls"), st.sampled_from(_CALLS)),
    st.tuples(st.just("plays"), st.sampled_from(_PLAYS)),
    st.tuples(st.just("places"), st.sampled_from(_PLACES)),
    st.tuples(st.just("tables"), st.integers(1, 10**7).map(str)),
)
_COUNTS = (
    st.tuples(st.integers(0, 2**40), st.integers(0, 2**40))
    .map(sorted)
    .map(lambda pair: [pair[1], pair[0]])
)


def _entries(strata_: st.SearchStrategy[tuple[str, str]]) -> st.SearchStrategy[dict]:
    key = st.tuples(strata_, st.integers(0, 2)).map(lambda k: (k[0][0], k[1], k[0][1]))
    return st.dictionaries(key, _COUNTS, max_size=300)


@given(_entries(_KNOWN))
def test_any_totals_come_back_as_they_went_in_and_pack_in_columns(entries: dict) -> None:
    packed = pack_pair(entries)
    assert packed[:1] == COLUMNS
    assert unpack_pair(packed) == entries
    shuffled = list(entries.items())
    random.Random(0).shuffle(shuffled)
    assert pack_pair(dict(shuffled)) == packed, "the same totals, the same bytes"


@given(_entries(st.one_of(_KNOWN, st.tuples(st.sampled_from(["calls", "odd"]), st.text()))))
def test_totals_with_a_situation_of_no_number_are_kept_as_json(entries: dict) -> None:
    packed = pack_pair(entries)
    unknown = any(strata.code(chance, stratum) is None for chance, _, stratum in entries)
    assert (packed == pack_json(entries)) is unknown or not entries
    assert unpack_pair(packed) == entries
    assert unpack_pair(pack_json(entries)) == entries


def test_a_pair_that_played_together_packs_in_half_the_bytes_of_json() -> None:
    rng = random.Random(1)
    entries = {}
    for _ in range(600):
        chance, stratum = rng.choice(
            [("calls", rng.choice(_CALLS)), ("plays", rng.choice(_PLAYS)),
             ("places", rng.choice(_PLACES)), ("tables", str(rng.randrange(3, 1000)))]
        )  # fmt: skip
        total = entries.setdefault((chance, rng.randrange(2), stratum), [0, 0])
        total[0] += 1
        total[1] += rng.random() < 0.3
    assert len(pack_pair(entries)) * 2 < len(pack_json(entries))


@given(_entries(_KNOWN), _entries(_KNOWN))
def test_totals_added_to_a_stored_row_are_stored_as_their_sum(held: dict, added: dict) -> None:
    """A fold adds to a pair's stored row in columns, never through the texts: the bytes
    are those of the sum packed, from a row in columns, in JSON, or none."""
    summed = {key: list(counts) for key, counts in held.items()}
    for key, (chances, taken) in added.items():
        total = summed.setdefault(key, [0, 0])
        total[0] += chances
        total[1] += taken
    assert add_to(pack_pair(held), added) == pack_pair(summed)
    assert add_to(pack_json(held), added) == pack_pair(summed)
    assert add_to(None, added) == pack_pair(added)


def test_a_situation_of_no_number_added_to_a_row_in_columns_keeps_it_as_json() -> None:
    held = {("calls", 0, "t1e7c2p0a2w1"): [3, 1], ("tables", 1, "397"): [2, 2]}
    added = {("calls", 0, "t1e7c2p0a2w1"): [1, 1], ("odd", 2, "x"): [1, 0]}
    stored = add_to(pack_pair(held), added)
    assert stored == pack_json(
        {**held, ("calls", 0, "t1e7c2p0a2w1"): [4, 2], ("odd", 2, "x"): [1, 0]}
    )
    assert unpack_pair(stored)[("calls", 0, "t1e7c2p0a2w1")] == [4, 2]
