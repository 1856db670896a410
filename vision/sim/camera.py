"""A pinhole camera with mild barrel distortion looking down at the table.

Coordinates. Points are given as ``(x_mm, y_mm, h_mm)``: board millimetres (origin at the
board's top-left corner, x right, y down, as in ``companion.layout``) plus the height above
the table. The right-handed world frame behind this is x right, y down, z *into* the table,
so ``z = -h``; callers never see z. The camera frame is OpenCV's (x right, y down, z
forward), so ``R``/``t``/``rvec`` plug straight into ``cv2.projectPoints``.

Distortion is OpenCV's radial model with k1 only: a normalised point (x, y) moves to
(x, y) * (1 + k1 * r^2). ``homography()`` maps the board plane to *undistorted* pixels;
``project()`` gives the real (distorted) pixels.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import cv2
import numpy as np

if TYPE_CHECKING:  # the layout's data model is the rules core's; vision only reads it
    from companion.layout import Layout


#: Envelope that ``random_pose`` samples: what a Pi camera on a clamp arm above a table sees.
HEIGHT_RANGE_MM = (400.0, 800.0)
TILT_RANGE_DEG = (0.0, 40.0)
FOV_RANGE_DEG = (60.0, 80.0)
K1_RANGE = (-0.05, 0.0)
VIEW_MARGIN_PX = 12


class PoseError(ValueError):
    """A camera pose that cannot see what it must see."""


@dataclass(frozen=True)
class CameraPose:
    """Where the camera is and how it is built.

    The camera centre sits ``height_mm`` above the table, tilted ``tilt_deg`` from vertical,
    and looks at ``target_mm`` on the board plane. ``yaw_deg`` says from which side: at 0 the
    camera leans back towards the board's bottom edge (the player's side), so the board
    appears upright; 90 puts it at the board's right edge, 180 at the top edge, 270 at the left.
    Image "down" always points from the target towards the camera's side of the board.
    """

    height_mm: float = 600.0
    tilt_deg: float = 15.0
    yaw_deg: float = 0.0
    fov_deg: float = 70.0
    k1: float = -0.02
    image_size: tuple[int, int] = (1280, 960)
    target_mm: tuple[float, float] = (160.0, 160.0)

    def __post_init__(self) -> None:
        if self.height_mm <= 0:
            raise PoseError(f"the camera must be above the table, not at {self.height_mm} mm")
        if not 0 <= self.tilt_deg < 85:
            raise PoseError(f"tilt is 0-85 degrees from looking straight down, "
                            f"not {self.tilt_deg}")
        if not 1 < self.fov_deg < 170:
            raise PoseError(f"field of view {self.fov_deg} degrees is not a camera lens")
        if min(self.image_size) <= 0:
            raise PoseError(f"image size {self.image_size} has no pixels")

    # -- intrinsics -------------------------------------------------------------------
    @property
    def K(self) -> np.ndarray:  # noqa: N802 - the usual name of the intrinsic matrix
        w, h = self.image_size
        f = (w / 2.0) / math.tan(math.radians(self.fov_deg) / 2.0)
        return np.array([[f, 0.0, w / 2.0], [0.0, f, h / 2.0], [0.0, 0.0, 1.0]])

    @property
    def dist_coeffs(self) -> np.ndarray:
        """OpenCV distortion vector (k1, k2, p1, p2, k3)."""
        return np.array([self.k1, 0.0, 0.0, 0.0, 0.0])

    # -- extrinsics -------------------------------------------------------------------
    @property
    def centre_mm(self) -> np.ndarray:
        """Camera centre as (x_mm, y_mm, h_mm)."""
        tx, ty = self.target_mm
        d = self.height_mm * math.tan(math.radians(self.tilt_deg))
        yaw = math.radians(self.yaw_deg)
        return np.array([tx + d * math.sin(yaw), ty + d * math.cos(yaw), self.height_mm])

    @property
    def R(self) -> np.ndarray:  # noqa: N802 - rotation world -> camera
        c = _to_world(self.centre_mm[None])[0]
        tx, ty = self.target_mm
        forward = np.array([tx, ty, 0.0]) - c
        forward /= np.linalg.norm(forward)
        yaw = math.radians(self.yaw_deg)
        towards_camera = np.array([math.sin(yaw), math.cos(yaw), 0.0])
        down = towards_camera - forward * (towards_camera @ forward)
        down /= np.linalg.norm(down)
        right = np.cross(down, forward)
        return np.stack([right, down, forward])

    @property
    def t(self) -> np.ndarray:
        return -self.R @ _to_world(self.centre_mm[None])[0]

    @property
    def rvec(self) -> np.ndarray:
        return cv2.Rodrigues(self.R)[0].ravel()

    @property
    def tvec(self) -> np.ndarray:
        return self.t

    # -- projection ---------------------------------------------------------------------
    def to_camera(self, points_mm: np.ndarray) -> np.ndarray:
        """Camera-frame coordinates (N, 3) of (x_mm, y_mm, h_mm) points."""
        return _to_world(np.asarray(points_mm, dtype=float).reshape(-1, 3)) @ self.R.T + self.t

    def project_undistorted(self, points_mm: np.ndarray) -> np.ndarray:
        """Ideal pinhole pixels (N, 2) of (x_mm, y_mm, h_mm) points."""
        cam = self.to_camera(points_mm)
        z = np.maximum(cam[:, 2:3], 1e-6)
        return (cam[:, :2] / z) * self._f + self._c

    def project(self, points_mm: np.ndarray) -> np.ndarray:
        """Real pixels (N, 2) of (x_mm, y_mm, h_mm) points, barrel distortion included."""
        return self.distort_pixels(self.project_undistorted(points_mm))

    def distort_pixels(self, pixels: np.ndarray) -> np.ndarray:
        """Where an ideal (undistorted) pixel really lands on the sensor."""
        n = (np.asarray(pixels, dtype=float).reshape(-1, 2) - self._c) / self._f
        r2 = np.sum(n * n, axis=1, keepdims=True)
        return n * (1.0 + self.k1 * r2) * self._f + self._c

    def undistort_pixels(self, pixels: np.ndarray, iterations: int = 8) -> np.ndarray:
        """Inverse of :meth:`distort_pixels` (fixed-point iteration; k1 is mild)."""
        d = (np.asarray(pixels, dtype=float).reshape(-1, 2) - self._c) / self._f
        u = d.copy()
        for _ in range(iterations):
            r2 = np.sum(u * u, axis=1, keepdims=True)
            u = d / (1.0 + self.k1 * r2)
        return u * self._f + self._c

    def homography(self) -> np.ndarray:
        """3x3 map from board-plane millimetres (x, y, h=0) to undistorted pixels."""
        R, t = self.R, self.t
        H = self.K @ np.column_stack([R[:, 0], R[:, 1], t])
        return H / H[2, 2]

    def in_front(self, points_mm: np.ndarray) -> np.ndarray:
        return self.to_camera(points_mm)[:, 2] > 1.0

    def sees(self, points_mm: np.ndarray, margin_px: float = VIEW_MARGIN_PX) -> bool:
        """Whether every point lies in the image, at least ``margin_px`` inside its edge."""
        pts = np.asarray(points_mm, dtype=float).reshape(-1, 3)
        if not np.all(self.in_front(pts)):
            return False
        px = self.project(pts)
        w, h = self.image_size
        return bool(
            np.all(px[:, 0] >= margin_px) and np.all(px[:, 0] <= w - 1 - margin_px)
            and np.all(px[:, 1] >= margin_px) and np.all(px[:, 1] <= h - 1 - margin_px)
        )

    @property
    def _f(self) -> float:
        return float(self.K[0, 0])

    @property
    def _c(self) -> np.ndarray:
        w, h = self.image_size
        return np.array([w / 2.0, h / 2.0])


def _to_world(points_mm: np.ndarray) -> np.ndarray:
    """(x, y, h) -> the right-handed (x, y, z = -h) world frame."""
    return points_mm * np.array([1.0, 1.0, -1.0])


def must_see_points(layout: Layout, quiet_mm: float = 4.0) -> np.ndarray:
    """Points every frame has to contain: board corners, marker corners (with their white
    border) and the dice area."""
    w, h = layout.board_size_mm
    pts = [(0, 0), (w, 0), (w, h), (0, h)]
    half = layout.markers.size_mm / 2.0 + quiet_mm
    for cx, cy in layout.markers.centres_mm:
        pts += [(cx - half, cy - half), (cx + half, cy - half),
                (cx + half, cy + half), (cx - half, cy + half)]
    if layout.dice_area_mm is not None:
        x0, y0, x1, y1 = layout.dice_area_mm
        pts += [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
    arr = np.array(pts, dtype=float)
    return np.column_stack([arr, np.zeros(len(arr))])


def random_pose(
    rng: np.random.Generator,
    layout: Layout,
    image_size: tuple[int, int] = (1280, 960),
    attempts: int = 200,
) -> CameraPose:
    """A pose drawn from the whole envelope (height, tilt, yaw, fov, k1) that still sees the
    board, its four markers and the dice area.

    Tilt, yaw, fov, k1 and an aim point are drawn first; the lowest height that still sees
    everything is found by bisection, and the height is then drawn between that and the
    ceiling, so low close-up views occur whenever the geometry allows them.
    """
    pts = must_see_points(layout)
    lo_xy, hi_xy = pts[:, :2].min(axis=0), pts[:, :2].max(axis=0)
    centre = (lo_xy + hi_xy) / 2.0
    span = hi_xy - lo_xy
    for _ in range(attempts):
        target = centre + rng.uniform(-0.08, 0.08, size=2) * span
        base = CameraPose(
            height_mm=HEIGHT_RANGE_MM[1],
            tilt_deg=float(rng.uniform(*TILT_RANGE_DEG)),
            yaw_deg=float(rng.uniform(0.0, 360.0)),
            fov_deg=float(rng.uniform(*FOV_RANGE_DEG)),
            k1=float(rng.uniform(*K1_RANGE)),
            image_size=image_size,
            target_mm=(float(target[0]), float(target[1])),
        )
        if not base.sees(pts):
            continue
        lo, hi = HEIGHT_RANGE_MM
        if not replace(base, height_mm=lo).sees(pts):
            for _ in range(12):
                mid = (lo + hi) / 2.0
                if replace(base, height_mm=mid).sees(pts):
                    hi = mid
                else:
                    lo = mid
            lo = hi
        # Closer views are more common: people mount the camera just high enough.
        height = lo + (HEIGHT_RANGE_MM[1] - lo) * float(rng.random()) ** 2
        return replace(base, height_mm=height)
    raise PoseError(
        f"no camera pose up to {HEIGHT_RANGE_MM[1]:.0f} mm sees the whole {layout.title} board"
    )
