"""The board reader: one camera frame in, the state of every visible field out.

``read_board`` runs the stages in order — localisation (:mod:`vision.markers`), camera
pose (:mod:`vision.pose`), the frame's own black/white reference
(:mod:`vision.calibration`), field state (:mod:`vision.fields`) and occlusion
(:mod:`vision.occlusion`). A :class:`BoardTracker` carries what may be reused between
frames of a fixed camera (the board position and all geometry built from it), which is
what makes a live loop fast. Bad frames raise :class:`BadFrame`; frames that are fine
but show no readable board give a reading whose ``problem`` says why.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING, NamedTuple

import cv2
import numpy as np

from vision.calibration import (
    CalibrationError,
    ColourCalibration,
    Levels,
    clipped_variants,
    frame_levels,
    image_levels,
    normalise,
    to_lab,
)
from vision.config import VisionConfig
from vision.errors import BadFrame, VisionError
from vision.fields import (
    BoardGeometry,
    ColourClasses,
    FieldState,
    board_casts,
    board_misfit,
    build_geometry,
    colourless_faces,
    darker_than_neighbours,
    frame_colour_pieces,
    grey_faces_read_dark,
    lit_discs,
    lit_look_alikes,
    look_alike_pieces,
    mixed_stones,
    one_piece_faces,
    pale_colourful_pieces,
    print_read_as_pieces,
    read_fields,
    sample_profiles,
    split_lightness,
    tower_mask,
    washed_out_board,
    washed_out_pieces,
    washed_out_stones,
    white_stones_read_empty,
)
from vision.markers import Localisation, Localiser, NoBoard, arm_reaching_in, project
from vision.occlusion import (
    ClearView,
    Occlusion,
    Rim,
    changed,
    clear_view,
    covered_markers,
    entry_px,
    field_share,
    find_change_occlusion,
    find_occlusion,
    is_shadow,
    misfit_pieces,
    moved_pieces,
    on_board,
    rim_entry,
    rim_strips,
    smoothed,
    tower_spots,
)
from vision.pose import Pose, recover_pose

if TYPE_CHECKING:  # the layout's data model is the rules core's; vision only reads it
    from companion.layout import Layout


class FieldReading(NamedTuple):
    """One field as the camera sees it: ``top_colour`` None and height 0 when empty.
    A named tuple, as :class:`vision.fields.FieldState`: a Spexxx frame has 252."""

    name: str
    top_colour: str | None
    height: int
    confidence: float

    def to_dict(self) -> dict:
        return {"top": self.top_colour, "height": self.height,
                "confidence": round(self.confidence, 3)}


@dataclass
class BoardReading:
    """The board in one frame. ``fields`` holds only fields the camera could see: hidden
    ones are listed in ``hidden_fields`` and never given a state."""

    fields: dict[str, FieldReading] = field(default_factory=dict)
    occluded: bool = False
    hidden_fields: frozenset[str] = frozenset()
    homography: np.ndarray | None = None
    pose: Pose | None = None
    problem: str | None = None
    relocalised: bool = False
    markers_seen: int = 0
    notes: str = ""
    #: Fields whose look changed since the board's clear view with no reading to explain
    #: it (their confidence is capped too): maybe a piece the reader missed.
    looks_changed: frozenset[str] = frozenset()

    @property
    def ok(self) -> bool:
        return self.problem is None

    def __repr__(self) -> str:
        if self.problem:
            return f"<BoardReading problem: {self.problem}>"
        occupied = sum(1 for f in self.fields.values() if f.height)
        return (f"<BoardReading {occupied} occupied of {len(self.fields)} visible fields"
                f"{f', {len(self.hidden_fields)} hidden' if self.hidden_fields else ''}>")

    def to_dict(self) -> dict:
        data: dict = {"ok": self.ok, "problem": self.problem, "occluded": self.occluded,
                      "hidden_fields": sorted(self.hidden_fields),
                      "markers_seen": self.markers_seen, "relocalised": self.relocalised,
                      "fields": {n: f.to_dict() for n, f in self.fields.items()}}
        if self.notes:
            data["notes"] = self.notes
        if self.homography is not None:
            data["homography"] = [[round(float(v), 8) for v in row] for row in self.homography]
        if self.pose is not None:
            data["camera"] = {"height_mm": round(self.pose.height_mm, 1),
                              "tilt_deg": round(self.pose.tilt_deg, 1),
                              "focal_px": round(self.pose.focal_px, 1),
                              "focal_estimated": self.pose.focal_estimated}
        return data


class BoardTracker:
    """State kept across the frames of one camera: the board's position (via a
    :class:`~vision.markers.Localiser`) and the geometry built from it, rebuilt only when
    the board or camera moves; and the board's last clear view, so that a hand shows as
    a change from it (:func:`vision.occlusion.find_change_occlusion`)."""

    def __init__(self, layout: Layout, calibration: ColourCalibration,
                 config: VisionConfig | None = None,
                 corners_px: np.ndarray | None = None) -> None:
        self.layout = layout
        self.config = config or VisionConfig()
        self.calibration = calibration
        self.localiser = Localiser(layout, self.config, corners_px)
        self.classes = ColourClasses(layout, calibration, self.config)
        self._geometry: BoardGeometry | None = None
        self._pose: Pose | None = None
        self._geometry_for: np.ndarray | None = None
        self.rim: Rim | None = None  # across the board's edge, for the geometry above
        #: per field: a symbol is printed at its centre (Cuatro), which a hand hides
        self.symbols = np.array([bool(f.attrs.get("symbol")) for f in layout.fields.values()])
        self.clear: ClearView | None = None
        #: the camera frame the clear view was last taken whole from: what lay across the
        #: board's edge then is no arm reaching in now (:func:`_crossed`)
        self.clear_frame: np.ndarray | None = None
        self._previous: ClearView | None = None
        self._still = 0
        self._lingering: dict[str, int] = {}  # field -> frames its change has held still
        self._settled: np.ndarray | None = None  # per field: quiet frames it held still
        self._fresh: np.ndarray | None = None  # per field: in the clear view as it is now

    def __repr__(self) -> str:
        return f"<BoardTracker {self.layout.game} {self.localiser!r}>"

    def geometry(self, homography: np.ndarray) -> tuple[BoardGeometry, Pose]:
        if self._geometry is None or self._moved(homography):
            self._pose = recover_pose(homography, self.config)
            self._geometry = build_geometry(self.layout, homography, self._pose,
                                            self.localiser.camera, self.classes, self.config)
            self._geometry_for = homography
            self.rim = rim_strips(self._geometry, self.localiser.camera, self.config)
        return self._geometry, self._pose

    def follow(self, lab: np.ndarray, view: ClearView, foreign: bool, changed_much: bool,
               relocalised: bool, geometry: BoardGeometry,
               hidden_by_change: frozenset[str] = frozenset(),
               hidden: frozenset[str] = frozenset(),
               doubtful: frozenset[str] = frozenset(),
               frame: np.ndarray | None = None) -> None:
        """Keep the clear view up to date with this frame's smoothed Lab image (and its
        ``view``): the first frame with no hand seen, then the board once it has held
        still for ``clear_view_refresh_frames`` frames with no hand seen, so a piece set
        down becomes part of it (still: on the board itself, as the change cue judges, so
        dice rolled and hands in the margin do not stir it). What stays still much longer
        (``clear_view_accept_frames``: a lamp switched on, a card left on the board,
        glare) is accepted too, so the reader cannot stay occluded for good. Fields follow
        on their own, too (:meth:`_refresh_settled`), as players seldom leave the whole
        board alone for long. A bump (relocalisation) or a new image size starts afresh.
        The camera ``frame`` is kept (a copy) with each whole clear view."""
        config = self.config
        if relocalised or (self.clear is not None and self.clear.low.shape != lab.shape):
            self.clear, self._previous, self._still = None, None, 0
            self.clear_frame = None
        stirred = None
        if self._previous is not None and self._previous.low.shape == lab.shape:
            stirred = changed(lab, self._previous, config) & on_board(geometry, lab.shape)
        still = stirred is not None and (
            np.count_nonzero(stirred) < config.still_change_mm2 * geometry.px_per_mm**2)
        self._still = self._still + 1 if still else 0
        self._previous = view
        moved = None if stirred is None else field_share(stirred, geometry)
        self._absorb_lingering(hidden_by_change, moved, view, geometry)
        quiet = not foreign and not changed_much
        self._refresh_settled(moved, hidden | hidden_by_change, doubtful, quiet, view,
                              geometry)
        needed = config.clear_view_refresh_frames if quiet else config.clear_view_accept_frames
        if (self.clear is None and not foreign) or self._still >= needed:
            self.clear = view
            self.clear_frame = None if frame is None else frame.copy()

    def _refresh_settled(self, moved: np.ndarray | None, hidden: frozenset[str],
                         doubtful: frozenset[str], quiet: bool, view: ClearView,
                         geometry: BoardGeometry) -> None:
        """A field that has held still, in view, over ``clear_field_refresh_frames``
        frames with no hand seen anywhere joins the clear view: towers grown since the
        whole board was last still for long would otherwise add up to a change over many
        fields, and look like a hand. A field whose look changed with no reading to
        explain it (``doubtful``: maybe a piece the reader missed) waits
        ``clear_view_static_frames``, so the referee sees the doubt. Frames with a hand
        elsewhere neither count nor reset; a field stirred or hidden starts again."""
        fields = len(geometry.names)
        if self.clear is None or moved is None:
            self._settled = None
            return
        if self._settled is None or len(self._settled) != fields:
            self._settled = np.zeros(fields, np.int64)
            self._fresh = np.zeros(fields, bool)
        config = self.config
        shut = np.array([name in hidden for name in geometry.names])
        unsettled = (moved > config.static_field_fraction) | shut
        self._settled[unsettled] = 0
        self._fresh[unsettled] = False
        if not quiet:
            return
        self._settled[~unsettled] += 1
        needed = np.array([config.clear_view_static_frames if name in doubtful
                           else config.clear_field_refresh_frames for name in geometry.names])
        ripe = np.flatnonzero(~self._fresh & (self._settled >= needed))
        if len(ripe):
            self._fresh[ripe] = True
            self._take_into_clear(ripe.tolist(), view, geometry)

    def _absorb_lingering(self, hidden: frozenset[str], moved: np.ndarray | None,
                          view: ClearView, geometry: BoardGeometry) -> None:
        """A change that holds perfectly still on its fields for
        ``clear_view_static_frames`` frames is no hand (hands stir) but part of the table
        now, e.g. a piece the reader missed: those fields join the clear view, while hands
        and dice elsewhere keep the whole board from ever being still long enough."""
        if self.clear is None or moved is None or not hidden:
            self._lingering = {}
            return
        config = self.config
        index = {name: k for k, name in enumerate(geometry.names)}
        self._lingering = {name: self._lingering.get(name, 0) + 1 for name in hidden
                           if moved[index[name]] <= config.static_field_fraction}
        ripe = [index[n] for n, frames in self._lingering.items()
                if frames >= config.clear_view_static_frames]
        if not ripe:
            return
        self._take_into_clear(ripe, view, geometry)
        for k in ripe:
            self._lingering.pop(geometry.names[k])

    def _take_into_clear(self, ripe: list[int], view: ClearView,
                         geometry: BoardGeometry) -> None:
        """Copy the given fields from ``view`` into the clear view: their squares and
        readings, and where their towers stand now or stood (with shadows: a piece
        leans out of a small field's square), but not over fields still changing."""
        chosen = np.isin(np.arange(len(geometry.names)), ripe)
        region = tower_spots(view.states, self.clear.states, chosen.tolist(), geometry,
                             self.config).ravel()
        region[geometry.field_idx[chosen[geometry.field_seg]]] = 1
        if self._settled is not None:
            changing = (self._settled == 0) & ~chosen
            region[geometry.field_idx[changing[geometry.field_seg]]] = 0
        pixels = np.flatnonzero(region)
        low, high = self.clear.low.copy(), self.clear.high.copy()
        for mine, theirs in ((low, view.low), (high, view.high)):
            flat = mine.reshape(-1, mine.shape[-1])
            flat[pixels] = theirs.reshape(-1, theirs.shape[-1])[pixels]
        states = [v if c else s for v, s, c in zip(view.states, self.clear.states, chosen,
                                                   strict=True)]
        self.clear = ClearView(low, high, states)

    def _moved(self, homography: np.ndarray) -> bool:
        w, h = self.layout.board_size_mm
        corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64)
        shift = project(homography, corners) - project(self._geometry_for, corners)
        return float(np.abs(shift).max()) > self.config.geometry_reuse_px


def check_frame(frame: object, config: VisionConfig) -> np.ndarray:
    """The frame as a BGR uint8 array of the configured size, or :class:`BadFrame`."""
    if not isinstance(frame, np.ndarray):
        raise BadFrame(f"a frame must be an image array, not {type(frame).__name__}")
    if frame.dtype != np.uint8:
        raise BadFrame(f"a frame must have 8-bit pixels (uint8), not {frame.dtype}")
    width, height = config.frame_size
    if frame.ndim != 3 or frame.shape[2] != 3:
        raise BadFrame(f"a frame must be a colour image (height, width, 3), got shape "
                       f"{frame.shape}")
    if frame.shape[:2] != (height, width):
        raise BadFrame(f"the frame is {frame.shape[1]}x{frame.shape[0]} px, the camera is set "
                       f"to {width}x{height}; set frame_size in the vision config")
    return frame


def read_board(frame: np.ndarray, layout: Layout, calibration: ColourCalibration | None = None,
               config: VisionConfig | None = None,
               tracker: BoardTracker | None = None) -> BoardReading:
    """Read every field of ``layout`` from one BGR camera frame."""
    if tracker is None:
        tracker = BoardTracker(layout, calibration or ColourCalibration.default(layout), config)
    config = tracker.config
    frame = check_frame(frame, config)
    if float(frame[::8, ::8].mean()) < config.black_frame_level:
        return BoardReading(problem="the frame is black: is the lens covered or the light off?")
    try:
        where: Localisation = tracker.localiser.locate(frame)
        geometry, pose = tracker.geometry(where.homography)
    except NoBoard as exc:
        if exc.rough is not None and arm_reaching_in(frame, exc.rough, layout,
                                                     tracker.localiser.camera, config):
            return BoardReading(occluded=True, problem=f"a hand reaches over the board ({exc})")
        return BoardReading(problem=str(exc))
    except VisionError as exc:
        return BoardReading(problem=f"the board cannot be read: {exc}")
    rectified = geometry.rectify(frame)
    levels = _levels(frame, where, tracker, rectified, geometry)
    if levels.contrast < config.min_marker_contrast:
        return BoardReading(homography=where.homography, pose=pose,
                            markers_seen=len(where.marker_corners),
                            problem="too dark or washed out: the markers' black and white "
                            "cannot be told apart")
    normalised, colours, cast = _board_colours(rectified, levels, geometry, config)
    # what a channel clipped in the frame becomes: glare that clips is judged by it
    uncast = np.diag(1.0 / cast).astype(np.float32)
    ceiling = cv2.transform(normalise(np.full((1, 1, 3), 255, np.uint8), levels), uncast)[0, 0]
    lab = to_lab(normalised)
    colour_lab = lab if colours is normalised else to_lab(colours)
    variants = clipped_variants(rectified, colours, levels, config.clip_tolerance,
                                geometry.read_px)
    labels = tracker.classes.label(colour_lab, geometry.label_offsets, variants)
    matrix = levels.matrix() / cast[:, None].astype(np.float32)
    states = read_fields(labels, geometry, tracker.classes, config,
                         partial(sample_profiles, frame, geometry, tracker.classes, matrix))
    states = look_alike_pieces(colours, states, geometry, tracker.classes, config)
    states = split_lightness(colour_lab, states, geometry, tracker.classes, config)
    faces = one_piece_faces(colour_lab, geometry, tracker.classes)
    states = frame_colour_pieces(faces, states, geometry, tracker.classes, config)
    missing = 0 if where.source == "corners" else 4 - where.markers_seen
    occlusion = occlusion_of(normalised, lab, geometry, tracker, states, missing,
                             where.relocalised, frame, ceiling)
    # after occlusion, which keeps the readings it saw: a hand's shadow greys whites
    # beside unshaded ones as glare greys a black, and darkens the board around them
    states = darker_than_neighbours(colour_lab, rectified, matrix, states, geometry,
                                    tracker.classes, config, occlusion.occluded)
    states = washed_out_board(rectified, matrix, states, geometry, tracker.classes, config)
    states = white_stones_read_empty(rectified, matrix, states, geometry, tracker.classes,
                                     config)
    # after washed_out_board, which empties magenta and cyan stones glare washed white
    states = washed_out_stones(rectified, matrix, states, geometry, tracker.classes, config)
    states = colourless_faces(rectified, matrix, states, geometry, tracker.classes, config)
    # after washed_out_board: the board washed white by glare, read as white stones, has
    # a hue of its own (Spexxx's red cells: seed 1 frame 115)
    if not occlusion.occluded:
        states = pale_colourful_pieces(colour_lab, states, geometry, tracker.classes, config)
    states = print_read_as_pieces(rectified, matrix, states, geometry, tracker.classes, config)
    states = washed_out_pieces(rectified, matrix, states, geometry, tracker.classes, config,
                               tracker.symbols)
    states = grey_faces_read_dark(rectified, matrix, states, geometry, tracker.classes,
                                  config)
    states = mixed_stones(colour_lab, faces, states, geometry, tracker.classes, config)
    states = lit_look_alikes(rectified, matrix, states, geometry, tracker.classes, config)
    states = lit_discs(rectified, matrix, states, geometry, tracker.classes, config)
    # a field that looks changed while its reading is not may hold a piece the reader
    # missed: say so by its confidence
    fields = {s.name: FieldReading(s.name, s.top_colour, s.height,
                                   min(s.confidence, config.changed_look_confidence)
                                   if s.name in occlusion.changed_look else s.confidence)
              for s in states if s.name not in occlusion.hidden_fields}
    return BoardReading(fields, occlusion.occluded, occlusion.hidden_fields, where.homography,
                        pose, None, where.relocalised, where.markers_seen, occlusion.reason,
                        occlusion.changed_look & frozenset(fields))


def _levels(frame: np.ndarray, where: Localisation, tracker: BoardTracker,
            rectified: np.ndarray, geometry: BoardGeometry) -> Levels:
    """The frame's black and white: its markers', or, with corners given by hand and no
    marker seen, the image's own. Markers that may lie in a lamp's reflection are left
    out when that fits the plain board (of ``rectified``) to its print clearly better
    (``marker_glare_fit_ratio``)."""
    config = tracker.config
    seen = sorted(where.marker_corners) or None
    if seen is None and where.source == "corners":  # no markers to take black and white from
        return image_levels(frame, config.image_black_level, config.image_white_pct)
    on_markers = where.homography if where.markers_homography is None else where.markers_homography
    levels, unglared = frame_levels(frame, on_markers, tracker.localiser.camera,
                                    tracker.layout, seen,
                                    (config.marker_glare_black, config.marker_glare_white_drop))
    if unglared is not None and (board_misfit(rectified, unglared.matrix(), geometry)
                                 < config.marker_glare_fit_ratio
                                 * board_misfit(rectified, levels.matrix(), geometry)):
        return unglared
    return levels


def _board_colours(rectified: np.ndarray, levels: Levels, geometry: BoardGeometry,
                   config: VisionConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The board image normalised by the frame's black and white with the plain board's
    cast taken out; the image the fields' colours come from; and that cast (per-channel
    gains). The colours come from the frame normalised and uncast in one step when the
    cast measured before the 8-bit cut is another: cut, orange and green fields divided
    by too small a cast read yellow. Occlusion keeps the cut image: its cues were tuned on
    it, and lost hands on the uncut one (docs/vision.md, 2026-11-28)."""
    normalised = normalise(rectified, levels)
    cast, uncut = board_casts(normalised, rectified, levels.matrix(), geometry, config)
    normalised = cv2.transform(normalised, np.diag(1.0 / cast).astype(np.float32))
    if np.abs(np.log(uncut / cast)).max() <= config.uncut_cast_tolerance:
        return normalised, normalised, cast
    uncut_matrix = levels.matrix() / uncut[:, None].astype(np.float32)
    return normalised, cv2.transform(rectified, uncut_matrix), cast


def occlusion_of(normalised: np.ndarray, lab: np.ndarray, geometry: BoardGeometry,
                 tracker: BoardTracker, states: list[FieldState], missing: int,
                 relocalised: bool, frame: np.ndarray,
                 ceiling: np.ndarray | None = None) -> Occlusion:
    """Both occlusion cues: foreign colour reaching in over the board, and — once the
    tracker has a clear view — change from that view; then the clear view follows.
    Without a clear view (a single photo), a colour close to the board's counts too
    where it reaches in across a broken stretch of the board's edge
    (:func:`vision.occlusion.rim_entry`): with one, that only added false flags (board
    bench seed 2, live: 3 -> 6 of 229, no hand more found). Nor does the tracker wait on
    that cue for its first clear view: its false flags would keep the change cue off,
    and the fields hidden, for ``clear_view_accept_frames``. Also without a clear view,
    pieces read next to a hand found whose top face fits no player's colour but the
    hand's are its skin (:func:`vision.occlusion.misfit_pieces`); live, the change cue
    sees them. But where the change cue finds no hand, though the board changed just
    inside a stretch of its edge that something lies across (over ``change_entry_mm``),
    both photo cues look too: a hand whose skin reads as pieces changes only "moved"
    pieces, and fingertips over two corner fields make too small a change (board bench
    seed 1 frames 467, 56: flagged on a photo, not live)."""
    config = tracker.config
    unsmoothed, lab = lab, smoothed(lab, geometry, config)
    clear = tracker.clear
    if relocalised or (clear is not None and clear.low.shape != lab.shape):
        clear = None
    change = None if clear is None else changed(lab, clear, config)
    entry, misfit = None, None
    if clear is None:  # a photo: the colour cue alone finds hands
        misfit = misfit_pieces(unsmoothed, states, geometry, tracker.classes, config)
        if tracker.rim is not None:
            entry = rim_entry(frame, tracker.rim, config)
    moved = Occlusion(False, frozenset())
    if clear is not None:
        pieces = moved_pieces(states, clear, geometry, config)
        standing = np.array([now.height > 0 or then.height > 0
                             for now, then in zip(states, clear.states, strict=True)])
        moved = find_change_occlusion(change, pieces, standing, geometry, config)
    if not moved.occluded and change is not None and change.any() \
            and tracker.rim is not None:
        entry = rim_entry(frame, tracker.rim, config)
        entry = entry[change.ravel()[entry]]  # a card lying across it since is no hand
        if len(entry) >= entry_px(config.change_entry_mm, config):
            misfit = misfit_pieces(unsmoothed, states, geometry, tracker.classes, config)
        else:
            entry = None
    if change is not None and not change.any():
        # nothing changed since the clear view: no hand (most frames of a game)
        foreign = Occlusion(False, frozenset(), covered_markers(missing))
    else:
        towers = tower_mask([s.height for s in states], geometry, config.tower_margin_mm)
        foreign = find_occlusion(smoothed(normalised, geometry, config), lab, geometry,
                                 tracker.classes, towers, config, missing, change, entry,
                                 ceiling, misfit, tracker.symbols)
    seen = foreign.hidden_fields - foreign.faint
    tracker.follow(lab, clear_view(lab, states, geometry, config), bool(seen),
                   moved.occluded, relocalised, geometry, moved.hidden_fields, seen,
                   moved.changed_look, frame)
    if (moved.occluded and not foreign.occluded
            and is_shadow(lab, clear, change, geometry, config)
            and not _crossed(frame, tracker.rim, tracker.clear_frame, config)):
        # a shadow alone, with nothing across the board's edge: a hand's from beyond the
        # board (board bench seed 1 frames 82, 112, live); its fields are doubtful
        moved = Occlusion(False, frozenset(), "", moved.changed_look | moved.hidden_fields)
    if not moved.occluded:
        return replace(foreign, changed_look=moved.changed_look - foreign.hidden_fields)
    hidden = foreign.hidden_fields | moved.hidden_fields
    reason = "; ".join(r for r in (foreign.reason, moved.reason) if r)
    return Occlusion(True, hidden, reason, moved.changed_look - hidden)


def _crossed(frame: np.ndarray, rim: Rim | None, clear_frame: np.ndarray | None,
             config: VisionConfig) -> bool:
    """Does something lie across the board's outer edge (:func:`vision.occlusion.rim_entry`)
    over ``change_entry_mm``, as an arm reaching in must, that did not in the ``clear_frame``
    (the table's own tone or a card there is no arm: a hand's shadow from beside the board
    was taken for one, board bench seeds 5 and 6 frames 69, 252, live); true where the
    edge is not all in view, since an arm may cross it out of sight."""
    if rim is None or not rim.seen.all():
        return True
    entry = rim_entry(frame, rim, config)
    if clear_frame is not None:
        entry = np.setdiff1d(entry, rim_entry(clear_frame, rim, config))
    return len(entry) >= entry_px(config.change_entry_mm, config)


def annotate(frame: np.ndarray, reading: BoardReading, layout: Layout,
             uncertain_below: float = VisionConfig.uncertain_below) -> np.ndarray:
    """A copy of the frame with each field's reading drawn on it: a ring in the top
    colour with the tower height, a grey cross on hidden fields, '?' where unsure."""
    out = frame.copy()
    if reading.homography is None:
        cv2.putText(out, reading.problem or "no board", (20, 40), cv2.FONT_HERSHEY_SIMPLEX,
                    1.0, (0, 0, 255), 2, cv2.LINE_AA)
        return out
    names = list(layout.fields)
    centres = np.array([layout.fields[n].centre_mm for n in names])
    base = project(reading.homography, centres)
    ring_mm = layout.piece.diameter_mm / 2
    edge = project(reading.homography, centres + [ring_mm, 0])
    radii = np.maximum(np.linalg.norm(edge - base, axis=1), 4).astype(int)
    font = cv2.FONT_HERSHEY_SIMPLEX
    for k, name in enumerate(names):
        centre = tuple(np.rint(base[k]).astype(int))
        radius = int(radii[k])
        if name in reading.hidden_fields:
            d = radius // 2
            cv2.line(out, (centre[0] - d, centre[1] - d), (centre[0] + d, centre[1] + d),
                     (128, 128, 128), 2, cv2.LINE_AA)
            cv2.line(out, (centre[0] - d, centre[1] + d), (centre[0] + d, centre[1] - d),
                     (128, 128, 128), 2, cv2.LINE_AA)
            continue
        field_reading = reading.fields.get(name)
        if field_reading is None:
            continue
        unsure = field_reading.confidence < uncertain_below
        if field_reading.height == 0:
            cv2.circle(out, centre, 3, (0, 200, 255) if unsure else (255, 255, 255), -1)
        else:
            hex_colour = layout.piece_colours.get(field_reading.top_colour or "", "#ff00ff")
            r, g, b = (int(hex_colour.lstrip("#")[i:i + 2], 16) for i in (0, 2, 4))
            cv2.circle(out, centre, radius, (0, 0, 0), 4, cv2.LINE_AA)
            cv2.circle(out, centre, radius, (b, g, r), 2, cv2.LINE_AA)
            label = str(field_reading.height) + ("?" if unsure else "")
            size = max(0.4, radius / 25)
            (tw, th), _ = cv2.getTextSize(label, font, size, 2)
            org = (centre[0] - tw // 2, centre[1] + th // 2)
            cv2.putText(out, label, org, font, size, (0, 0, 0), 4, cv2.LINE_AA)
            cv2.putText(out, label, org, font, size, (255, 255, 255), 2, cv2.LINE_AA)
        if unsure and field_reading.height == 0:
            cv2.putText(out, "?", (centre[0] + 4, centre[1] - 4), font, 0.5, (0, 200, 255), 1,
                        cv2.LINE_AA)
    if reading.occluded:
        cv2.putText(out, "occluded", (20, 40), font, 1.0, (0, 0, 255), 2, cv2.LINE_AA)
    return out


def learn_calibration(frame: np.ndarray, layout: Layout, placements: dict[str, str],
                      config: VisionConfig | None = None,
                      corners_px: np.ndarray | None = None) -> ColourCalibration:
    """Learn the players' colours from a setup frame in which each player has put one
    piece on a known field (``placements``: field name -> colour name); ``corners_px``
    for a board without markers, as :class:`BoardTracker` takes them."""
    config = config or VisionConfig()
    unknown = [f for f in placements if f not in layout.fields]
    if unknown:
        raise CalibrationError(f"{layout.title} has no field {', '.join(unknown)}")
    frame = check_frame(frame, config)
    players = list(dict.fromkeys(placements.values()))
    nominal = ColourCalibration.default(layout, [p for p in players if p in layout.piece_colours]
                                        or None)
    tracker = BoardTracker(layout, nominal, config, corners_px)
    try:
        where = tracker.localiser.locate(frame)
    except NoBoard as exc:
        raise CalibrationError(f"cannot calibrate: {exc}") from None
    geometry, _ = tracker.geometry(where.homography)
    # as the reader sees the fields' colours
    rectified = geometry.rectify(frame)
    levels = _levels(frame, where, tracker, rectified, geometry)
    lab = to_lab(_board_colours(rectified, levels, geometry, config)[1]).reshape(-1, 3)
    names = geometry.names
    samples: dict[str, list[np.ndarray]] = {p: [] for p in players}
    for field_name, colour in placements.items():
        segment = names.index(field_name) * geometry.max_height  # a single piece: height 1
        pixels = lab[geometry.top_idx[geometry.top_seg == segment]]
        samples[colour].append(np.median(pixels, axis=0))
    colours = {p: tuple(float(v) for v in np.median(np.array(s), axis=0))
               for p, s in samples.items()}
    return ColourCalibration(colours, "setup frame")
