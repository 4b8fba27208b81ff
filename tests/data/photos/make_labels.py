"""How the labels in this folder were made (run once by hand; kept so the labelling can be repeated).

    .venv/bin/python tests/data/photos/make_labels.py /work/shared/photos [PHOTO.jpg ...]

(with photo names, only those are labelled again.)

Corners of the 8×8 playing area, in image pixels, for every photo of ../shared/photos:

* empty boards: OpenCV's ``findChessboardCornersSB`` on the full 7×7 inner pattern (independent of our
  detector), a homography fitted to the 49 inner corners, and the outer corners extrapolated from it;
* boards with pieces: our detector's proposal, drawn on the photo and checked by eye; where the eye saw
  the grid one square off, the proposal was moved by one square (``SHIFTS`` below, by image direction);
* photos where neither gave the board: corners left null (the board is fully in view, so these count
  as misses in "board found", but give no corner error).

The pieces in desafio_damas stand on the *light* squares of a printed board, so those photos carry no
32-square observation (``board`` null): our observation is defined on the dark squares (čl. 2.4).

The fhgr photos show wooden discs on the playing squares (the darker blue of a blue/green board, the red
of a red/green one, whose two colours are about equally light). Their observations (``BOARDS``) were read
by eye from the photos with each dark square's name drawn at its centre. Kings are written as kings
(``W``/``B``) on the three ``whites`` photos, which that project took to show men and kings side by side:
the discs on e5, g7 and g3 are two stacked, twice as tall as the single ones on c5 and b2, in all three
(``kings_labelled``, added 2026-12-01 by eye at full resolution). On the other three photos kings are
written as men: two stacked thick discs are not told apart with certainty by eye there. ``a1``: the outer corner of a1,
the bottom-left one in all six (the player sits at the bottom edge, the printed ``A``/``1`` corner).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2
import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent.parent))

from vision.localize import NotFound, _apply, localize_frame, to_gray  # noqa: E402

# Seen by eye on the drawn proposals: the grid must move one square towards this image direction.
SHIFTS = {
    "IMG-20240827-WA0044.jpg": (0, -1),
    "IMG-20240827-WA0066.jpg": (0, -1),
    "IMG-20240827-WA0062.jpg": (1, 0),
    "IMG-20240827-WA0068.jpg": (1, 0),
    "IMG-20240902-WA0169.jpg": (1, 0),
    "IMG-20240902-WA0170.jpg": (1, 0),
}
EMPTY = {"IMG-20240826-WA0081.jpg", "IMG-20240826-WA0083.jpg", "IMG-20240826-WA0085.jpg",
         "IMG-20240826-WA0087.jpg", "IMG-20240826-WA0089.jpg", "IMG-20240826-WA0091.jpg",
         "IMG-20240827-WA0055.jpg", "IMG-20240827-WA0060.jpg"}
# Observation order a1, c1, e1, g1, b2, … h8 (docs/DESIGN.md); kings written as men but in KINGS_LABELLED.
BOARDS = {
    "board-v2.jpg": "b..b.........w.....b........b..b",
    "full-board-v2.jpg": "b..b.w....w.bw.w...bw..b..b.bw.b",
    "full-board.jpg": "wbwb..w.b.b..b..bbww.w.ww..bwbwb",
    "whites.jpg": "....b......B.....wW........W....",
    "whites2.jpg": "....b......B.....wW........W....",
    "whites3.jpg": "....b......B.....wW........W....",
}
KINGS_LABELLED = {"whites.jpg", "whites2.jpg", "whites3.jpg"}
# Which printed board each fhgr photo shows: "calibrated" figures learn on one photo, read another of it.
BOARD_IDS = {"board-v2.jpg": "fhgr blue/green", "full-board-v2.jpg": "fhgr blue/green"}
LATTICE = np.array([[0, 0], [8, 0], [8, 8], [0, 8]], dtype=np.float64)


def sb_corners(gray: np.ndarray) -> np.ndarray | None:
    ok, pts = cv2.findChessboardCornersSB(gray, (7, 7), flags=cv2.CALIB_CB_EXHAUSTIVE | cv2.CALIB_CB_ACCURACY)
    if not ok:
        return None
    grid = np.array([[i, j] for j in range(1, 8) for i in range(1, 8)], dtype=np.float64)
    h, _ = cv2.findHomography(grid, pts.reshape(-1, 2).astype(np.float64), 0)
    return _apply(h, LATTICE)


def shifted(h: np.ndarray, direction: tuple[int, int]) -> np.ndarray:
    """Outer corners after moving the lattice window one square towards an image direction."""
    centre = _apply(h, np.array([[4.0, 4.0]]))[0]
    best = max(((1, 0), (-1, 0), (0, 1), (0, -1)),
               key=lambda d: float(np.dot(_apply(h, np.array([[4.0 + d[0], 4.0 + d[1]]]))[0] - centre, direction)))
    return _apply(h, LATTICE + np.array(best, dtype=np.float64))


def main(root: Path, only: set[str]) -> None:
    for path in sorted(root.glob("*/*.jpg")):
        if only and path.name not in only:
            continue
        frame = cv2.imread(str(path))
        gray = to_gray(frame)
        corners, source = None, None
        if path.name in EMPTY:
            c = sb_corners(gray)
            if c is not None:
                corners, source = c, "findChessboardCornersSB on the empty board (independent of our detector)"
        if corners is None:
            try:
                fit = localize_frame(frame)
                if path.name in SHIFTS:
                    corners, source = shifted(fit.h, SHIFTS[path.name]), "detector proposal moved one square by eye"
                else:
                    corners, source = _apply(fit.h, LATTICE), "detector proposal checked by eye"
            except NotFound:
                pass
        desafio = path.parent.name == "desafio_damas"
        label = {
            "image": f"{path.parent.name}/{path.name}",
            "full_board": True,
            "corners": None if corners is None else np.round(corners, 2).tolist(),
            "corner_source": source,
            "pieces_on": ("none" if path.name in EMPTY else "light squares") if desafio else "dark squares",
            "board": BOARDS.get(path.name),
            "note": "corners: outer corners of the 8x8 squares, clockwise in the image, any start",
        }
        if label["board"] is not None and corners is not None:
            h_img, _ = gray.shape
            label["board_id"] = BOARD_IDS.get(path.name, "fhgr red/green")
            label["a1"] = min(label["corners"], key=lambda p: float(np.hypot(p[0], p[1] - h_img)))
            if path.name in KINGS_LABELLED:
                label["note"] += "; board: kings written as kings (two stacked discs, told by eye beside single ones)"
                label["kings_labelled"] = True
            else:
                label["note"] += "; board: kings written as men"
        out = HERE / f"{path.parent.name}__{path.stem}.json"
        out.write_text(json.dumps(label, indent=1) + "\n", encoding="utf-8")
        print(out.name, source)


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "/work/shared/photos"), set(sys.argv[2:]))
