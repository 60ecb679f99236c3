"""End to end in a real headless Chromium (Debian's package, driven by Playwright)."""

from __future__ import annotations

import re
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn
from fastapi.testclient import TestClient
from playwright.sync_api import Page, Route, expect, sync_playwright

from arena.settings import Settings
from arena.store.owners import add_owner
from dashboard.app import create_app
from tests.test_api import played_tournament

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data: Path = tmp_path_factory.mktemp("browser")
    app = create_app(Settings(data, f"sqlite:///{data / 'arena.db'}", "redis://127.0.0.1:6379/13"))
    _, token = app.state.platform.db.transaction(lambda s: add_owner(s, "e2e"))
    played_tournament(TestClient(app), token, app.state.platform, games=4)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser_page(base_url: str) -> Iterator[Page]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        yield page
        browser.close()


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
    leader = rows.first.locator("td.bot a").inner_text()
    rows.first.locator("td.bot a").click()
    expect(page.locator("h1.bot-name")).to_have_text(leader)
    assert page.locator("svg.chart polyline.mu").get_attribute("points").count(",") == 4

    page.goto(f"{base_url}/matches?tournament=cup")
    expect(page.locator("table.matches tbody tr")).to_have_count(4)
    page.locator("table.matches tbody tr").first.locator("a").first.click()
    expect(page.locator("#seats tbody tr")).to_have_count(4)
    position = page.locator("#position")
    expect(position).to_have_text(re.compile(r"^step 0 / \d+ · deal 1$"))
    total = int(re.search(r"/ (\d+)", position.inner_text()).group(1))
    expect(page.locator("#hands .hand")).to_have_count(4)
    dealt = page.locator("#hands .hand .card").count()
    assert dealt == 36, "every card of the 36-card deck is in a hand at the deal"
    expect(page.locator("#frame-events li").first).to_contain_text("dealt")

    page.click("#forward")
    expect(position).to_have_text(re.compile(r"^step 1 / "))
    expect(page.locator("#frame-title")).to_contain_text("play")
    expect(page.locator("#frame-events li").first).to_contain_text("claiming")
    assert page.locator("#hands .hand .card").count() < dealt, "the played cards left the hand"
    page.keyboard.press("ArrowRight")
    expect(position).to_have_text(re.compile(r"^step 2 / "))
    page.keyboard.press("ArrowLeft")
    expect(position).to_have_text(re.compile(r"^step 1 / "))
    page.click("#last")
    expect(position).to_have_text(re.compile(rf"^step {total} / {total}"))
    expect(page.locator("#frame-events")).to_contain_text("deal over")
    expect(page.locator("#table-state")).to_contain_text("phase over")


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
        page.goto(f"{base_url}/bots/nosuchbot")
        expect(page.locator("h1")).to_have_text("Not found")
        expect(page.locator("p.error")).to_contain_text("no bot named 'nosuchbot'")
        page.goto(f"{base_url}/matches?page=abc")
        expect(page.locator("h1")).to_have_text("Bad request")
    finally:
        page.unroute("**/*")
    assert elsewhere == []
