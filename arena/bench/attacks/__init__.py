"""Bots that attack the sandbox, run by the benchmarks that measure what they can do
(``arena bench channels``); the tests' attacks are in ``tests/sandbox_bots/attacks``."""
