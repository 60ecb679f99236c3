"""Which copy of the runtime each sandboxed seat of a table runs on (``choose_copies``):
never two seats of one table on one copy, and a bot's warm process kept wherever the bot
is seated."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from hypothesis import given
from hypothesis import strategies as st

from arena.platform.sandbox import runtime
from worker.seats import choose_copies

TABLE = runtime.table_copies(None, 4)


def warm_on(held: dict[str, list[int]]) -> Callable[[str, Sequence[int]], list[int]]:
    """``warm_copies`` of a worker whose bots have warm processes on ``held``'s copies."""

    def warm_copies(key: str, free: Sequence[int]) -> list[int]:
        return [copy for copy in held.get(key, []) if copy in free]

    return warm_copies


def test_with_nothing_warm_the_seats_take_copies_in_seat_order() -> None:
    keys = {0: "a", 1: "b", 3: "c"}  # seat 2 is in no sandbox (a sample or an endpoint)
    assert choose_copies(keys, TABLE, warm_on({})) == {0: 0, 1: 1, 3: 2}


def test_a_bot_seated_elsewhere_keeps_its_warm_copy() -> None:
    held = {"a": [0], "b": [1], "c": [2], "d": [3]}
    keys = {0: "d", 1: "c", 2: "b", 3: "a"}  # the same bots, the other way round
    assert choose_copies(keys, TABLE, warm_on(held)) == {0: 3, 1: 2, 2: 1, 3: 0}


def test_a_copy_two_bots_are_warm_on_goes_to_one_and_the_other_takes_a_free_one() -> None:
    held = {"a": [1], "b": [1], "c": [0]}
    chosen = choose_copies({0: "a", 1: "b", 2: "c"}, TABLE, warm_on(held))
    # c keeps copy 0 although it sits last; b, not warm elsewhere, takes the lowest free
    assert chosen == {0: 1, 1: 2, 2: 0}


def test_a_duplicate_deals_rotation_stays_on_its_own_copies() -> None:
    rotation = runtime.table_copies(1, 3)
    held = {"a": [0, rotation[2]], "b": [5]}  # b is warm only on a copy of other tables
    chosen = choose_copies({0: "a", 1: "b", 2: "c"}, rotation, warm_on(held))
    assert chosen == {0: rotation[2], 1: rotation[0], 2: rotation[1]}
    assert set(rotation).isdisjoint(runtime.table_copies(0, 3))
    assert set(rotation).isdisjoint(TABLE) and set(TABLE) == set(range(runtime.SEAT_COPIES))


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
    chosen = choose_copies(keys, table, warm_on(held))
    assert set(chosen) == set(keys)
    assert len(set(chosen.values())) == len(chosen)
    assert set(chosen.values()) <= set(table)
