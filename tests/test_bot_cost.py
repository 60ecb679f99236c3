"""Bots that are not the SDK's pay what the SDK's pay per match: a worker keeps its
streams to endpoints across matches and never waits on a bot's server to close one, so
a bot's cost per match does not depend on its gRPC stack (issue 13: a bot on the
synchronous ``grpc.server`` once took 770 ms per match for 15 ms of play)."""

from __future__ import annotations

import pytest

from arena.bench import pipeline

#: a bot's decisions per second may fall at most this far below the SDK bot's
WORST_RATIO = 1 / 1.5


@pytest.mark.slow
def test_third_party_and_node_bots_play_within_one_and_a_half_times_the_sdk_bots_cost() -> None:
    """The benchmark's own tournament: four SDK endpoints, four third-party endpoints (the
    standard synchronous ``grpc.server``, stubs generated from the proto), four Node
    sample bots; one worker, runs interleaved, the medians compared per decision (the
    three play differently, so their matches differ in length)."""
    pipeline.node_bot_installed()
    figures = pipeline.run(workers=1, matches=60, bots="endpoint,thirdparty,node", repeats=3)
    ratios = figures["decision_ratios"]  # the bots play differently: matches differ in length
    assert ratios["thirdparty"] >= WORST_RATIO, figures["kinds"]
    assert ratios["node"] >= WORST_RATIO, figures["kinds"]
