"""Camera geometry: where the camera is above the board, recovered from the homography.

Tower heights are read from geometry, so we need to know where a point ``z`` mm above
the table appears. A plane parallel to the table seen through a pinhole maps onto the
table plane by a pure scaling about the camera's nadir N (the table point straight
below the lens): a point at height z above table point P lands on the table-plane image
at ``N + (P - N) * D / (D - z)``, with D the lens height. So two numbers, N and D, are all
the field stage needs, and both follow from the homography once the focal length is
known (from the config, or estimated from the homography itself when the camera is
tilted enough to make it observable).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.config import VisionConfig
from vision.errors import VisionError


@dataclass(frozen=True)
class Camera:
    """Pinhole intrinsics with a centred principal point and radial distortion k1."""

    focal_px: float
    width: int
    height: int
    k1: float = 0.0

    @classmethod
    def from_config(cls, config: VisionConfig, focal_px: float | None = None) -> Camera:
        width, height = config.frame_size
        focal = focal_px or config.focal_px or focal_from_fov(config.default_fov_deg, width)
        return cls(float(focal), int(width), int(height), float(config.k1))

    @property
    def matrix(self) -> np.ndarray:
        return np.array([[self.focal_px, 0, self.width / 2.0],
                         [0, self.focal_px, self.height / 2.0],
                         [0, 0, 1.0]])

    def undistort(self, points_px: np.ndarray) -> np.ndarray:
        """Raw frame px -> where an ideal (distortion-free) lens would have put them."""
        points_px = np.asarray(points_px, dtype=np.float64).reshape(-1, 2)
        if self.k1 == 0:
            return points_px
        dist = np.array([self.k1, 0, 0, 0], dtype=np.float64)
        out = cv2.undistortPoints(points_px.reshape(-1, 1, 2), self.matrix, dist, P=self.matrix)
        return out.reshape(-1, 2)

    def distort(self, points_px: np.ndarray) -> np.ndarray:
        """Ideal px -> raw frame px (the forward lens model, k1 only)."""
        points_px = np.asarray(points_px, dtype=np.float64).reshape(-1, 2)
        if self.k1 == 0:
            return points_px
        centre = np.array([self.width / 2.0, self.height / 2.0])
        norm = (points_px - centre) / self.focal_px
        r2 = (norm**2).sum(axis=1, keepdims=True)
        return centre + norm * (1 + self.k1 * r2) * self.focal_px

    def board_to_frame(self, homography: np.ndarray, points_mm: np.ndarray) -> np.ndarray:
        """Points on the board's plane (mm) -> raw frame px: the board homography, then the
        lens (the homography maps to ideal, undistorted px)."""
        pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 1, 2)
        return self.distort(cv2.perspectiveTransform(pts, homography).reshape(-1, 2))


def focal_from_fov(fov_deg: float, width: int) -> float:
    """Focal length in px of a camera with this horizontal field of view."""
    return width / 2.0 / math.tan(math.radians(fov_deg) / 2.0)


def fov_from_focal(focal_px: float, width: int) -> float:
    return math.degrees(2 * math.atan(width / 2.0 / focal_px))


@dataclass(frozen=True)
class Pose:
    """The camera relative to the board: rotation/translation board mm -> camera."""

    rotation: np.ndarray  # 3x3, board axes (x right, y down, z into the table)
    translation: np.ndarray  # 3, mm
    focal_px: float
    focal_estimated: bool

    @property
    def centre_mm(self) -> np.ndarray:
        """The lens position in board mm (its z is negative: above the table)."""
        return -self.rotation.T @ self.translation

    @property
    def height_mm(self) -> float:
        """Height of the lens above the table."""
        return float(-self.centre_mm[2])

    @property
    def nadir_mm(self) -> np.ndarray:
        """The table point straight below the lens."""
        return self.centre_mm[:2].copy()

    @property
    def tilt_deg(self) -> float:
        """Angle between the optical axis and the vertical."""
        axis = self.rotation[2]  # camera z axis in board coordinates
        return float(math.degrees(math.acos(min(1.0, abs(axis[2])))))

    def lift(self, points_mm: np.ndarray, height_mm: float | np.ndarray) -> np.ndarray:
        """Where points ``height_mm`` above the given table points (shape (..., 2)) appear
        on the table plane, i.e. in a top-down rectified board image. ``height_mm`` is a
        scalar or broadcasts against ``points_mm[..., 0]``."""
        scale = self.height_mm / (self.height_mm - np.asarray(height_mm, dtype=np.float64))
        nadir = self.nadir_mm
        return nadir + (np.asarray(points_mm, dtype=np.float64) - nadir) * scale[..., None]

    def __repr__(self) -> str:
        x, y = self.nadir_mm
        return (f"<Pose lens {self.height_mm:.0f} mm above ({x:.0f}, {y:.0f}) mm, tilt "
                f"{self.tilt_deg:.1f} deg, f={self.focal_px:.0f} px"
                f"{' (estimated)' if self.focal_estimated else ''}>")


def estimate_focal(homography: np.ndarray, width: int, height: int) -> float | None:
    """Focal length (px) from a plane homography, assuming square pixels and a centred
    principal point (Zhang's two constraints solved for 1/f^2 by least squares). None
    when the constraints are degenerate (camera looking straight down)."""
    shift = np.array([[1, 0, -width / 2.0], [0, 1, -height / 2.0], [0, 0, 1]])
    h = shift @ homography
    h = h / np.linalg.norm(h[:, :2])
    h1, h2 = h[:, 0], h[:, 1]
    # (a / f^2) + b = 0 for orthogonality and for equal norms of r1 and r2
    a = np.array([h1[0] * h2[0] + h1[1] * h2[1],
                  h1[0] ** 2 + h1[1] ** 2 - h2[0] ** 2 - h2[1] ** 2])
    b = np.array([h1[2] * h2[2], h1[2] ** 2 - h2[2] ** 2])
    denom = float(a @ a)
    if denom == 0:
        return None
    inv_f2 = -float(a @ b) / denom
    if inv_f2 <= 0:
        return None
    return 1.0 / math.sqrt(inv_f2)


def pose_from_homography(homography: np.ndarray, focal_px: float, width: int,
                         height: int, estimated: bool = False) -> Pose:
    """Decompose ``H = K [r1 r2 t]`` into a proper rotation and translation."""
    camera = np.array([[focal_px, 0, width / 2.0], [0, focal_px, height / 2.0], [0, 0, 1]])
    m = np.linalg.solve(camera, homography)
    scale = 2.0 / (np.linalg.norm(m[:, 0]) + np.linalg.norm(m[:, 1]))
    if m[2, 2] * scale < 0:  # the board must lie in front of the camera
        scale = -scale
    r1, r2, t = m[:, 0] * scale, m[:, 1] * scale, m[:, 2] * scale
    rotation = np.column_stack([r1, r2, np.cross(r1, r2)])
    u, _, vt = np.linalg.svd(rotation)
    rotation = u @ vt
    if np.linalg.det(rotation) < 0:
        raise VisionError("the board appears mirrored; check the marker or corner order")
    return Pose(rotation, t, float(focal_px), estimated)


def recover_pose(homography: np.ndarray, config: VisionConfig) -> Pose:
    """The camera pose for a board-mm -> undistorted-px homography: the configured focal
    length, else an estimate from the homography when it is trustworthy (enough tilt,
    plausible field of view), else the default field of view."""
    width, height = config.frame_size
    if config.focal_px:
        return pose_from_homography(homography, config.focal_px, width, height)
    fallback = focal_from_fov(config.default_fov_deg, width)
    focal = estimate_focal(homography, width, height)
    if focal is not None:
        low, high = config.fov_range_deg
        if low <= fov_from_focal(focal, width) <= high:
            pose = pose_from_homography(homography, focal, width, height, estimated=True)
            if pose.tilt_deg >= config.min_tilt_for_focal_deg:
                return pose
    return pose_from_homography(homography, fallback, width, height)


@dataclass(frozen=True)
class PlaneFit:
    """A camera pose and focal length fitted to points of the board plane (square pixels,
    centred principal point), with the covariance of its seven parameters (rotation
    vector, translation, focal), so that how far off it may be is known, not guessed."""

    rvec: np.ndarray
    tvec: np.ndarray
    focal_px: float
    width: int
    height: int
    error_px: float  # RMS reprojection error of the fitted points
    covariance: np.ndarray  # 7x7, rvec, tvec (mm), focal (px)

    @property
    def homography(self) -> np.ndarray:
        """``H = K [r1 r2 t]``: board mm -> undistorted px."""
        rotation = cv2.Rodrigues(self.rvec)[0]
        h = Camera(self.focal_px, self.width, self.height).matrix @ np.column_stack(
            [rotation[:, 0], rotation[:, 1], self.tvec])
        return h / h[2, 2]

    def spread_px(self, points_mm: np.ndarray) -> np.ndarray:
        """The fit's standard error (px, both axes together) where each board point
        appears: the parameters' covariance carried through the projection."""
        jacobian = _projection(self._params(), _on_plane(points_mm),
                               self.width, self.height)[1]
        variance = np.einsum("ij,jk,ik->i", jacobian, self.covariance, jacobian)
        return np.sqrt(variance.reshape(-1, 2).sum(axis=1))

    def swung(self, points_mm: np.ndarray, sigmas: float) -> list[PlaneFit]:
        """This fit moved ``sigmas`` standard deviations both ways along the direction
        its covariance lets the board points (mm) move furthest in the frame: the swing
        about the line through two adjacent markers."""
        values, vectors = np.linalg.eigh(self.covariance)
        root = vectors @ np.diag(np.sqrt(np.clip(values, 0, None))) @ vectors.T
        jacobian = _projection(self._params(), _on_plane(points_mm), self.width,
                               self.height)[1]
        spread = root @ jacobian.T @ jacobian @ root
        step = root @ np.linalg.eigh(spread)[1][:, -1] * sigmas
        out = []
        for sign in (-1.0, 1.0):
            params = self._params() + sign * step
            out.append(replace(self, rvec=params[:3], tvec=params[3:6],
                               focal_px=float(params[6])))
        return out

    def _params(self) -> np.ndarray:
        return np.concatenate([self.rvec, self.tvec, [self.focal_px]])


def _on_plane(points_mm: np.ndarray) -> np.ndarray:
    points = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
    return np.column_stack([points, np.zeros(len(points))])


def _projection(params: np.ndarray, points: np.ndarray, width: int,
                height: int) -> tuple[np.ndarray, np.ndarray]:
    """Undistorted px of 3-D board points and their Jacobian (2N x 7) with respect to
    rvec, tvec and the one focal length of square pixels."""
    camera = Camera(params[6], width, height).matrix
    px, jac = cv2.projectPoints(points, params[:3], params[3:6], camera, None)
    return px.reshape(-1, 2), np.column_stack([jac[:, :6], jac[:, 6] + jac[:, 7]])


def fit_plane_pose(points_mm: np.ndarray, points_px: np.ndarray, noise: np.ndarray,
                   width: int, height: int, focal_px: float,
                   focal_sigma_px: float = 0.0) -> PlaneFit:
    """Camera pose (and focal length) from board-plane points seen at undistorted px.

    ``noise`` is the covariance (2N x 2N, px^2) of the seen points: corner noise, and the
    correlated error of a marker card lying a little off its spot. The focal length has
    the prior ``focal_px`` +- ``focal_sigma_px`` (0 fixes it). Poses are started from
    OpenCV's planar PnP (IPPE) at focal lengths across +-2 sigma, then refined together
    by Levenberg-Marquardt on the whitened residuals. The covariance is scaled up when
    the points disagree more than ``noise`` says (chi-square per degree of freedom)."""
    points = _on_plane(points_mm)
    seen = np.asarray(points_px, dtype=np.float64).reshape(-1, 2)
    whiten = np.linalg.cholesky(np.linalg.inv(noise)).T  # whiten.T @ whiten = noise^-1
    free = 7 if focal_sigma_px > 0 else 6

    prior_row = np.eye(1, 7, 6) / focal_sigma_px if free == 7 else None

    def cost(params: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        px, jac = _projection(params, points, width, height)
        residual = whiten @ (seen - px).ravel()
        jac = whiten @ jac[:, :free]
        if prior_row is not None:  # the focal prior as one more residual
            residual = np.append(residual, (focal_px - params[6]) / focal_sigma_px)
            jac = np.vstack([jac, prior_row])
        return float(residual @ residual), residual, jac

    starts = [focal_px] if free == 6 else focal_px + focal_sigma_px * np.linspace(-2, 2, 5)
    best: tuple[tuple[float, np.ndarray, np.ndarray], np.ndarray] | None = None
    for focal in starts:
        camera = Camera(focal, width, height).matrix
        _, rvecs, tvecs, _ = cv2.solvePnPGeneric(points, seen, camera, None,
                                                 flags=cv2.SOLVEPNP_IPPE)
        for rvec, tvec in zip(rvecs, tvecs, strict=True):
            params = np.concatenate([rvec.ravel(), tvec.ravel(), [focal]])
            here = cost(params)
            if best is None or here[0] < best[0][0]:
                best = (here, params)
    if best is None:
        raise VisionError("no camera pose fits the points")
    (value, residual, jac), params = best
    damping = 1e-3
    for _ in range(50):
        normal = jac.T @ jac
        step = np.linalg.solve(normal + damping * np.diag(np.diag(normal)), jac.T @ residual)
        trial = params.copy()
        trial[:free] += step
        trial_value, trial_residual, trial_jac = cost(trial)
        if trial_value < value:
            converged = value - trial_value < 1e-9 * value
            params, value, damping = trial, trial_value, damping / 10
            residual, jac = trial_residual, trial_jac
            if converged:
                break
        else:
            damping *= 10
            if damping > 1e8:
                break
    covariance = np.zeros((7, 7))
    dof = max(len(residual) - free, 1)
    covariance[:free, :free] = np.linalg.pinv(jac.T @ jac) * max(1.0, value / dof)
    px = _projection(params, points, width, height)[0]
    error = float(np.sqrt(((px - seen) ** 2).sum(axis=1).mean()))
    return PlaneFit(params[:3].copy(), params[3:6].copy(), float(params[6]), width, height,
                    error, covariance)
