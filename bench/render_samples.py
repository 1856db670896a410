"""Contact sheet of simulated table frames: 12 varied, hard frames of all four games.

Writes artifacts/sim_samples.png (and the full-size frames next to it). Look at it: the
readers must work on real photos, not only on the renderer's habits.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from companion.layout import load_layout
from vision.sim import random_pose, random_scene, render

GAMES = ("just4fun", "cuatro", "spexxx", "muehle")
PER_GAME = 3
THUMB = (640, 480)
OUT = Path("artifacts")


def main(seed: int = 7) -> None:
    OUT.mkdir(exist_ok=True)
    rng = np.random.default_rng(seed)
    thumbs = []
    for game in GAMES:
        layout = load_layout(game)
        for k in range(PER_GAME):
            scene = random_scene(layout, rng, hand_prob=0.4)
            pose = random_pose(rng, layout)
            out = render(scene, pose, rng)
            cv2.imwrite(str(OUT / f"sim_{game}_{k}.jpg"), out.frame)
            thumb = cv2.resize(out.frame, THUMB, interpolation=cv2.INTER_AREA)
            hidden = sum(not v for v in out.truth.markers_visible)
            occluded = sum(f.occluded for f in out.truth.fields.values())
            label = (f"{game} h{pose.height_mm:.0f} t{pose.tilt_deg:.0f} y{pose.yaw_deg:.0f} "
                     f"occ{occluded} mk-{hidden} dice{len(scene.dice)}")
            cv2.putText(thumb, label, (8, 22), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (0, 0, 0), 3,
                        cv2.LINE_AA)
            cv2.putText(thumb, label, (8, 22), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (255, 255, 255),
                        1, cv2.LINE_AA)
            thumbs.append(thumb)
    rows = [np.hstack(thumbs[i:i + 3]) for i in range(0, len(thumbs), 3)]
    path = OUT / "sim_samples.png"
    cv2.imwrite(str(path), np.vstack(rows))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
