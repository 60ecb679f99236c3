"""Golden playthroughs: a whole match between seeded policies written out as text, every
decision with what was legal and what happened. A file per game setting is kept under
``tests/golden/``; the test plays each again and compares, so any change in the
engine's behaviour shows as a diff (OpenSpiel keeps one per game for the same reason).

``python -m arena.game.playthrough tests/golden`` writes the files again after an intended
change (review the diff before committing it).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from arena.engine import Game, Ruleset
from arena.engine.events import event_to_dict
from arena.engine.match import Match
from arena.policies import RandomLegal


@dataclass(frozen=True)
class Setting:
    """One golden match: rules, seats and the seed its deals and policies come from."""

    name: str
    preset: str
    options: dict[str, object]
    players: int
    seed: str

    def ruleset(self) -> Ruleset:
        return Ruleset.parse(self.preset, self.options)


SETTINGS = (
    Setting("classic-4p", "classic", {}, 4, "golden-classic"),
    Setting("classic-2p-3deals", "classic", {"deals": 3}, 2, "golden-deals"),
    Setting("pagat-3p", "pagat", {}, 3, "golden-pagat"),
    Setting("russian-5p-jokers", "russian", {"jokers": 2}, 5, "golden-russian"),
)


def playthrough(setting: Setting) -> str:
    """The text of ``setting``'s match: deals, hands as dealt, each decision (seat,
    legal actions, action) with the events it caused, and the result."""
    ruleset = setting.ruleset()
    game = Game(ruleset, setting.players)
    match = Match(game, setting.seed)
    policies = [RandomLegal(f"{setting.seed}/{seat}") for seat in range(setting.players)]
    lines = [
        f"# {setting.name}: {json.dumps(ruleset.to_dict(), sort_keys=True)}, "
        f"{setting.players} players, seed {setting.seed!r}, random legal policies"
    ]
    while not match.over:
        deal = match.next_deal()
        lines.append(f"deal {len(match.results) + 1}, dealer {deal.dealer}")
        lines.extend(f"  hand {seat}: {' '.join(hand)}" for seat, hand in enumerate(deal.dealt))
        seen = _events(lines, deal, 0)
        while deal.to_act is not None:
            seat = deal.to_act
            legal = deal.legal(seat)
            action = policies[seat].act(deal.observation(seat))
            lines.append(f"seat {seat} may {_legal(legal)}: {action}")
            deal.apply(seat, action)
            seen = _events(lines, deal, seen)
        lines.append(f"  ranking {[list(group) for group in deal.ranking or ()]}")
        match.record(deal)
    lines.append(f"result: ranking {[list(g) for g in match.ranking()]}, losses {match.losses}")
    return "\n".join(lines) + "\n"


def _legal(legal) -> str:
    kinds = ",".join(legal.kinds)
    if legal.play is None:
        return kinds
    spec = legal.play
    ranks = "".join(spec.ranks)
    return f"{kinds} (ranks {ranks}, up to {spec.max_cards} cards, count <= {spec.max_count})"


def _events(lines: list[str], deal, start: int) -> int:
    for event in deal.events[start:]:
        lines.append(f"  {json.dumps(event_to_dict(event), sort_keys=True)}")
    return len(deal.events)


def write(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for setting in SETTINGS:
        path = folder / f"{setting.name}.txt"
        path.write_text(playthrough(setting))
        written.append(path)
    return written


if __name__ == "__main__":
    for path in write(Path(sys.argv[1] if len(sys.argv) > 1 else "tests/golden")):
        print(f"wrote {path}")
