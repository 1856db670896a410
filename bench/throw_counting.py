"""Throw counting on rendered sequences: the dice reader and ThrowTracker frame by frame.

    python bench/throw_counting.py [N]

Each sequence (fixed table and camera, fresh sensor noise per frame, 5 frames per second):
dice lying there, a roll (dice tumbling over several frames, then at rest), one die nudged by
3 mm, a hand passing over the dice, two dice set aside and put back, three dice rerolled.
Right when exactly two throws (the roll and the reroll) are counted.
"""

from __future__ import annotations

import dataclasses
import math
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.layout import load_layout  # noqa: E402
from vision.dice import DiceConfig  # noqa: E402
from vision.sim import random_pose, random_scene, render  # noqa: E402
from vision.sim.scene import Hand, random_dice  # noqa: E402
from vision.throws import ThrowTracker  # noqa: E402

FPS = 5.0


def sequence(seed: int):
    """(scene, expected throws) frames of one session."""
    layout = load_layout("cuatro")
    rng = np.random.default_rng(seed)
    base = random_scene(layout, rng, dice=0, hard=False)
    pose = random_pose(rng, layout)
    x0, y0, x1, y1 = layout.dice_area_mm

    def dice_like(values, rng):
        dice = random_dice(layout, rng, len(values), leaning_prob=0.0)
        return [dataclasses.replace(d, value=v) for d, v in zip(dice, values, strict=False)]

    def hold(dice, seconds):
        return [dataclasses.replace(base, dice=dice)] * int(seconds * FPS)

    def tumble(n, frames):
        return [dataclasses.replace(base, dice=random_dice(layout, rng, n, leaning_prob=0.0),
                                    motion_blur_px=6.0, motion_blur_deg=float(rng.uniform(0, 180)))
                for _ in range(frames)]

    def other_values(n, old):
        while True:
            values = [int(v) for v in rng.integers(1, 7, n)]
            if sorted(values) != sorted(old):
                return values

    start = dice_like([int(v) for v in rng.integers(1, 7, 5)], rng)
    rolled = dice_like(other_values(5, [d.value for d in start]), rng)
    nudged = list(rolled)
    a = math.radians(float(rng.uniform(0, 360)))
    nudged[0] = dataclasses.replace(nudged[0], x_mm=nudged[0].x_mm + 3 * math.cos(a),
                                    y_mm=nudged[0].y_mm + 3 * math.sin(a))
    centre = ((x0 + x1) / 2, (y0 + y1) / 2)
    hand = Hand(entry_mm=(centre[0] + 700, centre[1] + 300), tip_mm=centre)
    kept = nudged[:3]
    reroll_values = other_values(3, [d.value for d in kept])
    rerolled = [dataclasses.replace(d, value=v) for d, v in zip(kept, reroll_values, strict=True)]
    frames = (hold(start, 1.0) + tumble(5, 4) + hold(rolled, 1.2) + hold(nudged, 1.2)
              + [dataclasses.replace(base, dice=nudged, hand=hand)] * 3 + hold(nudged, 1.2)
              + hold(kept, 1.2) + hold(nudged, 1.2) + tumble(3, 4) + hold(rerolled, 1.2))
    region_mm = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float)
    region = pose.project(np.column_stack([region_mm, np.zeros(4)]))
    return frames, pose, region, region_mm, rng, 2


def main() -> None:
    cv2.setNumThreads(1)
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    config = DiceConfig.preset("table")
    right = 0
    for seed in range(n):
        frames, pose, region, region_mm, rng, expected = sequence(7000 + seed)
        tracker = ThrowTracker(dice_config=config, region=region, region_mm=region_mm)
        events = []
        for i, scene in enumerate(frames):
            event = tracker.update(i / FPS, render(scene, pose, rng).frame)
            if event is not None:
                events.append(event)
        right += len(events) == expected
        if len(events) != expected:
            print(f"  seed {7000 + seed}: {len(events)} throws counted, {expected} rolled")
    print(f"throw counting on rendered sequences (tame light): every throw counted exactly once "
          f"in {right}/{n} = {100 * right / n:.1f} % of sequences")


if __name__ == "__main__":
    main()
