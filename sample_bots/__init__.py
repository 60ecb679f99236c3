"""Sample bots, each runnable as its own process: ``python -m sample_bots.NAME --port P``.

Each is an SDK :class:`~arena.sdk.Bot`; in process, ``SAMPLES[name](ruleset=..., players=...,
seed=...)`` builds one that works as a policy too.
"""

from __future__ import annotations

from sample_bots.bluffer import BlufferBot
from sample_bots.counter import CounterBot
from sample_bots.honest import HonestBot
from sample_bots.random import RandomBot

SAMPLES = {"random": RandomBot, "honest": HonestBot, "counter": CounterBot, "bluffer": BlufferBot}
