"""How fast the simulated table renders: median milliseconds per 1280x960 frame, per game.

Run from the repository root: ``python bench/render_speed.py`` (single process, one core).
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from companion.layout import load_layout
from vision.sim import random_pose, random_scene, render

GAMES = ("just4fun", "cuatro", "spexxx", "muehle")
FRAMES_PER_GAME = 15


def main() -> None:
    rng = np.random.default_rng(2024)
    everything = []
    for game in GAMES:
        layout = load_layout(game)
        render(random_scene(layout, rng), random_pose(rng, layout), rng)  # warm the caches
        times = []
        for _ in range(FRAMES_PER_GAME):
            scene = random_scene(layout, rng)
            pose = random_pose(rng, layout)
            start = time.perf_counter()
            render(scene, pose, rng)
            times.append((time.perf_counter() - start) * 1000.0)
        everything += times
        print(f"{game:9s} median {statistics.median(times):6.1f} ms   "
              f"max {max(times):6.1f} ms   ({FRAMES_PER_GAME} frames)")
    print(f"all       median {statistics.median(everything):6.1f} ms")


if __name__ == "__main__":
    main()
