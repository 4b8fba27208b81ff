"""The dashboard in Chromium during a real ``dama demo`` run on a short rendered video: camera frames
through vision, stabilizer and referee, served by waitress in its own process (issue 3 acceptance)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from dama_run import dama_demo, render_demo_video
from serving import open_page

from dama.demo.script import demo_script

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def short_video(tmp_path_factory):
    """The demo up to Black's capture after the missed capture (about 50 s of video)."""
    script = demo_script()
    last = next(i for i, s in enumerate(script.steps) if s.kind == "move" and s.note.startswith("5."))
    return render_demo_video(script.boards[: last + 1], tmp_path_factory.mktemp("video") / "short.mp4")


def test_dashboard_follows_a_real_demo_run(browser, short_video, tmp_path):
    script = demo_script()
    with dama_demo(short_video, tmp_path / "out") as (url, output):
        try:
            context, page, errors = open_page(browser, url + "/")
            page.wait_for_selector("body[data-ready=true]")
            page.wait_for_selector("#conn[data-ok=true]")
            first, second = script.moves[:2]
            page.wait_for_function(f"document.querySelector('#moves tbody').innerText.includes('{second}')",
                                   timeout=60_000)
            assert page.locator("#moves tbody tr").first.inner_text().split()[:3] == ["1.", first, second]
            page.wait_for_function("document.querySelector('#live-polite').innerText.includes('White: a3 to b4.')")

            page.wait_for_selector("#alerts[data-open=true]", timeout=60_000)
            assert "Missed capture — capturing is compulsory (čl. 4.1)" in page.locator("#alert-list").inner_text()
            assert page.locator("#board svg g.highlight.missed").count() >= 1
            page.wait_for_function("document.querySelector('#live-assertive').innerText.includes('(čl. 4.1)')")
            page.wait_for_selector("#alerts[data-open=false]", timeout=30_000)  # the piece was put back
            page.wait_for_function(f"document.querySelector('#moves tbody').innerText.includes('{script.moves[3]}')",
                                   timeout=60_000)
            page.wait_for_function("!document.querySelector('#camera').hidden")
            shot = Path(os.environ.get("DAMA_WEBUI_SHOTS", tmp_path)) / "dashboard-dama-demo.png"
            page.screenshot(path=str(shot), full_page=True)
            assert errors == [], errors
            context.close()
        except Exception as exc:  # say what the run printed: the pipeline is the usual suspect
            raise AssertionError(f"{exc}\n--- dama demo said:\n" + "\n".join(output[-30:])) from exc
    assert any(line.startswith("dashboard: http://127.0.0.1:") for line in output)
