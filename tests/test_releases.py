"""The owner chooses which version plays: staged versions, promotions, rollbacks, and
gates that promote a version when its A/B test accepts it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select

from arena.base.errors import Forbidden, Invalid
from arena.base.states import AfterQualifying, BotKind
from arena.engine import Ruleset
from arena.platform import Platform
from arena.platform.settings import Settings
from arena.platform.submission import Submission, submit
from arena.services import abtests as abtest_service
from arena.services import releases as release_service
from arena.services.views import bots as bot_queries
from arena.store import abtests, competitions
from arena.store.models import AbTest, BotVersion, Entry, Owner, RegisteredBot
from arena.store.owners import add_owner
from tests.support.store import SAMPLES, add_samples, play_abtest

#: the store's contract: on SQLite and PostgreSQL alike
pytestmark = pytest.mark.both_databases


@pytest.fixture
def arena(database_url: str, tmp_path: Path) -> Iterator[Platform]:
    """A platform without Redis: qualification matches are played here, in process."""
    platform = Platform(Settings(tmp_path, database_url, None))
    add_samples(platform.db)
    platform.db.transaction(
        lambda s: competitions.create(
            s, "main", Ruleset.parse("classic"), 4, tables=2, bot_names=SAMPLES, default=True
        )
    )
    yield platform
    platform.db.dispose()


def owner(arena: Platform, name: str) -> int:
    made, _ = arena.db.transaction(lambda s: add_owner(s, name))
    return made.id


def version(
    arena: Platform,
    owner_id: int,
    sample: str,
    after: AfterQualifying = AfterQualifying.LIVE,
    name: str = "mine",
) -> Submission:
    """A version of ``name`` that plays as the sample bot ``sample``, qualified here."""
    made = submit(arena, name, BotKind.SAMPLE, sample, owner_id, after=after)
    assert made.status == "ready", made.reason
    return made


def states(arena: Platform, name: str = "mine") -> dict[int, tuple[bool, bool | None]]:
    """Each version: (live, its entry in main retired; None without an entry)."""
    with arena.db.read() as s:
        main = competitions.get(s, "main").tournament_id
        bot = s.scalars(select(RegisteredBot).where(RegisteredBot.name == name)).one()
        retired = dict(
            s.execute(
                select(Entry.bot_version_id, Entry.retired).where(Entry.tournament_id == main)
            ).all()
        )
        return {v.number: (v.active, retired.get(v.id)) for v in bot.versions}


def as_owner(arena: Platform, owner_id: int | None, change) -> tuple[int, list[str]]:
    def run(session) -> tuple[int, list[str]]:
        who = session.get(Owner, owner_id) if owner_id is not None else None
        promoted, playing = change(session, who)
        return promoted.number, playing

    return arena.db.transaction(run)


def test_a_staged_version_waits_until_promoted_and_a_rollback_restores_the_rating(
    arena: Platform,
) -> None:
    alice, bob = owner(arena, "alice"), owner(arena, "bob")
    version(arena, alice, "random")
    staged = version(arena, alice, "counter", AfterQualifying.STAGE)
    assert "staged: arena bot promote mine:2 makes it live" in staged.reason
    assert states(arena) == {1: (True, False), 2: (False, None)}, "v1 plays on; v2 is unseated"

    def rate_v1(session) -> None:
        entry = session.scalars(select(Entry).join(BotVersion).where(BotVersion.number == 1)).all()
        for e in entry:
            if e.version.bot.name == "mine":
                e.mu, e.games = 31.5, 40

    arena.db.transaction(rate_v1)
    with pytest.raises(Forbidden, match="not a bot of your teams"):
        as_owner(arena, bob, lambda s, who: release_service.promote_in(s, "mine:latest", who))
    number, playing = as_owner(
        arena, alice, lambda s, who: release_service.promote_in(s, "mine:latest", who)
    )
    assert (number, playing) == (2, ["main"])
    assert states(arena) == {1: (False, True), 2: (True, False)}

    number, _ = as_owner(arena, alice, lambda s, who: release_service.rollback_in(s, "mine", who))
    assert number == 1 and states(arena) == {1: (True, False), 2: (False, True)}
    with arena.db.read() as s:
        back = s.scalars(select(Entry).join(BotVersion).where(BotVersion.number == 1)).all()
        assert any(e.mu == 31.5 and e.games == 40 for e in back), "its rating is kept"
        versions = {v.number: v for v in s.scalars(select(BotVersion))}
        assert versions[1].live_since > versions[2].live_since


def test_versions_are_named_by_what_they_are_whatever_a_rejection_did_to_the_numbers(
    arena: Platform,
) -> None:
    alice = owner(arena, "alice")
    version(arena, alice, "random")
    arena.db.transaction(lambda s: _reject_a_version(s, "mine"))  # v2, as a crash would
    version(arena, alice, "counter", AfterQualifying.STAGE)  # v3
    with arena.db.read() as s:
        assert release_service.find(s, "mine:live").number == 1
        assert release_service.find(s, "mine").number == 1
        assert release_service.find(s, "mine:latest").number == 3
        assert release_service.find(s, "sample:counter").bot.name == "counter"
        with pytest.raises(Invalid, match="never qualified"):
            release_service.qualified(s, "mine:2")
        with pytest.raises(Invalid, match="the version is a number, 'live' or 'latest'"):
            release_service.find(s, "mine:newest")
        with pytest.raises(Invalid, match=r"has no version 9 \(it has: v1 ready \(live\)"):
            release_service.find(s, "mine:9")
    with pytest.raises(Invalid, match="has no earlier live version"):
        as_owner(arena, alice, lambda s, who: release_service.rollback_in(s, "mine", who))


def _reject_a_version(session, name: str) -> None:
    from arena.base.states import VersionStatus

    bot = session.scalars(select(RegisteredBot).where(RegisteredBot.name == name)).one()
    session.add(
        BotVersion(
            bot=bot,
            number=len(bot.versions) + 1,
            kind=BotKind.SAMPLE,
            target="random",
            active=False,
            status=VersionStatus.REJECTED,
            reason="crashed",
        )
    )


def gate_of(arena: Platform, number: int) -> AbTest:
    with arena.db.read() as s:
        test = s.scalars(
            select(AbTest)
            .join(BotVersion, BotVersion.id == AbTest.new_version_id)
            .where(BotVersion.number == number, AbTest.promote.is_(True))
        ).one()
        s.expunge(test)
        return test


def test_a_gate_makes_a_better_version_live_when_its_abtest_accepts(arena: Platform) -> None:
    alice = owner(arena, "alice")
    version(arena, alice, "random")
    gated = version(arena, alice, "counter", AfterQualifying.GATE)
    assert "A/B test mine-v2-gate against v1 makes it live if it is better" in gated.reason
    assert len(gated.jobs) == 2 * abtests.DEFAULT_BATCH, "its first pairs are queued"
    assert states(arena) == {1: (True, False), 2: (False, None)}
    test = gate_of(arena, 2)
    play_abtest(arena.db, test.tournament_id)
    with arena.db.read() as s:
        status = abtest_service.status(s, test.name)
    assert status.status == "accepted" and status.promote
    assert status.outcome.endswith("it went live")
    assert states(arena) == {1: (False, True), 2: (True, False)}


def test_a_gate_leaves_a_worse_version_staged(arena: Platform) -> None:
    alice = owner(arena, "alice")
    version(arena, alice, "counter")
    version(arena, alice, "random", AfterQualifying.GATE)
    play_abtest(arena.db, gate_of(arena, 2).tournament_id)
    with arena.db.read() as s:
        assert abtest_service.status(s, "mine-v2-gate").status == "rejected"
        staged = bot_queries.bot(s, "mine").versions[1]  # what /owner reads of it
    assert states(arena) == {1: (True, False), 2: (False, None)}
    assert (staged.state, staged.gate, staged.gate_status) == ("staged", "mine-v2-gate", "rejected")


def test_a_first_version_gated_has_nothing_to_beat_and_goes_live(arena: Platform) -> None:
    alice = owner(arena, "alice")
    first = version(arena, alice, "counter", AfterQualifying.GATE)
    assert "no live version to beat: live at once; now playing in main" in first.reason
    assert states(arena) == {1: (True, False)}
