"""Occlusion: which fields a hand or arm hides, so no state is reported for them.

A hand over the board shows colours other than the printed board where no tower can
stand (the gaps between towers are never covered by a piece). Such "unexpected"
pixels are gathered into blobs; a blob of hand size
hides every field it touches (plus a margin, because the hand's shadow and the arm's
edge are not reliably foreign). A marker that disappears while the board stays put is
also a sign of a hand reaching in, and makes the frame occluded.

A tracker that has seen the board clear adds a second cue, the change from that clear
view (:func:`find_change_occlusion`): a hand changes the look of the fields and the
towers it covers even where its colour is close to the board's, while a piece set down
changes only its own tower's spot.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.config import VisionConfig
from vision.fields import (
    BoardGeometry,
    ColourClasses,
    FieldState,
    top_face_colours,
    tower_mask,
)
from vision.pose import Camera


@dataclass(frozen=True)
class Occlusion:
    occluded: bool
    hidden_fields: frozenset[str]
    reason: str = ""
    #: Fields that look changed since the clear view while their reading is not
    #: (:func:`find_change_occlusion`): what lies there may not be what was read.
    changed_look: frozenset[str] = frozenset()
    #: Of ``hidden_fields``, those only a hand close to the board's colour hides
    #: (:func:`_faint_hand`): a still photo's cue, which a tracker does not wait on.
    faint: frozenset[str] = frozenset()


@dataclass(frozen=True)
class ClearView:
    """The board as seen in one frame, which later changes are measured from: per
    pixel the range of its smoothed Lab colour within ``change_shift_mm``, because the
    homography (and with it the rectified print) jitters by a pixel or so between
    frames."""

    low: np.ndarray
    high: np.ndarray
    states: list[FieldState]  # the fields read in it


def clear_view(lab: np.ndarray, states: list[FieldState], geometry: BoardGeometry,
               config: VisionConfig) -> ClearView:
    """The view of a smoothed Lab board image (:func:`smoothed`) and its fields."""
    reach = max(1, int(round(config.change_shift_mm * geometry.px_per_mm)))
    kernel = np.ones((2 * reach + 1, 2 * reach + 1), np.uint8)
    return ClearView(cv2.erode(lab, kernel), cv2.dilate(lab, kernel), states)


def moved_pieces(states: list[FieldState], clear: ClearView, geometry: BoardGeometry,
                 config: VisionConfig) -> np.ndarray:
    """Where towers stand, or stood in the clear view, on the fields whose reading
    differs from it, with their shadows (``piece_shadow_mm``): the change a piece set
    down or taken away explains. A tower that
    reads the same but looks different has something over it."""
    differ = [(s.top_colour, s.height) != (c.top_colour, c.height)
              for s, c in zip(states, clear.states, strict=True)]
    if not any(differ):
        return np.zeros(geometry.size[::-1], np.uint8)
    return tower_spots(states, clear.states, differ, geometry, config)


def tower_spots(now: list[FieldState], before: list[FieldState], chosen: list[bool],
                geometry: BoardGeometry, config: VisionConfig) -> np.ndarray:
    """Where the chosen fields' towers stand in ``now`` or stood in ``before``, grown by
    ``tower_margin_mm`` and their shadows (``piece_shadow_mm``): 1 there, 0 elsewhere."""
    reach = config.tower_margin_mm + config.piece_shadow_mm
    return (tower_mask([s.height if c else 0 for s, c in zip(now, chosen, strict=True)],
                       geometry, reach)
            | tower_mask([s.height if c else 0 for s, c in zip(before, chosen, strict=True)],
                         geometry, reach))


def smoothed(image: np.ndarray, geometry: BoardGeometry, config: VisionConfig) -> np.ndarray:
    """The rectified image blurred over ``hand_smoothing_mm``: sensor noise and the
    texture of skin should not count, a hand-sized patch does."""
    size = max(3, int(round(config.hand_smoothing_mm * geometry.px_per_mm)) | 1)
    return cv2.blur(image, (size, size))


#: 8-bit values squared, looked up: squaring a float copy of the image took longer.
_SQUARES = (np.arange(256, dtype=np.float32) ** 2).reshape(256, 1)


def changed(lab: np.ndarray, before: ClearView, config: VisionConfig) -> np.ndarray:
    """Where a smoothed Lab board image lies farther than ``change_distance`` outside
    the colour range of an earlier view. Lightness counts less
    (``change_lightness_weight``): a shadow moves it most."""
    outside = cv2.add(cv2.subtract(before.low, lab), cv2.subtract(lab, before.high))
    weights = np.array([[(config.change_lightness_weight * 100 / 255) ** 2, 1.0, 1.0]],
                       np.float32)
    squared = cv2.transform(cv2.LUT(outside, _SQUARES), weights)
    return squared > config.change_distance ** 2


def is_shadow(lab: np.ndarray, before: ClearView, change: np.ndarray,
              geometry: BoardGeometry, config: VisionConfig) -> bool:
    """Is the ``change`` on the board (:func:`changed`) a shadow: darker than the clear
    view in ``change_shadow_darker_share`` of it and faint, its
    ``change_shadow_percentile`` within ``change_shadow_distance``. A hand's shadow from
    beyond the board only darkens what it falls on (board bench seed 1 frames 82, 112:
    90th percentiles 19-22); a card or cup laid on the board shows its own colour (a red
    card on Just 4 Fun: 113)."""
    seen = change & on_board(geometry, change.shape)
    if not seen.any():
        return False
    outside = cv2.add(cv2.subtract(before.low, lab), cv2.subtract(lab, before.high))[seen]
    weights = np.array([config.change_lightness_weight * 100 / 255, 1.0, 1.0], np.float32)
    distance = np.linalg.norm(outside.astype(np.float32) * weights, axis=1)
    darker = lab[..., 0][seen] < before.low[..., 0][seen]
    return (darker.mean() >= config.change_shadow_darker_share
            and np.percentile(distance, config.change_shadow_percentile)
            <= config.change_shadow_distance)


def find_occlusion(bgr: np.ndarray, lab: np.ndarray, geometry: BoardGeometry,
                   classes: ColourClasses, towers: np.ndarray, config: VisionConfig,
                   markers_missing: int = 0, change: np.ndarray | None = None,
                   entry: np.ndarray | None = None,
                   ceiling: np.ndarray | None = None,
                   misfit: MisfitPieces | None = None,
                   symbols: np.ndarray | None = None) -> Occlusion:
    """Hidden fields from the smoothed, rectified, normalised board image (BGR and Lab)
    and the mask of the towers read in it (:func:`vision.fields.tower_mask`). With a
    clear view, only what ``change``d from it can be a hand: a patch that was there
    when the board was clear is part of the scene (glare, a stain). ``entry``
    (:func:`rim_entry`) says where something lies across the board's outer edge, where
    a hand close to the board's colour may reach in (:func:`_faint_hand`). ``ceiling``
    is, per channel, what a channel clipped in the frame becomes in ``bgr``. ``misfit``
    (:func:`misfit_pieces`, on a photo) are pieces read that may be the hand's skin:
    next to a hand found, those of its colour are its parts. ``symbols`` (per field: a
    symbol is printed at its centre, Cuatro) says where a hand may hide the print
    (:func:`_symbols_hidden`)."""
    # Unexpected: not the printed board, on plain board where no tower stands (deep
    # shade or glare on a piece match nothing either, and printed edges blur). Judged
    # strictly, on a slightly smoothed image: many skin tones are close to some board
    # colour.
    distance = classes.board_distance_at(lab, geometry.expected_offsets)
    usable = (geometry.plain > 0) & (towers == 0)
    foreign = (distance > config.hand_board_distance) & usable
    if change is not None:
        foreign &= change
    _drop_light_effects(foreign, bgr, geometry, classes, config, ceiling)
    # Towers and printed edges were left out of the test, so a hand shows in pieces.
    _, components, stats = _blobs(foreign, geometry, config)
    groups, _ = _grouped(components, stats, geometry, config)
    # a group is a hand by its largest blob: by their sum, scattered cells misread in a
    # blurred or washed-out frame made hands (Spexxx, board bench seed 1 frame 47)
    owner = np.zeros(len(stats), np.int64)
    owner[components[groups > 0]] = groups[groups > 0]
    largest = np.zeros(int(groups.max()) + 1)
    np.maximum.at(largest, owner[1:], stats[1:, cv2.CC_STAT_AREA])
    min_area = config.hand_min_area_mm2 * geometry.px_per_mm**2
    big = _hand_blobs(groups, largest, geometry, config, min_area, entry)
    if big and misfit is not None and len(misfit.fields):
        groups, big = _with_skin_pieces(foreign, lab, misfit, groups, big, geometry, config)
    strict_hull = _hulls(groups, big)
    faint_hull = None
    if entry is not None and entry.size:
        faint_hull = _faint_hand(distance, usable, entry, bgr, geometry, classes, config,
                                 ceiling, lab, misfit)
        blob = faint_hull
        if not big and faint_hull is None:
            faint_hull = _pieces_hand(misfit, distance, usable, bgr, entry, geometry, classes,
                                      config, ceiling)
        lines = _lines_hidden(lab, towers, bgr, entry, geometry, classes, config, ceiling)
        faint_hull = _union(faint_hull, lines)
        symbols_lost = _symbols_hidden(lab, towers, bgr, entry, symbols,
                                       _union(strict_hull, faint_hull), geometry, classes,
                                       config, ceiling)
        faint_hull = _union(faint_hull, symbols_lost)
        # joined to a hand found too: only where no other cue found one, it changed no
        # held-out frame (tuning seeds: 6 covered fields fewer mended, 67 visible fewer hidden)
        skin = _skin_from_entry(lab, usable, entry, bgr, geometry, classes, config, ceiling)
        faint_hull = _union(faint_hull, skin)
        # where the faint blob alone says there is a hand, so must a print shifted a few
        # mm; if not, a hand read as pieces is looked for as where no blob was found
        if (blob is not None and not big and lines is None and symbols_lost is None
                and skin is None and not _off_shifted_print(lab, usable, towers, entry, bgr,
                                                            geometry, classes, config,
                                                            ceiling)):
            faint_hull = _pieces_hand(misfit, distance, usable, bgr, entry, geometry, classes,
                                      config, ceiling)
    strict_area = _grown(strict_hull, geometry, config)
    faint_area = _grown(faint_hull, geometry, config)
    strict = _fields_over(strict_area, geometry, config)
    faint = _fields_over(faint_area, geometry, config)
    if strict or faint:
        # a hand that hides fields hides its fingers beyond the hull too (a hull hiding
        # none is no hand reported, and grown it flagged a hand-free photo: the clear
        # table of board bench seed 1 frame 302), with whichever cue found it
        area = _union(strict_area, faint_area)
        fingers = _fingers(_union(strict_hull, faint_hull), area, lab, distance, usable, bgr,
                           geometry, classes, config, ceiling)
        fingers = _union(fingers, _fingertips(_union(area, fingers), distance, usable, change,
                                              geometry, config))
        if fingers is not None and strict:
            strict = _fields_over(_union(strict_area, fingers), geometry, config)
        elif fingers is not None:
            faint = _fields_over(_union(faint_area, fingers), geometry, config)
    hidden = strict | faint
    reasons = []
    if big or faint:
        reasons.append(f"something over the board hides {len(hidden)} field(s)")
    if markers_missing:
        reasons.append(covered_markers(markers_missing))
    # A covered marker alone does not hide a field (a card or cup may lie on it).
    return Occlusion(bool(hidden), frozenset(hidden), "; ".join(reasons),
                     faint=frozenset(faint - strict))


def covered_markers(missing: int) -> str:
    """What covered markers say in a reading's reason ("" for none)."""
    return f"{missing} marker(s) covered" if missing else ""


@dataclass(frozen=True)
class MisfitPieces:
    """Pieces read whose top face fits no player's colour well (:func:`misfit_pieces`):
    per such field its index, height and top face's median Lab."""

    fields: np.ndarray
    heights: np.ndarray
    faces: np.ndarray


def misfit_pieces(lab: np.ndarray, states: list[FieldState], geometry: BoardGeometry,
                  classes: ColourClasses, config: VisionConfig) -> MisfitPieces:
    """The pieces read whose top face (in the unsmoothed Lab board image) lies farther
    than ``hand_piece_misfit`` from every player's colour at any light level. On a photo,
    a hand over Spexxx's small cells is read as pieces in most of them, and their tower
    masks take it out of the colour test; skin fits no player's colour well."""
    fields, faces = top_face_colours(lab, states, geometry)
    if len(fields):
        misfit = classes.player_distance[classes.bins(np.uint8(np.clip(faces, 0, 255)))]
        off = misfit > config.hand_piece_misfit
        fields, faces = fields[off], faces[off]
    heights = np.array([states[f].height for f in fields], np.int64)
    return MisfitPieces(fields, heights, faces)


def _with_skin_pieces(foreign: np.ndarray, lab: np.ndarray, misfit: MisfitPieces,
                      groups: np.ndarray, big: list[int], geometry: BoardGeometry,
                      config: VisionConfig) -> tuple[np.ndarray, list[int]]:
    """The hand's groups (``big`` in ``groups``) regrouped with the ``misfit`` pieces of
    its own colour as foreign: those within ``hand_group_mm`` of it are its skin read as
    pieces, and its hull grows over them. Its own colour: at least
    ``hand_piece_skin_share`` of the hand's foreign pixels lie within
    ``hand_piece_skin_distance`` of the piece's top face in chroma (a, b; shading moves
    lightness), so real pieces whose colour a cast moved off their player's (cyan in a
    warm frame) stay apart, and a sleeve's colour does not hide the skin's. Whether
    there is a hand at all was judged without them."""
    in_hand = np.isin(groups, big)
    hand = lab[foreign & in_hand][:, 1:].astype(np.float32)
    near = np.linalg.norm(misfit.faces[:, None, 1:] - hand[None, ::_SKIN_STRIDE], axis=2)
    share = (near <= config.hand_piece_skin_distance).mean(axis=1)
    chosen = share >= config.hand_piece_skin_share
    if not chosen.any():
        return groups, big
    heights = np.zeros(len(geometry.names), np.int64)
    heights[misfit.fields[chosen]] = misfit.heights[chosen]
    pieces = tower_mask(heights.tolist(), geometry, config.tower_margin_mm)
    _, components, stats = _blobs(foreign | (pieces > 0), geometry, config)
    regrouped, _ = _grouped(components, stats, geometry, config)
    hand_groups = np.unique(regrouped[in_hand])
    return regrouped, [int(k) for k in hand_groups if k]


def _pieces_hand(misfit: MisfitPieces | None, distance: np.ndarray, usable: np.ndarray,
                 bgr: np.ndarray, entry: np.ndarray, geometry: BoardGeometry,
                 classes: ColourClasses, config: VisionConfig,
                 ceiling: np.ndarray | None = None) -> np.ndarray | None:
    """:func:`_hand_read_as_pieces` where there are ``misfit`` pieces, else None."""
    if misfit is None or not len(misfit.fields):
        return None
    return _hand_read_as_pieces(misfit, distance, usable, bgr, entry, geometry, classes,
                                config, ceiling)


def _hand_read_as_pieces(misfit: MisfitPieces, distance: np.ndarray, usable: np.ndarray,
                         bgr: np.ndarray, entry: np.ndarray, geometry: BoardGeometry,
                         classes: ColourClasses, config: VisionConfig,
                         ceiling: np.ndarray | None = None) -> np.ndarray | None:
    """The hull (:func:`_hulls`) of a hand read as pieces nearly all over: a pale hand over Spexxx's
    small cells is read as pieces in most of them, their tower masks take it out of both
    colour tests, and too little plain board is left to show it (board bench seed 1
    frames 415, 467, 503). Its ``misfit`` pieces (skin fits no player's colour), less the
    board washed by a lamp (glared cells read as pieces), are a hand where their group
    is of hand size, holds ``hand_piece_count`` of them, reaches in across a broken
    stretch of the edge (``entry``) and on into the board, as the faint cue wants of a
    blob, and the plain board within ``hand_piece_ring_mm`` of them lies off the print
    (its median ``distance``) over ``hand_piece_ring_ratio`` times the frame's: the hand
    covers that too, where towers a cast moved off their player's colour stand on a board
    that fits (seed 1 frame 185; frame 588, a single tall tower, is kept out by the
    count)."""
    heights = np.zeros(len(geometry.names), np.int64)
    heights[misfit.fields] = misfit.heights
    skin = tower_mask(heights.tolist(), geometry, config.tower_margin_mm) > 0
    _drop_light_effects(skin, bgr, geometry, classes, config, ceiling)
    groups, areas = _grouped(*_blobs(skin, geometry, config)[1:], geometry, config)
    count = len(areas)
    deep = _reaching_in(groups, count, geometry, config.faint_hand_reach_mm)
    # the misfit fields whose own square each group touches
    fields = len(geometry.names)
    chosen = np.zeros(fields, bool)
    chosen[misfit.fields] = True
    labels = groups.ravel()[geometry.field_idx]
    hit = (labels > 0) & chosen[geometry.field_seg]
    pairs = np.unique(labels[hit].astype(np.int64) * fields + geometry.field_seg[hit])
    pieces = np.bincount(pairs // fields, minlength=count)
    counted = usable & np.isfinite(distance)
    floor = config.hand_piece_ring_ratio * float(np.median(distance[counted]))
    around = _disc(config.hand_piece_ring_mm, geometry)
    hands = []
    for k in range(1, count):
        if (areas[k] < config.hand_min_area_mm2 * geometry.px_per_mm**2 or not deep[k]
                or pieces[k] < config.hand_piece_count):
            continue
        group = groups == k
        if not _meets_entry(group, entry, geometry, config):
            continue
        plain = (cv2.dilate(group.astype(np.uint8), around) > 0) & counted
        if plain.any() and np.median(distance[plain]) > floor:
            hands.append(k)
    return _hulls(groups, hands)


#: Every how many of a hand's foreign pixels its colour is sampled from.
_SKIN_STRIDE = 7


def _blobs(mask: np.ndarray, geometry: BoardGeometry, config: VisionConfig
           ) -> tuple[int, np.ndarray, np.ndarray]:
    """Connected blobs of a boolean board mask, specks opened away and gaps of
    ``hand_bridge_mm`` closed: the printed edges and towers left out of the colour test
    would otherwise cut a hand into pieces."""
    mask = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    bridge = int(round(config.hand_bridge_mm * geometry.px_per_mm)) | 1
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((bridge, bridge), np.uint8))
    return _components(mask)


def _components(mask: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    """8-connected components of a 0/1 mask: their count, labels (int32) and stats.
    Labelled in 16 bits where the image cannot hold more components than that: the
    same labels in about half the time."""
    rows, cols = mask.shape
    if ((rows + 1) // 2) * ((cols + 1) // 2) < 2**16 - 1:
        count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8,
                                                                   ltype=cv2.CV_16U)
        return count, labels.astype(np.int32), stats
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    return count, labels, stats


def _faint_hand(distance: np.ndarray, usable: np.ndarray, entry: np.ndarray,
                bgr: np.ndarray, geometry: BoardGeometry, classes: ColourClasses,
                config: VisionConfig, ceiling: np.ndarray | None = None,
                lab: np.ndarray | None = None, misfit: MisfitPieces | None = None
                ) -> np.ndarray | None:
    """The hull (:func:`_hulls`) of a hand whose colour is close to the board's: judged against the
    frame's own mismatch with the print (lamps, casts), and only where it reaches in
    across a broken stretch of the board's edge (``entry``, :func:`rim_entry`): a blob
    with a core far from the print, or a wide stretch a little off it all over
    (:func:`_wide_mismatch`); with the ``misfit`` pieces of its colour (in the smoothed
    Lab ``lab``) as its parts, as in :func:`find_occlusion`."""
    plain = distance[usable]
    level = float(np.median(plain[np.isfinite(plain)])) if plain.size else 0.0
    scale = config.faint_hand_level_ratio * level
    faint = (distance > max(config.faint_hand_distance, scale)) & usable
    wide = _wide_mismatch(distance, usable, level, geometry, config)
    faint |= wide
    _drop_light_effects(faint, bgr, geometry, classes, config, ceiling)
    wide &= faint
    groups, areas = _grouped(*_blobs(faint, geometry, config)[1:], geometry, config)
    count = len(areas)
    core = (distance > max(config.faint_hand_core_distance, scale)) & faint
    cores = np.bincount(groups[core], minlength=count)
    wides = np.bincount(groups[wide], minlength=count)
    entries = np.bincount(groups.ravel()[entry], minlength=count)
    px_mm2 = geometry.px_per_mm**2
    needed = entry_px(config.faint_hand_entry_mm, config)
    # a wide stretch counts only where it reaches in itself: elsewhere it is as likely a
    # printed zone a little off its colour (Spexxx, board bench seed 1 frame 319)
    blobs = [k for k in range(1, count)
             if areas[k] >= config.hand_min_area_mm2 * px_mm2
             and (cores[k] >= config.faint_hand_core_mm2 * px_mm2
                  or (wides[k] >= config.faint_hand_wide_mm2 * px_mm2
                      and entries[k] >= needed))]
    # and goes on into the board there: a card across a corner breaks the edge too (board
    # bench seed 1 frames 254, 262), and the border band of a board a little off its print
    # joins it to deep patches far from it (seeds 5 frame 150, 6 frame 390)
    entering = [k for k in blobs if entries[k] >= needed]
    if not entering:
        return None
    deep = _reaching_in(_near_entry(groups, entry, geometry, config.faint_hand_reach_near_mm),
                        count, geometry, config.faint_hand_reach_mm)
    if not deep[entering].any():
        return None
    # with an arm reaching in, the other such blobs are its parts that the printed
    # lines cut off (as in find_occlusion)
    if blobs and lab is not None and misfit is not None and len(misfit.fields):
        groups, blobs = _with_skin_pieces(faint, lab, misfit, groups, blobs, geometry, config)
    return _hulls(groups, blobs)


def _off_shifted_print(lab: np.ndarray, usable: np.ndarray, towers: np.ndarray,
                       entry: np.ndarray, bgr: np.ndarray, geometry: BoardGeometry,
                       classes: ColourClasses, config: VisionConfig,
                       ceiling: np.ndarray | None = None) -> bool:
    """Is the faint cue's hand (:func:`_faint_hand`) one too where each pixel is judged
    against every printed colour within ``faint_hand_shift_mm`` of it
    (:func:`_shifted_distance`) and the ``towers`` are grown by as much: a board placed a
    few mm off its print from three markers (a card over the fourth, which breaks the
    edge) shows its border, the gaps between fields and the towers' rims off the print;
    a hand is off every print near it. True where ``faint_hand_shift_mm`` is 0."""
    if config.faint_hand_shift_mm <= 0:
        return True
    kernel = _disc(config.faint_hand_shift_mm, geometry)
    clear = usable & (cv2.dilate(towers, kernel) == 0)
    return _faint_hand(_shifted_distance(lab, geometry, classes, kernel), clear, entry, bgr,
                       geometry, classes, config, ceiling) is not None


def _disc(radius_mm: float, geometry: BoardGeometry) -> np.ndarray:
    """An elliptic kernel ``radius_mm`` in radius (at least a px)."""
    reach = max(1, int(round(radius_mm * geometry.px_per_mm)))
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * reach + 1, 2 * reach + 1))


def _shifted_distance(lab: np.ndarray, geometry: BoardGeometry, classes: ColourClasses,
                      kernel: np.ndarray) -> np.ndarray:
    """Each pixel's distance to the nearest printed colour expected within ``kernel``
    of it (inf where none is): the print's own edges and bands match it once the print
    may lie that far off."""
    bins = classes.bins(lab)
    nearest = np.full(bins.shape, np.inf, np.float32)
    for colour in np.unique(geometry.expected[geometry.expected >= 0]):
        near = cv2.dilate((geometry.expected == colour).view(np.uint8), kernel) > 0
        at = classes.offsets(np.full(1, colour))[0] + bins[near]
        nearest[near] = np.minimum(nearest[near], classes.board_distance[at])
    return nearest


def _near_entry(groups: np.ndarray, entry: np.ndarray, geometry: BoardGeometry,
                near_mm: float) -> np.ndarray:
    """The labelled ``groups`` within ``near_mm`` of the broken edge (``entry``, flat px);
    all of them for 0."""
    if near_mm <= 0 or not entry.size:
        return groups
    away = np.ones(groups.shape, np.uint8)
    away.ravel()[entry] = 0
    distance = cv2.distanceTransform(away, cv2.DIST_L2, 3)
    return np.where(distance <= near_mm * geometry.px_per_mm, groups, 0)


def _wide_mismatch(distance: np.ndarray, usable: np.ndarray, level: float,
                   geometry: BoardGeometry, config: VisionConfig) -> np.ndarray:
    """Plain board whose mismatch with the print, averaged over ``faint_hand_wide_mm``
    of plain board round it (where that holds ``faint_hand_wide_share`` of it), lies over
    ``faint_hand_wide_ratio`` times its printed colour's median (``level``, the frame's,
    for colours not seen), in pieces of ``faint_hand_wide_mm2``: a hand a little off the
    print all over stands out of the board's own scatter once averaged."""
    if config.faint_hand_wide_mm <= 0:
        return np.zeros(distance.shape, bool)
    size = max(3, int(round(config.faint_hand_wide_mm * geometry.px_per_mm)) | 1)
    counted = usable & np.isfinite(distance)
    # capped at the core's distance: a card's or symbol's strong colour would otherwise
    # spread over the board round it
    capped = np.minimum(distance, config.faint_hand_core_distance)
    total = cv2.blur(np.where(counted, capped, 0).astype(np.float32), (size, size))
    share = cv2.blur(counted.astype(np.float32), (size, size))
    averaged = total / np.maximum(share, 1e-3)
    # each printed colour against its own level: a cast moves some colours more (the
    # pale fields of Just 4 Fun in a cold frame), a hand raises all it covers
    expected = np.where(counted, geometry.expected, -1)
    levels = np.full(int(geometry.expected.max()) + 2, level, np.float32)
    for colour in np.unique(expected[expected >= 0]):
        levels[colour] = np.median(distance[expected == colour])
    floor = np.maximum(config.faint_hand_distance,
                       config.faint_hand_wide_ratio * levels[geometry.expected])
    # and faint itself: a card across the edge is strongly foreign, its border only near
    wide = (usable & (share > config.faint_hand_wide_share) & (averaged > floor)
            & ~(distance > config.hand_board_distance))
    # in one piece: Cuatro's blurred symbols stand out in every field, each small
    _, labels, stats = _components(wide.view(np.uint8))
    large = stats[:, cv2.CC_STAT_AREA] >= config.faint_hand_wide_mm2 * geometry.px_per_mm**2
    large[0] = False
    return large[labels]


def _lines_hidden(lab: np.ndarray, towers: np.ndarray, bgr: np.ndarray, entry: np.ndarray,
                  geometry: BoardGeometry, classes: ColourClasses, config: VisionConfig,
                  ceiling: np.ndarray | None = None) -> np.ndarray | None:
    """The hull (:func:`_hulls`) of an arm that hides a board's printed lines (Mühle): a pale arm on
    the tan board is too close to its colour for either colour cue (board bench seed 1
    frames 102, 286, 378), but where it lies the lines are gone, while blur, a cast or
    a lamp's gradient only weaken them everywhere alike. The smoothed Lab image's
    lightness, spread over ``lines_lost_window_mm``, against the print's where that
    shows a line (:func:`_lines_lost`); stretches of lost lines grouped within
    ``lines_lost_group_mm`` are an arm when they are of hand size, meet a broken stretch
    of the edge (``entry``) and reach into the board, as the faint cue wants, and are not
    mostly the board washed by a lamp (``lines_lost_glare_share``)."""
    if "lines" not in classes.board or config.lines_lost_window_mm <= 0:
        return None
    lost = _lines_lost(lab, towers, geometry, classes, config)
    _, components, stats = _components(lost.view(np.uint8))
    kept = stats[:, cv2.CC_STAT_AREA] >= config.hand_part_mm2 * geometry.px_per_mm**2
    groups, areas = _gathered(components, stats, geometry, kept, config.lines_lost_group_mm)
    count = len(areas)
    # a group mostly the board washed by a lamp is glare (seed 1 frame 590); judged by
    # the group's share, for a pale arm's skin too is close to the board washed pale
    unwashed = groups > 0
    _drop_light_effects(unwashed, bgr, geometry, classes, config, ceiling)
    areas = np.where(np.bincount(groups[unwashed], minlength=count)
                     > (1 - config.lines_lost_glare_share) * areas, areas, 0)
    deep = _reaching_in(groups, count, geometry, config.faint_hand_reach_mm)
    min_area = config.hand_min_area_mm2 * geometry.px_per_mm**2
    # as long a stretch of broken edge as the faint cue wants, within reach of the
    # outermost line (Mühle's lies 25 mm inside the edge)
    reach = max(1, int(round(config.lines_lost_entry_mm * geometry.px_per_mm)))
    needed = entry_px(config.faint_hand_entry_mm, config)
    arms = []
    for k in range(1, count):
        if areas[k] >= min_area and deep[k]:
            near = cv2.dilate((groups == k).view(np.uint8), cv2.getStructuringElement(
                cv2.MORPH_ELLIPSE, (2 * reach + 1, 2 * reach + 1)))
            if near.ravel()[entry].sum() >= needed:
                arms.append(k)
    return _hulls(groups, arms)


def _symbols_hidden(lab: np.ndarray, towers: np.ndarray, bgr: np.ndarray, entry: np.ndarray,
                    symbols: np.ndarray | None, found: np.ndarray | None,
                    geometry: BoardGeometry, classes: ColourClasses, config: VisionConfig,
                    ceiling: np.ndarray | None = None) -> np.ndarray | None:
    """The hull (:func:`_hulls`) of a hand that hides the symbols printed in the fields
    (Cuatro): a pale hand on the cream board is as near its colour as the board's own
    scatter (tuning seed 7 frames 89, 101, 149, 541: not flagged), but the dark ink at a
    field's centre is gone under it, while blur, haze or a lamp's gradient weaken it
    everywhere alike. Per field judged (its box, ``symbols_lost_box_mm``, clear of
    towers), the smoothed lightness's median above its ``symbols_lost_percentile``,
    against ``symbols_lost_ratio`` times the median of that over the fields judged; lost
    boxes not mostly the board washed by a lamp (``lines_lost_glare_share``) within
    ``lines_lost_group_mm`` of one another are a hand when ``symbols_lost_fields`` of
    them meet the broken edge (``entry``), or the hull of a hand ``found`` by the strict,
    faint or lost-lines cues (its sleeve across the edge: seed 7 frame 317), within
    ``symbols_lost_entry_mm``."""
    if symbols is None or config.symbols_lost_ratio <= 0:
        return None
    chosen = np.flatnonzero(symbols)
    if len(chosen) < config.symbols_lost_fields:
        return None
    px = geometry.px_per_mm
    half_w, half_h = (max(1, int(round(v * px / 2))) for v in config.symbols_lost_box_mm)
    box = geometry.field_box[chosen]
    rows, cols = lab.shape[:2]
    ys = np.clip((box[:, 1] + box[:, 3])[:, None] // 2 + np.arange(-half_h, half_h), 0, rows - 1)
    xs = np.clip((box[:, 0] + box[:, 2])[:, None] // 2 + np.arange(-half_w, half_w), 0, cols - 1)
    ys, xs = ys[:, :, None], xs[:, None, :]  # (n, h, w) boxes round the fields' centres
    judged = ((towers[ys, xs] > 0).mean(axis=(1, 2)) <= config.hidden_field_fraction)
    if judged.sum() < config.symbols_lost_fields:
        return None
    low, middle = np.percentile(lab[ys, xs, 0].reshape(len(chosen), -1),
                                (config.symbols_lost_percentile, 50), axis=1)
    contrast = middle - low
    lost = judged & (contrast < config.symbols_lost_ratio * np.median(contrast[judged]))
    if lost.sum() < config.symbols_lost_fields:  # most frames
        return None

    def boxes(which: np.ndarray) -> np.ndarray:
        mask = np.zeros((rows, cols), bool)
        for y, x in zip(ys[which], xs[which], strict=True):
            mask[y, x] = True
        return mask

    unwashed = boxes(lost)
    _drop_light_effects(unwashed, bgr, geometry, classes, config, ceiling)
    # a box mostly the board washed by a lamp lost its ink to glare
    lost &= unwashed[ys, xs].mean(axis=(1, 2)) >= 1 - config.lines_lost_glare_share
    if lost.sum() < config.symbols_lost_fields:
        return None
    _, components, stats = _components(boxes(lost).view(np.uint8))
    groups, _ = _gathered(components, stats, geometry, stats[:, cv2.CC_STAT_AREA] > 0,
                          config.lines_lost_group_mm)
    centres = groups[ys[lost, half_h, 0], xs[lost, 0, half_w]]
    needed = entry_px(config.faint_hand_entry_mm, config)
    hands = []
    for k in np.unique(centres):
        if k and (centres == k).sum() >= config.symbols_lost_fields:
            away = cv2.distanceTransform((groups != k).view(np.uint8), cv2.DIST_L2, 3)
            reach = config.symbols_lost_entry_mm * px
            if ((away.ravel()[entry] <= reach).sum() >= needed
                    or (found is not None and found.any() and away[found > 0].min() <= reach)):
                hands.append(int(k))
    return _hulls(groups, hands)


def _skin_from_entry(lab: np.ndarray, usable: np.ndarray, entry: np.ndarray,
                     bgr: np.ndarray, geometry: BoardGeometry, classes: ColourClasses,
                     config: VisionConfig, ceiling: np.ndarray | None = None
                     ) -> np.ndarray | None:
    """The hull (:func:`_hulls`) of a pale hand on a pale board, found by the chroma of
    the arm where it crosses the board's broken edge (``entry``): Cuatro's cream board
    and a pale hand lie as near each other in the smoothed Lab image as the board's own
    scatter (tuning seeds 5, 6, 7: nine hands not flagged, four hidden only in part), but
    the hand's chroma is its arm's. Plain board whose chroma lies off the print's and
    nearer the arm's (``entry_skin_ratio``), grouped as the strict cue's blobs, is the
    hand where the group holds ``hand_min_area_mm2``, meets that edge and reaches in as
    the faint cue wants and fills ``entry_skin_fill`` of the plain board in its hull."""
    if config.entry_skin_ratio <= 0:
        return None
    needed = entry_px(config.faint_hand_entry_mm, config)
    printed = _printed_chroma(classes)
    flat = lab.reshape(-1, 3)
    far = config.entry_skin_print_distance**2

    def off_print(px: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        chroma = flat[px, 1:].astype(np.float32)
        off = chroma - printed[geometry.expected.ravel()[px]]
        return chroma, off[:, 0] * off[:, 0] + off[:, 1] * off[:, 1]

    _, off = off_print(entry)
    # not the board washed by a lamp across its edge (board bench seed 7 frame 221)
    crossing = np.zeros(usable.shape, bool)
    crossing.ravel()[entry[off > far]] = True
    _drop_light_effects(crossing, bgr, geometry, classes, config, ceiling)
    arm = np.flatnonzero(crossing)
    if len(arm) < needed:
        return None
    skin = np.median(flat[arm, 1:].astype(np.float32), axis=0)
    ys, xs = np.nonzero(usable)
    px = ys * usable.shape[1] + xs
    chroma, off = off_print(px)
    to_skin = chroma - skin
    near_skin = to_skin[:, 0] * to_skin[:, 0] + to_skin[:, 1] * to_skin[:, 1]
    chosen = (off > far) & (near_skin < config.entry_skin_ratio**2 * off)
    skin_like = np.zeros(usable.shape, bool)
    skin_like[ys[chosen], xs[chosen]] = True
    _drop_light_effects(skin_like, bgr, geometry, classes, config, ceiling)
    groups, areas = _grouped(*_blobs(skin_like, geometry, config)[1:], geometry, config)
    count = len(areas)
    entries = np.bincount(groups.ravel()[arm], minlength=count)
    deep = _reaching_in(groups, count, geometry, config.faint_hand_reach_mm)
    min_area = config.hand_min_area_mm2 * geometry.px_per_mm**2
    hands = [k for k in range(1, count)
             if areas[k] >= min_area and entries[k] >= needed and deep[k]]
    # a hand is solid skin: the board tinted like the arm by a cast or a lamp is chosen
    # in scattered patches whose hull spans much board that is not (seed 5 frame 3,
    # seed 7 frame 221)
    solid = []
    for k in hands:
        hull = (_hulls(groups, [k]) > 0) & usable
        if skin_like[hull].mean() >= config.entry_skin_fill:
            solid.append(k)
    return _hulls(groups, solid)


def _lines_lost(lab: np.ndarray, towers: np.ndarray, geometry: BoardGeometry,
                classes: ColourClasses, config: VisionConfig) -> np.ndarray:
    """Where the printed lines should show in the lightness of the smoothed Lab image
    but do not: its spread over ``lines_lost_window_mm`` (the most within
    ``lines_lost_shift_mm``, for the pose is a few px off) under ``lines_lost_ratio``
    times its median ratio to the print's, where the print's is over
    ``lines_lost_contrast``, the window lies on the board and no tower stands near (a
    stone hides the lines too)."""
    size = max(3, int(round(config.lines_lost_window_mm * geometry.px_per_mm)) | 1)

    def spread(image: np.ndarray) -> np.ndarray:
        mean = cv2.blur(image, (size, size))
        return np.sqrt(np.maximum(cv2.blur(image * image, (size, size)) - mean * mean, 0))

    known = geometry.expected >= 0
    lightness = cv2.cvtColor(classes.board_bgr.astype(np.uint8)[None], cv2.COLOR_BGR2Lab)[0, :, 0]
    printed = np.where(known, lightness[np.maximum(geometry.expected, 0)], 0)
    wanted = spread(printed.astype(np.float32))
    shift = max(1, int(round(config.lines_lost_shift_mm * geometry.px_per_mm)))
    seen = cv2.dilate(spread(lab[..., 0].astype(np.float32)),
                      np.ones((2 * shift + 1, 2 * shift + 1), np.uint8))
    # the window wholly on the board: beyond it the layout says nothing
    half = config.lines_lost_window_mm / 2 + 1
    (x0, y0), (x1, y1) = np.rint(geometry.to_px(
        [(half, half), np.subtract(geometry.board_size_mm, half)])).astype(int)
    inner = np.zeros(known.shape, bool)
    inner[max(y0, 0):max(y1, 0), max(x0, 0):max(x1, 0)] = True
    lines = inner & known & (wanted > config.lines_lost_contrast) & (towers == 0)
    if not lines.any():
        return lines
    ratio = seen / np.maximum(wanted, 1e-3)
    lost = lines & (ratio < config.lines_lost_ratio * np.median(ratio[lines]))
    # a line's whole width lost, not the rim of a band
    opened = cv2.morphologyEx(lost.view(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    return opened > 0


@dataclass(frozen=True)
class Rim:
    """Where to look across the board's outer edge, built once per board position: per
    mm along the edge, a strip from the table outside into the printed rim (raw frame
    px), and the rectified px a few mm inside the edge where an arm crossing it goes on."""

    map_x: np.ndarray  # (S, K) raw frame px
    map_y: np.ndarray
    outside: np.ndarray  # (K,) the strip's columns beyond the edge
    inside: np.ndarray  # (K,) ... and within it
    inward: np.ndarray  # (S, D) flat rectified px inside the edge, -1 off the image
    seen: np.ndarray  # (S,) the whole strip lies within the frame


def _entry_depths(config: VisionConfig) -> np.ndarray:
    """How deep inside the board's edge (mm) :class:`Rim` samples an arm crossing it."""
    return np.arange(1.0, config.faint_hand_depth_mm + 0.5, 2.0)


def entry_px(length_mm: float, config: VisionConfig) -> float:
    """How many of :func:`rim_entry`'s px a stretch of the edge ``length_mm`` long gives
    (the strips lie 1 mm apart, each sampled at every entry depth)."""
    return length_mm * len(_entry_depths(config))


def rim_strips(geometry: BoardGeometry, camera: Camera, config: VisionConfig) -> Rim:
    """The strips across the board's outer edge (:class:`Rim`) for one board position."""
    w, h = geometry.board_size_mm
    along_w, along_h = np.arange(0.5, w, 1.0), np.arange(0.5, h, 1.0)
    points = np.concatenate([  # clockwise round the board, with the inward normal
        np.column_stack([along_w, np.zeros_like(along_w)]),
        np.column_stack([np.full_like(along_h, w), along_h]),
        np.column_stack([w - along_w, np.full_like(along_w, h)]),
        np.column_stack([np.zeros_like(along_h), h - along_h])])
    normals = np.repeat([(0.0, 1.0), (-1.0, 0.0), (0.0, -1.0), (1.0, 0.0)],
                        [len(along_w), len(along_h), len(along_w), len(along_h)], axis=0)
    start = -config.rim_outside_mm[1]
    across = np.arange(start, config.rim_inside_mm[1] + 0.25, 0.5)
    strip = points[:, None, :] + normals[:, None, :] * across[None, :, None]
    ideal = cv2.perspectiveTransform(geometry.to_px(strip.reshape(-1, 1, 2)), geometry.warp)
    raw = camera.distort(ideal.reshape(-1, 2)).astype(np.float32)
    outside = (across >= -config.rim_outside_mm[1]) & (across <= -config.rim_outside_mm[0])
    inside = (across >= config.rim_inside_mm[0]) & (across <= config.rim_inside_mm[1])
    depths = _entry_depths(config)
    deep = geometry.to_px(points[:, None, :] + normals[:, None, :] * depths[None, :, None])
    col, row = np.rint(deep[..., 0]).astype(int), np.rint(deep[..., 1]).astype(int)
    width, height = geometry.size
    inward = np.where((col >= 0) & (col < width) & (row >= 0) & (row < height),
                      row * width + col, -1)
    shape = strip.shape[:2]
    map_x, map_y = raw[:, 0].reshape(shape), raw[:, 1].reshape(shape)
    seen = ((map_x >= 0) & (map_x <= camera.width - 1)
            & (map_y >= 0) & (map_y <= camera.height - 1)).all(axis=1)
    return Rim(map_x, map_y, outside, inside, inward, seen)


def rim_entry(frame: np.ndarray, rim: Rim, config: VisionConfig) -> np.ndarray:
    """Flat rectified px just inside the stretches of the board's outer edge that
    something lies across: where the contrast between table and printed rim falls under
    ``rim_break_ratio`` of its median round the board (a hand or a card across it hides
    both sides alike; shadows and lamps darken or lighten both and keep the step)."""
    strip = cv2.remap(frame, rim.map_x, rim.map_y, cv2.INTER_LINEAR,
                      borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
    lab = cv2.cvtColor(strip, cv2.COLOR_BGR2Lab).astype(np.float32)
    weights = np.array([config.rim_lightness_weight, 1.0, 1.0], np.float32)
    step = (np.median(lab[:, rim.inside], axis=1) - np.median(lab[:, rim.outside], axis=1))
    contrast = np.linalg.norm(step * weights, axis=1)
    if not rim.seen.any():
        return np.empty(0, np.int64)
    broken = rim.seen & (contrast < config.rim_break_ratio * np.median(contrast[rim.seen]))
    inward = rim.inward[broken]
    return inward[inward >= 0]


def on_board(geometry: BoardGeometry, shape: tuple[int, ...]) -> np.ndarray:
    """The board itself in the rectified image: what change is judged on, since dice are
    thrown and things moved in the margin beside it."""
    (x0, y0), (x1, y1) = np.rint(geometry.to_px([(0.0, 0.0), geometry.board_size_mm])).astype(int)
    board = np.zeros(shape[:2], bool)
    board[max(y0, 0):max(y1, 0), max(x0, 0):max(x1, 0)] = True
    return board


def field_share(mask: np.ndarray, geometry: BoardGeometry) -> np.ndarray:
    """Per field, the share of its own square that ``mask`` (a rectified board image of
    0/1 or bools) covers."""
    # summed over each square from the integral image: gathering the squares' pixels took
    # several times as long
    total = cv2.integral(mask.view(np.uint8) if mask.dtype == bool else mask, sdepth=cv2.CV_32S)
    x0, y0, x1, y1 = geometry.field_box.T
    covered = total[y1, x1] - total[y0, x1] - total[y1, x0] + total[y0, x0]
    return covered / np.maximum(geometry.field_area, 1)


def find_change_occlusion(change: np.ndarray, pieces: np.ndarray, standing: np.ndarray,
                          geometry: BoardGeometry, config: VisionConfig) -> Occlusion:
    """Hidden fields from where the board ``change``d since its clear view. A piece set
    down or taken away changes only its tower's spot (``pieces``,
    :func:`moved_pieces`) on a field or two. A blob of change reaching elsewhere over
    ``change_min_area_mm2``, or over ``change_hand_fields`` fields and longer than
    ``change_hand_span_mm`` (a hand over towers, its skin read as pieces), is something
    over the board, and it hides every field it touches; with the blobs of change within
    ``change_group_mm`` of it (towers read as gone under a pale arm included), the fields
    under their hull too. Fields changed in smaller ways that no reading explains are
    named as ``changed_look``; ``standing`` (per field: a tower stands there now or in
    the clear view) says where a tower may have changed unseen (:func:`_tower_changes`)."""
    if not change.any():  # the board as it was: most frames of a game
        return Occlusion(False, frozenset())
    seen = cv2.morphologyEx(change.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    seen[~on_board(geometry, seen.shape)] = 0
    # a piece the reader missed (a white stone on a silver cell) still changes the look
    # of its field where no change of reading explains it
    share = field_share((seen > 0) & (pieces == 0), geometry)
    changed_look = frozenset(geometry.names[k] for k in
                             np.nonzero(share > config.changed_look_fraction)[0])
    bridge = int(round(config.hand_bridge_mm * geometry.px_per_mm)) | 1
    mask = cv2.morphologyEx(seen, cv2.MORPH_CLOSE, np.ones((bridge, bridge), np.uint8))
    count, components, stats = _components(mask)
    unexplained = components[(seen > 0) & (pieces == 0)]
    area = np.bincount(unexplained, minlength=count)
    min_area = config.change_min_area_mm2 * geometry.px_per_mm**2
    spread = _fields_spread(components, count, seen, geometry, config)
    span = stats[:, 2:4].max(axis=1) / geometry.px_per_mm
    entering = _reaching(components, count, geometry, config.change_rim_mm)
    rim_area = config.change_rim_area_mm2 * geometry.px_per_mm**2
    big = [k for k in range(1, count)
           if area[k] >= min_area
           or (spread[k] >= config.change_hand_fields and span[k] >= config.change_hand_span_mm)
           or (entering[k] and area[k] >= rim_area)]
    if not big and config.change_group_mm > 0:
        big = _spread_group(components, stats, seen, geometry, config)
    towers = _tower_changes(components, big, (seen > 0) & (pieces == 0), standing, geometry,
                            config)
    big = [k for k in big if k not in towers]
    if big:  # fingertips apart from the hand, over colours near the skin's
        part = config.change_part_mm2 * geometry.px_per_mm**2
        big = [k for k in range(1, count) if k in big or area[k] >= part]
    if big and config.change_group_mm > 0:
        # pieces read as gone under the arm are its parts too (a pale arm on a pale
        # board shows as change at its edges and over the towers it covers)
        members = stats[:, cv2.CC_STAT_AREA] >= config.change_part_mm2 * geometry.px_per_mm**2
        components, big = _grouped_blobs(components, big, members, stats, geometry,
                                         config.change_group_mm)
    hidden = _hidden_under(components, big, geometry, config)
    reason = f"the board changed under {len(hidden)} field(s) since it was clear" if hidden \
        else ""
    doubtful = changed_look | {geometry.names[f] for k, f in towers.items() if k not in big}
    return Occlusion(bool(hidden), frozenset(hidden), reason, doubtful - hidden)


def _fields_spread(labels: np.ndarray, count: int, seen: np.ndarray, geometry: BoardGeometry,
                   config: VisionConfig) -> np.ndarray:
    """Per label of ``labels`` (``count`` of them), how many fields its ``seen`` pixels
    cover over ``hidden_field_fraction``."""
    fields = len(geometry.names)
    inside = seen.ravel()[geometry.field_idx] > 0
    pairs = labels.ravel()[geometry.field_idx][inside] * fields + geometry.field_seg[inside]
    share = (np.bincount(pairs, minlength=count * fields).reshape(count, fields)
             / np.maximum(geometry.field_area, 1))
    return (share > config.hidden_field_fraction).sum(axis=1)


def _spread_group(components: np.ndarray, stats: np.ndarray, seen: np.ndarray,
                  geometry: BoardGeometry, config: VisionConfig) -> list[int]:
    """The blobs of change (down to ``change_part_mm2``, explained ones included) in
    groups within ``change_group_mm`` of one another that cover ``change_hand_fields``
    fields and span ``change_hand_span_mm``, as a single blob must to be a hand: a pale
    arm over towers that read as gone changes the board at its edges and over the
    towers, in blobs apart (board bench seed 1 frame 341, live)."""
    members = stats[:, cv2.CC_STAT_AREA] >= config.change_part_mm2 * geometry.px_per_mm**2
    groups, _ = _gathered(components, stats, geometry, members, config.change_group_mm)
    count = int(groups.max()) + 1
    if count < 2:
        return []
    spread = _fields_spread(groups, count, seen, geometry, config)
    # a group holds whole blobs: its box is the union of theirs (stats), no pixel scan
    owner = np.zeros(len(stats), np.int64)
    owner[components[groups > 0]] = groups[groups > 0]
    blobs = np.flatnonzero(owner)
    low = np.full((count, 2), np.iinfo(np.int64).max)
    high = np.full((count, 2), -1)
    np.minimum.at(low, owner[blobs], stats[blobs, :2])
    np.maximum.at(high, owner[blobs], stats[blobs, :2] + stats[blobs, 2:4] - 1)
    span = (high - low + 1).max(axis=1) / geometry.px_per_mm
    hands = np.flatnonzero((spread >= config.change_hand_fields)
                           & (span >= config.change_hand_span_mm))
    hands = hands[hands > 0]
    return [int(k) for k in np.flatnonzero(np.isin(owner, hands)) if k]


def _tower_changes(components: np.ndarray, blobs: list[int], unexplained: np.ndarray,
                   standing: np.ndarray, geometry: BoardGeometry, config: VisionConfig
                   ) -> dict[int, int]:
    """Of the given blobs, those whose unexplained change lies (``tower_change_share`` of
    it) where one ``standing`` field's tallest tower could stand: blob -> field. A stone set
    on a tower whose height the reader did not see change (a tower at the far rim, its top
    leaning off the board) is no hand: the field is doubtful, not hidden, so the referee
    still sees the board. Over an empty field of a stacking game that reach is a tall
    tower's, where fingertips fit too (a pale hand on the pale Cuatro board): a first
    stone shows as one, so there it is a hand."""
    if not blobs:
        return {}
    flat = np.flatnonzero(unexplained)
    blob = components.ravel()[flat]
    home = geometry.home[flat]
    towers = {}
    for k in blobs:
        owners = home[blob == k]
        fields, hits = np.unique(owners[owners >= 0], return_counts=True)
        if len(fields) and hits.max() >= config.tower_change_share * len(owners):
            field = int(fields[hits.argmax()])
            if standing[field] or geometry.max_height == 1:
                towers[k] = field
    return towers


def _grouped_blobs(components: np.ndarray, blobs: list[int], members: np.ndarray,
                   stats: np.ndarray, geometry: BoardGeometry, group_mm: float
                   ) -> tuple[np.ndarray, list[int]]:
    """The ``blobs`` with the ``members`` (per component) within ``group_mm`` of them, in
    groups: the groups' pixels labelled by group, and the labels of those holding one of
    the ``blobs``."""
    kept = members.copy()
    kept[blobs] = True
    groups, _ = _gathered(components, stats, geometry, kept, group_mm)
    owner = np.zeros(len(stats), np.int64)
    owner[components[groups > 0]] = groups[groups > 0]
    return groups, sorted({int(owner[k]) for k in blobs} - {0})


def _grouped(components: np.ndarray, stats: np.ndarray, geometry: BoardGeometry,
             config: VisionConfig) -> tuple[np.ndarray, np.ndarray]:
    """Blobs down to ``hand_part_mm2`` gathered into groups within ``hand_group_mm`` of
    one another: one hand, which towers read under it and printed cells (Spexxx's small
    ones) cut into pieces. The blobs' own pixels labelled by group, and each group's
    area (px)."""
    kept = stats[:, cv2.CC_STAT_AREA] >= config.hand_part_mm2 * geometry.px_per_mm**2
    return _gathered(components, stats, geometry, kept, config.hand_group_mm)


def _gathered(components: np.ndarray, stats: np.ndarray, geometry: BoardGeometry,
              kept: np.ndarray, group_mm: float) -> tuple[np.ndarray, np.ndarray]:
    """The ``kept`` blobs gathered into groups within ``group_mm`` of one another, as
    :func:`_grouped`."""
    kept[0] = False
    if not kept.any():
        return np.zeros(components.shape, np.int32), np.zeros(1, np.int64)
    reach = max(1, int(round(group_mm * geometry.px_per_mm / 2)))
    # only the box round the kept blobs (and room to grow): most frames have few
    boxes = stats[kept]
    x0, y0 = np.maximum(boxes[:, :2].min(axis=0) - reach, 0)
    x1, y1 = (boxes[:, :2] + boxes[:, 2:4]).max(axis=0) + reach + 1
    window = np.s_[y0:y1, x0:x1]
    mask = kept[components[window]].astype(np.uint8)
    grown = cv2.dilate(mask, cv2.getStructuringElement(
        cv2.MORPH_ELLIPSE, (2 * reach + 1, 2 * reach + 1)))
    count, labels = cv2.connectedComponents(grown, connectivity=8)
    groups = np.zeros(components.shape, np.int32)
    groups[window] = np.where(mask > 0, labels, 0)
    return groups, np.bincount(groups[window].ravel(), minlength=count)


def _hidden_under(components: np.ndarray, blobs: list[int], geometry: BoardGeometry,
                  config: VisionConfig) -> set[str]:
    """The fields a hand's blobs (labels in ``components``) cover: their convex hulls (a
    hand shows in pieces), grown by ``hand_margin_mm``, over more than
    ``hidden_field_fraction`` of a field."""
    return _fields_over(_grown(_hulls(components, blobs), geometry, config), geometry, config)


def _hulls(components: np.ndarray, blobs: list[int]) -> np.ndarray | None:
    """The convex hulls of the given blobs (labels in ``components``) as a 0/1 mask; None
    for no blob."""
    if not blobs:
        return None
    wanted = np.zeros(int(components.max()) + 1, np.uint8)
    wanted[blobs] = 1
    # a blob's hull is its outline's: the outlines of the blobs wanted (different labels
    # never touch; every outline, for a blob may lie in another's hole)
    outlines, _ = cv2.findContours(wanted[components], cv2.RETR_LIST,
                                   cv2.CHAIN_APPROX_SIMPLE)
    owners = np.array([components[o[0, 0, 1], o[0, 0, 0]] for o in outlines])
    hull = np.zeros(components.shape, np.uint8)
    for k in blobs:
        points = [o for o, owner in zip(outlines, owners, strict=True) if owner == k]
        if points:
            cv2.fillConvexPoly(hull, cv2.convexHull(np.concatenate(points)), 1)
    return hull


def _grown(hull: np.ndarray | None, geometry: BoardGeometry, config: VisionConfig
           ) -> np.ndarray | None:
    """A hand's hull (:func:`_hulls`) grown by ``hand_margin_mm``: its shadow and the
    arm's edges are not reliably foreign."""
    if hull is None:
        return None
    grow = max(1, int(round(config.hand_margin_mm * geometry.px_per_mm)))
    # grown within the box round the hulls only: the same result, a fraction of the image
    x, y, w, h = cv2.boundingRect(hull)
    window = np.s_[max(y - grow, 0):y + h + grow, max(x - grow, 0):x + w + grow]
    grown = hull.copy()
    grown[window] = cv2.dilate(hull[window], cv2.getStructuringElement(
        cv2.MORPH_ELLIPSE, (2 * grow + 1, 2 * grow + 1)))
    return grown


def _union(a: np.ndarray | None, b: np.ndarray | None) -> np.ndarray | None:
    """Two 0/1 masks, either of them possibly None, joined."""
    return b if a is None else a if b is None else a | b


def _fields_over(area: np.ndarray | None, geometry: BoardGeometry, config: VisionConfig
                 ) -> set[str]:
    """The fields ``area`` (a 0/1 mask) covers over ``hidden_field_fraction``."""
    if area is None:
        return set()
    share = field_share(area, geometry)
    return {geometry.names[f] for f in np.nonzero(share > config.hidden_field_fraction)[0]}


def _fingers(hull: np.ndarray | None, grown: np.ndarray | None, lab: np.ndarray,
             distance: np.ndarray, usable: np.ndarray, bgr: np.ndarray,
             geometry: BoardGeometry, classes: ColourClasses, config: VisionConfig,
             ceiling: np.ndarray | None = None) -> np.ndarray | None:
    """The hand's skin beyond its hull (:func:`_hulls`; ``grown`` by :func:`_grown`),
    grown as the hull is: fingers over a board colour close to the skin's lie too near
    the print for either colour cue (board bench seed 1 frames 180, 360, 380: fingertips
    over Just 4 Fun's orange and brown fields; 378, 450: Mühle's tan board), but their
    chroma (a, b) lies nearer the hand's own than the print's, which a shadow's does
    not. Plain board within ``finger_reach_mm`` of the grown hull, its chroma over
    ``finger_print_distance`` from the print's and within ``finger_skin_ratio`` times
    that of the hand's (the median of the hull's plain board farther than
    ``faint_hand_distance`` from the print, over ``hand_part_mm2`` of it), in one piece
    with the hull."""
    if hull is None or grown is None or config.finger_reach_mm <= 0:
        return None
    px = geometry.px_per_mm
    skin_px = (hull > 0) & usable & (distance > config.faint_hand_distance)
    _drop_light_effects(skin_px, bgr, geometry, classes, config, ceiling)
    if skin_px.sum() < config.hand_part_mm2 * px**2:
        return None
    skin = np.median(lab[skin_px][:, 1:], axis=0)
    room = int(round(config.finger_reach_mm * px)) + 1
    x, y, w, h = cv2.boundingRect(grown)
    window = np.s_[max(y - room, 0):y + h + room, max(x - room, 0):x + w + room]
    near = grown[window]
    beyond = cv2.distanceTransform(1 - near, cv2.DIST_L2, 5)
    # only the plain board within reach is judged, as flat px: most of the window is not
    ys, xs = np.nonzero(usable[window] & (beyond < config.finger_reach_mm * px))
    chroma = lab[window][ys, xs, 1:].astype(np.float32)
    printed = _printed_chroma(classes)[geometry.expected[window][ys, xs]]
    # squared distances: the same tests without the roots
    off, to_skin = chroma - printed, chroma - skin.astype(np.float32)
    off_print = off[:, 0] * off[:, 0] + off[:, 1] * off[:, 1]
    near_skin = to_skin[:, 0] * to_skin[:, 0] + to_skin[:, 1] * to_skin[:, 1]
    chosen = ((off_print > config.finger_print_distance**2)
              & (near_skin < config.finger_skin_ratio**2 * off_print))
    # the board washed by a lamp is no skin, nor a hull round glare taken for a hand
    skin_like = np.zeros(hull.shape, bool)
    skin_like[window][ys[chosen], xs[chosen]] = True
    _drop_light_effects(skin_like, bgr, geometry, classes, config, ceiling)
    skin_like = cv2.morphologyEx(skin_like[window].view(np.uint8), cv2.MORPH_OPEN,
                                 np.ones((3, 3), np.uint8))
    _, labels = cv2.connectedComponents(skin_like | near, connectivity=8)
    joined = np.zeros(labels.max() + 1, bool)
    joined[labels[near > 0]] = True
    joined[0] = False
    reached = joined[labels] & (skin_like > 0) & (near == 0)
    if not reached.any():
        return None
    fingers = np.zeros(hull.shape, np.uint8)
    fingers[window] = reached
    return _grown(fingers, geometry, config)


def _fingertips(area: np.ndarray, distance: np.ndarray, usable: np.ndarray,
                change: np.ndarray | None, geometry: BoardGeometry, config: VisionConfig
                ) -> np.ndarray | None:
    """A hand's fingers beyond its hidden ``area`` (a 0/1 mask), away from where the area
    crosses the board's rim (``fingertip_*``): a pale hand's hull may be only its sleeve or
    palm, the fingers too close to the print for the strict cue, their chroma too close
    to the sleeve's for :func:`_fingers` (board bench seed 6 frame 125). Grown as a hull
    is; None for none."""
    if config.fingertip_reach_mm <= 0:
        return None
    px = geometry.px_per_mm
    (x0, y0), (x1, y1) = np.rint(geometry.to_px(
        [(config.fingertip_entry_mm,) * 2,
         np.subtract(geometry.board_size_mm, config.fingertip_entry_mm)])).astype(int)
    rim = area.copy()
    rim[max(y0, 0):max(y1, 0), max(x0, 0):max(x1, 0)] = 0
    whole, crossing = cv2.moments(area, True), cv2.moments(rim, True)
    if not crossing["m00"] or crossing["m00"] == whole["m00"]:
        return None  # no arm crossing the rim, or nothing but the rim: no way to point
    way = np.array([whole["m10"] / whole["m00"] - crossing["m10"] / crossing["m00"],
                    whole["m01"] / whole["m00"] - crossing["m01"] / crossing["m00"]])
    if np.hypot(*way) < 1:
        return None
    way *= config.fingertip_reach_mm * px / np.hypot(*way)
    # the area swept along that way, blob by blob (each hull is convex)
    swept = np.zeros(area.shape, np.uint8)
    outlines, _ = cv2.findContours(area.astype(np.uint8), cv2.RETR_EXTERNAL,
                                   cv2.CHAIN_APPROX_SIMPLE)
    for outline in outlines:
        points = outline.reshape(-1, 2).astype(np.float64)
        cv2.fillConvexPoly(swept, cv2.convexHull(
            np.rint(np.concatenate([points, points + way])).astype(np.int32)), 1)
    # judged within the box round the swept area only (it holds the area): the same result
    x, y, w, h = cv2.boundingRect(swept)
    window = np.s_[y:y + h, x:x + w]
    held = area[window] > 0
    off = ((swept[window] > 0) & ~held & usable[window]
           & (distance[window] > config.fingertip_distance))
    if change is not None:
        off &= change[window]
    size = max(3, int(round(config.fingertip_open_mm * px)) | 1)
    off = cv2.morphologyEx(off.view(np.uint8), cv2.MORPH_OPEN, np.ones((size, size), np.uint8))
    # the pieces big enough that touch the area (in one component with it)
    _, pieces, stats, _ = cv2.connectedComponentsWithStats(off, connectivity=8)
    big = stats[:, cv2.CC_STAT_AREA] >= config.fingertip_min_area_mm2 * px**2
    big[0] = False
    count, labels = cv2.connectedComponents(off | held, connectivity=8)
    joined = np.zeros(count, bool)
    joined[labels[held]] = True
    joined[0] = False
    reached = big[pieces] & joined[labels]
    if not reached.any():
        return None
    fingertips = np.zeros(area.shape, np.uint8)
    fingertips[window] = reached
    return _grown(fingertips, geometry, config)


def _printed_chroma(classes: ColourClasses) -> np.ndarray:
    """Each printed board colour's chroma (a, b) in the reader's 8-bit Lab."""
    bgr = np.clip(classes.board_bgr, 0, 255).astype(np.uint8)[None]
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2Lab)[0, :, 1:].astype(np.float32)


def _hand_blobs(groups: np.ndarray, areas: np.ndarray, geometry: BoardGeometry,
                config: VisionConfig, min_area: float,
                entry: np.ndarray | None = None) -> list[int]:
    """The hand-sized foreign blobs (groups of them, :func:`_grouped`, by ``areas``), if
    one of them is an arm reaching in: a hand comes from beyond the board, so its blob
    crosses the board's outer rim (or, on a photo, comes near where something lies
    across it: ``entry``, :func:`rim_entry`). Foreign patches wholly inside the board
    with no arm in view (glare, a shadow, a blurred print) are not a hand; with an arm
    in view, they are taken as parts of the hand that towers and printed edges split
    off."""
    count = len(areas)
    big = [k for k in range(1, count) if areas[k] >= min_area]
    if not big:
        return []
    entering = _reaching(groups, count, geometry, config.hand_edge_mm)
    if entry is not None and entry.size and not entering[big].any():
        # as long a stretch of broken edge as the faint cue wants (a corner of a field
        # that overexposure made foreign lies near a speck of it)
        for k in big:
            entering[k] = _meets_entry(groups == k, entry, geometry, config)
    return big if entering[big].any() else []


def _meets_entry(blob: np.ndarray, entry: np.ndarray, geometry: BoardGeometry,
                 config: VisionConfig) -> bool:
    """Does ``blob`` (a mask) come within ``hand_entry_reach_mm`` of as long a stretch of
    broken edge (``entry``, :func:`rim_entry`) as the faint cue wants."""
    kernel = _disc(config.hand_entry_reach_mm, geometry)
    near = cv2.dilate(blob.astype(np.uint8), kernel)
    return near.ravel()[entry].sum() >= entry_px(config.faint_hand_entry_mm, config)


def _reaching_in(components: np.ndarray, count: int, geometry: BoardGeometry,
                 depth_mm: float) -> np.ndarray:
    """Per component: does it reach farther than ``depth_mm`` inside the board's rim."""
    (x0, y0), (x1, y1) = np.rint(geometry.to_px(
        [(depth_mm, depth_mm), np.subtract(geometry.board_size_mm, depth_mm)])).astype(int)
    inner = components[max(y0, 0):max(y1, 0), max(x0, 0):max(x1, 0)]
    return np.bincount(inner.ravel(), minlength=count) > 0


def _reaching(components: np.ndarray, count: int, geometry: BoardGeometry,
              edge_mm: float) -> np.ndarray:
    """Per component: does it reach to within ``edge_mm`` of the board's rim (or
    beyond), as an arm reaching in must."""
    rim = np.ones(components.shape, bool)
    (x0, y0), (x1, y1) = np.rint(geometry.to_px(
        [(edge_mm, edge_mm), np.subtract(geometry.board_size_mm, edge_mm)])).astype(int)
    rim[max(y0, 0):max(y1, 0), max(x0, 0):max(x1, 0)] = False
    return np.bincount(components[rim], minlength=count) > 0


def _drop_light_effects(foreign: np.ndarray, bgr: np.ndarray, geometry: BoardGeometry,
                classes: ColourClasses, config: VisionConfig,
                ceiling: np.ndarray | None = None) -> None:
    """Clear pixels whose colour is the printed board washed towards white by a lamp's
    reflection (or over-exposure): board + (255 - board) * g for one g. A channel at its
    ``ceiling`` (what a channel clipped in the frame becomes once normalised) only says
    the true value was at least that high, so it bounds the wash from below instead of
    fixing it: a reflection that clips one or two channels is otherwise never that
    colour (board bench seed 1, frame 26)."""
    ys, xs = np.nonzero(foreign)
    if not len(ys):
        return
    board = classes.board_bgr[geometry.expected[ys, xs]]
    seen = bgr[ys, xs].astype(np.float32)
    room = 255.0 - board
    clipped = np.zeros(seen.shape, bool) if ceiling is None \
        else seen >= np.asarray(ceiling, np.float32) - config.clip_margin
    free = ~clipped
    fitted = (((seen - board) * room) * free).sum(axis=1)
    scale = ((room**2) * free).sum(axis=1)
    g = np.where(free.any(axis=1), fitted / np.maximum(scale, 1.0), 1.0)
    error = seen - board - room * g[:, None]
    residual = np.where(clipped, np.maximum(error, 0.0), np.abs(error)).max(axis=1)
    washed = (g > config.glare_min) & (residual < config.glare_tolerance)
    foreign[ys[washed], xs[washed]] = False
