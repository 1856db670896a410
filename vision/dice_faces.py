"""A learned check of candidate top faces for close-up photos (no table homography).

The hand-made rules of the pixel pipeline cannot tell a top 1 from a side face's pips when
the camera looks obliquely down (both are squashed alike), and take keyboard keys, print and
cable ends for dice. Here every pip, and the midpoint of every pair of like pips a die's
diagonal apart, proposes a face centre; a square crop round it, sized by the pips, is
described by gradient histograms (HOG, computed here: OpenCV 5 has no HOG nor ``cv2.ml``)
and by how many pips lie within a few radii of it, and a small neural network (one hidden
layer, numpy only) says "no top face" or the value 1-6. The likeliest faces are kept, each
suppressing the proposals on its die. Dice a blur leaves with faint, smeared pips are
read again from a lower contrast (`faint_faces`). The network is trained by
``bench/train_dice_faces.py`` on the real ``train_*`` photos only (several networks from
different seeds, their logits averaged, stored as one wider network).
"""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

if TYPE_CHECKING:
    from vision.dice import DiceConfig, DieReading, Pip

#: Crop side in pixels, HOG cell side and orientation bins (unsigned gradients).
WINDOW = 32
CELL = 8
BINS = 9
#: Pip counts are taken within these distances of a proposal, in pip diameters: a 1 has its
#: lone pip at 0, a 2-6 its pips within ~2.4 (corners), a side face's pips lie farther.
COUNT_RADII = (0.8, 1.6, 2.2, 2.8, 3.4, 4.0)
#: Weight of the 8x8 thumbnail of the crop beside the HOG (which is normalised per block).
THUMBNAIL_WEIGHT = 0.2
#: Slack on distances compared in numpy before an exact test: numpy's hypot may differ from
#: math.hypot (or a norm) in the last bit, so what is skipped there would fail the exact test.
SLACK = 1 + 1e-9


def distances(pts: np.ndarray) -> np.ndarray:
    """Distance between every two of the points (n x n)."""
    return np.hypot(pts[None, :, 0] - pts[:, None, 0], pts[None, :, 1] - pts[:, None, 1])


class FaceModel:
    """The trained network: input scaling, one ReLU hidden layer, softmax over 7 classes
    (0: no top face, 1-6: the value)."""

    def __init__(self, weights: dict[str, np.ndarray]):
        self.mean, self.scale = weights["mean"], weights["scale"]
        self.w1, self.b1 = weights["w1"], weights["b1"]
        self.w2, self.b2 = weights["w2"], weights["b2"]

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        hidden = np.maximum(((features - self.mean) / self.scale) @ self.w1 + self.b1, 0.0)
        logits = hidden @ self.w2 + self.b2
        logits -= logits.max(axis=1, keepdims=True)
        odds = np.exp(logits)
        return odds / odds.sum(axis=1, keepdims=True)

    def save(self, path: str | Path) -> None:
        """Weights as float16 (loaded back as float32): half the file, the same readings."""
        np.savez_compressed(path, mean=self.mean, scale=self.scale,
                            w1=self.w1.astype(np.float16), b1=self.b1,
                            w2=self.w2.astype(np.float16), b2=self.b2)


@lru_cache(maxsize=4)
def load_model(path: str) -> FaceModel:
    """Loaded once per file, on first use."""
    with np.load(path) as data:
        return FaceModel({k: data[k].astype(np.float32) for k in data.files})


def proposals(pips: list[Pip], config: DiceConfig) -> list[tuple[float, float, float]]:
    """Candidate face centres (x, y, pip diameter): every pip (the middle of a 1, 3 or 5)
    and the midpoint of every pair of like pips ``face_pair_min``-``face_pair_max`` pip
    diameters apart (the diagonal of a 2, 4 or 6); ones closer than half a pip to an
    earlier one are left out."""
    found = [(p.x, p.y, p.diameter) for p in pips]
    for i, j in _pairs_within(np.array([(p.x, p.y) for p in pips]).reshape(-1, 2),
                              np.array([p.diameter for p in pips]) / 2,
                              config.face_pair_min, config.face_pair_max):
        a, b = pips[i], pips[j]
        size = (a.diameter + b.diameter) / 2
        gap = math.hypot(a.x - b.x, a.y - b.y)
        if (config.face_pair_min * size <= gap <= config.face_pair_max * size
                and max(a.diameter, b.diameter)
                <= config.pip_size_ratio * min(a.diameter, b.diameter)):
            found.append(((a.x + b.x) / 2, (a.y + b.y) / 2, size))
    if not found:
        return []
    at = np.array([(x, y) for x, y, _ in found])
    close = distances(at) <= SLACK * 0.5 * np.array([d for _, _, d in found])[:, None]
    kept: list[int] = []
    for i, q in enumerate(found):
        if all(math.hypot(q[0] - found[k][0], q[1] - found[k][1]) > 0.5 * q[2]
               for k in kept if close[i, k]):
            kept.append(i)
    return [found[k] for k in kept]


def _pairs_within(pts: np.ndarray, radius: np.ndarray, least: float,
                  most: float) -> list[tuple[int, int]]:
    """Pairs (i < j, in that order) whose distance may lie within ``least``-``most`` times
    their mean diameter (the sum of their ``radius``): the only ones `proposals` keeps."""
    size = radius[:, None] + radius[None, :]
    gap = distances(pts)
    i, j = np.nonzero(np.triu((gap * SLACK >= least * size) & (gap <= SLACK * most * size),
                              1))
    return list(zip(i.tolist(), j.tolist(), strict=True))


def crops(grey: np.ndarray, centres: list[tuple[float, float, float]],
          config: DiceConfig) -> np.ndarray:
    """A WINDOW x WINDOW crop per proposal, ``face_crop`` pip diameters across: (n, W, W)."""
    out = np.empty((len(centres), WINDOW, WINDOW), np.uint8)
    for k, (x, y, d) in enumerate(centres):
        s = WINDOW / (config.face_crop * d)
        warp = np.array([[s, 0, WINDOW / 2 - s * x], [0, s, WINDOW / 2 - s * y]])
        out[k] = cv2.warpAffine(grey, warp, (WINDOW, WINDOW),
                                flags=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REPLICATE)
    return out


def hog(patches: np.ndarray) -> np.ndarray:
    """Dalal-Triggs HOG of each patch: 8 px cells, 2x2-cell blocks at a one-cell stride,
    L2-Hys normalised; (n, W, W) -> (n, 9 blocks x 36)."""
    p = patches.astype(np.float32)
    gx = np.zeros_like(p)
    gy = np.zeros_like(p)
    gx[:, :, 1:-1] = p[:, :, 2:] - p[:, :, :-2]
    gy[:, 1:-1, :] = p[:, 2:, :] - p[:, :-2, :]
    magnitude = np.hypot(gx, gy)
    angle = np.mod(np.arctan2(gy, gx), np.pi) / np.pi * BINS
    low = np.floor(angle)
    upper_share = angle - low
    low = low.astype(np.int64) % BINS
    high = (low + 1) % BINS
    n, cells = len(p), WINDOW // CELL
    rows = np.arange(WINDOW) // CELL
    cell = (rows[:, None] * cells + rows[None, :])[None]  # (1, W, W) cell index
    base = (np.arange(n)[:, None, None] * cells * cells + cell) * BINS
    hist = np.bincount((base + low).ravel(), (magnitude * (1 - upper_share)).ravel(),
                       n * cells * cells * BINS)
    hist += np.bincount((base + high).ravel(), (magnitude * upper_share).ravel(),
                        n * cells * cells * BINS)
    hist = hist.reshape(n, cells, cells, BINS)
    blocks = np.concatenate([hist[:, i:i + 2, j:j + 2].reshape(n, -1)
                             for i in range(cells - 1) for j in range(cells - 1)], axis=1)
    blocks = blocks.reshape(n, (cells - 1) ** 2, -1)
    blocks = np.minimum(blocks / (np.linalg.norm(blocks, axis=2, keepdims=True) + 1e-3), 0.2)
    blocks = blocks / (np.linalg.norm(blocks, axis=2, keepdims=True) + 1e-3)
    return blocks.reshape(n, -1)


def features(patches: np.ndarray, centres: list[tuple[float, float, float]],
             pips: list[Pip]) -> np.ndarray:
    """HOG, a normalised 8x8 thumbnail and the pip counts round each proposal."""
    thumbs = np.array([cv2.resize(p, (8, 8), interpolation=cv2.INTER_AREA) for p in patches],
                      np.float32).reshape(len(patches), -1)
    thumbs = (thumbs - thumbs.mean(axis=1, keepdims=True)) / (
        thumbs.std(axis=1, keepdims=True) + 1e-3)
    return np.concatenate([hog(patches), THUMBNAIL_WEIGHT * thumbs,
                           pip_counts(centres, pips)], axis=1).astype(np.float32)


def pip_counts(centres: list[tuple[float, float, float]], pips: list[Pip]) -> np.ndarray:
    """How many pips lie within each of COUNT_RADII pip diameters of each proposal."""
    at = np.array([(p.x, p.y) for p in pips], np.float32).reshape(-1, 2)
    c = np.array(centres, np.float32).reshape(-1, 3)
    reach = np.hypot(at[None, :, 0] - c[:, None, 0], at[None, :, 1] - c[:, None, 1]) / c[:, 2:]
    radii = np.array(COUNT_RADII, np.float32)
    return (reach[:, :, None] <= radii).sum(axis=1).astype(np.float32)


def read_faces(grey: np.ndarray, pips: list[Pip], bounds: tuple[float, float, float, float],
               config: DiceConfig, model: FaceModel) -> list[DieReading]:
    """The top faces among the proposals, likeliest first, each suppressing the proposals
    within ``face_separation`` pip diameters (its own die); a face whose pip lattice
    (``face_half`` pip diameters round its centre) is cut by the frame edge is unreadable
    (value None), but for a 1 cut on one side only, its pip whole (`_whole_one`)."""
    return [r for r, _ in _likeliest_faces(grey, pips, proposals(pips, config), bounds, config,
                                           model)]


def faint_faces(grey: np.ndarray, pips: list[Pip], read: list[DieReading],
                bounds: tuple[float, float, float, float], config: DiceConfig,
                model: FaceModel) -> list[DieReading]:
    """The faces `read_faces` finds among faint ``pips`` (of a blurred die) that are new:
    no face ``read`` before within ``side_distance`` pip diameters (its side faces, whose
    pips a lower contrast finds too), a 2-6 (a lone faint blob is no 1), with as many of
    ``pips`` in its lattice (``face_half`` pip diameters round its centre) as its value:
    a crop of faint blobs that the network alone calls a face was print, cloth or a side."""
    centres = proposals(pips, config)
    if not centres:
        return []
    at = np.array(centres)
    counts = (_reach(at, [(p.x, p.y) for p in pips]) <= config.face_half).sum(axis=1)
    near = _reach(at, [q.centre for q in read]) <= config.side_distance
    # the others are never kept: not looked at
    look = np.flatnonzero((counts >= 2) & (counts <= 6) & ~near.any(axis=1))
    faces = _likeliest_faces(grey, pips, [centres[k] for k in look], bounds, config, model)
    return [r for r, k in faces if r.value == counts[look[k]]]


def _reach(centres: np.ndarray, points: list[tuple[float, float]]) -> np.ndarray:
    """Distance from each proposal (x, y, pip diameter) to each point, in its pip
    diameters (proposals x points)."""
    q = np.array(points, np.float64).reshape(-1, 2)
    return np.hypot(q[None, :, 0] - centres[:, None, 0],
                    q[None, :, 1] - centres[:, None, 1]) / centres[:, 2:]


def _likeliest_faces(grey: np.ndarray, pips: list[Pip],
                     centres: list[tuple[float, float, float]],
                     bounds: tuple[float, float, float, float], config: DiceConfig,
                     model: FaceModel) -> list[tuple[DieReading, int]]:
    """`read_faces`' readings of the proposed face ``centres``, each with the index of its
    centre."""
    from vision.dice import DieReading

    if not centres:
        return []
    odds = model.probabilities(features(crops(grey, centres, config), centres, pips))
    value = odds[:, 1:].argmax(axis=1) + 1
    likeliest = odds[:, 1:].max(axis=1)
    left, top, right, bottom = bounds
    readings: list[tuple[DieReading, int]] = []
    for k in np.argsort(-likeliest):
        if likeliest[k] < config.face_min_score:
            break
        x, y, d = centres[k]
        if odds[k, 0] >= likeliest[k] or any(
                math.hypot(x - r.centre[0], y - r.centre[1]) < config.face_separation * d
                for r, _ in readings):
            continue
        half = config.face_half * d
        box = (int(round(x - half)), int(round(y - half)), int(round(2 * half)),
               int(round(2 * half)))
        # the whole lattice must be in view, for a 1 too: a lone pip at the edge may be
        # the middle of a 3 or 5 whose corners are outside (unless `_whole_one`)
        sides = (x < left + half, y < top + half, x > right - half, y > bottom - half)
        cut = any(sides) and not _whole_one(int(value[k]), sides, (x, y, d), bounds, config)
        readings.append((DieReading(None if cut else int(value[k]),
                                    0.0 if cut else round(float(likeliest[k]), 3), box,
                                    (float(x), float(y))), int(k)))
    return readings


def _whole_one(value: int, sides: tuple[bool, ...], centre: tuple[float, float, float],
               bounds: tuple[float, float, float, float], config: DiceConfig) -> bool:
    """A 1 whose lattice only one frame edge cuts, its pip ``face_one_clearance`` pip
    diameters inside the frame: a 3 or 5 there would show a corner pip on the far side of
    its middle one, which the face check would have seen."""
    if value != 1 or config.face_one_clearance <= 0 or sum(sides) != 1:
        return False
    x, y, d = centre
    left, top, right, bottom = bounds
    reach = config.face_one_clearance * d
    return min(x - left, y - top, right - x, bottom - y) >= reach
