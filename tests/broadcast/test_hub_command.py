"""`dama hub` as a user runs it: a real broker, a board publishing, feeds polled over HTTP."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

from dama.broadcast.mqtt import MqttPublisher
from dama.record import GameRecord, pdn_moves

from .conftest import free_port
from .games import game_events


def get(url, headers=None):
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, r.read().decode(), r.headers
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(), e.headers


def test_hub_serves_live_feeds_and_refuses_controls(broker, tmp_path):
    port = free_port()
    hub = subprocess.Popen([sys.executable, "-m", "dama.cli", "hub", "--mqtt", broker.url, "--web",
                            f"127.0.0.1:{port}", "--folder", str(tmp_path / "relay"), "--event", "Club",
                            "--round", "4", "--tag", "b1:White=Novák"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           env={**os.environ, "PYTHONUNBUFFERED": "1"})
    pub = MqttPublisher(broker.url, "b1")
    base = f"http://127.0.0.1:{port}"
    try:
        assert "listening" in hub.stdout.readline()
        events = game_events(21, plies=10)
        latencies = []
        record = GameRecord()
        for e in events:
            pub.handle(e)
            record.apply(e)
            if e["event"] != "move":
                continue
            sent = time.monotonic()
            while time.monotonic() - sent < 5:
                status, body, _ = get(f"{base}/broadcast/b1.pdn")
                if status == 200 and pdn_moves(body) == record.move_list():
                    break
                time.sleep(0.02)
            latencies.append(time.monotonic() - sent)
        assert max(latencies) < 1.0, latencies  # moves appear in the feed within a second
        status, body, headers = get(f"{base}/broadcast/b1.pdn")
        assert '[White "Novák"]' in body and '[Round "4"]' in body
        assert pdn_moves(body) == record.move_list()
        assert get(f"{base}/broadcast/b1.pdn", {"If-None-Match": headers["ETag"]})[0] == 304
        status, page, _ = get(f"{base}/")
        assert status == 200
        req = urllib.request.Request(f"{base}/api/control", method="POST", data=json.dumps(
            {"board": "b1", "action": "takeback"}).encode(), headers={"Content-Type": "application/json"})
        try:
            code = urllib.request.urlopen(req, timeout=5).status
        except urllib.error.HTTPError as e:
            code = e.code
        assert code >= 400  # nothing on the broadcast side can change a game
        assert (tmp_path / "relay" / "round-4" / "game-1.pdn").exists()
    finally:
        pub.close()
        hub.terminate()
        hub.wait(timeout=10)
