"""The calibration page in Chromium: corners found, saved, dragged (the grid follows), colours learned.

Run as a script to write the screenshot used in docs/calibration.md:
    .venv/bin/python tests/calibration/test_browser_page.py docs/img/calibration.png
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "webui"))

from serving import serve  # noqa: E402
from test_web_page import START, FrameCompanion  # noqa: E402

from webui import create_app  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]


def _app(profile: Path):
    from vision.render import random_scene_params, render_scene

    image = render_scene(START, random_scene_params(np.random.default_rng(1), size=(640, 360))).image
    return create_app(FrameCompanion(image), {"CALIBRATION_PROFILES": str(profile), "FRAME_INTERVAL_MS": 1000})


def drive(page, base: str) -> dict:
    """Use the page as a person would; returns what it showed at each step."""
    seen: dict = {}
    page.goto(f"{base}/calibration")
    page.wait_for_selector(".cal-handle")
    page.click("#btn-auto")
    page.wait_for_selector("#cal-msg:has-text('Corners found')")
    page.click("#btn-save")
    page.wait_for_selector("#cal-msg:has-text('Corners saved')")
    seen["labels"] = page.eval_on_selector_all(".cal-label", "els => els.map(e => e.textContent)")
    grid = "document.querySelector('.cal-grid').getAttribute('points')"
    seen["grid_before"] = page.evaluate(grid)
    handle = page.locator(".cal-handle").first
    box = handle.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + 30, box["y"] + 20, steps=4)
    page.mouse.up()
    seen["grid_dragged"] = page.evaluate(grid)
    page.locator(".cal-handle").first.focus()
    page.keyboard.press("Shift+ArrowLeft")
    seen["grid_keyboard"] = page.evaluate(grid)
    page.click("#btn-auto")  # back to the saved corners
    page.wait_for_selector("#cal-msg:has-text('Using the saved')")
    page.click("#btn-learn")
    page.wait_for_selector("#cal-checklist li:nth-child(5)")
    items = "els => els.map(e => e.className + ' ' + e.textContent)"
    seen["checklist"] = page.eval_on_selector_all("#cal-checklist li", items)
    left = "els => els.map(e => e.getBoundingClientRect().left)"
    seen["checklist_left"] = page.eval_on_selector_all("#cal-checklist li", left)
    return seen


@pytest.mark.slow
def test_page_in_chromium(tmp_path):
    if not os.path.exists(CHROMIUM):
        pytest.skip("chromium is not installed (Debian package `chromium`; scripts/system-deps.sh installs it)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright Python package is not installed")
    with serve(_app(tmp_path / "p.json")) as base, sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            seen = drive(browser.new_page(viewport={"width": 1200, "height": 800}), base)
        finally:
            browser.close()
    assert sorted(seen["labels"]) == ["a1", "a8", "h1", "h8"]
    assert seen["grid_before"] != seen["grid_dragged"] != seen["grid_keyboard"]
    assert seen["checklist"][0].startswith("ok board found")
    assert any(re.fullmatch(r"(ok|bad) pieces read correctly: \d+/32 squares", item) for item in seen["checklist"])
    # where the camera shows a king's height: ticked, or shown as advice (a dash), never as a fault
    kings = r"(ok|advice) kings' height in view: a king's height shows on"
    assert any(re.match(kings, item) for item in seen["checklist"])
    # every item on the page where it belongs (a class shared with the skip link once hid one off screen)
    assert len(set(seen["checklist_left"])) == 1 and seen["checklist_left"][0] > 0
    assert (tmp_path / "p.json").exists()


if __name__ == "__main__":
    from playwright.sync_api import sync_playwright

    out = Path(sys.argv[1] if len(sys.argv) > 1 else "calibration.png")
    profile = Path("/tmp/dama-calibration-screenshot.json")
    profile.unlink(missing_ok=True)  # start as a new user would, without saved corners
    with serve(_app(profile)) as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        page = browser.new_page(viewport={"width": 1200, "height": 760})
        print(drive(page, base)["checklist"])
        page.screenshot(path=str(out), full_page=True)
        browser.close()
    print(f"wrote {out}")
