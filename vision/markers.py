"""Localisation: find the board in a frame from its four ArUco markers.

The result is a homography from board millimetres to (undistorted) frame pixels. A
:class:`Localiser` keeps the last good homography across frames, because at a real
table a hand often covers one marker, and searching small windows around where the
markers were is much faster than searching the whole frame.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision.config import VisionConfig
from vision.errors import VisionError
from vision.pose import Camera, PlaneFit, fit_plane_pose, focal_from_fov, recover_pose

if TYPE_CHECKING:  # the layout's data model is the rules core's; vision only reads it
    from companion.layout import Layout

#: Corner offsets of a marker around its centre, in units of its size, in ArUco's
#: corner order (top-left, top-right, bottom-right, bottom-left of the printed marker).
_CORNER_OFFSETS = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]])


class NoBoard(VisionError):
    """The board cannot be located in the frame. ``rough``: where the markers found put
    it, if one or two were (two markers' loose fit, tens of px off at the covered
    corners; one marker's, up to hundreds: :func:`fit_one_marker`)."""

    def __init__(self, message: str, rough: np.ndarray | None = None) -> None:
        super().__init__(message)
        self.rough = rough


@dataclass
class Localisation:
    """Where the board is in one frame and how sure we are."""

    homography: np.ndarray  # board mm -> undistorted frame px
    marker_corners: dict[int, np.ndarray] = field(default_factory=dict)  # seen, raw px
    relocalised: bool = False  # the camera or board moved since the last frame
    #: "markers", "two markers" (fitted under the camera model), "print" (two or three
    #: markers and the printed board aligned to the frame), "previous" (too few seen) or
    #: "corners"
    source: str = "markers"
    #: the markers' own homography (or two markers' fit) where ``homography`` was
    #: refined against the print: it puts the markers where they are, for their black and
    #: white
    markers_homography: np.ndarray | None = None

    @property
    def markers_seen(self) -> int:
        return len(self.marker_corners)


def marker_corners_mm(layout: Layout) -> dict[int, np.ndarray]:
    """Each marker's four corners in board mm (printed upright, as ``companion markers``
    prints them), keyed by marker id."""
    spec = layout.markers
    return {
        marker_id: np.asarray(centre) + _CORNER_OFFSETS * spec.size_mm
        for marker_id, centre in zip(spec.ids, spec.centres_mm, strict=True)
    }


def board_corners_mm(layout: Layout) -> np.ndarray:
    """The board's own corners TL, TR, BR, BL in mm."""
    w, h = layout.board_size_mm
    return np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64)


def _dictionary(layout: Layout) -> cv2.aruco.Dictionary:
    name = layout.markers.dictionary
    if not hasattr(cv2.aruco, name):
        raise VisionError(f"unknown ArUco dictionary {name!r} in layout {layout.game}")
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))


def make_detector(
    layout: Layout, config: VisionConfig, min_perimeter_rate: float | None = None
) -> cv2.aruco.ArucoDetector:
    """An ArUco detector for the layout's dictionary; ``min_perimeter_rate`` (a share of
    the image's longer side) leaves out candidates too small to be the marker sought."""
    params = cv2.aruco.DetectorParameters()
    if min_perimeter_rate is not None:
        params.minMarkerPerimeterRate = min_perimeter_rate
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE  # we refine ourselves
    params.perspectiveRemovePixelPerCell = config.marker_pixels_per_cell
    params.perspectiveRemoveIgnoredMarginPerCell = config.marker_cell_margin
    return cv2.aruco.ArucoDetector(_dictionary(layout), params)


def detect_markers(
    gray: np.ndarray,
    layout: Layout,
    config: VisionConfig,
    detector: cv2.aruco.ArucoDetector | None = None,
) -> dict[int, np.ndarray]:
    """Find the layout's markers anywhere in a grey frame: detect on a downscaled copy
    (fast), then refine the corners at full resolution. Returns id -> 4x2 corners (px)."""
    detector = detector or make_detector(layout, config)
    scale = config.detect_scale
    small = gray if scale >= 1 else cv2.resize(
        gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA
    )
    found = _detect(small, detector, layout, 1.0 / scale if scale < 1 else 1.0, (0, 0))
    if len(found) < 4 and scale < 1:  # tiny or blurred markers: try full size once
        found = _detect(gray, detector, layout, 1.0, (0, 0)) | found
    return _refine(gray, found, config)


def make_rescue_detector(layout: Layout, config: VisionConfig) -> cv2.aruco.ArucoDetector:
    """The detector of the second, full-size search: as :func:`make_detector`, but reading
    bits with error correction (config ``marker_rescue_error_correction``)."""
    detector = make_detector(layout, config)
    params = detector.getDetectorParameters()
    params.errorCorrectionRate = config.marker_rescue_error_correction
    detector.setDetectorParameters(params)
    return detector


def rescue_markers(
    gray: np.ndarray,
    layout: Layout,
    config: VisionConfig,
    found: dict[int, np.ndarray],
    detector: cv2.aruco.ArucoDetector | None = None,
) -> dict[int, np.ndarray]:
    """Markers the first search missed, looked for again at full size on the grey frame
    and on a locally equalised copy (glare or dim light leaves a marker too little
    contrast for ArUco's thresholds), with a corrected bit allowed (blur). Returns only
    markers not in ``found``, refined; the caller checks they fit the others."""
    detector = detector or make_rescue_detector(layout, config)
    tiles = config.marker_rescue_clahe_tiles
    equalised = cv2.createCLAHE(config.marker_rescue_clahe_clip, (tiles, tiles)).apply(gray)
    extra = _detect(gray, detector, layout, 1.0, (0, 0))
    extra = _detect(equalised, detector, layout, 1.0, (0, 0)) | extra
    return _refine(gray, {i: c for i, c in extra.items() if i not in found}, config)


def detect_markers_near(
    gray: np.ndarray,
    layout: Layout,
    config: VisionConfig,
    expected: dict[int, np.ndarray],
    detector: cv2.aruco.ArucoDetector | None = None,
) -> dict[int, np.ndarray]:
    """Search only small windows around where each marker is expected (px corners)."""
    detector = detector or make_detector(layout, config, config.search_min_perimeter_rate)
    found: dict[int, np.ndarray] = {}
    for marker_id, corners in expected.items():
        window = search_window(corners, gray.shape, config.search_margin)
        if window is None:
            continue  # the marker is expected outside the frame
        rows, cols = window
        hits = _detect(gray[window], detector, layout, 1.0, (cols.start, rows.start))
        if marker_id in hits:
            found[marker_id] = hits[marker_id]
    return _refine(gray, found, config)


def search_window(corners: np.ndarray, shape: tuple[int, ...], margin: float
                  ) -> tuple[slice, slice] | None:
    """The frame's rows and columns within ``margin`` marker sizes of a marker's corners
    (px), or None when too little of that lies in the frame."""
    height, width = shape[:2]
    pad = np.ptp(corners, axis=0).max() * margin
    x0, y0 = np.floor(corners.min(axis=0) - pad).astype(int)
    x1, y1 = np.ceil(corners.max(axis=0) + pad).astype(int)
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, width), min(y1, height)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    return slice(y0, y1), slice(x0, x1)


class GreyFrame:
    """A frame's grey image, made only where it is looked at: a warm tracker whose
    markers all look unchanged needs just their windows (the whole frame's conversion
    was about 5 % of a warm read). The same values either way: the conversion is per
    pixel."""

    def __init__(self, frame: np.ndarray) -> None:
        self._frame = frame
        self._grey = frame if frame.ndim == 2 else None
        self.shape = frame.shape[:2]

    def window(self, window: tuple[slice, slice]) -> np.ndarray:
        if self._grey is not None:
            return self._grey[window]
        return cv2.cvtColor(self._frame[window], cv2.COLOR_BGR2GRAY)

    def whole(self) -> np.ndarray:
        if self._grey is None:
            self._grey = cv2.cvtColor(self._frame, cv2.COLOR_BGR2GRAY)
        return self._grey


def looks_unchanged(now: np.ndarray, then: np.ndarray, block: int, level: float) -> bool:
    """Whether a grey window shows what it showed before: every block's mean difference
    (less the median block's, so a change of exposure does not count) within ``level``.
    Means over blocks average sensor noise away; a marker moved by a pixel or a finger
    on it moves the blocks along its edges by far more."""
    if now.shape != then.shape:
        return False
    diff = cv2.subtract(now, then, dtype=cv2.CV_16S).astype(np.float32)
    rows, cols = max(1, now.shape[0] // block), max(1, now.shape[1] // block)
    blocks = cv2.resize(diff, (cols, rows), interpolation=cv2.INTER_AREA)
    return bool(np.abs(blocks - np.median(blocks)).max() <= level)


def _detect(
    image: np.ndarray,
    detector: cv2.aruco.ArucoDetector,
    layout: Layout,
    scale: float,
    offset: tuple[int, int],
) -> dict[int, np.ndarray]:
    corners, ids, _ = detector.detectMarkers(image)
    if ids is None:
        return {}
    wanted = set(layout.markers.ids)
    found: dict[int, np.ndarray] = {}
    for marker_id, quad in zip(ids.ravel().tolist(), corners, strict=True):
        if marker_id in wanted and marker_id not in found:
            found[marker_id] = quad.reshape(4, 2).astype(np.float64) * scale + offset
    return found


def _refine(
    gray: np.ndarray, found: dict[int, np.ndarray], config: VisionConfig
) -> dict[int, np.ndarray]:
    if not found or config.subpix_window <= 0:
        return found
    ids = list(found)
    points = np.concatenate([found[i] for i in ids]).astype(np.float32).reshape(-1, 1, 2)
    # Keep the window inside the marker: a quarter of the smallest marker side at most.
    smallest = min(np.ptp(found[i], axis=0).min() for i in ids)
    win = int(max(1, min(config.subpix_window, smallest // 4)))
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.01)
    cv2.cornerSubPix(gray, points, (win, win), (-1, -1), criteria)
    points = points.reshape(-1, 4, 2).astype(np.float64)
    return {marker_id: points[k] for k, marker_id in enumerate(ids)}


def fit_homography(
    detections: dict[int, np.ndarray], layout: Layout, camera: Camera
) -> tuple[np.ndarray, float]:
    """Board-mm -> undistorted-px homography from all corners of the seen markers, and
    its RMS reprojection error in px."""
    if len(detections) < 2:
        raise NoBoard(f"only {len(detections)} board marker(s) visible; need at least 3")
    src, dst = _correspondences(detections, layout, camera)
    homography, _ = cv2.findHomography(src, dst, 0)
    if homography is None:
        raise NoBoard("the visible markers do not form a board (degenerate positions)")
    error = reprojection_error(homography, src, dst)
    return homography / homography[2, 2], error


def _correspondences(detections: dict[int, np.ndarray], layout: Layout, camera: Camera
                     ) -> tuple[np.ndarray, np.ndarray]:
    """The seen markers' corners, in board mm and in undistorted frame px, pair by pair."""
    mm = marker_corners_mm(layout)
    src = np.concatenate([mm[i] for i in detections])
    dst = camera.undistort(np.concatenate([detections[i] for i in detections]))
    return src, dst


@dataclass(frozen=True)
class TwoMarkerFit:
    """The board from two markers, and two measures of how far off it may be at the
    fields (px): the fit's standard error under its noise model, and how far the fields
    move when any one corner is left out (a bad corner the model cannot tell)."""

    fit: PlaneFit
    spread_px: float
    jackknife_px: float

    @property
    def homography(self) -> np.ndarray:
        return self.fit.homography

    def sure(self, config: VisionConfig) -> bool:
        """Close enough to read the fields by (config ``two_marker_*``)."""
        return (self.spread_px <= config.two_marker_max_spread_px
                and self.jackknife_px <= config.two_marker_max_jackknife_px
                and self.fit.error_px <= config.two_marker_fit_error_px)


def fit_two_markers(
    detections: dict[int, np.ndarray],
    layout: Layout,
    camera: Camera,
    config: VisionConfig,
    focal_px: float | None = None,
) -> TwoMarkerFit:
    """Board pose from two markers alone, constrained by the camera model.

    A free homography has eight unknowns, and two small clusters of four corners pin it
    badly; a camera with square pixels and a centred principal point has seven (pose and
    focal length), six with the focal length known (``focal_px``: the config's or one
    trusted earlier). The corners' noise model includes each marker card lying a little
    off its spot, which is what a fit from two markers carries furthest."""
    src, dst, noise = _marker_noise(detections, layout, camera, config)
    focal, sigma = _focal_prior(camera, config, focal_px)
    size = (camera.width, camera.height)
    fit = fit_plane_pose(src, dst, noise, *size, focal, sigma)
    fields = np.array([f.centre_mm for f in layout.fields.values()], dtype=np.float64)
    here = project(fit.homography, fields)
    jackknife = 0.0
    for k in range(len(src)):
        keep = np.arange(len(src)) != k
        rows = np.repeat(keep, 2)
        other = fit_plane_pose(src[keep], dst[keep], noise[np.ix_(rows, rows)], *size,
                               focal, sigma)
        moved = np.linalg.norm(project(other.homography, fields) - here, axis=1).max()
        jackknife = max(jackknife, float(moved))
    return TwoMarkerFit(fit, float(fit.spread_px(fields).max()), jackknife)


def fit_one_marker(detections: dict[int, np.ndarray], layout: Layout, camera: Camera,
                   config: VisionConfig, focal_px: float | None = None) -> np.ndarray:
    """A rough board (homography) from one marker's four corners under the camera model,
    for a board left unlocated with one marker found. The marker pins the board's place,
    scale and turn, but its tilt badly: its worst corner lay a median 19 px off where the
    marker was sharp (board bench tuning seeds 1 and 5), up to a few hundred where it was
    small or blurred. Good only to look for an arm (:func:`arm_reaching_in`), never to
    read fields by."""
    (marker_id, corners), = detections.items()
    focal, sigma = _focal_prior(camera, config, focal_px)
    noise = config.marker_corner_sigma_px**2 * np.eye(8)
    fit = fit_plane_pose(marker_corners_mm(layout)[marker_id], camera.undistort(corners),
                         noise, camera.width, camera.height, focal, sigma)
    return fit.homography


def _marker_noise(detections: dict[int, np.ndarray], layout: Layout, camera: Camera,
                  config: VisionConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The seen corners in mm and px, and their noise covariance (px^2): each corner's
    own, and each marker card lying a little off its spot (correlated over its corners)."""
    mm = marker_corners_mm(layout)
    src, dst = _correspondences(detections, layout, camera)
    guess, _ = fit_homography(detections, layout, camera)
    noise = config.marker_corner_sigma_px**2 * np.eye(2 * len(src))
    angle = np.radians(config.marker_placement_deg)
    prior = np.diag([config.marker_placement_mm**2] * 2 + [angle**2])
    for k, marker_id in enumerate(detections):
        offsets = mm[marker_id] - mm[marker_id].mean(axis=0)
        moves = np.zeros((8, 3))  # a corner moves by (dx - da * oy, dy + da * ox) mm
        moves[0::2, 0] = 1.0
        moves[1::2, 1] = 1.0
        moves[0::2, 2] = -offsets[:, 1]
        moves[1::2, 2] = offsets[:, 0]
        jacobian = _local_jacobians(guess, mm[marker_id]) @ moves
        noise[8 * k:8 * k + 8, 8 * k:8 * k + 8] += jacobian @ prior @ jacobian.T
    return src, dst, noise


def _focal_prior(camera: Camera, config: VisionConfig, focal_px: float | None
                 ) -> tuple[float, float]:
    """The focal length (px) and its prior's sigma: a known one fixed, else the middle
    of the supported field of view with +-2 sigma spanning ``fov_range_deg``."""
    if focal_px is not None:
        return focal_px, 0.0
    low, high = config.fov_range_deg
    focal = focal_from_fov(config.default_fov_deg, camera.width)
    return focal, (focal_from_fov(low, camera.width) - focal_from_fov(high, camera.width)) / 4


def print_disagreement(detections: dict[int, np.ndarray], layout: Layout, camera: Camera,
                       config: VisionConfig, aligned: np.ndarray,
                       focal_px: float | None = None) -> float:
    """How badly the board as aligned to its print (``aligned``, see
    :func:`vision.print_align.align_to_print`) and the two markers fit one camera pose:
    chi-square per degree of freedom of a pose fitted to the markers' corners (their noise
    model) and the board's corners where the print puts them (``print_align_sigma_px``).
    A print aligned onto pieces, a hand or the table pulls the board away from where
    the markers hold it."""
    src, dst, noise = _marker_noise(detections, layout, camera, config)
    corners = board_corners_mm(layout)
    src = np.concatenate([src, corners])
    dst = np.concatenate([dst, project(aligned, corners)])
    both = np.zeros((2 * len(src), 2 * len(src)))
    both[:len(noise), :len(noise)] = noise
    both[len(noise):, len(noise):] = config.print_align_sigma_px**2 * np.eye(2 * len(corners))
    focal, sigma = _focal_prior(camera, config, focal_px)
    fit = fit_plane_pose(src, dst, both, camera.width, camera.height, focal, sigma)
    residual = (dst - project(fit.homography, src)).ravel()
    whiten = np.linalg.cholesky(np.linalg.inv(both)).T
    chi2 = float(np.sum((whiten @ residual) ** 2))
    return chi2 / (len(residual) - (7 if sigma > 0 else 6))


def _local_jacobians(homography: np.ndarray, points_mm: np.ndarray) -> np.ndarray:
    """Block-diagonal (2N x 2N) derivatives of a homography's image points with respect
    to their board mm."""
    blocks = np.zeros((2 * len(points_mm), 2 * len(points_mm)))
    for k, (x, y) in enumerate(points_mm):
        p = homography @ np.array([x, y, 1.0])
        block = (homography[:2, :2] * p[2] - np.outer(p[:2], homography[2, :2])) / p[2] ** 2
        blocks[2 * k:2 * k + 2, 2 * k:2 * k + 2] = block
    return blocks


def homography_from_corners(corners_px: np.ndarray, layout: Layout, camera: Camera) -> np.ndarray:
    """Homography from four board corners clicked by hand (TL, TR, BR, BL, raw px)."""
    corners_px = np.asarray(corners_px, dtype=np.float64).reshape(-1, 2)
    if corners_px.shape != (4, 2):
        raise VisionError("give exactly four board corners: top-left, top-right, "
                          "bottom-right, bottom-left")
    homography, _ = cv2.findHomography(board_corners_mm(layout), camera.undistort(corners_px), 0)
    if homography is None or abs(np.linalg.det(homography)) < 1e-12:
        raise VisionError("the four board corners do not form a quadrilateral")
    # A board seen from above keeps its corner order; a mirrored order means a typo.
    if _mirrored(corners_px):
        raise VisionError("board corners must go clockwise: top-left, top-right, "
                          "bottom-right, bottom-left")
    return homography / homography[2, 2]


def _mirrored(corners: np.ndarray) -> bool:
    area = 0.0
    for k in range(4):
        x0, y0 = corners[k]
        x1, y1 = corners[(k + 1) % 4]
        area += x0 * y1 - x1 * y0
    return area < 0  # image y points down: clockwise corners give a positive area


def project(homography: np.ndarray, points_mm: np.ndarray) -> np.ndarray:
    """Board mm -> undistorted px."""
    pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(pts, homography).reshape(-1, 2)


def reprojection_error(homography: np.ndarray, src_mm: np.ndarray, dst_px: np.ndarray) -> float:
    diff = project(homography, src_mm) - dst_px.reshape(-1, 2)
    return float(np.sqrt((diff**2).sum(axis=1).mean()))


def arm_reaching_in(frame: np.ndarray, homography: np.ndarray, layout: Layout,
                    camera: Camera, config: VisionConfig) -> bool:
    """Whether an arm reaches from the frame's edge to the board ``homography`` places
    roughly (one or two markers' loose fit), for a board left unlocated: a person would rather
    hear that a hand is over it. Judged outside the board and its marker cards, against
    the table's colour there: an arm crosses the frame's edge, a card over a marker does
    not, and cables keep clear of the board; its rim is a step, where a lamp's glare or a
    table's grain fades out; and it is shaded round, where a card on the table is one flat
    colour (config ``unlocated_arm_*``)."""
    cfg = config
    shrink = cfg.unlocated_arm_shrink
    small = cv2.resize(frame, None, fx=1 / shrink, fy=1 / shrink, interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    shape = small.shape[:2]

    def grown(mm: float) -> np.ndarray:
        corners = board_corners_mm(layout) + 2 * mm * _CORNER_OFFSETS
        mask = np.zeros(shape, np.uint8)
        px = camera.board_to_frame(homography, corners) / shrink
        cv2.fillConvexPoly(mask, np.round(px).astype(np.int32), 1)
        return mask.astype(bool)

    margin = cfg.unlocated_arm_board_margin_mm
    board = grown(margin)
    near = grown(margin + cfg.unlocated_arm_reach_mm)
    table = grown(margin + cfg.unlocated_arm_table_mm) & ~board
    if not table.any():
        return False
    lightness = lab[..., 0].copy()
    lab[..., 0] *= cfg.unlocated_arm_lightness_weight
    distance = np.linalg.norm(lab - np.median(lab[table], axis=0), axis=2)
    level = max(cfg.unlocated_arm_min_distance,
                cfg.unlocated_arm_spread_factor * float(np.median(distance[table])))
    square = np.ones((3, 3), np.uint8)
    foreign = cv2.morphologyEx(((distance > level) & ~board).astype(np.uint8), cv2.MORPH_OPEN,
                               square)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(foreign, connectivity=8)
    edge = np.zeros(shape, bool)
    edge[[0, -1], :] = edge[:, [0, -1]] = True
    board_px = cv2.contourArea(camera.board_to_frame(homography, board_corners_mm(layout))
                               .astype(np.float32)) / shrink**2
    px_per_mm2 = board_px / float(np.prod(layout.board_size_mm))
    rim = np.ones((2 * cfg.unlocated_arm_rim_px + 1,) * 2, np.uint8)
    for k in range(1, count):
        if stats[k, cv2.CC_STAT_AREA] < cfg.unlocated_arm_min_area_mm2 * px_per_mm2:
            continue
        part = labels == k
        if not (part & edge).any() or not (part & near).any():
            continue
        core = cv2.erode(part.astype(np.uint8), rim).astype(bool)
        inside = part & ~core & ~edge
        outside = cv2.dilate(part.astype(np.uint8), rim).astype(bool) & ~part & ~board
        if (inside.any() and outside.any() and float(np.median(distance[inside]))
                - float(np.median(distance[outside])) >= cfg.unlocated_arm_min_step
                and core.any() and float(np.std(lightness[core]))
                >= cfg.unlocated_arm_min_lightness_sd):
            return True
    return False


class Localiser:
    """Tracks the board across frames.

    Holds the last good homography so that three markers (one covered by a hand) are
    enough, searches only near the expected markers when it can, and notices a bump
    (markers disagreeing with the previous homography) to re-localise from scratch.
    With no good homography to go on, two markers are enough when the pose fitted to
    them under the camera model is sure enough (:func:`fit_two_markers`).
    """

    def __init__(
        self,
        layout: Layout,
        config: VisionConfig | None = None,
        corners_px: np.ndarray | None = None,
        camera: Camera | None = None,
    ) -> None:
        self.layout = layout
        self.config = config or VisionConfig()
        self.camera = camera or Camera.from_config(self.config)
        self.detector = make_detector(layout, self.config)
        self.near_detector = make_detector(layout, self.config,
                                           self.config.search_min_perimeter_rate)
        self.rescue_detector = make_rescue_detector(layout, self.config)
        self.homography: np.ndarray | None = None
        self._full: np.ndarray | None = None  # the last homography from 3-4 markers
        #: (three markers' homography, the same refined against the print)
        self._on_print: tuple[np.ndarray, np.ndarray] | None = None
        #: (a board put on its print from two markers, the two markers' fit)
        self._two_fit: tuple[np.ndarray, np.ndarray] | None = None
        self.fixed = corners_px is not None
        if corners_px is not None:
            self.homography = homography_from_corners(corners_px, layout, self.camera)
        self.frames = 0
        self.bumps = 0
        #: id -> (search window, its grey pixels, corners) when each marker was last found
        self._last_seen: dict[int, tuple[tuple[slice, slice], np.ndarray, np.ndarray]] = {}

    def __repr__(self) -> str:
        state = "fixed corners" if self.fixed else (
            "located" if self.homography is not None else "not located")
        return f"<Localiser {self.layout.game} {state}, {self.frames} frames, {self.bumps} bumps>"

    def reset(self) -> None:
        """Forget the board position (e.g. after the board was moved on purpose)."""
        if not self.fixed:
            self.homography = self._on_print = None
            self._last_seen.clear()

    def locate(self, frame: np.ndarray) -> Localisation:
        """Locate the board in a frame (grey, or BGR: turned grey only where looked at)
        or raise :class:`NoBoard`."""
        self.frames += 1
        if self.fixed:
            return Localisation(self.homography, {}, False, "corners")
        cfg = self.config
        image = GreyFrame(frame)
        previous = self.homography
        found: dict[int, np.ndarray] = {}
        disagreement = math.inf
        if previous is not None:
            found = self._near(image, self._expected(previous))
            if found:
                disagreement = self._disagreement(previous, found)
        # A marker still where the board was says it was not bumped: the others are
        # covered, and searching the whole frame for them (~20 ms) would find nothing.
        if len(found) < 3 and disagreement > cfg.bump_threshold_px:
            found = self._remember(image, detect_markers(image.whole(), self.layout, cfg,
                                                         self.detector)) | found
            if previous is not None and found:
                disagreement = self._disagreement(previous, found)
        if previous is not None and found:
            if disagreement > cfg.bump_threshold_px:
                self._last_seen.clear()
            else:
                if len(found) >= 3:
                    # A covered marker is still where the last homography put it.
                    filled = self._expected(previous) | found
                    homography, error = fit_homography(filled, self.layout, self.camera)
                    if error <= cfg.max_fit_error_px:
                        self.homography = self._full = homography
                        kept = self._kept_on_print(homography, found)
                        if kept is not None:
                            return Localisation(kept, found, False, "print", homography)
                        return Localisation(homography, found, False, "markers")
                return self._previous(previous, found)
            bumped = True
        else:
            bumped = previous is not None
        if len(found) < 3:
            if previous is not None and not bumped:
                return self._previous(previous, found)
            self.homography = self._on_print = None
            two = self._two_markers(found) if len(found) == 2 else None
            located = None if two is None else self._from_two(image.whole(), found, *two)
            if located is not None:
                homography, source, on_markers = located
                self.bumps += bumped
                self.homography = homography
                self._two_fit = None if on_markers is None else (homography, on_markers)
                return Localisation(homography, found, bumped, source, on_markers)
            # Only now: two markers the camera model or the print pin put the board closer
            # than three with a blurred one found again (bench seed 1: 0.4-0.6 px against
            # 1.6-2.2 px at the median field).
            found = self._rescue(image, found)
            if not found:
                raise NoBoard("no board in view: none of the four corner markers was found")
            if len(found) < 3:
                what = "moved and " if bumped else ""
                raise NoBoard(f"the board {what}cannot be located: only {len(found)} of 4 "
                              "corner markers visible, need at least 3",
                              self._rough(found, two))
        homography, error = fit_homography(found, self.layout, self.camera)
        if error > cfg.max_fit_error_px:
            raise NoBoard(f"the board markers do not fit together (error {error:.1f} px); "
                          "is a marker loose or mis-printed?")
        if bumped:
            self.bumps += 1
        self.homography = self._full = homography
        self._on_print = None
        if len(found) == 3:
            aligned = self._three_on_print(image.whole(), homography, found)
            if aligned is not None:
                self._on_print = (homography, aligned)
                return Localisation(aligned, found, bumped, "print", homography)
        return Localisation(homography, found, bumped, "markers")

    def _near(self, image: GreyFrame, expected: dict[int, np.ndarray]
              ) -> dict[int, np.ndarray]:
        """The markers near where the last homography expects them. One whose window
        looks as when it was last found is still there (a fixed camera): searching
        every window took a third of a warm frame's time."""
        cfg = self.config
        kept: dict[int, np.ndarray] = {}
        for marker_id, (window, pixels, corners) in self._last_seen.items():
            if marker_id in expected and looks_unchanged(
                    image.window(window), pixels, cfg.marker_still_block_px,
                    cfg.marker_still_level):
                kept[marker_id] = corners
        search = {i: c for i, c in expected.items() if i not in kept}
        found = detect_markers_near(image.whole(), self.layout, cfg, search,
                                    self.near_detector) if search else {}
        return kept | self._remember(image, found)

    def _rescue(self, image: GreyFrame, found: dict[int, np.ndarray]
                ) -> dict[int, np.ndarray]:
        """``found`` and the markers a second search finds (:func:`rescue_markers`), when
        fewer than ``marker_rescue_below`` were found, kept only where they make three or
        more markers that fit one homography (a corrected bit may be a misread id). Used
        only where the board cannot be located otherwise."""
        cfg = self.config
        if len(found) >= cfg.marker_rescue_below:
            return found
        extra = rescue_markers(image.whole(), self.layout, cfg, found, self.rescue_detector)
        both = found | extra
        if not extra or len(both) < 3:
            return found
        _, error = fit_homography(both, self.layout, self.camera)
        if error > cfg.max_fit_error_px:
            return found
        return found | self._remember(image, extra)

    def _remember(self, image: GreyFrame, found: dict[int, np.ndarray]
                  ) -> dict[int, np.ndarray]:
        for marker_id, corners in found.items():
            window = search_window(corners, image.shape, self.config.search_margin)
            if window is not None:
                self._last_seen[marker_id] = (window, image.window(window).copy(), corners)
        return found

    def _two_markers(self, found: dict[int, np.ndarray]
                     ) -> tuple[TwoMarkerFit, float | None] | None:
        """The two markers' fit under the camera model and the focal length it was given
        (None: fitted too), or None where no pose fits. The focal length is the
        config's, else the one the last 3-4 marker homography gave (the same camera,
        bumped)."""
        focal = self._focal()
        try:
            return fit_two_markers(found, self.layout, self.camera, self.config, focal), focal
        except VisionError:
            return None

    def _focal(self) -> float | None:
        """The config's focal length, else the one the last 3-4 marker homography gave
        (the same camera, bumped); None: to be fitted."""
        cfg = self.config
        if cfg.focal_px is not None or self._full is None:
            return cfg.focal_px
        pose = recover_pose(self._full, cfg)
        return pose.focal_px if pose.focal_estimated else None

    def _rough(self, found: dict[int, np.ndarray],
               two: tuple[TwoMarkerFit, float | None] | None) -> np.ndarray | None:
        """Where the one or two markers found put a board left unlocated, for
        :func:`arm_reaching_in`: two markers' fit, or one marker's."""
        if two is not None:
            return two[0].homography
        if len(found) != 1:
            return None
        try:
            return fit_one_marker(found, self.layout, self.camera, self.config, self._focal())
        except VisionError:
            return None

    def _from_two(self, gray: np.ndarray, found: dict[int, np.ndarray], fit: TwoMarkerFit,
                  focal: float | None) -> tuple[np.ndarray, str, np.ndarray | None] | None:
        """The homography fitted to two markers (``fit``, :meth:`_two_markers`), its
        source and, where it was put on the print, the fit (it puts the markers where they
        are, for their black and white: the print's may be a few mm off there); or None
        when the fit may be too far off at the fields (config ``two_marker_*``) and no
        alignment of the printed board to the frame from there is believed (config
        ``print_align_*``)."""
        cfg = self.config
        if fit.sure(cfg):
            return fit.homography, "two markers", None
        from vision.print_align import align_to_print, print_match  # (imports markers)

        # ECC from the fit and from the fit swung either way along its loosest direction
        # (one start alone stops in a local optimum a few mm off: tuning seeds 5, 6, 7),
        # each result kept only where it agrees with the markers and moves the two found
        # no more than ``print_align_two_marker_shift_mm``; the one whose print matches
        # best is believed where it matches clearly better than every start, by a ratio and
        # by a floor (an ECC stuck on a hand, a piece or the table's grain matches no better
        # than where it began; on a plain print every match is tiny and a ratio says nothing),
        # and where another start lands beside it (``print_align_two_agree_mm``).
        fields = np.array([f.centre_mm for f in self.layout.fields.values()])
        starts = [fit.fit, *fit.fit.swung(fields, cfg.print_match_swing_sigmas)]
        before = max(print_match(gray, self.layout, self.camera, start.homography, cfg)
                     for start in starts)
        inverse = np.linalg.inv(fit.homography)
        corners = np.concatenate([marker_corners_mm(self.layout)[m] for m in found])
        best, best_match, kept = None, -math.inf, []
        for start in starts if cfg.print_align_two_from_swung else starts[:1]:
            aligned = align_to_print(gray, self.layout, self.camera, start.homography, cfg,
                                     iterations=cfg.print_align_two_iterations)
            if aligned is None:
                continue
            moved = project(inverse @ aligned, corners) - corners
            if float(np.sqrt((moved**2).sum(axis=1)).max()) > cfg.print_align_two_marker_shift_mm:
                continue
            disagreement = print_disagreement(found, self.layout, self.camera, cfg, aligned,
                                              focal)
            if disagreement > cfg.print_align_max_disagreement:
                continue
            kept.append(aligned)
            match = print_match(gray, self.layout, self.camera, aligned, cfg)
            if match > best_match:
                best, best_match = aligned, match
        if (best is None or best_match <= cfg.print_align_two_margin * before
                or best_match - before < cfg.print_align_two_min_gain):
            return None
        to_best = np.linalg.inv(best)
        apart = [np.sqrt(((project(to_best @ other, fields) - fields)**2).sum(axis=1)).max()
                 for other in kept]
        agreeing = sum(float(mm) <= cfg.print_align_two_agree_mm for mm in apart)
        if agreeing < cfg.print_align_two_min_agreeing:
            return None
        return best, "print", fit.homography

    def _three_on_print(self, gray: np.ndarray, homography: np.ndarray,
                        found: dict[int, np.ndarray]) -> np.ndarray | None:
        """The three-marker homography refined against the print, or None. With the
        fourth marker covered (often by a moving, blurred hand) the three leave the far
        corner loose (bench seed 1 frame 379: fields 8.5 mm off); believed as in
        :meth:`_from_two`, where the print matches better, and only when it moves no
        field more than ``print_align_three_max_shift_mm`` and no ``found`` marker more
        than ``print_align_three_marker_shift_mm``: the three pin their own corners. Where
        it is refused so, and moved them no more than ``print_align_three_marker_stray_mm``,
        the homography fitted to the three and to the covered marker where the print puts
        it is believed on the same terms.
        Coarse to fine, to be cheap, and blind round the covered marker: what covers it
        (a card, a hand) lies across the board's corner there and drew ECC off (bench
        seed 1 frame 254: that corner 7.7 mm off, the markers' 6.7 mm; left out, 0.9).
        A board printed with lines whose grey print places it nowhere is tried again on the
        gradient magnitude (``print_align_three_lines_on_edges``)."""
        cfg = self.config
        if cfg.print_align_three_max_shift_mm <= 0:
            return None
        aligned = self._three_refined(gray, homography, found, False)
        if (aligned is None and cfg.print_align_three_lines_on_edges
                and "printed_lines" in self.layout.extra):
            aligned = self._three_refined(gray, homography, found, True)
        return aligned

    def _three_refined(self, gray: np.ndarray, homography: np.ndarray,
                       found: dict[int, np.ndarray], edges: bool) -> np.ndarray | None:
        """:meth:`_three_on_print` on the grey print or (``edges``) its gradient."""
        from vision.print_align import align_to_print, print_match  # (imports markers)

        cfg = self.config
        spec = self.layout.markers
        covered_id, covered = next((m, c) for m, c in zip(spec.ids, spec.centres_mm, strict=True)
                                   if m not in found)
        left_out = ((np.asarray(covered, float), cfg.print_align_three_covered_mm)
                    if cfg.print_align_three_covered_mm > 0 else None)
        aligned = align_to_print(gray, self.layout, self.camera, homography, cfg,
                                 cfg.print_align_three_coarse_px_per_mm,
                                 cfg.print_align_three_coarse_iterations, left_out, edges)
        if aligned is not None:
            aligned = align_to_print(gray, self.layout, self.camera, aligned, cfg, None,
                                     cfg.print_align_three_iterations, left_out, edges)
        if aligned is None:
            return None
        fields = np.array([f.centre_mm for f in self.layout.fields.values()])
        inverse = np.linalg.inv(homography)

        def farthest(refined: np.ndarray, points_mm: np.ndarray) -> float:
            change = inverse @ refined  # board mm -> board mm
            moved = project(change, points_mm) - points_mm
            return float(np.sqrt((moved**2).sum(axis=1)).max())

        strayed = farthest(aligned, np.concatenate([marker_corners_mm(self.layout)[m]
                                                    for m in found]))
        candidates = [aligned] if strayed <= cfg.print_align_three_marker_shift_mm else []
        if strayed <= cfg.print_align_three_marker_stray_mm:
            # the three found pin their own corners, the print only the covered one
            pinned = found | {covered_id: self._expected(aligned)[covered_id]}
            candidates.append(fit_homography(pinned, self.layout, self.camera)[0])
        candidates = [c for c in candidates
                      if farthest(c, fields) <= cfg.print_align_three_max_shift_mm]
        if not candidates:
            return None
        before = print_match(gray, self.layout, self.camera, homography, cfg)
        return next((c for c in candidates
                     if print_match(gray, self.layout, self.camera, c, cfg) > before), None)

    def _previous(self, previous: np.ndarray, found: dict[int, np.ndarray]) -> Localisation:
        """Too few markers seen: the board where it was, on the print where the last
        three markers' homography was refined (else a live frame is read a few mm off its
        clear view, and the change cue hides the board: bench seed 1 frame 171); a board
        put on its print from two markers keeps their fit for their black and white."""
        aligned = self._on_print_for(previous)
        if aligned is not None:
            return Localisation(aligned, found, False, "previous", previous)
        if self._two_fit is not None and self._two_fit[0] is previous:
            return Localisation(previous, found, False, "previous", self._two_fit[1])
        return Localisation(previous, found, False, "previous")

    def _kept_on_print(self, homography: np.ndarray, found: dict[int, np.ndarray]
                       ) -> np.ndarray | None:
        """The print-refined homography kept while the same three markers stay put:
        aligning takes 30-50 ms, too long for every warm frame."""
        aligned = self._on_print_for(homography) if len(found) == 3 else None
        if aligned is None:
            self._on_print = None
        return aligned

    def _on_print_for(self, homography: np.ndarray) -> np.ndarray | None:
        """The print-refined homography made for one that puts no board corner more than
        ``geometry_reuse_px`` from where ``homography`` does, or None."""
        if self._on_print is None:
            return None
        start, aligned = self._on_print
        corners = board_corners_mm(self.layout)
        moved = project(homography, corners) - project(start, corners)
        if float(np.sqrt((moved**2).sum(axis=1)).max()) > self.config.geometry_reuse_px:
            return None
        return aligned

    def _expected(self, homography: np.ndarray) -> dict[int, np.ndarray]:
        return {
            marker_id: self.camera.distort(project(homography, corners))
            for marker_id, corners in marker_corners_mm(self.layout).items()
        }

    def _disagreement(self, homography: np.ndarray, found: dict[int, np.ndarray]) -> float:
        mm = marker_corners_mm(self.layout)
        src = np.concatenate([mm[i] for i in found])
        dst = self.camera.undistort(np.concatenate([found[i] for i in found]))
        diff = project(homography, src) - dst
        return float(np.sqrt((diff**2).sum(axis=1)).mean())
