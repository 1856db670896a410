"""Turn a :class:`Scene` seen from a :class:`CameraPose` into a photo-like frame with truth.

Pipeline (each step a plain function): table texture -> board and marker cards warped with
the true homography -> cast shadows -> pieces, dice and cards in painter's order -> hand ->
lens distortion (remap) -> light, white balance, vignetting, glare -> blur, noise, JPEG.
Everything up to the remap happens on an undistorted canvas a little larger than the frame,
so barrel distortion pulls real content (not black) into the corners.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.sim.board import (
    QUIET_MM,
    board_texture,
    hex_to_bgr,
    marker_card,
    mm_to_texture,
)
from vision.sim.camera import CameraPose
from vision.sim.scene import Hand, Scene
from vision.sim.solids import Face, Solid, die, fill, flat_card, piece, shade

#: A field counts as occluded when a hand covers more than this share of its tower or base.
OCCLUSION_SHARE = 0.10
#: A marker or die face counts as hidden when a hand covers more than this share of it.
HIDDEN_SHARE = 0.01
BOARD_THICKNESS_MM = 3.0
AMBIENT = 0.5
SHADOW_SCALE = 4  # shadows are drawn at 1/4 resolution and blurred: they are soft anyway


@dataclass(frozen=True)
class FieldTruth:
    name: str
    occupied: bool
    top: str | None
    height: int
    colours: tuple[str, ...]
    occluded: bool
    centre_px: tuple[float, float]

    @property
    def visible(self) -> bool:
        return not self.occluded


@dataclass(frozen=True)
class DieTruth:
    value: int
    bbox: tuple[float, float, float, float]  # x0, y0, x1, y1 of the top face in the frame
    visible: bool  # the whole top face is in the frame and no hand covers it
    centre_px: tuple[float, float]
    top_face_px: np.ndarray = field(repr=False)  # (4, 2) corners of the top face


@dataclass(frozen=True)
class Truth:
    fields: dict[str, FieldTruth]
    marker_ids: tuple[int, int, int, int]
    marker_corners: np.ndarray  # (4, 4, 2): per marker TL, TR, BR, BL as cv2.aruco orders them
    markers_visible: tuple[bool, bool, bool, bool]
    homography: np.ndarray  # board mm (h = 0) -> undistorted pixels; see pose for distortion
    pose: CameraPose
    dice: list[DieTruth]
    hand_mask: np.ndarray = field(repr=False)  # uint8 HxW, 255 where the hand is (distorted)


@dataclass(frozen=True)
class Rendered:
    frame: np.ndarray  # uint8 BGR, H x W x 3
    truth: Truth


def render(scene: Scene, pose: CameraPose, rng: np.random.Generator | None = None) -> Rendered:
    """Draw ``scene`` as ``pose`` sees it. Same scene, pose and seed give the same frame."""
    rng = np.random.default_rng(0) if rng is None else rng
    view = _View(pose)
    canvas = table_texture(scene.table, view.canvas_size, rng)
    draw_board(canvas, scene, view)
    solids, towers = build_solids(scene, view, rng)
    hand_polys = hand_polygons(scene.hand) if scene.hand is not None else []
    cast_shadows(canvas, scene, view, solids, hand_polys)
    for solid in sorted(solids, key=view.depth_key):
        draw_solid(canvas, solid, view, scene.lighting.direction)
    hand_mask = np.zeros(canvas.shape[:2], np.uint8)
    if scene.hand is not None:
        draw_hand(canvas, hand_mask, scene.hand, hand_polys, view, rng)
    truth = make_truth(scene, view, towers, hand_mask)
    frame = view.distort(canvas)
    frame = photometric(frame, scene, rng)
    return Rendered(frame, truth)


# -- geometry helpers -------------------------------------------------------------------------
class _View:
    """The pose plus the padded undistorted canvas the scene is drawn on."""

    def __init__(self, pose: CameraPose) -> None:
        self.pose = pose
        w, h = pose.image_size
        corners = np.array([[0, 0], [w - 1, 0], [0, h - 1], [w - 1, h - 1]], float)
        reach = pose.undistort_pixels(corners)
        over = max(0.0, float(np.max(-reach[:, 0])), float(np.max(reach[:, 0] - (w - 1))),
                   float(np.max(-reach[:, 1])), float(np.max(reach[:, 1] - (h - 1))))
        self.margin = int(math.ceil(over)) + 4
        self.canvas_size = (w + 2 * self.margin, h + 2 * self.margin)
        shift = np.array([[1, 0, self.margin], [0, 1, self.margin], [0, 0, 1]], float)
        self.homography = pose.homography()
        self.canvas_homography = shift @ self.homography
        self.camera = pose.centre_mm
        self._R, self._t, self._K = pose.R, pose.t, pose.K

    def px(self, points_mm: np.ndarray) -> np.ndarray:
        """Undistorted canvas pixels of (x, y, h) points."""
        pts = np.asarray(points_mm, float).reshape(-1, 3) * np.array([1.0, 1.0, -1.0])
        cam = pts @ self._R.T + self._t
        z = np.maximum(cam[:, 2:3], 1e-6)
        return (cam[:, :2] / z) * self._K[0, 0] + self._K[:2, 2] + self.margin

    def to_frame(self, canvas_px: np.ndarray) -> np.ndarray:
        return self.pose.distort_pixels(canvas_px - self.margin)

    def depth_key(self, solid: Solid) -> float:
        """Painter's order: farther from the camera's foot point first, flat things first."""
        dx = solid.ground_xy[0] - self.camera[0]
        dy = solid.ground_xy[1] - self.camera[1]
        return -math.hypot(dx, dy) + (0.0 if solid.casts_shadow else -1e6)

    def distort(self, canvas: np.ndarray) -> np.ndarray:
        map_x, map_y = _distortion_maps(self.pose, self.margin)
        return cv2.remap(canvas, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)


_MAP_CACHE: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}


def _distortion_maps(pose: CameraPose, margin: int) -> tuple[np.ndarray, np.ndarray]:
    """For each frame pixel, where to sample the undistorted canvas. Computed on a coarse
    grid and upsampled: the map is smooth, and this keeps it cheap."""
    key = (pose.image_size, round(pose.fov_deg, 6), round(pose.k1, 8), margin)
    if key in _MAP_CACHE:
        return _MAP_CACHE[key]
    w, h = pose.image_size
    step = 8
    gx = np.arange(0, w + step, step, dtype=float)
    gy = np.arange(0, h + step, step, dtype=float)
    xx, yy = np.meshgrid(gx, gy)
    src = pose.undistort_pixels(np.column_stack([xx.ravel(), yy.ravel()])) + margin
    sx = src[:, 0].reshape(xx.shape).astype(np.float32)
    sy = src[:, 1].reshape(xx.shape).astype(np.float32)
    # Upsample so that coarse node k lands exactly on pixel k * step.
    size = (len(gx) - 1) * step + 1, (len(gy) - 1) * step + 1
    map_x = cv2.resize(sx, size, interpolation=cv2.INTER_LINEAR)[:h, :w]
    map_y = cv2.resize(sy, size, interpolation=cv2.INTER_LINEAR)[:h, :w]
    if len(_MAP_CACHE) > 8:
        _MAP_CACHE.clear()
    _MAP_CACHE[key] = (map_x, map_y)
    return map_x, map_y


# -- table and board --------------------------------------------------------------------------
def table_texture(kind: str, size: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    """A table top: wood grain, felt/cloth, a mottled surface or a plain one, from low-res
    noise scaled up (cheap) plus the frame-wide sensor noise added later."""
    w, h = size
    if kind in ("wood", "dark_wood"):
        base = np.array([70, 120, 170] if kind == "wood" else [35, 55, 85], float)
        base = base * rng.uniform(0.8, 1.15)
        angle = rng.uniform(0, 180)
        streak = rng.normal(0, 1, (8, 160)).astype(np.float32)
        streak = cv2.GaussianBlur(streak, (0, 0), 1.2)
        grain = cv2.resize(streak, (w * 2, h * 2), interpolation=cv2.INTER_CUBIC)
        rot = cv2.getRotationMatrix2D((w, h), angle, 1.0)
        grain = cv2.warpAffine(grain, rot, (w * 2, h * 2), borderMode=cv2.BORDER_REFLECT)
        grain = grain[h // 2:h // 2 + h, w // 2:w // 2 + w]
        rings = np.sin(grain * 3.0)
        shade_map = 1.0 + 0.12 * grain + 0.06 * rings
    else:
        palette = {
            "cloth": [[60, 110, 40], [90, 60, 30], [50, 50, 130], [70, 70, 70]],
            "mottled": [[150, 160, 170], [110, 130, 150], [180, 180, 175]],
            "plain": [[215, 215, 210], [190, 200, 205], [120, 120, 125], [235, 235, 235]],
        }[kind]
        base = np.array(palette[int(rng.integers(len(palette)))], float) * rng.uniform(0.85, 1.1)
        blobs = rng.normal(0, 1, (max(2, h // 120), max(2, w // 120))).astype(np.float32)
        shade_map = 1.0 + {"cloth": 0.05, "mottled": 0.12, "plain": 0.03}[kind] * cv2.resize(
            blobs, (w, h), interpolation=cv2.INTER_CUBIC)
    img = shade_map[..., None].astype(np.float32) * base.astype(np.float32)
    if kind == "cloth":  # fine weave
        weave = rng.normal(0, 6, (h // 2 + 1, w // 2 + 1)).astype(np.float32)
        img += cv2.resize(weave, (w, h), interpolation=cv2.INTER_NEAREST)[..., None]
    return np.clip(img, 0, 255).astype(np.uint8)


def _warp_into(canvas: np.ndarray, texture: np.ndarray, tex_to_canvas: np.ndarray) -> None:
    """Warp a flat texture onto the canvas, touching only its bounding box."""
    th, tw = texture.shape[:2]
    corners = np.array([[-0.5, -0.5, 1], [tw - 0.5, -0.5, 1], [tw - 0.5, th - 0.5, 1],
                        [-0.5, th - 0.5, 1]], float) @ tex_to_canvas.T
    corners = corners[:, :2] / corners[:, 2:]
    ch, cw = canvas.shape[:2]
    x0, y0 = np.floor(corners.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + 2
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, cw), min(y1, ch)
    if x1 <= x0 or y1 <= y0:
        return
    shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], float)
    roi = canvas[y0:y1, x0:x1].copy()
    cv2.warpPerspective(texture, shift @ tex_to_canvas, (x1 - x0, y1 - y0), dst=roi,
                        flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_TRANSPARENT)
    canvas[y0:y1, x0:x1] = roi


def draw_board(canvas: np.ndarray, scene: Scene, view: _View) -> None:
    """The board's visible edge, its printed top, and the four marker cards."""
    layout = scene.layout
    w, h = layout.board_size_mm
    board_bgr = np.array(hex_to_bgr(layout.field_colours.get("board", "#ece6d6")), float)
    edge = board_bgr * 0.45
    top = np.array([[0, 0, 0], [w, 0, 0], [w, h, 0], [0, h, 0]], float)
    bottom = top - np.array([0, 0, BOARD_THICKNESS_MM])
    for i, normal in enumerate(([0, -1, 0], [1, 0, 0], [0, 1, 0], [-1, 0, 0])):
        j = (i + 1) % 4
        quad = np.stack([top[i], top[j], bottom[j], bottom[i]])
        if (view.camera - quad.mean(axis=0)) @ np.array(normal, float) > 0:
            fill(canvas, view.px(quad), edge)
    tex = board_texture(layout)
    _warp_into(canvas, tex, view.canvas_homography @ np.linalg.inv(mm_to_texture((0.0, 0.0))))
    spec = layout.markers
    half = spec.size_mm / 2.0 + QUIET_MM
    for marker_id, (cx, cy) in zip(spec.ids, spec.centres_mm, strict=True):
        card = marker_card(marker_id, spec.size_mm, spec.dictionary)
        to_tex = mm_to_texture((cx - half, cy - half))
        _warp_into(canvas, card, view.canvas_homography @ np.linalg.inv(to_tex))


# -- solids -----------------------------------------------------------------------------------
def _jitter(bgr: tuple[int, int, int], rng: np.random.Generator, amount: float) -> np.ndarray:
    """A piece's own colour: same paint, slightly different batch, dust and light."""
    return np.clip(np.array(bgr, float) * rng.uniform(1 - amount, 1 + amount, 3)
                   * rng.uniform(0.92, 1.08), 0, 255)


def build_solids(scene: Scene, view: _View, rng: np.random.Generator
                 ) -> tuple[list[Solid], dict[str, np.ndarray]]:
    """All 3D things, and for each occupied field the outline points of its tower."""
    layout = scene.layout
    spec = layout.piece
    solids: list[Solid] = []
    towers: dict[str, np.ndarray] = {}
    for name, colours in scene.stacks.items():
        f = layout.fields[name]
        # Pieces are placed by hand: a little off centre, each a little off the one below.
        x = f.x_mm + rng.normal(0, spec.diameter_mm * 0.04)
        y = f.y_mm + rng.normal(0, spec.diameter_mm * 0.04)
        pts = []
        for level, colour in enumerate(colours):
            px = x + rng.normal(0, spec.diameter_mm * 0.015)
            py = y + rng.normal(0, spec.diameter_mm * 0.015)
            bgr = _jitter(hex_to_bgr(layout.piece_colours[colour]), rng, 0.06)
            solid = piece(spec.shape, px, py, level, spec.diameter_mm, spec.height_mm, bgr)
            solid.ground_xy = (x, y)
            solids.append(solid)
            pts.append(solid.points)
        towers[name] = np.concatenate(pts)
    for d in scene.dice:
        solids.append(die(d.x_mm, d.y_mm, d.value, d.angle_deg, d.size_mm,
                          _jitter(hex_to_bgr(d.body), rng, 0.03),
                          _jitter(hex_to_bgr(d.pips), rng, 0.05), d.leaning))
    spec_m = layout.markers
    for index in sorted(scene.markers_hidden):
        cx, cy = spec_m.centres_mm[index]
        half = spec_m.size_mm / 2.0 + QUIET_MM + 3.0
        colour = rng.uniform(30, 230, 3)
        ox, oy = rng.uniform(-4, 4, 2)
        card = flat_card(cx + ox, cy + oy, half + 6 + rng.uniform(0, 15),
                         half + 6 + rng.uniform(0, 15), rng.uniform(-15, 15), colour)
        card.casts_shadow = False
        solids.append(card)
    # Tower order stays bottom-up after the (stable) painter's sort: same ground point.
    return solids, towers


def draw_solid(canvas: np.ndarray, solid: Solid, view: _View, light: np.ndarray) -> None:
    faces = solid.faces
    sizes = [len(f.verts) for f in faces]
    px = view.px(np.concatenate([f.verts for f in faces]))
    if solid.silhouette_colour is not None:
        hull = cv2.convexHull(px.astype(np.float32)).reshape(-1, 2)
        fill(canvas, hull, solid.silhouette_colour)
    visible = []
    start = 0
    for f, n in zip(faces, sizes, strict=True):
        face_px = px[start:start + n]
        start += n
        if (view.camera - f.verts.mean(axis=0)) @ f.normal <= 0:
            visible.append(False)
            continue
        visible.append(True)
        fill(canvas, face_px, shade(f, light, AMBIENT))
        if f.pips:
            lit = shade(Face(f.verts, f.normal, f.pip_colour, gloss=0.05), light, AMBIENT)
            for pip in f.pips:
                fill(canvas, view.px(pip), lit)
    for ring in solid.rims:
        ring_px = view.px(ring)
        seam = (0.25 * faces[0].colour).tolist()
        n = len(ring)
        for i in range(n):
            # A seam segment shows when the side face just above or below it shows.
            if i < len(visible) and not visible[i]:
                continue
            a, b = ring_px[i], ring_px[(i + 1) % n]
            cv2.line(canvas, tuple(np.round(a * 16).astype(int)),
                     tuple(np.round(b * 16).astype(int)), seam, 1, cv2.LINE_AA, 4)


def _shadow_points(points: np.ndarray, light: np.ndarray) -> np.ndarray:
    """Where points throw their shadow on the table (h = 0)."""
    h = points[:, 2:3]
    out = points[:, :2] - h * light[:2] / max(light[2], 0.05)
    return np.column_stack([out, np.zeros(len(out))])


def cast_shadows(canvas: np.ndarray, scene: Scene, view: _View, solids: list[Solid],
                 hand_polys: list[np.ndarray]) -> None:
    """Darken the table and board under the soft shadows of pieces, dice and the hand."""
    light = scene.lighting.direction
    strength = scene.lighting.shadow_strength
    ch, cw = canvas.shape[:2]
    s = SHADOW_SCALE
    mask = np.zeros((ch // s + 1, cw // s + 1), np.float32)
    for solid in solids:
        if not solid.casts_shadow:
            continue
        pts = solid.points
        shadow = view.px(_shadow_points(pts, light)) / s
        hull = cv2.convexHull(shadow.astype(np.float32)).reshape(-1, 2)
        cv2.fillConvexPoly(mask, np.round(hull * 16).astype(np.int32), strength, cv2.LINE_AA, 4)
    for solid in solids:  # contact shadow: darkest right where a thing touches the table
        if not solid.casts_shadow:
            continue
        pts = solid.points
        base = pts[pts[:, 2] < 0.5]
        if len(base) >= 3:
            hull = cv2.convexHull((view.px(base) / s).astype(np.float32)).reshape(-1, 2)
            cv2.fillConvexPoly(mask, np.round(hull * 16).astype(np.int32),
                               min(0.85, strength + 0.3), cv2.LINE_AA, 4)
    mask = cv2.GaussianBlur(mask, (0, 0), 1.2)
    if hand_polys:
        hand_mask = np.zeros_like(mask)
        for poly in hand_polys:
            shadow = view.px(_shadow_points(poly, light)) / s
            cv2.fillPoly(hand_mask, [np.round(shadow * 16).astype(np.int32)], strength * 0.8,
                         cv2.LINE_AA, 4)
        mask = np.maximum(mask, cv2.GaussianBlur(hand_mask, (0, 0), 6.0))
    factor = 1.0 - cv2.resize(mask, (cw, ch), interpolation=cv2.INTER_LINEAR)
    canvas[:] = cv2.multiply(canvas, cv2.merge([factor] * 3), dtype=cv2.CV_8U)


# -- hand -------------------------------------------------------------------------------------
def hand_polygons(hand: Hand) -> list[np.ndarray]:
    """Convex pieces of a hand and forearm in (x, y, h): forearm, palm, four fingers, thumb."""
    ex, ey = hand.entry_mm
    tx, ty = hand.tip_mm
    d = np.array([tx - ex, ty - ey], float)
    d /= np.linalg.norm(d)
    n = np.array([-d[1], d[0]])
    tip = np.array([tx, ty])
    finger_len = 75.0
    palm_len, palm_w = 95.0, 85.0
    knuckles = tip - d * finger_len
    palm_c = knuckles - d * palm_len / 2
    wrist = palm_c - d * palm_len / 2
    polys = []
    elbow = np.array([ex, ey], float)
    arm = np.stack([wrist + n * 32, wrist - n * 32, elbow - n * 50, elbow + n * 50])
    polys.append(arm)
    a = np.linspace(0, 2 * math.pi, 20, endpoint=False)
    palm = palm_c + np.outer(np.cos(a) * palm_len / 2, d) + np.outer(np.sin(a) * palm_w / 2, n)
    polys.append(palm)
    spread = 0.08 + 0.25 * hand.spread
    for k, off in enumerate((-1.5, -0.5, 0.5, 1.5)):
        ang = off * spread / 1.5
        fd = d * math.cos(ang) + n * math.sin(ang)
        fn = np.array([-fd[1], fd[0]])
        base = knuckles + n * off * 19
        length = finger_len * (0.8, 0.97, 1.0, 0.9)[k]
        end = base + fd * length
        half = 8.5
        ring = [base + fn * half, base - fn * half]
        for t in np.linspace(-math.pi / 2, math.pi / 2, 7):
            ring.append(end + fd * math.cos(t) * half - fn * math.sin(t) * half)
        polys.append(np.stack(ring))
    thumb_dir = -d * 0.2 + n * 1.0
    thumb_dir /= np.linalg.norm(thumb_dir)
    tb = palm_c + n * palm_w * 0.35 + d * 10
    te = tb + thumb_dir * 55
    polys.append(np.stack([tb + d * 12, tb - d * 12, te - d * 8, te + d * 8]))
    return [np.column_stack([p, np.full(len(p), hand.height_mm)]) for p in polys]


def draw_hand(canvas: np.ndarray, hand_mask: np.ndarray, hand: Hand, polys: list[np.ndarray],
              view: _View, rng: np.random.Generator) -> None:
    ch, cw = canvas.shape[:2]
    pix = [view.px(p) for p in polys]
    allpx = np.concatenate(pix)
    x0, y0 = np.clip(np.floor(allpx.min(axis=0)).astype(int) - 4, 0, [cw, ch])
    x1, y1 = np.clip(np.ceil(allpx.max(axis=0)).astype(int) + 4, 0, [cw, ch])
    if x1 <= x0 or y1 <= y0:
        return
    origin = np.array([x0, y0], float)
    roi_mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    colour = np.zeros((y1 - y0, x1 - x0, 3), np.uint8)
    skin = np.array(hand.skin_bgr, float)
    for i, p in enumerate(pix):
        pts = np.round((p - origin) * 16).astype(np.int32)
        col = skin if (i != 0 or hand.sleeve_bgr is None) else np.array(hand.sleeve_bgr, float)
        cv2.fillPoly(roi_mask, [pts], 255, cv2.LINE_AA, 4)
        cv2.fillPoly(colour, [pts], col.tolist(), cv2.LINE_AA, 4)
    # Round shapes look round when their edges fall off: shade by distance to the outline.
    binary = (roi_mask > 127).astype(np.uint8)
    dist = cv2.distanceTransform(binary, cv2.DIST_L2, 3)
    scale = max(4.0, float(np.percentile(dist[binary > 0], 90)) if binary.any() else 4.0)
    light = 0.55 + 0.5 * np.clip(dist / scale, 0, 1) ** 0.5
    light = cv2.GaussianBlur(light.astype(np.float32), (0, 0), 2.0)
    tex = rng.normal(1.0, 0.02, (max(1, (y1 - y0) // 6), max(1, (x1 - x0) // 6)))
    tex = cv2.resize(tex.astype(np.float32), (x1 - x0, y1 - y0), interpolation=cv2.INTER_CUBIC)
    shaded = colour.astype(np.float32) * (light * tex)[..., None]
    alpha = roi_mask.astype(np.float32)[..., None] / 255.0
    roi = canvas[y0:y1, x0:x1].astype(np.float32)
    canvas[y0:y1, x0:x1] = np.clip(roi * (1 - alpha) + shaded * alpha, 0, 255).astype(np.uint8)
    hand_mask[y0:y1, x0:x1] = np.where(binary > 0, 255, 0).astype(np.uint8)


# -- truth ------------------------------------------------------------------------------------
def _covered_share(mask: np.ndarray, polygon_px: np.ndarray) -> float:
    """Share of a convex region (canvas px) that the mask covers."""
    h, w = mask.shape
    x0, y0 = np.floor(polygon_px.min(axis=0)).astype(int)
    x1, y1 = np.ceil(polygon_px.max(axis=0)).astype(int) + 1
    cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if cx1 <= cx0 or cy1 <= cy0:
        return 0.0
    region = np.zeros((y1 - y0, x1 - x0), np.uint8)
    hull = cv2.convexHull(np.round(polygon_px - [x0, y0]).astype(np.int32))
    cv2.fillConvexPoly(region, hull, 1)
    area = int(region.sum())
    if area == 0:
        return 0.0
    sub = region[cy0 - y0:cy1 - y0, cx0 - x0:cx1 - x0]
    return float(np.count_nonzero(sub & (mask[cy0:cy1, cx0:cx1] > 0))) / area


def make_truth(scene: Scene, view: _View, towers: dict[str, np.ndarray],
               hand_mask: np.ndarray) -> Truth:
    layout = scene.layout
    any_hand = bool(hand_mask.any())
    fields = {}
    for name, f in layout.fields.items():
        colours = tuple(scene.stacks.get(name, ()))
        if name in towers:
            region = view.px(towers[name])
        else:
            half = f.size_mm / 2.0
            region = view.px(np.array([[f.x_mm - half, f.y_mm - half, 0],
                                       [f.x_mm + half, f.y_mm - half, 0],
                                       [f.x_mm + half, f.y_mm + half, 0],
                                       [f.x_mm - half, f.y_mm + half, 0]]))
        occluded = any_hand and _covered_share(hand_mask, region) > OCCLUSION_SHARE
        centre = view.to_frame(view.px(np.array([[f.x_mm, f.y_mm, 0.0]])))[0]
        fields[name] = FieldTruth(name, bool(colours), colours[-1] if colours else None,
                                  len(colours), colours, bool(occluded),
                                  (float(centre[0]), float(centre[1])))
    spec = layout.markers
    corners = []
    visible = []
    for index, (cx, cy) in enumerate(spec.centres_mm):
        s = spec.size_mm / 2.0
        quad = np.array([[cx - s, cy - s, 0], [cx + s, cy - s, 0], [cx + s, cy + s, 0],
                         [cx - s, cy + s, 0]])
        canvas_px = view.px(quad)
        corners.append(view.to_frame(canvas_px))
        q = s + QUIET_MM
        card = view.px(np.array([[cx - q, cy - q, 0], [cx + q, cy - q, 0], [cx + q, cy + q, 0],
                                 [cx - q, cy + q, 0]]))
        hidden = index in scene.markers_hidden or (
            any_hand and _covered_share(hand_mask, card) > HIDDEN_SHARE)
        visible.append(not hidden)
    w, h = view.pose.image_size
    dice = []
    for d in scene.dice:
        solid = die(d.x_mm, d.y_mm, d.value, d.angle_deg, d.size_mm, np.zeros(3), np.zeros(3),
                    d.leaning)
        top = next(f for f in solid.faces if f.value == d.value)
        canvas_px = view.px(top.verts)
        frame_px = view.to_frame(canvas_px)
        quad = frame_px[[0, len(frame_px) // 4, len(frame_px) // 2, 3 * len(frame_px) // 4]]
        x0, y0 = frame_px.min(axis=0)
        x1, y1 = frame_px.max(axis=0)
        inside = x0 >= 0 and y0 >= 0 and x1 <= w - 1 and y1 <= h - 1
        covered = any_hand and _covered_share(hand_mask, canvas_px) > HIDDEN_SHARE
        centre = frame_px.mean(axis=0)
        dice.append(DieTruth(d.value, (float(x0), float(y0), float(x1), float(y1)),
                             bool(inside and not covered), (float(centre[0]), float(centre[1])),
                             quad))
    frame_hand = view.distort(hand_mask) if any_hand else np.zeros((h, w), np.uint8)
    return Truth(fields, tuple(spec.ids), np.array(corners), tuple(visible), view.homography,
                 view.pose, dice, frame_hand)


# -- camera response --------------------------------------------------------------------------
def photometric(frame: np.ndarray, scene: Scene, rng: np.random.Generator) -> np.ndarray:
    """Exposure, white balance, uneven light, vignetting, glare, blur, noise and JPEG."""
    light = scene.lighting
    h, w = frame.shape[:2]
    gw, gh = 40, 30
    u = (np.arange(gw) + 0.5) / gw
    v = (np.arange(gh) + 0.5) / gh
    uu, vv = np.meshgrid(u, v)
    r2 = ((uu - 0.5) ** 2 + ((vv - 0.5) * h / w) ** 2) / 0.25
    gain = light.exposure * (1.0 - light.vignetting * np.clip(r2, 0, 2) * 0.7)
    a = math.radians(light.gradient_angle_deg)
    gain = gain * (1.0 + light.gradient * ((uu - 0.5) * math.cos(a) + (vv - 0.5) * math.sin(a)))
    glare = np.zeros_like(gain)
    for gu, gv, radius, strength in light.glare:
        d2 = (uu - gu) ** 2 + ((vv - gv) * h / w) ** 2
        glare += strength * np.exp(-d2 / (2 * radius ** 2))
    glare = np.clip(glare, 0, 0.95)
    wb = np.array(light.white_balance, np.float32)
    gain3 = (gain[..., None] * wb).astype(np.float32)
    gain_full = cv2.resize(gain3, (w, h), interpolation=cv2.INTER_LINEAR)
    img = frame.astype(np.float32)
    img *= gain_full
    if light.glare:
        g = cv2.resize(glare.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
        img += (255.0 - img) * g[..., None]
    if scene.blur_sigma > 0.05:
        img = cv2.GaussianBlur(img, (0, 0), scene.blur_sigma)
    if scene.noise_sigma > 0:
        noise = np.empty_like(img)
        cv2.setRNGSeed(int(rng.integers(0, 2**31 - 1)))
        cv2.randn(noise, 0.0, float(scene.noise_sigma))
        img += noise
    out = np.clip(img, 0, 255).astype(np.uint8)
    if scene.jpeg_quality is not None:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(scene.jpeg_quality)])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out
