"""Small seeded renders shared by the vision tests (rendered once per session: the renderer is slow)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pytest

from vision.geometry import START_BOARD

SIZE = (640, 360)


@dataclass
class Scene:
    """A camera/board scene rendered with the start position and with another board."""

    seed: int
    board: str
    image: np.ndarray
    corners: dict
    start_image: np.ndarray
    tilt: float
    params: object


def lively_rows(n: int, seed: int = 0) -> np.ndarray:
    """Rows of ``vision.squarenet.describe`` with lively strips (lightness 10–90) and other features."""
    from vision.squarenet import N_INPUT, STRIP_IN_DESC, describe

    rng = np.random.default_rng(seed)
    d = describe(rng.uniform(-1, 1, (n, N_INPUT)).astype(np.float32))
    d[:, STRIP_IN_DESC] = rng.uniform(10, 90, (n, STRIP_IN_DESC.stop - STRIP_IN_DESC.start))
    return d


def random_board(rng: np.random.Generator) -> str:
    from vision.bench import random_board as rb

    return rb(rng)


@lru_cache(maxsize=32)
def scene(seed: int) -> Scene:
    """Scene ``seed``: the board fills 60–95 % of a 640×360 frame, any tilt up to 50°, any rotation."""
    from vision.render import random_scene_params, render_scene

    rng = np.random.default_rng(seed)
    params = random_scene_params(rng, size=SIZE, fill=(0.6, 0.95))
    board = random_board(rng)
    r = render_scene(board, params)
    s = render_scene(START_BOARD, params, seed=1)
    return Scene(seed=seed, board=board, image=r.image, corners=r.corners, start_image=s.image,
                 tilt=params.tilt_deg, params=params)


@pytest.fixture
def get_scene():
    return scene


SIZE_BENCH = (1280, 720)  # the benchmark's frame size


def bench_draw(seed: int, i: int, **variant: bool) -> tuple:
    """Scene ``i`` of ``dama bench vision --seed SEED`` at 1280×720, as drawn (index, parameters, board,
    hand, mirrored), without rendering the scenes before it; ``variant`` as ``scene_draws`` takes them
    (``off_centre=True`` for ``--off-centre``)."""
    from itertools import islice

    from vision.bench import scene_draws

    return next(islice(scene_draws(i + 1, SIZE_BENCH, seed, **variant), i, None))


@pytest.fixture
def get_bench_draw():
    return bench_draw


@pytest.fixture
def square_network_alone(monkeypatch):
    """Call it to read with the square network alone, the patch reader switched off (``monkeypatch.undo()``
    switches it on again). The pipeline's rules around the square network (its "covered" bars, the colours'
    veto and bounded vote, the second look) were made for what that network alone gets wrong; the patch reader
    now reads many of those squares right before any rule is needed, so a rule's premise is shown without it."""
    import vision.pipeline as pipeline

    def off() -> None:
        monkeypatch.setattr(pipeline, "with_patch_opinion", lambda prob, *args, **kwargs: prob)
        no_hand_both_readers_see(monkeypatch)
        no_fingertip_seen_past(monkeypatch)

    return off


def no_hand_both_readers_see(monkeypatch) -> None:
    """Switch off the pipeline's hand that both readers see (``vision.patchnet.both_see_a_hand``): the premise of
    a rule made before it, which now reads many of the same squares under a hand right on its own."""
    import vision.pipeline as pipeline

    monkeypatch.setattr(pipeline, "both_see_a_hand", lambda x, d, covered, net: np.zeros(len(covered), dtype=bool))


def no_fingertip_seen_past(monkeypatch) -> None:
    """Switch off the pipeline's reading past a fingertip the patch reader does not see
    (``vision.patchnet.seen_past_a_fingertip``): the premise of a rule made before it."""
    import vision.pipeline as pipeline

    monkeypatch.setattr(pipeline, "seen_past_a_fingertip",
                        lambda x, d, prob, ask, net, below=None: np.full(len(prob), -1))
