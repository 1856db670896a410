"""Flat artwork in board millimetres: the printed board and the ArUco marker cards.

Each is drawn once per layout as a texture at ``PX_PER_MM`` and then warped into every frame
with the true board->pixel homography, so printed detail stays sharp at any pose.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

import cv2
import numpy as np

if TYPE_CHECKING:  # the layout's data model is the rules core's; vision only reads it
    from companion.layout import Field, Layout


PX_PER_MM = 3.0
QUIET_MM = 5.0  # white border around each marker, as printed on a card
DEFAULT_BOARD_HEX = "#ece6d6"


def hex_to_bgr(value: str) -> tuple[int, int, int]:
    v = value.lstrip("#")
    if len(v) != 6:
        raise ValueError(f"colour {value!r} is not #rrggbb")
    r, g, b = (int(v[i:i + 2], 16) for i in (0, 2, 4))
    return (b, g, r)


def mm_to_texture(origin_mm: tuple[float, float]) -> np.ndarray:
    """3x3 map from board mm to texture pixel coordinates (pixel centres at integers)."""
    s = PX_PER_MM
    return np.array([[s, 0, -origin_mm[0] * s - 0.5], [0, s, -origin_mm[1] * s - 0.5], [0, 0, 1]])


def _p(x_mm: float, y_mm: float) -> tuple[int, int]:
    """Texture point in 1/16 px fixed point for cv2's ``shift=4`` drawing."""
    s = PX_PER_MM
    return (int(round((x_mm * s - 0.5) * 16)), int(round((y_mm * s - 0.5) * 16)))


def _field_colour(layout: Layout, fld: Field) -> tuple | None:
    """The colour the layout says the field's square is printed in (``Field.printed``),
    the one the board reader expects there too."""
    name = fld.printed
    if name is not None and name in layout.field_colours:
        return hex_to_bgr(layout.field_colours[name])
    return None


_BOARD_CACHE: dict[tuple[str, str], np.ndarray] = {}


def board_texture(layout: Layout) -> np.ndarray:
    """The printed board (BGR, board_size_mm * PX_PER_MM), cached per layout file."""
    key = (layout.source, layout.game)
    if key not in _BOARD_CACHE:
        _BOARD_CACHE[key] = _draw_board(layout)
    return _BOARD_CACHE[key]


def _draw_board(layout: Layout) -> np.ndarray:
    w_mm, h_mm = layout.board_size_mm
    s = PX_PER_MM
    board = hex_to_bgr(layout.field_colours.get("board", DEFAULT_BOARD_HEX))
    img = np.empty((int(round(h_mm * s)), int(round(w_mm * s)), 3), np.uint8)
    img[:] = board
    # Printed boards darken a little towards their rim and carry a thin frame line.
    dark = tuple(int(c * 0.55) for c in board)
    cv2.rectangle(img, _p(4, 4), _p(w_mm - 4, h_mm - 4), dark, 2, cv2.LINE_AA, 4)
    if layout.game == "muehle":
        _draw_muehle(img, layout)
    else:
        _draw_grid_fields(img, layout, board)
    # Printed cardboard is not flat colour: faint blotches and grain (fixed per layout).
    rng = np.random.default_rng(17)
    h, w = img.shape[:2]
    blotch = cv2.resize(rng.normal(0, 1, (h // 60 + 2, w // 60 + 2)).astype(np.float32), (w, h),
                        interpolation=cv2.INTER_CUBIC)
    grain = rng.normal(0, 1, (h, w)).astype(np.float32)
    texture = 1.0 + 0.025 * blotch + 0.02 * grain
    return np.clip(img * texture[..., None], 0, 255).astype(np.uint8)


def _draw_grid_fields(img: np.ndarray, layout: Layout, board: tuple[int, int, int]) -> None:
    symbols = layout.game == "cuatro"
    ink = (40, 40, 40)
    for f in layout.fields.values():
        half = f.size_mm / 2.0
        colour = _field_colour(layout, f)
        tl, br = _p(f.x_mm - half, f.y_mm - half), _p(f.x_mm + half, f.y_mm + half)
        if colour is not None:
            cv2.rectangle(img, tl, br, colour, -1, cv2.LINE_AA, 4)
        edge = tuple(int(c * 0.5) for c in (colour or board))
        cv2.rectangle(img, tl, br, edge, 1, cv2.LINE_AA, 4)
        if not f.attrs.get("playable", True):
            a, b = _p(f.x_mm - half * 0.6, f.y_mm - half * 0.6), _p(f.x_mm + half * 0.6,
                                                                     f.y_mm + half * 0.6)
            cv2.line(img, a, b, edge, 1, cv2.LINE_AA, 4)
        if symbols:
            _draw_symbol(img, str(f.attrs.get("symbol", "")), f.x_mm, f.y_mm, f.size_mm, ink)


def _draw_symbol(img, symbol: str, x: float, y: float, size: float, ink) -> None:
    """Cuatro's field symbols: a pair shows two small dice of its number, the rest a label."""
    s = PX_PER_MM
    if len(symbol) == 2 and symbol[0] == "P" and symbol[1].isdigit():
        n = int(symbol[1])
        die = size * 0.3
        for dx in (-0.19, 0.19):
            cx, cy = x + dx * size, y
            cv2.rectangle(img, _p(cx - die / 2, cy - die / 2), _p(cx + die / 2, cy + die / 2),
                          ink, 1, cv2.LINE_AA, 4)
            for px, py in PIP_LAYOUT[n]:
                cv2.circle(img, _p(cx + px * die * 0.3, cy + py * die * 0.3),
                           int(round(die * 0.09 * s * 16)), ink, -1, cv2.LINE_AA, 4)
        return
    scale = size * s / 95.0
    (tw, th), _ = cv2.getTextSize(symbol, cv2.FONT_HERSHEY_DUPLEX, scale, 2)
    org = (int(x * s - tw / 2), int(y * s + th / 2))
    cv2.putText(img, symbol, org, cv2.FONT_HERSHEY_DUPLEX, scale, ink, 2, cv2.LINE_AA)


def _draw_muehle(img: np.ndarray, layout: Layout) -> None:
    lines = hex_to_bgr(layout.field_colours.get("lines", "#3b2a1a"))
    printed = layout.extra["printed_lines"]  # load_layout checks boards with mills have it
    width = int(round(printed["width_mm"] * PX_PER_MM))
    drawn: set[tuple[str, str]] = set()
    for mill in layout.extra.get("mills", []):
        for a, b in zip(mill, mill[1:], strict=False):
            if (a, b) in drawn:
                continue
            drawn.add((a, b))
            fa, fb = layout.fields[a], layout.fields[b]
            cv2.line(img, _p(fa.x_mm, fa.y_mm), _p(fb.x_mm, fb.y_mm), lines, width,
                     cv2.LINE_AA, 4)
    dot = int(round(printed["point_radius_mm"] * PX_PER_MM * 16))
    for f in layout.fields.values():
        cv2.circle(img, _p(f.x_mm, f.y_mm), dot, lines, -1, cv2.LINE_AA, 4)


@lru_cache(maxsize=64)
def marker_card(marker_id: int, size_mm: float, dictionary: str = "DICT_4X4_50") -> np.ndarray:
    """A white card with the marker in its middle, ``QUIET_MM`` of white around it."""
    s = PX_PER_MM
    side = int(round(size_mm * s))
    aruco = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    marker = cv2.aruco.generateImageMarker(aruco, marker_id, side, borderBits=1)
    q = int(round(QUIET_MM * s))
    card = np.full((side + 2 * q, side + 2 * q, 3), 245, np.uint8)
    card[q:q + side, q:q + side] = np.where(marker[..., None] > 127, 245, 22)
    return card


#: Pip positions on a unit face (coordinates in -1..1, x right, y down).
PIP_LAYOUT: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.0, 0.0),),
    2: ((-1.0, -1.0), (1.0, 1.0)),
    3: ((-1.0, -1.0), (0.0, 0.0), (1.0, 1.0)),
    4: ((-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)),
    5: ((-1.0, -1.0), (1.0, -1.0), (0.0, 0.0), (-1.0, 1.0), (1.0, 1.0)),
    6: ((-1.0, -1.0), (1.0, -1.0), (-1.0, 0.0), (1.0, 0.0), (-1.0, 1.0), (1.0, 1.0)),
}
