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
from vision.fields import BOARD, BoardGeometry


@dataclass(frozen=True)
class Occlusion:
    occluded: bool
    hidden_fields: frozenset[str]
    reason: str = ""


def find_occlusion(labels: np.ndarray, geometry: BoardGeometry, config: VisionConfig,
                   markers_missing: int = 0) -> Occlusion:
    """Hidden fields from the labelled rectified image (see :func:`vision.fields.read_fields`)."""
    # Unexpected: anything but the printed board where no tower can be. (Inside a tower's
    # reach, deep shade or glare on a piece also match nothing: not evidence of a hand.)
    foreign = (labels != BOARD) & (geometry.coverable == 0)
    foreign = foreign.astype(np.uint8)
    kernel = np.ones((3, 3), np.uint8)
    foreign = cv2.morphologyEx(foreign, cv2.MORPH_OPEN, kernel)
    count, components, stats, _ = cv2.connectedComponentsWithStats(foreign, connectivity=8)
    min_area = config.hand_min_area_mm2 * geometry.px_per_mm**2
    big = [k for k in range(1, count) if stats[k, cv2.CC_STAT_AREA] >= min_area]
    hidden: set[str] = set()
    if big:
        blob = np.isin(components, big).astype(np.uint8)
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
