"""Every threshold of the board reader in one place, with the reason for its default.

The pipeline stages take a :class:`VisionConfig` instead of literals so that a user with
an unusual camera or lighting can tune them from a JSON or TOML file
(``VisionConfig.load(path)``) without touching code.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any


class ConfigError(ValueError):
    """A vision config file that is missing, unreadable or names unknown settings."""


@dataclass(frozen=True)
class VisionConfig:
    # --- frame -----------------------------------------------------------------------
    #: The frame size the camera delivers (width, height); other sizes are refused so a
    #: mis-configured camera is noticed instead of silently read at the wrong scale.
    frame_size: tuple[int, int] = (1280, 960)
    #: Mean grey level below which a frame counts as black (lens cap, camera not ready).
    black_frame_level: float = 12.0

    # --- markers (localisation) --------------------------------------------------------
    #: Downscale factor for the full-frame marker search; half size is ~6x faster and
    #: markers (24 mm) stay >= 13 px wide at 80 cm. Corners are refined at full size.
    detect_scale: float = 0.5
    #: Half-width of the search window around an expected marker, in marker sizes; big
    #: enough for a few mm of board drift between frames, small enough to be fast.
    search_margin: float = 1.0
    #: Smallest candidate perimeter in a search window, as a share of the window's longer
    #: side (ArUco's minMarkerPerimeterRate). A window is 1 + 2 x search_margin marker
    #: sizes across, so the marker's own perimeter is over 1.1 of it even at 40 degrees
    #: tilt; OpenCV's 0.03 made every speck of texture a candidate whose bits were read
    #: (15 ms a warm frame for four windows, 5 ms with 0.3, the same markers found).
    search_min_perimeter_rate: float = 0.3
    #: A marker's search window that still shows what it showed when the marker was last
    #: found keeps that marker's corners, unsearched: blocks of this many px, each mean
    #: grey difference within this level (a 1 px shift of the marker's edge moves a
    #: block along it by some 15-20 levels; sensor noise averages to 1-2).
    marker_still_block_px: int = 8
    marker_still_level: float = 6.0
    #: Window (px, half-size) for cv2.cornerSubPix refinement of marker corners.
    subpix_window: int = 3
    #: How ArUco reads a candidate's bits (its DetectorParameters of the same meaning):
    #: pixels per bit cell in the unwarped candidate, and the share of each cell's
    #: border left out. Blurred and JPEG-softened markers 20-50 px wide keep their bits
    #: in the middle of each cell; OpenCV's 4 and 0.13 missed 5 % of visible markers on
    #: rendered frames (56 of 1123 on board-bench seed 1; 25 with these, chosen on
    #: seed 5's frames), and two missed markers leave a photo unreadable.
    marker_pixels_per_cell: int = 8
    marker_cell_margin: float = 0.3
    #: A photo (or a tracker re-locating) with fewer than ``marker_rescue_below`` markers
    #: found, where two markers do not locate the board (docs/vision.md, *Two markers*),
    #: searches the whole frame once more at full size, on its grey and on a locally
    #: equalised copy (CLAHE: clip limit, tiles per side), reading bits with ArUco's error
    #: correction at ``marker_rescue_error_correction`` (1.0 corrects one bit of
    #: DICT_4X4_50, OpenCV's 0.6 none): a motion-blurred, glared or dim marker often has
    #: one bit wrong. A marker found so is kept only where it fits one homography with at
    #: least two others (``max_fit_error_px``), so a misread turn cannot move the board.
    #: Not before: a blurred marker found so puts the board further off than two markers
    #: and the print (board-bench seed 1 frames 107, 480). Seeds 1 and 5: 5 and 8 more
    #: photos located, no marker found over 3.6 px off; 0 turns it off.
    marker_rescue_below: int = 3
    marker_rescue_error_correction: float = 1.0
    marker_rescue_clahe_clip: float = 2.0
    marker_rescue_clahe_tiles: int = 8
    #: Mean corner disagreement (px) between detected markers and the previous
    #: homography above which the camera or board is taken to have been bumped.
    bump_threshold_px: float = 4.0
    #: Homography fit reprojection error (px) above which a marker set is inconsistent.
    max_fit_error_px: float = 3.0
    #: With only two markers seen, the pose is fitted under the camera model
    #: (``markers.fit_two_markers``) with this noise: each corner's after ``cornerSubPix``
    #: (px, each axis), and each marker card lying this far (mm, each axis) and turned
    #: this much (degrees) off its spot (the simulated table's 0.6 mm and 1 degree).
    marker_corner_sigma_px: float = 0.3
    marker_placement_mm: float = 0.6
    marker_placement_deg: float = 1.0
    #: Such a fit is used only when, at the farthest field, its standard error is at most
    #: ``two_marker_max_spread_px`` and leaving out any one corner moves it at most
    #: ``two_marker_max_jackknife_px`` (a bad corner: bench seed 1 frame 477 moved 2.7 px
    #: and was 7.9 px off; those within 1.5 px were 0.9-1.6 px off), and the corners' RMS
    #: reprojection error is at most ``two_marker_fit_error_px``: otherwise the board is
    #: not located, rather than located wrong.
    two_marker_max_spread_px: float = 3.5
    two_marker_max_jackknife_px: float = 1.5
    two_marker_fit_error_px: float = 1.0
    #: A two-marker fit not sure enough is refined by aligning the printed board to the
    #: frame (``print_align.align_to_print``: ECC on a grey template of the print, at
    #: this many px per mm, with this much table (mm) around the board, leaving out
    #: pixels further from the print than this many MADs, and at least this many grey
    #: levels; ECC's iterations, stopping step and Gaussian blur size).
    print_align_px_per_mm: float = 1.0
    print_align_margin_mm: float = 6.0
    print_align_outlier_mads: float = 3.0
    print_align_outlier_min: float = 12.0
    print_align_iterations: int = 40
    print_align_eps: float = 1e-5
    print_align_blur: int = 3
    #: The aligned board is used when one camera pose fits both the markers' corners and
    #: the board's corners where the print put them (each this far off, px) with a
    #: chi-square per degree of freedom of at most ``print_align_max_disagreement``
    #: (bench seed 1: 0.6-3.1 where ECC was right, 13-120 where it was 8-75 px off; three
    #: right ones refused at 5.7-23; the eleventh session's three starts pick among
    #: results, and 8 keeps right ones at 4-7), and when the print matches the frame
    #: better there than from the two-marker fit and that fit swung this many standard
    #: deviations either way (``print_align.print_match``: local contrast over a
    #: Gaussian of this many mm; local variance under ``print_match_flat_variance`` grey
    #: levels squared counts as flat print).
    print_align_sigma_px: float = 1.5
    print_align_max_disagreement: float = 8.0
    print_match_swing_sigmas: float = 1.0
    print_match_sigma_mm: float = 4.0
    print_match_flat_variance: float = 4.0
    #: ECC runs from the two-marker fit and from it swung either way (False: from the fit
    #: alone); a result is kept only where it moves the two markers found no more than
    #: ``print_align_two_marker_shift_mm``, and the best-matching one believed where its
    #: print match exceeds the best start's this many times. (2026-11-28, eleventh
    #: session: of the 83 tuning two-marker frames of seeds 1, 5, 6, 7 with an unsure
    #: fit, one ECC from the fit with the chi-square at 4 and no margin placed 42 within
    #: 3 mm and 7 worse, up to 19 mm; three starts, 8 mm, a chi-square of 8 and a margin
    #: of 1.1 place 47 within 3 mm and one at 3.7 mm.)
    print_align_two_from_swung: bool = True
    print_align_two_marker_shift_mm: float = 8.0
    print_align_two_margin: float = 1.1
    #: ... and beats it by at least this much (a ratio of two tiny matches says nothing:
    #: Cuatro's plain print, held-out seed 4 frame 193, 0.022 against 0.013, 15.6 mm off),
    #: each ECC run for this many iterations (placement alone on the 83: 40 iterations
    #: cost +185 ms a photo, 12 +21 ms, locating as many).
    print_align_two_min_gain: float = 0.02
    print_align_two_iterations: int = 12
    #: ... and where at least this many of the kept results (itself included) put every
    #: field within this many mm of it: starts that land apart say the print pins nothing
    #: (held-out seed 10 frame 526, Mühle: the best of three 7.6 mm off; tuning: 9 boards
    #: over 3 mm off -> 3, of them two sure fits at 3.0-3.2 mm and one at 3.7).
    print_align_two_agree_mm: float = 2.0
    print_align_two_min_agreeing: int = 2
    #: Three markers' homography is refined the same way and the refinement used where
    #: the print matches better and no field moves more than this (mm; bench seed 1:
    #: the three-marker board's worst field up to 8.5 mm off).
    print_align_three_max_shift_mm: float = 12.0
    #: ... and no corner of the three markers found more than this (mm): ECC drawn off
    #: by a blurred hand at the covered corner moved them 5-7 mm (seed 1 frame 283, its
    #: board's corners then 8 mm off), where right it moves them 0.5-2.5 mm.
    print_align_three_marker_shift_mm: float = 4.0
    #: Where the refinement is refused, and moved them no more than this (mm), the
    #: homography fitted to the three markers found and to the covered one where the
    #: refinement puts it is tried on the same terms: the print places the covered corner,
    #: the markers their own (2026-11-28, tenth session: of the 106 tuning three-marker
    #: frames refused for moving the markers, 61 were refined worse by over a mm, 24
    #: better; over all 598, frames with a field over 3 mm off 113 -> 86, none of the 66
    #: placed otherwise worse by over half a mm; further out ECC had strayed: seed 7
    #: frames 281, 389 moved them 31-48 mm, their covered corner 7-10 mm off). 0: not tried.
    print_align_three_marker_stray_mm: float = 8.0
    #: The three markers' refinement runs coarse to fine: this many ECC iterations at
    #: ``print_align_three_coarse_px_per_mm``, then ``print_align_three_iterations`` at
    #: ``print_align_px_per_mm``, with a disc of ``print_align_three_covered_mm`` round
    #: the covered marker left out (a card or hand over it drew ECC off: board bench seed
    #: 1 frame 254). 0 mm: nothing left out. (2026-11-28, ninth session: over the 598
    #: three-marker tuning frames of seeds 1, 5, 6, 7 ECC alone placed the worst field at
    #: a median 1.45 mm, the markers 2.37, as 40 iterations at 1 px/mm did, in 43 instead
    #: of 112 ms with 8 fine iterations; 4 placed a third of them as 8 did, 32 ms.)
    print_align_three_coarse_px_per_mm: float = 0.5
    print_align_three_coarse_iterations: int = 20
    print_align_three_iterations: int = 4
    print_align_three_covered_mm: float = 40.0
    #: A three-marker board printed with lines (Mühle) whose refinement against the grey
    #: print fails or is refused is refined again on both pictures' gradient magnitude
    #: (``print_align.align_to_print``; 2026-11-29, thirteenth session: of the 143 Mühle
    #: three-marker photos of tuning seeds 1, 5, 6, 7 a field over 3 mm off 24 -> 8, none
    #: placed worse by over half a mm; held out 4 -> 2 of 40). False: not. Not the first
    #: try (always on edges placed 29 tuning boards over half a mm worse, 46 better),
    #: nor for two markers, whose starts' agreement was chosen in grey (tuning seed 7
    #: frame 18 placed 5.4 mm off on edges, 1.9 in grey).
    print_align_three_lines_on_edges: bool = True
    #: A board left unlocated with one or two markers found has a hand over it where an
    #: arm reaches in from the frame's edge (:func:`vision.markers.arm_reaching_in`):
    #: seen on the frame shrunk ``unlocated_arm_shrink`` times, outside the board grown
    #: by ``unlocated_arm_board_margin_mm`` on the markers' loose fit (the marker cards,
    #: and two markers' 40-60 px at the covered corners, lie inside), as what lies over
    #: ``unlocated_arm_min_distance`` (or ``unlocated_arm_spread_factor`` times the
    #: table's own median spread) from the table's median colour in a ring
    #: ``unlocated_arm_table_mm`` wide beyond (Lab, lightness weighted by
    #: ``unlocated_arm_lightness_weight``: glare and shade change it most), reaching from
    #: the frame's edge to within ``unlocated_arm_reach_mm`` of that grown board, at least
    #: ``unlocated_arm_min_area_mm2`` large and standing out from the table beside it by
    #: ``unlocated_arm_min_step`` across its rim (``unlocated_arm_rim_px`` shrunk px
    #: either side: a lamp's glare or a table's grain fades out, an arm's edge is a
    #: step), and whose lightness inside that rim varies by a standard deviation of at
    #: least ``unlocated_arm_min_lightness_sd`` (an arm is shaded round; a card lying on
    #: the table beside the board is one flat colour). (2026-11-29, twelfth session:
    #: tuning seeds 1, 5, 6, 7's unlocated two-marker photos, 16 of 18 hand frames
    #: flagged and none of 20 without a hand; their four-marker photos fitted from two
    #: markers, 82 of 102 hands and 16 of 531 no-hand frames, 6 with the lightness rule,
    #: which a standard deviation of 2.5-3.5 gave alike; the margin 35-45 mm, the reach
    #: 10-20, the ring 100-150 and the step 4-5 gave the same. 2026-11-29, thirteenth
    #: session: one marker's fit, a median 19 px off at the board's worst corner where
    #: the marker is sharp, hundreds where it is small or blurred, with the same margin:
    #: tuning unlocated one-marker photos 3 of 5 hands flagged, none of 12 without; their
    #: four-marker photos placed from each marker alone, 298 of 384 hands and 26 of 1972
    #: no-hand boards, where a margin of 70 or 100 mm gave 308 / 297 and 53 / 80.)
    unlocated_arm_shrink: int = 4
    unlocated_arm_board_margin_mm: float = 45.0
    unlocated_arm_reach_mm: float = 20.0
    unlocated_arm_table_mm: float = 150.0
    unlocated_arm_lightness_weight: float = 0.5
    unlocated_arm_min_distance: float = 12.0
    unlocated_arm_spread_factor: float = 3.0
    unlocated_arm_min_area_mm2: float = 5000.0
    unlocated_arm_min_step: float = 4.0
    unlocated_arm_rim_px: int = 2
    unlocated_arm_min_lightness_sd: float = 3.0

    #: The board/camera geometry is rebuilt only when the board corners move by more
    #: than this (px); marker jitter below it would otherwise cost a rebuild per frame.
    geometry_reuse_px: float = 1.0
    #: Least difference (grey levels) between the markers' white and black for a frame
    #: to be readable at all.
    min_marker_contrast: float = 25.0
    #: A marker whose black is over ``marker_glare_black`` brighter (mean grey levels)
    #: than the darkest marker's, and whose white is not darker than that marker's by
    #: more than ``marker_glare_white_drop`` times that lift, may lie in a lamp's
    #: reflection (which lifts black and white alike; blur on a small marker and shade
    #: lift a black too, but darken the white). The frame is then normalised without
    #: such markers only if that fits the plain board to its print better, its misfit
    #: (:func:`vision.fields.board_misfit`) under ``marker_glare_fit_ratio`` times the
    #: one with every marker (see docs/vision.md, 2026-11-28: the rule alone, 27 Nov,
    #: read a dim hazy frame worse; seed 1 frame 115 fits 0.21 times as badly without
    #: its two glared markers, frames 24 and 29 the same either way).
    marker_glare_black: float = 30.0
    marker_glare_white_drop: float = 0.5
    marker_glare_fit_ratio: float = 0.9
    #: A board without markers (corners given by hand) has no printed black and white: its
    #: black is taken as this level, its white from the frame's pixels above this percentile.
    image_black_level: float = 16.0
    image_white_pct: float = 99.5

    # --- camera geometry ---------------------------------------------------------------
    #: Focal length in pixels; None = estimate it from the homography (needs some tilt)
    #: and fall back to ``default_fov_deg``.
    focal_px: float | None = None
    #: Horizontal field of view assumed when the focal length cannot be estimated; the
    #: middle of the supported 60-80 degree range.
    default_fov_deg: float = 70.0
    #: Estimated focal lengths outside this FOV range (degrees) are not trusted.
    fov_range_deg: tuple[float, float] = (50.0, 90.0)
    #: Below this tilt (degrees) the focal length is not observable from a homography.
    min_tilt_for_focal_deg: float = 12.0
    #: Radial lens distortion (OpenCV k1; negative = barrel) of the camera.
    k1: float = 0.0

    # --- rectified board image -----------------------------------------------------------
    #: Resolution of the top-down board image the field stage works on: pixels per mm,
    #: at least ``min_piece_px`` across one piece.
    rectified_px_per_mm: float = 1.0
    min_piece_px: float = 18.0
    max_px_per_mm: float = 2.5

    # --- colours ----------------------------------------------------------------------
    #: Lab distance (after normalising by the markers' black and white) within which a
    #: pixel counts as showing a given colour.
    colour_match_distance: float = 30.0
    #: How much nearer a player colour than the board colour printed at the same spot a
    #: pixel must be to count as a piece (ties go to the board: no phantom stones).
    board_preference: float = 3.0
    #: Weight of lightness against the a/b chroma in colour distances; <1 because
    #: shading and exposure move L much more than hue.
    lightness_weight: float = 0.5

    #: Light levels (relative to the markers' white) at which each colour is still
    #: recognised: shadows of towers and hands, shaded tower sides, uneven lamps.
    shade_levels: tuple[float, ...] = (0.4, 0.55, 0.7, 0.85, 1.0, 1.15)
    #: Glare (a lamp's reflection) mixes a colour towards white by these shares.
    glare_levels: tuple[float, ...] = (0.3,)
    board_glare_levels: tuple[float, ...] = (0.3,)
    #: Colour of the board between fields when the layout names no "board" colour.
    default_board_hex: str = "#ece6d6"

    #: A colour cast left after normalising by the markers (e.g. a channel clipped on
    #: the white marker) is measured on the plain board and removed, within this range
    #: of per-channel gains; one board pixel in ``cast_sample_step`` is used.
    cast_range: tuple[float, float] = (0.7, 1.4)
    cast_sample_step: int = 20
    #: The fields' colours are read from the frame normalised and uncast in one step
    #: when the cast measured before the 8-bit cut differs from the cut one by more than
    #: this (log of the gain, any channel): markers' white far too dark (log 0.2-0.25 in
    #: board bench seed 1's Just 4 Fun frames 116 and 264). Smaller differences come
    #: from Spexxx's white margin alone passing 255, and there the uncut cast read
    #: magenta and cyan stones in dim frames empty (log 0.06-0.08: see
    #: :func:`vision.fields.board_casts`, docs/vision.md 2026-11-28).
    uncut_cast_tolerance: float = 0.15
    #: A channel at or above the markers' white, less this (grey levels: sensor noise),
    #: may have been clipped: the colour is matched as it is, half way to white and at
    #: white, whichever fits best (see docs/vision.md, *Clipped channels*).
    clip_tolerance: float = 3.0

    # --- fields -----------------------------------------------------------------------
    #: Fraction of the inner top face of a piece that must match one player colour.
    min_piece_fraction: float = 0.45
    #: The share of the top face sampled (radius ratio), avoiding the rim and the
    #: anti-aliased edge of the printed field.
    top_face_inner_ratio: float = 0.6
    #: A player colour that matches a printed board colour but for its brightness (a
    #: white stone on Spexxx's silver cells: same grey, 1.3x as bright) is told from it
    #: by the piece's inner top face against the uncovered corners of the field's
    #: square, where the two brightnesses differ by at least this ratio ...
    look_alike_min_ratio: float = 1.25
    #: ... the piece lying there when the measured ratio is past this share of the
    #: two colours' ratio (on a log scale: 0 the empty field, 1 the piece), and sure of
    #: it (or of the empty field) this share further on.
    look_alike_piece_share: float = 0.7
    look_alike_sure_share: float = 0.35
    #: The face's brightness is this percentile of its pixels, the corners' this one of
    #: theirs (chosen on 400 rendered Spexxx frames of bench seed 1, see docs/vision.md),
    #: for a piece lighter than the print; for a darker one (a black stone on Spexxx's
    #: dark unplayable cells) 100 minus each, so that doubt still goes to the empty field.
    look_alike_face_percentile: float = 25.0
    look_alike_rim_percentile: float = 90.0
    #: Fewest uncovered corner pixels of a field's square to compare with, beyond a
    #: centred piece's silhouette grown by this much (mm: pieces lie a little off centre).
    look_alike_min_rim_px: int = 12
    look_alike_margin_mm: float = 0.5
    #: A field read empty on such a square holds the darker player's piece (a black
    #: stone on Spexxx's silver), read with ``look_alike_ring_confidence``, where the
    #: median of the piece's silhouette outside its top face is at most this ratio of
    #: the corners' median: on board bench seed 1 empty silver cells lie at 0.88 or more,
    #: black stones that haze or a lamp's sheen lifts past the face test at 0.40-0.59.
    look_alike_ring_ratio: float = 0.67
    look_alike_ring_confidence: float = 0.5
    #: A lighter piece so found reads with at most ``look_alike_ring_confidence`` where
    #: the corners' pixels lie a median of this far (8-bit Lab a/b) from the print's
    #: hue: they are not the plain print (a neighbour's colour blurred in, a stone
    #: leaning over them), and the face looks bright against them alone. On board bench
    #: seed 1 the white stones found on silver lie at 16.7 or less, the empty cell read
    #: white surely at 25.2 (frame 547: a blue cell and a magenta stone beside it).
    look_alike_rim_chroma: float = 20.0
    #: A lighter piece read on such a square (by colour or by the face test) reads with
    #: at most ``look_alike_ring_confidence`` where this percentile of its one-piece
    #: silhouette outside the top face lies at this ratio of the face's median or above:
    #: a stone's shaded side and outline are darker, a cell a glare spot washes white is
    #: even. On board bench seed 1 the white stones on silver lie at 0.84 or less, empty
    #: cells read white at 0.77-0.98 (119, read sure by colour in a glare spot: 0.94).
    look_alike_outline_percentile: float = 10.0
    look_alike_outline_ratio: float = 0.9
    #: Two players whose colours differ by at least this much lightness (8-bit Lab L) and
    #: at most ``lightness_pair_chroma`` in a/b (black and white stones) are told apart
    #: within each frame (a black stone in glare or haze turns grey): their pieces split
    #: into a darker and a lighter group where their top faces' lightness parts best
    #: (Otsu), when the gap there is at least ``lightness_split_gap`` (20: a glare spot
    #: grades black stones towards white, and a test scene's glare left 24 levels between
    #: its greyest black and its whites, while the widest gap lay among the blacks).
    lightness_pair_min: float = 100.0
    lightness_pair_chroma: float = 20.0
    lightness_split_gap: float = 20.0
    #: In a frame without a hand that holds a dark reading, a piece read light whose top
    #: face lies ``lightness_local_gap`` (8-bit L) or more below the lightest piece read
    #: light within ``lightness_local_mm`` reads dark: glare or sheen lifts a black stone
    #: to grey while the whites beside it stay white (:func:`fields.darker_than_neighbours`;
    #: chosen on board bench seed 1, where whites in frames without a hand lay at most 37
    #: below that, glared blacks 44-99: docs/vision.md, 2026-11-28, fourth session).
    lightness_local_mm: float = 70.0
    lightness_local_gap: float = 45.0
    #: The board printed around such a piece, against its print, tells the light there
    #: (:func:`fields.darker_than_neighbours`). In a frame with a hand, whose shadow greys a
    #: white stone as glare greys a black, the piece reads dark only where that board keeps
    #: ``lightness_shade_ratio`` of its print; in a frame without one, a piece
    #: ``lightness_glare_gap`` or more below reads dark where glare lifts that board to
    #: ``lightness_glare_ratio`` of its print or more (its white neighbours lifted alike
    #: and cut at the frame's ceiling). Either with at most ``lightness_lit_confidence``
    #: (under ``uncertain_below``). Board bench seed 1, Spexxx: around shaded whites
    #: 0.07-0.48, greyed blacks 0.58-0.84 in frames with a hand; in frames without one
    #: whites 25 or more below at most 0.88, glared blacks 28-44 below at 1.19-1.34
    #: (docs/vision.md, 2026-11-28, seventh session).
    lightness_shade_ratio: float = 0.53
    lightness_glare_gap: float = 25.0
    lightness_glare_ratio: float = 1.1
    lightness_lit_confidence: float = 0.5
    #: In a game without stacks, a field read as a player whose colour lies within
    #: ``washed_piece_white_distance`` (8-bit Lab) of white (a white stone) whose top
    #: face differs from the board printed around it (within
    #: ``washed_surround_mm`` beyond a piece's radius, outside every piece's silhouette
    #: grown by ``washed_margin_mm``; at least ``washed_min_surround_px`` pixels) by less
    #: than ``washed_board_share`` of what such a piece would, in the frame normalised in
    #: floats, is the board washed out by a lamp's glare and reads empty
    #: (:func:`fields.washed_out_board`; chosen on board bench seed 1: such phantoms
    #: 0.03-0.2, white stones from 0.39: docs/vision.md, 2026-11-28, fifth session).
    washed_piece_white_distance: float = 40.0
    washed_board_share: float = 0.3
    washed_surround_mm: float = 6.0
    washed_margin_mm: float = 1.0
    washed_min_surround_px: int = 12
    #: Such a white stone's face that stands out from the board around it but less than
    #: ``white_face_min_share`` of the step from the print to white along that step (a
    #: black stone greyed by glare or shade, the board at a glare spot's edge: darker
    #: than the board or beside white's direction) is read with at most
    #: ``white_face_confidence`` (under ``uncertain_below``). Board bench tuning seeds 1,
    #: 5, 6, 7, Mühle: such sure readings up to 0.36, white stones from 0.39
    #: (docs/vision.md, 2026-11-28, ninth session).
    white_face_min_share: float = 0.4
    white_face_confidence: float = 0.5
    #: Such a face under ``white_face_dark_share`` of the step (darker than the board
    #: around it) reads as the other player it points to by ``white_face_other_share`` of
    #: that player's step, else empty, with ``white_face_confidence``. Board bench tuning
    #: seeds 1, 5, 6, 7, Mühle: printed points in glare read white at -0.54 to -0.23, black
    #: stones at -0.97 to 0.36, white stones from 0.39; along black's step the points go
    #: 0.14-0.30, 10 of the 17 blacks under 0 0.36-0.67. Only where the board around lies
    #: within ``white_face_ring_min_cosine`` (BGR) of its print's hue: Mühle's from 0.97;
    #: Spexxx's two whites under 0 (live, seed 5 243: a ring of neighbours' cyan stones)
    #: at 0.58 (docs/vision.md, 2026-11-28, tenth session).
    white_face_dark_share: float = 0.0
    white_face_other_share: float = 0.35
    white_face_ring_min_cosine: float = 0.9
    #: A field read empty whose top face stands out from the board around it (at least
    #: ``white_empty_min_surround_px`` pixels of it) towards white by ``white_empty_share``
    #: of white's step reads white, with ``white_face_confidence``
    #: (:func:`fields.white_stones_read_empty`). Board bench tuning seeds 1, 5, 6, 7,
    #: Mühle: white stones read empty 0.50-1.22, empty points at most 0.41; their rings
    #: 238 px or more, Spexxx's 17-138 (there empty silver cells stand out up to 2.3)
    #: (docs/vision.md, 2026-11-28, tenth session).
    white_empty_share: float = 0.45
    white_empty_min_surround_px: int = 200
    #: In a game with stacks, a field read empty whose top face (one piece high, outside
    #: every tower's silhouette grown by ``roof_tower_margin_mm``; its
    #: ``roof_face_top_pct`` lightest pixels along the printed colour, so that a printed
    #: symbol's dark ink and a shadow are left out) lies off its own square's print around
    #: it (outside its one-piece silhouette grown by ``washed_margin_mm`` and the towers)
    #: towards a player's colour (cosine at least ``roof_min_cosine``) by
    #: ``roof_piece_share`` of that player's step from the print holds that player's piece
    #: washed out by a lamp's glare, and reads as it, one high, with confidence
    #: ``roof_piece_confidence`` (under ``uncertain_below``: its height is not seen, and
    #: such towers were up to five high); from ``roof_unsure_share``
    #: it reads empty but unsure (:func:`fields.washed_out_pieces`; chosen on board bench
    #: seed 1: empty fields at most 0.12, Cuatro's washed roofs 0.11-0.47: docs/vision.md,
    #: 2026-11-28, fifth session).
    roof_face_top_pct: float = 90.0
    roof_min_cosine: float = 0.8
    roof_piece_share: float = 0.15
    roof_unsure_share: float = 0.09
    roof_piece_confidence: float = 0.5
    roof_min_face_px: int = 20
    #: ... and only towards players whose colour lies at least this far (BGR, 0-255) from
    #: the print: nearer, a washed print and that piece are one (the layouts' colours lie
    #: 81 or more apart; a colour learned off an empty field lies within a few).
    roof_min_step: float = 40.0
    roof_tower_margin_mm: float = 3.0
    #: In a game with stacks, a piece read unsure whose top face (one piece high) stands
    #: out from its own square's print around it (outside every tower read, its own
    #: included) by less than this share of the step from that print to the colour read
    #: is the print taken for a piece and reads empty, as unsure as before
    #: (:func:`fields.print_read_as_pieces`; board bench tuning seeds 1, 5, 6, 7, Just 4
    #: Fun: orange and lime squares read as yellow towers in overexposed or dim frames
    #: stood out 0.04-0.27 of the step, towers read right and unsure from 0.26:
    #: docs/vision.md, 2026-11-28, tenth session).
    print_piece_share: float = 0.2
    #: In a game without stacks, a field read empty whose board printed around it
    #: (``washed_surround_mm``) lies at this much of its print or more (summed B, G, R:
    #: a lamp's glare) is judged as a roof is, its top face's median against that board,
    #: towards the colourful players only, with ``roof_min_cosine``, ``roof_piece_share``,
    #: ``roof_min_step`` and ``roof_piece_confidence`` (:func:`fields.washed_out_stones`;
    #: board bench tuning seeds 1, 5, 6, 7, Spexxx: such stones read empty in glare at
    #: 1.34-2.33, the empty cells pointing as far towards them at most 1.12:
    #: docs/vision.md, 2026-11-28, ninth session). In a game with stacks, a field with no
    #: printed symbol whose own square lies this far over its print is judged by its whole
    #: face's median, not its lightest tenth (:func:`fields.washed_out_pieces`; tuning
    #: seeds 1, 5, 6, 7, Just 4 Fun: pieces read empty in glare 1.12-1.91, no empty square
    #: over 1.10 whose whole face points to a player: docs/vision.md, 2026-11-28, tenth
    #: session).
    glare_stone_lift: float = 1.3
    #: In a game with stacks, a field with no printed symbol whose own square lies under
    #: ``sheen_veto_lift`` of its print (out of glare) and that the rule of
    #: ``roof_piece_share`` reads as a piece (its face's lightest tenth pointing towards
    #: the player) stays empty, with ``roof_piece_confidence`` at most, where its whole
    #: top face (one piece high, its median, divided channel by channel by its square's
    #: lift over the print) lies ``sheen_veto`` of that player's step from the print or
    #: more off the player's colour washed towards white (how a piece there looks, its
    #: glossy top mirroring the lamp at most) (:func:`fields.washed_out_pieces`; board
    #: bench tuning seeds 1, 5, 6, 7, Just 4 Fun: empty squares so read and pieces so read
    #: as another colour 0.20-0.47, pieces so read right 0.05-0.23 under 1.2x, a red on
    #: cyan at 1.28x 0.38: docs/vision.md, 2026-11-28, eleventh session).
    sheen_veto: float = 0.3
    sheen_veto_lift: float = 1.2
    #: In a game without stacks, a piece read surely as a colourful player (magenta,
    #: cyan) whose top face's median holds less than ``colour_face_min_chroma`` of that
    #: player's chroma along its hue (8-bit Lab a/b) is read with
    #: ``colour_face_confidence`` (under ``uncertain_below``): a grey face (a black stone
    #: in a bright frame or in glare) whose pixels the tables took for deep-shaded cyan
    #: (:func:`fields.colourless_faces`; board bench tuning seeds 1, 5, 6, 7: such
    #: readings up to 0.32, cyan and magenta stones from 0.47: docs/vision.md,
    #: 2026-11-28, ninth session).
    colour_face_min_chroma: float = 0.4
    colour_face_confidence: float = 0.5
    #: Such a piece whose face also lies darker than this (8-bit Lab L) reads as the
    #: darkest other player (a black stone; :func:`fields.grey_faces_read_dark`; board
    #: bench tuning seeds 1, 5, 6, 7, Spexxx: 15 of 18 black stones read cyan at L 50-76,
    #: three greyed at 160-191; magenta and cyan stones so grey at 175 or more, pale or
    #: washed by glare: docs/vision.md, 2026-11-28, eleventh session).
    colour_face_dark_lightness: float = 140.0
    #: In a game without stacks with colourful players (Spexxx), a field read surely
    #: empty whose one-piece top face is lighter than the cell just beyond its rim all
    #: round (the median over ``disc_samples`` directions of the grey at ``disc_outer_mm``
    #: from the face's centre less that at ``disc_inner_mm``, over the grey of the board
    #: printed around, itself at least ``disc_min_ring`` of its print) by ``disc_min_step``
    #: or more is read with at most ``disc_confidence`` (:func:`fields.lit_discs`; board
    #: bench tuning seeds 1, 5, 6, 7, Spexxx, standalone: 5 of 40 sure empty readings of
    #: stones 0.6 or more, none of 84,672 right ones, whose 0.01st percentile is 0.43:
    #: docs/vision.md, 2026-11-28, tenth session).
    disc_min_step: float = 0.6
    disc_inner_mm: float = 4.5
    disc_outer_mm: float = 7.0
    disc_samples: int = 32
    disc_min_ring: float = 0.3
    disc_confidence: float = 0.5
    #: A field read empty on a square a lighter player's piece matches but for brightness
    #: (a white stone on Spexxx's silver) holds that piece, read with ``disc_confidence``,
    #: where its top face is a disc lighter than the cell beyond its rim by this much (the
    #: median grey at ``disc_outer_mm`` less that at ``disc_inner_mm``, over the board
    #: around as for ``disc_min_step``) and lighter than the square's corners
    #: (:func:`fields.lit_look_alikes`; board bench tuning seeds 1, 5, 6, 7, standalone:
    #: white stones read empty on silver 0.26-1.58, 12 of 21 at 0.6 or more; empty cells
    #: with a face lighter than their corners at most 0.47: docs/vision.md, 2026-11-28,
    #: eleventh session).
    look_alike_disc_step: float = 0.6
    #: A field read empty in a game without stacks whose top face lies, in a/b (8-bit
    #: Lab), within ``frame_colour_piece_distance`` of this frame's own pieces of a
    #: colourful player (calibrated chroma over ``frame_colour_chroma``: magenta, cyan)
    #: and at least ``frame_colour_board_distance`` and twice as far
    #: (``frame_colour_ratio``) from this frame's own empty cells of its colour, holds
    #: such a piece. The tables accept each colour from deep shade to glare, so in a dim
    #: frame, stretched to the markers' white, magenta on Spexxx's red zone matched both;
    #: within one frame the two lie 30-40 apart. Learnt from fields read with confidence
    #: ``frame_colour_sure``: at least ``frame_colour_board_fields`` empty cells of the
    #: colour and ``frame_colour_piece_fields`` pieces.
    frame_colour_chroma: float = 25.0
    frame_colour_piece_distance: float = 10.0
    frame_colour_board_distance: float = 20.0
    frame_colour_ratio: float = 0.5
    frame_colour_sure: float = 0.5
    frame_colour_board_fields: int = 3
    frame_colour_piece_fields: int = 2
    #: After occlusion, a field read empty whose face lies ``frame_colour_mix_share`` of
    #: the way or more from those empty cells to those pieces and within
    #: ``frame_colour_mix_off`` of that line, while on the circle just beyond a stone's
    #: rim (``disc_outer_mm``) that share is ``frame_colour_mix_disc`` lower, holds a
    #: stone blurred into its cell, read with ``frame_colour_mix_confidence``
    #: (:func:`fields.mixed_stones`; board bench tuning seeds 1, 5, 6, 7, Spexxx,
    #: standalone: 25 of 72 magenta and cyan stones read empty there, at shares 0.56-0.86
    #: and drops 0.15-0.65; of 756 empty cells near such a line, one at 0.56 and 0.15;
    #: the same cuts, in Lab, for black stones (the pieces of a lightness pair's darker
    #: player): 7 of 33 black stones read empty there, at shares 0.67-1.05 and drops
    #: 0.16-0.39, and no empty cell reaches both (the nearest 0.58 and 0.12):
    #: docs/vision.md, 2026-11-29, twelfth session).
    frame_colour_mix_share: float = 0.55
    frame_colour_mix_off: float = 15.0
    frame_colour_mix_disc: float = 0.15
    frame_colour_mix_confidence: float = 0.5
    #: A field read as a whitish player (white) under
    #: ``frame_colour_cell_sure`` whose face lies less than ``frame_colour_cell_share`` of
    #: the way, in Lab, from this frame's sure empty cells of its print to its sure white
    #: stones, within ``frame_colour_mix_off`` of that line, is a pale cell, read empty
    #: with ``frame_colour_mix_confidence``
    #: (:func:`fields.mixed_stones`; board bench tuning seeds 1, 5, 6, 7, Spexxx: of the
    #: fields read white under 0.3 at that stage on a line of 20 or more, 4 / 5 empty
    #: cells (standalone / live) lie at shares -0.24 to 0.58, one white stone at 0.0-0.04,
    #: the next whites at 0.64 / 0.74: docs/vision.md, 2026-11-29, twelfth session).
    frame_colour_cell_share: float = 0.6
    frame_colour_cell_sure: float = 0.3
    #: A piece read white in a game without stacks whose top face lies, at its
    #: ``pale_piece_percentile`` pixel, ``pale_piece_shift`` or more (8-bit Lab a/b) from
    #: the median of this frame's sure white stones (at least ``pale_piece_white_fields``)
    #: along a colourful player's hue is that player's stone washed pale by glare or haze,
    #: read with ``pale_piece_confidence`` (under ``uncertain_below``). On board bench
    #: seed 1 (Spexxx) such magenta and cyan stones lie 18.6-23.9 along their hue, white
    #: stones at most 10.9 (see docs/vision.md, 2026-11-28, sixth session).
    pale_piece_shift: float = 15.0
    pale_piece_percentile: float = 25.0
    pale_piece_white_fields: int = 3
    pale_piece_confidence: float = 0.5
    #: Printed lines and dots (Mühle's, as the layout gives them) are expected this much
    #: wider on each side: the board's pose is known to about a millimetre.
    printed_margin_mm: float = 0.7
    #: Tower heights are measured along this many parallel lines through the field
    #: (spread over this share of the piece radius either side of the centre line).
    profile_lines: int = 5
    profile_band_ratio: float = 0.3
    #: Spacing of the height-profile samples along each line (finer than a frame pixel).
    profile_step_mm: float = 0.25
    #: A tower's outline is placed half way between the colours this far (mm) either
    #: side of where the colour labels change, ...
    edge_plateau_mm: float = 2.0
    #: ... when they differ by at least this much (normalised BGR levels); closer
    #: colours leave the edge where the labels put it.
    edge_min_contrast: float = 20.0
    #: Dark seams between stacked pieces are thinner than this; a longer stretch of
    #: non-piece colour ends a tower's silhouette.
    seam_gap_mm: float = 1.5
    #: Past the field centre, a run of one piece colour at least this share of a top
    #: face's diameter long, giving way to another piece colour, is a tower's top meeting
    #: a neighbour's piece: the silhouette ends there.
    neighbour_run_ratio: float = 0.8
    #: ... unless the silhouette measured whole (not ended there) fits a height with its
    #: top face's colour share better by this much (cost units: layers of mismatch): a
    #: tall tower's own upper pieces of another colour above a long side (board bench
    #: tuning seeds: such towers 1.4-2.2 better; a cut a few tenths of a mm short, 0.06).
    whole_tower_margin: float = 0.5
    #: A silhouette that ran on to the end of its line ends at a neighbour's piece (not
    #: delimited) also where up to this much between its top and the piece shows no
    #: majority colour (a blurred or shaded border where the lines disagree, or a dark
    #: gap): such a sample hid the neighbour, reading 3-4 high towers five (board bench
    #: tuning seeds 1 and 5: 9 of the 99 wrong heights where one more piece moves the top
    #: 4+ px). Not where the silhouette ends by itself: there such a border is as likely
    #: a tower's own.
    neighbour_gap_mm: float = 1.0
    #: A silhouette that runs on to the end of its line with no neighbour found ends,
    #: past a top face's run of its top colour, at the strongest step of its profile
    #: colour if that is at least this much (normalised BGR levels, ``edge_plateau_mm``
    #: either side), not delimited: the table beyond the board or a neighbour's piece
    #: labelled the top's colour (read whole too, as a neighbour's cut is).
    top_step_contrast: float = 50.0
    #: A run of tower colour at least ``base_side_run_mm`` long, this side of the base the
    #: silhouette picked and parted from it by at most ``base_seam_gap_mm`` of non-piece
    #: colour (the dark shaded seam above a lower piece), is that lower piece's side: the
    #: base lies where it starts, if that is within ``base_off_centre_mm`` of a centred
    #: base (a tower standing off centre towards the nadir otherwise read a piece short).
    base_side_run_mm: float = 1.0
    base_seam_gap_mm: float = 2.5
    #: A tower whose inside ``edge_plateau_mm`` past its base is at least
    #: ``foot_dip_rise`` times as bright as the darkest sample within ``edge_plateau_mm``
    #: either side of the base (a lit piece over a dark foot: the lowest piece's shaded
    #: side and the contact shadow, which the labels call board) stands where the
    #: brightness has fallen half way from the board's ``edge_plateau_mm`` outside to that
    #: darkest sample, ``foot_dip_shift_mm`` further in; the half-way colour edge lands on
    #: the dip's far slope there and read towers a piece short (bench seeds 1 and 5,
    #: docs/vision.md, twelfth session).
    foot_dip_rise: float = 1.6
    foot_dip_shift_mm: float = 0.5
    #: A tower's silhouette measures this much longer than its geometry, per piece shape:
    #: blur and the dark contact shadow at its foot widen it, a disc's rounded top edge
    #: shortens it, a roof's shaded cone lengthens it (about the median over rendered
    #: frames, where the share of exact heights peaks on bench seeds 1 and 2; the roof's
    #: fell from 2.2 once a base lost in a shaded seam no longer cut towers short; see
    #: docs/vision.md).
    silhouette_bias_mm: tuple[tuple[str, float], ...] = (("disc", 1.2), ("roof", 1.9))
    #: ... and longer still where its top's far edge is blurred: per mm that the edge's
    #: rise from a quarter to three quarters of the way from the board's colour to the
    #: tower's (colours taken ``edge_width_plateau_mm`` either side) is wider than
    #: ``edge_width_reference_mm`` (about the median on rendered frames, so the bias above
    #: keeps its meaning), the length counts ``edge_width_bias_ratio`` mm shorter; a
    #: sharper edge, longer. Of the per-tower features measured, the only one that read
    #: more heights right on bench seeds 1 and 7 (docs/vision.md, seventh session).
    edge_width_plateau_mm: float = 3.0
    edge_width_reference_mm: float = 1.45
    edge_width_bias_ratio: float = 0.5
    #: How much a pixel matching no colour counts as part of a tower's silhouette.
    unknown_inside: float = 0.6
    #: Weight (in layers) of "the top face shows one colour" against the silhouette
    #: length when choosing a tower's height.
    top_face_weight: float = 1.0
    #: A tower's height is fully trusted only when its measured silhouette length lies
    #: this far (mm) from the boundary between the two likeliest heights: about the
    #: spread of silhouette lengths on rendered frames (blur, shadows, pieces lying a
    #: little off the one below). Less margin lowers the reading's confidence.
    height_sure_margin_mm: float = 1.5
    #: A tower's base seen farther than this (mm) from where a centred piece's would be
    #: is doubtful (pieces lie up to ~3 mm off centre): the height is marked uncertain.
    base_off_centre_mm: float = 4.0
    #: Likewise its top (the silhouette's far edge) seen farther than this (mm) from where
    #: the height read puts the top of a centred tower: the length then measured something
    #: else (sides lost in shade, a top washed out by glare). More than the base's margin:
    #: each piece lies a little off the one below, and the pose's error grows with height.
    top_off_centre_mm: float = 6.0
    #: Tallest tower read; taller ones are read as this height (the rules rarely let
    #: towers grow beyond 5, and each extra layer is harder to tell from the one below).
    max_tower_height: int = 5
    #: Nested Cuatro roofs: each roof raises the tower by this share of its height.
    roof_nesting_ratio: float = 0.45
    #: Whole-outline fit of a tower's height (:func:`vision.fields.fit_outlines`), added
    #: to the length's cost: lines this far apart (mm) along the direction away from the
    #: nadir, across this share of the piece radius either side of the tower's axis,
    #: reaching this far (mm) past its widest silhouette, sampled every this many mm
    #: along (each a fraction of the whole outline's cost, as much as the gain kept on
    #: bench seed 1; lines 2 mm apart lose it; docs/vision.md "Tower heights"), ...
    outline_line_mm: float = 1.0
    outline_band_ratio: float = 0.7
    outline_reach_mm: float = 4.0
    outline_step_mm: float = 1.0
    #: ... a sample is tower where it differs from the board printed there (lit as the
    #: tower's board samples are) by this share of the tower's median difference, and
    #: board this share of it below that (see :func:`vision.fields.outline_evidence`):
    #: half of it, so a tower's median sample counts +1 as the board counts -1 (at 0.8
    #: the tower's inside counted about +0.4, a silhouette 1 mm too long cost as much as
    #: one 2.5 mm too short, and the fit pulled heights down: a roof of two read as one
    #: on the referee's simulated table, Cuatro seed 4), ...
    outline_contrast_ratio: float = 0.5
    outline_soft_ratio: float = 0.5
    #: (a tower needs this many board and piece samples for those medians, taken on
    #: every this many lines; else the printed colours are taken as seen and the
    #: tower's difference as this) ...
    outline_min_samples: int = 20
    outline_median_every: int = 4
    outline_default_contrast: float = 60.0
    #: ... the base centre is searched this far (mm) either way in these steps, the
    #: silhouette taken this much (mm) wider all round than its geometry (blur), ...
    outline_shift_mm: float = 2.0
    outline_shift_step_mm: float = 2.0
    outline_grow_mm: float = 0.3
    #: ... and the fit's score (evidence x mm) weighs this much against a layer of length
    #: mismatch (0: no fit): alone the fit reads fewer heights than the length, added to
    #: it a few more (docs/vision.md "The whole-outline fit, made cheap").
    outline_weight: float = 0.005
    #: Readings with a confidence under this are marked uncertain in annotations.
    uncertain_below: float = 0.6

    # --- occlusion ----------------------------------------------------------------------
    #: Fraction of a field's area that must show "foreign" colour (neither board nor
    #: piece) for the field to be hidden.
    hidden_field_fraction: float = 0.1
    #: Hands are looked for on the board image smoothed over this size (mm), ...
    hand_smoothing_mm: float = 3.0
    #: ... as pixels farther than this from the board colour printed there (stricter
    #: than ``colour_match_distance``: many skin tones are close to some board colour) ...
    hand_board_distance: float = 20.0
    #: ... and at least this far from printed edges and lines (they blur and shift).
    print_edge_margin_mm: float = 1.0
    #: A colour that is the printed board washed towards white by at least this share
    #: (within ``glare_tolerance`` grey levels) is glare, not a hand.
    glare_min: float = 0.05
    glare_tolerance: float = 12.0
    #: A normalised channel within this many grey levels of what a clipped channel
    #: becomes is taken as clipped: its true value may have been higher.
    clip_margin: float = 3.0
    #: Margin around each tower read (mm) where its shadow and rim are not hand evidence.
    tower_margin_mm: float = 3.0
    #: Gaps (mm) bridged between pieces of one foreign blob (edges and towers between).
    hand_bridge_mm: float = 6.0
    #: Smallest blob of foreign colour (mm^2 on the board) taken for a hand; a
    #: fingertip over a 26 mm disc is about 200 mm^2, specks of glare are far smaller.
    #: Since a hand must also cross the board's rim (``hand_edge_mm``), patches of glare
    #: inside the board no longer force this up.
    hand_min_area_mm2: float = 800.0
    #: A hand blob must reach to within this distance (mm) of the board's outer edge:
    #: an arm comes in from beyond the board, glare and shadows lie anywhere.
    hand_edge_mm: float = 6.0
    #: ... or, on a still photo, to within this distance (mm) of a stretch of the edge
    #: that something lies across (``rim_break_ratio``), ``faint_hand_entry_mm`` long: a
    #: printed border close to the skin's colour keeps the blob off the rim itself
    #: (board bench seed 1, frame 76).
    hand_entry_reach_mm: float = 8.0
    #: With a hand seen, its blobs within this distance (mm) of one another, down to
    #: ``hand_part_mm2``, are one hand: towers read under it and printed cells cut it
    #: into pieces (Spexxx's small cells), and the fields between them are hidden too.
    hand_group_mm: float = 20.0
    hand_part_mm2: float = 50.0
    #: Fields within this distance of a hand blob are hidden too (shadow, arm edges).
    hand_margin_mm: float = 8.0
    #: A hand's fingers beyond its hull, over a board colour close to the skin's: plain
    #: board within ``finger_reach_mm`` of the grown hull, in one piece with it, whose
    #: chroma (a, b) lies over ``finger_print_distance`` from the print's and within
    #: ``finger_skin_ratio`` times that of the hand's (board bench seed 1, photos: 12 -> 5
    #: covered fields reported, 5 more visible ones hidden; not the board washed by a lamp).
    #: ``finger_reach_mm`` 0: off.
    finger_reach_mm: float = 40.0
    finger_print_distance: float = 6.0
    finger_skin_ratio: float = 0.5
    #: A hand that hides fields points its fingertips away from where it crosses the
    #: board's rim (its hidden area within ``fingertip_entry_mm`` of the rim): beyond the
    #: area's far end, within ``fingertip_reach_mm`` along that line, plain board over
    #: ``fingertip_distance`` from the print, in pieces over ``fingertip_min_area_mm2``
    #: after an opening of ``fingertip_open_mm`` and touching the area, is its fingers
    #: too (a pale hand whose hull is its sleeve or palm: Cuatro, tuning seeds 5, 6, 7).
    #: Only on a frame flagged anyway. ``fingertip_reach_mm`` 0: off.
    fingertip_reach_mm: float = 60.0
    fingertip_entry_mm: float = 15.0
    fingertip_distance: float = 5.0
    fingertip_open_mm: float = 3.0
    fingertip_min_area_mm2: float = 150.0
    #: On a still photo, a piece read whose top face lies farther than this from every
    #: player's colour at any light level (``ColourClasses.player_distance``) may be,
    #: next to a hand found, that hand's skin read as a piece (Spexxx's small cells). Of
    #: the pieces read in frames flagged for a hand (board bench seed 1, 200 Spexxx
    #: frames): 150 of the 167 under the hand that its hull missed, 190 of 3153 outside.
    hand_piece_misfit: float = 16.0
    #: ... when its top face's chroma (a, b) lies within ``hand_piece_skin_distance`` of
    #: at least ``hand_piece_skin_share`` of the hand's foreign pixels: a colour cast
    #: moves real pieces off their player's colour too, but not onto the skin's.
    hand_piece_skin_distance: float = 8.0
    hand_piece_skin_share: float = 0.1
    #: On a photo with no hand found by colour, a group of such pieces (the board washed by
    #: a lamp left out) is a hand read as pieces when it is of hand size
    #: (``hand_min_area_mm2``) and holds ``hand_piece_count`` pieces, reaches in as the
    #: faint cue wants (``faint_hand_entry_mm`` of broken edge within
    #: ``hand_entry_reach_mm``, ``faint_hand_reach_mm`` deep) and the plain board within
    #: ``hand_piece_ring_mm`` of it lies off the print, its median, over
    #: ``hand_piece_ring_ratio`` times the frame's: a hand covers that board too. Board
    #: bench seed 1: the three hands found this way 1.54-2.39, towers a cast moved off
    #: their colour 0.97 (two pieces) and 2.01 (one tall tower, its side in the ring).
    hand_piece_count: int = 3
    hand_piece_ring_mm: float = 4.0
    hand_piece_ring_ratio: float = 1.25
    #: An arm reaching in breaks the board's outer edge: across the rim, every mm along
    #: it, the colour over this range outside the edge (mm, the table) is compared with
    #: the range inside (the printed rim); where that contrast falls under
    #: ``rim_break_ratio`` of its median round the board, something lies across the edge.
    rim_outside_mm: tuple[float, float] = (2.0, 8.0)
    rim_inside_mm: tuple[float, float] = (1.5, 6.0)
    rim_break_ratio: float = 0.3
    rim_lightness_weight: float = 0.5
    #: A hand close to the board's colour (a pale hand on the pale Mühle board, 10-20 from
    #: the print where ``hand_board_distance`` wants 20) is a blob farther than
    #: ``faint_hand_distance`` from the print, and than ``faint_hand_level_ratio`` times
    #: the frame's median over plain board (lamps and casts raise that), which holds
    #: ``faint_hand_core_mm2`` farther than ``faint_hand_core_distance`` and meets a
    #: broken edge over ``faint_hand_entry_mm`` of the rim (within ``faint_hand_depth_mm``
    #: inside it): a lamp's gradient or a cast reaches the rim where its edge is intact.
    faint_hand_distance: float = 8.0
    faint_hand_level_ratio: float = 2.0
    faint_hand_core_distance: float = 14.0
    faint_hand_core_mm2: float = 300.0
    faint_hand_entry_mm: float = 10.0
    faint_hand_depth_mm: float = 9.0
    #: ... and that blob reaches farther than ``faint_hand_reach_mm`` inside the board's
    #: edge: a card lying across a corner (over its marker) breaks the edge and shows a
    #: little off the print there, 11-15 mm deep; hands on photos reached 25 mm and more
    #: (board bench seed 1 frames 0-599: two cards and fingertips hiding no field, 18 mm,
    #: no longer flagged; no hand lost). 0: off.
    faint_hand_reach_mm: float = 20.0
    #: ... within ``faint_hand_reach_near_mm`` of the broken stretch of edge it meets: an
    #: arm goes on into the board where it crosses the edge. A board placed a little off
    #: its print from three markers shows its printed border as a band off the print all
    #: round, which a card across one corner's edge joins to every deep patch of the board
    #: (2026-11-28, eighth session: board bench seeds 1, 5, 6, 7, 5 of 35 false flags on a
    #: photo gone, every hand frame the same at 70; 30 and 45 left two more fields of a
    #: Spexxx hand reported). 0: anywhere.
    faint_hand_reach_near_mm: float = 70.0
    #: ... and, where no other cue found a hand, is still one where each pixel is judged
    #: against every printed colour within ``faint_hand_shift_mm`` of it, the towers
    #: grown by as much: a board placed a few mm off its print (three markers, a card
    #: over the fourth) shows its border, the gaps between fields and the towers' rims
    #: off the print, a hand is off every print near it (2026-11-28, eleventh session:
    #: tuning seeds 1, 5, 6, 7, photo false flags 26 -> 22 of 1850, no hand frame's flag
    #: nor covered field reported changed). 0: off.
    faint_hand_shift_mm: float = 4.0
    #: ... or holds ``faint_hand_wide_mm2`` in one piece (no farther than
    #: ``hand_board_distance``) whose mismatch with the print, capped at
    #: ``faint_hand_core_distance`` and averaged over ``faint_hand_wide_mm`` of plain board,
    #: lies over ``faint_hand_wide_ratio`` times the frame's median for that printed colour:
    #: a pale arm on the tan Mühle board sits 9-14 from the print all over (the board's
    #: own median 6.6), short of the core (board bench seed 1 frames 0-299, photos: 3 more
    #: of 61 hands, 1 more of 239 false flags, a hand in view hiding no field; 8-14 mm and
    #: 500-1200 mm2 flag the same, 1.3 adds a card across the edge). 0: off.
    faint_hand_wide_mm: float = 10.0
    faint_hand_wide_ratio: float = 1.5
    faint_hand_wide_mm2: float = 1200.0
    #: Share of the averaging window that must be plain board for the average to count.
    faint_hand_wide_share: float = 0.3
    #: On a photo of a board with printed lines (Mühle), an arm hides them: where the
    #: lightness's spread over ``lines_lost_window_mm`` (the most within
    #: ``lines_lost_shift_mm``: the pose is a few px off) falls under ``lines_lost_ratio``
    #: times its median ratio to the print's (where the print's is over
    #: ``lines_lost_contrast`` and no tower stands near), the lines are lost. Such
    #: stretches within ``lines_lost_group_mm`` of one another (the lines lie 45 mm apart)
    #: are an arm when they hold ``hand_min_area_mm2``, reach in as the faint cue wants
    #: and meet its broken edge within ``lines_lost_entry_mm`` (the outermost line lies
    #: 25 mm inside the edge), unless over ``lines_lost_glare_share`` of them is the board
    #: washed by a lamp (board bench seed 1: 3 more of 131 hands on photos, no false flag
    #: more). ``lines_lost_window_mm`` 0: off.
    lines_lost_window_mm: float = 8.0
    lines_lost_contrast: float = 10.0
    lines_lost_shift_mm: float = 3.0
    lines_lost_ratio: float = 0.3
    lines_lost_group_mm: float = 45.0
    lines_lost_entry_mm: float = 15.0
    lines_lost_glare_share: float = 0.5
    #: On a photo of a board with a symbol printed in each field (Cuatro), a hand hides
    #: them too: a field judged (its ``symbols_lost_box_mm`` box round the centre, the
    #: symbol's, less than ``hidden_field_fraction`` under a tower) whose lightness in the
    #: smoothed image lies less than ``symbols_lost_ratio`` times the frame's median of
    #: that contrast above its ``symbols_lost_percentile`` (the ink's) has lost its symbol,
    #: unless over ``lines_lost_glare_share`` of the box is the board washed by a lamp.
    #: Lost symbols within ``lines_lost_group_mm`` of one another are a hand when
    #: ``symbols_lost_fields`` of them meet the faint cue's broken edge, or the hull of a
    #: hand the strict, faint or lost-lines cue found (a sleeve across the edge), within
    #: ``symbols_lost_entry_mm`` (the outermost symbols lie 20-28 mm inside the edge).
    #: Board bench tuning seeds 1, 5, 6, 7, photos: Cuatro hands flagged 122 -> 126 of
    #: 128, covered fields reported 74 -> 29, no false flag more. ``symbols_lost_ratio``
    #: 0: off.
    symbols_lost_box_mm: tuple[float, float] = (30.0, 14.0)
    symbols_lost_percentile: float = 1.0
    symbols_lost_ratio: float = 0.3
    symbols_lost_entry_mm: float = 40.0
    symbols_lost_fields: int = 3
    #: On a photo, a pale hand on a pale board (Cuatro's cream) lies as near the print
    #: as the board's own scatter, but its chroma (a, b) is the arm's where it crosses
    #: the board's broken edge (``rim_entry``): that arm's chroma (its entry pixels over
    #: ``entry_skin_print_distance`` from the print's, as many as ``faint_hand_entry_mm``
    #: gives) is sampled, and plain board over ``entry_skin_print_distance`` from the
    #: print's and within ``entry_skin_ratio`` times that of the arm's, grouped as the
    #: strict cue's blobs, is the hand where it holds ``hand_min_area_mm2``, meets that
    #: edge, reaches in as the faint cue wants and fills ``entry_skin_fill`` of the plain
    #: board in its hull (tuning seeds 1, 5, 6, 7, photos: covered fields reported
    #: 273 -> 194 of 9851, 76 more visible ones hidden; the board tinted by a cast or lamp
    #: fills 0.21-0.43 of its hull, hands 0.35-0.94). ``entry_skin_ratio`` 0: off.
    entry_skin_print_distance: float = 6.0
    entry_skin_ratio: float = 0.5
    entry_skin_fill: float = 0.5

    # --- occlusion seen as change (a tracker that has seen the board clear) -------------
    #: Smoothed Lab distance from the clear view above which a board pixel has changed:
    #: well above sensor noise and JPEG blocks after smoothing, below most hands.
    change_distance: float = 12.0
    #: How far (mm) the rectified print may seem to move between frames (homography
    #: jitter): a pixel changes only beyond the colours of the clear view this near it.
    change_shift_mm: float = 1.5
    #: A piece set down changes the board this far (mm) around its tower too: its shadow.
    piece_shadow_mm: float = 12.0
    #: Weight of lightness in that distance: a hand's shadow changes mostly lightness.
    change_lightness_weight: float = 0.5
    #: Changed area (mm^2) beyond the towers, in one blob, that makes a hand: a piece
    #: set down changes only its own spot, an arm far more than one field.
    change_min_area_mm2: float = 300.0
    #: A blob of change over this many fields is a hand too, even on towers: a move
    #: changes two fields, a tall tower's silhouette reaches over one more ...
    change_hand_fields: int = 4
    #: ... if it is also this long (mm): one Spexxx stone's change touches four 16 mm
    #: cells, but a piece with its shadow, even a tall tower's silhouette, spans less.
    change_hand_span_mm: float = 75.0
    #: A blob reaching to within ``change_rim_mm`` of the board's rim needs only this
    #: much change beyond the towers (mm^2): fingers coming in over the edge, the arm
    #: over the printed margin (often close to skin in colour).
    change_rim_area_mm2: float = 100.0
    change_rim_mm: float = 15.0
    #: With a hand seen, smaller blobs of change down to this (mm^2) are its parts too:
    #: fingers that look like the fields under them split off fingertips.
    change_part_mm2: float = 20.0
    #: ... and, with a hand seen, blobs of change within this distance (mm) of it, down to
    #: ``change_part_mm2`` and towers read as gone included, are one hand whose hull hides
    #: the fields between: a pale arm on a pale board changes it at its edges and over the
    #: towers it covers only (board bench seed 1 frames 0-299, live: 10 of 894 covered
    #: fields reported -> 5 at 12 mm, 1 at 20, 0 at 30 for 42, 65, 131 more visible fields
    #: hidden). Without a hand, such a group covering ``change_hand_fields`` fields over
    #: ``change_hand_span_mm`` is one (a pale arm whose towers read as gone: seed 1 frame
    #: 341). 0: each blob's hull alone, and no group a hand.
    change_group_mm: float = 20.0
    #: Change alone that is a shadow (darker than the clear view in
    #: ``change_shadow_darker_share`` of it, its ``change_shadow_percentile`` within
    #: ``change_shadow_distance``) makes a frame occluded only where something lies across
    #: the board's edge (``rim_break_ratio``) over ``change_entry_mm``: a hand's shadow
    #: from beyond the board breaks no edge (board bench seed 1 live: 0 mm in frames 82 and
    #: 112, 90th percentiles 19-22; hands broke 38 mm and more; a red card laid on the board:
    #: 113). Its fields are then doubtful, not hidden.
    change_entry_mm: float = 10.0
    change_shadow_darker_share: float = 0.95
    change_shadow_percentile: float = 90.0
    change_shadow_distance: float = 30.0
    #: The board counts as still in a frame whose change from the frame before covers
    #: less than this (mm^2) ...
    still_change_mm2: float = 100.0
    #: ... and its clear view is refreshed once it has been still this many frames with
    #: no hand seen (a piece set down becomes part of the clear board) ...
    clear_view_refresh_frames: int = 20
    #: ... or this many with only a change seen: a lamp switched on or a card left on
    #: the board must not keep the board occluded for good; a resting hand stirs sooner.
    clear_view_accept_frames: int = 150
    #: A single field joins the clear view once it has held still, in view, this many
    #: frames with no hand seen: more than the referee's stability filter needs (5), so a
    #: piece the reader missed still shows as a change when the referee looks.
    clear_field_refresh_frames: int = 6
    #: Fields whose change from the clear view has held perfectly still this many frames
    #: (moving less than ``static_field_fraction`` of their area between frames) join the
    #: clear view on their own: a piece the reader missed, not a hand, which never holds
    #: that still; meanwhile dice and hands elsewhere keep the whole board from being still.
    clear_view_static_frames: int = 30
    static_field_fraction: float = 0.02
    #: A field over this share of whose area changed since the clear view, with no
    #: change of reading to explain it, looks changed (a white stone read as the silver
    #: cell under it changes 12-45 % of a Spexxx cell, untouched fields under 5 %) ...
    changed_look_fraction: float = 0.08
    #: ... and its reading's confidence is at most this.
    changed_look_confidence: float = 0.1
    #: A blob of change this much of which lies where one field's tallest tower could
    #: stand is that tower changed unseen, not a hand (see occlusion._tower_changes).
    tower_change_share: float = 0.95
    #: Pixels this close outside every field's square and tower silhouette count for the
    #: nearest field there: a piece's shadow and rim (Mühle seed 126: a white stone the
    #: reader lost changed its point with 6 % of the change just outside).
    tower_change_margin_mm: float = 3.0
    #: A silhouette that ends at a run of non-piece colour at most this long (mm) and
    #: goes on past it in piece colour for at least a top face's run
    #: (``neighbour_run_ratio``) is measured to that run's end too, and read so where it
    #: fits a height better (``whole_tower_margin``): a seam between a tall tower's
    #: pieces shaded or lit into the board's colour broke five-high towers after their
    #: lowest piece, reading them one high (board bench tuning seeds 1 and 5; 2.5 and 4
    #: read the same). 0 leaves them broken.
    broken_gap_mm: float = 2.5

    @classmethod
    def load(cls, path: str | Path) -> VisionConfig:
        """Read settings from a .json or .toml file; unknown keys are an error."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"cannot read vision config {path}: {exc.strerror}") from None
        try:
            data = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
        except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
            raise ConfigError(f"{path}: not valid {path.suffix[1:] or 'JSON'}: {exc}") from None
        return cls.from_dict(data, str(path))

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "<config>") -> VisionConfig:
        known = {f.name: f for f in fields(cls)}
        unknown = sorted(set(data) - set(known))
        if unknown:
            raise ConfigError(f"{source}: unknown vision settings {', '.join(unknown)}")
        values = {k: _tuples(v) for k, v in data.items()}
        return replace(cls(), **values)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _tuples(value: Any) -> Any:
    """JSON and TOML arrays as (nested) tuples, as the settings' defaults are."""
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value
