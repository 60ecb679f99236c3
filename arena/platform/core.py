"""The platform's services from one place: settings, the migrated database, the queue.

The CLI, ``arena up`` and the dashboard use this; workers use ``worker.jobs``.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from redis.exceptions import RedisError
from rq import Queue

from arena.base.people import Someone
from arena.platform import queue as work_queue
from arena.platform.errors import PlatformError
from arena.platform.extensions import load_formats
from arena.platform.settings import Settings
from arena.services import rights
from arena.store import tournaments
from arena.store.cache import ArtifactCache
from arena.store.cold import ColdStore
from arena.store.db import Database, shown_url
from arena.store.schema import is_empty, upgrade

if TYPE_CHECKING:
    from arena.services.abtests import AbTestState
    from arena.services.tournaments import TournamentState


class NoPlatform(PlatformError):
    """No platform in the database the settings name, and none was to be created."""


class Platform:
    def __init__(self, settings: Settings | None = None, *, create: bool = True) -> None:
        """The platform the settings name, its database migrated to the current schema;
        with ``create`` False, refuse (``NoPlatform``) a database that holds none yet
        rather than make an empty one."""
        self.settings = settings or Settings.from_env()
        load_formats(self.settings)
        if not create and is_empty(self.settings.database_url):
            raise NoPlatform(no_platform_here(self.settings))
        cold = ColdStore(self.settings.cold_store_url(), self.settings.cold_store_options)
        self.db = Database(self.settings.database_url, cold)
        upgrade(self.db)

    @cached_property
    def artifacts(self) -> ArtifactCache:
        """Uploaded bots' archives: in the database, unpacked on this host on first use."""
        return ArtifactCache(self.settings.data_dir / "artifacts", self.db)

    @cached_property
    def queue(self) -> Queue:
        if not self.settings.redis_url:
            raise PlatformError(
                "REDIS_URL is not set: point it at a Redis server (arena up starts a private one)"
            )
        return work_queue.match_queue(
            work_queue.connect(self.settings.redis_url), self.settings.queue_name
        )

    def start_tournament(self, name: str, owner: Someone | None = None) -> int:
        """Queue the tournament's pending matches (as ``owner``: only its creator may;
        None: the operator); return how many were sent."""
        with self.db.read() as session:
            # NotFound or Forbidden before any word about Redis
            rights.check_may_run(owner, tournaments.get(session, name))
        workers = work_queue.workers_listening(self.queue)
        jobs = self.db.transaction(lambda session: tournaments.start(session, name, workers))
        work_queue.enqueue_all(self.queue, jobs)
        return len(jobs)

    def workers_running(self) -> bool:
        """Whether a worker listens on the queue now (False without a Redis, or when it
        is away)."""
        if not self.settings.redis_url:
            return False
        try:
            return work_queue.workers_listening(self.queue) > 0
        except (RedisError, OSError):
            return False

    def send(self, jobs: list[tuple[int, str]]) -> bool:
        """Send matches the store queued to the queue (they wait there for a worker);
        False (nothing sent) without a Redis or when it is away: the reconciler of the
        next worker sends them."""
        if not jobs or not self.settings.redis_url:
            return False
        try:
            work_queue.enqueue_all(self.queue, jobs)
        except (RedisError, OSError):  # Redis went away: the reconciler sends them later
            return False
        return True

    def start_abtest(self, name: str, owner: Someone | None = None) -> int:
        """Queue an A/B test's first pairs; return how many matches were sent."""
        from arena.services import abtests

        with self.db.read() as session:
            abtests.get(session, name)  # NotFound before any word about Redis
        self.queue  # noqa: B018 - no Redis: say so before the test is marked running
        jobs = self.db.transaction(lambda session: abtests.start_in(session, name, owner))
        work_queue.enqueue_all(self.queue, jobs)
        return len(jobs)

    def abtest_status(self, name: str) -> AbTestState:
        from arena.services import abtests as abtest_service

        with self.db.read() as session:
            return abtest_service.status(session, name)

    def tournament_status(self, name: str) -> TournamentState:
        from arena.services import tournaments as tournament_service

        with self.db.read() as session:
            return tournament_service.status(session, name)


def no_platform_here(settings: Settings) -> str:
    """Why a command found no platform, and where it looked."""
    return (
        f"no platform here: the database {shown_url(settings.database_url)} (data dir "
        f"{settings.data_dir}) holds none. Start one with `arena up` (or `make up`), point "
        "ARENA_DATA_DIR or ARENA_DATABASE_URL at the platform's, or make an empty one "
        "with `arena db upgrade`"
    )
