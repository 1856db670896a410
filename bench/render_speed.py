"""How fast the simulated table renders: median milliseconds per 1280x960 frame, per game.

Run from the repository root: ``python bench/render_speed.py`` (one process, OpenCV limited
to one thread).
"""

from __future__ import annotations

import statistics
import time

import cv2
import numpy as np

from companion.layout import load_layout
from vision.sim import random_pose, random_scene, render

GAMES = ("just4fun", "cuatro", "spexxx", "muehle")
FRAMES_PER_GAME = 15


def main() -> None:
    cv2.setNumThreads(1)  # one core, as on a busy Pi
    rng = np.random.default_rng(2024)
    everything, everything_cpu = [], []
    for game in GAMES:
        layout = load_layout(game)
        render(random_scene(layout, rng), random_pose(rng, layout), rng)  # warm the caches
        times, cpu = [], []
        for _ in range(FRAMES_PER_GAME):
            scene = random_scene(layout, rng)
            pose = random_pose(rng, layout)
            start, start_cpu = time.perf_counter(), time.process_time()
            render(scene, pose, rng)
            times.append((time.perf_counter() - start) * 1000.0)
            cpu.append((time.process_time() - start_cpu) * 1000.0)
        everything += times
        everything_cpu += cpu
        print(f"{game:9s} median {statistics.median(times):6.1f} ms wall, "
              f"{statistics.median(cpu):6.1f} ms CPU   max {max(times):6.1f} ms wall   "
              f"({FRAMES_PER_GAME} frames)")
    print(f"all       median {statistics.median(everything):6.1f} ms wall, "
          f"{statistics.median(everything_cpu):6.1f} ms CPU")
    print("(CPU time leaves out time the process waited for a core on a shared machine)")
    # Demo mode: one table filmed frame after frame; the board fills up, noise changes.
    layout = load_layout("just4fun")
    scene = random_scene(layout, rng, fill=0.0, hand_prob=0.0)
    pose = random_pose(rng, layout)
    names = list(layout.fields)
    times = []
    for k in range(FRAMES_PER_GAME * 2):
        scene.stacks = {n: ["red"] for n in names[:k]}
        start = time.perf_counter()
        render(scene, pose, np.random.default_rng(k))
        times.append((time.perf_counter() - start) * 1000.0)
    print(f"demo      median {statistics.median(times[1:]):6.1f} ms wall (fixed table and pose)")


if __name__ == "__main__":
    main()
