"""How well the board reader reads rendered frames with known truth, and how fast.

Over a seeded set of simulated frames (all four games, 2-4 players, towers 1-5, the whole
camera envelope, hard light, some hands and covered markers) it prints:

* per-field occupancy + top colour accuracy (fields the reader reported and that were
  truly visible; fields mostly hidden behind a nearer tower are counted apart), and how
  many truly visible fields it hid anyway;
* tower height exact accuracy (occupied fields of the stacking games), a confusion table
  of true against read height, accuracy per camera tilt and per distance of the field from
  the point below the lens (a tower's top is displaced away from it by an amount that
  grows with that distance), per band of how far one more piece would move the tower's
  top in the frame (under about a pixel no geometry can tell the heights apart), and how
  many wrong heights the reader marked uncertain;
* share of frames read entirely right;
* occlusion: frames with a hand over fields that were flagged, and frames without one
  that were flagged anyway (false flags); truly hidden fields the reader still reported;
  and the same two lines counted by issue 3's definition, a hand over the board (it
  covers a field, or its pixels reach ``OVER_BOARD_MM`` inside the board's outline);
* median ms per frame on one core, for a warm tracker (the live case: camera fixed,
  board already located) and cold (first frame), and that time divided by a reference
  workload measured on the same frames (GaussianBlur 5x5 + cvtColor to Lab).
  The warm median also per game (Spexxx's board is larger and finer than the others).

Each frame is read twice: standalone (a fresh tracker, as ``companion read`` on a photo)
and live (a tracker that has first seen the same table without the hand, rendered with
fresh sensor noise: what the referee's tracker has seen before a hand reaches in).

    python bench/board_accuracy.py [--frames 600] [--seed 1] [--focal-known]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workload import reference  # noqa: E402

from companion.layout import load_layout  # noqa: E402
from vision.calibration import ColourCalibration  # noqa: E402
from vision.config import VisionConfig  # noqa: E402
from vision.reader import BoardTracker, read_board  # noqa: E402
from vision.sim import random_pose, random_scene, render  # noqa: E402
from vision.sim.solids import piece_pitch  # noqa: E402

GAMES = ("just4fun", "cuatro", "muehle", "spexxx")


def reference_ms(frame: np.ndarray) -> float:
    start = time.perf_counter()
    reference(frame)
    return (time.perf_counter() - start) * 1000


#: Bands (frame px) of how far one more piece moves a tower's top: see ``stone_shift_px``.
SHIFT_BANDS_PX = (1.0, 2.0, 4.0)

#: A hand is over the board (issue 3) when its pixels reach this far (mm, on the board's
#: plane) inside the board's outline: the nearest fields' squares begin 10-12.5 mm in
#: (Mühle 10, Just 4 Fun 11, Cuatro 12, Spexxx 12.5), so a hand this far in can touch a
#: piece; fingers less far in lie over the blank rim, within a blurred edge's few mm.
OVER_BOARD_MM = 10.0


def hand_reach_mm(truth, board_size_mm: tuple[float, float]) -> float:
    """How far (mm) the hand's pixels reach inside the board's outline, seen through the
    board plane's homography (so an arm above the board counts where it covers it in the
    frame, as a reader sees it); 0 without a hand over the outline."""
    ys, xs = np.nonzero(truth.hand_mask[::2, ::2])
    if not len(xs):
        return 0.0
    undistorted = truth.pose.undistort_pixels(np.column_stack([xs, ys]) * 2.0)
    mm = cv2.perspectiveTransform(undistorted.reshape(-1, 1, 2),
                                  np.linalg.inv(truth.homography)).reshape(-1, 2)
    width, height = board_size_mm
    inside = np.minimum.reduce([mm[:, 0], width - mm[:, 0], mm[:, 1], height - mm[:, 1]])
    return max(0.0, float(inside.max()))


def stone_shift_px(pose, centre_mm, height: int, shape: str, height_mm: float,
                   diameter_mm: float) -> float:
    """How far (frame px) one more piece would move the far rim of a tower's top, the
    silhouette's end: the physical limit of reading heights by geometry. Straight below
    the lens the top does not move at all; one pixel is about what blur and noise leave."""
    pitch = piece_pitch(shape, height_mm)
    nadir = pose.centre_mm[:2]
    away = np.asarray(centre_mm, float) - nadir
    distance = float(np.hypot(*away))
    unit = away / distance if distance > 1e-6 else np.array([1.0, 0.0])
    rim = np.asarray(centre_mm, float) + unit * diameter_mm / 2
    points = np.array([[*rim, height * pitch], [*rim, (height + 1) * pitch]])
    px = pose.project(points)
    return float(np.hypot(*(px[1] - px[0])))


def print_heights(reads: Counter[tuple[int, int]], by_tilt: dict[int, list[int]],
                  by_distance: dict[int, list[int]], by_shift: dict[int, list[int]]) -> None:
    """Confusion table of true (rows) against read (columns) tower height, and accuracy
    per tilt, per distance from the nadir and per band of one piece's shift of the top:
    where height reading fails."""
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
    edges = (0.0, *SHIFT_BANDS_PX)
    parts = []
    for band in sorted(by_shift):
        total, right = by_shift[band]
        label = (f"{edges[band]:g}+" if band == len(SHIFT_BANDS_PX)
                 else f"{edges[band]:g}-{edges[band + 1]:g}")
        parts.append(f"{label} px {100.0 * right / total:.1f} % ({total})")
    print("  heights by how far one more piece moves the top: " + ", ".join(parts))


@dataclass
class Score:
    """What one way of reading (standalone or live) got right over the frames."""

    fields_total: int = 0
    fields_right: int = 0
    hidden_visible: int = 0
    leaked: int = 0
    truly_hidden: int = 0
    behind_total: int = 0
    behind_right: int = 0
    towers: int = 0
    towers_right: int = 0
    frames: int = 0
    frames_right: int = 0
    problems: int = 0
    with_hand: int = 0
    with_hand_flagged: int = 0
    with_hand_unread: int = 0  # not flagged, but no state read: the board was not located
    without_hand: int = 0
    without_hand_flagged: int = 0
    hand_in_view_flagged: int = 0  # false flags where a hand was in view, hiding no field
    over_board: int = 0  # issue 3's count: a hand covers a field or reaches OVER_BOARD_MM in
    over_board_flagged: int = 0
    over_board_unread: int = 0
    not_over_board: int = 0
    not_over_board_flagged: int = 0
    per_game: dict[str, list[int]] = field(default_factory=dict)
    errors: Counter[str] = field(default_factory=Counter)
    height_reads: Counter[tuple[int, int]] = field(default_factory=Counter)
    by_tilt: dict[int, list[int]] = field(default_factory=dict)
    by_distance: dict[int, list[int]] = field(default_factory=dict)
    by_shift: dict[int, list[int]] = field(default_factory=dict)
    heights_wrong: int = 0
    heights_flagged: int = 0
    heights_confident: int = 0
    heights_confident_right: int = 0

    def add(self, reading, truth, game: str, layout, pose, hand: bool, uncertain_below: float,
            note: str = "", verbose: bool = False, reach_mm: float = 0.0) -> None:
        stacking = layout.piece.max_stack > 1
        self.frames += 1
        occluded_truth = any(t.occluded for t in truth.fields.values())
        over = occluded_truth or reach_mm >= OVER_BOARD_MM
        if over:
            self.over_board += 1
            self.over_board_flagged += reading.occluded
            self.over_board_unread += not reading.ok
        else:
            self.not_over_board += 1
            self.not_over_board_flagged += reading.occluded
        if verbose and over != reading.occluded:
            print(f"{note}: {'hand missed' if over else 'false flag'} (hand "
                  f"{reach_mm:.0f} mm in, {'' if occluded_truth else 'no '}field covered"
                  f"{'' if reading.ok else '; ' + str(reading.problem)})")
        if occluded_truth:
            self.with_hand += 1
            self.with_hand_flagged += reading.occluded
            self.with_hand_unread += not reading.ok
        else:
            self.without_hand += 1
            self.without_hand_flagged += reading.occluded
            self.hand_in_view_flagged += reading.occluded and hand
        if not reading.ok:
            self.problems += 1
            self.errors[f"problem: {reading.problem}"] += 1
            return
        counts = self.per_game.setdefault(game, [0, 0])
        frame_ok = True
        for name, t in truth.fields.items():
            if t.occluded:
                self.truly_hidden += 1
                if name not in reading.hidden_fields:
                    self.leaked += 1
                    frame_ok = False
                continue
            if name in reading.hidden_fields:
                self.hidden_visible += 1
                frame_ok = frame_ok and occluded_truth
                continue
            got = reading.fields[name]
            if t.seen_share < 0.5:  # mostly behind a nearer tower: counted apart
                self.behind_total += 1
                self.behind_right += (got.height > 0) == t.occupied and got.top_colour == t.top
                continue
            self.fields_total += 1
            right = (got.height > 0) == t.occupied and got.top_colour == t.top
            self.fields_right += right
            counts[0] += 1
            counts[1] += right
            if not right:
                self.errors[f"{game}: {t.top or 'empty'} read as {got.top_colour or 'empty'}"] += 1
                if verbose:
                    print(f"{note} {name}: truth {t.top} x{t.height}, read "
                          f"{got.top_colour} x{got.height} ({got.confidence:.2f})")
            if t.occupied and stacking:
                self.add_tower(got, t.height, layout, layout.fields[name].centre_mm, reading,
                               pose, uncertain_below)
                if got.height != t.height and verbose:
                    shift = stone_shift_px(pose, layout.fields[name].centre_mm, t.height,
                                           layout.piece.shape, layout.piece.height_mm,
                                           layout.piece.diameter_mm)
                    print(f"{note} {name}: height {t.height} read {got.height} "
                          f"({got.confidence:.2f}; one more piece moves the top "
                          f"{shift:.1f} px)")
            frame_ok = frame_ok and right and got.height == t.height
        self.frames_right += frame_ok

    def add_tower(self, got, height: int, layout, centre_mm, reading, pose,
                  uncertain_below: float) -> None:
        right = got.height == height
        self.towers += 1
        self.towers_right += right
        self.height_reads[(height, got.height)] += 1
        away = float(np.hypot(*(np.array(centre_mm) - reading.pose.nadir_mm)))
        piece = layout.piece
        shift = stone_shift_px(pose, centre_mm, height, piece.shape, piece.height_mm,
                               piece.diameter_mm)
        for bands, band in ((self.by_tilt, min(int(pose.tilt_deg // 10), 3)),
                            (self.by_distance, min(int(away // 80), 3)),
                            (self.by_shift, int(np.searchsorted(SHIFT_BANDS_PX, shift,
                                                                side="right")))):
            tally = bands.setdefault(band, [0, 0])
            tally[0] += 1
            tally[1] += right
        sure = got.confidence >= uncertain_below
        self.heights_confident += sure
        self.heights_confident_right += sure and right
        if not right:
            self.heights_wrong += 1
            self.heights_flagged += not sure

    def report(self) -> None:
        print(f"  field occupancy+colour  {pct(self.fields_right, self.fields_total)}")
        for game, (total, right) in self.per_game.items():
            print(f"    {game:9}             {pct(right, total)}")
        print(f"  fields mostly behind a nearer tower (not counted above): "
              f"{pct(self.behind_right, self.behind_total)} right")
        print(f"  tower height exact      {pct(self.towers_right, self.towers)} "
              "(Just 4 Fun, Cuatro)")
        print(f"  frames entirely right   {pct(self.frames_right, self.frames)}")
        print(f"  occluded frames flagged {pct(self.with_hand_flagged, self.with_hand)}; "
              f"{self.with_hand_unread} more reported a problem, no fields")
        print(f"  false occlusion flags   {pct(self.without_hand_flagged, self.without_hand)}, "
              f"{self.hand_in_view_flagged} of them with a hand in view that hides no field")
        print(f"  hand over the board (a field covered or {OVER_BOARD_MM:g}+ mm in): flagged "
              f"{pct(self.over_board_flagged, self.over_board)}; {self.over_board_unread} "
              "more reported a problem, no fields")
        print(f"  no hand over the board, flagged "
              f"{pct(self.not_over_board_flagged, self.not_over_board)}")
        print(f"  hidden fields reported  {pct(self.leaked, self.truly_hidden)} (should be 0)")
        print(f"  visible fields hidden   "
              f"{pct(self.hidden_visible, self.hidden_visible + self.fields_total)}")
        print(f"  frames with a problem   {pct(self.problems, self.frames)}")
        if self.towers:
            print_heights(self.height_reads, self.by_tilt, self.by_distance, self.by_shift)
            print(f"  wrong heights marked uncertain "
                  f"{pct(self.heights_flagged, self.heights_wrong)}; heights read with "
                  f"confidence {pct(self.heights_confident, self.towers)}, of them right "
                  f"{pct(self.heights_confident_right, self.heights_confident)}")
        if self.errors:
            print("  most common errors: " + "; ".join(
                f"{k} x{n}" for k, n in self.errors.most_common(8)))


def pct(a: int, b: int) -> str:
    return f"{100.0 * a / b:6.2f} % ({a}/{b})" if b else "   n/a"


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

    standalone, live = Score(), Score()
    warm_ms, cold_ms, ref_ms = [], [], []
    warm_by_game: dict[str, list[float]] = {g: [] for g in games}
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
        note = f"frame {index} {game} (camera {pose.height_mm:.0f} mm tilt {pose.tilt_deg:.0f})"

        tracker = BoardTracker(layout, calibration, cfg)
        start = time.perf_counter()
        reading = read_board(frame, layout, calibration, cfg, tracker)
        cold_ms.append((time.perf_counter() - start) * 1000)
        hand = scene.hand is not None
        reach = hand_reach_mm(truth, layout.board_size_mm) if hand else 0.0
        standalone.add(reading, truth, game, layout, pose, hand, cfg.uncertain_below, note,
                       args.verbose, reach)

        # live: the tracker first sees the table without the hand (fresh sensor noise)
        before = render(replace(scene, hand=None), pose,
                        np.random.default_rng([args.seed, index, 1])).frame
        tracker = BoardTracker(layout, calibration, cfg)
        read_board(before, layout, calibration, cfg, tracker)
        start = time.perf_counter()
        reading = read_board(frame, layout, calibration, cfg, tracker)
        warm_ms.append((time.perf_counter() - start) * 1000)
        warm_by_game[game].append(warm_ms[-1])
        live.add(reading, truth, game, layout, pose, hand, cfg.uncertain_below, note + " live",
                 args.verbose, reach)
        ref_ms.append(min(reference_ms(frame) for _ in range(2)))

    median_warm = statistics.median(warm_ms)
    median_ref = statistics.median(ref_ms)
    known = ", focal known" if args.focal_known else ""
    known += ", camera known" if args.camera_known else ""
    print(f"board reader on {args.frames} rendered frames (seed {args.seed}, games "
          f"{', '.join(games)}{known})")
    print("standalone (a fresh tracker per frame, as for a photo):")
    standalone.report()
    print("live (the tracker saw the same table without the hand the frame before):")
    live.report()
    print(f"ms/frame (1 core): warm (live) median {median_warm:.1f}, cold median "
          f"{statistics.median(cold_ms):.1f}, reference workload {median_ref:.2f} ms -> "
          f"warm = {median_warm / median_ref:.1f}x reference")
    print("  warm median by game: " + ", ".join(
        f"{g} {statistics.median(ms):.1f} ({statistics.median(ms) / median_ref:.1f}x)"
        for g, ms in warm_by_game.items() if ms))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
