"""Take the README screenshot of the dashboard (docs/img/dashboard.png) from a realistic state.

The demo game is played up to move 13 (Black has a king after a3xc1); Black then ignores the
compulsory king capture and plays a quiet move, which the dashboard flags (čl. 4.1). The game is held by
the rules-backed test companion; the camera panel shows the scene rendered by ``vision.render`` for the
board as it stands, with the overlay drawn by the real vision pipeline when it reads that board
correctly (otherwise the plain frame, so the picture never shows a misread board).

    .venv/bin/python tests/webui/make_screenshot.py [--out docs/img/dashboard.png] [--theme light|dark]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from fake_companion import FakeCompanion  # noqa: E402
from serving import serve  # noqa: E402

from dama.demo.script import demo_script  # noqa: E402
from rules import Color  # noqa: E402
from webui import create_app  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
PLIES_BEFORE = 13


class SceneCompanion(FakeCompanion):
    """The test companion with a rendered camera image of the board the camera sees."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: str | None = None
        self._jpeg: dict[bool, bytes] = {}

    def render(self, board: str) -> None:
        from vision.render import random_scene_params, render_scene

        params = random_scene_params(np.random.default_rng(3), size=(960, 540))
        image = render_scene(board, params).image
        overlaid = image
        try:
            from vision.pipeline import VisionPipeline

            vp = VisionPipeline()
            res = vp.process(image)
            if res.found and res.board == board:
                overlaid = vp.draw_overlay(image, res, self.highlight())
            else:
                print("make_screenshot: vision does not read this board yet; showing the plain frame",
                      file=sys.stderr)
        except Exception as exc:  # the vision pipeline is optional for a screenshot
            print(f"make_screenshot: no overlay ({exc})", file=sys.stderr)
        self._jpeg = {o: bytes(cv2.imencode(".jpg", im, [cv2.IMWRITE_JPEG_QUALITY, 88])[1])
                      for o, im in ((False, image), (True, overlaid))}

    def highlight(self) -> list[str]:
        return [s for a in self.snapshot("1")["alerts"] for s in a["squares"]]

    def frame_jpeg(self, board: str, overlay: bool = True) -> bytes | None:
        return self._jpeg.get(overlay)


def build_state(c: SceneCompanion) -> None:
    script = demo_script()
    t = 0.0
    for text in script.moves[:PLIES_BEFORE]:
        t += 9.5
        c.play("1", text, t=round(t, 1))
    pos = c._games["1"].position
    assert pos.turn == Color.BLACK and pos.has_capture()
    captures = [m for m in pos.legal_moves() if m.is_capture]
    quiet = next(quiet_steps(pos))
    board = list(pos.board_string())
    board[quiet[1]], board[quiet[0]] = board[quiet[0]], "."
    best = captures[0]
    squares = [best.path_names()[0], *best.captured_names()]
    msg = f"Black played {quiet[2]} instead of capturing with the king on {squares[0]}"
    c.flag("1", "missed_capture", squares, msg, side="black")
    c.render("".join(board))


def quiet_steps(pos):
    """Quiet steps of Black's men (what a player who overlooks the capture might play)."""
    from rules.squares import SQUARE_NAMES, square_at

    board = pos.board_string()
    for i, ch in enumerate(board):
        if ch != "b":
            continue
        f, r = ord(SQUARE_NAMES[i][0]) - 97, int(SQUARE_NAMES[i][1]) - 1
        for df in (-1, 1):
            j = square_at(f + df, r - 1)
            if j is not None and board[j] == ".":
                yield i, j, f"{SQUARE_NAMES[i]}-{SQUARE_NAMES[j]}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(Path(__file__).parents[2] / "docs" / "img" / "dashboard.png"))
    parser.add_argument("--theme", default="light", choices=("light", "dark", "contrast"))
    parser.add_argument("--width", type=int, default=1440)
    parser.add_argument("--height", type=int, default=1040)
    args = parser.parse_args(argv)
    if not Path(CHROMIUM).exists():
        print("make_screenshot: chromium is not installed (apt-get install chromium)", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    c = SceneCompanion()
    app = create_app(c, {"SSE_HEARTBEAT": 1.0})
    with serve(app) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        # bypass_csp: Playwright's waiting helpers evaluate strings, which the page's CSP forbids
        context = browser.new_context(viewport={"width": args.width, "height": args.height}, bypass_csp=True)
        page = context.new_page()
        page.add_init_script(f"localStorage.setItem('dama.theme', '{args.theme}')")
        page.goto(url + "/")
        page.wait_for_selector("body[data-ready=true]")
        build_state(c)
        page.wait_for_selector("#alerts[data-open=true]")
        page.wait_for_function("!document.querySelector('#camera').hidden")
        time.sleep(0.5)
        page.screenshot(path=args.out)
        page.close()
        time.sleep(1.2)
        browser.close()
    print(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
