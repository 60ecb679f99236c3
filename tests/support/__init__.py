"""Helpers shared by the test modules, one module per part of the platform they drive:
``engine`` (random rulesets, rule-breaking drivers, bots served over gRPC), ``services``
(the Redis and PostgreSQL the tests use), ``store`` (sample bots, tournaments, playing a
claimed match), ``workers`` (waiting for and checking tournaments played by workers),
``cli`` (running ``arena`` commands), ``api`` (a tournament played through the API) and
``waiting`` (waits on other processes that only a hang fails).
Test modules import from here, never from each other."""
