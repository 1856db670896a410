"""Turn a :class:`Scene` seen from a :class:`CameraPose` into a photo-like frame with truth.

Pipeline (each step a plain function): table texture -> board and marker cards warped with
the true homography -> cables -> cast shadows -> pieces, dice and cards in painter's order ->
hand -> truth -> lens distortion (remap) -> light, white balance, vignetting, glare -> blur,
sharpening, camera shake, noise, JPEG.
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
from vision.sim.hand import draw_hand, hand_parts
from vision.sim.scene import Cable, Scene
from vision.sim.solids import (
    Band,
    Solid,
    die,
    fill,
    flat_card,
    piece,
    shade,
)

#: A field counts as occluded when a hand covers more than this share of its tower or base.
OCCLUSION_SHARE = 0.10
#: A marker or die face counts as hidden when a hand covers more than this share of it.
HIDDEN_SHARE = 0.01
BOARD_THICKNESS_MM = 3.0
AMBIENT = 0.5
SHADOW_SCALE = 4  # shadows are drawn at 1/4 resolution and blurred: they are soft anyway
LAMP_SPREAD_MM = 45.0  # how far from the lamp's mirror point glossy tops still shine
MAX_LEVELS = 8  # per-level placement jitter repeats above this (towers are never that tall)


@dataclass(frozen=True)
class FieldTruth:
    """What is really on one field and whether the camera can see it."""

    name: str
    occupied: bool
    top: str | None
    height: int
    colours: tuple[str, ...]
    occluded: bool
    centre_px: tuple[float, float]  # the field's centre on the board
    top_px: tuple[float, float]  # the middle of the tower's top (= centre_px when empty)
    seen_share: float = 1.0  # how much of the top piece (or the empty square) really shows

    @property
    def visible(self) -> bool:
        return not self.occluded


@dataclass(frozen=True)
class DieTruth:
    """One die's value and where its top face is in the frame."""

    value: int
    bbox: tuple[float, float, float, float]  # x0, y0, x1, y1 of the top face in the frame
    visible: bool  # the whole top face is in the frame and no hand covers it
    centre_px: tuple[float, float]
    top_face_px: np.ndarray = field(repr=False)  # (4, 2) corners of the top face
    leaning: bool = False  # propped against something: the top face is tilted


@dataclass(frozen=True)
class Truth:
    """Everything a reader should find in the frame, exactly."""

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
    """Draw ``scene`` as ``pose`` sees it. Same scene, pose and seed give the same frame.

    The table, where pieces lie on their fields and their exact shades follow ``scene.seed``;
    ``rng`` drives what changes from frame to frame (sensor noise, the hand's skin texture).
    So a game filmed frame by frame keeps one scene seed and passes a fresh ``rng`` each time.
    """
    rng = np.random.default_rng(0) if rng is None else rng
    view = _View(pose)
    canvas = _cached_table(scene.table, view.canvas_size, scene.seed)
    draw_board(canvas, scene, view)
    for cable in scene.cables:
        draw_cable(canvas, cable, view)
    solids, towers, top_pieces = build_solids(scene)
    shade_tops_under_towers(scene, towers, top_pieces)
    hand = hand_parts(scene.hand) if scene.hand is not None else []
    held = held_piece(scene)
    casters = dict(towers, **({"held piece": held.points} if held else {}))
    cast_shadows(canvas, scene, view, solids, casters)
    draw_solids(canvas, solids, view, scene.lighting.direction)
    if hand:
        cast_hand_shadow(canvas, scene, view, [p.polygon for p in hand])
    if held is not None:  # in the hand, so above everything on the table
        draw_solids(canvas, [held], view, scene.lighting.direction)
    hand_mask = np.zeros(canvas.shape[:2], np.uint8)
    if scene.hand is not None:
        parts_px = [(p, view.px_polygon(p.polygon),
                     None if p.nail is None else view.px_polygon(p.nail)) for p in hand]
        parts_px = [(p, px, nail) for p, px, nail in parts_px if len(px) >= 3]
        draw_hand(canvas, hand_mask, scene.hand, parts_px, rng)
    truth = make_truth(scene, view, towers, top_pieces, hand_mask)
    frame = view.distort(canvas, chromatic_px=scene.chromatic_px)
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

    def px_polygon(self, polygon_mm: np.ndarray, near_mm: float = 20.0) -> np.ndarray:
        """Canvas pixels of a polygon, cut where it passes behind the camera (a forearm
        reaching in from the photographer's side does). May return fewer than 3 points."""
        pts = np.asarray(polygon_mm, float).reshape(-1, 3) * np.array([1.0, 1.0, -1.0])
        cam = pts @ self._R.T + self._t
        inside = cam[:, 2] >= near_mm
        if not inside.all():
            kept = []
            for i in range(len(cam)):
                a, b = cam[i], cam[(i + 1) % len(cam)]
                if a[2] >= near_mm:
                    kept.append(a)
                if (a[2] >= near_mm) != (b[2] >= near_mm):
                    t = (near_mm - a[2]) / (b[2] - a[2])
                    kept.append(a + t * (b - a))
            cam = np.array(kept).reshape(-1, 3)
        if len(cam) == 0:
            return np.zeros((0, 2))
        return (cam[:, :2] / cam[:, 2:3]) * self._K[0, 0] + self._K[:2, 2] + self.margin

    def to_frame(self, canvas_px: np.ndarray) -> np.ndarray:
        return self.pose.distort_pixels(canvas_px - self.margin)

    def depth_key(self, solid: Solid) -> float:
        """Painter's order: farther from the camera's foot point first, flat things first."""
        dx = solid.ground_xy[0] - self.camera[0]
        dy = solid.ground_xy[1] - self.camera[1]
        return -math.hypot(dx, dy) + (0.0 if solid.casts_shadow else -1e6)

    def distort(self, canvas: np.ndarray, nearest: bool = False,
                chromatic_px: float = 0.0) -> np.ndarray:
        """The frame the sensor sees. ``chromatic_px`` > 0 adds lateral chromatic aberration:
        red drawn that much larger, blue smaller, at the frame's corners (green stays true)."""
        map_x, map_y = _distortion_maps(self.pose, self.margin)
        inter = cv2.INTER_NEAREST if nearest else cv2.INTER_LINEAR
        out = cv2.remap(canvas, map_x, map_y, inter, borderMode=cv2.BORDER_REFLECT)
        if chromatic_px > 0 and out.ndim == 3:
            w, h = self.pose.image_size
            corner = math.hypot(w / 2, h / 2)
            for channel, sign in ((2, 1.0), (0, -1.0)):
                # Lateral aberration grows linearly with the radius: a plain scaling.
                scale = 1.0 + sign * chromatic_px / corner
                m = cv2.getRotationMatrix2D(((w - 1) / 2, (h - 1) / 2), 0.0, scale)
                out[..., channel] = cv2.warpAffine(out[..., channel], m, (w, h),
                                                   flags=cv2.INTER_LINEAR,
                                                   borderMode=cv2.BORDER_REFLECT)
        return out


_MAP_CACHE: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}


def _distortion_maps(pose: CameraPose, margin: int) -> tuple[np.ndarray, np.ndarray]:
    """For each frame pixel, where to sample the undistorted canvas. Computed on a coarse
    grid and upsampled: the map is smooth, and this keeps it cheap."""
    key = (pose.image_size, round(pose.fov_deg, 6), round(pose.k1, 8), margin)
    if key in _MAP_CACHE:
        return _MAP_CACHE[key]
    w, h = pose.image_size
    step = 16
    nx, ny = -(-w // step), -(-h // step)
    # Nodes sit where cv2.resize puts source pixel centres, one extra node on every side, so
    # plain bilinear resizing interpolates them exactly (and never extrapolates).
    gx = (np.arange(-1, nx + 1) + 0.5) * step - 0.5
    gy = (np.arange(-1, ny + 1) + 0.5) * step - 0.5
    xx, yy = np.meshgrid(gx, gy)
    src = pose.undistort_pixels(np.column_stack([xx.ravel(), yy.ravel()])) + margin
    size = ((nx + 2) * step, (ny + 2) * step)
    maps = []
    for column in (0, 1):
        coarse = src[:, column].reshape(xx.shape).astype(np.float32)
        maps.append(cv2.resize(coarse, size, interpolation=cv2.INTER_LINEAR)[
            step:step + h, step:step + w])
    map_x, map_y = cv2.convertMaps(maps[0], maps[1], cv2.CV_16SC2)
    if len(_MAP_CACHE) >= 4:  # random poses rarely repeat; a demo's one pose always does
        _MAP_CACHE.pop(next(iter(_MAP_CACHE)))
    _MAP_CACHE[key] = (map_x, map_y)
    return map_x, map_y


# -- table and board --------------------------------------------------------------------------
TABLE_PALETTES = {
    "wood": ([70, 120, 170], [60, 105, 150], [95, 140, 185], [175, 205, 222]),
    "dark_wood": ([35, 55, 85], [30, 45, 65], [45, 70, 110]),
    "cloth": ([60, 110, 40], [90, 60, 30], [50, 50, 130], [70, 70, 70]),
    "mottled": ([150, 160, 170], [110, 130, 150], [180, 180, 175]),
    "plain": ([215, 215, 210], [190, 200, 205], [120, 120, 125], [235, 235, 235]),
}
TEXTURE_SCALE = 4  # textures are made at 1/4 size: fine detail comes from the sensor noise


def table_texture(kind: str, size: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    """A table top: wood grain, felt/cloth, a mottled surface or a plain one."""
    w, h = size
    sw, sh = w // TEXTURE_SCALE + 1, h // TEXTURE_SCALE + 1
    palette = TABLE_PALETTES[kind]
    base = np.array(palette[int(rng.integers(len(palette)))], np.float32)
    base *= rng.uniform(0.85, 1.12)
    shade_map = np.ones((sh, sw), np.float32)
    strength = {"wood": 0.05, "dark_wood": 0.05, "cloth": 0.04, "mottled": 0.045, "plain": 0.02}
    for cell, weight in ((30, 1.0), (6, 0.8)):  # two octaves of smooth noise
        blobs = rng.normal(0, 1, (max(2, sh // cell), max(2, sw // cell))).astype(np.float32)
        shade_map += strength[kind] * weight * cv2.resize(blobs, (sw, sh),
                                                          interpolation=cv2.INTER_CUBIC)
    if kind in ("wood", "dark_wood"):
        # Grain: smooth 1D noise across the boards, streaked along them.
        angle = rng.uniform(0, math.pi)
        yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
        across = xx * math.cos(angle) + yy * math.sin(angle)
        along = -xx * math.sin(angle) + yy * math.cos(angle)
        span = int(sw + sh) + 2
        profile = cv2.GaussianBlur(rng.normal(0, 1, (1, span * 2)).astype(np.float32),
                                   (0, 0), 1.5).ravel()
        wobble = 3.0 * np.sin(along / rng.uniform(20, 60) + rng.uniform(0, 6))
        t = np.clip(across + wobble + span / 2, 0, span * 2 - 2)
        grain = np.interp(t.ravel(), np.arange(span * 2), profile).reshape(sh, sw)
        shade_map += 0.12 * grain + 0.05 * np.sin(t * rng.uniform(0.3, 0.8))
        # Plank joints now and then.
        if rng.random() < 0.6:
            pitch = rng.uniform(40, 80)
            to_joint = pitch / 2 - np.abs(((across + span) % pitch) - pitch / 2)
            shade_map *= 1.0 - 0.35 * np.exp(-(to_joint / 0.45) ** 2)  # soft, not jagged
    img = np.clip(shade_map[..., None] * base, 0, 255).astype(np.uint8)
    return cv2.resize(img, (w, h), interpolation=cv2.INTER_LINEAR)


_TABLE_CACHE: dict[tuple, np.ndarray] = {}


def _cached_table(kind: str, size: tuple[int, int], seed: int) -> np.ndarray:
    """The table for a scene seed: a demo filming one table frame after frame draws it once."""
    key = (kind, size, seed)
    if key not in _TABLE_CACHE:
        if len(_TABLE_CACHE) >= 4:
            _TABLE_CACHE.pop(next(iter(_TABLE_CACHE)))
        _TABLE_CACHE[key] = table_texture(kind, size, np.random.default_rng(seed))
    return _TABLE_CACHE[key].copy()


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
    # Card texture pixel -> millimetres from the card's centre.
    tex_to_local = np.linalg.inv(mm_to_texture((-half, -half)))
    for index, marker_id in enumerate(spec.ids):
        card = marker_card(marker_id, spec.size_mm, spec.dictionary)
        _warp_into(canvas, card,
                   view.canvas_homography @ marker_placement(scene, index) @ tex_to_local)


def marker_placement(scene: Scene, index: int) -> np.ndarray:
    """3x3 map from millimetres around marker ``index``'s centre to board millimetres: where
    its card really lies (stuck on by hand, a little off the layout's spot)."""
    cx, cy = scene.layout.markers.centres_mm[index]
    dx, dy, angle = scene.marker_offsets[index] if scene.marker_offsets else (0.0, 0.0, 0.0)
    a = math.radians(angle)
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, cx + dx], [s, c, cy + dy], [0.0, 0.0, 1.0]])


def _placed(scene: Scene, index: int, local_xy: np.ndarray) -> np.ndarray:
    """(N, 3) board points (h = 0) of millimetre offsets around marker ``index``."""
    pts = np.column_stack([local_xy, np.ones(len(local_xy))]) @ marker_placement(scene, index).T
    return np.column_stack([pts[:, :2], np.zeros(len(pts))])


def draw_cable(canvas: np.ndarray, cable: Cable, view: _View) -> None:
    """A round cable: dark body, a faint highlight along its top. Parts behind the camera
    are left out."""
    pts = np.array(cable.points_mm, float)
    ground = np.column_stack([pts, np.full(len(pts), cable.width_mm / 2)])
    px = view.px(ground)
    ch, cw = canvas.shape[:2]
    near = ((px[:, 0] > -cw) & (px[:, 0] < 2 * cw) & (px[:, 1] > -ch) & (px[:, 1] < 2 * ch))
    front = near & (view.pose.to_camera(ground)[:, 2] > 50.0)
    if front.sum() < 2:
        return
    # Width in pixels: project a sideways step where the cable is.
    side = view.px(ground[front] + np.array([0.0, cable.width_mm, 0.0]))
    width = max(1, int(round(float(np.median(np.linalg.norm(side - px[front], axis=1))))))
    body = np.array(hex_to_bgr(cable.colour), float)
    shine = np.clip(body * 0.8 + 60, 0, 255).tolist()
    runs = np.split(np.arange(len(pts)), np.flatnonzero(np.diff(front.astype(int))) + 1)
    for run in runs:
        if not front[run[0]] or len(run) < 2:
            continue
        line = np.round(px[run] * 16).astype(np.int32)
        cv2.polylines(canvas, [line], False, (body * 0.8).tolist(), width, cv2.LINE_AA, 4)
        top = np.round((px[run] + (0, -width * 0.2)) * 16).astype(np.int32)
        cv2.polylines(canvas, [top], False, shine, max(1, width // 4), cv2.LINE_AA, 4)


# -- solids -----------------------------------------------------------------------------------
def held_piece(scene: Scene) -> Solid | None:
    """The piece a hand carries, pinched under its fingertips (on no field)."""
    hand = scene.hand
    if hand is None or hand.holding is None:
        return None
    spec = scene.layout.piece
    d = np.subtract(hand.tip_mm, hand.entry_mm)
    d /= np.linalg.norm(d)
    x, y = np.array(hand.tip_mm) - d * (spec.diameter_mm * 0.6 + 10)
    bgr = np.array(hex_to_bgr(scene.layout.piece_colours[hand.holding]), float)
    held = piece(spec.shape, float(x), float(y), 0, spec.diameter_mm, spec.height_mm, bgr)
    lift = np.array([0.0, 0.0, max(5.0, hand.height_mm - 30.0 * hand.curl - 25.0)])
    for f in held.faces:
        f.verts = f.verts + lift
    for b in held.bands:
        b.bottom, b.top = b.bottom + lift, b.top + lift
    return held


def _jitter(bgr: tuple[int, int, int], rng: np.random.Generator, amount: float) -> np.ndarray:
    """A piece's own colour: same paint, slightly different batch, dust and light."""
    return np.clip(np.array(bgr, float) * rng.uniform(1 - amount, 1 + amount, 3)
                   * rng.uniform(0.92, 1.08), 0, 255)


def build_solids(scene: Scene
                 ) -> tuple[list[Solid], dict[str, np.ndarray], dict[str, Solid]]:
    """All 3D things, and for each occupied field the points of its tower and of its top
    piece (for shadows and for occlusion truth)."""
    layout = scene.layout
    spec = layout.piece
    solids: list[Solid] = []
    towers: dict[str, np.ndarray] = {}
    top_pieces: dict[str, Solid] = {}
    # How each piece lies and its exact shade come from the scene's own seed, per field and
    # level, so a piece that stays put looks the same in every frame of a game.
    stable = np.random.default_rng(scene.seed)
    n_fields = len(layout.fields)
    index = {name: i for i, name in enumerate(layout.fields)}
    field_shift = stable.normal(0, 0.06 * spec.diameter_mm, (n_fields, 2))
    level_shift = stable.normal(0, 0.015 * spec.diameter_mm, (n_fields, MAX_LEVELS, 2))
    tint = stable.uniform(0.94, 1.06, (n_fields, MAX_LEVELS, 3))
    tint *= stable.uniform(0.92, 1.08, (n_fields, MAX_LEVELS, 1))
    for name, colours in scene.stacks.items():
        f = layout.fields[name]
        i = index[name]
        # Pieces are placed by hand: off centre (but on their field), each a little off the
        # one below.
        slack = max(0.1 * spec.diameter_mm, 0.45 * (f.size_mm - spec.diameter_mm))
        x, y = np.array([f.x_mm, f.y_mm]) + np.clip(field_shift[i], -slack, slack)
        pts = []
        for level, colour in enumerate(colours):
            px, py = (x, y) + level_shift[i, level % MAX_LEVELS]
            bgr = np.clip(np.array(hex_to_bgr(layout.piece_colours[colour]), float)
                          * tint[i, level % MAX_LEVELS], 0, 255)
            solid = piece(spec.shape, px, py, level, spec.diameter_mm, spec.height_mm, bgr,
                          scene.piece_style == "groove")
            solid.ground_xy = (x, y)
            solids.append(solid)
            pts.append(solid.points)
        towers[name] = np.concatenate(pts)
        top_pieces[name] = solids[-1]
    for d in scene.dice:
        solids.append(die(d.x_mm, d.y_mm, d.value, d.angle_deg, d.size_mm,
                          _jitter(hex_to_bgr(d.body), stable, 0.03),
                          _jitter(hex_to_bgr(d.pips), stable, 0.05), d.leaning))
    spec_m = layout.markers
    for index in sorted(scene.markers_hidden):
        cx, cy = marker_placement(scene, index)[:2, 2]
        half = spec_m.size_mm / 2.0 + QUIET_MM + 3.0
        colour = stable.uniform(30, 230, 3)
        ox, oy = stable.uniform(-4, 4, 2)
        card = flat_card(cx + ox, cy + oy, half + 6 + stable.uniform(0, 15),
                         half + 6 + stable.uniform(0, 15), stable.uniform(-15, 15), colour)
        card.casts_shadow = False
        solids.append(card)
    for c in scene.clutter:
        card = flat_card(c.x_mm, c.y_mm, c.width_mm / 2, c.length_mm / 2, c.angle_deg,
                         _jitter(hex_to_bgr(c.colour), stable, 0.04), thickness=0.4)
        card.casts_shadow = False
        solids.append(card)
    # Tower order stays bottom-up after the (stable) painter's sort: same ground point.
    return solids, towers, top_pieces


def shade_tops_under_towers(scene: Scene, towers: dict[str, np.ndarray],
                            top_pieces: dict[str, Solid]) -> None:
    """A tall tower throws its shadow onto the tops of lower neighbours: darken each top
    piece's upward faces by the share of it that lies in such a shadow."""
    light = scene.lighting.direction
    if light[2] <= 0.05 or len(towers) < 2:
        return
    drift = light[:2] / light[2]  # shadow shift per millimetre of height difference
    names = list(towers)
    heights = np.array([towers[n][:, 2].max() for n in names])
    centres = np.array([towers[n][:, :2].mean(axis=0) for n in names])
    radius = scene.layout.piece.diameter_mm / 2.0
    ring = np.array([[0.0, 0.0]] + [[math.cos(a), math.sin(a)] for a in
                                     np.linspace(0, 2 * math.pi, 8, endpoint=False)]) * 0.6
    for r, receiver in enumerate(names):
        taller = heights > heights[r] + 0.5
        if not taller.any():
            continue
        reach = (heights - heights[r]) * np.linalg.norm(drift) + 2.5 * radius
        near = taller & (np.linalg.norm(centres - centres[r], axis=1) < reach)
        samples = centres[r] + ring * radius
        shaded = np.zeros(len(samples), bool)
        for c in np.flatnonzero(near):
            pts = towers[names[c]]
            above = pts[pts[:, 2] > heights[r]]
            shadow = above[:, :2] - (above[:, 2:3] - heights[r]) * drift
            hull = cv2.convexHull(shadow.astype(np.float32)).reshape(-1, 2).astype(float)
            edges = np.roll(hull, -1, axis=0) - hull
            rel = samples[:, None, :] - hull[None, :, :]
            cross = edges[None, :, 0] * rel[:, :, 1] - edges[None, :, 1] * rel[:, :, 0]
            shaded |= np.all(cross >= 0, axis=1) | np.all(cross <= 0, axis=1)
        if shaded.any():
            top_pieces[receiver].top_shade = 1.0 - scene.lighting.shadow_strength * shaded.mean()


def draw_solids(canvas: np.ndarray, solids: list[Solid], view: _View, light: np.ndarray) -> None:
    """All solids in painter's order (far to near). The round sides of every piece are
    projected and shaded in one numpy batch first, so the per-solid loop only draws."""
    prepared = _prepare_bands(solids, view, light)
    faces = _prepare_faces(solids, view, light)
    order = sorted(range(len(solids)), key=lambda k: view.depth_key(solids[k]))
    for k in order:
        solid = solids[k]
        if solid.silhouette_colour is not None:
            hull = cv2.convexHull(view.px(solid.points).astype(np.float32)).reshape(-1, 2)
            fill(canvas, hull, solid.silhouette_colour)
        for quads, visible, colours, seam in prepared.get(k, ()):
            idx = np.flatnonzero(visible)
            if len(idx) == 0:
                continue
            # An anti-aliased underlay gives a smooth outline; the quads inside it shade it.
            hull = cv2.convexHull(quads[idx].reshape(-1, 2))
            cv2.fillConvexPoly(canvas, hull, np.mean([colours[j] for j in idx], axis=0).tolist(),
                               cv2.LINE_AA, 4)
            for j in idx:
                cv2.fillConvexPoly(canvas, quads[j], colours[j], cv2.LINE_8, 4)
            if seam is not None:
                cv2.polylines(canvas, list(quads[idx, :2]), False, seam, 1, cv2.LINE_AA, 4)
        for face_px, colour, pips, pip_colour in faces.get(k, ()):
            cv2.fillConvexPoly(canvas, face_px, colour, cv2.LINE_AA, 4)
            for pip in pips:
                cv2.fillConvexPoly(canvas, pip, pip_colour, cv2.LINE_AA, 4)


def _prepare_faces(solids: list[Solid], view: _View, light: np.ndarray) -> dict[int, list]:
    """Per solid: its camera-facing flat faces as (fixed-point polygon, colour, pip polygons,
    pip colour), projected and shaded in one batch."""
    owners, faces = [], []
    for k, solid in enumerate(solids):
        for f in solid.faces:
            owners.append(k)
            faces.append(f)
    if not faces:
        return {}
    sizes = np.array([len(f.verts) for f in faces])
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    verts = np.concatenate([f.verts for f in faces])
    centroids = np.add.reduceat(verts, starts, axis=0) / sizes[:, None]
    normals = np.stack([f.normal for f in faces])
    visible = np.sum((view.camera - centroids) * normals, axis=1) > 0
    base = np.stack([f.colour for f in faces])
    gloss = np.array([f.gloss for f in faces])[:, None]
    colours = shade(base, normals, light, AMBIENT, gloss)
    # Glossy flat tops mirror the lamp: those near where its reflection reaches the camera
    # wash out towards white (a hard case for reading a stone's colour).
    flat = normals[:, 2] > 0.99
    if flat.any() and light[2] > 0.05:
        reach = (view.camera[2] - centroids[flat, 2]) / light[2]
        mirror = view.camera[:2] + reach[:, None] * light[:2]
        d2 = np.sum((centroids[flat, :2] - mirror) ** 2, axis=1)
        sheen = np.minimum(0.7, 1.6 * gloss[flat, 0] * np.exp(-d2 / (2 * LAMP_SPREAD_MM ** 2)))
        colours[flat] += (255.0 - colours[flat]) * sheen[:, None]
    # Tops lying in a taller neighbour's shadow.
    top_shade = np.array([solids[k].top_shade for k in owners])
    colours[flat] *= top_shade[flat, None]
    colours = colours.tolist()
    polys = np.split(np.round(view.px(verts) * 16).astype(np.int32), np.cumsum(sizes)[:-1])
    pip_faces = [i for i in np.flatnonzero(visible) if faces[i].pips]
    pip_polys: dict[int, list[np.ndarray]] = {}
    if pip_faces:
        pts = np.concatenate([p for i in pip_faces for p in faces[i].pips])
        flat = np.round(view.px(pts) * 16).astype(np.int32)
        cursor = 0
        for i in pip_faces:
            out = []
            for p in faces[i].pips:
                out.append(flat[cursor:cursor + len(p)])
                cursor += len(p)
            pip_polys[i] = out
    prepared: dict[int, list] = {}
    for i in np.flatnonzero(visible):
        f = faces[i]
        pip_colour = None
        if f.pips:
            pip_colour = shade(f.pip_colour, f.normal, light, AMBIENT, 0.05).tolist()
        prepared.setdefault(owners[i], []).append(
            (polys[i], colours[i], pip_polys.get(i, []), pip_colour))
    return prepared


def _prepare_bands(solids: list[Solid], view: _View, light: np.ndarray) -> dict[int, list]:
    """Per solid: for each band the quads (fixed point), which face the camera, their shaded
    colours and the seam colour (or None)."""
    groups: dict[int, list[tuple[int, Band]]] = {}
    for k, solid in enumerate(solids):
        for band in solid.bands:
            groups.setdefault(len(band.bottom), []).append((k, band))
    prepared: dict[int, list] = {}
    for n, items in groups.items():
        bottoms = np.stack([b.bottom for _, b in items])
        tops = np.stack([b.top for _, b in items])
        normals = np.stack([b.normals for _, b in items])
        base = np.stack([b.colour for _, b in items])
        gloss = np.array([b.gloss for _, b in items])
        count = len(items)
        px = view.px(np.concatenate([bottoms, tops]).reshape(-1, 3)).reshape(2, count, n, 2)
        pb, pt = px[0], px[1]
        nxt = np.roll(np.arange(n), -1)
        mids = (bottoms + tops[:, nxt]) / 2
        visible = np.sum((view.camera - mids) * normals, axis=2) > 0
        colours = shade(base[:, None, :], normals, light, AMBIENT, gloss[:, None, None]).tolist()
        quads = np.round(np.stack([pb, pb[:, nxt], pt[:, nxt], pt], axis=2) * 16).astype(np.int32)
        for row, (k, band) in enumerate(items):
            seam = (0.3 * band.colour).tolist() if band.seam_below else None
            prepared.setdefault(k, []).append((quads[row], visible[row], colours[row], seam))
    return prepared


def _shadow_points(points: np.ndarray, light: np.ndarray) -> np.ndarray:
    """Where points throw their shadow on the table (h = 0)."""
    h = points[:, 2:3]
    out = points[:, :2] - h * light[:2] / max(light[2], 0.05)
    return np.column_stack([out, np.zeros(len(out))])


def cast_shadows(canvas: np.ndarray, scene: Scene, view: _View, solids: list[Solid],
                 towers: dict[str, np.ndarray]) -> None:
    """Darken the table and board under the soft shadows of pieces and dice (drawn before
    the pieces themselves, which stand on top of them)."""
    light = scene.lighting.direction
    strength = scene.lighting.shadow_strength
    ch, cw = canvas.shape[:2]
    s = SHADOW_SCALE
    mask = np.zeros((ch // s + 1, cw // s + 1), np.float32)
    dice = [d.points for d in solids if d.casts_shadow and d.silhouette_colour is not None]
    casters = list(towers.values()) + dice
    if casters:
        sizes = np.cumsum([len(p) for p in casters])[:-1]
        everything = np.concatenate(casters)
        shadows = np.split(view.px(_shadow_points(everything, light)) / s, sizes)
        grounds = np.split(view.px(everything) / s, sizes)
        touching = np.split(everything[:, 2] < 0.5, sizes)
        contact = min(0.85, strength + 0.3)
        for shadow in shadows:
            hull = cv2.convexHull(shadow.astype(np.float32)).reshape(-1, 2)
            cv2.fillConvexPoly(mask, np.round(hull * 16).astype(np.int32), strength,
                               cv2.LINE_AA, 4)
        # Contact shadow: darkest right where a thing touches the table.
        for ground, touch in zip(grounds, touching, strict=True):
            if touch.sum() >= 3:
                hull = cv2.convexHull(ground[touch].astype(np.float32)).reshape(-1, 2)
                cv2.fillConvexPoly(mask, np.round(hull * 16).astype(np.int32), contact,
                                   cv2.LINE_AA, 4)
    _darken(canvas, cv2.GaussianBlur(mask, (0, 0), 1.2))


def cast_hand_shadow(canvas: np.ndarray, scene: Scene, view: _View,
                     hand_polys: list[np.ndarray]) -> None:
    """The hand's broad, soft shadow: it falls on the pieces too, so it comes after them."""
    light = scene.lighting.direction
    ch, cw = canvas.shape[:2]
    s = SHADOW_SCALE
    mask = np.zeros((ch // s + 1, cw // s + 1), np.float32)
    for poly in hand_polys:
        shadow = view.px_polygon(_shadow_points(poly, light)) / s
        if len(shadow) >= 3:
            cv2.fillPoly(mask, [np.round(shadow * 16).astype(np.int32)],
                         scene.lighting.shadow_strength * 0.8, cv2.LINE_AA, 4)
    _darken(canvas, cv2.GaussianBlur(mask, (0, 0), 6.0))


def _darken(canvas: np.ndarray, mask: np.ndarray) -> None:
    """Multiply the canvas by (1 - mask); the mask is at 1/SHADOW_SCALE size."""
    ch, cw = canvas.shape[:2]
    s = SHADOW_SCALE
    ys, xs = np.nonzero(mask > 0.004)
    if len(xs) == 0:
        return
    # Only the box around the shadows is touched.
    x0, x1 = int(xs.min()) * s, min(cw, (int(xs.max()) + 1) * s)
    y0, y1 = int(ys.min()) * s, min(ch, (int(ys.max()) + 1) * s)
    full = cv2.resize(mask, (mask.shape[1] * s, mask.shape[0] * s),
                      interpolation=cv2.INTER_LINEAR)[y0:y1, x0:x1]
    factor = np.clip(255.0 * (1.0 - full), 0, 255).astype(np.uint8)
    canvas[y0:y1, x0:x1] = cv2.multiply(canvas[y0:y1, x0:x1],
                                        cv2.cvtColor(factor, cv2.COLOR_GRAY2BGR), scale=1 / 255)


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


_SQUARES: dict[tuple[str, str], np.ndarray] = {}


def _field_squares(layout) -> np.ndarray:
    """(fields, 25, 3): a 5x5 grid of points over the middle 80 % of each field, cached."""
    key = (layout.source, layout.game)
    if key not in _SQUARES:
        grid = np.linspace(-0.4, 0.4, 5)
        gx, gy = np.meshgrid(grid, grid)
        out = []
        for f in layout.fields.values():
            out.append(np.column_stack([f.x_mm + gx.ravel() * f.size_mm,
                                        f.y_mm + gy.ravel() * f.size_mm, np.zeros(gx.size)]))
        _SQUARES[key] = np.stack(out)
    return _SQUARES[key]


def _field_visibility(scene: Scene, view: _View, towers: dict[str, np.ndarray],
                      top_pieces: dict[str, Solid], hand_mask: np.ndarray
                      ) -> tuple[dict[str, float], dict[str, float]]:
    """Per field: the share of its top piece (or, if empty, of its square) that the camera
    really sees, and the share of its tower and base that the hand covers.

    Works on a label image: every tower painted with its own number in painter's order,
    then the hand (-1) on top; each field is sampled at points, all projected at once."""
    layout = scene.layout
    # Half resolution is plenty for shares sampled at 25 points per field.
    ch, cw = hand_mask.shape
    labels = np.zeros(((ch + 1) // 2, (cw + 1) // 2), np.int16)
    camera = view.camera[:2]
    order = sorted(towers, key=lambda n: -float(np.linalg.norm(
        towers[n][:, :2].mean(axis=0) - camera)))
    number = {name: i for i, name in enumerate(order, start=1)}
    if order:
        sizes = np.cumsum([len(towers[n]) for n in order])[:-1]
        outlines = np.split(np.round(view.px(np.concatenate([towers[n] for n in order])) * 8)
                            .astype(np.int32), sizes)
        for name, outline in zip(order, outlines, strict=True):
            cv2.fillConvexPoly(labels, cv2.convexHull(outline), number[name], cv2.LINE_8, 4)
    if hand_mask.any():
        small = cv2.resize(hand_mask, (labels.shape[1], labels.shape[0]),
                           interpolation=cv2.INTER_NEAREST)
        labels[small > 0] = -1
    squares = _field_squares(layout)
    names, wanted, top_samples, body_samples = [], [], [], []
    for k, name in enumerate(layout.fields):
        base = squares[k]
        if name in towers:
            top = top_pieces[name].points
            centre = top.mean(axis=0)
            top = centre + (top - centre) * 0.85  # stay inside the outline
            body = towers[name].copy()
            body[:, :2] = centre[:2] + (body[:, :2] - centre[:2]) * 0.85
            body = np.concatenate([body, base])
            wanted.append(number[name])
        else:
            top, body = base, base
            wanted.append(0)
        names.append(name)
        top_samples.append(top)
        body_samples.append(body)
    h, w = labels.shape

    def look_up(samples: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        px = np.round(view.px(np.concatenate(samples)) / 2).astype(int)
        inside = (px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h)
        found = np.full(len(px), -2)
        found[inside] = labels[px[inside, 1], px[inside, 0]]
        counts = np.array([len(s) for s in samples])
        return found, counts

    def share(hit: np.ndarray, counts: np.ndarray) -> list[float]:
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        return (np.add.reduceat(hit.astype(float), starts) / counts).tolist()

    found, counts = look_up(top_samples)
    seen = share(found == np.repeat(wanted, counts), counts)
    found, counts = look_up(body_samples)
    under_hand = share(found == -1, counts)
    return dict(zip(names, seen, strict=True)), dict(zip(names, under_hand, strict=True))


def make_truth(scene: Scene, view: _View, towers: dict[str, np.ndarray],
               top_pieces: dict[str, Solid], hand_mask: np.ndarray) -> Truth:
    layout = scene.layout
    any_hand = bool(hand_mask.any())
    seen, under_hand = _field_visibility(scene, view, towers, top_pieces, hand_mask)
    names = list(layout.fields)
    flat = np.array([[layout.fields[n].x_mm, layout.fields[n].y_mm, 0.0] for n in names])
    centres = view.to_frame(view.px(flat))
    tops_mm = flat.copy()
    for i, name in enumerate(names):
        if name in towers:
            pts = towers[name]
            tops_mm[i] = pts[pts[:, 2] >= pts[:, 2].max() - 1e-6].mean(axis=0)
    tops = view.to_frame(view.px(tops_mm))
    fields = {}
    for name, centre, top in zip(names, centres, tops, strict=True):
        colours = tuple(scene.stacks.get(name, ()))
        fields[name] = FieldTruth(name, bool(colours), colours[-1] if colours else None,
                                  len(colours), colours, under_hand[name] > OCCLUSION_SHARE,
                                  (float(centre[0]), float(centre[1])),
                                  (float(top[0]), float(top[1])), seen[name])
    spec = layout.markers
    corners = []
    visible = []
    w, h = view.pose.image_size
    square = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])
    for index in range(len(spec.centres_mm)):
        canvas_px = view.px(_placed(scene, index, square * spec.size_mm / 2.0))
        corners.append(view.to_frame(canvas_px))
        card = view.px(_placed(scene, index, square * (spec.size_mm / 2.0 + QUIET_MM)))
        in_frame = bool(np.all((corners[-1] >= 0) & (corners[-1] <= [w - 1, h - 1])))
        hidden = index in scene.markers_hidden or (
            any_hand and _covered_share(hand_mask, card) > HIDDEN_SHARE)
        visible.append(in_frame and not hidden)
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
                             quad, d.leaning))
    frame_hand = view.distort(hand_mask, nearest=True) if any_hand else np.zeros((h, w),
                                                                                   np.uint8)
    return Truth(fields, tuple(spec.ids), np.array(corners), tuple(visible), view.homography,
                 view.pose, dice, frame_hand)


# -- camera response --------------------------------------------------------------------------
def _motion_kernel(length: float, angle_deg: float) -> np.ndarray:
    size = int(math.ceil(length)) | 1
    kernel = np.zeros((size, size), np.float32)
    c = size // 2
    a = math.radians(angle_deg)
    dx, dy = math.cos(a) * (length - 1) / 2, math.sin(a) * (length - 1) / 2
    cv2.line(kernel, (int(round((c - dx) * 16)), int(round((c - dy) * 16))),
             (int(round((c + dx) * 16)), int(round((c + dy) * 16))), 1.0, 1, cv2.LINE_AA, 4)
    return kernel / kernel.sum()


_NOISE_TILE: dict[str, np.ndarray] = {}


def _noise_tile() -> np.ndarray:
    """A fixed block of Gaussian noise, sigma 16 around 128 (uint8). Frames take it from a
    random offset: drawing fresh noise for every pixel would cost more than the whole frame."""
    if "tile" not in _NOISE_TILE:
        tile = np.empty((1400, 1800, 3), np.int16)
        cv2.setRNGSeed(1234)
        # a scalar mean and sigma would fill only the first channel: the others would
        # come out near 0 and, taken off as 128 below, darken green and red by up to 60
        cv2.randn(tile, (128, 128, 128), (16, 16, 16))
        _NOISE_TILE["tile"] = np.clip(tile, 0, 255).astype(np.uint8)
    return _NOISE_TILE["tile"]


def photometric(frame: np.ndarray, scene: Scene, rng: np.random.Generator) -> np.ndarray:
    """Exposure, white balance, uneven light, vignetting, glare, blur, sharpening, camera
    shake, noise and JPEG."""
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
    # Glare washes colours out: out = in * gain * (1 - g) + 255 * g, all in 8-bit arithmetic.
    wb = np.array(light.white_balance)
    gain3 = gain[..., None] * wb * (1.0 - glare[..., None])
    gain_u8 = np.clip(gain3 * 128.0, 0, 255).astype(np.uint8)
    out = cv2.multiply(frame, cv2.resize(gain_u8, (w, h), interpolation=cv2.INTER_LINEAR),
                       scale=1.0 / 128.0)
    if light.glare:
        add = cv2.resize(np.clip(glare * 255.0, 0, 255).astype(np.uint8), (w, h),
                         interpolation=cv2.INTER_LINEAR)
        out = cv2.add(out, cv2.cvtColor(add, cv2.COLOR_GRAY2BGR))
    if scene.blur_sigma > 0.05:
        out = cv2.GaussianBlur(out, (0, 0), scene.blur_sigma)
    if scene.sharpen > 0:
        soft = cv2.GaussianBlur(out, (0, 0), 1.5)
        out = cv2.addWeighted(out, 1.0 + scene.sharpen, soft, -scene.sharpen, 0.0)
    if scene.motion_blur_px >= 1.0:
        out = cv2.filter2D(out, -1, _motion_kernel(scene.motion_blur_px, scene.motion_blur_deg))
    if scene.noise_sigma > 0:
        tile = _noise_tile()
        oy = int(rng.integers(0, tile.shape[0] - h + 1))
        ox = int(rng.integers(0, tile.shape[1] - w + 1))
        gain = scene.noise_sigma / 16.0
        out = cv2.addWeighted(out, 1.0, tile[oy:oy + h, ox:ox + w], gain, -128.0 * gain)
    if scene.jpeg_quality is not None:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(scene.jpeg_quality)])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out
