"""Throw counting on rendered sequences: the dice reader and ThrowTracker frame by frame.

    python bench/throw_counting.py [N] [--first-seed S]

Seeds S .. S+N-1 (S 7000 by default); seeds 8000 on are kept for confirming a change chosen
on the others.

Each sequence (fixed table and camera, fresh sensor noise per frame, 5 frames per second):
dice lying there, a roll (dice tumbling over several frames, then at rest), one die nudged by
3 mm, a hand passing over the dice, two dice set aside and put back, three dice rerolled.
Right when exactly two throws (the roll and the reroll) are counted - the figure kept since
the first version of this bench.

Then, harder (drawn from a second generator, so the frames above stay as they were): a hand
held over the dice for 2 s, low and reaching for them, and a roll of all five dice on which a
hand comes over the dice 0.4 s after they landed, before they have lain still for long.
Right in full when each of the three throws is reported once, during its own rest (or
within the next event's first second: the hand may hold the report back), and nothing else.
Reports whose values are not the dice's are counted apart: a throw counted with a misread
die is counted, but the game gets the wrong throw; and of those, the ones reported sure
(`ThrowSettled.sure`: every die read, surely), against the right reports marked unsure.
"""

from __future__ import annotations

import argparse
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


@dataclasses.dataclass
class Session:
    """The frames of one session, each with the name of the event it belongs to."""

    frames: list[tuple[str, object]]
    pose: object
    region: np.ndarray
    region_mm: np.ndarray
    rng: np.random.Generator
    first_part: int  # frames of the original sequence
    throws: tuple[str, ...]  # events during whose rest each throw is to be reported


def sequence(seed: int) -> Session:
    """The frames of one session."""
    layout = load_layout("cuatro")
    rng = np.random.default_rng(seed)
    base = random_scene(layout, rng, dice=0, hard=False)
    pose = random_pose(rng, layout)
    x0, y0, x1, y1 = layout.dice_area_mm

    def dice_like(values, rng):
        dice = random_dice(layout, rng, len(values), leaning_prob=0.0)
        return [dataclasses.replace(d, value=v) for d, v in zip(dice, values, strict=False)]

    def hold(name, dice, seconds, hand=None):
        return [(name, dataclasses.replace(base, dice=dice, hand=hand))] * int(seconds * FPS)

    def tumble(name, n, frames, rng):
        return [(name, dataclasses.replace(base, dice=random_dice(layout, rng, n,
                                                                   leaning_prob=0.0),
                                           motion_blur_px=6.0,
                                           motion_blur_deg=float(rng.uniform(0, 180))))
                for _ in range(frames)]

    def other_values(n, old, rng):
        while True:
            values = [int(v) for v in rng.integers(1, 7, n)]
            if sorted(values) != sorted(old):
                return values

    start = dice_like([int(v) for v in rng.integers(1, 7, 5)], rng)
    rolled = dice_like(other_values(5, [d.value for d in start], rng), rng)
    nudged = list(rolled)
    a = math.radians(float(rng.uniform(0, 360)))
    nudged[0] = dataclasses.replace(nudged[0], x_mm=nudged[0].x_mm + 3 * math.cos(a),
                                    y_mm=nudged[0].y_mm + 3 * math.sin(a))
    centre = ((x0 + x1) / 2, (y0 + y1) / 2)
    hand = Hand(entry_mm=(centre[0] + 700, centre[1] + 300), tip_mm=centre)
    kept = nudged[:3]
    reroll_values = other_values(3, [d.value for d in kept], rng)
    rerolled = [dataclasses.replace(d, value=v) for d, v in zip(kept, reroll_values, strict=True)]
    frames = (hold("start", start, 1.0) + tumble("roll", 5, 4, rng)
              + hold("rolled", rolled, 1.2) + hold("nudged", nudged, 1.2)
              + hold("hand passing", nudged, 0.6, hand) + hold("after the hand", nudged, 1.2)
              + hold("two set aside", kept, 1.2) + hold("put back", nudged, 1.2)
              + tumble("reroll", 3, 4, rng) + hold("rerolled", rerolled, 1.2))
    first_part = len(frames)

    more = np.random.default_rng((seed, 1))  # the harder part: the frames above stay the same
    reach = rerolled[int(more.integers(len(rerolled)))]
    side = float(more.uniform(0, 2 * math.pi))
    low = Hand(entry_mm=(reach.x_mm + 700 * math.cos(side), reach.y_mm + 700 * math.sin(side)),
               tip_mm=(reach.x_mm, reach.y_mm), height_mm=float(more.uniform(40, 90)),
               spread=float(more.uniform(0, 1)), curl=float(more.uniform(0, 0.8)))
    last = dice_like(other_values(5, reroll_values, more), more)
    frames += (hold("hand held over the dice", rerolled, 2.0, low)
               + hold("after the held hand", rerolled, 1.2) + tumble("last roll", 5, 4, more)
               + hold("last rolled", last, 0.4)
               + hold("hand over the fresh rest", last, 0.6, hand)
               + hold("last rest", last, 1.2))
    region_mm = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float)
    region = pose.project(np.column_stack([region_mm, np.zeros(4)]))
    return Session(frames, pose, region, region_mm, rng, first_part,
                   ("rolled", "rerolled", "last rest"))


#: Where a throw's report may come: during its rest, or in the next event's first second.
SETTLES_IN = {"rolled": ("rolled", "nudged"), "rerolled": ("rerolled", "hand held over the dice"),
              "last rest": ("last rolled", "hand over the fresh rest", "last rest")}


def judge(session: Session, reported: list[tuple[int, str]]) -> list[str]:
    """What went wrong: throws not reported in their rest, reports at other events."""
    wrong = []
    left = list(reported)
    for throw in session.throws:
        found = [r for r in left if r[1] in SETTLES_IN[throw]]
        if not found:
            wrong.append(f"throw of '{throw}' not reported")
        else:
            left.remove(found[0])
    wrong += [f"extra throw reported at '{name}' (frame {i})" for i, name in left]
    return wrong


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("n", nargs="?", type=int, default=30, help="sequences")
    parser.add_argument("--first-seed", type=int, default=7000)
    args = parser.parse_args()
    cv2.setNumThreads(1)
    n = args.n
    config = DiceConfig.preset("table")
    right = whole = reports = misread = sure_wrong = unsure_right = 0
    for seed in range(args.first_seed, args.first_seed + n):
        session = sequence(seed)
        tracker = ThrowTracker(dice_config=config, region=session.region,
                               region_mm=session.region_mm)
        reported = []
        for i, (name, scene) in enumerate(session.frames):
            event = tracker.update(i / FPS, render(scene, session.pose, session.rng).frame)
            if event:
                reported.append((i, name))
                reports += 1
                if event.values != tuple(sorted(d.value for d in scene.dice)):
                    misread += 1
                    sure_wrong += event.sure
                    print(f"  seed {seed}: frame {i} ('{name}') reported {event.values} "
                          f"for {tuple(sorted(d.value for d in scene.dice))}"
                          + ("" if event.sure else " (unsure)"))
                else:
                    unsure_right += not event.sure
        first = sum(i < session.first_part for i, _ in reported)
        right += first == 2
        wrong = judge(session, reported)
        whole += not wrong
        if first != 2 or wrong:
            print(f"  seed {seed}: {first} throws counted in the first part (2 rolled); "
                  + ("; ".join(wrong) or "the whole session right"))
    seeds = f"seeds {args.first_seed}-{args.first_seed + n - 1}"
    print(f"throw counting on rendered sequences (tame light, {seeds}): every throw counted "
          f"exactly once in {right}/{n} = {100 * right / n:.1f} % of sequences (the first "
          f"part); with a held hand and a hand over a fresh rest, each throw reported once in "
          f"its rest in {whole}/{n} = {100 * whole / n:.1f} %; {misread} of {reports} reports "
          f"with values other than the dice's, {sure_wrong} of them sure ({unsure_right} right "
          f"reports unsure)")


if __name__ == "__main__":
    main()
