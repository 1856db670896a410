"""A player's hand and forearm reaching over the board: the occluder readers must cope with.

The hand is built from convex parts in (x, y, h) millimetres (forearm or sleeve, palm, four
fingers, thumb), drawn skin-coloured with creases between fingers, nails, and shading that
falls off towards the outline so it reads as round rather than as a cut-out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.sim.scene import Hand

FINGER_LENGTHS_MM = (72.0, 80.0, 75.0, 60.0)  # index, middle, ring, little
FINGER_WIDTHS_MM = (18.0, 18.5, 17.5, 15.5)
PALM_LENGTH_MM = 92.0
PALM_WIDTH_MM = (62.0, 84.0)  # at the wrist, at the knuckles


@dataclass
class HandPart:
    polygon: np.ndarray  # (N, 3) points in (x, y, h)
    kind: str  # "sleeve", "forearm", "palm", "finger", "thumb"
    nail: np.ndarray | None = None


def _capsule(base: np.ndarray, direction: np.ndarray, length: float, width: float,
             h_base: float, h_tip: float, steps: int = 7) -> tuple[np.ndarray, np.ndarray]:
    """A finger seen from above: a rectangle with a round end; also its nail."""
    side = np.array([-direction[1], direction[0]])
    half = width / 2
    end = base + direction * (length - half)
    pts = [base + side * half]
    for t in np.linspace(0.0, math.pi, steps):
        pts.append(end + side * half * math.cos(t) + direction * half * math.sin(t))
    pts.append(base - side * half)
    heights = [h_base] + [h_tip] * steps + [h_base]
    poly = np.column_stack([np.array(pts), heights])
    nail_c = end + direction * half * 0.1
    a = np.linspace(0, 2 * math.pi, 10, endpoint=False)
    nail = (nail_c + np.outer(np.cos(a), direction) * half * 0.75
            + np.outer(np.sin(a), side) * half * 0.6)
    return poly, np.column_stack([nail, np.full(len(nail), h_tip + 1.0)])


def hand_parts(hand: Hand) -> list[HandPart]:
    """The parts in drawing order (later parts cover earlier ones)."""
    entry = np.array(hand.entry_mm, float)
    tip = np.array(hand.tip_mm, float)
    d = tip - entry
    d /= np.linalg.norm(d)
    n = np.array([-d[1], d[0]])
    if hand.left:
        n = -n  # the thumb is on the other side
    h = hand.height_mm
    curl = hand.curl
    reach = max(FINGER_LENGTHS_MM) * (1.0 - 0.45 * curl)
    knuckles = tip - d * reach
    wrist = knuckles - d * PALM_LENGTH_MM
    parts: list[HandPart] = []
    # Thumb first: the palm covers its root.
    thumb_dir = d * 0.55 + n * 0.85 * (0.6 + 0.6 * hand.spread)
    thumb_dir /= np.linalg.norm(thumb_dir)
    root = wrist + d * 30 + n * PALM_WIDTH_MM[0] * 0.35
    poly, nail = _capsule(root, thumb_dir, 62.0 * (1.0 - 0.3 * curl), 22.0, h, h - 12 * curl)
    parts.append(HandPart(poly, "thumb", nail))
    spread = 0.05 + 0.22 * hand.spread
    for k in range(4):
        off = 1.5 - k  # index finger next to the thumb
        ang = -off * spread / 1.5
        fd = d * math.cos(ang) + n * math.sin(ang)
        base = knuckles - d * 8 + n * off * 21.0
        length = FINGER_LENGTHS_MM[k] * (1.0 - 0.45 * curl) + 8
        poly, nail = _capsule(base, fd, length, FINGER_WIDTHS_MM[k], h, h - 30 * curl)
        parts.append(HandPart(poly, "finger", nail))
    w0, w1 = PALM_WIDTH_MM
    palm = [wrist - n * w0 / 2, wrist + n * w0 / 2]
    for t in np.linspace(0.0, math.pi, 9):  # rounded knuckle edge
        palm.append(knuckles + n * (w1 / 2) * math.cos(t) + d * 8 * math.sin(t))
    palm_poly = np.column_stack([np.array(palm), np.full(len(palm), h)])
    parts.append(HandPart(_convex(palm_poly), "palm"))
    elbow = entry
    arm = np.array([wrist + n * w0 * 0.5, wrist - n * w0 * 0.5,
                    elbow - n * 55, elbow + n * 55])
    arm_h = np.array([h, h, h + 120, h + 120])
    parts.append(HandPart(np.column_stack([arm, arm_h]), "forearm"))
    if hand.sleeve_bgr is not None:
        cuff = wrist - d * (40 + 60 * hand.spread)
        sleeve = np.array([cuff + n * 45, cuff - n * 45, elbow - n * 70, elbow + n * 70])
        parts.append(HandPart(np.column_stack([sleeve, [h + 10, h + 10, h + 130, h + 130]]),
                              "sleeve"))
    return parts


def _convex(poly: np.ndarray) -> np.ndarray:
    hull = cv2.convexHull(poly[:, :2].astype(np.float32), returnPoints=False).ravel()
    return poly[hull]


def draw_hand(canvas: np.ndarray, hand_mask: np.ndarray, hand: Hand,
              parts_px: list[tuple[HandPart, np.ndarray, np.ndarray | None]],
              rng: np.random.Generator) -> None:
    """Paint the hand onto the canvas and mark it in ``hand_mask`` (255 = hand)."""
    ch, cw = canvas.shape[:2]
    if not parts_px:
        return
    allpx = np.concatenate([p for _, p, _ in parts_px])
    x0, y0 = np.clip(np.floor(allpx.min(axis=0)).astype(int) - 4, 0, [cw, ch])
    x1, y1 = np.clip(np.ceil(allpx.max(axis=0)).astype(int) + 4, 0, [cw, ch])
    if x1 <= x0 or y1 <= y0:
        return
    origin = np.array([x0, y0], float)
    roi_w, roi_h = x1 - x0, y1 - y0
    mask = np.zeros((roi_h, roi_w), np.uint8)
    colour = np.zeros((roi_h, roi_w, 3), np.uint8)
    skin = np.array(hand.skin_bgr, float)
    crease = (skin * 0.62).tolist()
    nail_col = np.clip(skin * 1.12 + np.array([12, 8, 0]), 0, 255).tolist()
    for part, px, nail_px in parts_px:
        pts = np.round((px - origin) * 16).astype(np.int32)
        col = np.array(hand.sleeve_bgr, float) if part.kind == "sleeve" else skin
        cv2.fillPoly(mask, [pts], 255, cv2.LINE_AA, 4)
        cv2.fillPoly(colour, [pts], col.tolist(), cv2.LINE_AA, 4)
        if part.kind in ("finger", "thumb"):
            cv2.polylines(colour, [pts], True, crease, 1, cv2.LINE_AA, 4)
            if nail_px is not None and len(nail_px) >= 3:
                cv2.fillPoly(colour, [np.round((nail_px - origin) * 16).astype(np.int32)],
                             nail_col, cv2.LINE_AA, 4)
    # Roundness: light falls off towards the outline (worked out at 1/4 size: it is smooth).
    small = cv2.resize(mask, (max(1, roi_w // 4), max(1, roi_h // 4)),
                       interpolation=cv2.INTER_AREA)
    dist = cv2.distanceTransform((small > 127).astype(np.uint8), cv2.DIST_L2, 3)
    inside = dist[small > 127]
    scale = max(2.0, float(np.percentile(inside, 90))) if inside.size else 2.0
    light = (0.62 + 0.45 * np.clip(dist / scale, 0, 1) ** 0.6).astype(np.float32)
    light *= rng.normal(1.0, 0.03, light.shape).astype(np.float32)
    light = cv2.GaussianBlur(light, (0, 0), 1.0)
    light_u8 = np.clip(cv2.resize(light, (roi_w, roi_h)) * 200.0, 0, 255).astype(np.uint8)
    shaded = cv2.multiply(colour, cv2.cvtColor(light_u8, cv2.COLOR_GRAY2BGR), scale=1 / 200)
    alpha = cv2.cvtColor(mask, cv2.COLOR_GRAY2BGR)
    roi = canvas[y0:y1, x0:x1]
    blended = cv2.add(cv2.multiply(roi, 255 - alpha, scale=1 / 255),
                      cv2.multiply(shaded, alpha, scale=1 / 255))
    canvas[y0:y1, x0:x1] = blended
    hand_mask[y0:y1, x0:x1] = np.where(mask > 127, 255, hand_mask[y0:y1, x0:x1])
