"""The channel bench's arithmetic: its decoder finds the best split an attacker with a
preamble finds, and its capacity is the binary symmetric channel's."""

from __future__ import annotations

import pytest

from arena.bench import channels


def test_the_decoder_splits_readings_where_they_decode_best() -> None:
    bits = "0110100111"
    moves = [0, 3, 2, 0, 0, 1, 0, 4, 3, 2]  # a 1 lost (read 0), a 0 moved by noise (read 1)
    assert channels._decoded(moves, bits) == "0110000111"
    assert channels._decoded([5] * 4, "0101") in {"0000", "1111"}


@pytest.mark.parametrize(("errors", "entropy"), [(0.0, 0.0), (0.5, 1.0), (0.11, 0.4999)])
def test_capacity_is_the_rate_times_one_less_the_entropy_of_the_errors(
    errors: float, entropy: float
) -> None:
    assert channels.entropy(errors) == pytest.approx(entropy, abs=1e-3)
