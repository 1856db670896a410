"""How fast the simulated table renders: median milliseconds per 1280x960 frame, per game.

Run from the repository root: ``python bench/render_speed.py`` (one process, OpenCV limited
to one thread). On a shared machine the absolute figures drift with the load, so every frame
is also timed against a fixed reference workload (GaussianBlur 5x5 + cvtColor to Lab on a
1280x960 frame, run right after it); the ratio stays put while the machine gets busier.
"""

from __future__ import annotations

import statistics
import time

import cv2
import numpy as np
from workload import reference

from companion.layout import load_layout
from vision.sim import random_pose, random_scene, render

GAMES = ("just4fun", "cuatro", "spexxx", "muehle")
FRAMES_PER_GAME = 15


def reference_ms(frame: np.ndarray) -> float:
    start = time.perf_counter()
    reference(frame)
    return (time.perf_counter() - start) * 1000.0


def timed_render(scene, pose, rng) -> tuple[float, float, np.ndarray]:
    start, start_cpu = time.perf_counter(), time.process_time()
    frame = render(scene, pose, rng).frame
    return ((time.perf_counter() - start) * 1000.0,
            (time.process_time() - start_cpu) * 1000.0, frame)


def main() -> None:
    cv2.setNumThreads(1)  # one core, as on a busy Pi
    rng = np.random.default_rng(2024)
    wall_all, cpu_all, ratio_all = [], [], []
    for game in GAMES:
        layout = load_layout(game)
        render(random_scene(layout, rng), random_pose(rng, layout), rng)  # warm the caches
        wall, cpu, ratio = [], [], []
        for _ in range(FRAMES_PER_GAME):
            scene = random_scene(layout, rng)
            pose = random_pose(rng, layout)
            ms, ms_cpu, frame = timed_render(scene, pose, rng)
            wall.append(ms)
            cpu.append(ms_cpu)
            ratio.append(ms / reference_ms(frame))
        wall_all += wall
        cpu_all += cpu
        ratio_all += ratio
        print(f"{game:9s} median {statistics.median(wall):6.1f} ms wall, "
              f"{statistics.median(cpu):6.1f} ms CPU, {statistics.median(ratio):5.1f}x reference"
              f"   max {max(wall):6.1f} ms wall   ({FRAMES_PER_GAME} frames)")
    print(f"all       median {statistics.median(wall_all):6.1f} ms wall, "
          f"{statistics.median(cpu_all):6.1f} ms CPU, "
          f"{statistics.median(ratio_all):5.1f}x reference")
    # Demo mode: one table filmed frame after frame; the board fills up, noise changes.
    layout = load_layout("just4fun")
    scene = random_scene(layout, rng, fill=0.0, hand_prob=0.0)
    pose = random_pose(rng, layout)
    names = list(layout.fields)
    wall = []
    for k in range(FRAMES_PER_GAME * 2):
        scene.stacks = {n: ["red"] for n in names[:k]}
        wall.append(timed_render(scene, pose, np.random.default_rng(k))[0])
    print(f"demo      median {statistics.median(wall[1:]):6.1f} ms wall (fixed table and pose)")
    frame = np.random.default_rng(0).integers(0, 255, (960, 1280, 3), dtype=np.uint8)
    ref = statistics.median(reference_ms(frame) for _ in range(20))
    print(f"reference workload now: {ref:.1f} ms")


if __name__ == "__main__":
    main()
