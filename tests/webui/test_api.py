"""Every route of the dashboard through Flask's test client, with the rules-backed fake companion."""

from __future__ import annotations

import json
import time

import pytest
from fake_companion import FakeCompanion

from webui import create_app, needs_token, new_token

ORIGIN = "http://localhost"


def play_opening(c: FakeCompanion) -> None:
    for m in ("c3-d4", "f6-e5"):
        c.play("1", m)


def test_state_is_the_companion_snapshot(client, companion):
    play_opening(companion)
    r = client.get("/api/state")
    assert r.status_code == 200
    body = r.get_json()
    assert body["board_string"] == companion.snapshot("1")["board_string"]
    assert [m["move"] for m in body["moves"]] == ["c3-d4", "f6-e5"]
    companion.flag("1", "king_priority", ["d4"], "the king on a1 must capture")
    alert = client.get("/api/state").get_json()["alerts"][0]
    assert alert["title"] == "King must capture — a king has priority over a man (čl. 4.14)"
    assert alert["squares"] == ["d4"] and alert["message"] == "the king on a1 must capture"
    assert r.headers["Cache-Control"] == "no-store"


def test_unknown_board_is_a_json_404_naming_the_boards(client):
    r = client.get("/api/state?board=9")
    assert r.status_code == 404
    assert "'9'" in r.get_json()["error"] and "1" in r.get_json()["error"]


def test_several_boards_need_a_board_parameter():
    c = FakeCompanion(("a", "b"))
    client = create_app(c).test_client()
    r = client.get("/api/state")
    assert r.status_code == 400 and "a, b" in r.get_json()["error"]
    assert client.get("/api/state?board=b").get_json()["board"] == "b"


def test_index_is_the_board_page_for_one_board(client):
    r = client.get("/")
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    assert 'data-board="1"' in html and 'aria-live="assertive"' in html and 'aria-live="polite"' in html
    assert "Accept position (čl. 5.7)" in html
    assert 'href="/calibration?board=1"' in html  # the calibration page of issue 5 is one click away
    # nothing is loaded from another host (the machine is offline at run time)
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "") and "https://" not in html


def test_overview_lists_every_board_and_links_their_pages():
    c = FakeCompanion(("hall-1", "hall-2"))
    client = create_app(c).test_client()
    html = client.get("/").get_data(as_text=True)
    assert "/board/hall-1" in html and "/board/hall-2" in html
    page = client.get("/board/hall-2")
    assert page.status_code == 200 and 'data-board="hall-2"' in page.get_data(as_text=True)
    assert client.get("/board/nope").status_code == 404


def test_static_assets_are_served(client):
    for name in ("dashboard.css", "common.js", "board.js", "overview.js", "prefs.js", "favicon.svg"):
        assert client.get(f"/static/{name}").status_code == 200, name


def test_board_svg_marks_alert_squares_and_the_last_move(client, companion):
    play_opening(companion)
    plain = client.get("/api/board.svg").get_data(as_text=True)
    assert "<title>f6: last move</title>" in plain and "<title>e5: last move</title>" in plain
    assert "missed capture" not in plain
    companion.flag("1", "missed_capture", ["d4", "e5"], "d4xf6 was compulsory")
    r = client.get("/api/board.svg?size=300")
    assert r.mimetype == "image/svg+xml"
    svg = r.get_data(as_text=True)
    assert svg.startswith("<svg") and 'width="300"' in svg
    assert "<title>d4: missed capture</title>" in svg and "<title>e5: missed capture</title>" in svg


def test_frame_is_a_jpeg_or_204(client, companion):
    r = client.get("/api/frame.jpg")
    assert r.status_code == 200 and r.mimetype == "image/jpeg" and r.data[:2] == b"\xff\xd8"
    assert client.get("/api/frame.jpg?overlay=0").data != r.data
    companion.set_frame("1", False)
    assert client.get("/api/frame.jpg").status_code == 204


def test_pdn_download(client, companion):
    play_opening(companion)
    r = client.get("/api/pdn?download=1")
    assert r.status_code == 200 and "1. c3-d4 f6-e5" in r.get_data(as_text=True)
    assert r.headers["Content-Disposition"] == 'attachment; filename="dama-1.pdn"'
    assert "Content-Disposition" not in client.get("/api/pdn").headers


def test_control_runs_the_action(client, companion):
    play_opening(companion)
    r = client.post("/api/control", json={"action": "takeback", "board": "1"})
    assert r.status_code == 200 and r.get_json()["ok"] is True
    assert [m["move"] for m in companion.snapshot("1")["moves"]] == ["c3-d4"]
    r = client.post("/api/control", json={"action": "flip"})
    assert r.get_json()["flipped"] is True and companion.snapshot("1")["flipped"] is True


def test_control_passes_parameters_and_reports_refusals(client, companion):
    r = client.post("/api/control", json={"action": "setup_from_camera", "turn": "black"})
    assert r.status_code == 200 and companion.controls[-1] == ("1", "setup_from_camera", {"turn": "black"})
    assert companion.snapshot("1")["turn"] == "black"
    r = client.post("/api/control", json={"action": "accept"})
    assert r.status_code == 400 and "no violation" in r.get_json()["error"]


@pytest.mark.parametrize("body, fragment", [
    ({"action": "explode"}, "unknown action"),
    ({"board": "1"}, "unknown action"),
    ({"action": "flip", "fen": {"x": 1}}, "parameter 'fen'"),
    ({"action": "flip", "board": "7"}, "unknown board"),
])
def test_bad_control_requests_get_clear_messages(client, body, fragment):
    r = client.post("/api/control", json=body)
    assert r.status_code in (400, 404) and fragment in r.get_json()["error"]


def test_control_without_json_body_is_refused(client):
    r = client.post("/api/control", data="flip")
    assert r.status_code == 400 and "JSON" in r.get_json()["error"]


def test_cross_origin_posts_are_refused(client, companion):
    r = client.post("/api/control", json={"action": "flip"}, headers={"Origin": "http://evil.example"})
    assert r.status_code == 403 and "cross-origin" in r.get_json()["error"]
    r = client.post("/api/control", json={"action": "flip"}, headers={"Sec-Fetch-Site": "cross-site"})
    assert r.status_code == 403
    assert companion.snapshot("1")["flipped"] is False
    ok = client.post("/api/control", json={"action": "flip"},
                     headers={"Origin": ORIGIN, "Sec-Fetch-Site": "same-origin"})
    assert ok.status_code == 200


def test_controls_without_token_answer_only_to_loopback_names(client, companion):
    """DNS rebinding: a foreign name resolving to 127.0.0.1 passes the origin check but not this one."""
    rebound = {"Host": "evil.example:8000", "Origin": "http://evil.example:8000"}
    r = client.post("/api/control", json={"action": "flip"}, headers=rebound)
    assert r.status_code == 403 and "127.0.0.1 or localhost" in r.get_json()["error"]
    for host in ("127.0.0.1:8000", "localhost:8000", "[::1]:8000"):
        assert client.post("/api/control", json={"action": "flip"}, headers={"Host": host}).status_code == 200
    assert client.get("/api/state", headers=rebound).status_code == 200  # views stay open


def test_token_guards_controls_but_not_views(companion):
    token = new_token()
    client = create_app(companion, {"CONTROL_TOKEN": token}).test_client()
    assert client.post("/api/control", json={"action": "flip"}).status_code == 401
    wrong = {"X-Control-Token": "x" * 22}
    assert client.post("/api/control", json={"action": "flip"}, headers=wrong).status_code == 401
    assert client.post("/api/control", json={"action": "flip"}, headers={"X-Control-Token": token}).status_code == 200
    assert client.post("/api/control", json={"action": "flip", "token": token}).status_code == 200
    lan = {"Host": "192.168.1.20:8000", "X-Control-Token": token}
    assert client.post("/api/control", json={"action": "flip"}, headers=lan).status_code == 200
    assert companion.controls == [("1", "flip", {})] * 3
    for url in ("/", "/api/state", "/api/pdn", "/api/board.svg", "/api/frame.jpg", "/api/read?what=status"):
        assert client.get(url).status_code == 200, url
    assert 'data-token-required="true"' in client.get("/").get_data(as_text=True)


def test_a_short_token_is_refused_at_start(companion):
    with pytest.raises(ValueError, match="at least 8"):
        create_app(companion, {"CONTROL_TOKEN": "abc"})


@pytest.mark.parametrize("host, needed", [
    ("127.0.0.1", False), ("localhost", False), ("::1", False), ("127.0.0.2", False),
    ("0.0.0.0", True), ("", True), ("192.168.1.20", True), ("board.local", True),
])
def test_needs_token(host, needed):
    assert needs_token(host) is needed


def test_security_headers(client):
    r = client.get("/")
    assert "default-src 'self'" in r.headers["Content-Security-Policy"]
    assert r.headers["X-Frame-Options"] == "DENY"


def test_read_answers_questions_about_the_position(client, companion):
    play_opening(companion)
    assert client.get("/api/read?what=captures").get_json()["text"] == "White to move must capture: d4xf6."
    assert client.get("/api/read?what=last_move").get_json()["text"] == "Last move: move 1, Black, f6-e5."
    assert client.get("/api/read?what=rank&arg=4").get_json()["text"].startswith("Rank 4: b4 empty, d4 white man")
    bad = client.get("/api/read?what=rank&arg=9")
    assert bad.status_code == 400 and "1 to 8" in bad.get_json()["error"]
    assert client.get("/api/read?what=dance").status_code == 400


# --- Server-Sent Events -----------------------------------------------------------------------------

def read_sse(response, until: str, limit: float = 5.0) -> str:
    """Read the streamed body until ``until`` appears (the generator blocks between events)."""
    text, deadline = "", time.monotonic() + limit
    it = iter(response.response)
    while until not in text and time.monotonic() < deadline:
        chunk = next(it)
        text += chunk.decode() if isinstance(chunk, bytes) else chunk
    return text


def parse_messages(text: str) -> list[dict]:
    out = []
    for block in text.split("\n\n"):
        data = [line[6:] for line in block.split("\n") if line.startswith("data: ")]
        if data:
            out.append(json.loads("\n".join(data)))
    return out


def test_sse_stream_sends_each_event_as_a_data_line_with_an_announcement(app, companion):
    client = app.test_client()
    r = client.get("/api/events", buffered=False)
    assert r.mimetype == "text/event-stream" and r.headers["Cache-Control"] == "no-store"
    first = read_sse(r, "connected")
    assert first.startswith("retry: ")
    assert companion.subscribers == 1
    play_opening(companion)
    companion.flag("1", "missed_capture", ["d4", "e5"], "d4xf6 was compulsory")
    text = read_sse(r, '"violation"')
    blocks = [b for b in text.split("\n\n") if "data: " in b]
    assert all(b.startswith("id: ") and b.count("\ndata: ") == 1 for b in blocks)
    events = parse_messages(text)
    assert [e["event"] for e in events] == ["move", "move", "violation"]
    assert events[0]["say"] == "White: c3 to d4." and events[0]["politeness"] == "polite"
    assert events[2]["politeness"] == "assertive"
    assert "missed capture" in events[2]["say"] and "(čl. 4.1)" in events[2]["say"]
    r.close()
    assert companion.subscribers == 0


def test_sse_heartbeat_comment_when_idle(app, companion):
    r = app.test_client().get("/api/events", buffered=False)
    text = read_sse(r, ": heartbeat", limit=3.0)
    assert ": heartbeat\n\n" in text
    r.close()


def test_sse_filters_by_board():
    c = FakeCompanion(("a", "b"))
    app = create_app(c, {"SSE_HEARTBEAT": 0.3})
    r = app.test_client().get("/api/events?board=b", buffered=False)
    read_sse(r, "connected")
    c.play("a", "c3-d4")
    c.play("b", "e3-f4")
    events = parse_messages(read_sse(r, '"move"'))
    assert [(e["board"], e["move"]) for e in events] == [("b", "e3-f4")]
    r.close()


def test_sse_ends_when_the_subscription_is_closed(app, companion):
    """A closed subscription answers get() at once with None: the stream must end, not spin."""
    r = app.test_client().get("/api/events", buffered=False)
    read_sse(r, "connected")
    sub = companion._subs[0]
    sub.get = lambda timeout=None: None  # type: ignore[method-assign]
    rest = "".join(c.decode() if isinstance(c, bytes) else c for c in r.response)
    assert "data:" not in rest and ": heartbeat" not in rest
    assert companion.subscribers == 0


def test_event_streams_are_limited_and_given_back(companion):
    app = create_app(companion, {"SSE_HEARTBEAT": 0.3, "SSE_MAX_STREAMS": 2})
    client = app.test_client()
    first = client.get("/api/events", buffered=False)
    second = client.get("/api/events", buffered=False)
    third = client.get("/api/events")
    assert third.status_code == 503 and "polling" in third.get_json()["error"]
    assert companion.subscribers == 2
    first.close()
    assert companion.subscribers == 1  # closed even though its stream was never read
    again = client.get("/api/events", buffered=False)
    assert again.status_code == 200
    second.close()
    again.close()
    assert companion.subscribers == 0 and app.extensions["dama_sse_slots"].open == 0
