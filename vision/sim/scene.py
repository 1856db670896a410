"""What lies on the simulated table: board state, dice, a hand, light and camera defects.

A :class:`Scene` is pure data (no pixels); ``render.render`` turns it into a frame with truth.
``random_scene`` draws the varied, deliberately hard states that tests and benchmarks use.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import cv2
import numpy as np

if TYPE_CHECKING:  # the layout's data model is the rules core's; vision only reads it
    from companion.layout import Layout


#: Tower heights above this are not read by vision (and rarely built), so scenes stop here.
VISION_MAX_STACK = 5
DIE_SIZE_MM = 16.0
TABLE_KINDS = ("wood", "dark_wood", "cloth", "mottled", "plain")
TABLE_WEIGHTS = (0.35, 0.15, 0.15, 0.15, 0.2)  # kitchen and club tables are mostly wood
PIECE_STYLES = ("plain", "groove")
SKIN_TONES_BGR = (
    (170, 195, 235), (140, 170, 220), (110, 145, 200), (80, 115, 165), (60, 85, 125),
    (150, 180, 225),
)
#: Dice bodies and their pips: white dice with dark pips, coloured or dark dice with light pips.
DICE_STYLES = (
    ("#f4f1ea", "#151515"), ("#f4f1ea", "#151515"), ("#fbfbf7", "#1a1a60"),
    ("#c0392b", "#f5f5f5"), ("#1f1f1f", "#f5f5f5"), ("#1f4e9a", "#f5f5f5"),
    ("#2e7d32", "#f0f0f0"), ("#f1c40f", "#111111"),
)


@dataclass(frozen=True)
class Die:
    """One die lying on the table; ``value`` is the face pointing up."""

    x_mm: float
    y_mm: float
    value: int
    angle_deg: float = 0.0
    body: str = "#f4f1ea"
    pips: str = "#151515"
    leaning: bool = False
    size_mm: float = DIE_SIZE_MM

    def __post_init__(self) -> None:
        if not 1 <= self.value <= 6:
            raise ValueError(f"a die shows 1 to 6, not {self.value}")


@dataclass(frozen=True)
class Hand:
    """A hand reaching in over the board: the arm enters at ``entry_mm`` (outside the view)
    and the fingertips end near ``tip_mm``, ``height_mm`` above the table."""

    entry_mm: tuple[float, float]
    tip_mm: tuple[float, float]
    height_mm: float = 90.0
    skin_bgr: tuple[int, int, int] = (140, 170, 220)
    spread: float = 0.5  # 0 = fingers together, 1 = spread wide
    sleeve_bgr: tuple[int, int, int] | None = None
    left: bool = False
    curl: float = 0.3  # 0 = flat fingers, 1 = curled as if picking up a piece
    holding: str | None = None  # colour name of a piece held under the fingertips


@dataclass(frozen=True)
class Card:
    """Something flat on the table (a playing card, a score pad, a coaster): clutter that
    must not be mistaken for a board or a marker. ``colour`` is #rrggbb."""

    x_mm: float
    y_mm: float
    width_mm: float
    length_mm: float
    angle_deg: float
    colour: str = "#f0f0f0"


@dataclass(frozen=True)
class Cable:
    """A cable lying on the table (the camera's own, a phone charger): a long dark curve."""

    points_mm: tuple[tuple[float, float], ...]
    width_mm: float = 5.0
    colour: str = "#1a1a1a"


@dataclass(frozen=True)
class Lighting:
    """Room light and camera response.

    ``light_azimuth_deg``/``light_elevation_deg`` place the main lamp (azimuth clockwise from
    board-up as seen from above) and so the direction of cast shadows.
    """

    exposure: float = 1.0
    white_balance: tuple[float, float, float] = (1.0, 1.0, 1.0)  # gains for B, G, R
    light_azimuth_deg: float = 30.0
    light_elevation_deg: float = 60.0
    shadow_strength: float = 0.35
    vignetting: float = 0.2
    gradient: float = 0.1  # uneven light across the frame: relative brightness change
    gradient_angle_deg: float = 0.0
    glare: tuple[tuple[float, float, float, float], ...] = ()  # (u, v, radius, strength), rel.

    @property
    def direction(self) -> np.ndarray:
        """Unit vector (x, y, h) pointing from the table towards the lamp."""
        az, el = math.radians(self.light_azimuth_deg), math.radians(self.light_elevation_deg)
        return np.array([math.sin(az) * math.cos(el), -math.cos(az) * math.cos(el), math.sin(el)])


@dataclass
class Scene:
    """Everything the renderer draws. ``stacks`` maps field name -> piece colour names from
    bottom to top; colour names are keys of ``layout.piece_colours``."""

    layout: Layout
    stacks: dict[str, list[str]] = field(default_factory=dict)
    dice: list[Die] = field(default_factory=list)
    hand: Hand | None = None
    lighting: Lighting = field(default_factory=Lighting)
    table: str = "wood"
    noise_sigma: float = 2.0
    blur_sigma: float = 0.6
    sharpen: float = 0.0  # camera ISP sharpening (unsharp mask amount): halos along edges
    chromatic_px: float = 0.0  # lateral chromatic aberration at the frame corners: colour fringes
    jpeg_quality: int | None = 90
    markers_hidden: frozenset[int] = frozenset()
    clutter: tuple[Card, ...] = ()
    cables: tuple[Cable, ...] = ()
    motion_blur_px: float = 0.0  # length of a camera-shake smear
    motion_blur_deg: float = 0.0
    seed: int = 0  # fixes the table's texture and how each piece lies (see render.render)
    piece_style: str = "plain"  # "plain" or "groove" (a ring pressed into each stone's top)
    #: Per marker (dx_mm, dy_mm, angle_deg): how far each card lies from the layout's spot.
    marker_offsets: tuple[tuple[float, float, float], ...] | None = None

    def __post_init__(self) -> None:
        for name, colours in self.stacks.items():
            if name not in self.layout.fields:
                raise ValueError(f"{self.layout.title} has no field {name!r}")
            for colour in colours:
                if colour not in self.layout.piece_colours:
                    raise ValueError(
                        f"{self.layout.title} has no {colour!r} pieces "
                        f"(colours: {', '.join(self.layout.piece_colours)})"
                    )
        if self.hand is not None and self.hand.holding is not None and (
                self.hand.holding not in self.layout.piece_colours):
            raise ValueError(f"the hand holds a {self.hand.holding!r} piece, but "
                             f"{self.layout.title} has no such colour")
        if self.piece_style not in PIECE_STYLES:
            raise ValueError(f"unknown piece style {self.piece_style!r} "
                             f"(one of {', '.join(PIECE_STYLES)})")
        if self.table not in TABLE_KINDS:
            raise ValueError(f"unknown table {self.table!r} (one of {', '.join(TABLE_KINDS)})")
        if self.marker_offsets is not None and len(self.marker_offsets) != 4:
            raise ValueError("marker_offsets needs one (dx_mm, dy_mm, angle_deg) per marker")
        if not set(self.markers_hidden) <= {0, 1, 2, 3}:
            raise ValueError("markers are numbered 0-3 (top-left, top-right, bottom-right, "
                             "bottom-left)")


def playable_fields(layout: Layout) -> list[str]:
    return [n for n, f in layout.fields.items() if f.attrs.get("playable", True)]


def random_lighting(rng: np.random.Generator, hard: bool = True) -> Lighting:
    spread = 1.0 if hard else 0.4
    glare = []
    if rng.random() < (0.25 if hard else 0.05):
        for _ in range(int(rng.integers(1, 3))):
            glare.append((float(rng.uniform(0.1, 0.9)), float(rng.uniform(0.1, 0.9)),
                          float(rng.uniform(0.02, 0.09)), float(rng.uniform(0.3, 0.9))))
    warm = rng.uniform(-0.12, 0.12) * spread
    return Lighting(
        exposure=float(np.exp(rng.uniform(-0.45, 0.35) * spread)),
        white_balance=(float(1.0 - warm + rng.uniform(-0.04, 0.04)),
                       float(1.0 + rng.uniform(-0.05, 0.05) * spread),
                       float(1.0 + warm + rng.uniform(-0.04, 0.04))),
        light_azimuth_deg=float(rng.uniform(0, 360)),
        light_elevation_deg=float(rng.uniform(35, 85)),
        shadow_strength=float(rng.uniform(0.1, 0.6 if hard else 0.3)),
        vignetting=float(rng.uniform(0.0, 0.45 * spread)),
        gradient=float(rng.uniform(0.0, 0.35 * spread)),
        gradient_angle_deg=float(rng.uniform(0, 360)),
        glare=tuple(glare),
    )


def random_stacks(
    layout: Layout, rng: np.random.Generator, players: list[str], fill: float
) -> dict[str, list[str]]:
    max_height = max(1, min(layout.piece.max_stack, VISION_MAX_STACK))
    names = playable_fields(layout)
    count = int(round(fill * len(names)))
    chosen = rng.choice(len(names), size=count, replace=False) if count else []
    stacks: dict[str, list[str]] = {}
    for i in sorted(chosen):
        # Low towers are common, tall ones rarer, as in real play.
        height = min(max_height, int(rng.geometric(0.45)))
        stacks[names[i]] = [str(players[int(rng.integers(len(players)))]) for _ in range(height)]
    return stacks


def die_footprint(d: Die, gap_mm: float = 0.5) -> np.ndarray:
    """The die's outline on the table (4, 2), a little grown; a leaning die covers more."""
    half = d.size_mm / 2.0 * (1.3 if d.leaning else 1.0) + gap_mm
    a = math.radians(d.angle_deg)
    c, s = math.cos(a), math.sin(a)
    corners = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
    return corners @ np.array([[c, s], [-s, c]]) + np.array([d.x_mm, d.y_mm])


def dice_overlap(a: Die, b: Die) -> bool:
    if math.hypot(a.x_mm - b.x_mm, a.y_mm - b.y_mm) > (a.size_mm + b.size_mm) * 0.95:
        return False
    area, _ = cv2.intersectConvexConvex(die_footprint(a).astype(np.float32),
                                        die_footprint(b).astype(np.float32))
    return area > 0


def random_dice(
    layout: Layout, rng: np.random.Generator, count: int, leaning_prob: float = 0.05,
    cluster_prob: float = 0.35,
) -> list[Die]:
    """``count`` dice scattered in the dice area, clear of the markers. Dice may lie side by
    side (``cluster_prob``: the next die lands right next to an earlier one) but never inside
    each other."""
    if layout.dice_area_mm is None:
        return []
    x0, y0, x1, y1 = layout.dice_area_mm
    size = float(rng.uniform(14.0, 18.0))
    margin = size * 0.9
    body, pips = DICE_STYLES[int(rng.integers(len(DICE_STYLES)))]
    marker_half = layout.markers.size_mm / 2.0 + 6.0 + size
    placed: list[Die] = []
    for _ in range(count * 60):
        if len(placed) == count:
            break
        if placed and rng.random() < cluster_prob:
            near = placed[int(rng.integers(len(placed)))]
            a = rng.uniform(0, 2 * math.pi)
            r = size * rng.uniform(1.02, 1.6)
            x, y = near.x_mm + r * math.cos(a), near.y_mm + r * math.sin(a)
        else:
            x = float(rng.uniform(x0 + margin, x1 - margin))
            y = float(rng.uniform(y0 + margin, y1 - margin))
        if not (x0 + margin <= x <= x1 - margin and y0 + margin <= y <= y1 - margin):
            continue
        if any(abs(x - mx) < marker_half and abs(y - my) < marker_half
               for mx, my in layout.markers.centres_mm):
            continue
        if rng.random() < 0.15:  # a mixed set now and then
            body, pips = DICE_STYLES[int(rng.integers(len(DICE_STYLES)))]
        candidate = Die(float(x), float(y), int(rng.integers(1, 7)), float(rng.uniform(0, 360)),
                        body, pips, bool(rng.random() < leaning_prob), size)
        if any(dice_overlap(candidate, d) for d in placed):
            continue
        placed.append(candidate)
    return placed


def random_hand(layout: Layout, rng: np.random.Generator,
                players: list[str] | None = None) -> Hand:
    """A hand from a random side whose fingertips end somewhere over the board."""
    w, h = layout.board_size_mm
    tip = (float(rng.uniform(0.15, 0.85) * w), float(rng.uniform(0.15, 0.85) * h))
    angle = rng.uniform(0, 2 * math.pi)
    reach = 700.0
    entry = (tip[0] + reach * math.cos(angle), tip[1] + reach * math.sin(angle))
    skin = SKIN_TONES_BGR[int(rng.integers(len(SKIN_TONES_BGR)))]
    skin = tuple(int(np.clip(c + rng.integers(-12, 13), 0, 255)) for c in skin)
    sleeve = None
    if rng.random() < 0.5:
        sleeve = tuple(int(v) for v in rng.integers(20, 220, size=3))
    holding = None
    if players and rng.random() < 0.4:
        holding = str(players[int(rng.integers(len(players)))])
    return Hand(entry, tip, float(rng.uniform(40.0, 160.0)), skin,
                float(rng.uniform(0.0, 1.0)), sleeve, bool(rng.random() < 0.3),
                float(rng.uniform(0.5, 0.9) if holding else rng.uniform(0.0, 0.9)), holding)


CARD_COLOURS = ("#f4f4f0", "#fafafa", "#d6322b", "#2a5bd7", "#f2c200", "#222222", "#3c9a3c")


def random_clutter(layout: Layout, rng: np.random.Generator, count: int) -> tuple[Card, ...]:
    """Cards and pads around the board, clear of the board and of the marker cards."""
    w, h = layout.board_size_mm
    half = layout.markers.size_mm / 2.0 + 12.0
    cards: list[Card] = []
    for _ in range(count * 40):
        if len(cards) == count:
            break
        cw, cl = (59.0, 91.0) if rng.random() < 0.7 else (100.0, 140.0)
        x = float(rng.uniform(-250, w + 250))
        y = float(rng.uniform(-250, h + 250))
        reach = math.hypot(cw, cl) / 2 + 4
        if -reach < x < w + reach and -reach < y < h + reach:
            continue  # on or touching the board
        if any(abs(x - mx) < half + reach and abs(y - my) < half + reach
               for mx, my in layout.markers.centres_mm):
            continue
        if layout.dice_area_mm is not None:
            x0, y0, x1, y1 = layout.dice_area_mm
            if x0 - reach < x < x1 + reach and y0 - reach < y < y1 + reach:
                continue
        cards.append(Card(x, y, cw, cl, float(rng.uniform(0, 180)),
                          CARD_COLOURS[int(rng.integers(len(CARD_COLOURS)))]))
    return tuple(cards)


def random_cable(layout: Layout, rng: np.random.Generator, tries: int = 30) -> Cable | None:
    """A cable sweeping in from outside the view and out again, clear of the board, the
    markers and the dice area (or None if no such curve was found)."""
    w, h = layout.board_size_mm
    keep_out = [(-45.0, -45.0, w + 45.0, h + 45.0)]
    if layout.dice_area_mm is not None:
        x0, y0, x1, y1 = layout.dice_area_mm
        keep_out.append((x0 - 15, y0 - 15, x1 + 15, y1 + 15))
    centre = np.array([w / 2, h / 2])
    for _ in range(tries):
        a = rng.uniform(0, 2 * math.pi)
        b = a + rng.uniform(0.4, 1.4) * rng.choice([-1, 1])
        far = max(w, h) * 1.8
        p0 = centre + far * np.array([math.cos(a), math.sin(a)])
        p2 = centre + far * np.array([math.cos(b), math.sin(b)])
        mid = (a + b) / 2
        p1 = centre + max(w, h) * rng.uniform(0.75, 1.1) * np.array([math.cos(mid), math.sin(mid)])
        t = np.linspace(0, 1, 48)[:, None]
        curve = (1 - t) ** 2 * p0 + 2 * (1 - t) * t * p1 + t ** 2 * p2
        clear = all(
            not np.any((curve[:, 0] > x0) & (curve[:, 0] < x1) & (curve[:, 1] > y0)
                       & (curve[:, 1] < y1))
            for x0, y0, x1, y1 in keep_out
        )
        if clear:
            colour = "#1a1a1a" if rng.random() < 0.7 else "#e8e8e8"
            return Cable(tuple((float(x), float(y)) for x, y in curve),
                         float(rng.uniform(3.5, 7.0)), colour)
    return None


def random_scene(
    layout: Layout,
    rng: np.random.Generator,
    players: list[str] | None = None,
    *,
    fill: float | None = None,
    hand_prob: float = 0.25,
    hidden_marker_prob: float = 0.05,
    dice: int | None = None,
    hard: bool = True,
) -> Scene:
    """A varied, realistic and deliberately hard table.

    ``players`` are piece colour names (default: 2-4 of the layout's colours); ``fill`` is the
    share of playable fields occupied (default random); ``dice`` the number of dice (default:
    0-5 when the layout has a dice area). ``hard=False`` gives tame light and no hand.
    """
    colours = list(layout.piece_colours)
    if players is None:
        k = int(rng.integers(2, len(colours) + 1))
        players = [colours[i] for i in sorted(rng.choice(len(colours), size=k, replace=False))]
    for p in players:
        if p not in layout.piece_colours:
            raise ValueError(f"{layout.title} has no {p!r} pieces (colours: {', '.join(colours)})")
    if fill is None:
        fill = float(rng.uniform(0.0, 0.7))
    if dice is None:
        dice = int(rng.integers(0, 6)) if layout.dice_area_mm is not None else 0
    hand = random_hand(layout, rng, players) if hard and rng.random() < hand_prob else None
    lighting = random_lighting(rng, hard)
    hidden: set[int] = set()
    if hard:
        hidden = {i for i in range(4) if rng.random() < hidden_marker_prob}
    return Scene(
        layout=layout,
        stacks=random_stacks(layout, rng, players, fill),
        dice=random_dice(layout, rng, dice),
        hand=hand,
        lighting=lighting,
        table=str(rng.choice(TABLE_KINDS, p=TABLE_WEIGHTS)),
        # A dim room means more gain, so more noise.
        noise_sigma=float(min(10.0, (rng.uniform(1.0, 5.0) if hard else rng.uniform(0.5, 2.0))
                              / min(1.0, lighting.exposure))),
        blur_sigma=float(rng.uniform(0.0, 1.4) if hard else rng.uniform(0.0, 0.6)),
        sharpen=float(rng.uniform(0.3, 1.2)) if hard and rng.random() < 0.3 else 0.0,
        chromatic_px=float(rng.uniform(0.5, 2.0)) if hard and rng.random() < 0.3 else 0.0,
        # picamera2 hands over raw frames; JPEG comes in with recorded or streamed ones.
        jpeg_quality=int(rng.integers(55, 96)) if hard and rng.random() < 0.5 else None,
        markers_hidden=frozenset(hidden),
        clutter=random_clutter(layout, rng, int(rng.integers(0, 4))) if hard else (),
        cables=tuple(c for c in [random_cable(layout, rng)] if c is not None)
        if hard and rng.random() < 0.25 else (),
        motion_blur_px=float(rng.uniform(2, 9)) if hard and rng.random() < 0.12 else 0.0,
        motion_blur_deg=float(rng.uniform(0, 180)),
        seed=int(rng.integers(0, 2**31 - 1)),
        piece_style="groove" if hard and rng.random() < 0.3 else "plain",
        marker_offsets=tuple(
            (float(rng.normal(0, 0.6)), float(rng.normal(0, 0.6)), float(rng.normal(0, 1.0)))
            for _ in range(4)) if hard else None,
    )
