"""A small hall under viewer load (the bounded version of `dama bench broadcast`): two boards watched from
a rendered 1280×720 clip, 20 relays polling the feed with conditional GETs and 5 SSE viewers in a separate
process on loopback. Every loop has a fixed duration and stops by itself."""

from __future__ import annotations

import pytest

pytest.importorskip("vision.render")


@pytest.fixture(scope="module")
def video():
    from dama.bench_watch import clip

    return str(clip(2, (1280, 720), 5.0))  # rendered once into the cache folder


def test_feed_stays_correct_and_fast_under_load(video):
    import cv2

    from dama.bench_broadcast import hall_run

    cv2.setNumThreads(1)
    r = hall_run(video, boards=2, pollers=20, viewers=5, seconds=8.0, warmup=1.0, quiet=1.0)
    load = r["load"]
    assert load["errors"] == 0 and load["bad_bodies"] == 0  # no failed request, no torn document
    assert load["status"].get("304", 0) > load["status"].get("200", 0)  # pollers are answered cheaply
    assert set(load["status"]) <= {"200", "304"}
    assert load["sse_connected"] == 5 and load["sse_refused"] == 0
    assert load["sse_moves"] >= 5  # every viewer saw the moves made
    assert r["feed_equals_pdn"]
    assert r["latencies"] and r["missed"] == 0, r  # moves were made while the feed was polled
    assert max(r["latencies"]) < 1.0, r["latencies"]
    assert r["loaded"]["fps"] > 1.0  # the vision loops kept running under the load
