"""Server-rendered pages (Jinja2, autoescaped)."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, status
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup
from sqlalchemy.orm import Session

from arena.base.errors import Gone, Refused
from arena.base.states import MatchStatus
from arena.engine import Ruleset
from arena.sdk.languages import accepted
from arena.services import abtests as abtest_service
from arena.services import fairplay
from arena.services import teams as team_service
from arena.services.views import bots as bot_queries
from arena.services.views import charts
from arena.services.views import competitions as competition_queries
from arena.services.views import matches as match_queries
from arena.services.views import ranks as ranks_page
from arena.services.views import ratings as rating_queries
from arena.services.views import tournaments as tournament_queries
from arena.services.views.frames import EVERY_SEAT, deal_summaries, frames
from arena.services.views.visibility import tournament_named
from arena.tournament import pacing, ratings
from dashboard import workers
from dashboard.cache import until_disclosed
from dashboard.deps import PlatformDep, SessionDep

templates = Environment(
    loader=FileSystemLoader(Path(__file__).parent / "templates"),
    autoescape=select_autoescape(["html"]),
)
router = APIRouter(include_in_schema=False)


def render(name: str, **context: Any) -> HTMLResponse:
    return HTMLResponse(templates.get_template(name).render(**context))


def script_json(data: Any) -> Markup:
    """JSON safe inside a <script> element (no '</' can close it)."""
    return Markup(json.dumps(data).replace("</", "<\\/").replace("<!--", "<\\!--"))


templates.filters["script_json"] = script_json
#: the languages a bot may be uploaded in, for people ("Python, C++, …")
templates.globals["languages"] = accepted()
templates.filters["percent"] = lambda v: "-" if v is None else f"{v * 100:.0f}%"
#: a log odds ratio as the odds ratio people read
templates.filters["exp"] = math.exp


def when(moment: str | None) -> Markup:
    """A moment as every page writes it: ``2026-12-01 11:02 UTC`` in a ``<time>`` element
    that keeps the exact ISO value (the database keeps UTC)."""
    if not moment:
        return Markup("")
    shown = f"{moment[:16].replace('T', ' ')} UTC"
    return Markup('<time datetime="{}">{}</time>').format(moment, shown)


templates.filters["when"] = when


def ordinal(place: int) -> str:
    """A place as the site says it everywhere: 1st, 2nd, 3rd, 4th ... 11th, 12th."""
    ending = "th" if 10 <= place % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(place % 10, "th")
    return f"{place}{ending}"


templates.filters["ordinal"] = ordinal
#: a tournament's rules as people write them: ``classic``, ``classic(deals=3,jokers=2)``
templates.filters["rules"] = lambda rules: str(Ruleset.from_dict(rules))
#: how a ladder plays now, in words
templates.filters["pace"] = pacing.describe
#: a rating system's name as people read it ("trueskill" -> "TrueSkill")
templates.filters["rating_label"] = lambda name: ratings.named(name).label


def progress(tournament: Any) -> str:
    """A round robin's matches played of all, and those that failed; a ladder never
    ends: matches played (live.js writes the same)."""
    matches = tournament.matches
    if tournament.plays_until_stopped:
        return f"{matches.done} played"
    failed = f" ({matches.failed} failed)" if matches.failed else ""
    return f"{matches.done} / {matches.total}{failed}"


templates.filters["progress"] = progress


def state(tournament: Any) -> str:
    """A tournament's state in words: a ladder over was stopped (it never ends by itself:
    "done: 2 played" read as finished)."""
    if tournament.plays_until_stopped and tournament.status == "done":
        return "stopped"
    return str(tournament.status)


templates.filters["state"] = state


def _not_found(error: Refused) -> HTTPException:
    return HTTPException(status.HTTP_404_NOT_FOUND, str(error))


@router.get("/", response_class=HTMLResponse)
def home_page(session: SessionDep) -> HTMLResponse:
    """The competitions first (where bots are ranked), then the other tournaments."""
    listed = competition_queries.competition_rows(session)
    ladders = {name for row in listed for name in _seasons(session, row.name)}
    return render(
        "tournaments.html",
        competitions=listed,
        tournaments=[t for t in tournament_queries.tournaments(session) if t.name not in ladders],
    )


def _seasons(session: Session, name: str) -> list[str]:
    return competition_queries.season_names(session, name)


#: the first rank a leaderboard's page shows (ranks_page.PER_PAGE from it)
RanksFrom = Annotated[int, Query(ge=1, le=1_000_000, description="The first rank shown")]


@router.get("/competitions/{name}", response_class=HTMLResponse)
def competition_page(name: str, session: SessionDep, ranks_from: RanksFrom = 1) -> HTMLResponse:
    try:
        found = competition_queries.competition_page(session, name, ranks_from)
    except Refused as error:
        raise _not_found(error) from None
    return render("competition.html", c=found)


@router.get("/tournaments/{name}", response_class=HTMLResponse)
def tournament_page(name: str, session: SessionDep, ranks_from: RanksFrom = 1) -> Response:
    if name == tournament_queries.QUALIFICATION:  # no standings: its matches are the page
        return RedirectResponse(f"/matches?tournament={name}", status.HTTP_303_SEE_OTHER)
    try:
        found = tournament_queries.tournament_page(session, name, ranks_from)
    except Refused as error:
        raise _not_found(error) from None
    return render("tournament.html", t=found)


@router.get("/tournaments/{name}/leaderboard", response_class=HTMLResponse)
def tournament_leaderboard_rows(
    name: str, session: SessionDep, ranks_from: RanksFrom = 1
) -> HTMLResponse:
    """The leaderboard's rows from rank ``ranks_from``, as the fragment the live page
    swaps in (the same template as the page's own)."""
    try:
        leaderboard, _ = tournament_queries.leaderboard_page(session, name, ranks_from)
    except Refused as error:
        raise _not_found(error) from None
    return render("_leaderboard_rows.html", leaderboard=leaderboard)


#: series a reader hid in a chart's legend (the axes then span the others)
Hidden = Annotated[list[str] | None, Query(max_length=50)]
#: the width a chart is drawn for (its slot's, in CSS pixels): a phone gets a narrower
#: drawing whose text is not shrunk to unreadable
Width = Annotated[int, Query(ge=charts.MIN_WIDTH, le=charts.WIDTH)]


@router.get("/tournaments/{name}/chart", response_class=HTMLResponse)
def tournament_chart(
    name: str, session: SessionDep, hidden: Hidden = None, width: Width = charts.WIDTH
) -> HTMLResponse:
    """The leaders' rating chart, as a fragment the tournament page loads after itself
    (the leaderboard shows at once; the chart follows, and follows live updates)."""
    return _chart_fragment(
        session,
        lambda: rating_queries.leaders_ratings(session, name),
        name,
        hidden,
        width,
        label=f"ratings of the leaders of {name}",
        id="tournament-chart",
    )


@router.get("/bots/{name}/chart", response_class=HTMLResponse)
def bot_chart(
    name: str,
    tournament: str,
    session: SessionDep,
    hidden: Hidden = None,
    width: Width = charts.WIDTH,
) -> HTMLResponse:
    """A bot's versions' ratings in one tournament, as a fragment of its page."""
    return _chart_fragment(
        session,
        lambda: bot_queries.bot_chart(session, name, tournament),
        tournament,
        hidden,
        width,
        label=f"rating of {name} in {tournament}",
    )


def _chart_fragment(
    session: Session,
    history: Callable[[], dict[str, list[dict[str, Any]]]],
    tournament: str,
    hidden: list[str] | None,
    width: int,
    **names: str,
) -> HTMLResponse:
    try:
        histories = history()
        duplicate = tournament_named(session, tournament).duplicate
    except Refused as error:
        raise _not_found(error) from None
    chart = rating_chart(histories, hidden, width)
    return render("_chart_fragment.html", chart=chart, duplicate=duplicate, **{"id": "", **names})


@router.get("/tournaments/{name}/fairplay", response_class=HTMLResponse)
def fairplay_page(name: str, platform: PlatformDep) -> HTMLResponse:
    try:
        with platform.db.read() as session:
            tournament_named(session, name)
        found = fairplay.report(platform.db, name)
    except Refused as error:
        raise _not_found(error) from None
    return render("fairplay.html", r=found)


@router.get("/abtests", response_class=HTMLResponse)
def abtests_page(session: SessionDep) -> HTMLResponse:
    return render("abtests.html", tests=abtest_service.listing(session))


@router.get("/abtests/{name}", response_class=HTMLResponse)
def abtest_page(name: str, session: SessionDep) -> HTMLResponse:
    try:
        found = abtest_service.status(session, name)
    except Refused as error:
        raise _not_found(error) from None
    return render("abtest.html", a=found, c=charts.llr_chart(found.history, found.bounds))


@router.get("/bots/{name}", response_class=HTMLResponse)
def bot_page(name: str, session: SessionDep) -> HTMLResponse:
    try:
        bot = bot_queries.bot(session, name)
    except Refused as error:
        raise _not_found(error) from None
    return render(
        "bot.html",
        bot=bot,
        charts={t: rating_chart(history) for t, history in bot.ratings.items()},
        duplicates=bot_queries.duplicate_tournaments(session, list(bot.ratings)),
        unreachable_streak=bot_queries.UNREACHABLE_STREAK,
        abtests=abtest_service.of_bot(session, name),
    )


@router.get("/teams/{name}", response_class=HTMLResponse)
def team_page(name: str, session: SessionDep) -> HTMLResponse:
    """A team's members, bots and their standings in the default competition."""
    try:
        team = team_service.show(session, name)
    except Refused as error:
        raise _not_found(error) from None
    return render(
        "team.html",
        team=team,
        standing=bot_queries.standing_by_bot(session),
        competition=competition_queries.default_name(session),
    )


@router.get("/leaderboard", response_class=HTMLResponse)
def leaderboard_page(session: SessionDep, ranks_from: RanksFrom = 1) -> HTMLResponse:
    rows, ranks = ranks_page.page_of(bot_queries.global_leaderboard(session), ranks_from)
    return render(
        "leaderboard.html",
        rows=rows,
        ranks=ranks,
        competition=competition_queries.default_name(session),
    )


@router.get("/bots", response_class=HTMLResponse)
def bots_page(session: SessionDep) -> HTMLResponse:
    """Every bot with its team and its standing in the default competition."""
    standing = bot_queries.standing_by_bot(session)
    return render("bots.html", bots=bot_queries.bots(session), standing=standing)


@router.get("/matches", response_class=HTMLResponse)
def matches_page(
    session: SessionDep,
    tournament: str | None = None,
    bot: str | None = None,
    status_: Annotated[str | None, Query(alias="status")] = None,
    page: Annotated[int, Query(ge=1, le=100_000)] = 1,
    before: Annotated[int | None, Query(ge=1, le=2**31 - 1)] = None,
) -> HTMLResponse:
    try:
        found = match_queries.matches(
            session, tournament or None, bot or None, status_ or None, page, before=before
        )
    except Refused as error:
        raise HTTPException(status.HTTP_400_BAD_REQUEST, str(error)) from None
    return render(
        "matches.html",
        page=found,
        filters={
            "tournament": tournament or "",
            "bot": bot or "",
            "status": status_ or "",
            "before": before,
        },  # fmt: skip
        statuses=[s.value for s in MatchStatus],
    )


@router.get("/matches/{match_id}", response_class=HTMLResponse)
def match_page(
    match_id: Annotated[int, Path(ge=1, le=2**63 - 1)], session: SessionDep
) -> HTMLResponse:
    dropped = None  # its competition's retention dropped its log: the result stays
    try:
        match = match_queries.match(session, match_id)
        log, shown = (
            match_queries.match_log(session, match_id) if match.status == "done" else (None, None)
        )
    except Gone as gone:
        log, shown, dropped = None, None, str(gone)
    except Refused as error:
        raise _not_found(error) from None
    names = [f"{s.bot} v{s.version}" for s in match.seats]
    replay = frames(log, EVERY_SEAT if shown.public else frozenset()) if log and shown else []
    page = render(
        "match.html",
        match=match,
        names=names,
        frames=replay,
        deals=deal_summaries(replay, names),
        disclosure=shown,
        dropped=dropped,
    )
    if shown is not None:  # played: the page changes when its log is disclosed, only
        page.headers.update(until_disclosed(shown))
    return page


@router.get("/owner", response_class=HTMLResponse)
def owner_page() -> HTMLResponse:
    """An owner's own page: everything on it comes from the API, signed in by the
    browser's session or the owner's token."""
    return render("owner.html")


@router.get("/signup", response_class=HTMLResponse)
def sign_up_page() -> HTMLResponse:
    """A new account (the form posts to the API: arena.services.accounts)."""
    return render("sign.html", title="Sign up", action="sign-up")


@router.get("/signin", response_class=HTMLResponse)
def sign_in_page(platform: PlatformDep) -> HTMLResponse:
    """A name and password, or the OpenID Connect provider the operator set."""
    provider = platform.settings.oidc
    return render("sign.html", title="Sign in", action="sign-in", provider=provider)


@router.get("/account", response_class=HTMLResponse)
def account_page() -> HTMLResponse:
    """The account's API tokens and password, on the browser's session."""
    return render("account.html")


@router.get("/admin", response_class=HTMLResponse)
def admin_page() -> HTMLResponse:
    """The operator's console: everything on it comes from the admin API, which refuses
    anybody but the operator."""
    return render("admin.html")


@router.get("/workers", response_class=HTMLResponse)
def workers_page(platform: PlatformDep) -> HTMLResponse:
    return render("workers.html", info=workers.info(platform))


def rating_chart(
    history: dict[str, list[dict[str, Any]]],
    hidden: list[str] | None = None,
    width: int = charts.WIDTH,
) -> dict[str, Any]:
    """One chart of several versions' ratings (arena.services.views.charts)."""
    series = [charts.Series(label, points) for label, points in history.items()]
    return charts.chart(series, width=width, hidden=frozenset(hidden or ()))
