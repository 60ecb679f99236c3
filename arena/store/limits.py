"""What an owner may ask of the platform: the limits of private tournaments and of
submissions (the operator sets them: arena/platform/settings.py; arena.services.rights
enforces them)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PrivateLimits:
    """What one owner's private tournaments may ask for."""

    games: int = 200
    tables: int = 2
    #: seconds a decision; never more than the default competition's (rights)
    deadline: float = 5.0
    running: int = 3
    #: matches one A/B test may play
    abtest_matches: int = 4000


@dataclass(frozen=True)
class SubmissionRate:
    """How many versions one owner may submit in an hour."""

    per_hour: int = 12
