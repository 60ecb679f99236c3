"""The kinds and states the platform's records take: what a bot is, where a version,
a tournament, a match, a competition, an A/B test or a table stands. Plain words every
layer reads (the store keeps them as strings with a CHECK constraint)."""

from __future__ import annotations

from enum import StrEnum


class BotKind(StrEnum):
    ENDPOINT = "endpoint"  # a running bot at host:port
    SAMPLE = "sample"  # a sample bot, run inside the worker
    PATH = "path"  # an uploaded Python bot (stored as an artifact), run in a sandbox


class VersionStatus(StrEnum):
    PENDING = "pending"  # being qualified
    READY = "ready"  # qualified: may be scheduled
    REJECTED = "rejected"  # failed its qualification match (see reason)


class AfterQualifying(StrEnum):
    """What a submitted version does once it qualifies (arena.store.releases)."""

    LIVE = "live"  # it becomes the live version at once (the default)
    STAGE = "stage"  # it waits, qualified, for its owner to promote it
    #: an A/B test against the live version, which promotes it if it is accepted
    GATE = "gate"


class TournamentStatus(StrEnum):
    CREATED = "created"
    RUNNING = "running"
    DONE = "done"


class MatchStatus(StrEnum):
    PENDING = "pending"  # scheduled, not yet sent to the queue
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"  # infrastructure failures exhausted the attempts
    STALE = "stale"  # a seated bot version was replaced: discarded, not rated


class LogState(StrEnum):
    """Where a recorded match's log is once it left the database (None: still there)."""

    COLD = "cold"  # in the cold store, under arena.store.logs.cold_key
    DROPPED = "dropped"  # its competition's retention let it go


class CompetitionStatus(StrEnum):
    OPEN = "open"
    PAUSED = "paused"
    CLOSED = "closed"


class AbTestStatus(StrEnum):
    CREATED = "created"
    RUNNING = "running"
    ACCEPTED = "accepted"  # the new version is better (H1)
    REJECTED = "rejected"  # it is not (H0)
    STOPPED = "stopped"  # stopped before either
    CAPPED = "capped"  # the most matches allowed, undecided


class TableStatus(StrEnum):
    PLAYING = "playing"
    DONE = "done"
    #: the platform stopped while it was played (the site restarted): nobody's loss
    ABANDONED = "abandoned"


#: a match in one of these may still be played
OPEN_STATUSES = (MatchStatus.PENDING, MatchStatus.QUEUED, MatchStatus.RUNNING)


#: a test in one of these has its result kept: no match is queued for it any more
ABTEST_OVER = (
    AbTestStatus.ACCEPTED,
    AbTestStatus.REJECTED,
    AbTestStatus.STOPPED,
    AbTestStatus.CAPPED,
)
