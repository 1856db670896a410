"""The marker sheet: the four board markers at true size on one A4 page, as a PDF.

The page is drawn as a raster (``PX_PER_MM`` pixels per millimetre) and embedded in a
minimal hand-written PDF whose MediaBox is exactly A4, with the image scaled to the
whole page, so a print at 100 % ("actual size") gives markers of the layout's size.
A 100 mm ruler on the page lets the user check that.
"""

from __future__ import annotations

import zlib
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

if TYPE_CHECKING:  # the layout's data model is the rules core's; vision only reads it
    from companion.layout import Layout


A4_MM = (210.0, 297.0)
PX_PER_MM = 12  # ~305 dpi: marker cells (4 mm) get 48 px, edges stay crisp
QUIET_MM = 5.0  # white border each marker needs around it
CORNER_NAMES = ("top-left", "top-right", "bottom-right", "bottom-left")
_FONT = cv2.FONT_HERSHEY_SIMPLEX


def placement_text(layout: Layout, index: int) -> str:
    """Where marker ``index`` goes, relative to the nearest board corner, in words."""
    w, h = layout.board_size_mm
    corner = [(0.0, 0.0), (w, 0.0), (w, h), (0.0, h)][index]
    cx, cy = layout.markers.centres_mm[index]
    dx, dy = cx - corner[0], cy - corner[1]
    horiz = f"{abs(dx):g} mm {'left' if dx < 0 else 'right'}" if dx else "level"
    vert = f"{abs(dy):g} mm {'above' if dy < 0 else 'below'}" if dy else "level"
    return (f"{CORNER_NAMES[index]}, id {layout.markers.ids[index]}: centre {horiz} and "
            f"{vert} the board corner")


def marker_sheet(layout: Layout) -> np.ndarray:
    """The A4 page as a grey image at ``PX_PER_MM``."""
    s = PX_PER_MM
    page = np.full((int(A4_MM[1] * s), int(A4_MM[0] * s)), 255, np.uint8)
    spec = layout.markers
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, spec.dictionary))
    side = int(round(spec.size_mm * s))
    card = spec.size_mm + 2 * QUIET_MM

    def text(line: str, x_mm: float, y_mm: float, size: float = 0.9, weight: int = 2) -> None:
        cv2.putText(page, line, (int(x_mm * s), int(y_mm * s)), _FONT, size * s / 12, 0,
                    weight, cv2.LINE_AA)

    text(f"{layout.title}: board markers ({spec.dictionary}, {spec.size_mm:g} mm)", 15, 20, 1.2)
    text("Print at 100 % / actual size. Check: the ruler below must measure 100 mm.", 15, 28)
    text("Cut along the dashed lines; glue each card so the marker is upright as the", 15, 35)
    text("players at the bottom edge see the board.", 15, 41)
    _ruler(page, 15, 48, s)
    for index in range(4):
        col, row = index % 2 if index < 2 else 1 - index % 2, index // 2
        x0 = 25 + col * 95
        y0 = 75 + row * 105
        marker = cv2.aruco.generateImageMarker(dictionary, spec.ids[index], side, borderBits=1)
        mx, my = int(round((x0 + QUIET_MM) * s)), int(round((y0 + QUIET_MM) * s))
        page[my:my + side, mx:mx + side] = marker
        _dashed_rectangle(page, x0, y0, x0 + card, y0 + card, s)
        _cut_marks(page, x0, y0, x0 + card, y0 + card, s)
        _corner_arrow(page, index, x0, y0, card, s)
        words = placement_text(layout, index)
        head, _, tail = words.partition(": ")
        text(head, x0, y0 + card + 8, 0.9)
        for k, chunk in enumerate(_wrap(tail, 34)):
            text(chunk, x0, y0 + card + 15 + 6 * k, 0.75, 1)
    return page


def _wrap(line: str, width: int) -> list[str]:
    words, out, current = line.split(), [], ""
    for word in words:
        if current and len(current) + 1 + len(word) > width:
            out.append(current)
            current = word
        else:
            current = f"{current} {word}".strip()
    return out + [current] if current else out


def _ruler(page: np.ndarray, x_mm: float, y_mm: float, s: int) -> None:
    y = int(y_mm * s)
    cv2.line(page, (int(x_mm * s), y), (int((x_mm + 100) * s), y), 0, 2)
    for mm in range(0, 101, 5):
        tick = 4 if mm % 10 == 0 else 2
        x = int((x_mm + mm) * s)
        cv2.line(page, (x, y), (x, y - tick * s), 0, 2)
    cv2.putText(page, "0", (int(x_mm * s) - 8, y + 5 * s), _FONT, 0.6 * s / 12, 0, 1)
    cv2.putText(page, "100 mm", (int((x_mm + 95) * s), y + 5 * s), _FONT, 0.6 * s / 12, 0, 1)


def _dashed_rectangle(page, x0, y0, x1, y1, s) -> None:
    for (ax, ay), (bx, by) in [((x0, y0), (x1, y0)), ((x1, y0), (x1, y1)),
                               ((x1, y1), (x0, y1)), ((x0, y1), (x0, y0))]:
        length = max(abs(bx - ax), abs(by - ay))
        steps = int(length // 2)
        for k in range(0, steps, 2):
            t0, t1 = k / steps, min(1.0, (k + 1) / steps)
            p0 = (int((ax + (bx - ax) * t0) * s), int((ay + (by - ay) * t0) * s))
            p1 = (int((ax + (bx - ax) * t1) * s), int((ay + (by - ay) * t1) * s))
            cv2.line(page, p0, p1, 120, 1)


def _cut_marks(page, x0, y0, x1, y1, s) -> None:
    """Crop marks just outside each card corner."""
    for x, sx in ((x0, -1), (x1, 1)):
        for y, sy in ((y0, -1), (y1, 1)):
            cv2.line(page, (int((x + sx * 2) * s), int(y * s)), (int((x + sx * 6) * s),
                     int(y * s)), 0, 2)
            cv2.line(page, (int(x * s), int((y + sy * 2) * s)), (int(x * s),
                     int((y + sy * 6) * s)), 0, 2)


def _corner_arrow(page, index, x0, y0, card, s) -> None:
    """A small arrow outside the card pointing to where the board corner lies."""
    toward = [(1, 1), (-1, 1), (-1, -1), (1, -1)][index]
    cx, cy = x0 + card / 2, y0 + card / 2
    start = (cx + toward[0] * (card / 2 + 3), cy + toward[1] * (card / 2 + 3))
    end = (start[0] + toward[0] * 6, start[1] + toward[1] * 6)
    cv2.arrowedLine(page, (int(start[0] * s), int(start[1] * s)),
                    (int(end[0] * s), int(end[1] * s)), 0, 2, cv2.LINE_AA, 0, 0.35)


def write_pdf(page: np.ndarray, path: str | Path, size_mm: tuple[float, float] = A4_MM) -> None:
    """Write a grey page image as a one-page PDF of exactly ``size_mm``."""
    width_pt, height_pt = (v / 25.4 * 72 for v in size_mm)
    rows, cols = page.shape
    image = zlib.compress(np.ascontiguousarray(page).tobytes(), 9)
    content = f"q {width_pt:.4f} 0 0 {height_pt:.4f} 0 0 cm /Im0 Do Q".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {width_pt:.4f} {height_pt:.4f}] "
         f"/Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>").encode(),
        (f"<< /Type /XObject /Subtype /Image /Width {cols} /Height {rows} /ColorSpace "
         f"/DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /Length {len(image)} >>\n"
         f"stream\n").encode() + image + b"\nendstream",
        f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += (f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n"
            f"%%EOF\n").encode()
    Path(path).write_bytes(bytes(out))
