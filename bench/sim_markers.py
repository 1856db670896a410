"""How the simulated frames treat a plain ArUco detector: a check of the renderer's truth.

For clean frames (no noise, blur, glare, hand) the detected marker corners must sit on the
true corners; for hard frames the detection rate shows how hard the renderer makes life.
Prints detection rates and corner errors (median / 95th percentile / max, pixels).

    python bench/sim_markers.py [frames per game, default 25]
"""

from __future__ import annotations

import sys

import cv2
import numpy as np

from companion.layout import load_layout
from vision.sim import Lighting, random_pose, random_scene, render

GAMES = ("just4fun", "cuatro", "spexxx", "muehle")


def detector() -> cv2.aruco.ArucoDetector:
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    return cv2.aruco.ArucoDetector(
        cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), params)


def main(frames: int = 25) -> None:
    aruco = detector()
    for label, hard in (("clean", False), ("hard", True)):
        errors: list[float] = []
        expected = found = wrong_id = 0
        for game in GAMES:
            layout = load_layout(game)
            for k in range(frames):
                rng = np.random.default_rng([k, 7])
                scene = random_scene(layout, rng, hard=hard)
                if not hard:
                    scene.noise_sigma = scene.blur_sigma = 0.0
                    scene.jpeg_quality = None
                    scene.lighting = Lighting(glare=(), vignetting=0.0, gradient=0.0)
                pose = random_pose(rng, layout)
                out = render(scene, pose, rng)
                truth = out.truth
                corners, ids, _ = aruco.detectMarkers(cv2.cvtColor(out.frame,
                                                                   cv2.COLOR_BGR2GRAY))
                seen = {} if ids is None else {
                    int(i): c.reshape(4, 2) for c, i in zip(corners, ids.ravel(), strict=True)}
                wrong_id += len(set(seen) - set(truth.marker_ids))
                for marker_id, true_corners, visible in zip(
                        truth.marker_ids, truth.marker_corners, truth.markers_visible,
                        strict=True):
                    if not visible:
                        continue
                    expected += 1
                    if marker_id in seen:
                        found += 1
                        errors.append(float(np.linalg.norm(seen[marker_id] - true_corners,
                                                           axis=1).max()))
        e = np.array(errors)
        print(f"{label:5s} frames {frames * len(GAMES):4d}  visible markers detected "
              f"{found}/{expected} ({100.0 * found / max(expected, 1):.1f} %)  "
              f"false ids {wrong_id}  corner error px: median {np.median(e):.2f} "
              f"p95 {np.percentile(e, 95):.2f} max {e.max():.2f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 25)
