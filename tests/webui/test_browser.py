"""The dashboard in a real browser: headless Debian Chromium driven by Playwright, served by waitress.

Moves and a violation are fed to the companion while the page is open; the page must show them live,
announce them in its aria-live regions, log no console errors, pass axe-core without serious violations
and be fully usable with the keyboard alone.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from fake_companion import FakeCompanion
from serving import open_page, serve

from webui import create_app

AXE = Path(__file__).parent / "vendor" / "axe.min.js"

pytestmark = pytest.mark.slow


@pytest.fixture
def live(browser):
    """A served dashboard, its companion and an open page that records console errors."""
    companion = FakeCompanion()
    app = create_app(companion, {"SSE_HEARTBEAT": 1.0, "FRAME_INTERVAL_MS": 200})
    with serve(app) as url:
        context, page, errors = open_page(browser, url + "/", 1360, 1000)
        page.wait_for_selector("body[data-ready=true]")
        page.wait_for_selector("#conn[data-ok=true]")
        yield companion, page, errors
        context.close()
        time.sleep(1.2)  # let the SSE thread notice the closed page (heartbeat) before the server stops


def live_text(page, politeness: str) -> str:
    return page.locator(f"#live-{politeness}").inner_text()


def test_moves_and_alerts_appear_live(live, tmp_path):
    companion, page, errors = live
    for m in ("c3-d4", "f6-e5"):
        companion.play("1", m, t=1.0)
    page.wait_for_function("document.querySelector('#moves tbody').innerText.includes('f6-e5')")
    assert page.locator("#moves tbody tr").first.inner_text().split() == ["1.", "c3-d4", "f6-e5"]
    page.wait_for_function("document.querySelector('#live-polite').innerText.includes('Black: f6 to e5.')")
    assert "White: c3 to d4." in live_text(page, "polite")

    companion.flag("1", "missed_capture", ["d4", "e5"], "d4xf6 was compulsory")
    page.wait_for_selector("#alerts[data-open=true]")
    alert = page.locator("#alert-list .alert").inner_text()
    assert "Missed capture — capturing is compulsory (čl. 4.1)" in alert and "d4, e5" in alert
    page.wait_for_function("document.querySelector('#live-assertive').innerText.includes('missed capture')")
    # the alert squares are marked on the board with a cross (rules.svg), not by colour alone
    assert page.locator("#board svg g.highlight.missed").count() == 2

    companion.set_status("1", hand=True, state="hand")
    companion.set_status("1", board_found=False, state="no_board")
    page.wait_for_selector("#status[data-state=no_board]")
    assert "Board not found" in page.locator("#status").inner_text()
    page.wait_for_function("document.querySelector('#live-assertive').innerText.includes('does not see the board')")

    page.wait_for_function("!document.querySelector('#camera').hidden")
    shot = Path(os.environ.get("DAMA_WEBUI_SHOTS", tmp_path)) / "dashboard-test.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 20_000
    print(f"screenshot: {shot}")
    assert errors == []


def test_axe_finds_no_serious_violations(live):
    companion, page, errors = live
    companion.play("1", "c3-d4")
    companion.play("1", "f6-e5")
    companion.flag("1", "missed_capture", ["d4", "e5"], "d4xf6 was compulsory")
    page.wait_for_selector("#alerts[data-open=true]")
    for theme in ("light", "dark", "contrast"):
        page.select_option("#pref-theme", theme)
        assert serious_axe_violations(page) == [], theme
    page.check("#pref-large")
    assert serious_axe_violations(page) == [], "large text"
    assert errors == []


def serious_axe_violations(page) -> list[str]:
    """axe-core's serious and critical findings on the page as it is now."""
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    return [f"{v['id']} ({v['impact']}): {v['help']} — {[n['target'] for n in v['nodes']][:3]}"
            for v in result["violations"] if v["impact"] in ("serious", "critical")]


def test_keyboard_alone_reads_the_position_and_uses_every_control(live):
    companion, page, errors = live
    for m in ("c3-d4", "f6-e5"):
        companion.play("1", m)
    page.wait_for_function("document.querySelector('#moves tbody').innerText.includes('f6-e5')")
    page.locator("body").focus()

    expected = {
        "l": "Last move: move 1, Black, f6-e5.",
        "4": "Rank 4: b4 empty, d4 white man, f4 empty, h4 empty.",
        "x": "White to move must capture: d4xf6.",
        "b": "Black: 12 men on",
        "r": "Black: 12 men on",
    }
    for key, text in expected.items():
        before = page.evaluate("Number(document.body.dataset.announced || 0)")
        page.keyboard.press(key)
        page.wait_for_function(f"Number(document.body.dataset.announced) > {before}")
        assert page.locator("#live-polite p").last.inner_text().startswith(text), key

    # the command field does the same for screen readers in forms mode
    page.keyboard.press("Tab")
    reached = []
    for _ in range(40):
        reached.append(page.evaluate("(() => { const e = document.activeElement;"
                                     " return e.dataset.action || e.id || e.textContent.trim(); })()"))
        page.keyboard.press("Tab")
    for needed in ("pref-theme", "pref-large", "command", "new_game", "flip", "setup_from_camera", "accept",
                   "takeback", "pdn-link", "camera-toggle"):
        assert needed in reached, f"{needed} not reachable with Tab: {reached}"

    page.focus("#command")
    page.keyboard.type("rank 3")
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelector('#live-polite p:last-child').innerText.startsWith('Rank 3')")

    # a confirmation dialog is left with Escape: nothing happens and the focus comes back
    page.focus("button[data-action=new_game]")
    page.keyboard.press("Enter")
    page.wait_for_selector("#confirm[open]")
    page.keyboard.press("Escape")
    page.wait_for_selector("#confirm", state="hidden")
    assert page.evaluate("document.activeElement.dataset.action") == "new_game"
    page.wait_for_timeout(300)  # the dialog's late close event must not turn into an answer
    assert companion.controls == []

    # setting up from the camera asks who is to move
    page.focus("button[data-action=setup_from_camera]")
    page.keyboard.press("Enter")
    page.wait_for_selector("#confirm[open]")
    assert page.locator("#confirm button[value=ok]").is_hidden()
    tab_to(page, "#confirm button[value=black]")
    page.keyboard.press("Enter")
    try:
        page.wait_for_function("document.querySelector('#control-msg').innerText.includes('Set up from camera')",
                               timeout=10_000)
    except Exception as exc:
        state = page.evaluate("""() => ({open: document.querySelector('#confirm').open,
            rv: document.querySelector('#confirm').returnValue, msg: document.querySelector('#control-msg').innerText,
            focus: document.activeElement.outerHTML.slice(0, 80)})""")
        raise AssertionError(f"no answer to the set-up: {state}, controls {companion.controls}, "
                             f"errors {errors}") from exc
    assert page.locator("#control-msg").inner_text().endswith("Set up from camera: done.")
    assert companion.controls == [("1", "setup_from_camera", {"turn": "black"})]  # and nothing else
    assert companion.snapshot("1")["turn"] == "black" and companion.snapshot("1")["moves"] == []
    for m in ("e5xc3", "b2xd4", "g7-f6"):  # moves from the new position, to take one back below
        companion.play("1", m)
    page.wait_for_function("document.querySelector('#moves tbody').innerText.includes('g7-f6')")

    # Flip with Enter, take back with Space and confirm in the dialog with the keyboard
    page.focus("button[data-action=flip]")
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelector('#control-msg').innerText.includes('Flip board: done')")
    assert companion.snapshot("1")["flipped"] is True
    page.focus("button[data-action=takeback]")
    page.keyboard.press("Space")
    page.wait_for_selector("#confirm[open]")
    tab_to(page, "#confirm button[value=ok]")
    page.keyboard.press("Enter")
    page.wait_for_function("!document.querySelector('#moves tbody').innerText.includes('g7-f6')")
    assert [m["move"] for m in companion.snapshot("1")["moves"]] == ["e5xc3", "b2xd4"]
    assert page.evaluate("document.activeElement.dataset.action") == "takeback"
    assert errors == []


def test_squares_the_camera_misreads_are_asked_for_and_shown(live):
    """The button asks which squares to read from the game (a prompt, prefilled with those set) and the
    camera's caption lists them; cancelling the prompt sends nothing."""
    companion, page, errors = live
    page.once("dialog", lambda d: d.accept("e5 a1"))
    page.click("button[data-action=mask_squares]")
    page.wait_for_function("document.querySelector('#camera-info').innerText.includes('read from the game')")
    assert companion.controls == [("1", "mask_squares", {"squares": "e5 a1"})]
    assert page.locator("#camera-info").inner_text().endswith("read from the game, not the camera: a1, e5")
    prompts = []
    page.once("dialog", lambda d: (prompts.append(d.default_value), d.dismiss()))
    page.click("button[data-action=mask_squares]")
    page.wait_for_timeout(300)
    assert prompts == ["a1 e5"] and len(companion.controls) == 1
    assert errors == []


def tab_to(page, selector: str, limit: int = 6) -> None:
    """Press Tab until ``selector`` has the focus (a modal dialog keeps Tab inside itself)."""
    for _ in range(limit):
        if page.evaluate(f"document.activeElement === document.querySelector({selector!r})"):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"{selector} not reached with Tab; focus is on "
                         + page.evaluate("document.activeElement.outerHTML.slice(0, 80)"))


def test_overview_follows_each_board_live(browser):
    companion = FakeCompanion(("hall-1", "hall-2"))
    with serve(create_app(companion, {"SSE_HEARTBEAT": 1.0})) as url:
        context, page, errors = open_page(browser, url + "/")
        page.wait_for_selector("#conn[data-ok=true]")
        companion.play("hall-2", "c3-d4")
        companion.play("hall-2", "f6-e5")
        companion.flag("hall-2", "missed_capture", ["d4"], "d4xf6 was compulsory")
        page.wait_for_selector(".card[data-board=hall-2][data-alert=true]")
        assert "f6-e5" in page.locator(".card[data-board=hall-2] .card-last").inner_text()
        assert page.locator(".card[data-board=hall-1]").get_attribute("data-alert") == "false"
        page.wait_for_function("document.querySelector('#live-assertive').innerText.includes('Board hall-2:')")
        page.click(".card[data-board=hall-2] a")
        page.wait_for_selector("body[data-ready=true]")
        assert page.url.endswith("/board/hall-2")
        assert "Missed capture" in page.locator("#alert-list").inner_text()
        page.go_back()
        page.wait_for_selector(".card[data-board=hall-2][data-alert=true]")
        assert serious_axe_violations(page) == []
        assert errors == []
        context.close()
        time.sleep(1.2)


def test_token_in_the_address_unlocks_the_controls(browser):
    companion = FakeCompanion()
    token = "tok-" + "x" * 12
    with serve(create_app(companion, {"SSE_HEARTBEAT": 1.0, "CONTROL_TOKEN": token})) as url:
        context, page, errors = open_page(browser, url + "/")
        page.wait_for_selector("body[data-ready=true]")
        assert page.locator("#token-row").is_visible()
        page.click("button[data-action=flip]")
        page.wait_for_function("document.querySelector('#control-msg').innerText.startsWith('Refused')")
        assert companion.snapshot("1")["flipped"] is False
        assert page.evaluate("document.activeElement.id") == "token"
        context.close()

        context, page, errors = open_page(browser, f"{url}/?token={token}")
        page.wait_for_selector("body[data-ready=true]")
        assert "token" not in page.url  # taken out of the address bar (and so out of history)
        page.click("button[data-action=flip]")
        page.wait_for_function("document.querySelector('#control-msg').innerText.includes('done')")
        assert companion.snapshot("1")["flipped"] is True
        # the 401 of the first page was expected; this page has no errors
        assert errors == []
        context.close()
        time.sleep(1.2)


def test_page_reconnects_and_catches_up_on_what_it_missed(live):
    companion, page, errors = live
    companion.play("1", "c3-d4")
    page.wait_for_function("document.querySelector('#moves tbody').innerText.includes('c3-d4')")
    companion.end_streams()
    page.wait_for_selector("#conn[data-ok=false]")
    companion.play("1", "f6-e5")  # no page hears this event
    page.wait_for_selector("#conn[data-ok=true]", timeout=15_000)
    page.wait_for_function("document.querySelector('#moves tbody').innerText.includes('f6-e5')")
    assert errors == []


def test_camera_is_fetched_only_while_visible(live):
    companion, page, errors = live
    frames: list[str] = []
    page.on("request", lambda r: frames.append(r.url) if "/api/frame.jpg" in r.url else None)
    # (events reach Python only while Playwright is called: wait with page.wait_for_timeout, not sleep)
    page.wait_for_timeout(1200)
    assert len(frames) >= 3  # a few per second while on screen
    page.click("#camera-toggle")  # Hide
    page.wait_for_timeout(500)
    n = len(frames)
    page.wait_for_timeout(1200)
    assert len(frames) == n and page.locator("#camera-fig").is_hidden()
    page.click("#camera-toggle")  # Show again
    page.wait_for_timeout(1000)
    assert len(frames) > n
    page.set_viewport_size({"width": 1360, "height": 300})  # camera scrolled out of view
    page.evaluate("window.scrollTo(0, 0)")
    page.wait_for_timeout(600)
    n = len(frames)
    page.wait_for_timeout(1200)
    assert len(frames) <= n + 1  # at most the request already under way
    assert errors == []


def test_page_polls_when_the_server_refuses_more_live_streams(browser):
    companion = FakeCompanion()
    with serve(create_app(companion, {"SSE_MAX_STREAMS": 0})) as url:
        context, page, errors = open_page(browser, url + "/")
        page.wait_for_selector("body[data-ready=true]")
        page.wait_for_selector("#conn[data-ok=false]")
        companion.play("1", "c3-d4")
        page.wait_for_function("document.querySelector('#moves tbody').innerText.includes('c3-d4')",
                               timeout=10_000)
        assert all("503" in e for e in errors), errors  # only the refused stream itself
        context.close()


def test_game_over_is_shown_and_said(live):
    companion, page, errors = live
    companion.play("1", "c3-d4")
    companion.finish("1", "0-1", "White resigned")
    page.wait_for_selector("#status[data-state=game_over]")
    assert page.locator("#status .status-text").inner_text() == "Game over: Black wins (White resigned)"
    assert page.locator("#result").inner_text() == "Result: 0-1"
    page.wait_for_function("document.querySelector('#live-assertive').innerText.includes('Black wins')")
    assert errors == []
