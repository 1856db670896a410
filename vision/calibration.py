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
                 marker_ids: list[int] | None = None,
                 glare: tuple[float, float] | None = None) -> tuple[Levels, Levels | None]:
    """Median black and white of the (visible) markers in a BGR frame; and, given
    ``glare`` (``marker_glare_black``, ``marker_glare_white_drop``), the same without the
    markers that may lie in a lamp's reflection (their black lifted over ``glare[0]``
    above the darkest marker's, their white not darker than that marker's by more than
    ``glare[1]`` times that lift), or None when no marker looks so. Two glared markers of
    four lifted the frame's black to 130 (board bench seed 1, Spexxx frame 115)."""
    ids = list(marker_ids) if marker_ids else list(layout.markers.ids)
    height, width = frame.shape[:2]

    def sample(points_mm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        px = np.rint(camera.distort(project(homography, points_mm))).astype(int)
        inside = (px[:, 0] >= 0) & (px[:, 0] < width) & (px[:, 1] >= 0) & (px[:, 1] < height)
        return frame[px[inside, 1], px[inside, 0]].astype(np.float64), inside

    def levels(black: np.ndarray, white: np.ndarray) -> Levels:
        if not len(black) or not len(white):
            raise VisionError("the board markers are outside the frame")
        return Levels(np.median(black, axis=0), np.median(white, axis=0))

    (black, black_in), (white, white_in) = (sample(p) for p in marker_sample_points(layout, ids))
    every = levels(black, white)
    if glare is None or len(ids) < 2:
        return every, None
    # each marker's own median black and white (per channel, then grey), in one sort each
    owners = [np.repeat(np.arange(len(ids)), [len(marker_sample_points(layout, [m])[k])
                                              for m in ids])[inside]
              for k, inside in enumerate((black_in, white_in))]
    grey = np.stack([_owner_medians(values, owner, len(ids)).mean(axis=1)
                     for values, owner in zip((black, white), owners, strict=True)], axis=1)
    seen = ~np.isnan(grey).any(axis=1)
    if not seen.any():  # no marker shows both its black and its white cells in the frame
        return every, None
    lift = grey - grey[np.flatnonzero(seen)[grey[seen, 0].argmin()]]
    glared = seen & (lift[:, 0] > glare[0]) & (lift[:, 1] >= -glare[1] * lift[:, 0])
    if not glared.any():
        return every, None
    kept = np.flatnonzero(~glared)
    return every, levels(black[np.isin(owners[0], kept)], white[np.isin(owners[1], kept)])


def _owner_medians(values: np.ndarray, owner: np.ndarray, owners: int) -> np.ndarray:
    """Per owner, the median of its rows of ``values`` (n, c) per column, as np.median
    takes it; NaN for an owner with none. One sort: a median per marker and colour cost
    0.4 ms a frame."""
    counts = np.bincount(owner, minlength=owners)
    order = np.argsort(owner, kind="stable")
    rank = np.arange(len(owner)) - np.repeat(np.cumsum(counts) - counts, counts)
    padded = np.full((owners, max(int(counts.max(initial=0)), 1), values.shape[1]), np.inf)
    padded[owner[order], rank] = values[order]
    padded.sort(axis=1)
    out = np.full((owners, values.shape[1]), np.nan)
    rows = np.flatnonzero(counts)
    out[rows] = (padded[rows, (counts[rows] - 1) // 2] + padded[rows, counts[rows] // 2]) / 2
    return out


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
    threshold = np.clip(np.ceil(levels.white - tolerance), 0, 255)
    # a pixel with no channel clipped lies in 0 .. threshold - 1 (nothing does below 0)
    unclipped = cv2.inRange(image, np.zeros(3), threshold - 1).ravel()
    if within is None:
        index = np.flatnonzero(unclipped == 0)
    else:
        index = within[np.flatnonzero(unclipped[within] == 0)]
    if not len(index):
        return index, []
    clipped = np.take(image.reshape(-1, 3), index, axis=0) >= threshold.astype(np.uint8)
    colours = np.take(normalised.reshape(-1, 3), index, axis=0)
    half = np.where(clipped, colours // 2 + 128, colours)
    white = np.where(clipped, np.uint8(255), colours)
    half_lab, white_lab = to_lab(np.stack([half, white])).reshape(2, -1, 3)
    return index, [half_lab, white_lab]


def to_lab(normalised_bgr: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(normalised_bgr, cv2.COLOR_BGR2Lab)
