"""No rotation of a duplicate deal learns anything from an earlier one, whatever the
sandbox: a spy in a real duplicate competition keeps each hand it is dealt every way
known (files wherever it may write, the page cache of a file every sandbox reads, the
host's counters) and finds nothing of them in the next rotation, which reads its own
copy of every file the sandbox shows. Once, on the page cache of a shared library, it
learnt 70 hands of 70 and ranked first."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from sqlalchemy import select

from arena.base.states import BotKind
from arena.engine import Ruleset
from arena.platform import Platform
from arena.platform import queue as work_queue
from arena.platform.settings import Settings
from arena.platform.submission import submit
from arena.store import competitions, ladder
from arena.store.models import BotVersion, MatchSeat, RegisteredBot, TournamentMatch
from tests.sandboxing import ATTACKS
from tests.support.cli import run_queued_jobs
from tests.support.store import add_samples

pytestmark = [pytest.mark.sandbox, pytest.mark.services, pytest.mark.processes, pytest.mark.slow]


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_duplicate_spy_learns_no_hand_from_an_earlier_rotation(
    settings: Settings, tmp_path: Path
) -> None:
    platform = Platform(settings)
    add_samples(platform.db, ["honest", "random"])
    platform.db.transaction(
        lambda s: competitions.create(
            s, "dup", Ruleset.parse("classic"), 3, tables=2, bot_names=["honest", "random"],
            format="duplicate-ladder", default=True,
        )
    )  # fmt: skip
    folder = tmp_path / "spy"
    folder.mkdir()
    shutil.copy(ATTACKS / "duplicate_spy.py", folder / "bot.py")
    shutil.copy(ATTACKS / "player.py", folder / "player.py")
    made = submit(platform, "spy", BotKind.PATH, str(folder))
    assert made.accepted, made.reason
    with platform.db.read() as session:
        ladder_id = competitions.get(session, "dup").tournament_id
    work_queue.enqueue_all(platform.queue, ladder.refill(platform.db, ladder_id))
    run_queued_jobs(platform)  # a sandboxed worker plays the queued rotations, then stops

    with platform.db.read() as session:
        rows = session.execute(
            select(TournamentMatch.deal_group, MatchSeat.output)
            .join(MatchSeat, MatchSeat.match_id == TournamentMatch.id)
            .join(BotVersion, BotVersion.id == MatchSeat.bot_version_id)
            .join(RegisteredBot, RegisteredBot.id == BotVersion.bot_id)
            .where(TournamentMatch.tournament_id == ladder_id, RegisteredBot.name == "spy")
        ).all()
    groups: dict[int, list[str]] = {}
    for group, output in rows:
        groups.setdefault(group, []).append(output or "")
    assert any(len(outputs) == 3 for outputs in groups.values()), "a deal's three rotations"
    outputs = [output for outputs in groups.values() for output in outputs]
    kept = [int(m) for o in outputs for m in re.findall(r"ATTACK kept: (\d+)", o)]
    assert kept and max(kept) >= 1, ("the spy kept its hands somewhere", outputs)
    found = [int(m) for o in outputs for m in re.findall(r"ATTACK found: (\d+)", o)]
    assert len(found) == len(outputs) and set(found) == {0}, outputs
    for outputs in groups.values():  # no page the rotations read is the same page
        copies = [re.findall(r"ATTACK runtime: (\d+)", output) for output in outputs]
        assert all(len(copy) == 1 for copy in copies), outputs
        assert len({copy[0] for copy in copies}) == len(outputs), copies
