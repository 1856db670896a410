"""3D things on the table as lists of flat faces: stones, roofs, dice, cards.

Points are (x_mm, y_mm, h_mm) as in ``camera``. Every solid here is convex, so drawing its
camera-facing faces (back-face culling) in any order is exact; whole solids are sorted far to
near by the renderer (painter's order).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.sim.board import PIP_LAYOUT

UP = np.array([0.0, 0.0, 1.0])


@dataclass
class Face:
    verts: np.ndarray  # (M, 3) convex polygon
    normal: np.ndarray  # unit outward normal
    colour: np.ndarray  # BGR, float 0..255, before shading
    pips: list[np.ndarray] = field(default_factory=list)  # small polygons lying on the face
    pip_colour: np.ndarray | None = None
    gloss: float = 0.25
    value: int | None = None  # the number on a die face


@dataclass
class Band:
    """The side of a round piece between two rings: ``len(bottom)`` quads drawn at once."""

    bottom: np.ndarray  # (N, 3)
    top: np.ndarray  # (N, 3)
    normals: np.ndarray  # (N, 3) outward normal of quad i (between ring points i and i+1)
    colour: np.ndarray
    gloss: float = 0.25
    seam_below: bool = False  # draw a dark seam along the visible part of the bottom ring


@dataclass
class Solid:
    faces: list[Face]
    bands: list[Band] = field(default_factory=list)
    ground_xy: tuple[float, float] = (0.0, 0.0)  # where it stands, for painter's order
    casts_shadow: bool = True
    silhouette_colour: np.ndarray | None = None  # dark body drawn under the faces (dice edges)

    @property
    def points(self) -> np.ndarray:
        return np.concatenate([f.verts for f in self.faces]
                              + [b.bottom for b in self.bands] + [b.top for b in self.bands])


def _ring(x: float, y: float, r: float, h: float, n: int, phase: float = 0.0) -> np.ndarray:
    a = phase + np.arange(n) * (2 * math.pi / n)
    return np.column_stack([x + r * np.cos(a), y + r * np.sin(a), np.full(n, h)])


def _band(bottom: np.ndarray, top: np.ndarray, colour: np.ndarray, cx: float, cy: float,
          gloss: float, seam_below: bool = False) -> Band:
    """Side quads between two rings of equal length, normals tilted for cones and bevels."""
    nxt = np.roll(np.arange(len(bottom)), -1)
    mid_b = (bottom + bottom[nxt]) / 2
    mid_t = (top + top[nxt]) / 2
    radial = mid_b[:, :2] - np.array([cx, cy])
    radial /= np.maximum(np.linalg.norm(radial, axis=1, keepdims=True), 1e-9)
    run = np.sum((mid_b[:, :2] - mid_t[:, :2]) * radial, axis=1)  # how far the ring draws in
    rise = mid_t[:, 2] - mid_b[:, 2]
    normals = np.column_stack([radial * rise[:, None], run])
    normals /= np.maximum(np.linalg.norm(normals, axis=1, keepdims=True), 1e-9)
    return Band(bottom, top, normals, colour, gloss, seam_below)


def disc(x: float, y: float, z0: float, radius: float, height: float, colour: np.ndarray,
         segments: int = 24) -> Solid:
    """A flat round stone (Just 4 Fun, Spexxx, Mühle) with a slightly rounded top edge."""
    bevel = min(1.0, height * 0.2, radius * 0.1)
    bottom = _ring(x, y, radius, z0, segments)
    mid = _ring(x, y, radius, z0 + height - bevel, segments)
    top = _ring(x, y, radius - bevel, z0 + height, segments)
    bands = [_band(bottom, mid, colour, x, y, 0.2, seam_below=True),
             _band(mid, top, colour, x, y, 0.3)]
    return Solid([Face(top, UP.copy(), colour, gloss=0.35)], bands, ground_xy=(x, y))


def roof(x: float, y: float, z0: float, radius: float, height: float, colour: np.ndarray,
         segments: int = 24) -> Solid:
    """A Cuatro roof: a short wall with a cone on top. Roofs nest, so the next one up starts
    at ``z0 + wall`` (see :func:`roof_pitch`) and hides this one's cone."""
    wall = roof_pitch(height)
    bottom = _ring(x, y, radius, z0, segments)
    eave = _ring(x, y, radius, z0 + wall, segments)
    apex_ring = _ring(x, y, radius * 0.08, z0 + height, segments)
    bands = [_band(bottom, eave, colour, x, y, 0.2, seam_below=True),
             _band(eave, apex_ring, colour, x, y, 0.35)]
    return Solid([Face(apex_ring, UP.copy(), colour)], bands, ground_xy=(x, y))


def roof_pitch(height: float) -> float:
    """Rise per roof in a nested tower."""
    return height * 0.45


def piece_pitch(shape: str, height: float) -> float:
    return roof_pitch(height) if shape == "roof" else height


_PIECE_TEMPLATES: dict[tuple[str, float, float], Solid] = {}


def piece(shape: str, x: float, y: float, level: int, diameter: float, height: float,
          colour: np.ndarray) -> Solid:
    """The ``level``-th piece (0 = bottom) of a tower of the layout's piece shape.

    All pieces of a game share one shape, so it is built once at the origin and moved."""
    key = (shape, diameter, height)
    template = _PIECE_TEMPLATES.get(key)
    if template is None:
        make = roof if shape == "roof" else disc
        segments = 16 if diameter < 20 else 24  # small stones are only a few pixels wide
        template = make(0.0, 0.0, 0.0, diameter / 2.0, height, np.zeros(3), segments)
        _PIECE_TEMPLATES[key] = template
    off = np.array([x, y, level * piece_pitch(shape, height)])
    return Solid(
        [Face(f.verts + off, f.normal, colour, gloss=f.gloss) for f in template.faces],
        [Band(b.bottom + off, b.top + off, b.normals, colour, b.gloss, b.seam_below)
         for b in template.bands],
        ground_xy=(x, y),
    )


# -- dice ---------------------------------------------------------------------------------
#: Face normals of a standard die in its own frame and the value on each (opposites sum 7).
_DIE_FACES = {
    1: np.array([0.0, 0.0, 1.0]), 6: np.array([0.0, 0.0, -1.0]),
    2: np.array([1.0, 0.0, 0.0]), 5: np.array([-1.0, 0.0, 0.0]),
    3: np.array([0.0, 1.0, 0.0]), 4: np.array([0.0, -1.0, 0.0]),
}


def _rotations() -> list[np.ndarray]:
    mats = []
    for perm in itertools.permutations(range(3)):
        for signs in itertools.product((1, -1), repeat=3):
            m = np.zeros((3, 3))
            for row, (col, sign) in enumerate(zip(perm, signs, strict=True)):
                m[row, col] = sign
            if np.linalg.det(m) > 0:
                mats.append(m)
    return mats


_UPRIGHT = {
    v: next(m for m in _rotations() if np.allclose(m @ n, UP)) for v, n in _DIE_FACES.items()
}


def _rot_z(deg: float) -> np.ndarray:
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _rot_x(deg: float) -> np.ndarray:
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def _rounded_square(corner: float, half: float, steps: int = 3) -> np.ndarray:
    """A rounded square (2D, centred) of half-size ``half`` and corner radius ``corner``."""
    pts = []
    inner = half - corner
    for k, (sx, sy) in enumerate(((1, 1), (-1, 1), (-1, -1), (1, -1))):
        for s in range(steps + 1):
            a = (k + s / steps) * (math.pi / 2)
            pts.append((inner * sx + corner * math.cos(a), inner * sy + corner * math.sin(a)))
    return np.array(pts)


# Real dice have well-rounded edges: the flat face stops short of the cube's outline.
_SQUARE = _rounded_square(0.2, 0.48)
_SQUARE_HULL = _rounded_square(0.26, 0.51)
_PIP = np.column_stack([np.cos(np.linspace(0, 2 * math.pi, 12, endpoint=False)),
                        np.sin(np.linspace(0, 2 * math.pi, 12, endpoint=False))])


def die_rotation(value: int, angle_deg: float, leaning: bool) -> np.ndarray:
    rot = _rot_z(angle_deg) @ _UPRIGHT[value]
    if leaning:
        rot = _rot_z(angle_deg) @ _rot_x(22.0) @ _rot_z(-angle_deg) @ rot
    return rot


def die(x: float, y: float, value: int, angle_deg: float, size: float, body: np.ndarray,
        pips: np.ndarray, leaning: bool = False) -> Solid:
    """A die with rounded edges; every face carries its pips so oblique views show sides."""
    rot = die_rotation(value, angle_deg, leaning)
    faces = []
    hull_pts = []
    for v, n_local in _DIE_FACES.items():
        # In-face axes: any two unit vectors orthogonal to the normal.
        u_local = np.array([0.0, 0.0, 1.0]) if abs(n_local[2]) < 0.5 else np.array([1.0, 0, 0])
        w_local = np.cross(n_local, u_local)
        n, u, w = rot @ n_local, rot @ u_local, rot @ w_local
        centre = n * size / 2

        def on_face(pts2d: np.ndarray, centre=centre, u=u, w=w) -> np.ndarray:
            return centre + pts2d[:, :1] * size * u + pts2d[:, 1:2] * size * w

        verts = on_face(_SQUARE)
        hull_pts.append(on_face(_SQUARE_HULL))
        pip_polys = [on_face(_PIP * 0.078 + np.array(p) * 0.26) for p in PIP_LAYOUT[v]]
        faces.append(Face(verts, n, body, pip_polys, pips, gloss=0.3, value=v))
    lift = -min(p[:, 2].min() for p in hull_pts)
    offset = np.array([x, y, lift])
    for f in faces:
        f.verts = f.verts + offset
        f.pips = [p + offset for p in f.pips]
    hull = np.concatenate(hull_pts) + offset
    # The hull face never shows: it only gives the dark rounded silhouette and the shadow.
    hull_face = Face(hull, -UP, body * 0.5)
    return Solid(faces + [hull_face], ground_xy=(x, y), silhouette_colour=body * 0.7)


def flat_card(x: float, y: float, half_w: float, half_h: float, angle_deg: float,
              colour: np.ndarray, thickness: float = 0.6) -> Solid:
    """A card or coaster lying on the table (used to cover a marker)."""
    a = math.radians(angle_deg)
    c, s = math.cos(a), math.sin(a)
    corners = np.array([[-half_w, -half_h], [half_w, -half_h], [half_w, half_h],
                        [-half_w, half_h]]) @ np.array([[c, s], [-s, c]]) + np.array([x, y])
    top = np.column_stack([corners, np.full(4, thickness)])
    return Solid([Face(top, UP.copy(), colour, gloss=0.1)], ground_xy=(x, y))


def shade(colour: np.ndarray, normals: np.ndarray, light: np.ndarray, ambient: float,
          gloss: np.ndarray | float) -> np.ndarray:
    """Lambert shading plus a touch of sheen on glossy faces, for many faces at once:
    ``colour`` (..., 3) base BGR, ``normals`` (..., 3), ``gloss`` broadcastable to (..., 1)."""
    lam = np.maximum(0.0, normals @ light)[..., None]
    return np.clip(colour * (ambient + (1.0 - ambient) * lam) + 76.5 * gloss * lam ** 8, 0, 255)


def fill(img: np.ndarray, px: np.ndarray, colour) -> None:
    """Anti-aliased convex polygon at sub-pixel precision."""
    cv2.fillConvexPoly(img, np.round(px * 16).astype(np.int32), tuple(float(c) for c in colour),
                       cv2.LINE_AA, 4)
