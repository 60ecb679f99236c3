"""A/B tests of bot versions: pure statistics and pairing, no I/O (docs/abtest.md).

``sprt``: the pair-score classes, the generalized SPRT on them, the Elo estimate.
``pairing``: which table each pair of matches is played at.
"""
