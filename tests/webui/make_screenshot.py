"""Take the README screenshot of the dashboard (docs/img/dashboard.png) from a real run.

The demo game is rendered by ``vision.render`` up to move 13 (Black has a king after a3xc1), followed by
a board where Black ignores the compulsory king capture and plays a quiet move instead. ``dama demo``
runs on that video (camera frames → vision → stabilizer → referee → dashboard); once the missed capture
is flagged, Chromium takes the screenshot: a mid-game state with an alert, the real camera overlay.

    .venv/bin/python tests/webui/make_screenshot.py [--out docs/img/dashboard.png] [--theme light|dark|contrast]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from dama_run import dama_demo, render_demo_video  # noqa: E402

from dama.demo.script import demo_script  # noqa: E402
from rules import Color, Position  # noqa: E402
from rules.squares import SQUARE_NAMES, square_at  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
PLIES_BEFORE = 13


def boards_with_a_missed_capture() -> list[str]:
    """The demo's boards up to ply ``PLIES_BEFORE``, then Black's quiet man step instead of a capture."""
    script = demo_script()
    # a move step's note starts with its ply number: "13. white c3-d4"
    end = next(i for i, s in enumerate(script.steps) if s.kind == "move" and s.note.startswith(f"{PLIES_BEFORE}. "))
    boards = script.boards[: end + 1]
    pos = Position.start()
    for text in script.moves[:PLIES_BEFORE]:
        pos = pos.play(pos.parse_move(text))
    if pos.turn != Color.BLACK or not pos.has_capture():
        raise SystemExit("make_screenshot: the demo script changed; pick another ply")
    board = list(pos.board_string())
    for i, ch in enumerate(board):
        if ch != "b":
            continue
        f, r = ord(SQUARE_NAMES[i][0]) - 97, int(SQUARE_NAMES[i][1]) - 1
        for df in (-1, 1):
            j = square_at(f + df, r - 1)
            if j is not None and board[j] == ".":
                board[j], board[i] = "b", "."
                return [*boards, "".join(board)]
    raise SystemExit("make_screenshot: no quiet step for Black")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(Path(__file__).parents[2] / "docs" / "img" / "dashboard.png"))
    parser.add_argument("--theme", default="light", choices=("light", "dark", "contrast"))
    parser.add_argument("--width", type=int, default=1440)
    parser.add_argument("--height", type=int, default=1080)
    args = parser.parse_args(argv)
    if not Path(CHROMIUM).exists():
        print("make_screenshot: chromium is not installed (apt-get install chromium)", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    work = Path(tempfile.mkdtemp(prefix="dama-shot-"))
    print("make_screenshot: rendering the video…", file=sys.stderr)
    video = render_demo_video(boards_with_a_missed_capture(), work / "game.mp4")
    with dama_demo(video, work / "out", "--fast") as (url, output), sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        # bypass_csp: Playwright's waiting helpers evaluate strings, which the page's CSP forbids
        context = browser.new_context(viewport={"width": args.width, "height": args.height}, bypass_csp=True)
        context.add_init_script(f"localStorage.setItem('dama.theme', '{args.theme}')")
        deadline = time.monotonic() + 300
        while not any("source has ended" in line for line in output):  # the whole video is read
            if time.monotonic() > deadline:
                print("make_screenshot: the run did not end; it said:\n" + "\n".join(output), file=sys.stderr)
                return 1
            time.sleep(0.5)
        page = context.new_page()
        page.goto(url + "/")
        page.wait_for_selector("body[data-ready=true]")
        if page.locator("#alerts[data-open=true]").count() == 0:
            print("make_screenshot: no alert is open at the end; the run said:\n" + "\n".join(output),
                  file=sys.stderr)
            return 1
        page.wait_for_function("!document.querySelector('#camera').hidden")
        time.sleep(1.0)
        page.screenshot(path=args.out)
        context.close()
        browser.close()
    print(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
