"""Flat synthetic boards seen by a known camera, for testing localisation and pose
without the full table renderer: real ArUco markers, exact homography."""

from __future__ import annotations

import math

import cv2
import numpy as np

from companion.layout import Layout
from vision.markers import marker_corners_mm

CANVAS_PX_PER_MM = 4.0
MARGIN_MM = 60.0


def camera_homography(layout: Layout, height_mm: float, tilt_deg: float, yaw_deg: float,
                      focal_px: float, size=(1280, 960)) -> np.ndarray:
    """Board mm -> px for a camera ``height_mm`` above the table, looking at the board
    centre, tilted ``tilt_deg`` from vertical, turned ``yaw_deg`` about the vertical."""
    w, h = layout.board_size_mm
    target = np.array([w / 2, h / 2, 0.0])
    yaw, tilt = math.radians(yaw_deg), math.radians(tilt_deg)
    # Camera sits back from the target along the yaw direction; board z points down.
    horiz = height_mm * math.tan(tilt)
    centre = target + np.array([-horiz * math.sin(yaw), horiz * math.cos(yaw), -height_mm])
    forward = target - centre
    forward /= np.linalg.norm(forward)
    right = np.array([math.cos(yaw), math.sin(yaw), 0.0])
    right -= forward * (right @ forward)
    right /= np.linalg.norm(right)
    down = np.cross(forward, right)
    rotation = np.stack([right, down, forward])  # rows: camera x, y, z in board coords
    t = -rotation @ centre
    k = np.array([[focal_px, 0, size[0] / 2], [0, focal_px, size[1] / 2], [0, 0, 1]])
    homography = k @ np.column_stack([rotation[:, 0], rotation[:, 1], t])
    return homography / homography[2, 2]


def flat_board(layout: Layout, colour=(192, 220, 232)) -> np.ndarray:
    """A top-down BGR picture of the board and its markers at CANVAS_PX_PER_MM."""
    w, h = layout.board_size_mm
    s = CANVAS_PX_PER_MM
    canvas = np.full((int((h + 2 * MARGIN_MM) * s), int((w + 2 * MARGIN_MM) * s), 3),
                     (90, 110, 120), np.uint8)

    def px(x, y):
        return int(round((x + MARGIN_MM) * s)), int(round((y + MARGIN_MM) * s))

    cv2.rectangle(canvas, px(0, 0), px(w, h), colour, -1)
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    size = layout.markers.size_mm
    for marker_id, corners in marker_corners_mm(layout).items():
        x0, y0 = corners[0]
        cv2.rectangle(canvas, px(x0 - size / 6, y0 - size / 6),
                      px(x0 + size * 7 / 6, y0 + size * 7 / 6), (255, 255, 255), -1)
        side = int(round(size * s))
        marker = cv2.aruco.generateImageMarker(dictionary, marker_id, side)
        cx, cy = px(x0, y0)
        canvas[cy:cy + side, cx:cx + side] = marker[:, :, None]
    return canvas


def view(layout: Layout, homography: np.ndarray, size=(1280, 960),
         canvas: np.ndarray | None = None) -> np.ndarray:
    """The frame a camera with this homography sees of the flat board."""
    canvas = flat_board(layout) if canvas is None else canvas
    s = CANVAS_PX_PER_MM
    to_mm = np.array([[1 / s, 0, -MARGIN_MM], [0, 1 / s, -MARGIN_MM], [0, 0, 1]])
    return cv2.warpPerspective(canvas, homography @ to_mm, size, flags=cv2.INTER_AREA,
                               borderValue=(70, 80, 90))
