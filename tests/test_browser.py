"""End to end in a real headless Chromium (Debian's package, driven by Playwright)."""

from __future__ import annotations

import concurrent.futures
import json
import re
import shutil
import socket
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from urllib.parse import quote

import pytest
import redis
import uvicorn
from fastapi import FastAPI
from fastapi.testclient import TestClient
from playwright.sync_api import BrowserContext, Page, Route, expect, sync_playwright
from sqlalchemy import select

from arena.abtest.sprt import Bounds
from arena.base.states import BotKind
from arena.engine import Ruleset
from arena.platform import queue as work_queue
from arena.platform.settings import Settings
from arena.services import abtests as abtest_service
from arena.services.views import ranks as ranks_page
from arena.store import bots, competitions, ladder, tournaments
from arena.store import matches as match_store
from arena.store.models import (
    BotVersion,
    Entry,
    MatchSeat,
    Owner,
    RegisteredBot,
    Tournament,
    TournamentMatch,
)
from arena.store.owners import add_owner
from dashboard.app import create_app
from dashboard.screenshots import CHROMIUM, CHROMIUM_ARGS
from sample_bots import kit
from tests.support.api import TEST_HASHING, auth, played_tournament
from tests.support.cli import run_queued_jobs
from tests.support.services import redis_test_url
from tests.support.store import SAMPLES, play, play_abtest, play_out
from tests.support.waiting import HANG_SECONDS

pytestmark = pytest.mark.browser

#: a page's expectations and actions wait for what they expect up to the hang guard: the
#: machine's speed never decides a verdict (Playwright's own default is 5 s, which a
#: signing-in under a loaded CI machine once took longer than)
expect.set_options(timeout=HANG_SECONDS * 1000)


#: the served dashboard's warnings and errors go to the root logger, where the test they
#: happen in captures them (its report shows them); uvicorn's own handlers would write to
#: the stream pytest had in place when the module's server started, which a later test's
#: report never shows
SERVER_LOGS_TO_TEST = {
    "version": 1,
    "disable_existing_loggers": False,
    "loggers": {
        name: {"handlers": [], "propagate": True}
        for name in ("uvicorn", "uvicorn.error", "uvicorn.access")
    },
}


def _patient(context: BrowserContext) -> BrowserContext:
    """``context`` with its actions (clicks, navigation) waiting up to the hang guard."""
    context.set_default_timeout(HANG_SECONDS * 1000)
    return context


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> tuple[FastAPI, str]:
    data: Path = tmp_path_factory.mktemp("browser")
    redis.Redis.from_url(redis_test_url()).flushdb()
    settings = Settings(data, f"sqlite:///{data / 'arena.db'}", redis_test_url())
    app = create_app(replace(settings, password_hashing=TEST_HASHING))
    _, token = app.state.platform.db.transaction(lambda s: add_owner(s, "e2e"))
    played_tournament(TestClient(app), token, app.state.platform, games=4)
    return app, token


@pytest.fixture(scope="module")
def base_url(served: tuple[FastAPI, str]) -> Iterator[str]:
    app, _ = served
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", log_config=SERVER_LOGS_TO_TEST
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + HANG_SECONDS
    while not server.started:
        assert time.monotonic() < deadline, "the dashboard did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser_page(base_url: str) -> Iterator[Page]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = _patient(browser.new_context(viewport={"width": 1400, "height": 1000})).new_page()
        yield page
        browser.close()


def _signed_in(page: Page, base_url: str, token: str) -> None:
    """/owner, signed in afresh with ``token`` (whatever an earlier test left)."""
    page.goto(f"{base_url}/owner")
    page.evaluate("sessionStorage.clear()")
    page.reload()
    page.fill("#token", token)
    page.click("#sign-in button")
    expect(page.locator("#account")).to_be_visible()


def _owner_page_said(page: Page) -> str:
    """The owner page's error line, its submission line and its bots' sections, as shown."""
    return "\n".join(
        f"{selector}: {page.locator(selector).text_content()!r}"
        for selector in ("#account-error", "#submission", "#my-bots")
    )


def _y_ticks(page: Page) -> list[str]:
    return page.locator("#tournament-chart text.y-tick").all_text_contents()


def _hiding_series_rescales_the_chart(page: Page, base_url: str) -> None:
    """Unchecking series in the legend draws the chart again for the ones left, on the
    axes the server scales to them (tests/test_charts.py); checking them again brings
    all back."""
    every = _y_ticks(page)
    assert every and all(label.strip() for label in every)
    boxes = page.locator("#tournament-chart .legend input[data-series]")
    expect(boxes).to_have_count(4)
    labels = [boxes.nth(index).get_attribute("data-series") for index in range(3)]
    for index in range(3):
        page.locator("#tournament-chart .legend input[data-series]").nth(index).uncheck()
        expect(page.locator("#tournament-chart g.series")).to_have_count(3 - index)
    expect(page.locator("#tournament-chart .legend input:not(:checked)")).to_have_count(3)
    query = "&".join(f"hidden={quote(label)}" for label in labels)
    alone = page.request.get(f"{base_url}/tournaments/cup/chart?{query}").text()
    shown = re.findall(r'class="y-tick"[^>]*>([^<]*)<', alone)
    assert shown and _y_ticks(page) == shown, "the page shows the chart scaled to the series left"
    for index in range(3):
        page.locator("#tournament-chart .legend input[data-series]").nth(index).check()
    expect(page.locator("#tournament-chart g.series")).to_have_count(4)
    assert _y_ticks(page) == every


def test_leaderboard_bot_match_and_replay(browser_page: Page, base_url: str) -> None:
    page = browser_page
    page.goto(f"{base_url}/")
    expect(page.locator("#tournaments tbody tr")).to_have_count(1)
    page.click("text=cup")
    expect(page.locator("h1")).to_have_text("cup")
    rows = page.locator("#leaderboard tbody tr")
    expect(rows).to_have_count(4)
    expect(rows.first.locator("td").first).to_have_text("1")
    expect(page.locator("#progress .progress")).to_have_text("4 / 4")
    expect(page.locator("#tournament-chart g.series")).to_have_count(4)
    _hiding_series_rescales_the_chart(page, base_url)
    expect(page.locator("#head-to-head tbody tr")).to_have_count(4)
    met = page.locator("#head-to-head tbody tr").first.locator("td[title]")
    expect(met).to_have_count(3)  # every other bot, all four sat at each table
    leader = rows.first.locator("td.bot a").inner_text()
    rows.first.locator("td.bot a").click()
    expect(page.locator("h1.bot-name")).to_have_text(leader)
    marks = page.locator("svg.chart circle.mark")
    expect(marks).to_have_count(4)
    tip = page.locator(".chart-tip")
    expect(tip).to_be_hidden()
    marks.last.hover()
    expect(tip).to_be_visible()
    expect(tip).to_contain_text(f"{leader} v1 · update 4")
    expect(tip).to_contain_text("mu ")
    expect(page.locator("svg.chart text.y-tick").first).to_be_visible()
    expect(page.locator("svg.chart text.x-date").first).to_have_text(re.compile(r"^\d\d:\d\d$"))

    page.goto(f"{base_url}/matches?tournament=cup")
    expect(page.locator("table.matches tbody tr")).to_have_count(4)
    page.locator("table.matches tbody tr").first.locator("a").first.click()
    expect(page.locator("#seats tbody tr")).to_have_count(4)
    position = page.locator("#position")
    expect(position).to_have_text(re.compile(r"^step 0 / \d+ · deal 1$"))
    total = int(re.search(r"/ (\d+)", position.inner_text()).group(1))
    expect(page.locator("#table .seat")).to_have_count(4)
    cards = page.locator("#table .seat .card")
    assert cards.count() == 36, "every card of the 36-card deck is in a hand at the deal"
    assert page.locator("#table .seat .card.red").count() == 18, "hearts and diamonds are red"
    faces = {cards.nth(i).inner_text()[-1] for i in range(cards.count())}
    assert faces == {"♠", "♥", "♦", "♣"}
    expect(page.locator("#frame-events li").first).to_contain_text("dealt")

    page.click("#forward")
    expect(position).to_have_text(re.compile(r"^step 1 / "))
    expect(page.locator("#frame-title")).to_contain_text(re.compile(r": places .+ claiming \d+ × "))
    expect(page.locator("#table .seat.acted .bubble.claim")).to_have_text(re.compile(r"^\d+ × "))
    expect(page.locator("#table .pile .group")).to_have_count(1)
    assert page.locator("#table .pile .group .card:not(.back)").count() >= 1, "a public log"
    assert page.locator("#table .seat .card").count() < 36, "the played cards left the hand"
    page.keyboard.press("ArrowRight")
    expect(position).to_have_text(re.compile(r"^step 2 / "))
    page.keyboard.press("ArrowLeft")
    expect(position).to_have_text(re.compile(r"^step 1 / "))

    page.select_option("#speed", "10")
    page.click("#play")
    expect(page.locator("#play")).to_have_attribute("aria-pressed", "true")
    expect(position).to_have_text(re.compile(rf"^step {total} / {total}"))
    expect(page.locator("#play")).to_have_attribute("aria-pressed", "false")
    expect(page.locator("#frame-events")).to_contain_text("final places: 1. ")
    frames = json.loads(page.locator("#frames").text_content())
    called = next(i for i, f in enumerate(frames) if f["revealed"])
    page.locator("#scrubber").fill(str(called))
    expect(position).to_have_text(re.compile(rf"^step {called} / "))
    shown = page.locator("#table .revealed")
    expect(shown.locator(".verdict")).to_have_text(
        "true" if frames[called]["revealed"]["truthful"] else "bluff!"
    )
    expect(shown.locator(".card")).to_have_count(len(frames[called]["revealed"]["cards"]))
    expect(page.locator("#table .seat.acted .bubble.call")).to_have_text(
        re.compile(r"^I (don't )?believe")
    )
    deals = page.locator("#deals li")
    assert deals.count() >= 1
    expect(deals.first).to_contain_text(re.compile(r"\d+ plays, \d+ calls \(\d+ right\)"))
    expect(deals.last).to_have_class(re.compile("current"))
    deals.first.locator("a").click()
    expect(position).to_have_text(re.compile(r"^step 0 / "))


def test_a_late_answer_for_an_older_legend_never_replaces_the_newer_chart(
    browser_page: Page, base_url: str
) -> None:
    """Two boxes unchecked quickly, the first request's answer arriving last: the chart
    stays the one of the newest request (2 series), not the older one's (3)."""
    page = browser_page
    page.goto(f"{base_url}/tournaments/cup")
    expect(page.locator("#tournament-chart g.series")).to_have_count(4)
    held: list[Route] = []

    def hold(route: Route) -> None:
        held.append(route)

    page.route("**/tournaments/cup/chart?*", hold)
    boxes = page.locator("#tournament-chart .legend input[data-series]")
    for index, waiting in ((0, 1), (1, 2)):
        boxes.nth(index).uncheck()
        _wait_until(page, lambda count=waiting: len(held) >= count)
    older, newer = held
    assert "hidden=" in older.request.url and newer.request.url.count("hidden=") == 2
    slot = page.locator(".chart-slot[data-src='/tournaments/cup/chart']")
    newer.continue_()
    expect(page.locator("#tournament-chart g.series")).to_have_count(2)
    older.continue_()
    expect(slot).to_have_attribute("data-settled", slot.get_attribute("data-requested") or "0")
    expect(page.locator("#tournament-chart g.series")).to_have_count(2)
    expect(page.locator("#tournament-chart .legend input:not(:checked)")).to_have_count(2)
    page.unroute("**/tournaments/cup/chart?*")


def _wait_until(page: Page, done: Callable[[], bool], limit: float = 30.0) -> None:
    """Let the page's events run until ``done()`` (a route handler has been called)."""
    deadline = time.monotonic() + limit
    while not done():
        assert time.monotonic() < deadline, "the page sent no request"
        page.wait_for_timeout(20)


def test_api_docs_and_error_pages_need_nothing_but_the_platform(
    browser_page: Page, base_url: str
) -> None:
    """``/docs`` renders Swagger UI from the platform's own files (every request to
    another host is refused and recorded), and a missing page is a page, not JSON."""
    page = browser_page
    elsewhere: list[str] = []

    def only_the_platform(route: Route) -> None:
        if route.request.url.startswith(base_url):
            route.continue_()
        else:
            elsewhere.append(route.request.url)
            route.abort()

    page.route("**/*", only_the_platform)
    try:
        page.goto(f"{base_url}/docs")
        expect(page.locator(".swagger-ui .opblock-summary-path").first).to_be_visible()
        expect(page.locator(".swagger-ui")).to_contain_text("/api/v1/bots")
        page.get_by_role("link", name="← Arena dashboard").click()  # a way back
        expect(page).to_have_url(f"{base_url}/")
        page.goto(f"{base_url}/bots/nosuchbot")
        expect(page.locator("h1")).to_have_text("Not found")
        expect(page.locator("p.error")).to_contain_text("no bot named 'nosuchbot'")
        page.goto(f"{base_url}/matches?page=abc")
        expect(page.locator("h1")).to_have_text("Bad request")
    finally:
        page.unroute("**/*")
    assert elsewhere == []


#: every page a reader reaches (the match page: the first match of the played cup)
EVERY_PAGE = [
    "/", "/tournaments/cup", "/tournaments/cup/fairplay", "/leaderboard", "/bots",
    "/bots/counter", "/matches", "/matches/1", "/abtests", "/play", "/signup", "/signin",
    "/owner", "/account", "/admin", "/workers", "/teams/e2e",
]  # fmt: skip
#: tables wider than the window and not inside a box that scrolls them: cut off
CUT_TABLES = """() => Array.from(document.querySelectorAll("table")).filter((table) => {
  const box = table.getBoundingClientRect();
  if (box.width === 0 || box.right <= window.innerWidth + 1) return false;
  for (let up = table.parentElement; up; up = up.parentElement) {
    const overflow = getComputedStyle(up).overflowX;
    if (overflow === "auto" || overflow === "scroll") return false;
  }
  return true;
}).map((table) => table.id || table.className || "a table")"""


@pytest.mark.parametrize("width", [390, 1280])
@pytest.mark.parametrize("path", EVERY_PAGE)
def test_every_page_fits_a_phone_and_a_laptop(
    browser_page: Page, base_url: str, path: str, width: int
) -> None:
    """Nothing runs off the right edge, and a table wider than the window scrolls in a
    box of its own rather than being cut off."""
    page = browser_page
    page.set_viewport_size({"width": width, "height": 800})
    try:
        page.goto(f"{base_url}{path}")
        page.wait_for_load_state("networkidle")
        wide = page.evaluate("document.documentElement.scrollWidth")
        assert wide <= width, f"{path} is {wide} px wide at {width} px"
        assert page.evaluate(CUT_TABLES) == [], f"{path}: tables cut off at {width} px"
    finally:
        page.set_viewport_size({"width": 1400, "height": 1000})


@pytest.mark.parametrize("path", ["/tournaments/cup", "/bots/counter"])
def test_charts_are_drawn_for_a_phones_width(browser_page: Page, base_url: str, path: str) -> None:
    """At 400 px a chart is drawn for its slot's width, so its labels keep their size
    (a 720-unit drawing squeezed into 360 px halves them)."""
    page = browser_page
    page.set_viewport_size({"width": 400, "height": 800})
    try:
        page.goto(f"{base_url}{path}")
        chart = page.locator("svg.chart").first
        expect(chart).to_be_visible()
        expect(chart).not_to_have_attribute("viewBox", "0 0 720 260")
        drawn = int(chart.get_attribute("viewBox").split()[2])
        slot = page.locator(".chart-slot").first.evaluate("slot => slot.clientWidth")
        assert drawn <= 400 and abs(drawn - slot) <= 2, (drawn, slot)
        label = page.locator("svg.chart text.y-tick").first.bounding_box()
        assert label is not None and label["height"] >= 9, label  # 10 px text, unscaled
    finally:
        page.set_viewport_size({"width": 1400, "height": 1000})


def test_a_replay_is_followed_through_its_move_list(browser_page: Page, base_url: str) -> None:
    """Every step is in the move list under its deal; a click goes there and the address
    names the step (a moment can be shared); reveals restate the claim; one notation."""
    page = browser_page
    page.goto(f"{base_url}/matches?tournament=cup")
    page.locator("table.matches tbody tr").first.locator("a").first.click()
    frames = json.loads(page.locator("#frames").text_content())
    moves = page.locator("#moves a.move")
    expect(moves).to_have_count(len(frames))
    deals = {f["deal"] for f in frames}
    expect(page.locator("#moves > li.deal > h3")).to_have_count(len(deals) + 1)  # and the end
    expect(page.locator("#moves > li.deal > h3").last).to_have_text("the end")
    called = next(i for i, f in enumerate(frames) if f["revealed"])
    moves.nth(called).click()
    expect(page.locator("#position")).to_have_text(re.compile(rf"^step {called} / "))
    expect(moves.nth(called)).to_have_class(re.compile(r"\bcurrent\b"))
    expect(page.locator("#moves a.move.current")).to_have_count(1)
    assert page.url.endswith(f"#step={called}")
    verdict = "true" if frames[called]["revealed"]["truthful"] else "bluff"
    expect(page.locator("#frame-events")).to_contain_text(
        re.compile(rf"claimed \d+ × \w+, was .+: {verdict}")
    )
    text = " ".join(e for f in frames for e in f["events"]) + " ".join(f["title"] for f in frames)
    assert re.search(r"[♠♥♦♣]", text), "cards are written with suit symbols"
    assert not re.search(r"\b(?:[2-9TJQKA][SHDC])\b", text), "no card codes in the text"
    assert frames[-1]["kind"] == "end" and frames[-1]["final"], "a last frame with the places"
    later = min(len(frames) - 1, called + 3)
    page.goto(f"{base_url}{page.url.split(base_url, 1)[1].split('#')[0]}#step={later}")
    expect(page.locator("#position")).to_have_text(re.compile(rf"^step {later} / "))
    expect(moves.nth(later)).to_have_class(re.compile(r"\bcurrent\b"))
    bluffs = sum(g["bluff"] for f in frames for g in f["pile_groups"])
    assert bluffs, "bluffs in the pile are known once the log is public"


def test_the_replay_fits_a_phone(browser_page: Page, base_url: str) -> None:
    page = browser_page
    page.set_viewport_size({"width": 400, "height": 800})
    try:
        page.goto(f"{base_url}/matches?tournament=cup")
        page.locator("table.matches tbody tr").first.locator("a").first.click()
        expect(page.locator("#table .seat")).to_have_count(4)
        assert page.evaluate("document.documentElement.scrollWidth") <= 400
        table, moves = page.locator("#table").bounding_box(), page.locator("#moves").bounding_box()
        assert table and moves and moves["y"] >= table["y"] + table["height"], "moves fold under"
    finally:
        page.set_viewport_size({"width": 1400, "height": 1000})


def test_a_running_tournament_s_leaderboard_updates_itself(
    browser_page: Page, base_url: str, served: tuple[FastAPI, str], monkeypatch
) -> None:
    """Matches recorded while the page is open show up in its leaderboard without a
    reload, and the page stops asking once the tournament is over. Its page of ranks
    (three a page here: the fourth's page) stays the page it is."""
    monkeypatch.setattr(ranks_page, "PER_PAGE", 3)
    app, token = served
    arena = app.state.platform
    client = TestClient(app)
    created = client.post(
        "/api/v1/tournaments",
        headers=auth(token),
        json={"name": "live", "bots": SAMPLES, "table_size": 4, "games": 3},
    )
    assert created.status_code == 201, created.text
    assert client.post("/api/v1/tournaments/live/start", headers=auth(token)).status_code == 200
    page = browser_page
    page.goto(f"{base_url}/tournaments/live")
    games = page.locator("#leaderboard tbody tr td:nth-child(6)")
    expect(games).to_have_count(3)
    page.locator("#leaderboard-ranks a[rel=next]").click()
    expect(page).to_have_url(re.compile(r"\?ranks_from=4#leaderboard-ranks$"))
    expect(games).to_have_count(1)
    expect(page.locator("#leaderboard tbody tr td:first-child")).to_have_text("4")
    expect(page.locator("#leaderboard-ranks")).to_contain_text("ranks 4–4 of 4")
    expect(page.locator("#live-note")).to_be_visible()
    assert games.first.inner_text() == "0"
    with arena.db.read() as session:
        ids = list(
            session.scalars(
                select(TournamentMatch.id)
                .join(Tournament)
                .where(Tournament.name == "live")
                .order_by(TournamentMatch.id)
            )
        )
    elsewhere = ThreadPoolExecutor(1)  # Playwright's loop runs in this thread
    for played, match_id in enumerate(ids, 1):
        plan = match_store.claim(arena.db, match_id, "browser")
        assert match_store.record(arena.db, plan, elsewhere.submit(play, plan).result(), 1.0)
        expect(games.first).to_have_text(str(played))
    expect(page.locator("#progress .status")).to_have_text("done")
    expect(games).to_have_count(1)  # the live rows were the fourth rank's, all along
    marks = page.locator("#tournament-chart g.series").first.locator("circle.mark")
    expect(marks).to_have_count(3)  # the chart follows the matches too


TALKER = Path(__file__).parent / "sandbox_bots" / "talker.py"


def test_an_owner_submits_a_bot_through_the_form_and_reads_its_output(
    browser_page: Page, base_url: str, served: tuple[FastAPI, str]
) -> None:
    """Sign in with the token, upload a bot with the form, watch it qualify and take a
    ranked place in the default competition with no other step, play it in a
    tournament, and read what it printed in that match (only with the token)."""
    app, token = served
    arena = app.state.platform
    arena.db.transaction(
        lambda s: competitions.create(
            s, "main", Ruleset.parse("classic"), 3, tables=1, bot_names=SAMPLES[:2], default=True
        )
    )
    elsewhere = ThreadPoolExecutor(1)  # workers run beside Playwright's loop
    page = browser_page
    page.goto(f"{base_url}/owner")
    page.fill("#token", "not-a-token")
    page.click("#sign-in button")
    expect(page.locator("#sign-in-error")).to_contain_text(
        "a valid owner token, or a session (sign in), is required"
    )
    page.fill("#token", token)
    page.click("#sign-in button")
    expect(page.locator("#owner-name")).to_have_text("e2e")
    expect(page.locator("#token-state")).to_have_text("active")

    page.fill("#bot-name", "bad name")
    page.fill("#bot-source", TALKER.read_text())
    page.evaluate("document.getElementById('submit-form').noValidate = true")
    page.click("#submit-form button")
    expect(page.locator("#submission")).to_contain_text("Not submitted: name:")

    page.fill("#bot-name", "talker")
    page.locator("#bot-file").set_input_files(str(TALKER))
    page.fill("#bot-source", "")
    page.click("#submit-form button")
    expect(page.locator("#submission")).to_contain_text("talker v1: pending")
    elsewhere.submit(run_queued_jobs, arena).result()
    expect(page.locator("#submission")).to_contain_text("talker v1: ready: qualified")
    expect(page.locator('#my-bots section[data-bot="talker"] tr.status-ready')).to_have_count(1)
    standing = page.locator('#my-bots section[data-bot="talker"] p.standing')
    page.reload()
    # going live, it was seated at once, and the worker played that table
    expect(standing).to_contain_text("main: rank ")
    expect(standing).to_contain_text(" of 3, 1 games")
    with arena.db.read() as session:
        main_ladder = competitions.get(session, "main").tournament_id
    for _ in range(2):  # what a worker does: seat the ladder's table, play it, record it
        [(match_id, _)] = ladder.refill(arena.db, main_ladder)
        plan = match_store.claim(arena.db, match_id, "test")
        assert plan is not None  # played beside Playwright's loop, as the workers are
        assert match_store.record(arena.db, plan, elsewhere.submit(play, plan).result(), 1.0)
    page.reload()
    expect(standing).to_contain_text("main: rank ")
    expect(standing).to_contain_text(" of 3, 3 games")

    client = TestClient(app)
    created = client.post(
        "/api/v1/tournaments",
        headers=auth(token),
        json={"name": "talk", "bots": ["talker", *SAMPLES[:3]], "table_size": 4, "games": 1},
    )
    assert created.status_code == 201, created.text
    assert client.post("/api/v1/tournaments/talk/start", headers=auth(token)).status_code == 200
    elsewhere.submit(run_queued_jobs, arena).result()
    page.reload()  # signed in still: the token is kept in the tab
    seats = page.locator("#my-seats tbody tr")
    # the qualification, three in the competition, then the tournament's (first)
    expect(seats).to_have_count(5)
    expect(seats.first).to_contain_text("talker v1")
    seats.first.locator("details summary").click()
    expect(seats.first.locator("pre.output")).to_contain_text("talker: ")
    match_id = seats.first.locator("a").first.inner_text()
    page.goto(f"{base_url}/matches/{match_id}")
    expect(page.locator("#seats")).to_contain_text("talker")
    for public in (
        page.content(),
        client.get(f"/api/v1/matches/{match_id}").text,
        client.get(f"/api/v1/matches/{match_id}/log").text,
        client.get("/api/v1/bots/talker").text,
    ):
        assert "talker: " not in public, "the output is the owner's alone"
    assert client.get("/api/v1/owners/me/seats").status_code == 401


RAISER = """from arena.sdk import Bot


class Raiser(Bot):
    def act(self, obs):
        return {}["x"]
"""


def test_an_owner_opens_a_rejected_versions_qualification_match_and_reads_its_traceback(
    browser_page: Page, base_url: str, served: tuple[FastAPI, str]
) -> None:
    app, token = served
    page = browser_page
    _signed_in(page, base_url, token)
    page.fill("#bot-name", "raiser")
    page.fill("#bot-source", RAISER)
    page.click("#submit-form button")
    expect(page.locator("#submission")).to_contain_text("raiser v1: pending")
    ThreadPoolExecutor(1).submit(run_queued_jobs, app.state.platform).result()
    expect(page.locator("#submission")).to_contain_text("raiser v1: rejected")
    version = page.locator('#my-bots section[data-bot="raiser"] tr.status-rejected')
    link = version.locator("a.qualification")
    match_id = link.inner_text().removeprefix("match ")
    link.click()
    expect(page).to_have_url(re.compile(rf"{re.escape(base_url)}/matches/{match_id}(#.*)?$"))
    expect(page.locator("#seats")).to_contain_text("KeyError: 'x' (bot.py, line 6, in act)")

    page.goto(f"{base_url}/owner")
    seat = page.locator("#my-seats tbody tr", has=page.locator(f'a[href="/matches/{match_id}"]'))
    seat.locator("details summary").click()
    output = seat.locator("pre.output")
    expect(output).to_contain_text("Traceback (most recent call last):")
    lines = output.inner_text().splitlines()
    assert lines[-1] == "KeyError: 'x'" and 'File "/bot/bot.py", line 6, in act' in "\n".join(lines)
    page.goto(f"{base_url}/bots/raiser")
    expect(page.locator(f'a.qualification[href="/matches/{match_id}"]')).to_be_visible()


def test_an_owner_uploads_folders_as_archives_and_reads_a_failed_builds_log(
    browser_page: Page, base_url: str, served: tuple[FastAPI, str], tmp_path: Path
) -> None:
    """The form's archive kind: a C++ folder that does not compile is rejected, its
    compiler's message under "build log" for its owner alone; a Python kit's folder
    qualifies, its language beside its kind."""
    app, token = served
    crooked = tmp_path / "crooked"
    crooked.mkdir()
    (crooked / "bot.cpp").write_text("int main( { return 0; }\n")
    kept = tmp_path / "kept"
    kept.mkdir()
    shutil.copy(kit("python") / "bot.py", kept / "bot.py")
    page = browser_page
    _signed_in(page, base_url, token)
    page.select_option("#bot-kind", "archive")
    for name, folder, settled in [("crooked", crooked, "rejected"), ("kept", kept, "ready")]:
        packed = shutil.make_archive(str(tmp_path / name), "zip", tmp_path, folder.name)
        page.fill("#bot-name", name)
        page.locator("#bot-archive").set_input_files(packed)
        page.click("#submit-form button")
        expect(page.locator("#submission")).to_contain_text(f"{name} v1: pending")
        ThreadPoolExecutor(1).submit(run_queued_jobs, app.state.platform).result()
        expect(page.locator("#submission")).to_contain_text(f"{name} v1: {settled}")
    rejected = page.locator('#my-bots section[data-bot="crooked"] tr.status-rejected')
    expect(rejected).to_contain_text("· cpp")
    expect(rejected).to_contain_text("its build failed")
    rejected.locator("details.build-log summary").click()
    expect(rejected.locator("details.build-log pre.output")).to_contain_text("bot.cpp:1:")
    ready = page.locator('#my-bots section[data-bot="kept"] tr.status-ready')
    expect(ready).to_contain_text("· python")
    page.goto(f"{base_url}/bots/crooked")
    expect(page.locator("td.reason").first).to_contain_text("its build failed")
    expect(page.locator("body")).not_to_contain_text("bot.cpp:1:")


def test_a_rejected_versions_traceback_keeps_its_lines(
    browser_page: Page, base_url: str, served: tuple[FastAPI, str]
) -> None:
    from arena.base.states import VersionStatus
    from arena.store import bots as bot_store

    app, _ = served
    reason = (
        "did not start: exited (code 1) before listening; its output: the bot could not be"
        ' loaded:\n  File "/bot/bot.py", line 4\n    def act(self, obs)\n'
        "SyntaxError: expected ':'"
    )

    def rejected(session) -> None:
        version = bot_store.add_bot(session, "broken", BotKind.SAMPLE, "random")
        version.status, version.active, version.reason = VersionStatus.REJECTED, False, reason

    app.state.platform.db.transaction(rejected)
    page = browser_page
    page.goto(f"{base_url}/bots/broken")
    cell = page.locator("td.reason").first
    expect(cell).to_contain_text("SyntaxError: expected ':'")
    assert cell.inner_text().splitlines()[-1] == "SyntaxError: expected ':'", "one line a line"
    assert cell.evaluate("e => getComputedStyle(e).whiteSpace") == "pre-wrap"


def test_an_ab_test_is_followed_from_the_bot_page_to_its_llr_chart(
    browser_page: Page, base_url: str, served: tuple[FastAPI, str]
) -> None:
    app, _ = served
    db = app.state.platform.db
    rules = Ruleset.parse("classic")
    test = db.transaction(
        lambda s: abtest_service.create_in(s, "counter-vs-random", "counter", "random", rules,
                                 Bounds(0, 25), field=["honest", "bluffer"], table_size=3)
    )  # fmt: skip
    db.transaction(lambda s: abtest_service.start_in(s, "counter-vs-random"))
    with ThreadPoolExecutor(1) as pool:  # Playwright's event loop runs in this thread
        pool.submit(play_abtest, db, test.tournament_id).result()
    page = browser_page
    # the test made the A/B test behind the site's back: a page another test read a
    # moment ago may still be kept (the cache's max-age), so this reader asks for a fresh
    # copy, as the live pages do
    page.set_extra_http_headers({"Cache-Control": "no-cache"})
    try:
        page.goto(f"{base_url}/bots/counter")
    finally:
        page.set_extra_http_headers({})
    page.locator("#bot-abtests a", has_text="counter-vs-random").click()
    expect(page.locator("h1")).to_have_text("A/B test counter-vs-random")
    expect(page.locator("#abtest-verdict strong")).to_have_text("accepted")
    expect(page.locator("#abtest-chart polyline.llr")).to_have_count(1)
    expect(page.locator("#abtest-chart line.bound")).to_have_count(3)
    crossed = page.evaluate("""() => {
      const corners = Array.from(document.querySelector("#abtest-chart polyline.llr").points);
      const points = corners.flatMap((p, i) => i === 0 ? [p] : Array.from({length: 20}, (_, k) => ({
        x: corners[i - 1].x + (p.x - corners[i - 1].x) * (k + 1) / 20,
        y: corners[i - 1].y + (p.y - corners[i - 1].y) * (k + 1) / 20,
      })));
      return Array.from(document.querySelectorAll("#abtest-chart text.y-tick"))
        .filter((text) => /accept|reject/.test(text.textContent))
        .filter((text) => {
          const box = text.getBBox();
          return points.some((p) => p.x >= box.x && p.x <= box.x + box.width
            && p.y >= box.y && p.y <= box.y + box.height);
        })
        .map((text) => text.textContent);
    }""")
    assert crossed == [], f"the LLR runs through {crossed}"
    counts = page.locator("#abtest-classes tbody td").all_text_contents()[1:]
    pairs = app.state.platform.abtest_status("counter-vs-random").pairs
    assert sum(int(n) for n in counts) == pairs
    expect(page.locator("#abtest-matches")).to_contain_text(f"{pairs} pairs counted")


README_BOT = (Path(__file__).parents[1] / "examples" / "truthful.py").read_text()
#: the README's bot that never challenges: clearly worse
TRUSTING = README_BOT.replace("if legal.challenge and obs.live.count > 2:", "if False:")


def test_an_owner_stages_tests_promotes_rolls_back_and_studies_a_lost_match(
    browser_page: Page, base_url: str, served: tuple[FastAPI, str]
) -> None:
    """The competitor's second day, by clicks: submit, stage a second version, A/B test it
    against the live one, make it live, roll back; then open a lost match at the bot's
    first decision with its hand face up (the log not public yet)."""
    app, token = served
    arena = app.state.platform
    arena.db.transaction(
        lambda s: competitions.create(
            s, "walk", Ruleset.parse("classic"), 4, tables=1, bot_names=SAMPLES, default=True
        )
    )
    elsewhere = ThreadPoolExecutor(1)  # workers run beside Playwright's loop
    page = browser_page
    _signed_in(page, base_url, token)

    def submit(source: str, after: str, number: int) -> None:
        page.fill("#bot-name", "walker")
        page.fill("#bot-source", source)
        page.select_option("#bot-after", after)
        page.click("#submit-form button")
        expect(page.locator("#submission")).to_contain_text(f"walker v{number}: pending")
        elsewhere.submit(run_queued_jobs, arena).result()
        expect(page.locator("#submission")).to_contain_text(f"walker v{number}: ready")

    section = page.locator('#my-bots section[data-bot="walker"]')
    submit(README_BOT, "live", 1)
    expect(section.locator("p.live")).to_contain_text("v1 plays since")
    submit(TRUSTING, "stage", 2)
    try:
        expect(section.locator("tr.state-staged")).to_have_count(1)
    except AssertionError as missed:  # once in CI: what the page said instead
        raise AssertionError(f"{missed}\n{_owner_page_said(page)}") from None
    expect(section.locator("p.live")).to_contain_text("v1 plays since")

    client = TestClient(app)
    made = client.post(
        "/api/v1/abtests",
        headers=auth(token),
        # bounds far apart and loose errors: the flow is the subject here, not the power
        # (a clearly worse version is rejected in a few pairs instead of dozens)
        json={
            "name": "walk-2",
            "new": "walker:latest",
            "base": "walker:live",
            "elo1": 150,
            "alpha": 0.2,
            "beta": 0.2,
        },  # fmt: skip
    )
    assert made.status_code == 201, made.text
    assert client.post("/api/v1/abtests/walk-2/start", headers=auth(token)).status_code == 200
    elsewhere.submit(run_queued_jobs, arena).result()  # a burst worker plays it to its verdict
    page.goto(f"{base_url}/abtests/walk-2")
    expect(page.locator("#abtest-verdict strong")).to_have_text("rejected")
    expect(page.locator("#abtest-outcome")).to_contain_text("pairs counted")

    page.goto(f"{base_url}/owner")
    section.locator("button.promote", has_text="Make v2 live").click()
    expect(page.locator("#release")).to_have_text("walker v2 is live: now playing in walk.")
    expect(section.locator("p.live")).to_contain_text("v2 plays since")
    section.locator("button.rollback").click()
    expect(page.locator("#release")).to_contain_text("walker v1 is live")
    expect(section.locator("p.live")).to_contain_text("v1 plays since")

    with arena.db.read() as session:
        walk = competitions.get(session, "walk").tournament_id
    lost = None
    for _ in range(20):  # a worker plays the competition's tables until walker v1 lost one
        work_queue.enqueue_all(arena.queue, ladder.refill(arena.db, walk))
        elsewhere.submit(run_queued_jobs, arena).result()
        with arena.db.read() as session:
            lost = session.scalar(
                select(MatchSeat.match_id)
                .join(BotVersion, BotVersion.id == MatchSeat.bot_version_id)
                .join(RegisteredBot, RegisteredBot.id == BotVersion.bot_id)
                .join(TournamentMatch, TournamentMatch.id == MatchSeat.match_id)
                .where(
                    RegisteredBot.name == "walker",
                    BotVersion.number == 1,
                    TournamentMatch.tournament_id == walk,
                    MatchSeat.place > 1,
                    MatchSeat.forfeit.is_(False),
                )
                .order_by(MatchSeat.match_id.desc())  # the newest: the list's first page
                .limit(1)
            )
        if lost:
            break
    assert lost is not None, "walker v1 lost none of its matches"

    held: list[Route] = []  # the unfiltered list's answer arrives after the filtered ones
    sent: list[str] = []

    def hold_unfiltered(route: Route) -> None:
        if "result=lost" in route.request.url:
            sent.append(route.request.url)
            route.continue_()
        else:
            held.append(route)

    page.route("**/owners/me/matches?*", hold_unfiltered)
    page.reload()
    _wait_until(page, lambda: len(held) == 1)
    # the owner studies v1's losses in the competition (the A/B test's are newer)
    page.select_option("#filter-result", "lost")
    page.select_option("#filter-bot", "walker")
    page.fill("#filter-version", "1")
    page.locator("#filter-version").blur()  # its change now, not when the click below blurs it
    page.select_option("#filter-competition", "walk")
    rows = page.locator("#my-seats tbody tr")
    newest = rows.first.locator("a.match")
    expect(newest).to_have_attribute("href", f"/matches/{lost}")
    # the last filter's request was routed (routing is asynchronous: ``sent`` may lag the
    # page), and then every filtered request was answered: no list is drawn again later
    _wait_until(page, lambda: any("competition=walk" in url for url in sent))
    _wait_until(
        page, lambda: page.locator("#my-seats").get_attribute("data-answers") == str(len(sent))
    )
    held[0].continue_()
    expect(page.locator("#my-seats")).to_have_attribute("data-answers", str(len(sent) + 1))
    page.unroute("**/owners/me/matches?*")
    expect(newest).to_have_attribute("href", f"/matches/{lost}")  # not the late unfiltered list
    expect(rows.first).to_contain_text("walker v1")
    expect(rows.locator("td:nth-child(4)").filter(has_text=re.compile(r"^1$"))).to_have_count(0)
    rows.filter(has=page.locator(f'a.match[href="/matches/{lost}"]')).locator("a.study").click()
    expect(page).to_have_url(re.compile(rf"{re.escape(base_url)}/matches/{lost}#step=\d+"))
    expect(page.locator("#own-view")).to_contain_text("Your view: walker v1")
    mine = page.locator("#table .seat.mine")
    expect(mine).to_have_count(1)
    expect(mine.locator(".card")).not_to_have_count(0)
    expect(mine.locator(".card.back")).to_have_count(0)  # its own hand, face up
    others = page.locator("#table .seat:not(.mine) .card:not(.back)")
    expect(others).to_have_count(0)  # the others' face down: the log is not public yet
    current = page.locator("#moves a.move.current")
    expect(current).to_have_class(re.compile(r"\bmine\b"))
    expect(page.locator("#frame-held .card")).not_to_have_count(0)
    first = page.locator("#position").inner_text()
    page.keyboard.press("n")
    expect(page.locator("#position")).not_to_have_text(first)
    expect(page.locator("#moves a.move.current")).to_have_class(re.compile(r"\bmine\b"))
    moves = page.locator("nav.replay-moves")
    colour = moves.evaluate("e => getComputedStyle(e).backgroundColor")
    assert colour in ("rgba(0, 0, 0, 0)", "transparent"), "the site's dark bar is not the panel's"


def test_a_knockout_s_bracket_and_standings_in_the_browser(
    browser_page: Page, base_url: str, served: tuple[FastAPI, str]
) -> None:
    """A knockout played to its final: the page draws its rounds side by side, each table
    best first with its scores, and the standings with the final's winner first."""
    app, _ = served
    db = app.state.platform.db
    names = [f"ko{i}" for i in range(8)]
    db.transaction(
        lambda s: [
            bots.add_bot(s, name, BotKind.SAMPLE, SAMPLES[i % len(SAMPLES)])
            for i, name in enumerate(names)
        ]
    )
    rules = Ruleset.parse("classic")
    db.transaction(
        lambda s: tournaments.create(s, "ko", rules, names, 4, 1, format="knockout", advance=2)
    )
    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # Playwright's loop runs here
        assert pool.submit(play_out, db, "ko").result() == 2 * 4 + 4
    page = browser_page
    page.goto(f"{base_url}/tournaments/ko")
    expect(page.locator("h2", has_text="Bracket")).to_be_visible()
    rounds = page.locator("#rounds td.round")
    expect(rounds).to_have_count(2)
    first, final = rounds.nth(0).bounding_box(), rounds.nth(1).bounding_box()
    assert first and final and final["x"] > first["x"], "the rounds stand side by side"
    expect(rounds.nth(0).locator("ul.round-table")).to_have_count(2)
    expect(rounds.nth(1).locator("ul.round-table li")).to_have_count(4)
    winner = rounds.nth(1).locator("ul.round-table li a").first.text_content()
    standings = page.locator("#standings tbody tr")
    expect(standings).to_have_count(8)
    expect(standings.first.locator("td.bot a")).to_have_text(winner or "")
    expect(standings.first.locator("td").first).to_have_text("1")


def _take_a_turn(page: Page, turn: int) -> str:
    """One decision by clicks: challenge every third time it may, else play the hand's
    first card claiming the first rank offered, else believe, pass or keep the fours.
    What was done."""
    if page.locator("#challenge").is_visible() and turn % 3 == 0:
        page.locator("#challenge").click()
        return "challenge"
    if page.locator("#claim").is_visible():
        page.locator(".seat.mine button.card").first.click()
        expect(page.locator(".seat.mine button.card.chosen")).to_have_count(1)
        page.locator("#claim-rank").select_option(index=0)
        page.locator("#play-cards").click()
        return "play"
    for kind in ("believe", "pass", "quartets"):
        if page.locator(f"#{kind}").is_visible():
            page.locator(f"#{kind}").click()
            return kind
    raise AssertionError("a turn with nothing to click")


def test_a_person_plays_a_whole_match_by_clicks_then_opens_its_replay(
    browser_page: Page, base_url: str
) -> None:
    """/play seats a guest with three samples; the match is played by clicking cards,
    claiming and calling, refereed as for bots (nothing refused); its replay follows."""
    page = browser_page
    page.goto(f"{base_url}/play")
    page.locator("#sit").click()
    page.wait_for_url(re.compile(r"/tables/[\w-]+$"))
    status = page.locator("#status")
    done: list[str] = []
    while True:
        expect(status).to_contain_text(re.compile("Your turn|Over"))
        if "Over" in (status.text_content() or ""):
            break
        assert page.locator("#controls").is_visible(), "'Your turn' said without the controls"
        expect(page.locator(".seat.mine")).to_have_count(1)
        done.append(_take_a_turn(page, len(done)))
        expect(page.locator("#refused")).to_be_hidden()
    assert "play" in done and "challenge" in done, done
    expect(status).to_contain_text(re.compile(r"you placed \d\w\w of 4"))
    page.locator("#replay-link").click()
    expect(page.locator("#outcome")).to_contain_text("you placed")
    frames = json.loads(page.locator("#frames").text_content())
    expect(page.locator("#moves a.move")).to_have_count(len(frames))
    guest = [f for f in frames if f.get("seat") == 0 and f["kind"] != "end"]
    assert len(guest) == len(done), "every click is a step of the replay"
    page.locator("#forward").click()
    expect(page.locator("#position")).to_have_text(re.compile(r"^step 1 / "))


def test_an_owner_queues_a_scrimmage_reads_its_results_and_sets_consent(
    browser_page: Page, base_url: str, served: tuple[FastAPI, str]
) -> None:
    """/owner: a scrimmage of the owner's bot against a sample by the form; a worker plays
    it; the results table says how each bot did and links its matches; the consent boxes
    keep the bot from people's tables."""
    app, token = served
    arena = app.state.platform
    with arena.db.read() as session:
        e2e = session.scalar(select(Owner.id).where(Owner.name == "e2e"))
    arena.db.transaction(lambda s: bots.add_bot(s, "sparring", BotKind.SAMPLE, "honest", e2e))
    page = browser_page
    _signed_in(page, base_url, token)
    page.set_viewport_size({"width": 1280, "height": 900})
    try:  # the form is one line on a laptop (it wrapped)
        tops = page.evaluate(  # one frame: the page above is still filling in
            """() => ["#scrimmage-bot", "#scrimmage-form button"].map(
                (part) => document.querySelector(part).getBoundingClientRect().top)"""
        )
        assert abs(tops[0] - tops[1]) < 20, tops
    finally:
        page.set_viewport_size({"width": 1400, "height": 1000})
    page.fill("#scrimmage-bot", "sparring")
    page.fill("#scrimmage-against", "sample:random, sample:counter")
    page.fill("#scrimmage-games", "2")
    page.click("#scrimmage-form button")
    expect(page.locator("#scrimmage-status")).to_contain_text(
        re.compile(r"Queued scrimmage-\w+: 2")
    )
    ThreadPoolExecutor(1).submit(run_queued_jobs, arena).result()
    page.reload()
    row = page.locator("#my-scrimmages tbody tr").first
    expect(row).to_contain_text("2 / 2 (done)")
    expect(row).to_contain_text(re.compile(r"sparring v1: \d\.\d\d, \d+ wins"))
    row.locator("a").click()
    expect(page.locator("table.matches tbody tr")).to_have_count(2)
    page.go_back()
    people = page.locator('#my-bots section[data-bot="sparring"] input[data-consent="people"]')
    expect(people).to_be_checked()
    people.uncheck()
    deadline = time.monotonic() + HANG_SECONDS
    while TestClient(app).get("/api/v1/bots/sparring").json()["people_may_play"]:
        assert time.monotonic() < deadline, "the consent was never saved"
        time.sleep(0.05)


def test_a_list_that_does_not_load_leaves_its_owner_signed_in(
    browser_page: Page, base_url: str, served: tuple[FastAPI, str]
) -> None:
    """The owner's scrimmages fail to load (the network drops their request): the owner
    stays signed in, with the rest of the page, and is told to reload."""
    _, token = served
    page = browser_page
    page.route("**/owners/me/scrimmages", lambda route: route.abort("connectionreset"))
    try:
        _signed_in(page, base_url, token)
        expect(page.locator("#account-error")).to_contain_text("did not load")
        expect(page.locator("#sign-in-error")).to_be_hidden()
        expect(page.locator("#owner-name")).to_have_text("e2e")
    finally:
        page.unroute("**/owners/me/scrimmages")
    page.reload()  # the token was kept: the page signs in again, whole
    expect(page.locator("#owner-name")).to_have_text("e2e")
    expect(page.locator("#account-error")).to_be_hidden()


def test_a_person_signs_up_on_the_site_works_signed_in_signs_out_and_in_again(
    browser_page: Page, base_url: str
) -> None:
    """Sign-up, the owner's page on the session's cookie (a write carries its CSRF token:
    a new API token), sign-out ending the session, a wrong password said, sign-in."""
    context = _patient(browser_page.context.browser.new_context())  # cookies of its own
    page = context.new_page()
    try:
        page.goto(f"{base_url}/signup")
        page.fill("#account-name", "carol")
        page.fill("#account-password", "short")
        page.click("#account-form button")
        expect(page).to_have_url(f"{base_url}/signup")  # the browser's own check first
        page.fill("#account-password", "password123")
        page.locator("#account-password").evaluate("input => input.minLength = 0")
        page.click("#account-form button")
        expect(page.locator("#account-error")).to_contain_text("most common")
        page.fill("#account-password", "carol's long passphrase")
        page.click("#account-form button")
        expect(page).to_have_url(f"{base_url}/owner")
        expect(page.locator("#owner-name")).to_have_text("carol")
        page.click("#rotate")  # a write on the cookie: it carries the CSRF token
        expect(page.locator("#new-token")).to_contain_text("arena_")
        page.click("#sign-out")
        expect(page.locator("#sign-in")).to_be_visible()
        page.reload()
        expect(page.locator("#sign-in")).to_be_visible()
        expect(page.locator("#account")).to_be_hidden()
        page.goto(f"{base_url}/signin")
        page.fill("#account-name", "Carol")
        page.fill("#account-password", "not the passphrase")
        page.click("#account-form button")
        expect(page.locator("#account-error")).to_contain_text("no account has this name")
        page.fill("#account-password", "carol's long passphrase")
        page.click("#account-form button")
        expect(page.locator("#owner-name")).to_have_text("carol")
        _tokens_on_the_account_page(page, base_url)
    finally:
        context.close()


def _tokens_on_the_account_page(page: Page, base_url: str) -> None:
    """/account: a read-only token made (shown once), listed, revoked; a script holding
    it reads and may not submit."""
    page.goto(f"{base_url}/account")
    expect(page.locator("#account-owner")).to_have_text("carol")
    page.fill("#token-label", "laptop")
    page.click("#token-form button")
    expect(page.locator("#token-made")).to_contain_text("arena_")
    token = page.locator("#token-made").inner_text().rsplit(" ", 1)[-1]
    expect(page.locator("#tokens tbody tr")).to_have_count(1)
    expect(page.locator("#tokens .token-state")).to_have_text("live")
    headers = {"Authorization": f"Bearer {token}"}
    assert page.request.get(f"{base_url}/api/v1/owners/me", headers=headers).ok
    bot = {"name": "carols", "kind": "sample", "target": "honest"}
    refused = page.request.post(f"{base_url}/api/v1/bots", data=bot, headers=headers)
    assert refused.status == 403
    page.click("#tokens button")
    expect(page.locator("#tokens .token-state")).to_have_text("revoked")
    assert page.request.get(f"{base_url}/api/v1/owners/me", headers=headers).status == 401


def _at_the_console(page: Page, base_url: str, name: str, password: str) -> None:
    """Sign in on the site as an operator's account, then open /admin."""
    page.goto(f"{base_url}/signin")
    page.fill("#account-name", name)
    page.fill("#account-password", password)
    page.click("#account-form button")
    expect(page).to_have_url(f"{base_url}/owner")
    page.goto(f"{base_url}/admin")


def test_an_operator_suspends_an_account_from_the_console_with_a_reason(
    served: tuple[FastAPI, str], browser_page: Page, base_url: str
) -> None:
    """/admin: an account with the operator's role finds an account, suspends it with a
    reason, reads the audit log; the suspended account's token stops working."""
    from arena.services import accounts as account_service
    from arena.services import operators as operator_service

    app, _ = served
    db = app.state.platform.db
    for name, password, address in (
        ("olga", "olga's operator passphrase", "10.0.0.1"),
        ("victor", "victor's own passphrase", "10.0.0.2"),
    ):
        account_service.sign_up(db, name, password, address, hashing=TEST_HASHING)
    operator_service.grant(db, "olga", "operator")
    context = _patient(browser_page.context.browser.new_context())
    page = context.new_page()
    try:
        page.goto(f"{base_url}/admin")
        expect(page.locator("#not-operator")).to_be_visible()
        _at_the_console(page, base_url, "olga", "olga's operator passphrase")
        page.fill("#find-name", "vic")
        page.click("#find-form button")
        expect(page.locator("#accounts tbody tr")).to_have_count(1)
        page.click("#accounts button[data-account=victor]")
        expect(page.locator("#console-status")).to_contain_text("say why")
        page.fill("#moderation-reason", "bots playing as a team")
        page.click("#accounts button[data-account=victor]")
        expect(page.locator("#accounts .account-state")).to_have_text("suspended")
        expect(page.locator("#audit tbody tr").first).to_contain_text("bots playing as a team")
        expect(page.locator("#audit tbody tr").first).to_contain_text("olga")
    finally:
        context.close()
    signed = TestClient(app).post(
        "/api/v1/sessions", json={"name": "victor", "password": "victor's own passphrase"}
    )
    assert signed.status_code == 403 and "bots playing as a team" in signed.text


def _sign_up_in(context, base_url: str, name: str) -> Page:
    """A new browser of ``context`` signed up as ``name``, on its /owner page."""
    page = context.new_page()
    page.goto(f"{base_url}/signup")
    page.fill("#account-name", name)
    page.fill("#account-password", f"{name}'s own long passphrase")
    page.click("#account-form button")
    expect(page.locator("#owner-name")).to_have_text(name)
    return page


def _ranked(arena, bot: str, elsewhere: ThreadPoolExecutor) -> None:
    """What workers do until ``bot`` has played a ranked table of the default competition:
    seat the ladder's tables, play them (beside Playwright's loop), record them."""
    with arena.db.read() as session:
        ladder_id = competitions.default(session).tournament_id
    for _ in range(20):
        with arena.db.read() as session:
            played = session.scalar(
                select(Entry.games)
                .join(BotVersion, BotVersion.id == Entry.bot_version_id)
                .join(RegisteredBot, RegisteredBot.id == BotVersion.bot_id)
                .where(Entry.tournament_id == ladder_id, RegisteredBot.name == bot)
            )
        if played:
            return
        for match_id, _ in ladder.refill(arena.db, ladder_id):
            plan = match_store.claim(arena.db, match_id, "test")
            if plan is not None:
                assert match_store.record(arena.db, plan, elsewhere.submit(play, plan).result(), 1)
    raise AssertionError(f"{bot} was never seated")


def test_a_team_is_made_joined_by_a_link_ranked_and_disqualified_from_the_console(
    served: tuple[FastAPI, str], browser_page: Page, base_url: str
) -> None:
    """Two people in two browsers: ada signs up and makes a team, invites ben by a link;
    ben signs up, joins, and submits a bot for the team; ada sees it ranked; the
    operator disqualifies it from the console with a reason, which both members read."""
    from arena.services import accounts as account_service
    from arena.services import operators as operator_service

    app, _ = served
    arena = app.state.platform
    with arena.db.read() as session:
        default = competitions.default(session)
        ranked_in = default.name if default is not None else "main"
    if default is None:  # another worker ran the tests that open one
        arena.db.transaction(
            lambda s: competitions.create(
                s,
                "main",
                Ruleset.parse("classic"),
                3,
                tables=1,
                bot_names=SAMPLES[:2],
                default=True,
            )
        )
    elsewhere = ThreadPoolExecutor(1)  # workers run beside Playwright's loop
    browser = browser_page.context.browser
    first, second, console = (_patient(browser.new_context()) for _ in range(3))
    try:
        ada = _sign_up_in(first, base_url, "ada")
        ada.fill("#team-name", "stars")
        ada.click("#team-form button[type=submit]")
        stars = ada.locator('#my-teams section[data-team="stars"]')
        expect(stars).to_contain_text("ada (captain)")
        stars.locator("button", has_text="Invite someone").click()
        link = stars.locator(".invite-link").inner_text()
        assert link.startswith(f"{base_url}/owner?join=join_")

        ben = _sign_up_in(second, base_url, "ben")
        ben.goto(link)
        ben.click("#join-offered")
        expect(ben.locator("#team-status")).to_contain_text("You joined stars.")
        expect(ben.locator('#my-teams section[data-team="stars"]')).to_contain_text("ben (member)")
        ben.goto(link)  # the code works once
        ben.click("#join-offered")
        expect(ben.locator("#team-status")).to_contain_text("used already")
        ben.select_option("#bot-team", "stars")
        ben.fill("#bot-name", "starbot")
        ben.fill("#bot-source", TALKER.read_text())
        ben.click("#submit-form button")
        expect(ben.locator("#submission")).to_contain_text("starbot v1: pending")
        elsewhere.submit(run_queued_jobs, arena).result()
        expect(ben.locator("#submission")).to_contain_text("ready: qualified")
        _ranked(arena, "starbot", elsewhere)

        ada.reload()
        mine = ada.locator('#my-bots section[data-bot="starbot"]')
        expect(mine).to_contain_text("Team stars")
        expect(mine.locator("p.standing")).to_contain_text(f"{ranked_in}: rank ")

        account_service.sign_up(
            arena.db, "oscar", "oscar's operator passphrase", "10.0.0.9", hashing=TEST_HASHING
        )
        operator_service.grant(arena.db, "oscar", "operator")
        admin = console.new_page()
        _at_the_console(admin, base_url, "oscar", "oscar's operator passphrase")
        admin.fill("#find-bot", "star")
        admin.click("#find-bots-form button")
        row = admin.locator('#found-bots tr[data-bot="starbot"]')
        expect(row).to_contain_text("stars")
        admin.fill("#moderation-reason", "shares its hands with another team's bot")
        row.locator("button", has_text="Disqualify the bot").click()
        expect(row).to_contain_text("disqualified: shares its hands")
        expect(admin.locator("#audit tbody tr").first).to_contain_text("disqualify")

        for page in (ada, ben):
            page.reload()
            said = page.locator('#my-bots section[data-bot="starbot"] .disqualified')
            expect(said).to_contain_text("shares its hands with another team's bot")
        board = ada.request.get(f"{base_url}/api/v1/competitions/{ranked_in}").json()
        assert "starbot" not in {row["bot"] for row in board["leaderboard"]}
        team_page = ada.request.get(f"{base_url}/teams/stars").text()
        assert "ada (captain), ben" in team_page and "disqualified" in team_page
    finally:
        for context in (first, second, console):
            context.close()
