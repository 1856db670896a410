"""Aligning the printed board to a frame, to pin what two markers leave loose.

Two adjacent markers leave the board free to swing about the line through them. The
board's own print (its outline against the table, its coloured squares, Mühle's lines)
pins that swing: :func:`align_to_print` rectifies the frame with the two-marker
homography, and refines it by ECC (OpenCV's ``findTransformECC``, a homography) against a
grey picture of the print built from the layout, leaving out the pixels that do not look
like the print (pieces, a hand); or on the two pictures' gradient magnitude (``edges``:
Mühle's three-marker boards where grey places them nowhere; its 1.6 mm lines are under
a pixel at the coarse stage's scale, and ECC in grey failed on many). The result
is believed only when it agrees with the two markers (``markers.print_disagreement``)
and the print matches the frame better there than where the markers alone put it
(:func:`print_match`, in grey); see ``markers.Localiser``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision.calibration import hex_to_bgr
from vision.config import VisionConfig
from vision.pose import Camera

if TYPE_CHECKING:  # the layout's data model is the rules core's; vision only reads it
    from companion.layout import Layout

#: ITU-R BT.601 luma weights (B, G, R), as ``cv2.COLOR_BGR2GRAY`` uses.
_LUMA = np.array([0.114, 0.587, 0.299])


def _grey(colour_hex: str) -> float:
    return float(np.dot(hex_to_bgr(colour_hex), _LUMA))


_TEMPLATES: dict[tuple, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}


def print_template(layout: Layout, px_per_mm: float, margin_mm: float, board_hex: str
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cached per layout file: see :func:`_draw_template`."""
    key = (layout.source, layout.game, px_per_mm, margin_mm, board_hex)
    if key not in _TEMPLATES:
        _TEMPLATES[key] = _draw_template(layout, px_per_mm, margin_mm, board_hex)
    return _TEMPLATES[key]


def _draw_template(layout: Layout, px_per_mm: float, margin_mm: float, board_hex: str
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The empty board's print in grey, as the layout describes it (board colour, field
    colours, printed lines and points), ``margin_mm`` of table around it; a mask of the
    board itself; and the 3x3 map from template px to board mm."""
    w, h = layout.board_size_mm
    size = (int(round((h + 2 * margin_mm) * px_per_mm)),
            int(round((w + 2 * margin_mm) * px_per_mm)))
    template = np.zeros(size, np.float32)
    board = np.zeros(size, np.uint8)

    def at(x_mm: float, y_mm: float) -> tuple[int, int]:  # 1/16 px for cv2's shift=4
        return (int(round((x_mm + margin_mm) * px_per_mm * 16)),
                int(round((y_mm + margin_mm) * px_per_mm * 16)))

    colours = dict(layout.field_colours)
    cv2.rectangle(template, at(0, 0), at(w, h), _grey(colours.get("board", board_hex)), -1,
                  cv2.LINE_AA, 4)
    cv2.rectangle(board, at(0, 0), at(w, h), 1, -1, cv2.LINE_8, 4)
    for fld in layout.fields.values():
        if fld.printed in colours and fld.printed != "board":
            half = fld.size_mm / 2
            cv2.rectangle(template, at(fld.x_mm - half, fld.y_mm - half),
                          at(fld.x_mm + half, fld.y_mm + half), _grey(colours[fld.printed]),
                          -1, cv2.LINE_AA, 4)
    printed = layout.extra.get("printed_lines")
    if printed and "lines" in colours:
        ink = _grey(colours["lines"])
        thickness = max(1, int(round(printed["width_mm"] * px_per_mm)))
        for mill in layout.extra.get("mills", []):
            for a, b in zip(mill, mill[1:], strict=False):
                fa, fb = layout.fields[a], layout.fields[b]
                cv2.line(template, at(fa.x_mm, fa.y_mm), at(fb.x_mm, fb.y_mm), ink, thickness,
                         cv2.LINE_AA, 4)
        radius = int(round(printed["point_radius_mm"] * px_per_mm * 16))
        for fld in layout.fields.values():
            cv2.circle(template, at(fld.x_mm, fld.y_mm), radius, ink, -1, cv2.LINE_AA, 4)
    to_mm = np.array([[1 / px_per_mm, 0, -margin_mm], [0, 1 / px_per_mm, -margin_mm],
                      [0, 0, 1]])
    template.flags.writeable = False
    board.flags.writeable = False
    return template, board, to_mm


def _rectify(gray: np.ndarray, camera: Camera, homography: np.ndarray, to_mm: np.ndarray,
             shape: tuple[int, ...]) -> np.ndarray:
    """The grey frame seen through ``homography`` on the template's grid (float32)."""
    height, width = shape[:2]
    xs, ys = np.meshgrid(np.arange(width), np.arange(height))
    grid = np.stack([xs.ravel(), ys.ravel(), np.ones(xs.size)])
    ideal = (homography @ to_mm) @ grid
    raw = camera.distort((ideal[:2] / ideal[2]).T).astype(np.float32)
    return cv2.remap(gray, raw[:, 0].reshape(height, width), raw[:, 1].reshape(height, width),
                     cv2.INTER_LINEAR).astype(np.float32)


def _with_table(template: np.ndarray, board: np.ndarray, seen: np.ndarray) -> np.ndarray:
    """The template with its margin in the table's grey as seen (the layout has none)."""
    template = template.copy()
    table = board == 0
    template[table] = np.median(seen[table])
    return template


def align_to_print(gray: np.ndarray, layout: Layout, camera: Camera, homography: np.ndarray,
                   config: VisionConfig, px_per_mm: float | None = None,
                   iterations: int | None = None,
                   left_out: tuple[np.ndarray, float] | None = None,
                   edges: bool = False) -> np.ndarray | None:
    """The board-mm -> undistorted-px homography that lines the print up with the grey
    frame (or, ``edges``, their gradient magnitudes), started from ``homography``; None
    when ECC does not converge. ``px_per_mm`` and ``iterations`` default to the config's;
    ``left_out`` (a point in board mm and a radius, mm) is a disc ECC does not look at
    (what covers a marker lies there)."""
    px_per_mm = px_per_mm or config.print_align_px_per_mm
    template, board, to_mm = print_template(layout, px_per_mm, config.print_align_margin_mm,
                                            config.default_board_hex)
    seen = _rectify(gray, camera, homography, to_mm, template.shape)
    template = _with_table(template, board, seen)
    if edges:
        template, seen = _edges(template), _edges(seen)
    # Leave out what does not look like the print after a gain and offset (pieces, hands).
    design = np.stack([template.ravel(), np.ones(template.size)], axis=1)
    gain, offset = np.linalg.lstsq(design, seen.ravel(), rcond=None)[0]
    residual = np.abs(seen - (gain * template + offset))
    level = max(config.print_align_outlier_mads * 1.4826 * float(np.median(residual)),
                config.print_align_outlier_min)
    mask = (residual < level).astype(np.uint8)
    if left_out is not None:
        centre_mm, radius_mm = left_out
        x, y, _ = np.linalg.inv(to_mm) @ [*centre_mm, 1.0]
        cv2.circle(mask, (int(round(x)), int(round(y))), int(round(radius_mm * px_per_mm)), 0,
                   -1)
    criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT,
                iterations or config.print_align_iterations, config.print_align_eps)
    try:
        _, warp = cv2.findTransformECC(template, seen, np.eye(3, dtype=np.float32),
                                       cv2.MOTION_HOMOGRAPHY, criteria, mask,
                                       config.print_align_blur)
    except cv2.error:  # did not converge: the print is not where the markers say
        return None
    # template px u shows what the frame shows at homography(to_mm(warp(u)))
    refined = homography @ to_mm @ warp.astype(np.float64) @ np.linalg.inv(to_mm)
    return refined / refined[2, 2]


def _edges(image: np.ndarray) -> np.ndarray:
    """The gradient magnitude (3x3 Sobel): a thin line's two edges, whatever its grey."""
    dx = cv2.Sobel(image, cv2.CV_32F, 1, 0, ksize=3)
    dy = cv2.Sobel(image, cv2.CV_32F, 0, 1, ksize=3)
    return cv2.magnitude(dx, dy)


def print_match(gray: np.ndarray, layout: Layout, camera: Camera, homography: np.ndarray,
                config: VisionConfig) -> float:
    """How well the print matches the frame where ``homography`` puts it: the mean
    product of the two after local contrast normalisation (a Gaussian of
    ``print_match_sigma_mm``), so that each printed edge counts, whatever the light and
    the colours' contrast in grey. Pieces and hands lower it wherever the board lies."""
    template, board, to_mm = print_template(layout, config.print_align_px_per_mm,
                                            config.print_align_margin_mm,
                                            config.default_board_hex)
    seen = _rectify(gray, camera, homography, to_mm, template.shape)
    template = _with_table(template, board, seen)
    sigma = config.print_match_sigma_mm * config.print_align_px_per_mm
    flat = config.print_match_flat_variance
    return float((_local_contrast(template, sigma, flat)
                  * _local_contrast(seen, sigma, flat)).mean())


def _local_contrast(image: np.ndarray, sigma: float, flat: float) -> np.ndarray:
    detail = image - cv2.GaussianBlur(image, (0, 0), sigma)
    return detail / np.sqrt(cv2.GaussianBlur(detail * detail, (0, 0), sigma) + flat)
