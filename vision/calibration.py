"""Colour calibration: which colour is which player, robust to light and white balance.

Every frame carries its own grey scale: the four markers are pure black and white
print. Dividing each colour channel by the markers' white (after removing their black)
cancels white balance and exposure, so a red roof reads the same under a warm lamp as
in daylight. Player colours are then compared in Lab (perceptual, so one distance
threshold fits all hues). A calibration is learned from a setup frame with one piece
per player on known fields, or taken from the layout's nominal piece colours.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision.errors import VisionError
from vision.markers import project
from vision.pose import Camera

if TYPE_CHECKING:  # the layout's data model is the rules core's; vision only reads it
    from companion.layout import Layout, MarkerSpec


class CalibrationError(VisionError):
    """A colour calibration that is missing, unreadable or cannot be learned."""


def hex_to_bgr(colour: str) -> tuple[int, int, int]:
    text = colour.lstrip("#")
    if len(text) != 6:
        raise CalibrationError(f"colour {colour!r} is not #rrggbb")
    r, g, b = (int(text[i:i + 2], 16) for i in (0, 2, 4))
    return (b, g, r)


def bgr_to_lab(bgr: tuple[int, int, int] | np.ndarray) -> np.ndarray:
    """One BGR colour (0-255) -> OpenCV 8-bit Lab (L, a, b all 0-255, a/b centred at 128)."""
    pixel = np.asarray(bgr, dtype=np.uint8).reshape(1, 1, 3)
    return cv2.cvtColor(pixel, cv2.COLOR_BGR2Lab).reshape(3).astype(np.float64)


def lab_to_bgr(lab: np.ndarray) -> np.ndarray:
    """One OpenCV 8-bit Lab colour -> BGR (0-255, float), the inverse of :func:`bgr_to_lab`."""
    pixel = np.uint8(np.clip(lab, 0, 255)).reshape(1, 1, 3)
    return cv2.cvtColor(pixel, cv2.COLOR_Lab2BGR).reshape(3).astype(np.float64)


@dataclass
class ColourCalibration:
    """Player colour name -> its colour in normalised 8-bit Lab."""

    colours: dict[str, tuple[float, float, float]]
    source: str = "layout"
    notes: dict[str, str] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"<ColourCalibration {', '.join(self.colours)} from {self.source}>"

    @classmethod
    def default(cls, layout: Layout, players: list[str] | None = None) -> ColourCalibration:
        """The layout's nominal piece colours (printed hex values), for use without setup."""
        names = players or list(layout.piece_colours)
        unknown = [p for p in names if p not in layout.piece_colours]
        if unknown:
            raise CalibrationError(
                f"{layout.title} has no piece colour {', '.join(unknown)} "
                f"(known: {', '.join(layout.piece_colours)})")
        return cls({p: tuple(bgr_to_lab(hex_to_bgr(layout.piece_colours[p]))) for p in names},
                   "layout")

    def only(self, players: list[str]) -> ColourCalibration:
        missing = [p for p in players if p not in self.colours]
        if missing:
            raise CalibrationError(f"the calibration has no colour for {', '.join(missing)}")
        return ColourCalibration({p: self.colours[p] for p in players}, self.source)

    def save(self, path: str | Path) -> None:
        data = {"source": self.source,
                "colours_lab": {k: [round(v, 2) for v in lab] for k, lab in self.colours.items()}}
        Path(path).write_text(json.dumps(data, indent=1), encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> ColourCalibration:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
            colours = {str(k): tuple(float(x) for x in v)
                       for k, v in data["colours_lab"].items()}
        except OSError as exc:
            raise CalibrationError(f"cannot read calibration {path}: {exc.strerror}") from None
        except (ValueError, KeyError, TypeError, AttributeError):
            raise CalibrationError(f"{path} is not a colour calibration file") from None
        if not colours or any(len(v) != 3 for v in colours.values()):
            raise CalibrationError(f"{path}: every colour needs three Lab values")
        return cls(colours, str(data.get("source", path)))


@dataclass(frozen=True)
class Levels:
    """The frame's black and white (BGR) as printed on the markers."""

    black: np.ndarray
    white: np.ndarray

    @property
    def contrast(self) -> float:
        return float((self.white - self.black).min())

    def matrix(self) -> np.ndarray:
        """3x4 affine for cv2.transform mapping black -> 0 and white -> 255 per channel."""
        gain = 255.0 / np.maximum(self.white - self.black, 1.0)
        return np.column_stack([np.diag(gain), -gain * self.black]).astype(np.float32)


_CELLS_CACHE: dict[tuple[str, int], np.ndarray] = {}


def _marker_cells(dictionary: str, marker_id: int) -> np.ndarray:
    """6x6 cell pattern (border included) of a marker: True where printed white."""
    key = (dictionary, marker_id)
    if key not in _CELLS_CACHE:
        aruco_dict = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
        _CELLS_CACHE[key] = cv2.aruco.generateImageMarker(aruco_dict, marker_id, 6) > 127
    return _CELLS_CACHE[key]


def marker_sample_points(layout: Layout, marker_ids: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Board-mm centres of the black and of the white cells of the given markers
    (read-only arrays: they are kept for the next frame)."""
    return _sample_points(layout.markers, tuple(marker_ids))


@functools.lru_cache(maxsize=64)
def _sample_points(spec: MarkerSpec, marker_ids: tuple[int, ...]
                   ) -> tuple[np.ndarray, np.ndarray]:
    black, white = [], []
    centres = dict(zip(spec.ids, spec.centres_mm, strict=True))
    cell = spec.size_mm / 6
    rows, cols = np.indices((6, 6))
    offsets = np.stack([cols + 0.5, rows + 0.5], axis=-1) * cell - spec.size_mm / 2
    for marker_id in marker_ids:
        cells = _marker_cells(spec.dictionary, marker_id)
        points = offsets + np.asarray(centres[marker_id], dtype=np.float64)
        white.append(points[cells])
        black.append(points[~cells])
    points = np.concatenate(black).reshape(-1, 2), np.concatenate(white).reshape(-1, 2)
    for array in points:
        array.setflags(write=False)
    return points


def frame_levels(frame: np.ndarray, homography: np.ndarray, camera: Camera, layout: Layout,
                 marker_ids: list[int] | None = None) -> Levels:
    """Median black and white of the (visible) markers in a BGR frame."""
    ids = list(marker_ids) if marker_ids else list(layout.markers.ids)
    black_mm, white_mm = marker_sample_points(layout, ids)
    height, width = frame.shape[:2]

    def sample(points_mm: np.ndarray) -> np.ndarray:
        px = np.rint(camera.distort(project(homography, points_mm))).astype(int)
        inside = (px[:, 0] >= 0) & (px[:, 0] < width) & (px[:, 1] >= 0) & (px[:, 1] < height)
        if not inside.any():
            raise VisionError("the board markers are outside the frame")
        return np.median(frame[px[inside, 1], px[inside, 0]].astype(np.float64), axis=0)

    return Levels(sample(black_mm), sample(white_mm))


def image_levels(frame: np.ndarray, black_level: float, white_pct: float) -> Levels:
    """The stand-in for a board without markers (corners given by hand): white is the mean
    colour of the frame's brightest pixels (grey above ``white_pct``), black a fixed level
    (a frame need not hold anything black); the board's own colours correct the cast later."""
    grey = cv2.cvtColor(frame[::4, ::4], cv2.COLOR_BGR2GRAY).ravel()
    bright = frame[::4, ::4].reshape(-1, 3)[grey >= np.percentile(grey, white_pct)]
    return Levels(np.full(3, black_level), bright.astype(np.float64).mean(axis=0))


def normalise(image: np.ndarray, levels: Levels) -> np.ndarray:
    """Stretch each channel so the markers' black is 0 and their white is 255."""
    return cv2.transform(image, levels.matrix())


def clipped_variants(image: np.ndarray, normalised: np.ndarray, levels: Levels,
                     tolerance: float, within: np.ndarray | None = None
                     ) -> tuple[np.ndarray, list[np.ndarray]]:
    """Other values ``normalised`` (from the raw ``image``) may have had: a channel at or
    above the markers' white (within ``tolerance``) was clipped, by an overexposed camera
    (whose white on the markers clips first) or by normalising to 8 bits, so all that is
    known of it is that it was at least that bright. Scaled down by the board's cast like
    the others, an orange field's clipped red fell below its green's share and the field
    read yellow. Returns the flat indices of the pixels with such a channel, and their
    normalised colours (N, 3) with those channels half way to white and at white, in Lab
    (what :meth:`vision.fields.ColourClasses.label` takes as ``alternatives``); only
    those ``within`` (sorted flat pixel indices) when given: only those are compared."""
    # integer values at or above white - tolerance: an 8-bit threshold, no float image
    threshold = np.clip(np.ceil(levels.white - tolerance), 0, 255).astype(np.uint8)
    flat = image.reshape(-1, 3)
    # np.take and the channels or-ed by hand: fancy indexing and any(axis=1) on three
    # columns took several times as long
    clipped = (flat if within is None else np.take(flat, within, axis=0)) >= threshold
    wanted = np.flatnonzero(clipped[:, 0] | clipped[:, 1] | clipped[:, 2])
    index = wanted if within is None else within[wanted]
    if not len(index):
        return index, []
    clipped = np.take(clipped, wanted, axis=0)
    colours = np.take(normalised.reshape(-1, 3), index, axis=0)
    half = np.where(clipped, colours // 2 + 128, colours)
    white = np.where(clipped, np.uint8(255), colours)
    return index, [to_lab(v.reshape(-1, 1, 3)).reshape(-1, 3) for v in (half, white)]


def to_lab(normalised_bgr: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(normalised_bgr, cv2.COLOR_BGR2Lab)
