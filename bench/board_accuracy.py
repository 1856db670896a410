"""How well the board reader reads rendered frames with known truth, and how fast.

Over a seeded set of simulated frames (all four games, 2-4 players, towers 1-5, the whole
camera envelope, hard light, some hands and covered markers) it prints:

* per-field occupancy + top colour accuracy (fields the reader reported and that were
  truly visible; fields mostly hidden behind a nearer tower are counted apart), and how
  many truly visible fields it hid anyway;
* tower height exact accuracy (occupied fields of the stacking games), a confusion table
  of true against read height, accuracy per camera tilt and per distance of the field from
  the point below the lens (a tower's top is displaced away from it by an amount that
  grows with that distance), and how many wrong heights the reader marked uncertain;
* share of frames read entirely right;
* occlusion: frames with a hand over fields that were flagged, and frames without one
  that were flagged anyway (false flags); truly hidden fields the reader still reported;
* median ms per frame on one core, for a warm tracker (the live case: camera fixed,
  board already located) and cold (first frame), and that time divided by a reference
  workload measured on the same frames (GaussianBlur 5x5 + cvtColor to Lab).

    python bench/board_accuracy.py [--frames 600] [--seed 1] [--focal-known]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.layout import load_layout  # noqa: E402
from vision.calibration import ColourCalibration  # noqa: E402
from vision.config import VisionConfig  # noqa: E402
from vision.reader import BoardTracker, read_board  # noqa: E402
from vision.sim import random_pose, random_scene, render  # noqa: E402

GAMES = ("just4fun", "cuatro", "muehle", "spexxx")


def reference_ms(frame: np.ndarray) -> float:
    start = time.perf_counter()
    blurred = cv2.GaussianBlur(frame, (5, 5), 0)
    cv2.cvtColor(blurred, cv2.COLOR_BGR2Lab)
    return (time.perf_counter() - start) * 1000


def print_heights(reads: Counter[tuple[int, int]], by_tilt: dict[int, list[int]],
                  by_distance: dict[int, list[int]]) -> None:
    """Confusion table of true (rows) against read (columns) tower height, and accuracy
    per tilt and per distance from the nadir: where height reading fails."""
    top = max(max(a, b) for a, b in reads)
    print("  tower heights, true (rows) against read (columns):")
    print("       " + "".join(f"{h:6d}" for h in range(top + 1)) + "   right")
    for true in range(1, top + 1):
        row = [reads[(true, h)] for h in range(top + 1)]
        if sum(row):
            print(f"    {true}  " + "".join(f"{n:6d}" for n in row)
                  + f"  {100.0 * row[true] / sum(row):5.1f} %")
    for title, bands, width, unit in (("tilt", by_tilt, 10, "deg"),
                                      ("distance from nadir", by_distance, 80, "mm")):
        parts = []
        for band in sorted(bands):
            total, right = bands[band]
            label = f"{band * width}+" if band == 3 else f"{band * width}-{(band + 1) * width}"
            parts.append(f"{label} {unit} {100.0 * right / total:.1f} % ({total})")
        print(f"  heights by {title}: " + ", ".join(parts))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=600)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--focal-known", action="store_true",
                        help="give the reader the true focal length (as a configured camera)")
    parser.add_argument("--camera-known", action="store_true",
                        help="give the reader the true focal length and lens distortion k1")
    parser.add_argument("--games", default=",".join(GAMES))
    parser.add_argument("--verbose", action="store_true", help="print each wrong field")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    games = args.games.split(",")
    layouts = {g: load_layout(g) for g in games}
    config = VisionConfig()

    fields_total = fields_right = hidden_visible = leaked = truly_hidden = 0
    behind_total = behind_right = 0
    towers = towers_right = 0
    frames_right = frames_read = problems = 0
    with_hand = with_hand_flagged = without_hand = without_hand_flagged = 0
    warm_ms, cold_ms, ref_ms = [], [], []
    errors: Counter[str] = Counter()
    height_reads: Counter[tuple[int, int]] = Counter()
    by_tilt: dict[int, list[int]] = {}
    by_distance: dict[int, list[int]] = {}
    heights_flagged = heights_wrong = heights_confident = heights_confident_right = 0
    per_game: dict[str, list[int]] = {g: [0, 0] for g in games}
    for index in range(args.frames):
        game = games[index % len(games)]
        layout = layouts[game]
        rng = np.random.default_rng([args.seed, index])
        scene = random_scene(layout, rng)
        pose = random_pose(rng, layout)
        rendered = render(scene, pose, rng)
        frame, truth = rendered.frame, rendered.truth
        players = sorted({p for colours in scene.stacks.values() for p in colours}) or None
        players = list(dict.fromkeys(list(players or []) + list(layout.piece_colours)))[:4] \
            if players is None or len(players) < 2 else players
        calibration = ColourCalibration.default(layout, players)
        cfg = config
        if args.focal_known:
            cfg = replace(cfg, focal_px=float(pose.K[0, 0]))
        if args.camera_known:
            cfg = replace(cfg, focal_px=float(pose.K[0, 0]), k1=float(pose.k1))
        tracker = BoardTracker(layout, calibration, cfg)
        start = time.perf_counter()
        reading = read_board(frame, layout, calibration, cfg, tracker)
        cold_ms.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        reading = read_board(frame, layout, calibration, cfg, tracker)
        warm_ms.append((time.perf_counter() - start) * 1000)
        ref_ms.append(min(reference_ms(frame) for _ in range(2)))

        occluded_truth = any(t.occluded for t in truth.fields.values())
        if occluded_truth:
            with_hand += 1
            with_hand_flagged += reading.occluded
        else:
            without_hand += 1
            without_hand_flagged += reading.occluded
        if not reading.ok:
            problems += 1
            errors[f"problem: {reading.problem}"] += 1
            continue
        frames_read += 1
        frame_ok = True
        for name, t in truth.fields.items():
            if t.occluded:
                truly_hidden += 1
                if name not in reading.hidden_fields:
                    leaked += 1
                    frame_ok = False
                continue
            if name in reading.hidden_fields:
                hidden_visible += 1
                frame_ok = frame_ok and occluded_truth
                continue
            got = reading.fields[name]
            if t.seen_share < 0.5:  # mostly behind a nearer tower: counted apart
                behind_total += 1
                behind_right += (got.height > 0) == t.occupied and got.top_colour == t.top
                continue
            fields_total += 1
            right = (got.height > 0) == t.occupied and got.top_colour == t.top
            fields_right += right
            per_game[game][0] += 1
            per_game[game][1] += right
            if not right:
                errors[f"{game}: {t.top or 'empty'} read as {got.top_colour or 'empty'}"] += 1
                if args.verbose:
                    print(f"frame {index} {game} {name}: truth {t.top} x{t.height}, read "
                          f"{got.top_colour} x{got.height} ({got.confidence:.2f})")
            if t.occupied and layout.piece.max_stack > 1:
                towers += 1
                towers_right += got.height == t.height
                height_reads[(t.height, got.height)] += 1
                tilt_band = min(int(pose.tilt_deg // 10), 3)
                nadir = reading.pose.nadir_mm
                away = float(np.hypot(*(np.array(layout.fields[name].centre_mm) - nadir)))
                distance_band = min(int(away // 80), 3)
                for bands, band in ((by_tilt, tilt_band), (by_distance, distance_band)):
                    tally = bands.setdefault(band, [0, 0])
                    tally[0] += 1
                    tally[1] += got.height == t.height
                sure = got.confidence >= cfg.uncertain_below
                heights_confident += sure
                heights_confident_right += sure and got.height == t.height
                if got.height != t.height:
                    heights_wrong += 1
                    heights_flagged += not sure
                    if args.verbose:
                        print(f"frame {index} {game} {name}: height {t.height} read "
                              f"{got.height}; camera {pose.height_mm:.0f} mm tilt "
                              f"{pose.tilt_deg:.0f}")
            frame_ok = frame_ok and right and got.height == t.height
        frames_right += frame_ok

    def pct(a: int, b: int) -> str:
        return f"{100.0 * a / b:6.2f} % ({a}/{b})" if b else "   n/a"

    median_warm = statistics.median(warm_ms)
    median_ref = statistics.median(ref_ms)
    known = ", focal known" if args.focal_known else ""
    known += ", camera known" if args.camera_known else ""
    print(f"board reader on {args.frames} rendered frames (seed {args.seed}, games "
          f"{', '.join(games)}{known})")
    print(f"  field occupancy+colour  {pct(fields_right, fields_total)}")
    for game, (total, right) in per_game.items():
        print(f"    {game:9}             {pct(right, total)}")
    print(f"  fields mostly behind a nearer tower (not counted above): "
          f"{pct(behind_right, behind_total)} right")
    print(f"  tower height exact      {pct(towers_right, towers)} (Just 4 Fun, Cuatro)")
    print(f"  frames entirely right   {pct(frames_right, args.frames)}")
    print(f"  occluded frames flagged {pct(with_hand_flagged, with_hand)}")
    print(f"  false occlusion flags   {pct(without_hand_flagged, without_hand)}")
    print(f"  hidden fields reported  {pct(leaked, truly_hidden)} (should be 0)")
    print(f"  visible fields hidden   {pct(hidden_visible, hidden_visible + fields_total)}")
    print(f"  frames with a problem   {pct(problems, args.frames)}")
    print(f"  ms/frame (1 core)       warm median {median_warm:.1f}, cold median "
          f"{statistics.median(cold_ms):.1f}, reference workload {median_ref:.2f} ms -> "
          f"warm = {median_warm / median_ref:.1f}x reference")
    if towers:
        print_heights(height_reads, by_tilt, by_distance)
        print(f"  wrong heights marked uncertain {pct(heights_flagged, heights_wrong)}; "
              f"heights read with confidence {pct(heights_confident, towers)}, of them "
              f"right {pct(heights_confident_right, heights_confident)}")
    if errors:
        print("  most common errors: " + "; ".join(
            f"{k} x{n}" for k, n in errors.most_common(8)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
