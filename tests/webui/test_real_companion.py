"""The dashboard API on the real companion (dama.companion) fed a demo-style run: the contract between
the two, checked end to end with the real stabilizer, referee and game record."""

from __future__ import annotations

import pytest
from demo_feed import DemoFeed
from test_api import parse_messages, read_sse

from webui import create_app


@pytest.fixture(scope="module")
def feed():
    f = DemoFeed(steps=12)
    yield f
    f.close()


def test_state_events_control_and_pdn_on_the_real_companion(feed):
    app = create_app(feed.companion, {"SSE_HEARTBEAT": 0.3})
    client = app.test_client()
    stream = client.get("/api/events", buffered=False)
    read_sse(stream, "connected")

    illegal = feed.index_of("illegal")
    feed.play(illegal + 1)
    state = client.get("/api/state").get_json()
    assert [m["move"] for m in state["moves"]] == feed.script.moves[:3]
    (alert,) = state["alerts"]
    assert alert["kind"] == "missed_capture" and alert["title"].endswith("(čl. 4.1)")
    svg = client.get("/api/board.svg").get_data(as_text=True)
    assert all(f"<title>{sq}: missed capture</title>" in svg for sq in alert["squares"])
    assert "capture" in client.get("/api/read?what=captures").get_json()["text"]

    text = read_sse(stream, '"violation"')
    events = parse_messages(text)
    moves = [e for e in events if e["event"] == "move"]
    assert [e["move"] for e in moves] == feed.script.moves[:3]
    assert all(e["say"] and e["politeness"] == "polite" for e in moves)
    violation = next(e for e in events if e["event"] == "violation")
    assert violation["politeness"] == "assertive" and "(čl. 4.1)" in violation["say"]

    feed.show(illegal + 1)  # the piece goes back
    assert client.get("/api/state").get_json()["alerts"] == []
    feed.show(illegal + 2)  # and Black captures
    assert client.get("/api/state").get_json()["moves"][-1]["move"] == feed.script.moves[3]

    frame = client.get("/api/frame.jpg")
    assert frame.status_code == 200 and frame.data[:2] == b"\xff\xd8"
    pdn = client.get("/api/pdn?download=1")
    assert pdn.headers["Content-Disposition"] == 'attachment; filename="dama-1.pdn"'
    text = pdn.get_data(as_text=True)
    assert '[GameType "29' in text and all(m in text for m in feed.script.moves[:4])

    r = client.post("/api/control", json={"action": "takeback"})
    assert r.status_code == 200
    assert len(client.get("/api/state").get_json()["moves"]) == 3
    r = client.post("/api/control", json={"action": "accept"})
    assert r.status_code in (200, 400)  # nothing to accept: the companion says so, never a traceback
    r = client.post("/api/control", json={"action": "flip"})
    assert r.get_json()["flipped"] is True
    stream.close()

