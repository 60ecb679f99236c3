"""Which copy of the runtime each sandboxed seat of a table runs on (``choose_copies``):
never two seats of one table on one copy, and a bot's warm process kept wherever the bot
is seated."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given
from hypothesis import strategies as st

from arena.platform.sandbox import runtime
from worker.seats import CopiesOf, choose_copies
from worker.warm import WarmPolicy, WarmSandboxes

TABLE = runtime.table_copies(None, 4)


def warm_on(held: dict[str, list[int]]) -> CopiesOf:
    """``warm_copies`` (or ``held_copies``) of a worker whose bots have processes that
    take another seat on ``held``'s copies."""

    def warm_copies(key: str, free: Sequence[int]) -> list[int]:
        return [copy for copy in held.get(key, []) if copy in free]

    return warm_copies


def seat(keys: dict[int, str], table: Sequence[int], held: dict[str, list[int]]) -> dict[int, int]:
    """The copies of ``keys``'s seats where every process held takes another seat."""
    return choose_copies(keys, table, warm_on(held), warm_on(held))


def test_with_nothing_warm_the_seats_take_copies_in_seat_order() -> None:
    keys = {0: "a", 1: "b", 3: "c"}  # seat 2 is in no sandbox (a sample or an endpoint)
    assert seat(keys, TABLE, {}) == {0: 0, 1: 1, 3: 2}


def test_a_bot_seated_elsewhere_keeps_its_warm_copy() -> None:
    held = {"a": [0], "b": [1], "c": [2], "d": [3]}
    keys = {0: "d", 1: "c", 2: "b", 3: "a"}  # the same bots, the other way round
    assert seat(keys, TABLE, held) == {0: 3, 1: 2, 2: 1, 3: 0}


def test_a_copy_two_bots_are_warm_on_goes_to_one_and_the_other_takes_a_free_one() -> None:
    held = {"a": [1], "b": [1], "c": [0]}
    chosen = seat({0: "a", 1: "b", 2: "c"}, TABLE, held)
    # c keeps copy 0 although it sits last; b, not warm elsewhere, takes the lowest free
    assert chosen == {0: 1, 1: 2, 2: 0}


def test_a_duplicate_deals_rotation_stays_on_its_own_copies() -> None:
    rotation = runtime.table_copies(1, 3)
    held = {"a": [0, rotation[2]], "b": [5]}  # b is warm only on a copy of other tables
    chosen = seat({0: "a", 1: "b", 2: "c"}, rotation, held)
    assert chosen == {0: rotation[2], 1: rotation[0], 2: rotation[1]}
    assert set(rotation).isdisjoint(runtime.table_copies(0, 3))
    assert set(rotation).isdisjoint(TABLE) and set(TABLE) == set(range(runtime.SEAT_COPIES))


def test_a_bot_whose_processes_are_full_starts_one_more_on_its_own_copy() -> None:
    """``c`` and ``a`` have no free seat (on copies 2 and 0): each starts its next process
    on its own copy, though seat order alone would give ``c`` copy 0, ``a``'s."""
    warm = {"b": [1], "d": [3]}
    held = {"a": [0], "b": [1], "c": [2], "d": [3]}
    keys = {0: "c", 1: "b", 2: "a", 3: "d"}
    assert choose_copies(keys, TABLE, warm_on(warm), warm_on(held)) == {0: 2, 1: 1, 2: 0, 3: 3}


def test_a_new_bot_starts_on_a_copy_no_bot_of_its_table_holds() -> None:
    held = {"a": [0], "b": [1]}
    keys = {0: "new", 1: "a", 2: "b"}  # a and b are full: they keep their copies
    assert choose_copies(keys, TABLE, warm_on({}), warm_on(held)) == {0: 2, 1: 0, 2: 1}


@given(
    st.integers(min_value=2, max_value=12),
    st.one_of(st.none(), st.integers(min_value=0, max_value=11)),
    st.dictionaries(
        st.sampled_from("abcdef"), st.lists(st.integers(min_value=0, max_value=200), max_size=6)
    ),
    st.data(),
)
def test_the_seats_of_a_table_never_share_a_copy(
    players: int, rotation: int | None, held: dict[str, list[int]], data: st.DataObject
) -> None:
    table = runtime.table_copies(rotation, players)
    seated = data.draw(st.lists(st.booleans(), min_size=players, max_size=players))
    bots = data.draw(st.lists(st.sampled_from("abcdef"), min_size=players, max_size=players))
    keys = {
        index: bot for index, (bot, boxed) in enumerate(zip(bots, seated, strict=True)) if boxed
    }
    full = data.draw(st.dictionaries(st.sampled_from("abcdef"), st.lists(st.integers(0, 200))))
    chosen = choose_copies(keys, table, warm_on(held), warm_on(full))
    assert set(chosen) == set(keys)
    assert len(set(chosen.values())) == len(chosen)
    assert set(chosen.values()) <= set(table)


def test_a_copy_chosen_for_a_process_still_starting_counts_as_its_bots() -> None:
    """Between a table's choice and its seat's lease (its process may take a while to
    start), the chosen copy is the bot's for the tables choosing meanwhile, up to a
    process's seats; a seat that will not lease after all gives its promise back."""
    sandboxes = WarmSandboxes(policy=WarmPolicy(max_seats=2))
    assert sandboxes.warm_copies("a", TABLE) == [] and sandboxes.held_copies("a", TABLE) == []
    sandboxes.promise("a", 3)
    assert sandboxes.warm_copies("a", TABLE) == [3] and sandboxes.held_copies("a", TABLE) == [3]
    assert sandboxes.warm_copies("b", TABLE) == []
    sandboxes.promise("a", 3)  # its process's two seats are promised
    assert sandboxes.warm_copies("a", TABLE) == [] and sandboxes.held_copies("a", TABLE) == [3]
    sandboxes.unpromise("a", 3)
    sandboxes.unpromise("a", 3)
    assert sandboxes.held_copies("a", TABLE) == []
