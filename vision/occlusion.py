"""Occlusion: which fields a hand or arm hides, so no state is reported for them.

A hand over the board shows colours other than the printed board where no tower can
stand (the gaps between towers are never covered by a piece). Such "unexpected"
pixels are gathered into blobs; a blob of hand size
hides every field it touches (plus a margin, because the hand's shadow and the arm's
edge are not reliably foreign). A marker that disappears while the board stays put is
also a sign of a hand reaching in, and makes the frame occluded.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.config import VisionConfig
from vision.fields import BoardGeometry, ColourClasses


@dataclass(frozen=True)
class Occlusion:
    occluded: bool
    hidden_fields: frozenset[str]
    reason: str = ""


def find_occlusion(lab: np.ndarray, geometry: BoardGeometry, classes: ColourClasses,
                   towers: np.ndarray, config: VisionConfig,
                   markers_missing: int = 0) -> Occlusion:
    """Hidden fields from the rectified, normalised Lab board image and the mask of the
    towers read in it (:func:`vision.fields.tower_mask`)."""
    # Unexpected: not the printed board, on plain board where no tower stands (deep
    # shade or glare on a piece match nothing either, and printed edges blur). Judged
    # strictly, on a slightly smoothed image: many skin tones are close to some board
    # colour.
    size = max(3, int(round(config.hand_smoothing_mm * geometry.px_per_mm)) | 1)
    distance = classes.board_distance_at(cv2.blur(lab, (size, size)), geometry.expected)
    foreign = ((distance > config.hand_board_distance) & (geometry.plain > 0)
               & (towers == 0)).astype(np.uint8)
    kernel = np.ones((3, 3), np.uint8)
    foreign = cv2.morphologyEx(foreign, cv2.MORPH_OPEN, kernel)
    # bridge the printed edges and towers left out above, so a hand is one blob
    bridge = int(round(config.hand_bridge_mm * geometry.px_per_mm)) | 1
    foreign = cv2.morphologyEx(foreign, cv2.MORPH_CLOSE, np.ones((bridge, bridge), np.uint8))
    count, components, stats, _ = cv2.connectedComponentsWithStats(foreign, connectivity=8)
    min_area = config.hand_min_area_mm2 * geometry.px_per_mm**2
    big = [k for k in range(1, count) if stats[k, cv2.CC_STAT_AREA] >= min_area]
    hidden: set[str] = set()
    if big:
        # Towers and printed edges were left out of the test, so a hand shows in
        # pieces: its convex hull is what it covers.
        blob = np.zeros(foreign.shape, np.uint8)
        for k in big:
            ys, xs = np.nonzero(components == k)
            hull = cv2.convexHull(np.column_stack([xs, ys]).astype(np.int32))
            cv2.fillConvexPoly(blob, hull, 1)
        grow = max(1, int(round(config.hand_margin_mm * geometry.px_per_mm)))
        blob = cv2.dilate(blob, cv2.getStructuringElement(
            cv2.MORPH_ELLIPSE, (2 * grow + 1, 2 * grow + 1)))
        covered = np.bincount(geometry.field_seg, weights=blob.ravel()[geometry.field_idx],
                              minlength=len(geometry.names))
        share = covered / np.maximum(geometry.field_area, 1)
        hidden = {geometry.names[f] for f in np.nonzero(share > config.hidden_field_fraction)[0]}
    reasons = []
    if big:
        reasons.append(f"something over the board hides {len(hidden)} field(s)")
    if markers_missing:
        reasons.append(f"{markers_missing} marker(s) covered")
    # A covered marker alone does not hide a field (a card or cup may lie on it).
    return Occlusion(bool(hidden), frozenset(hidden), "; ".join(reasons))
