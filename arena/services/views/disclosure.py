"""When a match's full log (its seed and every hand) becomes public.

Until then readers get a view without them (arena.referee.views); the rules are
in docs/match-log.md "When a log becomes public":

- every match's once its tournament is over;
- a duplicate match's once every rotation of its deal group is finished (the
  rotations share the deal, so an earlier one's hands would give the later ones away);
- a ladder match's ``reveal_delay`` seconds after it finished (a duplicate ladder's
  after its deal group's last rotation did);
- a qualification match's at once (dealt from a key of its own, used for no other deal);
- otherwise (round robin) at the end of the tournament.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arena.base.states import MatchStatus, TournamentStatus
from arena.store.models import Tournament, TournamentMatch, now
from arena.tournament import formats
from arena.tournament.formats.base import Reveal

#: a match in one of these is played (or never will be): its deal is no longer in play
FINISHED = (MatchStatus.DONE, MatchStatus.FAILED, MatchStatus.STALE)


@dataclass(frozen=True)
class Disclosure:
    public: bool
    #: why the full log is public, or when it will be
    reason: str
    #: when it will be, if that is known now (a ladder's match, played)
    due: datetime | None = None


def disclosure(
    session: Session, match: TournamentMatch, tournament: Tournament, moment: datetime | None = None
) -> Disclosure:
    if match.status is not MatchStatus.DONE:
        return Disclosure(False, "the match is not played")
    format = formats.named(tournament.format)
    reveal = format.reveal
    if reveal is Reveal.AT_ONCE:
        return Disclosure(True, f"a {format.label} match: its deal came from a key used once")
    if tournament.status is TournamentStatus.DONE:
        return Disclosure(True, "the tournament is over")
    if match.deal_group is not None and _group_unfinished(session, match):
        return Disclosure(False, "public once every rotation of its deal group is played")
    if reveal is Reveal.AFTER_A_DELAY:
        due = _last_finish(session, match) + timedelta(seconds=tournament.reveal_delay)
        if (moment or now()) >= due:
            return Disclosure(True, f"it finished over {tournament.reveal_delay} s ago")
        return Disclosure(False, f"public from {_minute_after(due)}", due)
    if match.deal_group is not None:
        return Disclosure(True, "every rotation of its deal group is played")
    return Disclosure(False, "public when the tournament is over")


def _minute_after(moment: datetime) -> str:
    """``moment`` as the site writes moments (``2026-12-04 22:12 UTC``), the minute
    rounded up: a reader told "public from" a minute never finds it still hidden."""
    whole = moment.replace(second=0, microsecond=0)
    if whole < moment:
        whole += timedelta(minutes=1)
    return f"{whole:%Y-%m-%d %H:%M} UTC"


def _group_unfinished(session: Session, match: TournamentMatch) -> bool:
    unfinished = session.scalar(
        select(func.count())
        .select_from(TournamentMatch)
        .where(
            TournamentMatch.tournament_id == match.tournament_id,
            TournamentMatch.deal_group == match.deal_group,
            TournamentMatch.status.not_in(FINISHED),
        )
    )
    return bool(unfinished)


def _last_finish(session: Session, match: TournamentMatch) -> datetime:
    """When the match finished; for a duplicate deal, when its last rotation did (an
    earlier rotation's log would show the later one's hands)."""
    assert match.finished_at is not None, "a played match has its finishing time"
    if match.deal_group is None:
        return match.finished_at
    last = session.scalar(
        select(func.max(TournamentMatch.finished_at)).where(
            TournamentMatch.tournament_id == match.tournament_id,
            TournamentMatch.deal_group == match.deal_group,
        )
    )
    return last or match.finished_at
