"""Field state: what lies on each field, read from a top-down view of the board.

The frame is warped onto the table plane (a rectified board image in mm). In that
image a piece of height z at field centre c is not a disc: its top face is scaled about
the camera's nadir N by D/(D - z) (see :mod:`vision.pose`), so a stack of h pieces
covers the convex hull of its base disc and its lifted top disc. The reader predicts
that silhouette for every candidate height and takes the height whose silhouette best
agrees with the image: each extra layer adds a sliver that should show piece colours
(if the stack is that tall) or the printed board (if not). The top colour is the
player colour covering the predicted top face. Board colours are never mistaken for
pieces because every pixel is compared with the colour the *empty* board has at that
very spot (from the layout), as well as with the players' colours.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, NamedTuple

import cv2
import numpy as np

from vision.calibration import ColourCalibration, bgr_to_lab, hex_to_bgr, lab_to_bgr
from vision.config import VisionConfig
from vision.errors import VisionError
from vision.pose import Camera, Pose

if TYPE_CHECKING:  # the layout's data model is the rules core's; vision only reads it
    from companion.layout import Layout

FOREIGN = 255  # a pixel that matches no board or piece colour
UNKNOWN = -1  # board spot whose empty colour the layout does not say


class FieldState(NamedTuple):
    """What one field shows (before occlusion is taken into account). A named tuple:
    a frozen dataclass took 3 us to build, a Spexxx frame builds several hundred."""

    name: str
    top_colour: str | None
    height: int
    confidence: float


#: Label of a pixel that shows the empty board as the layout predicts it there.
BOARD = 254
#: Lab bins, 8 levels wide per channel: the length of a colour table's row.
_BINS = 32**3
#: Each Lab bin's centre, one plane per channel (L, a, b), bins in table order.
_BIN_CENTRES = [c.ravel() for c in np.meshgrid(*[np.arange(32) * 8 + 4.0] * 3,
                                               indexing="ij")]


class ColourClasses:
    """Per-pixel colour labelling by lookup tables over 8-bit Lab (bins of 8).

    Each pixel is compared with the players' colours and with the one board colour the
    layout predicts at that spot, never with board colours printed elsewhere: a white
    stone must not be mistaken for the white board margin, nor a red stone for the red
    zone two fields away.
    """

    def __init__(self, layout: Layout, calibration: ColourCalibration, config: VisionConfig):
        self.players = list(calibration.colours)
        board_hex = dict(layout.field_colours)
        board_hex.setdefault("board", config.default_board_hex)
        self.board = list(board_hex)
        player_labs = np.array([calibration.colours[p] for p in self.players])
        #: Each player's colour as normalised BGR (0-255, float).
        self.player_bgr = np.array([lab_to_bgr(lab) for lab in player_labs])
        #: Players whose colour a lamp's glare can make of the board (white stones): see
        #: :func:`washed_out_board`.
        self.whitish = [p for p in range(len(player_labs))
                        if np.linalg.norm(player_labs[p] - (255.0, 128.0, 128.0))
                        <= config.washed_piece_white_distance]
        self.board_bgr = np.array([hex_to_bgr(board_hex[b]) for b in self.board], np.float32)
        board_labs = np.array([bgr_to_lab(hex_to_bgr(board_hex[b])) for b in self.board])
        player_dist = self._distances(player_labs, config, config.glare_levels)  # (P, bins)
        self.nearest_player = player_dist.argmin(axis=0).astype(np.uint8)
        self.player_distance = player_dist.min(axis=0)
        # Little glare for the board: strongly washed board colours look like skin.
        distances = self._distances(board_labs, config, config.board_glare_levels)
        unknown = np.full((1, distances.shape[1]), np.inf, np.float32)
        self.board_distance = np.concatenate([distances, unknown]).ravel()
        self.threshold = config.colour_match_distance
        self.margin = config.board_preference
        # Every (board class, Lab bin) pair's label decided once, so a frame needs one
        # lookup per pixel; the last row is for pixels no reading looks at.
        rows = len(self.board) + 1
        self.decided = np.concatenate([
            self._decide(np.tile(self.nearest_player, rows), np.tile(self.player_distance, rows),
                         self.board_distance),
            np.full(_BINS, FOREIGN, np.uint8)])
        #: Board colour -> the players whose colour it matches but for a brightness ratio of
        #: at least ``look_alike_min_ratio``, with the log of that ratio (piece over board).
        self.look_alikes: dict[int, list[tuple[int, float]]] = {}
        #: Board colour -> the players whose piece matches it at the same brightness
        #: (Mühle's lines and a black stone): a pixel of it tells nothing of such a piece.
        self.shared: dict[int, list[int]] = {}
        for b, p, ratio in self._matches(player_labs):
            if abs(ratio) >= math.log(config.look_alike_min_ratio):
                self.look_alikes.setdefault(b, []).append((p, ratio))
            else:
                self.shared.setdefault(b, []).append(p)
        #: (darker, lighter) players whose colours differ in lightness alone (black and
        #: white stones): see :func:`split_lightness`.
        self.lightness_pairs = [
            (p, q) for p in range(len(player_labs)) for q in range(len(player_labs))
            if player_labs[q][0] - player_labs[p][0] >= config.lightness_pair_min
            and np.hypot(*(player_labs[q][1:] - player_labs[p][1:]))
            <= config.lightness_pair_chroma]
        #: Players told by colour, not lightness (magenta, cyan): see
        #: :func:`frame_colour_pieces`.
        self.colourful = [p for p in range(len(player_labs))
                          if np.hypot(*(player_labs[p][1:] - 128)) > config.frame_colour_chroma]

    def _matches(self, player_labs: np.ndarray) -> list[tuple[int, int, float]]:
        """(board colour, player, log brightness ratio piece over board) for each board
        colour a player's colour matches within ``colour_match_distance`` at some light
        level."""
        rows = self.board_distance.reshape(len(self.board) + 1, -1)
        bins = self.bins(np.uint8(np.clip(player_labs, 0, 255)))
        found = []
        for p, lab in enumerate(player_labs):
            bgr = lab_to_bgr(lab)
            for b, printed in enumerate(self.board_bgr):
                if rows[b, bins[p]] <= self.threshold:
                    found.append((b, p, math.log(max(bgr.mean(), 1.0)
                                                 / max(float(printed.mean()), 1.0))))
        return found

    def board_index(self, name: str) -> int:
        return self.board.index(name)

    @staticmethod
    def _distances(labs: np.ndarray, config: VisionConfig,
                   glare_levels: tuple[float, ...]) -> np.ndarray:
        """Distance from every Lab bin to each colour, the colour taken at several light
        levels (shadows, shaded tower sides, uneven lamps: same paint, less light) and
        washed towards white by glare."""
        weights = (config.lightness_weight, 1.0, 1.0)
        out = np.empty((len(labs), _BIN_CENTRES[0].size), np.float32)
        for index, lab in enumerate(labs):
            bgr = lab_to_bgr(lab)
            shaded = [bgr * level for level in config.shade_levels]
            glared = [bgr + (255 - bgr) * g for g in glare_levels]
            # the least squared distance over the variants, one channel plane at a time
            # (a (bins, variants, 3) array made building a reader's tables ~80 ms)
            nearest = None
            for variant in shaded + glared:
                lab_v = bgr_to_lab(np.clip(variant, 0, 255))
                d0, d1, d2 = ((c - v) * w for c, v, w
                              in zip(_BIN_CENTRES, lab_v, weights, strict=True))
                squared = d0 * d0 + d1 * d1
                squared += d2 * d2
                nearest = squared if nearest is None else np.minimum(nearest, squared,
                                                                     out=nearest)
            out[index] = np.sqrt(nearest)
        return out

    def offsets(self, expected: np.ndarray, within: np.ndarray | None = None) -> np.ndarray:
        """Table offsets of an expected-class map (unknown spots get an all-inf row);
        computed once per geometry so each frame needs a single lookup. Given ``within``
        (flat pixel indices), the others are for :meth:`label` alone, which calls them
        FOREIGN."""
        rows = np.where(expected >= 0, expected, len(self.board)).astype(np.int32)
        if within is not None:
            unread = np.ones(rows.size, bool)
            unread[within] = False
            rows.reshape(-1)[unread] = len(self.board) + 1
        return rows * _BINS

    @staticmethod
    def bins(lab: np.ndarray) -> np.ndarray:
        # shifted as 8-bit first: widening the whole image before the shift took 6x longer
        q = lab >> 3
        return ((q[..., 0].astype(np.int32) << 10) | (q[..., 1].astype(np.int32) << 5)
                | q[..., 2])

    def board_distance_at(self, lab: np.ndarray, offsets: np.ndarray) -> np.ndarray:
        """Each pixel's distance to the board colour expected there (inf where unknown);
        ``offsets`` from :meth:`offsets`."""
        return self.board_distance[offsets + self.bins(lab)]

    def label(self, lab: np.ndarray, offsets: np.ndarray,
              alternatives: tuple[np.ndarray, list[np.ndarray]] | None = None) -> np.ndarray:
        """Per pixel: the player index, BOARD (matches the predicted empty board) or
        FOREIGN (matches neither: a hand, a sleeve, glare); ``offsets`` from
        :meth:`offsets` of the expected board classes (pixels left out there are
        FOREIGN: the reader uses no others). ``alternatives`` are other Lab values some
        pixels (flat indices) may have had (clipped channels:
        :func:`~vision.calibration.clipped_variants`): each colour is matched there by
        the value that fits it best."""
        at = offsets + self.bins(lab)
        labels = self.decided[at]
        if alternatives is not None and alternatives[1]:
            index, others = alternatives
            printed_at = at.ravel()[index]
            seen = printed_at % _BINS
            printed_at -= seen
            best, d_best = self.nearest_player[seen], self.player_distance[seen]
            d_printed = self.board_distance[printed_at + seen]
            for other in others:
                alt = self.bins(other)
                d_alt = self.player_distance[alt]
                nearer = d_alt < d_best
                best = np.where(nearer, self.nearest_player[alt], best)
                d_best = np.where(nearer, d_alt, d_best)
                d_printed = np.minimum(d_printed, self.board_distance[printed_at + alt])
            labels.reshape(-1)[index] = self._decide(best, d_best, d_printed)
        return labels

    def _decide(self, player: np.ndarray, d_player: np.ndarray, d_board: np.ndarray
                ) -> np.ndarray:
        labels = np.full(player.shape, FOREIGN, np.uint8)
        # A pixel is a piece only when clearly nearer a player colour than the board
        # colour printed there: a white stone must outshine a brightly lit silver zone.
        is_board = (d_board <= d_player + self.margin) & (d_board <= self.threshold)
        is_piece = (d_player + self.margin < d_board) & (d_player <= self.threshold)
        labels[is_board] = BOARD
        labels[is_piece] = player[is_piece]
        return labels


@dataclass
class BoardGeometry:
    """Everything about the rectified view that depends only on where board and camera
    are: built once per homography and reused while the camera stays put."""

    px_per_mm: float
    origin_mm: tuple[float, float]
    size: tuple[int, int]  # width, height of the rectified image
    warp: np.ndarray  # rectified px -> undistorted frame px
    maps: tuple[np.ndarray, np.ndarray] | None  # remap tables when the lens distorts
    expected: np.ndarray  # rectified px -> board colour class (or UNKNOWN)
    names: list[str]
    max_height: int
    sliver_idx: np.ndarray  # flat pixel indices of all (field, height) slivers
    sliver_seg: np.ndarray  # segment id field * max_height + (h - 1) for each index
    sliver_area: np.ndarray  # pixels per segment
    top_idx: np.ndarray
    top_seg: np.ndarray
    top_area: np.ndarray
    field_idx: np.ndarray  # each field's own square, for occlusion
    field_seg: np.ndarray
    field_area: np.ndarray
    field_box: np.ndarray | None = None  # (F, 4) each square's x0, y0, x1, y1 (px, exclusive)
    plain: np.ndarray | None = None  # plain printed board: away from printed edges
    plain_sample: np.ndarray | None = None  # flat indices of some plain board pixels
    plain_printed: np.ndarray | None = None  # (n, 3) BGR printed there, at least 1
    profile_maps: tuple[np.ndarray, np.ndarray] | None = None  # (F * lines, K) frame px
    profile_offsets: np.ndarray | None = None  # (F * lines, K) board class lookup there
    profile_printed: np.ndarray | None = None  # (F * lines, K) the layout says the colour
    expected_offsets: np.ndarray | None = None  # ColourClasses.offsets of ``expected``
    profile_lines: int = 1
    profile_t: np.ndarray | None = None  # (K,) distance along the radial line, mm
    outline_maps: tuple[np.ndarray, np.ndarray] | None = None  # (F * J, L) frame px
    outline_offsets: np.ndarray | None = None  # (F * J, L) board class lookup there
    outline_printed: np.ndarray | None = None  # (3, F * J, L) printed BGR there (0: none)
    outline_on_board: np.ndarray | None = None  # (F * J, L) the layout says the colour
    outline_lines: int = 0  # J, outline lines per field
    #: (F, H, S * J * 2) each height's silhouette, per base shift and outline line, as
    #: its near and far ends: a cell of the line's running sum and the fraction past it
    outline_cells: np.ndarray | None = None
    outline_fracs: np.ndarray | None = None
    predicted_length: np.ndarray | None = None  # (F, H) silhouette length per height, mm
    predicted_near: np.ndarray | None = None  # (F,) near edge of a centred base, mm
    face_chord_mm: float = 0.0  # a piece's face along the profile lines, mean over them
    home: np.ndarray | None = None  # flat rectified px -> the one field whose square or
    # tallest tower's silhouette covers it (-1 none, -2 several)
    predicted_far: np.ndarray | None = None  # (F, H) far edge from the field centre, mm
    board_size_mm: tuple[float, float] = (0.0, 0.0)
    silhouette_bias_mm: float = 0.0  # see VisionConfig.silhouette_bias_mm
    #: Fields printed in a colour a player's piece matches but for brightness: (field,
    #: board class, flat px of a one-piece top face, flat px of the square's corners
    #: no centred piece covers, flat px of a one-piece silhouette outside its top face),
    #: see :func:`look_alike_pieces`.
    look_alike: list[tuple[int, int, np.ndarray, np.ndarray, np.ndarray]] = field(
        default_factory=list)
    #: (player, per sliver pixel: printed, beside the field's own colour, in a colour that
    #: player's piece shares - :attr:`ColourClasses.shared`: Mühle's lines for black).
    sliver_shared: list[tuple[int, np.ndarray]] = field(default_factory=list)
    #: Games without stacks: flat px of the board printed around each field in its own
    #: colour, beyond every piece's silhouette (see :func:`washed_out_board`), field by
    #: field, and how many each field has.
    surround_idx: np.ndarray | None = None
    surround_area: np.ndarray | None = None
    #: Games with stacks: flat px of each field's square in its own print beyond its
    #: one-piece silhouette (see :func:`washed_out_pieces`), field by field, and how
    #: many each field has.
    square_idx: np.ndarray | None = None
    square_area: np.ndarray | None = None
    #: Per field, the board colour class its own square is printed in.
    printed: np.ndarray | None = None
    #: Per field, whether a piece may lie there (not Spexxx's unplayable cells).
    playable: np.ndarray | None = None
    #: (F, 2) each field's centre on the board, mm.
    centres_mm: np.ndarray | None = None
    #: The flat rectified pixels :func:`read_fields` reads (in some field's sliver or top
    #: face), sorted; the labels of no other pixel are used.
    read_px: np.ndarray | None = None
    #: :attr:`expected_offsets` with every pixel but :attr:`read_px` left out, for
    #: :meth:`ColourClasses.label`.
    label_offsets: np.ndarray | None = None

    def to_px(self, points_mm: np.ndarray) -> np.ndarray:
        return (np.asarray(points_mm, dtype=np.float64) - self.origin_mm) * self.px_per_mm

    def rectify(self, frame: np.ndarray) -> np.ndarray:
        if self.maps is not None:
            return cv2.remap(frame, self.maps[0], self.maps[1], cv2.INTER_LINEAR)
        return cv2.warpPerspective(frame, self.warp, self.size,
                                   flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)

    @cached_property
    def top_centres(self) -> np.ndarray:
        """(F * max_height, 2) x, y of each top face's centre (rectified px): once per
        geometry, not per frame (:func:`lit_discs`)."""
        width = self.size[0]
        area = np.maximum(self.top_area, 1)
        return np.stack([np.bincount(self.top_seg, self.top_idx % width, len(area)),
                         np.bincount(self.top_seg, self.top_idx // width, len(area))],
                        axis=1) / area[:, None]


def layer_pitch(layout: Layout, config: VisionConfig) -> float:
    """How much each piece adds to a tower's height: a disc its thickness, a roof only
    the part of its wall that the next roof does not swallow when nested."""
    ratio = config.roof_nesting_ratio if layout.piece.shape == "roof" else 1.0
    return layout.piece.height_mm * ratio


def silhouette_bias(shape: str, config: VisionConfig) -> float:
    """How much longer than its geometry a tower of this piece shape measures (mm)."""
    biases = dict(config.silhouette_bias_mm)
    if shape not in biases:
        raise VisionError(f"no silhouette bias configured for {shape!r} pieces")
    return float(biases[shape])


def rectified_scale(layout: Layout, config: VisionConfig) -> float:
    """Pixels per mm of the rectified image: enough pixels across the smallest piece."""
    wanted = config.min_piece_px / layout.piece.diameter_mm
    return float(min(config.max_px_per_mm, max(config.rectified_px_per_mm, wanted)))


def build_geometry(layout: Layout, homography: np.ndarray, pose: Pose, camera: Camera,
                   classes: ColourClasses, config: VisionConfig) -> BoardGeometry:
    ppm = rectified_scale(layout, config)
    piece = layout.piece
    max_height = max(1, min(piece.max_stack, config.max_tower_height))
    radius = piece.diameter_mm / 2
    names = list(layout.fields)
    centres = np.array([layout.fields[n].centre_mm for n in names])
    heights = np.arange(1, max_height + 1) * layer_pitch(layout, config)
    lens = pose.height_mm
    if lens <= heights[-1] + 1:
        raise VisionError("the camera seems lower than the tallest tower: check the markers")
    scales = lens / (lens - heights)  # (H,)
    tops = pose.lift(centres[:, None, :], heights[None, :])  # (F, H, 2)
    top_r = radius * scales

    # Rectified area: the board plus everywhere a top face can appear.
    w, h = layout.board_size_mm
    reach = np.concatenate([tops.reshape(-1, 2) - top_r[-1], tops.reshape(-1, 2) + top_r[-1]])
    limit = np.array([60.0, 60.0])
    lo = np.maximum(np.minimum(reach.min(axis=0), 0) - 2, -limit)
    hi = np.minimum(np.maximum(reach.max(axis=0), [w, h]) + 2, np.array([w, h]) + limit)
    size = tuple(int(math.ceil(v)) for v in (hi - lo) * ppm)
    origin = (float(lo[0]), float(lo[1]))
    to_mm = np.array([[1 / ppm, 0, origin[0]], [0, 1 / ppm, origin[1]], [0, 0, 1]])
    warp = homography @ to_mm
    maps = None
    if camera.k1:
        xs, ys = np.meshgrid(np.arange(size[0]), np.arange(size[1]))
        pts = np.stack([xs.ravel(), ys.ravel(), np.ones(xs.size)])
        ideal = warp @ pts
        raw = camera.distort((ideal[:2] / ideal[2]).T).astype(np.float32)
        maps = (raw[:, 0].reshape(size[1], size[0]).copy(),
                raw[:, 1].reshape(size[1], size[0]).copy())

    geometry = BoardGeometry(
        ppm, origin, size, warp, maps, np.empty(0), names, max_height,
        *([np.empty(0, np.int64)] * 9))
    geometry.board_size_mm = (float(w), float(h))
    geometry.centres_mm = centres
    geometry.silhouette_bias_mm = silhouette_bias(piece.shape, config)
    geometry.expected = expected_board(layout, geometry, classes, config)
    geometry.expected_offsets = classes.offsets(geometry.expected)

    sliver_idx, sliver_seg, top_idx, top_seg, field_idx, field_seg = [], [], [], [], [], []
    field_box = []
    width_px, height_px = size
    for f, name in enumerate(names):
        base = geometry.to_px(centres[f])
        ring = _circle(base, radius * ppm)
        top_px = geometry.to_px(tops[f])  # (H, 2)
        # the field's masks are drawn in a window round all its towers, not the whole
        # rectified image: a full-size mask per field and height made most of a cold read
        reach = (top_r * ppm)[:, None]
        lo = np.floor(np.minimum(ring.min(axis=0), (top_px - reach).min(axis=0))) - 2
        hi = np.ceil(np.maximum(ring.max(axis=0), (top_px + reach).max(axis=0))) + 3
        x0, y0 = np.maximum(lo, 0).astype(int)
        x1, y1 = np.maximum(np.minimum(hi, [width_px, height_px]).astype(int), [x0, y0])
        window = (y1 - y0, x1 - x0)
        previous = None
        for k in range(max_height):
            hull = cv2.convexHull(np.concatenate([ring, _circle(top_px[k], top_r[k] * ppm)]))
            mask = np.zeros(window, np.uint8)
            cv2.fillConvexPoly(mask, (np.rint(hull) - (x0, y0)).astype(np.int32), 1)
            sliver = mask if previous is None else mask & (1 - previous)
            ys, xs = np.nonzero(sliver)
            flat = (ys + y0) * width_px + xs + x0
            sliver_idx.append(flat)
            sliver_seg.append(np.full(flat.size, f * max_height + k))
            previous = mask
            inner = np.zeros(window, np.uint8)
            cv2.circle(inner, tuple(np.rint(top_px[k]).astype(int) - (x0, y0)),
                       max(1, int(top_r[k] * ppm * config.top_face_inner_ratio)), 1, -1)
            ys, xs = np.nonzero(inner)
            flat = (ys + y0) * width_px + xs + x0
            top_idx.append(flat)
            top_seg.append(np.full(flat.size, f * max_height + k))
        half = layout.fields[name].size_mm / 2 * ppm
        x0, y0 = np.rint(base - half).astype(int)
        x1, y1 = np.rint(base + half).astype(int)
        x0, y0 = max(x0, 0), max(y0, 0)
        x1, y1 = max(min(x1, width_px), x0), max(min(y1, height_px), y0)
        field_box.append((x0, y0, x1, y1))
        ys, xs = np.mgrid[y0:y1, x0:x1]
        flat = (ys * width_px + xs).ravel()
        field_idx.append(flat)
        field_seg.append(np.full(flat.size, f))
    _build_profiles(geometry, pose, camera, centres, scales, radius, config)
    if max_height > 1 and config.outline_weight > 0:
        _build_outlines(geometry, pose, camera, classes, centres, scales, radius, config)
    segments = len(names) * max_height
    # Printed edges and lines are where the board image is least predictable.
    expected = geometry.expected
    edges = np.zeros(expected.shape, np.uint8)
    edges[:, 1:] |= (expected[:, 1:] != expected[:, :-1]).astype(np.uint8)
    edges[1:, :] |= (expected[1:, :] != expected[:-1, :]).astype(np.uint8)
    near = max(1, int(round(config.print_edge_margin_mm * ppm)))
    edges = cv2.dilate(edges, np.ones((2 * near + 1, 2 * near + 1), np.uint8))
    geometry.plain = ((edges == 0) & (expected >= 0)).astype(np.uint8)
    geometry.plain_sample = np.flatnonzero(geometry.plain)[::config.cast_sample_step]
    geometry.plain_printed = np.maximum(
        classes.board_bgr[expected.ravel()[geometry.plain_sample]], 1.0)
    geometry.sliver_idx = np.concatenate(sliver_idx)
    geometry.sliver_seg = np.concatenate(sliver_seg)
    geometry.sliver_area = np.bincount(geometry.sliver_seg, minlength=segments)
    geometry.printed = np.array([classes.board_index(c) if (c := layout.fields[name].printed)
                                 in classes.board else classes.board_index("board")
                                 for name in geometry.names])
    geometry.playable = np.array([layout.fields[name].attrs.get("playable", True)
                                  for name in geometry.names], bool)
    geometry.sliver_shared = _sliver_shared(geometry, classes)
    geometry.top_idx = np.concatenate(top_idx)
    geometry.top_seg = np.concatenate(top_seg)
    geometry.top_area = np.bincount(geometry.top_seg, minlength=segments)
    geometry.field_idx = np.concatenate(field_idx)
    geometry.field_seg = np.concatenate(field_seg)
    geometry.field_area = np.bincount(geometry.field_seg, minlength=len(names))
    geometry.field_box = np.array(field_box, np.int64).reshape(-1, 4)
    geometry.home = _homes(geometry, config.tower_change_margin_mm * ppm)
    geometry.look_alike = _look_alike_fields(layout, geometry, classes, config)
    if max_height == 1:
        geometry.surround_idx, geometry.surround_area = _surrounds(layout, geometry, config)
    else:
        geometry.square_idx, geometry.square_area = _squares(geometry, config)
    read = np.zeros(size[0] * size[1], bool)
    read[geometry.sliver_idx] = read[geometry.top_idx] = True
    geometry.read_px = np.flatnonzero(read)
    geometry.label_offsets = classes.offsets(geometry.expected, geometry.read_px)
    return geometry


def _sliver_shared(geometry: BoardGeometry,
                   classes: ColourClasses) -> list[tuple[int, np.ndarray]]:
    """:attr:`BoardGeometry.sliver_shared`."""
    printed = geometry.expected.ravel()[geometry.sliver_idx]
    beside = printed != geometry.printed[geometry.sliver_seg // geometry.max_height]
    players = sorted({p for shared in classes.shared.values() for p in shared})
    return [(p, beside & np.isin(printed, [b for b, shared in classes.shared.items()
                                           if p in shared]))
            for p in players]


def _look_alike_fields(layout: Layout, geometry: BoardGeometry, classes: ColourClasses,
                       config: VisionConfig
                       ) -> list[tuple[int, int, np.ndarray, np.ndarray, np.ndarray]]:
    """:attr:`BoardGeometry.look_alike`: for each field whose square is printed in a
    look-alike colour (:attr:`ColourClasses.look_alikes`; not Mühle's points, a dark dot
    on the board), its one-piece top face, the pixels of its square beyond a piece's
    silhouette (its first sliver) grown by ``look_alike_margin_mm``, and that silhouette
    outside the top face: none on a cell where no piece may lie (Spexxx's unplayable
    cells, whose printed stroke darkens it)."""
    if not classes.look_alikes or geometry.max_height > 1:
        return []  # tall towers shade the squares around them: a ratio would lie there
    grow = max(1, int(round(config.look_alike_margin_mm * geometry.px_per_mm)))
    found = []
    for f, name in enumerate(geometry.names):
        colour = layout.fields[name].printed
        board = classes.board_index(colour) if colour in classes.board else -1
        if board not in classes.look_alikes:
            continue
        square = _segment(geometry.field_idx, geometry.field_area, f)
        printed = geometry.expected.ravel()[square]
        silhouette = _segment(geometry.sliver_idx, geometry.sliver_area, f * geometry.max_height)
        rim = square[_clear_of(square, silhouette, grow, geometry.size) & (printed == board)]
        if len(rim) >= config.look_alike_min_rim_px:
            top = _segment(geometry.top_idx, geometry.top_area, f * geometry.max_height)
            ring = (np.setdiff1d(silhouette, top) if layout.fields[name].attrs.get(
                "playable", True) else np.zeros(0, np.int64))
            found.append((f, board, top, rim, ring))
    return found


def _surrounds(layout: Layout, geometry: BoardGeometry, config: VisionConfig
               ) -> tuple[np.ndarray, np.ndarray]:
    """:attr:`BoardGeometry.surround_idx` and ``surround_area``: for each field, the
    pixels within ``washed_surround_mm`` beyond a piece's radius of its centre that are
    printed in the field's own colour (not Mühle's lines and dots) and lie outside every
    field's piece silhouette grown by ``washed_margin_mm``."""
    width, height = geometry.size
    ppm = geometry.px_per_mm
    covered = np.zeros(height * width, np.uint8)
    covered[geometry.sliver_idx] = 1  # one layer: the slivers are the silhouettes
    grow = max(1, int(round(config.washed_margin_mm * ppm)))
    plain = cv2.dilate(covered.reshape(height, width),
                       np.ones((2 * grow + 1, 2 * grow + 1), np.uint8)) == 0
    reach = (layout.piece.diameter_mm / 2 + config.washed_surround_mm) * ppm
    # every field's square window round its centre at once (a loop over Spexxx's fields
    # took 20-40 ms a geometry), in field, row, column order
    centres = geometry.to_px(geometry.centres_mm)
    steps = np.arange(int(2 * reach) + 3)
    xs = np.floor(centres[:, :1] - reach).astype(np.int64) + steps  # (F, side)
    ys = np.floor(centres[:, 1:] - reach).astype(np.int64) + steps
    inside = ((ys >= 0) & (ys < height))[:, :, None] & ((xs >= 0) & (xs < width))[:, None, :]
    yc, xc = np.clip(ys, 0, height - 1)[:, :, None], np.clip(xs, 0, width - 1)[:, None, :]
    near = (inside & plain[yc, xc] & (geometry.expected[yc, xc] == geometry.printed[:, None, None])
            & (np.hypot(xs[:, None, :] - centres[:, :1, None],
                        ys[:, :, None] - centres[:, 1:, None]) <= reach))
    field, row, col = np.nonzero(near)
    return (ys[field, row] * width + xs[field, col],
            np.bincount(field, minlength=len(centres)).astype(np.int64))


def _squares(geometry: BoardGeometry, config: VisionConfig) -> tuple[np.ndarray, np.ndarray]:
    """:attr:`BoardGeometry.square_idx` and ``square_area``: each field's square printed
    in its own colour, outside its one-piece silhouette grown by ``washed_margin_mm``."""
    grow = max(1, int(round(config.washed_margin_mm * geometry.px_per_mm)))
    expected = geometry.expected.ravel()
    found = []
    for f in range(len(geometry.names)):
        square = _segment(geometry.field_idx, geometry.field_area, f)
        own = _segment(geometry.sliver_idx, geometry.sliver_area, f * geometry.max_height)
        keep = _clear_of(square, own, grow, geometry.size) & (expected[square]
                                                             == geometry.printed[f])
        found.append(square[keep])
    return (np.concatenate(found).astype(np.int64),
            np.array([len(px) for px in found], np.int64))


def _segment(idx: np.ndarray, area: np.ndarray, segment: int) -> np.ndarray:
    """The flat px of one segment of ``idx``, whose segments are stored one after the
    other in order with ``area`` px each: a slice, not a mask over all of them."""
    start = int(area[:segment].sum())
    return idx[start:start + int(area[segment])]


def _clear_of(pixels: np.ndarray, cover: np.ndarray, grow: int, size: tuple[int, int]
              ) -> np.ndarray:
    """Which of the flat rectified ``pixels`` lie more than ``grow`` px (in x or y) from
    every ``cover`` pixel: a square dilation, done in a window round ``pixels`` only (a
    full-size image per field cost a cold read tens of ms)."""
    width, height = size
    if len(pixels) == 0:
        return np.ones(0, bool)
    ys, xs = np.divmod(pixels, width)
    x0, y0 = max(int(xs.min()) - grow, 0), max(int(ys.min()) - grow, 0)
    x1, y1 = min(int(xs.max()) + grow + 1, width), min(int(ys.max()) + grow + 1, height)
    cy, cx = np.divmod(cover, width)
    inside = (cx >= x0) & (cx < x1) & (cy >= y0) & (cy < y1)
    covered = np.zeros((y1 - y0, x1 - x0), np.uint8)
    covered[cy[inside] - y0, cx[inside] - x0] = 1
    covered = cv2.dilate(covered, np.ones((2 * grow + 1, 2 * grow + 1), np.uint8))
    return covered[ys - y0, xs - x0] == 0


def _homes(geometry: BoardGeometry, margin_px: float) -> np.ndarray:
    """For each rectified pixel, the field it belongs to: its square, or where its tallest
    tower could show, or (within ``margin_px``, outside every field's) the nearest of
    those, where a piece's shadow and rim fall when the pose is a little off; -1 for none,
    -2 where several fields' overlap."""
    pixels = geometry.size[0] * geometry.size[1]
    idx = np.concatenate([geometry.field_idx, geometry.sliver_idx])
    owner = np.concatenate([geometry.field_seg, geometry.sliver_seg // geometry.max_height])
    home = np.full(pixels, -1, np.int32)
    home[idx] = owner
    home[idx[home[idx] != owner]] = -2  # another field's write won there: several own it
    free = (home == -1).reshape(geometry.size[1], geometry.size[0]).astype(np.uint8)
    if margin_px <= 0 or free.all():
        return home
    # each free pixel's nearest owned pixel: labels number the zero pixels in scan order
    distance, nearest = cv2.distanceTransformWithLabels(
        free, cv2.DIST_L2, 5, labelType=cv2.DIST_LABEL_PIXEL)
    owned = np.flatnonzero(free.ravel() == 0)
    near = (free.ravel() == 1) & (distance.ravel() <= margin_px)
    home[near] = home[owned[nearest.ravel()[near] - 1]]
    return home


def _build_profiles(geometry: BoardGeometry, pose: Pose, camera: Camera, centres: np.ndarray,
                    scales: np.ndarray, radius: float, config: VisionConfig) -> None:
    """Sampling lines for each field along the direction away from the nadir (where a
    tower's top is displaced), and the silhouette length each height predicts there.
    They are sampled from the frame itself, at its full resolution: a layer moves the
    top by only 1-4 mm."""
    dist, u, v = _away_from_nadir(centres, pose)
    offsets = (scales - 1) * dist[:, None]  # (F, H) top-centre displacement, mm
    big = radius * scales  # (H,) top radius, mm
    band = config.profile_band_ratio
    lines = np.linspace(-band, band, config.profile_lines) * radius
    chord = float(np.mean(np.sqrt(1 - (lines / radius) ** 2)))
    near = np.minimum(-chord * radius, offsets - chord * big)
    far = np.maximum(chord * radius, offsets + chord * big)
    geometry.predicted_length = far - near
    geometry.predicted_near = near[:, 0]
    geometry.face_chord_mm = 2 * chord * radius
    geometry.predicted_far = far
    step = config.profile_step_mm
    margin = radius * 0.6
    t = np.arange(-(radius + margin), float(far.max()) + margin, step)  # mm, all fields
    geometry.profile_maps, rows, cols = _line_maps(geometry, camera, centres, u, v, t, lines)
    shape = geometry.profile_maps[0].shape
    geometry.profile_offsets = geometry.expected_offsets[rows, cols].reshape(shape)
    geometry.profile_printed = (geometry.expected[rows, cols] >= 0).reshape(shape)
    geometry.profile_lines = len(lines)
    geometry.profile_t = t


def _away_from_nadir(centres: np.ndarray, pose: Pose
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each field centre's distance from the nadir (mm), the unit direction away from it
    (where a tower's top is displaced; any for a field right below the lens) and the one
    square to it."""
    away = centres - pose.nadir_mm
    dist = np.linalg.norm(away, axis=1)
    u = np.where(dist[:, None] > 1e-6, away / np.maximum(dist, 1e-6)[:, None], [[1.0, 0.0]])
    return dist, u, np.stack([-u[:, 1], u[:, 0]], axis=1)


def _line_maps(geometry: BoardGeometry, camera: Camera, centres: np.ndarray, u: np.ndarray,
               v: np.ndarray, along: np.ndarray, across: np.ndarray
               ) -> tuple[tuple[np.ndarray, np.ndarray], np.ndarray, np.ndarray]:
    """Lines ``across`` mm to the side of each field centre, sampled ``along`` mm in the
    direction ``u`` (``v`` square to it): their frame pixels as remap maps (F * J, L), and
    the rectified board pixel of each sample (row, column), for the board's own tables."""
    points = (centres[:, None, None, :] + along[None, None, :, None] * u[:, None, None, :]
              + across[None, :, None, None] * v[:, None, None, :]).reshape(-1, 2)
    rect = geometry.to_px(points)
    ideal = cv2.perspectiveTransform(rect.reshape(-1, 1, 2), geometry.warp).reshape(-1, 2)
    px = camera.distort(ideal).astype(np.float32)
    shape = (len(centres) * len(across), len(along))
    width, height = geometry.size
    cols = np.clip(np.rint(rect[:, 0]).astype(int), 0, width - 1)
    rows = np.clip(np.rint(rect[:, 1]).astype(int), 0, height - 1)
    return (px[:, 0].reshape(shape).copy(), px[:, 1].reshape(shape).copy()), rows, cols


def _build_outlines(geometry: BoardGeometry, pose: Pose, camera: Camera,
                    classes: ColourClasses, centres: np.ndarray, scales: np.ndarray,
                    radius: float, config: VisionConfig) -> None:
    """Lines across each field's whole tower outline (along the direction away from the
    nadir, as the profile lines) and, once per geometry, every height's silhouette on
    them for every base shift searched (see :func:`fit_outlines`): per frame the fit is
    then only lookups (docs/vision.md "The whole-outline fit, made cheap")."""
    dist, u, v = _away_from_nadir(centres, pose)
    reach = radius * scales[-1] + config.outline_reach_mm
    side = min(reach, config.outline_band_ratio * radius)
    across = np.arange(-side, side + 1e-6, config.outline_line_mm)
    step = config.outline_step_mm
    far = float(((scales - 1)[None, :] * dist[:, None] + radius * scales).max())
    along = np.arange(-reach, far + config.outline_reach_mm + step, step)
    geometry.outline_maps, rows, cols = _line_maps(geometry, camera, centres, u, v, along,
                                                   across)
    shape = geometry.outline_maps[0].shape
    geometry.outline_offsets = geometry.expected_offsets[rows, cols].reshape(shape)
    printed = np.concatenate([classes.board_bgr, np.zeros((1, 3), np.float32)])
    geometry.outline_printed = np.ascontiguousarray(
        printed[geometry.expected[rows, cols]].T.reshape((3,) + shape))
    geometry.outline_on_board = (geometry.expected[rows, cols] >= 0).reshape(shape)
    geometry.outline_lines = len(across)
    # each height's silhouette: the hull of the base disc (centre a along, b across) and
    # the top disc lifted about N, one interval per line
    shifts = np.arange(-config.outline_shift_mm, config.outline_shift_mm + 1e-6,
                       config.outline_shift_step_mm)
    a = shifts[None, None, :, None, None]  # (1, 1, A, 1, 1)
    b = shifts[None, None, None, :, None]  # (1, 1, 1, B, 1)
    s = across[None, None, None, None, :]  # (1, 1, 1, 1, J)
    lift = scales[None, :, None, None, None]  # (1, H, 1, 1, 1)
    nadir = dist[:, None, None, None, None]  # (F, 1, 1, 1, 1)
    grow = config.outline_grow_mm
    base2 = (radius + grow) ** 2 - (s - b) ** 2
    top2 = (radius * lift + grow) ** 2 - (s - b * lift) ** 2
    half_base = np.sqrt(np.maximum(base2, 0))
    half_top = np.sqrt(np.maximum(top2, 0))
    centre = a + (lift - 1) * (nadir + a)
    near = np.minimum(np.where(base2 > 0, a - half_base, np.inf),
                      np.where(top2 > 0, centre - half_top, np.inf))
    far_end = np.maximum(np.where(base2 > 0, a + half_base, -np.inf),
                         np.where(top2 > 0, centre + half_top, -np.inf))
    near, far_end = np.broadcast_arrays(near, far_end)
    ends = np.stack([near, far_end], axis=-1)  # (F, H, A, B, J, 2)
    ends = np.where(np.isfinite(ends), ends, along[0])  # a line the silhouette misses: 0
    cells = len(along)  # per line: the running sum at each sample's start
    pos = np.clip((ends - along[0] + step / 2) / step, 0, cells - 1e-6)
    cell = pos.astype(np.intp)
    cell += (np.arange(len(across)) * cells)[:, None]
    fields, heights = ends.shape[:2]
    geometry.outline_cells = cell.reshape(fields, heights, -1)
    geometry.outline_fracs = (pos - np.floor(pos)).astype(np.float32).reshape(fields, heights,
                                                                               -1)


def outline_evidence(sampled: np.ndarray, fields: np.ndarray, geometry: BoardGeometry,
                     classes: ColourClasses, config: VisionConfig) -> np.ndarray:
    """Per outline sample of the given fields (n, J, L): how much it looks like a tower
    rather than the board, -1 .. 1, from its colour's difference to the board printed
    there, lit as that field's board samples are (their median ratio, seen over printed),
    against the median difference of its piece-coloured samples: a midpoint per tower, as
    :func:`_refine_edge` takes per line (a colour-label change puts an edge where the
    colour pair and the shading say), with the tower's median as far above it as the
    board below (evidence lopsided towards the board made the fit read towers low). Off
    the printed board a piece colour counts, nothing else. ``sampled`` is the normalised
    BGR of the fields' outline lines."""
    n, lines = len(fields), geometry.outline_lines
    rows = (fields[:, None] * lines + np.arange(lines)).ravel()
    least = config.outline_min_samples
    # channel planes: numpy's arithmetic over a trailing axis of 3 took 4x as long
    colours = np.stack(cv2.split(sampled)).astype(np.float32).reshape(3, n, lines, -1)
    printed = geometry.outline_printed[:, rows].reshape(3, n, lines, -1)
    # colour labels only where they are used: on every few lines, for the medians ...
    some = slice(None, None, config.outline_median_every)
    picked = sampled.reshape(n, lines, -1, 3)[:, some].reshape(-1, sampled.shape[1], 3)
    labels = classes.label(cv2.cvtColor(picked, cv2.COLOR_BGR2Lab),
                           geometry.outline_offsets[rows].reshape(n, lines, -1)[:, some]
                           .reshape(picked.shape[:2]))
    labels = labels.reshape(n, -1)
    ratio = (colours[:, :, some] / np.maximum(printed[:, :, some], 1.0)).reshape(3, n, -1)
    gain = _masked_medians(ratio, labels == BOARD, least, 1.0)  # (3, n)
    off = (colours - printed * gain[:, :, None, None]).reshape(3, n, -1)
    differs = np.sqrt(off[0] * off[0] + off[1] * off[1] + off[2] * off[2])  # (n, J * L)
    on_board = geometry.outline_on_board[rows].reshape(n, lines, -1)
    piece = labels < len(classes.players)
    inside = piece & on_board[:, some].reshape(n, -1)
    contrast = _masked_medians(differs.reshape(1, n, lines, -1)[:, :, some].reshape(1, n, -1),
                               inside, least, config.outline_default_contrast)[0][:, None]
    evidence = np.clip((differs - config.outline_contrast_ratio * contrast)
                       / np.maximum(config.outline_soft_ratio * contrast, 1.0), -1.0, 1.0)
    # ... and off the printed board, where only a piece colour counts
    outside = ~on_board.reshape(n, -1)
    if outside.any():
        seen = cv2.cvtColor(sampled.reshape(n, -1, 3)[outside][:, None], cv2.COLOR_BGR2Lab)
        unknown = geometry.outline_offsets[rows].reshape(n, -1)[outside][:, None]
        evidence[outside] = classes.label(seen, unknown)[:, 0] < len(classes.players)
    return evidence.reshape(n, lines, -1)


def _masked_medians(values: np.ndarray, mask: np.ndarray, least: int, default: float
                    ) -> np.ndarray:
    """Per channel plane and row of ``values`` (c, n, m), the median over the masked
    samples (n, m), in one sort; ``default`` for rows with fewer than ``least`` of them."""
    ordered = np.sort(np.where(mask, values, np.inf), axis=2)
    count = mask.sum(axis=1)
    rows = np.arange(mask.shape[0])
    low = ordered[:, rows, np.maximum(count - 1, 0) // 2]
    high = ordered[:, rows, np.minimum(count // 2, mask.shape[1] - 1)]
    return np.where(count >= least, (low + high) / 2, default)


def fit_outlines(evidence: np.ndarray, fields: np.ndarray, geometry: BoardGeometry,
                 config: VisionConfig) -> np.ndarray:
    """How well each height's whole outline explains the evidence (n, H), higher is
    better: the evidence (x mm along, per line) inside its predicted silhouette, best
    over where the base stands (:func:`_build_outlines`), two lookups of a running sum
    per line and hypothesis."""
    n = len(fields)
    running = np.zeros(evidence.shape[:2] + (evidence.shape[2] + 1,), np.float32)
    np.cumsum(evidence, axis=2, out=running[:, :, 1:])
    running *= config.outline_step_mm
    # each entry with the next as one complex number: one gather fetches both
    pairs = np.stack([running[:, :, :-1], running[:, :, 1:]], axis=3).view(np.complex64)
    cells = geometry.outline_cells[fields]  # (n, H, S * J * 2)
    heights = cells.shape[1]
    cells = cells + (np.arange(n) * pairs[0].size)[:, None, None]
    got = pairs.ravel()[cells.ravel()]
    value = got.real + geometry.outline_fracs[fields].ravel() * (got.imag - got.real)
    value = value.reshape(n, heights, -1, geometry.outline_lines, 2)
    return (value[..., 1] - value[..., 0]).sum(axis=3).max(axis=2)


def silhouette_extents(profiles: TowerProfiles, players: int, geometry: BoardGeometry,
                       config: VisionConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Near and far edge (mm along the line away from the nadir, from the field centre)
    of the silhouette of each sampled (occupied) field: its near edge is the base, its far
    edge the top, so a tower standing a little off centre does not matter.
    Each edge is found from the colour labels, then placed where the colour is half way
    between the tower's and the board's (see :func:`_refine_edge`).
    Returns the extents (len(fields), 2), NaN where the field's centre shows no tower, and
    whether both ends were delimited. A silhouette that runs on to the end of its line (a
    tall tower leaning onto a neighbour, or off the board onto a table of a piece's colour)
    is taken to end there, and one that reaches back past the start of its line (a
    nearer tower's top over its base) to start where a centred base would: still a
    height, but not a trusted one. A top that touches a neighbour's piece of another
    colour ends where the colour changes (:func:`_neighbour_edges`); where one does, the
    far edge had it not ended there is returned too (NaN elsewhere): a tall tower's own
    upper pieces of another colour above a long side look the same
    (:func:`measure_heights` judges both). One that ran on to the end of its line is
    ended, still not delimited, at a neighbour's piece across a short border with no
    majority colour (:func:`_bridge_unsure`), else at its colour's strongest step past
    a top face (:func:`_top_step`), and judged whole too. One that ends at a short break
    (``broken_gap_mm``) with a top face's run of tower colour past it is judged to that
    run's end too (:func:`_past_break`)."""
    # silhouette: anything but the printed board (seams and deep shade on a tower's side
    # match no colour at all); off the board, where a tall tower's top often leans, only
    # piece colours count (the table there matches no colour either)
    fields = profiles.fields
    unknown = np.where(geometry.profile_printed[profiles.rows], config.unknown_inside, 0.0)
    labels = profiles.labels
    inside = np.where(labels == BOARD, 0.0, np.where(labels < players, 1.0, unknown))
    weights = inside.reshape(len(fields), geometry.profile_lines, -1).mean(axis=1)
    t = geometry.profile_t
    centre = int(np.searchsorted(t, 0.0))
    extents = np.full((len(fields), 2), np.nan)
    delimited = np.zeros(len(fields), bool)
    whole = np.full(len(fields), np.nan)
    gap = max(1, int(round(config.seam_gap_mm / config.profile_step_mm)))  # samples
    broken = int(round(config.broken_gap_mm / config.profile_step_mm))
    top_run = config.neighbour_run_ratio * geometry.face_chord_mm / config.profile_step_mm
    # all the fields' samples at once: a field at a time took most of a tower frame's time
    outsides = weights < 0.5
    # a run of `gap` outside samples ends the silhouette; seams between pieces don't
    total = np.cumsum(np.pad(outsides, ((0, 0), (1, 0))), axis=1)
    runs = total[:, gap:] - total[:, :-gap] >= gap  # run[i]: i..i+gap-1 out
    top_colours = _majority_colours(labels.reshape(len(fields), geometry.profile_lines, -1),
                                    players)
    # where each silhouette starts and ends, for all fields at once; only the edges'
    # refinement goes field by field
    first = max(0, centre - gap + 1)
    before = runs[:, :first]
    # where a run of outside samples gives way to the tower: of several (a dark band on
    # the tower's side that matches the board, as red and yellow stones' seam does on an
    # orange field), the base is the one nearest where a centred base would be, or an
    # earlier one past a seam (:func:`_base_past_seam`)
    gives_way = before & ~outsides[:, gap:gap + first]
    near = geometry.predicted_near[fields].astype(np.float64)
    off = np.where(gives_way, np.abs(t[gap - 1:gap - 1 + first][None] - near[:, None]), np.inf)
    base = off.argmin(axis=1) + gap - 1 if first else np.zeros(len(fields), int)
    after = runs[:, centre:]
    has_after = after.any(axis=1)
    ends = np.where(has_after, centre + after.argmax(axis=1), len(t))
    touching = _neighbour_edges(top_colours, ends, centre, top_run, gap)
    # a silhouette that ran on to the end of its line may have run over a neighbour's
    # piece across a border where no colour has a majority; elsewhere such a border is
    # as likely a tall tower's own (one bridged there read a five-high tower one high).
    # Where it ends then is a guess: it leaves the silhouette not delimited.
    top_colours = np.where(has_after[:, None], top_colours, _bridge_unsure(
        top_colours, int(round(config.neighbour_gap_mm / config.profile_step_mm))))
    guessed = _neighbour_edges(top_colours, ends, centre, top_run, gap)
    for k in np.flatnonzero(~outsides[:, centre]).tolist():
        profile = weights[k]
        colours = profiles.colours[k]
        edge = float(near[k])
        if gives_way[k].any():
            a = _base_past_seam(outsides[k], np.flatnonzero(gives_way[k]) + gap - 1,
                                int(base[k]), t, float(near[k]), config)
            edge = _refine_edge(colours, t, a, 1, _crossing(t, profile, a, a + 1), config)
            edge = min(edge, _foot_before_dip(colours, t, a, config))
        far = float(t[-1])
        end = int(ends[k])  # first outside sample after it
        if has_after[k]:
            far = _far_edge(colours, t, profile, end, config)
        c = int(touching[k])
        if c < 0 and has_after[k]:
            resumed = _past_break(outsides[k], runs[k], end, broken, top_run)
            if resumed >= 0:
                whole[k] = _far_edge(colours, t, profile, resumed, config)
        if c < 0 and not has_after[k]:
            c = int(guessed[k])
            if c < 0:
                c = _top_step(colours, top_colours[k], top_run, config)
        if c >= 0:
            whole[k] = far
            far = _refine_edge(colours, t, c, -1, float(t[c]) - 0.5 * (t[1] - t[0]), config)
        extents[k] = (edge, far)
        delimited[k] = before[k].any() and (has_after[k] or touching[k] >= 0)
    return extents, delimited, whole


def _far_edge(colours: np.ndarray, t: np.ndarray, profile: np.ndarray, end: int,
              config: VisionConfig) -> float:
    """A silhouette's far edge (mm along its line) where it ends at sample ``end``, its
    first outside sample: the weights' crossing refined on the colours."""
    return _refine_edge(colours, t, end, -1, _crossing(t, profile, end - 1, end), config)


def _past_break(outside: np.ndarray, runs: np.ndarray, end: int, longest: int,
                shortest: float) -> int:
    """Where a silhouette broken at ``end`` (its first outside sample) by at most
    ``longest`` outside samples ends if it goes on past the break in tower colour for at
    least ``shortest`` samples (``runs`` as in :func:`silhouette_extents`), or -1: the
    seam under a tall tower's upper pieces, shaded or lit into the board's colour, broke
    five-high towers after their lowest piece (board bench tuning seeds 1 and 5)."""
    inside = np.flatnonzero(~outside[end:end + longest + 1])
    if not len(inside):
        return -1
    start = end + int(inside[0])
    stop = np.flatnonzero(runs[start:])
    if not len(stop) or stop[0] < shortest:
        return -1
    return start + int(stop[0])


def _base_past_seam(outside: np.ndarray, starts: np.ndarray, base: int, t: np.ndarray,
                    centred: float, config: VisionConfig) -> int:
    """The last outside sample before a tower's base, moved back past a lower piece's side
    that a dark seam parts from the rest (``base_side_run_mm``, ``base_seam_gap_mm``).
    Of the places where board gives way to the tower (``starts``, each the last outside
    sample), :func:`silhouette_extents` takes the one nearest a centred base; a tower
    standing off centre towards the nadir, whose lowest piece shows beyond a seam read as
    board, then read a piece short, often surely (board bench seeds 1 and 5)."""
    step = float(t[1] - t[0])
    shortest = config.base_side_run_mm / step
    widest = config.base_seam_gap_mm / step
    for start in starts[starts < base][::-1].tolist():
        run = int(np.argmax(outside[start + 1:base + 1]))  # tower samples after ``start``
        if (run < shortest or base - start - run > widest
                or abs(t[start] - centred) > config.base_off_centre_mm):
            break
        base = start
    return base


def _foot_before_dip(colours: np.ndarray, t: np.ndarray, base: int,
                     config: VisionConfig) -> float:
    """Where a tower stands whose lowest piece's shaded side and contact shadow, dark and
    labelled board, lie before a lit piece (``foot_dip_rise``, ``foot_dip_shift_mm``): on
    the dark dip's near slope, not half way to the tower's colour on its far one, which
    read such towers a piece short (board bench seeds 1 and 5). ``base`` is the last
    sample the labels call outside; infinity where the profile shows no such dip."""
    width = max(2, int(round(config.edge_plateau_mm / config.profile_step_mm)))
    if base - width < 0 or base + width >= len(t):
        return math.inf
    bright = colours[base - width:base + width + 1].mean(axis=1)
    darkest = int(np.argmin(bright))
    if bright[-1] < config.foot_dip_rise * bright[darkest]:
        return math.inf
    half = 0.5 * (bright[0] + bright[darkest])
    below = np.flatnonzero(bright[:darkest + 1] < half)
    if not len(below) or below[0] == 0:
        return math.inf
    i = int(below[0])
    fraction = (bright[i - 1] - half) / max(float(bright[i - 1] - bright[i]), 1e-6)
    step = float(t[1] - t[0])
    return float(t[base - width + i - 1] + fraction * step + config.foot_dip_shift_mm)


def _majority_colours(labels: np.ndarray, players: int) -> np.ndarray:
    """Per field and sample, the player colour most of the field's profile lines show
    there, or -1; ``labels`` are (fields, lines, samples) colour labels."""
    lines = labels.shape[1]
    counts = np.stack([(labels == c).sum(axis=1) for c in range(players)])
    return np.where(counts.max(axis=0) * 2 > lines, counts.argmax(axis=0), -1)


def _top_step(colours: np.ndarray, colour: np.ndarray, top_run: float,
              config: VisionConfig) -> int:
    """Where a silhouette that ran on to the end of its line in its top's colour most
    likely ends: the first sample past the strongest step in its profile ``colours``
    (``edge_plateau_mm`` either side, at least ``top_step_contrast``) at least
    ``top_run`` samples into that colour's last run; -1 where there is none. The table
    beyond the board, or a neighbour's piece, labelled the top's colour otherwise read
    3-4 high towers five (board bench tuning seeds 1 and 5)."""
    known = np.flatnonzero(colour >= 0)
    if not len(known):
        return -1
    other = np.flatnonzero(colour[:known[-1]] != colour[known[-1]])
    first = (int(other[-1]) + 1 if len(other) else 0) + int(math.ceil(top_run))
    width = max(2, int(round(config.edge_plateau_mm / config.profile_step_mm)))
    first = max(first, width)
    if first >= len(colours) - width:
        return -1
    total = np.cumsum(np.pad(colours, ((1, 0), (0, 0))), axis=0)
    at = np.arange(first, len(colours) - width + 1)
    step = np.linalg.norm(total[at + width] - 2 * total[at] + total[at - width], axis=1) / width
    best = int(step.argmax())
    return int(at[best]) if step[best] >= config.top_step_contrast else -1


def _bridge_unsure(colour: np.ndarray, longest: int) -> np.ndarray:
    """``colour`` (fields, samples; -1 where no colour has a majority) with runs of at
    most ``longest`` such samples between two colours taken as the colour before: a
    blurred border between a tower's top and a neighbour's piece often has one, which
    hid the neighbour from :func:`_neighbour_edges`."""
    samples = colour.shape[1]
    index = np.arange(samples)
    known = colour >= 0
    last = np.maximum.accumulate(np.where(known, index, -1), axis=1)
    following = np.minimum.accumulate(np.where(known, index, samples)[:, ::-1], axis=1)[:, ::-1]
    bridged = ~known & (last >= 0) & (following < samples) & (following - last - 1 <= longest)
    return np.where(bridged, np.take_along_axis(colour, np.maximum(last, 0), axis=1), colour)


def _neighbour_edges(colour: np.ndarray, ends: np.ndarray, centre: int, top_run: float,
                     gap: int) -> np.ndarray:
    """Per field, the first sample of a neighbour's piece that its tower's top touches,
    or -1. ``colour`` is each field's majority colour per sample (:func:`_majority_colours`),
    ``ends`` where each silhouette ends. Past the centre the last stretch of a tower is
    its top face, one colour at least ``top_run`` samples long (a layer's side is much
    thinner); another piece colour right after it, for at least ``gap`` samples, is not
    part of this tower."""
    fields, samples = colour.shape
    index = np.arange(samples)
    change = np.zeros(colour.shape, bool)
    change[:, 1:] = colour[:, 1:] != colour[:, :-1]
    change &= index < ends[:, None]
    # per sample: where the run of one colour holding it started, and where the next
    # run starts (or the silhouette ends)
    start = np.maximum.accumulate(np.where(change, index, 0), axis=1)
    following = np.minimum.accumulate(np.where(change, index, samples)[:, ::-1], axis=1)[:, ::-1]
    following = np.minimum(np.concatenate([following[:, 1:], np.full((fields, 1), samples)],
                                          axis=1), ends[:, None])
    behind = np.concatenate([np.full((fields, 1), -1), colour[:, :-1]], axis=1)
    run_before = index - np.concatenate([np.zeros((fields, 1), int), start[:, :-1]], axis=1)
    touches = (change & (index > centre) & (behind >= 0) & (colour >= 0)
               & (run_before >= top_run) & (following - index >= gap))
    return np.where(touches.any(axis=1), touches.argmax(axis=1), -1)


def _refine_edge(colours: np.ndarray, t: np.ndarray, edge: int, inward: int,
                 labelled: float, config: VisionConfig) -> float:
    """Where a blurred tower outline lies: half way between the board's colour just
    outside it and the tower's just inside. The colour labels alone put it wherever a
    mixed pixel stops matching either colour, which shifts with the two colours and the
    blur by up to a millimetre, as much as a layer adds near the nadir. ``edge`` is the
    outermost sample the labels call outside, ``inward`` the direction into the tower,
    ``labelled`` where the labels put the edge (kept when the colours cannot tell)."""
    width = max(2, int(round(config.edge_plateau_mm / config.profile_step_mm)))
    last = len(t) - 1
    span = [edge - inward * width, edge + inward * (width + 1)]
    if min(span) < 0 or max(span) > last:
        return labelled
    outside = colours[span[0]]
    inside = colours[span[1]]
    contrast = inside - outside
    norm = float(contrast @ contrast)
    if norm < config.edge_min_contrast ** 2:
        return labelled
    lo, hi = sorted(span)
    share = (colours[lo:hi + 1] - outside) @ contrast / norm  # 0 board .. 1 tower
    if inward < 0:
        share = share[::-1]
    beyond = np.nonzero(share >= 0.5)[0]
    if not len(beyond) or beyond[0] == 0:
        return labelled
    i = beyond[0]
    fraction = (0.5 - share[i - 1]) / max(share[i] - share[i - 1], 1e-6)
    start = span[0]
    return float(t[start + inward * (i - 1)] + inward * fraction * (t[1] - t[0]))


def far_edge_widths(colours: np.ndarray, t: np.ndarray, far: np.ndarray, config: VisionConfig
                    ) -> np.ndarray:
    """How wide (mm) each silhouette's far edge (the top's far rim) is blurred: where the
    profile ``colours`` (n, K, 3) rise from a quarter to three quarters of the way from the
    board's colour outside to the tower's inside, ``edge_width_plateau_mm`` either side of
    the edge at ``far`` (n,). A blurred top edge measures the tower longer than its
    silhouette bias allows for (docs/vision.md, seventh session). NaN where the colours
    differ by less than ``edge_min_contrast`` or the edge is not on the line."""
    step = float(t[1] - t[0])
    reach = max(1, int(round(config.edge_width_plateau_mm / step)))
    # from outside (past the far edge) inwards, at the sample spacing
    pos = (far[:, None] - t[0]) / step + np.arange(reach, -reach - 1, -1)[None]
    widths = np.full(len(far), np.nan)
    ok = np.isfinite(far) & (pos[:, 0] <= len(t) - 1) & (pos[:, -1] >= 0)
    if not ok.any():
        return widths
    pos = pos[ok]
    low = np.floor(pos).astype(np.intp)
    high = np.minimum(low + 1, len(t) - 1)
    rows = np.arange(len(pos))[:, None]
    frac = (pos - low)[..., None]
    seen = colours[ok][rows, low] * (1 - frac) + colours[ok][rows, high] * frac
    contrast = seen[:, -1] - seen[:, 0]
    norm = (contrast * contrast).sum(axis=1)
    share = ((seen - seen[:, :1]) * contrast[:, None]).sum(axis=2) / np.maximum(norm, 1e-6)[:, None]

    def crossing(level: float) -> np.ndarray:
        above = share >= level
        i = np.maximum(above.argmax(axis=1), 1)
        a = share[rows[:, 0], i - 1]
        b = share[rows[:, 0], i]
        return i - 1 + np.clip((level - a) / np.maximum(b - a, 1e-6), 0, 1)

    width = np.abs(crossing(0.75) - crossing(0.25)) * step
    widths[np.flatnonzero(ok)] = np.where(norm >= config.edge_min_contrast ** 2, width, np.nan)
    return widths


def measure_heights(profiles: TowerProfiles, players: int, geometry: BoardGeometry,
                    config: VisionConfig, share: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """How well each height explains the silhouette length of the sampled (occupied)
    fields (see :func:`silhouette_extents`). Returns, per field and height, the length
    mismatch in layers (0 = perfect; NaN when the field's centre shows no tower);
    per field how much (mm) the length was shortened for a blurred top edge
    (:func:`far_edge_widths`); and per field and height whether that reading can be
    trusted: the silhouette delimited, its near edge where a base piece can stand (a base
    the colour of the field under it, or in deep shade, is lost and the tower reads
    short), and its far edge where that height's top would be (a tower whose sides are
    lost in shade, or whose top glare washes into the board, measures a length that
    disagrees with where its top is seen).
    A silhouette ended at a neighbour's piece is measured whole too, and read whole where
    that length with the top face's colour ``share`` (per field and height) costs less:
    a tall tower seen from aside shows a long side of one colour, then its upper pieces
    of another, which the neighbour rule cut off, reading 4-5 high towers one high
    (board bench tuning seeds 1, 5, 6, 7: docs/vision.md, thirteenth session). So is one
    ended at a short break with more tower past it (:func:`_past_break`)."""
    extents, delimited, whole = silhouette_extents(profiles, players, geometry, config)
    mismatch, blurred, trusted = _length_fit(profiles.fields, profiles.colours, geometry,
                                             extents, delimited, config)
    cut = np.flatnonzero(np.isfinite(whole))
    if len(cut):
        entire = extents[cut].copy()
        entire[:, 1] = whole[cut]
        fit, fit_blurred, fit_trusted = _length_fit(profiles.fields[cut], profiles.colours[cut],
                                                    geometry, entire, delimited[cut], config)
        weight = config.top_face_weight
        better = ((np.nanmin(fit - weight * share[cut], axis=1) + config.whole_tower_margin)
                  < np.nanmin(mismatch[cut] - weight * share[cut], axis=1))
        chosen = cut[better]
        mismatch[chosen], blurred[chosen], trusted[chosen] = \
            fit[better], fit_blurred[better], fit_trusted[better]
    return mismatch, blurred, trusted


def _length_fit(fields: np.ndarray, colours: np.ndarray, geometry: BoardGeometry,
                extents: np.ndarray, delimited: np.ndarray, config: VisionConfig
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`measure_heights`' length mismatch, blur correction and trust for the
    silhouette ``extents`` of ``fields`` (profile ``colours`` as in :class:`TowerProfiles`)."""
    blur = far_edge_widths(colours, geometry.profile_t, extents[:, 1], config) \
        - config.edge_width_reference_mm
    blurred = config.edge_width_bias_ratio * np.nan_to_num(blur)
    length = (extents[:, 1] - extents[:, 0] - geometry.silhouette_bias_mm - blurred)[:, None]
    predicted = geometry.predicted_length[fields]
    step = np.diff(predicted, axis=1).mean(axis=1, keepdims=True) if predicted.shape[1] > 1 \
        else np.ones((len(fields), 1))
    base_off = np.abs(extents[:, 0] - geometry.predicted_near[fields])
    top_off = np.abs(extents[:, 1:] - geometry.predicted_far[fields])
    trusted = ((delimited & (base_off <= config.base_off_centre_mm))[:, None]
               & (top_off <= config.top_off_centre_mm))
    return np.abs(predicted - length) / np.maximum(step, 1e-6), blurred, trusted


def board_casts(normalised: np.ndarray, image: np.ndarray | None, matrix: np.ndarray | None,
                geometry: BoardGeometry, config: VisionConfig
                ) -> tuple[np.ndarray, np.ndarray]:
    """The colour cast left after the markers' normalisation (e.g. a channel clipped on
    the white marker), as per-channel gains: the median of seen / printed over the plain
    board of the 8-bit ``normalised`` image (most of the board is plain board even with a
    hand over it); and the same measured before the 8-bit cut: of the raw rectified
    ``image`` mapped by ``matrix`` (3x4) in floats. Where the markers' white is too dark
    (small blurred markers), much of the board passes 255, and cut there its cast came
    out 1.13 for a true 1.3-1.4 (board bench seed 1 frame 116). The second is worked out
    only where the cut can have moved a channel's median (a pixel cut at 255 at or below
    it); else it is the first."""
    plain = geometry.plain_sample
    seen = normalised.reshape(-1, 3)[plain]
    printed = geometry.plain_printed
    ratio = seen.astype(np.float32) / printed
    gain = np.median(ratio, axis=0)
    low, high = config.cast_range
    cast = np.clip(gain, low, high)
    if image is None or not ((seen == 255) & (ratio <= gain)).any():
        return cast, cast
    raw = _plain_mapped(image, matrix, geometry)
    return cast, np.clip(np.median(raw / printed, axis=0), low, high)


def _plain_mapped(image: np.ndarray, matrix: np.ndarray, geometry: BoardGeometry
                  ) -> np.ndarray:
    """The plain board samples of the raw rectified ``image`` mapped by ``matrix`` (3x4)
    in floats: normalised as the reader's image is, but not cut to 8 bits."""
    raw = image.reshape(-1, 3)[geometry.plain_sample].astype(np.float32)
    return raw @ matrix[:, :3].T + matrix[:, 3]


def board_misfit(rectified: np.ndarray, matrix: np.ndarray, geometry: BoardGeometry) -> float:
    """How far the plain board of the raw ``rectified`` image, normalised by ``matrix``
    (3x4, cut to 8 bits as the reader's image is), lies from its print, any one cast
    allowed: the median absolute log ratio about each channel's median. Black lifted by
    a glared marker crushes the board's darker print to 0, which no cast undoes."""
    seen = np.clip(_plain_mapped(rectified, matrix, geometry), 1.0, 255.0)
    ratio = np.log(seen / geometry.plain_printed)
    return float(np.median(np.abs(ratio - np.median(ratio, axis=0))))


def tower_mask(heights: list[int], geometry: BoardGeometry, margin_mm: float) -> np.ndarray:
    """Where towers of these heights (per field) stand (their silhouettes, grown by a
    margin for pieces lying off centre): 1 there, 0 elsewhere, in the rectified image."""
    heights = np.asarray(heights)
    mask = np.zeros(geometry.size[1] * geometry.size[0], np.uint8)
    standing = np.flatnonzero(heights)
    if not len(standing):
        return mask.reshape(geometry.size[1], geometry.size[0])
    # a tower's slivers are one run of sliver_idx (sorted by field, then height)
    starts = np.concatenate([[0], np.cumsum(geometry.sliver_area)])
    first = starts[standing * geometry.max_height]
    last = starts[standing * geometry.max_height + heights[standing]]
    mask[np.concatenate([geometry.sliver_idx[a:b] for a, b in zip(first, last, strict=True)])] = 1
    mask = mask.reshape(geometry.size[1], geometry.size[0])
    grow = max(1, int(round(margin_mm * geometry.px_per_mm)))
    return cv2.dilate(mask, np.ones((2 * grow + 1, 2 * grow + 1), np.uint8))


@dataclass
class TowerProfiles:
    """The height-profile samples of some fields, from the full-resolution frame."""

    fields: np.ndarray  # (n,) the fields sampled
    rows: np.ndarray  # (n * lines,) their rows of the geometry's profile arrays
    labels: np.ndarray  # (n * lines, K) colour labels (see ColourClasses.label)
    colours: np.ndarray  # (n, K, 3) normalised BGR, mean over each field's lines
    outline: np.ndarray | None = None  # (n * J, L, 3) normalised BGR of the outline lines


def sample_profiles(frame: np.ndarray, geometry: BoardGeometry, classes: ColourClasses,
                    levels_matrix: np.ndarray, fields: np.ndarray) -> TowerProfiles:
    """Labels and colours of the height-profile samples of ``fields`` (the occupied
    ones: the others' took half the time), taken from the full-resolution frame (a layer
    moves a tower's top by only 1-4 mm). Clipped channels are not matched brighter here
    (:func:`vision.calibration.clipped_variants`): on board bench seed 1 that moved two
    towers' silhouettes, both to a wrong height. Also the normalised colours of their
    whole-outline lines, when the geometry has them (:func:`outline_evidence`)."""
    rows = (np.asarray(fields)[:, None] * geometry.profile_lines
            + np.arange(geometry.profile_lines)).ravel()
    sampled = cv2.remap(frame, geometry.profile_maps[0][rows], geometry.profile_maps[1][rows],
                        cv2.INTER_LINEAR)
    normalised = cv2.transform(sampled, levels_matrix)
    lab = cv2.cvtColor(normalised, cv2.COLOR_BGR2Lab)
    colours = normalised.reshape(len(fields), geometry.profile_lines, -1, 3)
    outline = None
    if geometry.outline_maps is not None:
        lines = (np.asarray(fields)[:, None] * geometry.outline_lines
                 + np.arange(geometry.outline_lines)).ravel()
        outline = cv2.transform(cv2.remap(frame, geometry.outline_maps[0][lines],
                                          geometry.outline_maps[1][lines], cv2.INTER_LINEAR),
                                levels_matrix)
    return TowerProfiles(np.asarray(fields), rows,
                         classes.label(lab, geometry.profile_offsets[rows]),
                         colours.mean(axis=1, dtype=np.float32), outline)


def _crossing(t: np.ndarray, profile: np.ndarray, i: int, j: int) -> float:
    """Where the profile crosses 0.5 between samples i and j (linear interpolation)."""
    a, b = profile[i], profile[j]
    if a == b:
        return float((t[i] + t[j]) / 2)
    return float(t[i] + (0.5 - a) / (b - a) * (t[j] - t[i]))


_ANGLES = np.linspace(0, 2 * np.pi, 32, endpoint=False)
_UNIT_CIRCLE = np.stack([np.cos(_ANGLES), np.sin(_ANGLES)], axis=1)


def _circle(centre: np.ndarray, radius: float) -> np.ndarray:
    """A 32-gon round ``centre``, for hulls and outlines."""
    return (centre + radius * _UNIT_CIRCLE).astype(np.float32)


def expected_board(layout: Layout, geometry: BoardGeometry, classes: ColourClasses,
                   config: VisionConfig) -> np.ndarray:
    """The colour class an empty board shows at each rectified pixel, from the layout:
    the board colour, each field's own colour (attribute ``colour`` or ``zone``), and
    the printed lines between the points of each mill and the dot on each point (Mühle)."""
    width, height = geometry.size
    expected = np.full((height, width), UNKNOWN, np.int16)
    w, h = layout.board_size_mm
    if "board" in classes.board:
        x0, y0 = np.rint(geometry.to_px([0, 0])).astype(int)
        x1, y1 = np.rint(geometry.to_px([w, h])).astype(int)
        expected[max(y0, 0):max(y1, 0), max(x0, 0):max(x1, 0)] = classes.board_index("board")
    for fld in layout.fields.values():
        colour = fld.printed
        if colour in classes.board:
            half = fld.size_mm / 2
            x0, y0 = np.rint(geometry.to_px([fld.x_mm - half, fld.y_mm - half])).astype(int)
            x1, y1 = np.rint(geometry.to_px([fld.x_mm + half, fld.y_mm + half])).astype(int)
            expected[max(y0, 0):max(y1, 0), max(x0, 0):max(x1, 0)] = classes.board_index(colour)
    printed = layout.extra.get("printed_lines")
    if printed and "lines" in classes.board:
        grow = 2 * config.printed_margin_mm
        thickness = max(1, int(round((printed["width_mm"] + grow) * geometry.px_per_mm)))
        radius = max(1, int(round((printed["point_radius_mm"] + grow / 2) * geometry.px_per_mm)))
        index = classes.board_index("lines")
        for mill in layout.extra.get("mills", []):
            ends = [geometry.to_px(layout.fields[n].centre_mm) for n in (mill[0], mill[-1])]
            cv2.line(expected, tuple(np.rint(ends[0]).astype(int)),
                     tuple(np.rint(ends[1]).astype(int)), index, thickness)
        for fld in layout.fields.values():
            cv2.circle(expected, tuple(np.rint(geometry.to_px(fld.centre_mm)).astype(int)),
                       radius, index, -1)
    return expected


def look_alike_pieces(normalised: np.ndarray, states: list[FieldState],
                      geometry: BoardGeometry, classes: ColourClasses,
                      config: VisionConfig) -> list[FieldState]:
    """``states`` with the fields read empty that are printed in a look-alike colour
    judged by brightness: the inner top face against the square's uncovered corners
    (same paint and light for an empty field; a white stone on Spexxx's silver is 1.3x
    as bright; low and high percentiles, as the corners take in the square's dark printed
    edge and a piece's shadow, and a face its shaded rim). Colour alone cannot tell them
    apart once the lamp is dimmer there than at the markers. A piece so found is one
    high; an empty field in between loses its confidence. A darker piece (a black stone
    on silver) is also found, unsure (``look_alike_ring_confidence``), where the
    silhouette's ring outside the face lies ``look_alike_ring_ratio`` or more below the
    corners (medians): haze lifts a black stone's face and a lamp's sheen whitens it,
    far from the nominal ratio, while its side stays darker than the print. A lighter
    piece is no surer than that where the corners lie ``look_alike_rim_chroma`` or more
    off the print's hue: a neighbour blurred or leaning into them darkens them, and a
    plain empty face looks bright against them."""
    if not geometry.look_alike:
        return states
    flat = normalised.reshape(-1, normalised.shape[-1])
    empty = [entry for entry in geometry.look_alike if not states[entry[0]].height]
    if not empty:
        return _flat_rings(flat, states, geometry, classes, config)
    face_pct, rim_pct = config.look_alike_face_percentile, config.look_alike_rim_percentile
    # doubt goes to the empty field: a lighter piece's face is taken at its dark end and
    # the corners at their light end, a darker piece's the other way round (a dark
    # printed cell's corners take in the lighter board beside it)
    all_faces, all_rims = (
        _segment_percentiles(np.take(flat, np.concatenate(parts), axis=0).mean(axis=1),
                             np.array([len(part) for part in parts]), [pct, 100.0 - pct, 50.0])
        for parts, pct in (([entry[2] for entry in empty], face_pct),
                           ([entry[3] for entry in empty], rim_pct)))
    rings = [entry[4] for entry in empty if len(entry[4])]
    ringed = iter(_segment_percentiles(
        np.take(flat, np.concatenate(rings), axis=0).mean(axis=1),
        np.array([len(ring) for ring in rings]), [50.0])[:, 0] if rings else ())
    ring_ratio = math.log(config.look_alike_ring_ratio)
    out = list(states)
    for (f, board, _, rims_idx, ring), faces, rims in zip(empty, all_faces, all_rims,
                                                         strict=True):
        dark_side = len(ring) and math.log(max(float(next(ringed)), 1.0)
                                           / max(float(rims[2]), 1.0)) <= ring_ratio
        state = out[f]
        shares = []
        for player, ratio in classes.look_alikes[board]:
            darker = int(ratio < 0)
            seen = math.log(max(float(faces[darker]), 1.0) / max(float(rims[darker]), 1.0))
            shares.append((seen / ratio, player))
        share, player = max(shares)
        margin = (share - config.look_alike_piece_share) / config.look_alike_sure_share
        darkest, darkest_ratio = min(classes.look_alikes[board], key=lambda pair: pair[1])
        if margin > 0:
            sure = float(min(1.0, margin))
            if dict(classes.look_alikes[board])[player] > 0 and _rim_chroma(
                    flat, rims_idx, classes.board_bgr[board]) >= config.look_alike_rim_chroma:
                sure = min(sure, config.look_alike_ring_confidence)
            out[f] = FieldState(state.name, classes.players[player], 1, sure)
        elif darkest_ratio < 0 and dark_side:
            out[f] = FieldState(state.name, classes.players[darkest], 1,
                                config.look_alike_ring_confidence)
        else:
            out[f] = FieldState(state.name, None, 0,
                                float(min(state.confidence, 1.0, -margin)))
    return _flat_rings(flat, out, geometry, classes, config)


def _flat_rings(flat: np.ndarray, states: list[FieldState], geometry: BoardGeometry,
                classes: ColourClasses, config: VisionConfig) -> list[FieldState]:
    """``states`` with a lighter look-alike piece (a white stone on silver, read by
    colour or by :func:`look_alike_pieces`) no surer than ``look_alike_ring_confidence``
    where the darkest of its silhouette's ring outside the face
    (``look_alike_outline_percentile``) lies at ``look_alike_outline_ratio`` of the face
    or above: a stone's shaded side and outline are darker than its top, while a glare
    spot washes an empty cell evenly white."""
    lighter = {(board, classes.players[p]) for board, pairs in classes.look_alikes.items()
               for p, ratio in pairs if ratio > 0}
    judged = [entry for entry in geometry.look_alike
              if len(entry[4]) and (entry[1], states[entry[0]].top_colour) in lighter
              and states[entry[0]].confidence > config.look_alike_ring_confidence]
    if not judged:
        return states
    faces, rings = (
        _segment_percentiles(np.take(flat, np.concatenate(parts), axis=0).mean(axis=1),
                             np.array([len(part) for part in parts]), [pct])[:, 0]
        for parts, pct in (([entry[2] for entry in judged], 50.0),
                           ([entry[4] for entry in judged], config.look_alike_outline_percentile)))
    out = list(states)
    for entry, face, ring in zip(judged, faces.tolist(), rings.tolist(), strict=True):
        if ring >= config.look_alike_outline_ratio * face:
            state = out[entry[0]]
            out[entry[0]] = FieldState(state.name, state.top_colour, state.height,
                                       config.look_alike_ring_confidence)
    return out


def _rim_chroma(flat: np.ndarray, idx: np.ndarray, printed: np.ndarray) -> float:
    """The median a/b distance (8-bit Lab) of the pixels ``idx`` of ``flat`` (normalised
    BGR) from the hue of ``printed``: how far a square's corners are from plain print."""
    pixels = np.clip(np.take(flat, idx, axis=0), 0, 255).astype(np.uint8).reshape(-1, 1, 3)
    ab = cv2.cvtColor(pixels, cv2.COLOR_BGR2Lab).reshape(-1, 3)[:, 1:].astype(np.float64)
    return float(np.median(np.linalg.norm(ab - bgr_to_lab(printed)[1:], axis=1)))


def split_lightness(lab: np.ndarray, states: list[FieldState], geometry: BoardGeometry,
                    classes: ColourClasses, config: VisionConfig) -> list[FieldState]:
    """``states`` with the pieces of two players whose colours differ in lightness alone
    (black and white stones) told apart within the frame: the lookup tables accept each
    colour from deep shade to glare, so a black stone in the lamp's reflection or in haze,
    grey in the frame, can match white better, while a white stone in shade stays far
    lighter than black. Split between the top faces' median lightness
    of the pieces read as either (Otsu's cut, :func:`_otsu_cut`; the gap there must be
    ``lightness_split_gap`` wide): when the lighter group mostly reads light and the darker
    group holds a dark reading (a frame with one of the two colours keeps its readings),
    the darker group's pieces are dark. A dark reading is kept wherever it lies: where
    glare grades the blacks into the whites the cut may fall among the blacks."""
    out = list(states)
    for dark, light in classes.lightness_pairs:
        names = (classes.players[dark], classes.players[light])
        pieces = [f for f, s in enumerate(out) if s.height and s.top_colour in names]
        if len(pieces) < 2:
            continue
        faces = _top_lightness(lab, geometry, out, pieces)
        order = np.argsort(faces)
        ranked = faces[order]
        gaps = np.diff(ranked)
        cut = _otsu_cut(ranked)
        if gaps[cut] < config.lightness_split_gap:
            continue
        lower, upper = order[:cut + 1], order[cut + 1:]
        read_dark = np.array([out[f].top_colour == names[0] for f in pieces])
        if read_dark[upper].mean() >= 0.5 or not read_dark[lower].any():
            continue
        for k in lower:
            state = out[pieces[k]]
            out[pieces[k]] = FieldState(state.name, names[0], state.height, state.confidence)
    return out


def darker_than_neighbours(lab: np.ndarray, rectified: np.ndarray, matrix: np.ndarray,
                           states: list[FieldState], geometry: BoardGeometry,
                           classes: ColourClasses, config: VisionConfig,
                           occluded: bool) -> list[FieldState]:
    """``states`` with the pieces read light (white) whose top face lies at least
    ``lightness_local_gap`` below the lightest piece read light within
    ``lightness_local_mm`` read dark (black), in a frame that holds a dark reading. A
    lamp's glare or the sheen on glossy tops lifts a black stone to grey, graded between
    the blacks and the whites so that no one cut for the frame parts them, while the
    white stones beside it, lifted alike, stay at white.

    The board printed around a piece (raw ``rectified`` normalised by ``matrix``, against
    its print) tells the light there. In an ``occluded`` frame a hand's shadow greys white
    stones beside unshaded ones as much, and darkens that board: such a piece reads dark
    only where the board keeps ``lightness_shade_ratio`` of its print. Where glare lifts
    the board past ``lightness_glare_ratio`` of it, a white stone's neighbours lifted
    alike and cut at the frame's ceiling, a piece ``lightness_glare_gap`` below them reads
    dark too (a frame without a hand), if it stands out from that board as
    :func:`washed_out_board` asks. Both with at most ``lightness_lit_confidence``."""
    out = list(states)
    for dark, light in classes.lightness_pairs:
        names = (classes.players[dark], classes.players[light])
        if not any(s.height and s.top_colour == names[0] for s in out):
            continue
        pieces = np.array([f for f, s in enumerate(out) if s.height and s.top_colour == names[1]],
                          np.int64)
        if len(pieces) < 2:
            continue
        faces = _top_lightness(lab, geometry, out, pieces)
        centres = geometry.centres_mm[pieces]
        apart = np.hypot(*(centres[:, None, :] - centres[None, :, :]).transpose(2, 0, 1))
        near = (apart <= config.lightness_local_mm) & (apart > 0)
        gaps = np.where(near, faces[None, :], -np.inf).max(axis=1) - faces
        greyed = gaps >= config.lightness_local_gap
        judged = greyed if occluded else (gaps >= config.lightness_glare_gap) & ~greyed
        lit = np.zeros(len(pieces), bool)
        # with too little board around (or none kept: stacking games), no light is seen
        judged &= (geometry.surround_idx is not None
                   and geometry.surround_area[pieces] >= config.washed_min_surround_px)
        if judged.any():
            ratio = (_surround_medians(rectified, matrix, geometry, pieces[judged]).sum(axis=1)
                     / np.maximum(classes.board_bgr[geometry.printed[pieces[judged]]].sum(axis=1),
                                  1.0))
            lit[judged] = ratio >= (config.lightness_shade_ratio if occluded
                                    else config.lightness_glare_ratio)
            if not occluded and lit.any():  # the board washed by that glare is no stone
                off, step, _ = _board_offsets(rectified, matrix, pieces[lit],
                                              np.full(lit.sum(), light), geometry, classes)
                lit[lit] = _board_share(off, step) >= config.washed_board_share
        for k in np.flatnonzero(lit | (greyed & (not occluded))):
            state = out[pieces[k]]
            out[pieces[k]] = FieldState(state.name, names[0], state.height,
                                        min(state.confidence, config.lightness_lit_confidence)
                                        if lit[k] else state.confidence)
    return out


def washed_out_board(rectified: np.ndarray, matrix: np.ndarray, states: list[FieldState],
                     geometry: BoardGeometry, classes: ColourClasses,
                     config: VisionConfig) -> list[FieldState]:
    """``states`` with the fields read as a whitish piece (a white stone) that stand out
    from the board printed around them (:attr:`BoardGeometry.surround_idx`) by less than
    ``washed_board_share`` of what such a piece would read empty: a lamp's glare washes
    the board towards white, and a board in it matches a white stone (Mühle's tan board,
    Spexxx's red and silver cells), while a stone, washed alike, still differs from the
    board beside it. Measured on the raw ``rectified`` frame normalised by ``matrix``
    (3x4) in floats: the 8-bit image the colours come from is cut at 255 where glare
    lifts the board past the markers' white, and there a board and a stone both read
    255. Games without stacks: a tower's side and shade lie around it.

    A face that stands out by more but lies less than ``white_face_min_share`` of the
    step along it (the share of the step from the print to the piece that the face's
    difference from the board adds) is read with at most ``white_face_confidence``: a
    black stone greyed by glare or shade, or the board at a glare spot's edge, differs
    from the board beside it, but not towards white (board bench tuning seeds 1, 5, 6,
    7, Mühle: such readings up to 0.36, white stones from 0.39). One that lies under
    ``white_face_dark_share`` (darker than the board around it) is no white stone at
    all: it reads, with that confidence, as the other player its difference points to
    (``roof_min_cosine``) by ``white_face_other_share`` of that player's step, a greyed
    black stone, or else empty, a printed point in glare whose face keeps the print's
    dark dot and lines while the glare lifts the board around it more; where the ring
    has the hue of its print (``white_face_ring_min_cosine``, BGR): between Spexxx's
    crowded small cells it may be a neighbour's leaning stone."""
    if geometry.surround_idx is None:
        return states
    light = {classes.players[p]: p for p in classes.whitish}
    fields = np.array([f for f, s in enumerate(states) if s.height and s.top_colour in light
                       and geometry.surround_area[f] >= config.washed_min_surround_px],
                      np.int64)
    if not len(fields):
        return states
    players = np.array([light[states[f].top_colour] for f in fields])
    off, step, rings = _board_offsets(rectified, matrix, fields, players, geometry, classes)
    share = _board_share(off, step)
    along = (off * step).sum(axis=1) / np.maximum((step * step).sum(axis=1), 1.0)
    out = list(states)
    for f, seen, towards in zip(fields.tolist(), share.tolist(), along.tolist(), strict=True):
        if seen < config.washed_board_share:
            out[f] = FieldState(states[f].name, None, 0,
                                1.0 - seen / config.washed_board_share)
        elif towards < config.white_face_min_share:
            out[f] = FieldState(states[f].name, states[f].top_colour, states[f].height,
                                min(states[f].confidence, config.white_face_confidence))
    dark = (share >= config.washed_board_share) & (along < config.white_face_dark_share)
    others = np.array([p for p in range(len(classes.players)) if p not in classes.whitish])
    if dark.any() and len(others):
        fields, off, rings = fields[dark], off[dark], rings[dark]
        printed = classes.board_bgr[geometry.printed[fields]]
        board = ((rings * printed).sum(axis=1) >= config.white_face_ring_min_cosine
                 * np.linalg.norm(rings, axis=1) * np.linalg.norm(printed, axis=1))
        fields, off, printed = fields[board], off[board], printed[board]
        best, cosine, other_share = _towards_players(off, np.zeros_like(off), printed,
                                                     classes.player_bgr[others], config)
        piece = ((cosine >= config.roof_min_cosine)
                 & (other_share >= config.white_face_other_share))
        for f, p, is_piece in zip(fields.tolist(), others[best].tolist(), piece.tolist(),
                                  strict=True):
            out[f] = FieldState(states[f].name, classes.players[p] if is_piece else None,
                                int(is_piece), config.white_face_confidence)
    return out


def white_stones_read_empty(rectified: np.ndarray, matrix: np.ndarray,
                            states: list[FieldState], geometry: BoardGeometry,
                            classes: ColourClasses, config: VisionConfig) -> list[FieldState]:
    """``states`` with the fields read empty whose top face stands out from the board
    printed around them (:attr:`BoardGeometry.surround_idx`, at least
    ``white_empty_min_surround_px`` pixels of it) towards a whitish player (``roof_min_cosine``)
    by ``white_empty_share`` of that player's step from the print read as that player,
    with ``white_face_confidence``: in a bright or dim frame a white stone on Mühle's tan
    board may match the board's colour table better than its own, but its face still
    stands out from the board beside it as a white stone's does (board bench tuning seeds
    1, 5, 6, 7: such stones 0.50-1.22 of the step, empty points at most 0.41). Spexxx's
    small cells leave too thin a ring: there empty silver cells stand out as far. The raw
    ``rectified`` frame normalised by ``matrix`` (3x4) in floats, as
    :func:`washed_out_board`."""
    if geometry.surround_idx is None or not classes.whitish:
        return states
    fields = _empty_ringed(states, geometry, config.white_empty_min_surround_px)
    if not len(fields):
        return states
    players = np.array(classes.whitish)
    best, cosine, share = _towards_players(
        _face_medians(rectified, matrix, geometry, fields),
        _surround_medians(rectified, matrix, geometry, fields),
        classes.board_bgr[geometry.printed[fields]], classes.player_bgr[players], config)
    found = (cosine >= config.roof_min_cosine) & (share >= config.white_empty_share)
    out = list(states)
    for f, p in zip(fields[found].tolist(), players[best[found]].tolist(), strict=True):
        out[f] = FieldState(states[f].name, classes.players[p], 1, config.white_face_confidence)
    return out


def _empty_ringed(states: list[FieldState], geometry: BoardGeometry, min_px: float
                  ) -> np.ndarray:
    """The fields read empty that a piece may lie on with at least ``min_px`` pixels of
    board printed around them (:attr:`BoardGeometry.surround_idx`) to judge a face by."""
    return np.array([f for f, s in enumerate(states) if not s.height and geometry.playable[f]
                     and geometry.surround_area[f] >= min_px], np.int64)


def _board_offsets(rectified: np.ndarray, matrix: np.ndarray, fields: np.ndarray,
                   players: np.ndarray, geometry: BoardGeometry, classes: ColourClasses
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each of ``fields``' one-piece top face less the board printed around it, the
    step a piece of ``players`` makes from that print, and that board's median (all
    (n, 3) BGR)."""
    faces = _face_medians(rectified, matrix, geometry, fields)
    rings = _surround_medians(rectified, matrix, geometry, fields)
    return (faces - rings,
            classes.player_bgr[players] - classes.board_bgr[geometry.printed[fields]], rings)


def _board_share(off: np.ndarray, step: np.ndarray) -> np.ndarray:
    """How far a face stands out from the board printed around it (``off``, from
    :func:`_board_offsets`), as a share of how far a piece would (0: the board itself)."""
    return np.linalg.norm(off, axis=1) / np.maximum(np.linalg.norm(step, axis=1), 1.0)


def _normalised_medians(rectified: np.ndarray, matrix: np.ndarray, idx: np.ndarray,
                        begin: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Per channel, the median of ``rectified[idx[b:e]]`` for each (b, e), normalised by
    ``matrix`` (3x4) in floats: past the 8-bit cut of the image the colours come from."""
    flat = rectified.reshape(-1, 3)
    return (np.stack([_segment_medians(flat[:, c], idx, begin, end) for c in range(3)],
                     axis=1) * np.diag(matrix)[:3] + matrix[:, 3])


def _normalised_run_medians(flat: np.ndarray, matrix: np.ndarray, px: np.ndarray,
                            owner: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Per channel, the median of ``flat[px]`` (pixels, BGR) run by run (``owner``,
    ``sizes``: :func:`_medians_of_runs`), normalised by ``matrix`` (3x4) in floats, as
    :func:`_normalised_medians`."""
    return (np.stack([_medians_of_runs(flat[px, c], owner, sizes) for c in range(3)], axis=1)
            * np.diag(matrix)[:3] + matrix[:, 3])


def _face_medians(rectified: np.ndarray, matrix: np.ndarray, geometry: BoardGeometry,
                  fields: np.ndarray) -> np.ndarray:
    """:func:`_normalised_medians` of each of ``fields``' top face one piece high
    (:attr:`BoardGeometry.top_idx`; one layer: segment f is field f)."""
    ends = np.cumsum(geometry.top_area)
    return _normalised_medians(rectified, matrix, geometry.top_idx,
                               (ends - geometry.top_area)[fields], ends[fields])


def _surround_medians(rectified: np.ndarray, matrix: np.ndarray, geometry: BoardGeometry,
                      fields: np.ndarray) -> np.ndarray:
    """:func:`_normalised_medians` of the board printed around each of ``fields``
    (:attr:`BoardGeometry.surround_idx`)."""
    ends = np.cumsum(geometry.surround_area)
    return _normalised_medians(rectified, matrix, geometry.surround_idx,
                               (ends - geometry.surround_area)[fields], ends[fields])


def washed_out_stones(rectified: np.ndarray, matrix: np.ndarray, states: list[FieldState],
                      geometry: BoardGeometry, classes: ColourClasses,
                      config: VisionConfig) -> list[FieldState]:
    """``states`` with the fields read empty in a lamp's glare (the board printed around
    them, :attr:`BoardGeometry.surround_idx`, lifted to ``glare_stone_lift`` of its print
    or more) whose top face stands out from that board towards a colourful player
    (magenta, cyan) as :func:`washed_out_pieces` asks (``roof_min_cosine``,
    ``roof_piece_share``) read as that player, unsure (``roof_piece_confidence``). Glare
    washes such a stone nearly white, past every colour table, but adds as much to the
    board beside it: the difference keeps the stone's hue, shrunk by the glare. Outside
    glare, a neighbour's stone blurred or leaning into an empty cell points as far
    towards its colour (board bench tuning seeds: up to 0.76 of the step), so the lift
    is asked. Games without stacks, cells a piece may lie on; the raw ``rectified`` frame
    normalised by ``matrix`` (3x4) in floats, as :func:`washed_out_board`."""
    if geometry.surround_idx is None or not classes.colourful:
        return states
    fields = _empty_ringed(states, geometry, config.washed_min_surround_px)
    if not len(fields):
        return states
    printed = classes.board_bgr[geometry.printed[fields]]
    rings = _surround_medians(rectified, matrix, geometry, fields)
    lit = rings.sum(axis=1) >= config.glare_stone_lift * printed.sum(axis=1)
    if not lit.any():
        return states
    fields, printed, rings = fields[lit], printed[lit], rings[lit]
    faces = _face_medians(rectified, matrix, geometry, fields)
    players = np.array(classes.colourful)
    best, cosine, share = _towards_players(faces, rings, printed, classes.player_bgr[players],
                                           config)
    found = (cosine >= config.roof_min_cosine) & (share >= config.roof_piece_share)
    out = list(states)
    for f, p in zip(fields[found].tolist(), players[best[found]].tolist(), strict=True):
        out[f] = FieldState(states[f].name, classes.players[p], 1, config.roof_piece_confidence)
    return out


def colourless_faces(rectified: np.ndarray, matrix: np.ndarray, states: list[FieldState],
                     geometry: BoardGeometry, classes: ColourClasses,
                     config: VisionConfig) -> list[FieldState]:
    """``states`` with the pieces read surely as a colourful player (magenta, cyan) whose
    top face's median (the raw ``rectified`` frame normalised by ``matrix``, 3x4) holds
    less than ``colour_face_min_chroma`` of that player's chroma along its hue read with at
    most ``colour_face_confidence``: a black stone, grey in a bright frame or washed by
    glare, has pixels the tables take for deep-shaded cyan, but its face as a whole is
    grey (board bench tuning seeds 1, 5, 6, 7, Spexxx: such readings up to 0.32 of
    cyan's chroma, cyan and magenta stones from 0.47). Games without stacks: a tower's
    top face is the piece's alone only one high."""
    if geometry.max_height != 1 or not classes.colourful:
        return states
    players = {classes.players[p]: p for p in classes.colourful}
    fields = np.array([f for f, s in enumerate(states) if s.top_colour in players
                       and s.confidence >= config.uncertain_below], np.int64)
    if not len(fields):
        return states
    _, chroma = _face_chroma(rectified, matrix, geometry, classes, states, fields, players)
    out = list(states)
    for f in fields[chroma < config.colour_face_min_chroma].tolist():
        out[f] = FieldState(states[f].name, states[f].top_colour, states[f].height,
                            config.colour_face_confidence)
    return out


def _face_chroma(rectified: np.ndarray, matrix: np.ndarray, geometry: BoardGeometry,
                 classes: ColourClasses, states: list[FieldState], fields: np.ndarray,
                 players: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """Each of ``fields``' one-piece top face median (:func:`_face_medians`) in 8-bit
    Lab, and its chroma along the hue of the player read there (``players``: colour ->
    index), as a share of that player's own."""
    face_lab = _lab_of(_face_medians(rectified, matrix, geometry, fields))
    own = np.array([players[states[f].top_colour] for f in fields])
    player_ab = _lab_of(classes.player_bgr[own])[:, 1:] - 128.0
    chroma = (((face_lab[:, 1:] - 128.0) * player_ab).sum(axis=1)
              / np.maximum((player_ab ** 2).sum(axis=1), 1.0))
    return face_lab, chroma


def grey_faces_read_dark(rectified: np.ndarray, matrix: np.ndarray,
                         states: list[FieldState], geometry: BoardGeometry,
                         classes: ColourClasses, config: VisionConfig) -> list[FieldState]:
    """``states`` with the pieces read as a colourful player (magenta, cyan) whose top
    face's median holds less than ``colour_face_min_chroma`` of that player's chroma along
    its hue (as :func:`colourless_faces` measures it) and lies darker than
    ``colour_face_dark_lightness`` (8-bit Lab L) read as the darkest other player darker
    than that (a black stone), with ``colour_face_confidence``: a black stone greyed in a
    bright frame or by a lamp's sheen, whose pixels the tables took for deep-shaded cyan,
    is grey all over its face and dark, while the cyan and magenta stones
    :func:`washed_out_stones` finds in a glare spot, or those pale in haze, are grey but
    light (board bench tuning seeds 1, 5, 6, 7, Spexxx, standalone: 15 of 18 black stones
    read cyan at L 50-76, chroma 0.03-0.32; magenta and cyan stones under 0.4 at L 175 or
    more: docs/vision.md, 2026-11-28, eleventh session). Games without stacks: a tower's
    top face is the piece's alone only one high."""
    if geometry.max_height != 1 or not classes.colourful:
        return states
    lightness = _lab_of(classes.player_bgr)[:, 0]
    others = [p for p in range(len(classes.players)) if p not in classes.colourful
              and lightness[p] < config.colour_face_dark_lightness]
    if not others:
        return states
    darkest = classes.players[min(others, key=lambda p: lightness[p])]
    players = {classes.players[p]: p for p in classes.colourful}
    # a sure reading with such a face was made unsure by colourless_faces already
    fields = np.array([f for f, s in enumerate(states) if s.top_colour in players
                       and s.confidence < config.uncertain_below], np.int64)
    if not len(fields):
        return states
    face_lab, chroma = _face_chroma(rectified, matrix, geometry, classes, states, fields,
                                    players)
    dark = (chroma < config.colour_face_min_chroma) & (face_lab[:, 0]
                                                      < config.colour_face_dark_lightness)
    out = list(states)
    for f in fields[dark].tolist():
        out[f] = FieldState(states[f].name, darkest, states[f].height,
                            min(states[f].confidence, config.colour_face_confidence))
    return out


def lit_discs(rectified: np.ndarray, matrix: np.ndarray, states: list[FieldState],
              geometry: BoardGeometry, classes: ColourClasses,
              config: VisionConfig) -> list[FieldState]:
    """``states`` with the fields read surely empty whose one-piece top face stands out as
    a disc lighter than the cell just beyond its rim all round read with at most
    ``disc_confidence``: a stone blurred, greyed or washed into its cell's colours, whose
    rim and shadow still ring it. Per field the median over ``disc_samples`` directions
    from the top face's centre of the grey (B + G + R, the raw ``rectified`` frame
    normalised by ``matrix``, 3x4) at ``disc_outer_mm`` less that at ``disc_inner_mm``,
    as a share of the board printed around (:attr:`BoardGeometry.surround_idx`; at least
    ``disc_min_ring`` of its print); at ``-disc_min_step`` or under the reading is unsure.
    Games without stacks and colourful players (Spexxx)."""
    if geometry.max_height != 1 or not classes.colourful or geometry.surround_idx is None:
        return states
    fields = _empty_ringed(states, geometry, config.washed_min_surround_px)
    fields = fields[[states[f].confidence >= config.uncertain_below for f in fields]]
    if not len(fields):
        return states
    step = np.median(np.diff(_disc_greys(rectified, matrix, fields, geometry, config),
                             axis=1)[:, 0], axis=1)
    out = list(states)
    for f in _lit_disc_fields(rectified, matrix, fields, step, geometry, classes, config,
                              config.disc_min_step).tolist():
        out[f] = FieldState(states[f].name, states[f].top_colour, states[f].height,
                            min(states[f].confidence, config.disc_confidence))
    return out


def lit_look_alikes(rectified: np.ndarray, matrix: np.ndarray, states: list[FieldState],
                    geometry: BoardGeometry, classes: ColourClasses,
                    config: VisionConfig) -> list[FieldState]:
    """``states`` with the fields read empty on a square printed in a colour a lighter
    player's piece matches but for brightness (a white stone on Spexxx's silver) read as
    that piece, with ``disc_confidence``, where the top face is a disc lighter than the
    cell beyond its rim by ``look_alike_disc_step`` (the median grey over the circle at
    ``disc_outer_mm`` less that at ``disc_inner_mm``, as a share of the board around as
    in :func:`lit_discs`, which takes the median of the differences: the side and shadow
    of a stone lying off centre darken only some directions) and its median lies above
    the corners' ``look_alike_rim_percentile`` (the raw ``rectified`` frame normalised
    by ``matrix``, 3x4): a white stone dimmed,
    greyed or blurred to silver's brightness, past the face test of
    :func:`look_alike_pieces`, keeps its shaded rim and outline, while an empty cell is
    even within its square (board bench tuning seeds 1, 5, 6, 7: white stones read empty
    on silver 0.26-1.58, empty cells whose face is lighter than the corners 0.47 at most:
    docs/vision.md, 2026-11-28, eleventh session)."""
    if geometry.surround_idx is None:
        return states
    lighter = {board: max(pairs, key=lambda pair: pair[1])[0]
               for board, pairs in classes.look_alikes.items() if max(p[1] for p in pairs) > 0}
    entries = {entry[0]: entry for entry in geometry.look_alike
               if entry[1] in lighter and not states[entry[0]].height
               and geometry.playable[entry[0]]
               and geometry.surround_area[entry[0]] >= config.washed_min_surround_px}
    if not entries:
        return states
    fields = np.array(list(entries), np.int64)
    greys = np.median(_disc_greys(rectified, matrix, fields, geometry, config), axis=2)
    lit = _lit_disc_fields(rectified, matrix, fields, greys[:, 1] - greys[:, 0], geometry,
                           classes, config, config.look_alike_disc_step)
    out = list(states)
    for f in lit.tolist():
        _, board, face_idx, rim_idx, _ = entries[f]
        face, rim = (_grey(rectified, matrix, idx) for idx in (face_idx, rim_idx))
        if np.median(face) > np.percentile(rim, config.look_alike_rim_percentile):
            out[f] = FieldState(states[f].name, classes.players[lighter[board]], 1,
                                config.disc_confidence)
    return out


def _grey(rectified: np.ndarray, matrix: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """The grey (B + G + R) of the flat pixels ``idx`` of ``rectified``, normalised by
    ``matrix`` (3x4) in floats."""
    return rectified.reshape(-1, 3)[idx] @ np.diag(matrix)[:3] + matrix[:, 3].sum()


def _disc_greys(rectified: np.ndarray, matrix: np.ndarray, fields: np.ndarray,
                geometry: BoardGeometry, config: VisionConfig) -> np.ndarray:
    """(n, 2, ``disc_samples``) the grey (:func:`_grey`) of each of ``fields``' one-piece
    top face at ``disc_inner_mm`` and ``disc_outer_mm`` from its centre, direction by
    direction."""
    width, height = geometry.size
    centres = geometry.top_centres[fields]  # one layer: segment f is field f
    angles = np.linspace(0.0, 2 * np.pi, config.disc_samples, endpoint=False)
    unit = np.stack([np.cos(angles), np.sin(angles)], axis=1) * geometry.px_per_mm
    radii = np.array([config.disc_inner_mm, config.disc_outer_mm])
    # both circles' pixels in one gather
    at = np.rint(centres[:, None, None, :] + radii[None, :, None, None] * unit).astype(np.int64)
    return _grey(rectified, matrix, np.clip(at[..., 1], 0, height - 1) * width
                 + np.clip(at[..., 0], 0, width - 1))


def _lit_disc_fields(rectified: np.ndarray, matrix: np.ndarray, fields: np.ndarray,
                     step: np.ndarray, geometry: BoardGeometry, classes: ColourClasses,
                     config: VisionConfig, min_step: float) -> np.ndarray:
    """Those of ``fields`` whose ``step`` (the grey beyond the face's rim less that within
    it) is ``min_step`` of the board printed around them or more below zero: its grey
    (:attr:`BoardGeometry.surround_idx`), at least ``disc_min_ring`` of its print."""
    printed = classes.board_bgr[geometry.printed[fields]].sum(axis=1)
    # the ring's medians only where the step could reach the cut: few fields
    floor = np.maximum(config.disc_min_ring * printed, 1.0)
    near = step <= -min_step * floor
    fields, step, floor = fields[near], step[near], floor[near]
    ring = _surround_medians(rectified, matrix, geometry, fields).sum(axis=1)
    return fields[step / np.maximum(ring, floor) <= -min_step]


def _lab_of(bgr: np.ndarray) -> np.ndarray:
    """(n, 3) BGR floats -> OpenCV 8-bit Lab, clipped to 8 bits first."""
    pixels = np.uint8(np.clip(np.rint(bgr), 0, 255)).reshape(1, -1, 3)
    return cv2.cvtColor(pixels, cv2.COLOR_BGR2Lab).reshape(-1, 3).astype(np.float64)


def print_read_as_pieces(rectified: np.ndarray, matrix: np.ndarray, states: list[FieldState],
                         geometry: BoardGeometry, classes: ColourClasses,
                         config: VisionConfig) -> list[FieldState]:
    """``states`` with the pieces read unsure whose top face one piece high stands out
    from their own square's print around it (outside every tower read, its own included,
    grown by ``roof_tower_margin_mm``) by less than ``print_piece_share`` of the step from
    that print to the colour read read empty, as unsure as before. An overexposed or dim
    frame moves a printed orange or lime square towards yellow in the colour tables, and
    the square reads as a yellow tower; a piece there differs from the print beside it by
    its own colour. The raw ``rectified`` frame normalised by ``matrix`` (3x4) in floats,
    as :func:`washed_out_pieces`. Games with stacks."""
    if geometry.square_idx is None:
        return states
    read = np.array([f for f, s in enumerate(states)
                     if s.height and s.confidence < config.uncertain_below], np.int64)
    if not len(read):
        return states
    towers = tower_mask([s.height for s in states], geometry,
                        config.roof_tower_margin_mm).ravel()
    square, square_of, square_px = _square_runs(geometry, read, towers)
    judged = square_px >= config.roof_min_face_px
    if not judged.any():
        return states
    keep = judged[square_of]
    square, square_of = square[keep], (np.cumsum(judged) - 1)[square_of[keep]]
    read = read[judged]
    around = _normalised_run_medians(rectified.reshape(-1, 3), matrix, square, square_of,
                                     square_px[judged])
    top_ends = np.cumsum(geometry.top_area)
    segs = read * geometry.max_height  # one piece high
    faces = _normalised_medians(rectified, matrix, geometry.top_idx,
                                top_ends[segs] - geometry.top_area[segs], top_ends[segs])
    players = np.array([classes.players.index(states[f].top_colour) for f in read])
    step = classes.player_bgr[players] - classes.board_bgr[geometry.printed[read]]
    share = _board_share(faces - around, step)
    out = list(states)
    for f in read[share < config.print_piece_share].tolist():
        out[f] = FieldState(states[f].name, None, 0, states[f].confidence)
    return out


def washed_out_pieces(rectified: np.ndarray, matrix: np.ndarray, states: list[FieldState],
                      geometry: BoardGeometry, classes: ColourClasses, config: VisionConfig,
                      symbols: np.ndarray) -> list[FieldState]:
    """``states`` with the fields read empty whose top face stands out from their own
    square's print around it towards a player's colour (see ``roof_piece_share``) read as
    that player's piece, one high and unsure (the height is not seen), or, less far,
    left empty but unsure. A lamp's glare washes a piece towards the board's colour, so
    that its labels match the board, but it adds the same to the print beside it: the
    difference keeps the piece's own direction. Measured on the raw ``rectified`` frame
    normalised by ``matrix`` (3x4) in floats, as :func:`washed_out_board`. Cuatro prints
    a dark symbol under the face (``symbols``, per field): only the face's lightest pixels
    along the print are compared. A field with no symbol whose square a lamp's glare lifts
    (``glare_stone_lift``) is judged by its whole face: the lightest tenth of a piece
    there is the glare's own sheen, the piece's colour lies in the rest. Out of glare, a
    field with no symbol so read as a piece whose whole face lies far off that colour
    washed towards white (:func:`_white_misfits`, ``sheen_veto``) stays empty. Games
    with stacks; towers that lean over a face or a square (grown for pieces lying off
    centre) are left out of both."""
    if geometry.square_idx is None:
        return states
    empty = np.array([f for f, s in enumerate(states) if not s.height], np.int64)
    if not len(empty):
        return states
    towers = tower_mask([s.height for s in states], geometry,
                        config.roof_tower_margin_mm).ravel()
    top_ends = np.cumsum(geometry.top_area)
    segs = empty * geometry.max_height  # one piece high
    face, face_of = _runs(geometry.top_idx, top_ends[segs] - geometry.top_area[segs],
                          top_ends[segs], towers)
    square, square_of, square_px = _square_runs(geometry, empty, towers)
    face_px = np.bincount(face_of, minlength=len(empty))
    judged = (face_px >= config.roof_min_face_px) & (square_px >= config.roof_min_face_px)
    if not judged.any():
        return states
    face_in, square_in = judged[face_of], judged[square_of]
    renumber = np.cumsum(judged) - 1
    face, face_of = face[face_in], renumber[face_of[face_in]]
    square, square_of = square[square_in], renumber[square_of[square_in]]
    empty = empty[judged]
    flat = rectified.reshape(-1, 3)
    scale, lift = np.diag(matrix)[:3], matrix[:, 3]
    printed = classes.board_bgr[geometry.printed[empty]]
    unit = printed / np.linalg.norm(printed, axis=1, keepdims=True)
    along = ((flat[face] * scale + lift) * unit[face_of]).sum(axis=1)
    cut = _segment_percentiles(along, face_px[judged], [config.roof_face_top_pct])[:, 0]
    light = along >= cut[face_of]
    lightest, lightest_of = face[light], face_of[light]
    faces, around = (_normalised_run_medians(flat, matrix, px, of,
                                             np.bincount(of, minlength=len(empty)))
                     for px, of in ((lightest, lightest_of), (square, square_of)))

    def whole_faces(which: np.ndarray) -> np.ndarray:
        picked = which[face_of]
        return _normalised_run_medians(flat, matrix, face[picked],
                                       (np.cumsum(which) - 1)[face_of[picked]],
                                       face_px[judged][which])

    whole = ~symbols[empty] & (around.sum(axis=1)
                               >= config.glare_stone_lift * printed.sum(axis=1))
    if whole.any():
        faces[whole] = whole_faces(whole)
    player, cosine, share = _towards_players(faces, around, printed, classes.player_bgr, config)
    out = list(states)
    for f, p, seen, fit in zip(empty.tolist(), player.tolist(), share.tolist(),
                               cosine.tolist(), strict=True):
        if fit < config.roof_min_cosine or seen < config.roof_unsure_share:
            continue
        state = states[f]
        if seen >= config.roof_piece_share:
            out[f] = FieldState(state.name, classes.players[p], 1, config.roof_piece_confidence)
        else:
            out[f] = FieldState(state.name, None, 0, min(state.confidence,
                                                         1.0 - seen / config.roof_piece_share))
    # Out of glare a piece's face shows its colour, washed towards white at most by its
    # own glossy top mirroring the lamp; a face that only points towards a player (an
    # empty square) lies far off that line.
    read = np.array([out[f].height > 0 for f in empty.tolist()])
    checked = read & ~symbols[empty] & (around.sum(axis=1)
                                        < config.sheen_veto_lift * printed.sum(axis=1))
    if checked.any():
        fields = empty[checked].tolist()
        colours = classes.player_bgr[[classes.players.index(out[f].top_colour)
                                      for f in fields]]
        misfit = _white_misfits(whole_faces(checked), around[checked], printed[checked],
                                colours)
        for f, off in zip(fields, misfit.tolist(), strict=True):
            if off >= config.sheen_veto:
                out[f] = FieldState(states[f].name, None, 0,
                                    min(states[f].confidence, config.roof_piece_confidence))
    return out


def _white_misfits(faces: np.ndarray, around: np.ndarray, printed: np.ndarray,
                   colours: np.ndarray) -> np.ndarray:
    """Per field, how far its whole face (``faces``, medians) lies from the piece
    ``colours`` (per field, BGR) washed towards white, as a share of the step from the
    ``printed`` colour to the piece's. The face is first divided, channel by channel, by
    the lift of the board ``around`` it over its print: the light falls on piece and
    board alike."""
    seen = faces * printed / np.maximum(around, 1.0)
    white = 255.0 - colours  # the way each colour washes
    off = seen - colours
    washed = np.clip((off * white).sum(axis=1) / np.maximum((white * white).sum(axis=1), 1.0),
                     0.0, 1.0)
    return np.linalg.norm(off - washed[:, None] * white, axis=1) \
        / np.maximum(np.linalg.norm(colours - printed, axis=1), 1e-6)


def _towards_players(faces: np.ndarray, around: np.ndarray, printed: np.ndarray,
                     player_bgr: np.ndarray, config: VisionConfig
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each field, the player (index into ``player_bgr``) its face stands out towards
    from the board ``around`` it, the cosine between that difference and the step from the
    ``printed`` colour to the player's, and the share of the step it goes. A player's
    colour within ``roof_min_step`` of the print (a piece learned off an empty field) is
    never picked: it cannot be told from the print washed or seen through noise."""
    step = player_bgr[None, :, :] - printed[:, None, :]  # (fields, players, 3)
    off = faces - around
    along_step = (step * off[:, None, :]).sum(axis=2)
    size = np.linalg.norm(step, axis=2)
    cosine = along_step / np.maximum(size * np.linalg.norm(off, axis=1)[:, None], 1e-6)
    cosine[size < config.roof_min_step] = -1.0
    best = cosine.argmax(axis=1)
    rows = np.arange(len(faces))
    share = along_step[rows, best] / np.maximum((step[rows, best] ** 2).sum(axis=1), 1.0)
    return best, cosine[rows, best], share


def _square_runs(geometry: BoardGeometry, fields: np.ndarray, towers: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pixels of ``fields``' own squares (:attr:`BoardGeometry.square_idx`) outside
    the ``towers`` mask, one field's after the other's, the number of each one's field
    (its place in ``fields``), and how many each field kept (:func:`_runs`)."""
    ends = np.cumsum(geometry.square_area)
    square, square_of = _runs(geometry.square_idx, ends[fields] - geometry.square_area[fields],
                              ends[fields], towers)
    return square, square_of, np.bincount(square_of, minlength=len(fields))


def _runs(idx: np.ndarray, begin: np.ndarray, end: np.ndarray, covered: np.ndarray
          ) -> tuple[np.ndarray, np.ndarray]:
    """The values of ``idx[b:e]`` for each (b, e), one after the other, those where
    ``covered`` is set left out, and for each the number of its run."""
    owner = np.repeat(np.arange(len(begin)), end - begin)
    picked = _gather(idx, begin, end)
    keep = covered[picked] == 0
    return picked[keep], owner[keep]


def _gather(idx: np.ndarray, begin: np.ndarray, end: np.ndarray) -> np.ndarray:
    """``idx[b:e]`` for each (b, e), one after the other, in one indexing."""
    sizes = end - begin
    return idx[np.repeat(begin, sizes) + np.arange(sizes.sum())
               - np.repeat(np.cumsum(sizes) - sizes, sizes)]


def _top_lightness(lab: np.ndarray, geometry: BoardGeometry, states: list[FieldState],
                   pieces: list[int] | np.ndarray) -> np.ndarray:
    """The median lightness (8-bit L) of each of these fields' top faces, at their height."""
    starts = np.concatenate([[0], np.cumsum(geometry.top_area)])  # top_seg is sorted
    segs = np.array([f * geometry.max_height + states[f].height - 1 for f in pieces], np.int64)
    return _segment_medians(lab.reshape(-1, 3)[:, 0], geometry.top_idx, starts[segs],
                            starts[segs + 1])


def _otsu_cut(ranked: np.ndarray) -> int:
    """Where sorted values part best into two groups (the most variance between them,
    Otsu's criterion): the widest gap alone falls among black stones a glare spot spreads
    from dark to grey, with the whites still far above them."""
    count = np.arange(1, len(ranked))
    below = np.cumsum(ranked)[:-1] / count
    above = (ranked.sum() - below * count) / (len(ranked) - count)
    return int(np.argmax(count * (len(ranked) - count) * (above - below) ** 2))


def one_piece_faces(lab: np.ndarray, geometry: BoardGeometry, classes: ColourClasses
                    ) -> np.ndarray | None:
    """Every field's one-piece top face median in Lab (8-bit, (fields, 3)), which
    :func:`frame_colour_pieces` and :func:`mixed_stones` judge, taken once a frame; None
    in a game with stacks (a tower's top face is not its own square's) or without
    colourful players."""
    if geometry.max_height > 1 or not classes.colourful:
        return None
    # every field's top face: no segment to pick (top_seg is sorted)
    tops = np.take(lab.reshape(-1, 3), geometry.top_idx, axis=0)
    return np.stack([_medians_of_runs(tops[:, c], geometry.top_seg, geometry.top_area)
                     for c in range(3)], axis=1)


def frame_colour_pieces(faces: np.ndarray | None, states: list[FieldState],
                        geometry: BoardGeometry, classes: ColourClasses,
                        config: VisionConfig) -> list[FieldState]:
    """``states`` with the colourful pieces (magenta, cyan) found on fields read empty by
    the colours this frame shows: its own empty cells of each printed colour and its own
    pieces of each player, from the fields read surely (``frame_colour_*``), in a/b. A dim
    or colour-cast frame moves a piece and the cell under it alike, so the two stay apart
    within the frame while both match the tables. Games without stacks only: there a
    field's top face shows its own square when empty, not a neighbour's tower
    (``faces``: :func:`one_piece_faces`)."""
    if faces is None:
        return states
    seen = _frame_colours(faces[:, 1:], states, geometry, classes, classes.colourful, config)
    if seen is None:
        return states
    faces, fields, own, pieces, players = seen
    to_board = np.hypot(*(faces - own).T)
    to_pieces = np.hypot(*(faces[:, None, :] - pieces).transpose(2, 0, 1))
    nearest = to_pieces.argmin(axis=1)
    to_piece = to_pieces[np.arange(len(fields)), nearest]
    reach = config.frame_colour_ratio * to_board
    found = ((to_board >= config.frame_colour_board_distance)
             & (to_piece <= config.frame_colour_piece_distance) & (to_piece < reach))
    out = list(states)
    for k in np.flatnonzero(found):
        f = fields[k]
        out[f] = FieldState(states[f].name, classes.players[players[nearest[k]]], 1,
                            float(min(1.0, 1.0 - to_piece[k] / reach[k])))
    return out


def _frame_colours(faces: np.ndarray, states: list[FieldState], geometry: BoardGeometry,
                   classes: ColourClasses, among: list[int], config: VisionConfig
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[int]] | None:
    """The colours this frame shows, in the channels of ``faces`` (8-bit Lab, a column
    each; :func:`one_piece_faces`), from the fields read with ``frame_colour_sure``: of the
    fields read empty whose print has at least ``frame_colour_board_fields`` such empty
    cells, their top faces, the fields, and the median of those cells (per field); the
    median top face of each player of ``among`` (indices) with at least
    ``frame_colour_piece_fields`` such pieces, and those players. None where the frame
    shows no such print or player."""
    own, pieces = _frame_references(faces, states, geometry, classes, among, config)
    empty = np.array([s.height == 0 for s in states])
    fields = np.flatnonzero(empty & ~np.isnan(own[:, 0]))
    if not len(fields) or not pieces:
        return None
    players = list(pieces)
    return faces[fields], fields, own[fields], np.array([pieces[p] for p in players]), players


def _frame_references(faces: np.ndarray, states: list[FieldState], geometry: BoardGeometry,
                      classes: ColourClasses, among: list[int], config: VisionConfig
                      ) -> tuple[np.ndarray, dict[int, np.ndarray]]:
    """Per field, the median top face of the sure empty cells of its print (NaN where
    fewer than ``frame_colour_board_fields``), and per player of ``among`` with at least
    ``frame_colour_piece_fields`` sure pieces their median top face: see
    :func:`_frame_colours`."""
    sure = np.array([s.confidence >= config.frame_colour_sure for s in states])
    empty = np.array([s.height == 0 for s in states])
    index = {classes.players[p]: p for p in among}
    owner = np.array([index.get(s.top_colour, -1) for s in states])
    # per printed colour, the median of its sure empty cells (NaN: too few)
    boards = np.full((int(geometry.printed.max()) + 1, faces.shape[1]), np.nan)
    for board in np.unique(geometry.printed):
        chosen = sure & empty & (geometry.printed == board)
        if chosen.sum() >= config.frame_colour_board_fields:
            boards[board] = _column_medians(faces[chosen])
    pieces = {}
    for p in among:
        chosen = sure & (owner == p)
        if chosen.sum() >= config.frame_colour_piece_fields:
            pieces[p] = _column_medians(faces[chosen])
    return boards[geometry.printed], pieces


def mixed_stones(lab: np.ndarray, faces: np.ndarray | None, states: list[FieldState],
                 geometry: BoardGeometry, classes: ColourClasses,
                 config: VisionConfig) -> list[FieldState]:
    """``states`` with the fields read empty that hold a stone blurred into its cell read
    as that player with ``frame_colour_mix_confidence``: the top face lies on the line
    from this frame's own empty cells of its print to its own pieces of the player
    nearest it (:func:`_frame_colours`; a line at least ``frame_colour_board_distance``
    long), ``frame_colour_mix_share`` of the way or more and within
    ``frame_colour_mix_off`` of it, and that share drops by ``frame_colour_mix_disc`` or
    more on the circle just beyond a stone's rim (``disc_outer_mm``, the median over
    ``disc_samples`` directions). Blur, haze or dim light mixes a stone with the cell
    round it, past :func:`frame_colour_pieces`' distance, while the cell beyond its rim
    stays the cell; an empty cell a neighbour's stone colours or shades is as coloured at
    its rim as at its centre. Colourful players (magenta, cyan) are judged in a/b, the
    darker of a pair told by lightness (black) in Lab: a black stone blurred into its
    cell or lifted by a lamp's sheen is a grey the tables take for silver, yet lies most
    of the way from this frame's silver cells to its blacks (board bench tuning seeds 1,
    5, 6, 7, Spexxx: docs/vision.md, 2026-11-29, twelfth session). Conversely, unsure
    white stones short of their line read empty (:func:`_short_of_line`). Games without
    stacks (``faces``: :func:`one_piece_faces`; ``lab``: the image they come from), cells
    a piece may lie on; after occlusion, whose cues were tuned on the readings before it;
    all judged on ``states`` as given."""
    if faces is None:
        return states
    emptied = _short_of_line(faces, states, geometry, classes, config)
    found = (_mixed_on_line(lab, faces, slice(1, 3), classes.colourful, states, geometry,
                            classes, config)
             + _mixed_on_line(lab, faces, slice(0, 3), [p for p, _ in classes.lightness_pairs],
                              states, geometry, classes, config))
    out = list(states)
    for f, player in reversed(found):  # the colourful reading first where both find one
        out[f] = FieldState(states[f].name, classes.players[player], 1,
                            config.frame_colour_mix_confidence)
    for f in emptied:
        out[f] = FieldState(states[f].name, None, 0, config.frame_colour_mix_confidence)
    return out


def _short_of_line(faces: np.ndarray, states: list[FieldState], geometry: BoardGeometry,
                   classes: ColourClasses, config: VisionConfig) -> list[int]:
    """The fields read as a whitish player (``ColourClasses.whitish``: white) under
    ``frame_colour_cell_sure`` whose top face lies less than ``frame_colour_cell_share``
    of the way, in Lab, from this frame's own empty cells of their print to its own
    stones of that player, within ``frame_colour_mix_off`` of that line
    (:func:`_frame_references`; a line at least ``frame_colour_board_distance`` long;
    a face off it is no cell of that print, as where the rings miss their stones): a
    silver cell lit pale matches white's table better than its own, yet stays nearer the
    frame's silver cells than its whites, which that light lifts alike (board bench
    tuning seeds, Spexxx: docs/vision.md, 2026-11-29, twelfth session)."""
    own, pieces = _frame_references(faces, states, geometry, classes, classes.whitish, config)
    emptied: list[int] = []
    for q, piece in pieces.items():
        fields = np.flatnonzero(np.array([
            s.height == 1 and s.top_colour == classes.players[q]
            and s.confidence < config.frame_colour_cell_sure for s in states])
            & geometry.playable & ~np.isnan(own[:, 0]))
        share, off, length2 = _on_line(faces[fields], own[fields], piece - own[fields])
        emptied += fields[(length2 >= config.frame_colour_board_distance ** 2)
                          & (share < config.frame_colour_cell_share)
                          & (off <= config.frame_colour_mix_off)].tolist()
    return emptied


def _on_line(points: np.ndarray, starts: np.ndarray, line: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """How far each point lies along its ``line`` from its start (a share of the line),
    how far off it, and the line's squared length (at least 1), row by row."""
    length2 = np.maximum((line * line).sum(axis=1), 1.0)
    rel = points - starts
    share = (rel * line).sum(axis=1) / length2
    return (share, np.sqrt(np.maximum((rel * rel).sum(axis=1) - share * share * length2, 0.0)),
            length2)


def _mixed_on_line(lab: np.ndarray, faces: np.ndarray, channels: slice, among: list[int],
                   states: list[FieldState], geometry: BoardGeometry, classes: ColourClasses,
                   config: VisionConfig) -> list[tuple[int, int]]:
    """The (field, player) pairs :func:`mixed_stones` finds among the players ``among``,
    judged in the Lab ``channels`` given."""
    if not among:
        return []
    seen = _frame_colours(faces[:, channels], states, geometry, classes, among, config)
    if seen is None:
        return []
    faces, fields, boards, pieces, players = seen
    nearest = np.sqrt(((faces[:, None, :] - pieces) ** 2).sum(axis=2)).argmin(axis=1)
    line = pieces[nearest] - boards
    share, off, length2 = _on_line(faces, boards, line)
    near = np.flatnonzero((share >= config.frame_colour_mix_share)
                          & (off <= config.frame_colour_mix_off)
                          & (length2 >= config.frame_colour_board_distance ** 2)
                          & geometry.playable[fields])
    if not len(near):
        return []
    width, height = geometry.size
    angles = np.linspace(0.0, 2 * np.pi, config.disc_samples, endpoint=False)
    unit = np.stack([np.cos(angles), np.sin(angles)], axis=1) * (config.disc_outer_mm
                                                                  * geometry.px_per_mm)
    at = np.rint(geometry.top_centres[fields[near]][:, None, :] + unit).astype(np.int64)
    ring = np.median(lab[np.clip(at[..., 1], 0, height - 1), np.clip(at[..., 0], 0, width - 1),
                         channels].astype(np.float64), axis=1)
    beyond = ((ring - boards[near]) * line[near]).sum(axis=1) / length2[near]
    return [(int(fields[k]), players[nearest[k]])
            for k in near[share[near] - beyond >= config.frame_colour_mix_disc].tolist()]


def pale_colourful_pieces(lab: np.ndarray, states: list[FieldState], geometry: BoardGeometry,
                          classes: ColourClasses, config: VisionConfig) -> list[FieldState]:
    """``states`` with the pieces read whitish (white stones) whose top face lies, in a/b
    (8-bit Lab), ``pale_piece_shift`` or more from this frame's own white stones along a
    colourful player's hue (magenta, cyan) read as that player, unsure
    (``pale_piece_confidence``). A lamp's glare or haze washes such a stone nearly white,
    so it matches white best, but keeps part of its hue, while the white stones beside
    it, washed alike, stay neutral. Judged at the ``pale_piece_percentile`` of the face's
    pixels: a white stone blurred into a coloured cell takes a hue at its rim only.
    Games without stacks, frames with ``pale_piece_white_fields`` sure white stones; the
    reader runs it only in a frame without a hand (skin read as white stones has a hue of
    its own)."""
    if geometry.max_height > 1 or not classes.colourful or not classes.whitish:
        return states
    light = {classes.players[p] for p in classes.whitish}
    pieces = np.array([f for f, s in enumerate(states) if s.height and s.top_colour in light],
                      np.int64)
    sure = pieces[[states[f].confidence >= config.frame_colour_sure for f in pieces]]
    if len(sure) < config.pale_piece_white_fields:
        return states
    ends = np.cumsum(geometry.top_area)  # one layer: segment f is field f
    starts = ends - geometry.top_area
    flat = lab.reshape(-1, 3)
    white = _column_medians(np.stack([
        _segment_medians(flat[:, c], geometry.top_idx, starts[sure], ends[sure])
        for c in (1, 2)], axis=1))
    sizes = geometry.top_area[pieces]
    ab = flat[_gather(geometry.top_idx, starts[pieces], ends[pieces]), 1:] - white
    players = list(classes.colourful)
    shifts = np.stack([_segment_percentiles(
        ab @ _unit(bgr_to_lab(classes.player_bgr[p])[1:] - 128.0), sizes,
        [config.pale_piece_percentile])[:, 0] for p in players], axis=1)
    out = list(states)
    for k in np.flatnonzero(shifts.max(axis=1) >= config.pale_piece_shift):
        f = pieces[k]
        out[f] = FieldState(states[f].name, classes.players[players[shifts[k].argmax()]],
                            states[f].height, config.pale_piece_confidence)
    return out


def _unit(vector: np.ndarray) -> np.ndarray:
    return vector / max(float(np.linalg.norm(vector)), 1e-6)


def top_face_colours(lab: np.ndarray, states: list[FieldState], geometry: BoardGeometry
                     ) -> tuple[np.ndarray, np.ndarray]:
    """The fields read as pieces (indices) and the median Lab colour of each one's top
    face at the height read (8-bit, shape (n, 3))."""
    fields = np.array([f for f, s in enumerate(states) if s.height], np.int64)
    if not len(fields):
        return fields, np.zeros((0, 3))
    starts = np.concatenate([[0], np.cumsum(geometry.top_area)])  # top_seg is sorted
    segs = fields * geometry.max_height + np.array([states[f].height for f in fields]) - 1
    flat = lab.reshape(-1, 3)
    faces = np.stack([_segment_medians(flat[:, c], geometry.top_idx, starts[segs],
                                       starts[segs + 1]) for c in range(3)], axis=1)
    return fields, faces


def _segment_percentiles(values: np.ndarray, sizes: np.ndarray, percentiles: list[float]
                         ) -> np.ndarray:
    """(segments, len(percentiles)): ``np.percentile`` (linear) of each run of ``sizes``
    values, computed as numpy does, in one sort: one call per look-alike field took
    several ms a frame on a full Spexxx board."""
    owner = np.repeat(np.arange(len(sizes)), sizes)
    ordered = values[np.lexsort((values, owner))]
    first = (np.cumsum(sizes) - sizes)[:, None]
    last = (sizes - 1)[:, None]
    virtual = last * np.true_divide(percentiles, 100)[None, :]
    below = np.floor(virtual)
    gamma = virtual - below
    below = np.minimum(below, last).astype(np.intp)
    low = ordered[first + below]
    high = ordered[first + np.minimum(below + 1, last)]
    diff = high - low
    return np.where(gamma >= 0.5, high - diff * (1 - gamma), low + diff * gamma)


def _segment_medians(values: np.ndarray, idx: np.ndarray, begin: np.ndarray,
                     end: np.ndarray) -> np.ndarray:
    """The median of ``values[idx[b:e]]`` (8-bit) for each (b, e), from one histogram
    per run: a median per piece took 4 ms on a full Spexxx board, one sort of them all
    still 3 ms."""
    sizes = end - begin
    owner = np.repeat(np.arange(len(begin)), sizes)
    return _medians_of_runs(values[_gather(idx, begin, end)], owner, sizes)


def _column_medians(values: np.ndarray) -> np.ndarray:
    """``np.median(values, axis=0)`` of a small array, the same values without its
    overhead (a tenth of a millisecond a call, ten calls a Spexxx frame)."""
    ordered = np.sort(values, axis=0)
    return (ordered[(len(ordered) - 1) // 2] + ordered[len(ordered) // 2]) / 2


def _medians_of_runs(picked: np.ndarray, owner: np.ndarray, sizes: np.ndarray
                     ) -> np.ndarray:
    """The median of each run of 8-bit ``picked`` values (``owner``: each value's run,
    ascending; ``sizes``: the runs' lengths), from one histogram per run."""
    counts = np.bincount(owner * 256 + picked, minlength=len(sizes) * 256)
    below = np.cumsum(counts.reshape(-1, 256), axis=1)
    # the value at rank r is the first whose running count exceeds r
    lower = (below <= ((sizes - 1) // 2)[:, None]).sum(axis=1)
    upper = (below <= (sizes // 2)[:, None]).sum(axis=1)
    return (lower + upper) / 2


def read_fields(labels: np.ndarray, geometry: BoardGeometry, classes: ColourClasses,
                config: VisionConfig,
                sample: Callable[[np.ndarray], TowerProfiles] | None = None
                ) -> list[FieldState]:
    """Occupancy, height and top colour of every field from a labelled rectified image
    (and, for towers, the height profiles that ``sample`` takes of the occupied fields:
    :func:`sample_profiles`)."""
    flat = labels.ravel()
    players = len(classes.players)
    segments = len(geometry.names) * geometry.max_height
    in_slivers = flat[geometry.sliver_idx]
    # per segment, the pixels of each player, of the board and foreign, in one count
    kind = np.full(256, players + 1, np.int64)
    kind[:players], kind[BOARD] = np.arange(players), players
    sliver_counts = np.bincount(geometry.sliver_seg * (players + 2) + kind[in_slivers],
                                minlength=segments * (players + 2)).reshape(segments, -1)
    board_hits = sliver_counts[:, players]
    evidence = sliver_counts[:, :players].sum(axis=1) - board_hits
    for player, shared in geometry.sliver_shared:
        # board printed in this player's colour beside the field: no evidence against it
        regained = np.bincount(geometry.sliver_seg[(in_slivers == BOARD) & shared],
                               minlength=segments)
        evidence = np.maximum(evidence, sliver_counts[:, player] - board_hits + regained)
    evidence = evidence.reshape(-1, geometry.max_height)
    area = np.maximum(geometry.sliver_area, 1).reshape(-1, geometry.max_height)
    score = np.concatenate([np.zeros((evidence.shape[0], 1)), np.cumsum(evidence, axis=1)],
                           axis=1)
    top_labels = flat[geometry.top_idx].astype(np.int64)
    counts = np.bincount(geometry.top_seg * (players + 1) + np.minimum(top_labels, players),
                         minlength=segments * (players + 1)).reshape(segments, players + 1)
    top_area = np.maximum(geometry.top_area, 1)
    heights = score.argmax(axis=1)
    height_margin = np.ones(len(heights))
    occupied = np.nonzero(heights > 0)[0]
    if geometry.max_height > 1 and len(occupied) and sample is not None:
        profiles = sample(occupied)
        # The top face at the right height shows one colour all over; too high and it
        # slides off the tower, too low and it takes in the tower's side.
        segs = occupied[:, None] * geometry.max_height + np.arange(geometry.max_height)
        share = counts[segs, :players].max(axis=2) / top_area[segs]
        mismatch, blurred, trusted = measure_heights(profiles, players, geometry, config, share)
        length_cost = np.where(np.isnan(mismatch), 0.0, mismatch) \
            - config.top_face_weight * share
        cost = length_cost
        if profiles.outline is not None:
            # the whole outline's fit settles lengths that lie between two heights
            outline = outline_evidence(profiles.outline, occupied, geometry, classes, config)
            cost = cost - config.outline_weight * fit_outlines(outline, occupied, geometry,
                                                               config)
        best = cost.argmin(axis=1)
        heights[occupied] = best + 1
        ordered = np.sort(cost, axis=1)
        # Sure only when the measured length lies well clear of the boundary between the
        # two best heights in mm, not in layers: near the nadir a layer is under 1 mm.
        # The outline's fit never makes a reading surer than the length alone does: it
        # made more wrong heights sure on bench seeds 2 and 4 (docs/vision.md).
        gap = ordered[:, 1] - ordered[:, 0]
        chosen = length_cost[np.arange(len(best)), best]
        others = np.where(np.arange(cost.shape[1]) == best[:, None], np.inf, length_cost)
        gap = np.minimum(gap, others.min(axis=1) - chosen)
        step = np.diff(geometry.predicted_length[occupied], axis=1).mean(axis=1)
        # Nor does the blurred top's correction: it is a guess per tower (a correction
        # that moved the length away from the next likeliest height counts as not made).
        away = np.where(others.argmin(axis=1) > best, blurred, -blurred)
        clearance = gap * step / 2 - np.maximum(away, 0.0)
        trusted = trusted[np.arange(len(best)), best]
        height_margin[occupied] = np.where(trusted, clearance / config.height_sure_margin_mm,
                                           0.0)

    # the confidences as arrays, then one state per field from plain lists: numpy
    # scalars field by field took 2-3 ms on a full Spexxx board
    occupancy = evidence[:, 0] / area[:, 0]
    seg = np.arange(len(heights)) * geometry.max_height + np.maximum(heights, 1) - 1
    colour_counts = counts[seg, :players]
    best = colour_counts.argmax(axis=1)
    colour_share = colour_counts[np.arange(len(seg)), best] / top_area[seg]
    # empty: how clearly the first layer shows board rather than piece
    as_empty = np.minimum(np.maximum(-occupancy, 0.0), 1.0)
    as_piece = np.minimum.reduce([
        np.ones(len(heights)), np.maximum(0.0, occupancy), np.maximum(0.0, height_margin),
        colour_share / max(config.min_piece_fraction, 1e-6)])
    confidence = np.where(heights == 0, as_empty, as_piece)
    return [FieldState(name, classes.players[b] if h else None, h, c)
            for name, h, b, c in zip(geometry.names, heights.tolist(), best.tolist(),
                                     confidence.tolist(), strict=True)]
