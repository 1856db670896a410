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


def find_occlusion(bgr: np.ndarray, lab: np.ndarray, geometry: BoardGeometry,
                   classes: ColourClasses, towers: np.ndarray, config: VisionConfig,
                   markers_missing: int = 0) -> Occlusion:
    """Hidden fields from the rectified, normalised board image (BGR and Lab) and the
    mask of the towers read in it (:func:`vision.fields.tower_mask`)."""
    # Unexpected: not the printed board, on plain board where no tower stands (deep
    # shade or glare on a piece match nothing either, and printed edges blur). Judged
    # strictly, on a slightly smoothed image: many skin tones are close to some board
    # colour.
    size = max(3, int(round(config.hand_smoothing_mm * geometry.px_per_mm)) | 1)
    distance = classes.board_distance_at(cv2.blur(lab, (size, size)),
                                         geometry.expected_offsets)
    foreign = (distance > config.hand_board_distance) & (geometry.plain > 0) & (towers == 0)
    _drop_light_effects(foreign, cv2.blur(bgr, (size, size)), geometry, classes, config)
    foreign = foreign.astype(np.uint8)
    kernel = np.ones((3, 3), np.uint8)
    foreign = cv2.morphologyEx(foreign, cv2.MORPH_OPEN, kernel)
    # bridge the printed edges and towers left out above, so a hand is one blob
    bridge = int(round(config.hand_bridge_mm * geometry.px_per_mm)) | 1
    foreign = cv2.morphologyEx(foreign, cv2.MORPH_CLOSE, np.ones((bridge, bridge), np.uint8))
    count, components, stats, _ = cv2.connectedComponentsWithStats(foreign, connectivity=8)
    min_area = config.hand_min_area_mm2 * geometry.px_per_mm**2
    big = _hand_blobs(components, stats, geometry, config, min_area)
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


def _hand_blobs(components: np.ndarray, stats: np.ndarray, geometry: BoardGeometry,
                config: VisionConfig, min_area: float) -> list[int]:
    """The hand-sized foreign blobs, if one of them is an arm reaching in: a hand comes
    from beyond the board, so its blob crosses the board's outer rim. Foreign patches
    wholly inside the board with no arm in view (glare, a shadow, a blurred print) are
    not a hand; with an arm in view, they are taken as parts of the hand that towers
    and printed edges split off."""
    big = [k for k in range(1, len(stats)) if stats[k, cv2.CC_STAT_AREA] >= min_area]
    if not big:
        return []
    rim = components.copy()
    (x0, y0), (x1, y1) = np.rint(geometry.to_px(
        [(config.hand_edge_mm,) * 2,
         np.subtract(geometry.board_size_mm, config.hand_edge_mm)])).astype(int)
    rim[max(y0, 0):max(y1, 0), max(x0, 0):max(x1, 0)] = 0
    entering = set(np.unique(rim).tolist())
    return big if entering & set(big) else []


def _drop_light_effects(foreign: np.ndarray, bgr: np.ndarray, geometry: BoardGeometry,
                classes: ColourClasses, config: VisionConfig) -> None:
    """Clear pixels whose colour is the printed board washed towards white by a lamp's
    reflection (or over-exposure): board + (255 - board) * g for one g."""
    ys, xs = np.nonzero(foreign)
    if not len(ys):
        return
    board = classes.board_bgr[geometry.expected[ys, xs]]
    seen = bgr[ys, xs].astype(np.float32)
    room = 255.0 - board
    g = ((seen - board) * room).sum(axis=1) / np.maximum((room**2).sum(axis=1), 1.0)
    residual = np.abs(seen - board - room * g[:, None]).max(axis=1)
    washed = (g > config.glare_min) & (residual < config.glare_tolerance)
    foreign[ys[washed], xs[washed]] = False
