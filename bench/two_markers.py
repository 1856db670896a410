"""How far off the board is at the fields when only two of its markers are seen.

Renders the board bench's frames (same seeds, same frames as ``board_accuracy.py``),
keeps those where the full-frame search finds exactly two markers (what a fresh tracker
sees), and measures at every field centre, in frame pixels against the renderer's truth:

* the homography fitted freely to the two markers' eight corners (``fit_homography``);
* the pose fitted under the camera model (``fit_two_markers``), with its standard error
  and jackknife at the fields;
* what a fresh ``Localiser`` reports (the fit when sure, else the printed board aligned
  to the frame from it when that agrees with the markers, else nothing), and its error.

Per frame the median and max error over the fields; then, over the frames, the median of
the per-frame medians and the largest error, for all frames, adjacent and diagonal pairs,
and the frames the ``Localiser`` locates, with the error of what it reports.

    python bench/two_markers.py [--frames 600] [--seed 1] [--only 34,232]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.layout import load_layout  # noqa: E402
from vision.config import VisionConfig  # noqa: E402
from vision.markers import (  # noqa: E402
    Localiser,
    NoBoard,
    detect_markers,
    fit_homography,
    fit_two_markers,
)
from vision.pose import Camera  # noqa: E402
from vision.sim import random_pose, random_scene, render  # noqa: E402

GAMES = ("just4fun", "cuatro", "muehle", "spexxx")


def summary(title: str, rows: list[tuple[float, ...]]) -> None:
    if not rows:
        print(f"  {title:28} no frames")
        return
    errors = np.array(rows)
    line = (f"  {title:28} {len(rows):3d} frames | eight corners: median "
            f"{np.median(errors[:, 0]):5.1f} px, max {errors[:, 1].max():5.1f} px | camera "
            f"model: median {np.median(errors[:, 2]):5.1f} px, max {errors[:, 3].max():5.1f} px")
    if errors.shape[1] > 4:
        line += (f" | reported: median {np.median(errors[:, 4]):5.1f} px, max "
                 f"{errors[:, 5].max():5.1f} px")
    print(line)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=600)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", help="comma-separated frame indices (skip the others)")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    config = VisionConfig()
    camera = Camera.from_config(config)
    layouts = {g: load_layout(g) for g in GAMES}
    indices = ([int(i) for i in args.only.split(",")] if args.only
               else range(args.frames))
    rows: dict[str, list[tuple[float, ...]]] = {
        "all": [], "adjacent": [], "diagonal": [], "two markers": [], "print": []}
    print(f"frames of seed {args.seed} with exactly two markers found; error at the field "
          "centres (px), median / max")
    for index in indices:
        layout = layouts[GAMES[index % len(GAMES)]]
        rng = np.random.default_rng([args.seed, index])
        scene = random_scene(layout, rng)
        pose = random_pose(rng, layout)
        rendered = render(scene, pose, rng)
        gray = cv2.cvtColor(rendered.frame, cv2.COLOR_BGR2GRAY)
        found = detect_markers(gray, layout, config)
        if len(found) != 2:
            continue
        names = list(layout.fields)
        mm = np.array([layout.fields[n].centre_mm for n in names])
        truth = np.array([rendered.truth.fields[n].centre_px for n in names])
        free, _ = fit_homography(found, layout, camera)
        free_err = np.linalg.norm(camera.board_to_frame(free, mm) - truth, axis=1)
        two = fit_two_markers(found, layout, camera, config)
        two_err = np.linalg.norm(camera.board_to_frame(two.homography, mm) - truth, axis=1)
        corners = sorted(layout.markers.ids.index(i) for i in found)
        kind = "diagonal" if corners[1] - corners[0] == 2 else "adjacent"
        row = (float(np.median(free_err)), float(free_err.max()),
               float(np.median(two_err)), float(two_err.max()))
        for key in ("all", kind):
            rows[key].append(row)
        try:
            where = Localiser(layout, config, camera=camera).locate(gray)
        except NoBoard:
            outcome = "refused"
        else:
            outcome = where.source
            got = np.linalg.norm(camera.board_to_frame(where.homography, mm) - truth, axis=1)
            rows[outcome].append(row + (float(np.median(got)), float(got.max())))
            outcome += f" {np.median(got):4.1f} / {got.max():4.1f}"
        print(f"  frame {index:4d} {layout.game:8} {kind:8} tilt {pose.tilt_deg:4.1f} | eight "
              f"corners {row[0]:5.1f} / {row[1]:5.1f} | camera model {row[2]:5.1f} / "
              f"{row[3]:5.1f}, f {two.fit.focal_px:4.0f} (true {pose.K[0, 0]:4.0f}), rms "
              f"{two.fit.error_px:.2f}, spread {two.spread_px:5.2f}, jackknife "
              f"{two.jackknife_px:5.2f} -> {outcome}")
    print("over the frames (median of the per-frame medians, largest error):")
    for key, title in (("all", "all"), ("adjacent", "adjacent markers"),
                       ("diagonal", "diagonal markers"),
                       ("two markers", "located by the markers"),
                       ("print", "located by the print")):
        summary(title, rows[key])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
