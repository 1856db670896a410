"""Rendered test frames from the simulated table, with their truth."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from companion.layout import load_layout
from vision.calibration import ColourCalibration
from vision.sim import CameraPose, Lighting, Scene, random_pose, random_scene, render


def frame(game: str, stacks: dict[str, list[str]], pose: CameraPose | None = None,
          seed: int = 0, **scene_options):
    layout = load_layout(game)
    w, h = layout.board_size_mm
    pose = pose or CameraPose(height_mm=620, tilt_deg=22, yaw_deg=10, fov_deg=70, k1=-0.01,
                              target_mm=(w / 2, h / 2))
    options = {"lighting": Lighting(), "noise_sigma": 1.5, "blur_sigma": 0.4,
               "jpeg_quality": 92, **scene_options}
    scene = Scene(layout, stacks=stacks, **options)
    return layout, render(scene, pose, np.random.default_rng(seed))


def field_states(truth) -> dict[str, tuple[str | None, int]]:
    return {n: (t.top, t.height) for n, t in truth.fields.items()}


def read_states(reading) -> dict[str, tuple[str | None, int]]:
    return {n: (f.top_colour, f.height) for n, f in reading.fields.items()}


def bench_frame(seed: int, index: int):
    """`bench/board_accuracy.py`'s frame ``index`` of ``seed``, as the bench renders it: its
    layout, calibration, the frame and the same table without the hand (fresh noise)."""
    game = ("just4fun", "cuatro", "muehle", "spexxx")[index % 4]
    layout = load_layout(game)
    rng = np.random.default_rng([seed, index])
    scene = random_scene(layout, rng)
    pose = random_pose(rng, layout)
    rendered = render(scene, pose, rng)
    before = render(replace(scene, hand=None), pose, np.random.default_rng([seed, index, 1]))
    players = sorted({p for colours in scene.stacks.values() for p in colours})
    if len(players) < 2:
        players = list(dict.fromkeys(players + list(layout.piece_colours)))[:4]
    return layout, ColourCalibration.default(layout, players), rendered, before
