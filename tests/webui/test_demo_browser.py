"""The dashboard in Chromium during a demo-style run: the real companion, stabilizer and referee play the
demo script while the page is open (frames rendered by vision.render, read by ground truth)."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest
from demo_feed import DemoFeed
from serving import open_page, serve

from board_io.announce import Announcer
from webui import create_app

pytestmark = pytest.mark.slow

# Records every paragraph added to the two live regions, as a screen reader would hear them.
RECORD_LIVE_REGIONS = """() => {
  window.__said = [];
  for (const p of ['polite', 'assertive']) {
    new MutationObserver((records) => {
      for (const r of records) for (const n of r.addedNodes) window.__said.push([p, n.textContent]);
    }).observe(document.getElementById('live-' + p), {childList: true});
  }
}"""


def test_a_demo_run_shows_moves_alert_and_capture_live(browser, tmp_path):
    feed = DemoFeed(steps=14)
    illegal = feed.index_of("illegal")
    partial = feed.index_of("partial")
    seen_alert = threading.Event()
    stop = threading.Event()

    def run() -> None:
        feed.play(illegal + 1, pause=0.4, stop=stop)
        seen_alert.wait(20)  # hold the illegal position until the page has shown it
        for i in range(illegal + 1, len(feed.steps)):
            if stop.is_set():
                return
            feed.show(i)
            if i == partial:
                stop.wait(1.5)  # a capture under way, pieces not yet removed
            stop.wait(0.4)

    with serve(create_app(feed.companion, {"SSE_HEARTBEAT": 1.0, "FRAME_INTERVAL_MS": 200})) as url:
        context, page, errors = open_page(browser, url + "/")
        page.wait_for_selector("#conn[data-ok=true]")
        page.evaluate(RECORD_LIVE_REGIONS)
        heard = feed.companion.subscribe()  # what a listener of the event stream hears, to compare
        player = threading.Thread(target=run, daemon=True)
        player.start()
        try:
            first, second = feed.script.moves[:2]
            page.wait_for_function(f"document.querySelector('#moves tbody').innerText.includes('{second}')")
            assert page.locator("#moves tbody tr").first.inner_text().split()[:3] == ["1.", first, second]
            page.wait_for_selector("#alerts[data-open=true]", timeout=20_000)
            assert "(čl. 4.1)" in page.locator("#alert-list").inner_text()
            page.wait_for_function("document.querySelector('#live-assertive').innerText.includes('(čl. 4.1)')")
            assert page.locator("#board svg g.highlight.missed").count() >= 1
            seen_alert.set()
            page.wait_for_selector("#alerts[data-open=false]")
            page.wait_for_selector("#status[data-state=capture_pending]", timeout=20_000)
            page.wait_for_function("document.querySelector('#live-polite').innerText.includes('Remove the pieces')")
            page.wait_for_function("!document.querySelector('#camera').hidden")
            page.wait_for_selector("#status[data-state=waiting]", timeout=20_000)
            played = page.locator("#moves tbody").inner_text().split()
            assert all(m in played for m in feed.script.moves[:5])
            # every announcement reached the aria-live regions, in order, with its politeness
            expected = []
            announcer = Announcer("en")
            while (event := heard.get(0.2)) is not None:
                said = announcer(event)
                if said is not None:
                    expected.append([said.politeness, said.text])
            assert len(expected) >= 10
            heard.close()
            assert page.evaluate("window.__said") == expected
            feed.session.source_status("lost", "camera 0 lost; reconnecting in 2 s")
            page.wait_for_function("document.querySelector('#camera-info').innerText.includes('reconnecting')")
            shot = Path(os.environ.get("DAMA_WEBUI_SHOTS", tmp_path)) / "dashboard-demo.png"
            page.screenshot(path=str(shot), full_page=True)
            assert errors == []
        finally:
            seen_alert.set()
            stop.set()
            player.join(10)
            context.close()
            time.sleep(1.2)
            feed.close()
