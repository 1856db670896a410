"""Read the dice lying on the table: find pips, group them into faces, count the top faces.

Classical pipeline, one plain function per stage: pip candidates are small round blobs darker
(white dice) or lighter (dark dice) than their surroundings (black-hat / top-hat of a closing);
two pips belong to the same face when the straight line between them stays on the die body
(no edge between dice or between the top and a side face crosses it); side faces are told apart
from the top face by their squashed pips; a face that is not a die pattern, or that touches the
frame edge, is reported as unreadable (value None) rather than guessed.
All thresholds live in `DiceConfig` (JSON-loadable), not in code.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import cv2
import numpy as np

PRESETS = Path(__file__).with_name("dice_configs")


class DiceInputError(ValueError):
    """The image or region handed to the dice reader cannot be used."""


@dataclass(frozen=True)
class DiceConfig:
    """Thresholds of the dice reader; sizes in pixels of the frame as given."""

    hat_kernel_px: int = 15  # larger than the largest pip; closing fills pips with body colour
    min_contrast: float = 60.0  # grey levels a pip must differ from the body around it
    min_pip_area_px: float = 4.0
    max_pip_area_px: float = 400.0
    min_fill: float = 0.5  # blob area / bounding-box area: round pips fill ~0.78
    min_pip_roundness: float = 0.6  # minor / major axis; below that the blob is a line
    top_roundness: float = 0.6  # mean pip roundness of a top face; side faces are squashed
    link_distance: float = 6.0  # max pip spacing in pip diameters within one face
    edge_drop: float = 18.0  # grey levels the body may dip between two pips of one face
    link_on_closing: bool = False  # follow lines on the pip-filled image (for tiny dice)
    pip_clearance: float = 0.8  # pip diameters round a pip left out when following a line
    pip_size_ratio: float = 1.6  # largest / smallest pip diameter within one face
    pattern_tolerance: float = 0.28  # of the face's pip spread, for the die-pattern check
    border_margin: float = 1.5  # pip diameters: a face this close to the frame edge is cut
    single_ring: float = 2.6  # pip radii: where a lone pip's body ring is sampled
    single_ring_spread: float = 35.0  # max grey spread of that ring for a lone pip
    single_min_area_px: float = 12.0  # a lone pip (a one) is the largest pip on a die
    single_roundness: float = 0.8
    polarities: tuple[str, ...] = ("dark", "light")
    side_distance: float = 6.0  # pip diameters between a side face and its top face
    side_roundness_gap: float = 0.05
    side_size_ratio: float = 0.8
    min_unreadable_pips: int = 3  # fewer pips out of a die pattern are dropped as not a die
    side_score_ratio: float = 0.85  # side pips' roundness x size below this share of the top's
    scale: float = 1.0  # enlarge the searched area first when dice are only ~20 px across

    @classmethod
    def from_json(cls, path: str | Path) -> DiceConfig:
        """Load a config; unknown keys are an error so a typo cannot pass silently."""
        try:
            data = json.loads(Path(path).read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise DiceInputError(f"cannot read dice config {path}: {exc}") from None
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise DiceInputError(f"unknown dice config keys: {', '.join(unknown)}")
        if "polarities" in data:
            data["polarities"] = tuple(data["polarities"])
        return cls(**data)

    @classmethod
    def preset(cls, name: str) -> DiceConfig:
        """A shipped setup: ``table`` (the camera over the board, dice ~20 px across) or
        ``closeup`` (a webcam near the dice, dice ~50 px across; the defaults)."""
        path = PRESETS / f"{name}.json"
        if not path.is_file():
            known = ", ".join(sorted(p.stem for p in PRESETS.glob("*.json")))
            raise DiceInputError(f"no dice setup called {name!r}; known: {known}")
        return cls.from_json(path)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1)


@dataclass(frozen=True)
class DieReading:
    """One die as read: ``value`` 1-6, or None when the top face cannot be read safely."""

    value: int | None
    confidence: float
    box: tuple[int, int, int, int]  # x, y, w, h of the top face's pips
    centre: tuple[float, float]


@dataclass(frozen=True)
class Pip:
    x: float
    y: float
    diameter: float
    roundness: float  # minor / major axis of the blob's ellipse
    contrast: float


def read_dice(frame: np.ndarray, region=None, config: DiceConfig | None = None) -> list[DieReading]:
    """All dice whose top face shows pips in ``frame`` (BGR or grey), optionally only inside
    ``region``: (x, y, w, h) or a polygon of (x, y) points."""
    config = config or DiceConfig()
    _check_image(frame)
    frame_shape = frame.shape[:2]
    mask = _region_mask(frame_shape, region)
    x0 = y0 = 0
    if mask is not None:  # work on the region's bounding box only
        x0, y0, w, h = cv2.boundingRect(mask)
        if w == 0 or h == 0:
            return []
        frame, mask = frame[y0:y0 + h, x0:x0 + w], mask[y0:y0 + h, x0:x0 + w]
    grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    if config.scale != 1.0:
        grey = cv2.resize(grey, None, fx=config.scale, fy=config.scale,
                          interpolation=cv2.INTER_CUBIC)
        if mask is not None:
            mask = cv2.resize(mask, (grey.shape[1], grey.shape[0]),
                              interpolation=cv2.INTER_NEAREST)
    bounds = _bounds(frame_shape, x0, y0, config.scale)
    readings: list[DieReading] = []
    for polarity in config.polarities:
        image = grey if polarity == "dark" else 255 - grey
        pips, closed, hat = find_pips(image, mask, config)
        for face in group_faces(pips, image, closed, hat, config):
            reading = read_face(face, bounds, config)
            if reading is not None:
                readings.append(_to_frame(reading, x0, y0, config.scale))
    return _drop_duplicates(readings)


def _bounds(shape: tuple[int, int], x0: int, y0: int, scale: float):
    """The frame's edges in the coordinates of the (cropped, scaled) working image."""
    h, w = shape
    return (-x0 * scale, -y0 * scale, (w - 1 - x0) * scale, (h - 1 - y0) * scale)


def _to_frame(r: DieReading, x0: int, y0: int, scale: float) -> DieReading:
    x, y, w, h = r.box
    box = (int(round(x / scale + x0)), int(round(y / scale + y0)), int(round(w / scale)),
           int(round(h / scale)))
    return DieReading(r.value, r.confidence, box, (r.centre[0] / scale + x0,
                                                     r.centre[1] / scale + y0))


def _check_image(frame) -> None:
    if not isinstance(frame, np.ndarray) or frame.size == 0:
        raise DiceInputError("the dice reader needs an image (a non-empty numpy array)")
    if frame.dtype != np.uint8:
        raise DiceInputError(f"the dice reader needs an 8-bit image, not {frame.dtype}")
    if not (frame.ndim == 2 or (frame.ndim == 3 and frame.shape[2] == 3)):
        raise DiceInputError(f"the dice reader needs a BGR or grey image, not shape {frame.shape}")


def _region_mask(shape: tuple[int, int], region) -> np.ndarray | None:
    if region is None:
        return None
    mask = np.zeros(shape, np.uint8)
    pts = np.asarray(region, dtype=np.float64)
    if pts.shape == (4,):
        x, y, w, h = pts
        if w <= 0 or h <= 0:
            raise DiceInputError(f"the dice region needs a positive size, not {w} x {h}")
        pts = np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]])
    if pts.ndim != 2 or pts.shape[1] != 2 or len(pts) < 3:
        raise DiceInputError("the dice region is (x, y, w, h) or a polygon of (x, y) points")
    cv2.fillPoly(mask, [np.round(pts).astype(np.int32)], 255)
    return mask


def find_pips(image: np.ndarray, mask: np.ndarray | None,
              config: DiceConfig) -> tuple[list[Pip], np.ndarray, np.ndarray]:
    """Small round blobs darker than the body around them (in ``image``; invert for light
    pips). Also returns the closing (pips filled by the body colour) and the black-hat
    (how much darker than the body each pixel is)."""
    k = config.hat_kernel_px
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))
    closed = cv2.morphologyEx(image, cv2.MORPH_CLOSE, kernel)
    hat = cv2.subtract(closed, image)
    _, binary = cv2.threshold(hat, config.min_contrast, 255, cv2.THRESH_BINARY)
    if mask is not None:
        binary = cv2.bitwise_and(binary, mask)
    # contours, not connected components: several times faster on the same blobs
    contours, _ = cv2.findContours(binary, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    pips: list[Pip] = []
    for contour in contours:
        x, y, w, h = cv2.boundingRect(contour)
        if w * h < config.min_pip_area_px or w * h * config.min_fill > config.max_pip_area_px:
            continue
        roi = np.zeros((h, w), np.uint8)
        cv2.drawContours(roi, [contour], -1, 1, cv2.FILLED, offset=(-x, -y))
        roi &= binary[y:y + h, x:x + w] > 0
        area = int(roi.sum())
        if not config.min_pip_area_px <= area <= config.max_pip_area_px:
            continue
        if area < config.min_fill * w * h:
            continue
        m = cv2.moments(roi, binaryImage=True)
        mu20, mu02, mu11 = m["mu20"] / area, m["mu02"] / area, m["mu11"] / area
        spread = math.sqrt(max(((mu20 - mu02) / 2) ** 2 + mu11 ** 2, 0.0))
        major = (mu20 + mu02) / 2 + spread
        minor = (mu20 + mu02) / 2 - spread
        roundness = math.sqrt(max(minor, 0.0) / major) if major > 0 else 1.0
        if roundness < config.min_pip_roundness:
            continue
        cx, cy = x + m["m10"] / m["m00"], y + m["m01"] / m["m00"]
        contrast = float(hat[y:y + h, x:x + w][roi > 0].mean())
        pips.append(Pip(float(cx), float(cy), 2.0 * math.sqrt(area / math.pi), roundness,
                        contrast))
    return pips, closed, hat


def _same_body(a: Pip, b: Pip, image: np.ndarray, config: DiceConfig) -> bool:
    """The line between two pips stays on one flat body (no die edge or face edge crosses)."""
    d = math.hypot(a.x - b.x, a.y - b.y)
    size = max(a.diameter, b.diameter)
    if d > config.link_distance * size:
        return False
    if max(a.diameter, b.diameter) > config.pip_size_ratio * min(a.diameter, b.diameter):
        return False
    h, w = image.shape
    if config.link_on_closing:  # pips are filled in: follow the whole line, body at the ends
        t = np.linspace(0.0, 1.0, 7)
    else:  # leave out the pips themselves; touching pips belong together
        skip = config.pip_clearance * size / max(d, 1e-6)
        if skip >= 0.5:
            return True
        t = np.linspace(skip, 1.0 - skip, max(int(d * (1 - 2 * skip)), 2))
    xs = np.clip(np.round(a.x + t * (b.x - a.x)).astype(int), 0, w - 1)
    ys = np.clip(np.round(a.y + t * (b.y - a.y)).astype(int), 0, h - 1)
    values = image[ys, xs].astype(np.float32)
    body = max(values[0], values[-1]) if config.link_on_closing else float(np.median(values))
    return bool(values.min() >= body - config.edge_drop)


def group_faces(pips: list[Pip], image: np.ndarray, closed: np.ndarray, hat: np.ndarray,
                config: DiceConfig) -> list[list[Pip]]:
    """Connected groups of pips that share one flat face."""
    parent = list(range(len(pips)))
    # tiny, blurred dice: the closing is steadier than the raw image between pips
    line_image = closed if config.link_on_closing else image

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(len(pips)):
        for j in range(i + 1, len(pips)):
            if root(i) != root(j) and _same_body(pips[i], pips[j], line_image, config):
                parent[root(i)] = root(j)
    groups: dict[int, list[Pip]] = {}
    for i, pip in enumerate(pips):
        groups.setdefault(root(i), []).append(pip)
    faces = [g for g in groups.values() if _is_top_face(g, closed, config)]
    return [f for f in faces if not any(_side_of(f, other, config) for other in faces)]


def _side_of(face: list[Pip], top: list[Pip], config: DiceConfig) -> bool:
    """A face right beside another whose pips are clearly rounder or larger is a side face
    of the same die, seen at a grazing angle."""
    if face is top:
        return False
    a = np.array([(p.x, p.y) for p in face]).mean(axis=0)
    b = np.array([(p.x, p.y) for p in top]).mean(axis=0)
    size = float(np.median([p.diameter for p in top]))
    if np.linalg.norm(a - b) > config.side_distance * size:
        return False
    round_a = np.mean([p.roundness for p in face])
    round_b = np.mean([p.roundness for p in top])
    size_a = float(np.median([p.diameter for p in face]))
    return bool(round_a < round_b - config.side_roundness_gap
                or size_a < config.side_size_ratio * size)


def _is_top_face(face: list[Pip], closed: np.ndarray, config: DiceConfig) -> bool:
    """Side faces show squashed pips; a lone pip must sit on a flat patch of die body."""
    if np.mean([p.roundness for p in face]) < config.top_roundness:
        return False
    if len(face) > 1:
        return True
    pip = face[0]
    if pip.roundness < config.single_roundness:
        return False
    if math.pi * (pip.diameter / 2) ** 2 < config.single_min_area_px:
        return False
    r = config.single_ring * pip.diameter / 2
    h, w = closed.shape
    angles = np.linspace(0, 2 * math.pi, 12, endpoint=False)
    xs = np.round(pip.x + r * np.cos(angles)).astype(int)
    ys = np.round(pip.y + r * np.sin(angles)).astype(int)
    if xs.min() < 0 or ys.min() < 0 or xs.max() >= w or ys.max() >= h:
        return True  # cut by the frame edge: read_face reports it as unreadable
    ring = closed[ys, xs].astype(np.float32)
    return bool(ring.max() - ring.min() <= config.single_ring_spread)


def _pattern_ok(face: list[Pip], config: DiceConfig) -> bool:
    """Pips laid out as on a die: 1 and 5 and 3 have a pip in the middle, 2/4/6 do not; a 3
    is a line, a 6 is two rows of three."""
    n = len(face)
    if n == 1:
        return True
    pts = np.array([(p.x, p.y) for p in face])
    centre = pts.mean(axis=0)
    dist = np.linalg.norm(pts - centre, axis=1)
    spread = dist.max()
    if spread <= 0:
        return False
    tolerance = config.pattern_tolerance * spread
    middle = dist < tolerance
    if middle.sum() != (n % 2) or not _centrally_symmetric(pts, centre, tolerance):
        return False  # odd faces have exactly one pip in the middle, even faces none
    if n == 3:
        _, s, _ = np.linalg.svd(pts - centre)
        return bool(s[1] < config.pattern_tolerance * s[0])
    if n == 6:  # the two pips nearest the middle lie halfway between two others
        nearest = np.argsort(dist)[:2]
        others = np.delete(pts, nearest, axis=0)
        halfway = (others[:, None, :] + others[None, :, :]) / 2
        return all(np.linalg.norm(halfway - pts[i], axis=2).min() < tolerance for i in nearest)
    return True


def _centrally_symmetric(pts: np.ndarray, centre: np.ndarray, tolerance: float) -> bool:
    """Every die face maps onto itself when turned half way round its centre."""
    mirrored = 2 * centre - pts
    gaps = np.linalg.norm(mirrored[:, None, :] - pts[None, :, :], axis=2).min(axis=1)
    return bool(gaps.max() < tolerance)


def _top_of_merged(face: list[Pip], config: DiceConfig) -> list[Pip] | None:
    """A top face merged with side-face pips: keep the clearly rounder, larger pips if they
    alone make a die pattern."""
    ranked = sorted(face, key=lambda p: -p.roundness * p.diameter)
    scores = [p.roundness * p.diameter for p in ranked]
    for keep in range(min(len(ranked) - 1, 6), 0, -1):
        if scores[keep] < config.side_score_ratio * scores[keep - 1] and _pattern_ok(
                ranked[:keep], config):
            return ranked[:keep]
    return None


def read_face(face: list[Pip], bounds: tuple[float, float, float, float],
              config: DiceConfig) -> DieReading | None:
    if len(face) > 6 or not _pattern_ok(face, config):
        face = _top_of_merged(face, config) or face
    pts = np.array([(p.x, p.y) for p in face])
    diam = float(np.median([p.diameter for p in face]))
    x0, y0 = pts.min(axis=0) - diam / 2
    x1, y1 = pts.max(axis=0) + diam / 2
    box = (int(round(x0)), int(round(y0)), int(round(x1 - x0)), int(round(y1 - y0)))
    centre = (float(pts[:, 0].mean()), float(pts[:, 1].mean()))
    margin = config.border_margin * diam
    left, top, right, bottom = bounds
    cut = x0 < left + margin or y0 < top + margin or x1 > right - margin or y1 > bottom - margin
    n = len(face)
    if cut:
        return DieReading(None, 0.0, box, centre)
    if n > 6 or not _pattern_ok(face, config):
        # three or more like pips are a die we cannot read; fewer are more likely not a die
        return DieReading(None, 0.0, box, centre) if n >= config.min_unreadable_pips else None
    sizes = [p.diameter for p in face]
    size_consistency = min(sizes) / max(sizes)
    roundness = float(np.mean([p.roundness for p in face]))
    confidence = float(np.clip(0.5 * size_consistency + 0.5 * roundness, 0.0, 1.0))
    return DieReading(n, round(confidence, 3), box, centre)


def _drop_duplicates(readings: list[DieReading]) -> list[DieReading]:
    """Gaps between dark pips can look like light pips: where faces overlap, keep the read
    one, then the larger."""
    kept: list[DieReading] = []
    for r in sorted(readings, key=lambda r: (r.value is None, -r.box[2] * r.box[3])):
        if any(_inside(r.centre, k.box, margin=max(k.box[2], k.box[3]) * 0.25) for k in kept):
            continue
        kept.append(r)
    return sorted(kept, key=lambda r: (r.centre[1], r.centre[0]))


def _inside(point: tuple[float, float], box: tuple[int, int, int, int],
            margin: float = 0.0) -> bool:
    x, y, w, h = box
    return x - margin <= point[0] <= x + w + margin and y - margin <= point[1] <= y + h + margin
