"""The real Companion behind the real dashboard app (Flask test client): the contract both sides use."""

import pytest
from fakes import FakeVision, frames_for, referee_factory

from dama.bus import EventBus
from dama.companion import BoardSession, Companion
from dama.demo.script import demo_script
from vision.stabilizer import Stabilizer


@pytest.fixture
def companion():
    webui = pytest.importorskip("webui")
    bus = EventBus()
    comp = Companion(bus)
    session = comp.add(BoardSession("main", bus, vision=FakeVision(), stabilizer=Stabilizer(0.5),
                                    referee_factory=referee_factory()))
    script = demo_script()
    boards = [s.board for s in script.steps[:6]]  # through the missed capture and its correction
    for frame in frames_for(boards, fps=10):
        session.process(frame.t, frame.image)
    yield comp, webui.create_app(comp).test_client(), script
    comp.close()


def test_state_pdn_frame_and_control_through_the_app(companion):
    comp, client, script = companion
    state = client.get("/api/state").get_json()
    assert [m["move"] for m in state["moves"]] == script.moves[:3]
    assert state["status"]["state"] == "waiting" and state["turn"] == "black"
    assert state["alerts"] == []  # the missed capture was corrected
    assert "1. a3-b4" in client.get("/api/pdn").get_data(as_text=True)
    frame = client.get("/api/frame.jpg")
    assert frame.status_code == 200 and frame.data[:2] == b"\xff\xd8"
    r = client.post("/api/control", json={"action": "takeback"})
    assert r.status_code == 200
    assert [m["move"] for m in client.get("/api/state").get_json()["moves"]] == script.moves[:2]


def test_subscription_sees_new_events(companion):
    comp, _, _ = companion
    sub = comp.subscribe()
    comp.control("main", "new_game")
    kinds = []
    while (e := sub.get(0.5)) is not None:
        kinds.append(e["event"])
    sub.close()
    assert "game_start" in kinds and all(isinstance(k, str) for k in kinds)
