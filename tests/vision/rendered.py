"""Rendered test frames from the simulated table, with their truth."""

from __future__ import annotations

import numpy as np

from companion.layout import load_layout
from vision.sim import CameraPose, Lighting, Scene, render


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
