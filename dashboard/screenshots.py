"""Screenshots of the dashboard for the README: ``python -m dashboard.screenshots DIR``.

Plays a small tournament of the sample bots into a temporary database, serves the
dashboard, and photographs the leaderboard, a replay and a person's table in headless
Chromium.
"""

from __future__ import annotations

import sys
import tempfile
import threading
import time
from pathlib import Path

import uvicorn

from arena.base.states import BotKind
from arena.engine import Ruleset
from arena.platform.redis_server import free_port
from arena.platform.settings import Settings
from arena.services import bots as bot_service
from arena.services import tournaments as tournament_service
from arena.services.tournaments import TournamentRequest
from dashboard.app import create_app
from worker.local import play_through

SAMPLES = ["counter", "honest", "random", "bluffer"]
#: Debian's Chromium headless shell (``make browser`` installs it)
CHROMIUM = "/usr/lib/chromium/chromium-headless-shell"
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


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(Settings(Path(tmp), f"sqlite:///{tmp}/arena.db", None))
        db = app.state.platform.db
        for sample in SAMPLES:
            bot_service.add(db, sample, BotKind.SAMPLE, sample, max_matches=None)
        rules = Ruleset.parse("classic")
        tournament_service.create(
            db, TournamentRequest(name="demo", rules=rules, bots=SAMPLES, games=48, seed="demo")
        )
        ids = play_through(db, "demo", "screenshots")
        port = free_port()
        server = uvicorn.Server(uvicorn.Config(app, port=port, log_level="warning"))
        threading.Thread(target=server.run, daemon=True).start()
        while not server.started:
            time.sleep(0.05)
        _shoot(f"http://127.0.0.1:{port}", ids[0], out)
        server.should_exit = True


def _shoot(base: str, match_id: int, out: Path) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 560})
        page.goto(f"{base}/tournaments/demo")
        page.screenshot(path=str(out / "leaderboard.png"), full_page=True)
        page.set_viewport_size({"width": 1280, "height": 720})
        _replay_step(page, f"{base}/matches/{match_id}", out / "replay.png")
        page.goto(f"{base}/bots/{SAMPLES[0]}")
        page.locator("svg.chart circle.mark").nth(20).hover()
        page.screenshot(path=str(out / "bot.png"), full_page=True)
        page.set_viewport_size({"width": 400, "height": 800})
        _replay_step(page, f"{base}/matches/{match_id}", out / "replay-phone.png")
        page.set_viewport_size({"width": 1280, "height": 900})
        _table(page, base, out / "table.png")
        browser.close()


def _table(page, base: str, path: Path) -> None:
    """A photograph of a person's table at their turn, a card of their hand chosen."""
    page.goto(f"{base}/play")
    page.locator("#sit").click()
    page.wait_for_url("**/tables/*")
    page.locator("#status").filter(has_text="Your turn").wait_for()
    page.locator(".seat.mine button.card").first.click()
    page.screenshot(path=str(path), full_page=True)


def _replay_step(page, url: str, path: Path, steps: int = 7) -> None:
    """A photograph of a replay a few steps in."""
    page.goto(url)
    for _ in range(steps):
        page.keyboard.press("ArrowRight")
    page.screenshot(path=str(path), full_page=True)


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/screenshots"))
