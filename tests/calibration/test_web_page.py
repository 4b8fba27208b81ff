"""The dashboard's calibration page and its JSON API, around a companion that serves a rendered frame."""

from __future__ import annotations

import json
import re

import cv2
import numpy as np
import pytest

from calibration.board import corner_error
from vision.render import random_scene_params, render_scene
from webui import create_app

START = "wwwwwwwwwwww........bbbbbbbbbbbb"


class FrameCompanion:
    """Just enough of a companion: one board and the picture the camera sees."""

    def __init__(self, image: np.ndarray | None) -> None:
        self.image = image
        self.controls: list[tuple[str, str, dict]] = []

    def boards(self) -> list[str]:
        return ["1"]

    def snapshot(self, board: str) -> dict:
        return {"board": board}

    def frame_jpeg(self, board: str, overlay: bool = True) -> bytes | None:
        if self.image is None:
            return None
        return cv2.imencode(".jpg", self.image, [cv2.IMWRITE_JPEG_QUALITY, 95])[1].tobytes()

    def subscribe(self):
        raise NotImplementedError

    def control(self, board: str, action: str, **params) -> dict:
        self.controls.append((board, action, params))
        return {"ok": True}

    def pdn(self, board: str) -> str:
        return ""


@pytest.fixture(scope="module")
def scene():
    params = random_scene_params(np.random.default_rng(1), size=(640, 360))
    return render_scene(START, params)


@pytest.fixture
def setup(scene, tmp_path):
    companion = FrameCompanion(scene.image)
    app = create_app(companion, {"TESTING": True, "CALIBRATION_PROFILES": {"1": str(tmp_path / "p.json")}})
    return app.test_client(), companion, tmp_path / "p.json"


def test_page_renders_with_its_script(setup):
    client, _, _ = setup
    page = client.get("/calibration")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert "calibration.js" in text and 'data-board="1"' in text and "čl. 2.4" in text
    assert client.get("/static/calibration.js").status_code == 200


def test_find_save_learn_check(setup, scene):
    client, companion, path = setup
    assert client.get("/api/calibration/state").get_json()["corners"] is None
    first = client.get("/api/calibration/check").get_json()
    assert first["ok"] is False and first["checklist"][0]["name"] == "board found"
    suggested = first["suggested"]
    truth = np.array(list(scene.corners.values()))
    for point in suggested.values():  # the same four points; their names are settled on saving
        assert np.min(np.linalg.norm(truth - np.array(point), axis=1)) < 3.0
    saved = client.post("/api/calibration/corners",
                        json={"board": "1", "corners": list(suggested.values()), "white_side": None})
    assert saved.status_code == 200, saved.get_json()
    data = saved.get_json()
    named = {k: tuple(v) for k, v in data["corners"].items()}
    assert corner_error(named, scene.corners) < 3.0  # the names were read from the pieces
    assert len(data["grid"]) == 18 and data["source"] == "manual"
    assert json.loads(path.read_text())["board"]["source"] == "manual"
    assert companion.controls[-1] == ("1", "reload_profile", {"path": str(path)})
    learned = client.post("/api/calibration/learn", json={"board": "1"}).get_json()
    assert [i["name"] for i in learned["checklist"]] == ["board found", "orientation correct",
                                                          "pieces read correctly", "lighting acceptable",
                                                          "kings' height in view"]
    kings = learned["checklist"][4]  # advice, never a fault: ticked where every square shows it, else null
    assert kings["ok"] in (True, None) and (kings["ok"] is True) == ("all 32" in kings["detail"])
    pieces = learned["checklist"][2]
    read = int(re.fullmatch(r"(\d+)/32 squares", pieces["detail"]).group(1))
    # how many squares the vision pipeline reads right is vision's figure; the page must report it faithfully
    assert pieces["ok"] is (read == 32)
    assert len([p for p in learned["problems"] if p["square"]]) == 32 - read
    again = client.get("/api/calibration/check").get_json()
    assert again["checklist"][:3] == learned["checklist"][:3]


def test_turning_white_to_another_side_breaks_the_rule(setup, scene):
    client, _, _ = setup
    pts = [list(scene.corners[k]) for k in ("a1", "h1", "h8", "a8")]
    client.post("/api/calibration/corners", json={"corners": pts, "white_side": None})
    state = client.get("/api/calibration/state").get_json()
    quarter = {"bottom": "right", "right": "top", "top": "left", "left": "bottom"}[state["white_side"]]
    client.post("/api/calibration/corners", json={"corners": pts, "white_side": quarter})
    checked = client.get("/api/calibration/check").get_json()
    orientation = checked["checklist"][1]
    assert orientation["name"] == "orientation correct" and orientation["ok"] is False
    assert "čl. 2.4" in orientation["detail"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"corners": [[1, 2]]}, "four [x, y] points"),
        ({"corners": [[0, 0], [10, "a"], [10, 10], [0, 10]]}, "not an [x, y] pair"),
        ({"corners": [[0, 0], [600, 0], [300, 0], [0, 300]]}, "convex"),
        ({"corners": [[0, 0], [600, 0], [600, 300], [0, 300]], "white_side": "north"}, "white side"),
    ],
)
def test_bad_corners_are_400_with_a_message(setup, body, message):
    client, _, path = setup
    resp = client.post("/api/calibration/corners", json=body)
    assert resp.status_code == 400
    assert message in resp.get_json()["error"]
    assert not path.exists()


def test_broken_profile_is_a_message(setup):
    client, _, path = setup
    path.write_text("{ not json")
    resp = client.get("/api/calibration/state")
    assert resp.status_code == 422
    assert "broken JSON" in resp.get_json()["error"]


def test_no_picture(tmp_path):
    app = create_app(FrameCompanion(None), {"TESTING": True, "CALIBRATION_PROFILES": str(tmp_path / "p.json")})
    client = app.test_client()
    data = client.get("/api/calibration/check").get_json()
    assert data["checklist"][0] == {"name": "board found", "ok": False, "detail": "no camera picture"}
    resp = client.post("/api/calibration/learn", json={})
    assert resp.status_code == 409 and "camera picture" in resp.get_json()["error"]


def test_moved_board_is_reported(setup, scene):
    client, _, _ = setup
    pts = np.array([scene.corners[k] for k in ("a1", "h1", "h8", "a8")])
    square = np.linalg.norm(pts[1] - pts[0]) / 8
    shifted = pts + [1.5 * square, 0]  # corners saved before someone nudged the board
    assert client.post("/api/calibration/corners", json={"corners": shifted.tolist(), "white_side": "bottom"}
                       ).status_code == 200
    checked = client.get("/api/calibration/check").get_json()
    assert checked["checklist"][0]["ok"] is False and "moved" in checked["checklist"][0]["detail"]
    for point in checked["suggested"].values():
        assert np.min(np.linalg.norm(pts - np.array(point), axis=1)) < 3.0
