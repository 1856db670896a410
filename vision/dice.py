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
import statistics
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields, replace
from functools import lru_cache, partial
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np

from vision.dice_faces import SLACK, FaceModel, distances, faint_faces, load_model, read_faces
from vision.pose import estimate_focal, focal_from_fov, fov_from_focal, pose_from_homography

PRESETS = Path(__file__).with_name("dice_configs")
Box = tuple[int, int, int, int]  # x0, y0, x1, y1


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
    # top view, 2s and 3s: the even body is followed from the face's centre to this many pip
    # radii short of each pip's centre: a blurred pip's core is not filled by the closing
    body_pip_clearance: float = 0.0
    link_on_closing: bool = False  # follow lines on the pip-filled image (for tiny dice)
    pip_clearance: float = 0.8  # pip diameters round a pip left out when following a line
    pip_size_ratio: float = 1.6  # largest / smallest pip diameter within one face
    # top view: ... within a face of many_pips or more fitted to pips no face of alike pips
    # takes, read at confidence 0 past pip_size_ratio: a blurred 6's columns run into bars
    # and are cut into pips of unlike size, and a 5's or 6's pattern is hard to make of two
    # faces' pips (a 4's corners are not: a dim 5 was read as a 4 of pips 1.9 x unlike; and
    # taken first, a 6 of a sharp 5's pips and a pip beside it took that 5); 0: pip_size_ratio
    many_pip_size_ratio: float = 0.0
    many_pips: int = 5
    pattern_tolerance: float = 0.28  # of the face's pip spread, for the die-pattern check
    border_margin: float = 1.5  # pip diameters: a face this close to the frame edge is cut
    single_ring: float = 2.6  # pip radii: where a lone pip's body ring is sampled
    single_ring_spread: float = 35.0  # max grey spread of that ring for a lone pip
    single_min_area_px: float = 12.0  # a lone pip (a one) is the largest pip on a die
    single_roundness: float = 0.8
    # top view: least mean black-hat contrast of a 1's pip; 0: min_contrast is enough
    single_min_contrast: float = 0.0
    # ... or of a dim 1's pip with no other pip round it: no black-hat blob over
    # faint_contrast within dim_one_reach lattice pitches of it (a dim 2-6's other pips
    # there are fainter still); such a 1 is read at most at dim_one_confidence. 0: off
    dim_one_contrast: float = 0.0
    dim_one_reach: float = 3.0
    dim_one_confidence: float = 0.4
    # a lone pip stretched towards the point under the lens is a round pip blurred by the
    # frame, whose pixels cover more table that way; 0 keeps single_roundness for it too
    single_radial_roundness: float = 0.0
    radial_slack_deg: float = 20.0  # how far its long axis may turn from that direction
    # ... and only with no other pip this share of a die edge round it farther from the
    # lens: a side face far from the lens is stretched that way too, and its pips have
    # their top face's (or their own face's) pips beyond them
    radial_clear_share: float = 0.6
    # a far 1's pip stretched a little more off that direction (up to radial_wide_slack_deg;
    # 0 = none) is held to radial_wide_roundness: a side pip's is stretched more still
    radial_wide_slack_deg: float = 0.0
    radial_wide_roundness: float = 0.0
    polarities: tuple[str, ...] = ("dark", "light")
    side_distance: float = 6.0  # pip diameters between a side face and its top face
    side_roundness_gap: float = 0.05
    side_size_ratio: float = 0.8
    min_unreadable_pips: int = 3  # fewer pips out of a die pattern are dropped as not a die
    side_score_ratio: float = 0.85  # side pips' roundness x size below this share of the top's
    scale: float = 1.0  # enlarge the searched area first when dice are only ~20 px across
    # Learned face check for close-up photos (`vision.dice_faces`); "" keeps the hand rules:
    face_model: str = ""  # file in vision/dice_configs/ (bench/train_dice_faces.py writes it)
    face_crop: float = 8.0  # side of the crop round a proposed face, in pip diameters
    face_pair_min: float = 2.5  # pip diameters between two pips whose midpoint may be a face
    face_pair_max: float = 5.5  # centre (a 2's, 4's or 6's diagonal, foreshortened or not)
    face_min_score: float = 0.5  # least probability of a value for a face to be kept
    face_separation: float = 3.0  # pip diameters: proposals this near a kept face are its die
    face_half: float = 2.2  # pip diameters from a face's centre to the edge of its pips
    # a 1 whose lattice only one frame edge cuts, its pip this many pip diameters inside
    # the frame, is read: a cut 3's or 5's corner pip would show on the far side; 0: off
    face_one_clearance: float = 0.0
    # blurred dice: pips over this black-hat contrast (under min_contrast), at least
    # face_faint_roundness round, are read again where no face lies within side_distance pip
    # diameters; kept only as 2-6s with as many such pips in the lattice; 0: off
    face_faint_contrast: float = 0.0
    face_faint_roundness: float = 0.45
    face_faint_min_area_px: float = 4.0  # a blurred pip is no smaller than a sharp one
    # blurred 6s whose columns run into bars (no dip left between their pips): two alike,
    # parallel black-hat blobs over face_faint_contrast (the faint search's blobs), side by
    # side on one body where no face lies within side_distance pip diameters, are a 6's
    # columns of three pips each, their pitch from the columns' separation: a standard
    # die's 6 spans its separation
    # along each column (face_bar_span, of that separation, the bar's length less its width:
    # an oblique view foreshortens either way, blur adds to it; a 4's column runs together
    # only for blur spanning its gap, leaving it about two separations less a pip long), and
    # its pips are about 0.3-0.4 of it wide (face_bar_width); a 6's column has its middle
    # pip where a 4's has its gap: the black-hat at a bar's middle is at least
    # face_bar_middle of its darkest along it; read 6 at face_bar_confidence. The top view
    # (`_table_bar_sixes`) looks at the black-hat over faint_contrast. False: off
    face_bars: bool = False
    face_bar_span: tuple[float, float] = (0.8, 1.35)
    face_bar_width: tuple[float, float] = (0.3, 0.65)
    face_bar_middle: float = 0.7
    face_bar_turn_deg: float = 15.0  # most the two columns' directions differ by
    face_bar_shift: float = 0.35  # separations the columns' middles lie apart along them, at most
    face_bar_confidence: float = 0.4
    # top view (`_table_bar_sixes`): least black-hat along a bar between its end pips, as a
    # share of its most (a sharp side face's or leaning top's squashed pips dip between:
    # the lower bar of a leaning 6 0.28-0.57 on the tuning seeds, of blurred 6s 0.61-0.86,
    # but one 0.50); 0: any
    face_bar_even: float = 0.0
    # ... and unread pips of the bars' colour within this many column separations of their
    # middle (a die's half diagonal is 1.36) on the columns, within lattice_tolerance
    # pitches of a bar's axis: a leaning die's top pips beside its side's 6 are not
    face_bar_die_reach: float = 1.5
    # Rectified top view (used when the dice area's corners on the table are known in mm):
    rectified_px_per_mm: float = 3.0  # every die is ~48 px across there, whatever the pose
    die_min_mm: float = 13.0  # edge lengths of the dice the reader accepts
    die_max_mm: float = 19.0
    pip_pitch_share: float = 0.26  # spacing of the 3x3 pip lattice / die edge
    pip_share: float = 0.156  # pip diameter / die edge
    pip_min_ratio: float = 0.5  # pip diameters accepted, as multiples of the nominal pip
    pip_max_ratio: float = 2.0  # (a lone one is often printed larger)
    lattice_tolerance: float = 0.25  # of the pitch: how far a pip may sit from its lattice point
    # a lone pip's fit (a 1, whose turn nothing shows) leaves no other pip within the half
    # face of it every turn covers, a disc, rather than in the unturned square, whose corners
    # reach a side pip of its own die; False: the square
    lone_face_disc: bool = False
    # a lone pip's fit has no pitch of its own (the nominal one): once the throw's is known, a
    # 1 takes it, so its die's edge, where it stands and where it shows its sides are those
    # of the throw's dice (a 1 of a large die was taken for a small one: its side face, beyond
    # where such a die shows a side, was read as a 2 and the 1 dropped under that 2's box);
    # False: the nominal pitch
    one_at_throw_pitch: bool = False
    # the throw's pitch and pip size (`throw_sizes`) are measured on the faces a first
    # `drop_side_faces` keeps: a side face's 5 measures between the top faces and a side's
    # 2, and won the vote; False: on every face fitted
    throw_from_tops: bool = False
    min_squareness: float = 0.94  # short / long axis of a face's lattice; a leaning die's is less
    pitch_agreement: float = 0.08  # a face's pitch may differ this much from the 4s, 5s and 6s'
    # a 2's or 3's pitch off the 4s/5s/6s' by more than this share is a tilted top face (a
    # leaning die's diagonal is foreshortened or nearer the lens): unreadable; 0: read it
    lean_pitch: float = 0.0
    # ... only when its pips are this alike: an unlike pip (run into a neighbour's blur, or
    # clipped) has its centre shifted, and the pitch with it
    lean_pip_ratio: float = 1.06
    # a read 1 standing over another lone pip that would be a 1, at least side_pip_share as
    # strong (so no side pip of its die; a side cannot show 1 anyway): one is a leaning
    # 2-6's pip, its diagonal foreshortened under any fit: unreadable
    one_over_one: bool = False
    # a read 1 with a pip within unread_beside die edges that no read face takes, at least
    # side_pip_share as strong (so no side pip of its die) and single_roundness round, and
    # no side pip towards the lens of any read die (`_side_pip_of`): that pip is on a face
    # seen from above, so the 1 is a pip of a leaning 2-6 whose tilted lattice no fit
    # takes: unreadable
    one_beside_pips: bool = False
    # ... a pip within this many die edges of a side pip of the 1's own die, any turn (0:
    # side_pip_reach): at the far side of the referee's area the 1's own side faces the lens
    # steeply and its pips run into blobs whose centres lie off that side's lattice
    one_own_side_reach: float = 0.0
    # ... a pip under this share of the 1's pip's contrast (0: off): a leaning die's pips lie
    # on one face, lit alike (dice bench, tuning: 0.95-1.28); the shade in the gap between a
    # near 1 and the die behind it is a wide faint blob (referee's table: 0.54-0.60)
    one_beside_contrast: float = 0.0
    # ... nor a pip on the top face of a read die of the other pip colour: that die's body
    # (a black or blue die's corner among dark pips; a leaning die's pips lie off every top)
    one_beside_other_tops: bool = False
    pip_agreement: float = 0.75  # a 1-3's pips are at least this share of the 4s/5s/6s' pips
    # ... a 1's pip this share (0: ``pip_agreement``): a faint pip measures small, and a 1
    # at the area's far side, farthest from the lens, is often the faintest of its throw
    one_pip_agreement: float = 0.0
    side_pip_share: float = 0.7  # diameter x contrast of a side pip / its die's top 1 at most
    # a read face under this share of a die's strength (diameter x contrast), its pips all on
    # that die's sides as the top view shows them, is a side face; 0: off
    side_face_share: float = 0.0
    rectified_roundness: float = 0.7  # top-face pips are round in the top view; sides are not
    empty_cell_contrast: float = 0.6  # share of min_contrast an empty lattice cell must stay under
    # ... or under this share of the face's mean pip contrast, if higher: the blur round
    # large, dark pips reaches the empty cells between them; 0 leaves the limit above alone
    empty_cell_share: float = 0.0
    split_levels: tuple[float, ...] = ()  # shares of a merged blob's contrast to split it at
    # ... unless its box is longer than this many die diagonals (rectified view): a board
    # line or marker: its splits cost ~10 % of a full read for no die; 0 splits every blob
    split_max_diagonals: float = 0.0
    split_max_px: float = 0.0  # the same in view pixels, set for the top view; 0: no limit
    pip_row_pitch_px: float = 0.0  # lattice pitch, set for the top view: rows of pips run
    # together into a bar are cut into pips at it; 0 leaves them to split_levels alone
    cut_pip_rows: bool = False  # part bars of 2-3 pips run together (`_pip_row`)
    pip_row_spacing: tuple[float, float] = (0.7, 1.7)  # pip spacings in such a bar, in pitches
    side_overlap: float = 0.8  # die edges: two faces whose dice would stand closer are one die
    unread_beside: float = 1.2  # die edges: unread pips this near a read face are its sides
    # die edges: an unread face this near where a read die shows a side towards the lens,
    # under side_face_share of that die's strength, is that side, not an unread die: a far
    # die's side shows beyond unread_beside of its top (referee's table: 1.23-1.41 edges);
    # an unread die beside it measures as strong as a top (0.76); 0: off
    unread_side_match: float = 0.0
    # an unread face whose pips are under dotted_row_strength of the read faces' median
    # strength, with the black-hat over dotted_row_contrast on dotted_row_share of the line
    # through its farthest pips for dotted_row_reach die edges past both ends, is a row of
    # a dotted line on the table, no die: a die's pips end at its edge (referee's table,
    # tuning: such rows 0.14-0.34 as strong, the hat on >= 0.58 past each end; unread dice
    # 0.33-1.02 strong, on <= 0.27 past one end, but one among other dice, 0.59 strong); 0: off
    dotted_row_reach: float = 0.0
    dotted_row_strength: float = 0.5
    dotted_row_contrast: float = 20.0
    dotted_row_share: float = 0.5
    # ... and so is a 2 or 3 read as weak whose row goes on so (the faint search reads three
    # dots of such a line as a sure 3: referee's table, tuning); False: unread faces only
    dotted_read_rows: bool = False
    side_match: float = 0.35  # die edges: a face this near where a die shows a side is that side
    # ... if it has one pip, or is under this share of that die's strength (diameter x
    # contrast): a side of 2+ pips is foreshortened and shaded (0.49-0.65 on the referee's
    # table), a die standing in front of it, hiding it, is not (1.05-1.15: a 6 before a 4,
    # a 3 before a 5); a lone pip is not held to it (side pips of 1s measure up to 1.2); 0: any
    side_match_share: float = 0.0
    # ... a lone pip too, if its own die shows a pip within this many die edges of a side
    # pip towards the lens (any turn; `_side_pip_of`): a 1 standing in front of a die,
    # hiding that die's side, shows its own sides there, as strong as the die's top
    # (0.90-1.10 on the referee's table); a side's pip has only the table in front; 0: off
    front_one_reach: float = 0.0
    # ... that pip lying at least this many die edges from the lone pip towards the lens
    # (its own sides: 0.72-1.14 at the referee's far side): a pip of the same side of a
    # die behind, beside the lone pip across the view (0.09), fits a turn of a side too
    front_one_ahead: float = 0.0
    # the faint search counts a pip read on a face of 2+ before the throw's sizes were
    # known, on no face read after (`_left_off`), as one it found anew: a faint pip
    # measures small just over min_contrast, and a far die's 2 or 3 of such pips fell short
    # of the throw's pip size (``pip_agreement``), measured larger over faint_contrast;
    # False: only pips that search missed
    faint_refit_small: bool = False
    # die edges: a lone pip under side_pip_share of a read face's strength, this near where
    # its die shows a pip on a side towards the lens (any turn, for a 1), is that pip; 0: off
    side_pip_reach: float = 0.0
    default_fov_deg: float = 70.0  # lens field of view when the dice area's shape cannot tell
    fov_min_deg: float = 50.0  # an estimate outside this range is not trusted
    fov_max_deg: float = 90.0
    # Still frames (the referee reads every frame of an area that mostly lies still): the
    # readings of the last frame read in full are kept while no block of still_block_px
    # frame pixels round the area has changed its mean grey by still_change or more since
    # that frame, nor a corner of the area moved still_shift_px; 0 reads every frame anew.
    # A block is small enough that a table preset pip (~3 px, contrast >= 50) split over
    # four blocks still moves one by more than still_change
    still_change: float = 0.0
    still_block_px: int = 4
    still_shift_px: float = 0.5
    # ... and only once this many full reads of the still area in a row gave the same values:
    # a misread of a frame or two is not kept for the whole rest (with 2, a stray read as a
    # 1 in the two frames after a hand left was kept and counted: throw_counting seed 8009)
    still_reads: int = 3
    # Where to look (rectified top view): frame pixels whose black-hat (dark pips) or top-hat
    # (light pips) reaches locate_contrast mark where pips may be; only the table within
    # locate_margin_mm of a mark is warped to the top view and searched (dice cover a small
    # share of the area). The margin holds a die's lattice round any of its pips and the
    # closing's reach; 0 searches the whole area
    locate_contrast: float = 0.0
    locate_margin_mm: float = 15.0
    # Faint dice (top view): pips of at least this black-hat contrast, under min_contrast,
    # are fitted as faces of their own where no face read from the pips over min_contrast
    # lies; only faces of 2-6 pips read with a value are kept. Blur and dim light take a
    # blurred pip's contrast far under min_contrast; 0: off
    faint_contrast: float = 0.0
    faint_roundness: float = 0.75  # least mean roundness of such a face's pips
    faint_many_roundness: float = 0.0  # ... of a face of many_pips or more; 0: faint_roundness
    # ... their merged blobs split at these shares of their contrast, bars of pips not cut
    # (each split level and the cutting cost as much as the faint search itself)
    faint_split_levels: tuple[float, ...] = (0.5,)
    # ... also where the strong search left only unread pips (a dim die's pips partly found
    # over min_contrast fit no face), if every such pip on the faint face's die (within
    # half an edge of its centre) sits on one of its lattice points (lattice_tolerance)
    faint_over_unread: bool = False
    # A read face of 2+ pips within this many die edges (under side_match) of where another
    # read die, farther from the lens, shows a side towards it - kept by side_match_share as
    # no weaker than that die's face - is read at most at lean_outline_confidence: it may be
    # that die's side, stronger than a lit top whose pips measure faint and small
    # (`_strong_sides`); 0: off
    strong_side_match: float = 0.0
    # side_match and strong_side_match for a read 1's die: a 1 tells no turn (its lattice
    # is taken unturned), so a face of 2+ pips is matched to the sides that die shows turned
    # as the face's lattice, which a side of it shares (referee's table: a far 1's side read
    # as a sure 2 beside it); False: the 1's own, unturned lattice
    one_sides_at_face_turn: bool = False
    # Leaning dice (top view, colour frames): a die leaning on an edge shows its lifted side
    # beside its top face from above. Across the view (at right angles to the way to the
    # point under the lens) a flat die's outline is its top face's, as far from its centre
    # on both sides; a read whose body reaches lean_outline top-face edges farther on one
    # side than on the other, on lean_outline_rays neighbouring rays (5 degrees apart) within
    # lean_outline_window_deg of that right angle, has its confidence cut to
    # lean_outline_confidence: it may be a leaning die read as a value. 0: off
    lean_outline: float = 0.0
    lean_outline_window_deg: float = 15.0
    lean_outline_rays: int = 5
    lean_outline_confidence: float = 0.4
    # ... body pixels: Lab distance to the top face's colour under lean_outline_body_share
    # of that to the table's, lightness weighted by lean_outline_lightness (a die's sides
    # are shaded unlike its top; its shadow is the table's colour, darker)
    lean_outline_body_share: float = 0.7
    lean_outline_lightness: float = 0.75  # CIE L* 0-100, a* and b* about as wide
    # ... the table's colour sampled in this ring round the face's centre (die edges), the
    # top face's (pips mostly between) in this one (top-face edges); each ray followed over
    # lean_outline_span top-face edges, lean_outline_step_deg apart, until lean_outline_gap_px
    # view pixels in a row are off the body; a ray ending within lean_outline_near_body die
    # edges of another read die's outline (a 1's foot and top taken as discs of
    # lean_outline_one_reach die edges) is not judged
    lean_outline_table_ring: tuple[float, float] = (1.3, 1.7)
    lean_outline_top_ring: tuple[float, float] = (0.22, 0.4)
    lean_outline_span: tuple[float, float] = (0.2, 1.25)
    lean_outline_step_deg: float = 5.0
    lean_outline_gap_px: float = 2.0
    lean_outline_near_body: float = 0.1
    lean_outline_one_reach: float = 0.6
    # ... with lean_outline_through, a ray passing through another read die's outline on its
    # way (points lean_outline_near_body die edges apart) is not judged either: the body it
    # follows may be a touching die's of the same colour, running on past that outline
    lean_outline_through: bool = False
    # ... but not through the outline of a die the face may be a side of: lying nearer the
    # point under the lens than that die, within this many of its edges across the way to
    # it (a side read as a die runs on into its own die's body); 0: every outline
    lean_outline_through_side: float = 0.0
    # Leaning 1s (top view, colour frames; the body followed as for lean_outline): a flat
    # 1's top face is a square round its pip, so on the half away from the lens its body
    # reaches as far at each angle as 90 degrees round; a read 1 whose reaches differ by a
    # fitted A cos 2a + B sin 2a of amplitude over lean_square top-face edges (a tilted face
    # is squashed or stretched one way) is capped at lean_outline_confidence. 0: off
    lean_square: float = 0.0
    lean_square_reach: float = 0.95  # rays reaching farther (a neighbour, a shadow) left out
    lean_square_pairs: int = 10  # least number of pairs of rays judged
    lean_square_contrast: float = 20.0  # least Lab distance (as weighted) top to table
    # ... and read 2s and 3s (their face's centre is their lattice's) at lean_square_lattice
    # top-face edges, each ray followed from lean_square_pip_clear pip diameters past the
    # lattice point of any of its pips it crosses (a pip is off the body). 0: off
    lean_square_lattice: float = 0.0
    lean_square_pip_clear: float = 1.15
    # ... a read 1-3 whose amplitude is over lean_square_unreadable top-face edges (flat
    # faces measure under ~0.1, blurred ones up to ~0.27; a leaning die's tilted face
    # 0.12-0.54) is unreadable rather than unsure: its value is no throw's. 0: off
    lean_square_unreadable: float = 0.0
    # ... unless its top is darker than this CIE L* (a black die: its soft shadow, as dark
    # as its body, draws its outline out on the shadow's side, flat or not)
    lean_square_unreadable_lightness: float = 0.0
    # ... a read 2 so found no square (or lopsided, lean_outline) read as a 1 where exactly
    # one of its pips alone is a plausible 1 whose top face round it is a square within
    # lopsided_two_one top-face edges (amplitude as lean_square; flat 1s so read measure
    # 0.01-0.04, a blurred flat 2's pip 0.1): a flat 1 and a pip of a side face beside it
    # fit a 2 whose lattice centre is off its die's. 0: off
    lopsided_two_one: float = 0.0
    # a read 2 whose pips' roundness differ by more than this is read as its rounder pip's
    # 1, capped (`_uneven_twos_as_ones`): a side face's pip beside a flat 1 is
    # foreshortened, a flat 2's two pips are seen alike (tuning: flat 2s read right 0.18 at
    # most but two blurred ones, 0.29 and 0.35; such 1s 0.20-0.34). 0: off
    uneven_two_roundness: float = 0.0
    # ... where both pips are this wide (rectified px; `_uneven_pair`): the 1s so fitted
    # 8.9 px and up, a blurred flat 2 of 5.9-6.7 px pips (speed bench scene 5004) read 1
    uneven_two_min_pip: float = 8.0
    # ... and so is a read 2 whose pips' grounds (`_ground`: the die body round each) differ
    # by more than this many grey levels: a flat 2's pips lie on one lit top, a 1's side
    # pip on a shaded side or in the gap before the die beyond (synthetic table scenes:
    # sure flat 2s 0-10, such 1s read 2 sure 43 and 114; right 2s of the dice bench's hard
    # light up to 26). 0: off
    uneven_two_ground: float = 0.0
    # top view, 2s and 3s whose body dips over edge_drop: closed again with a kernel this
    # many of the face's largest pip diameters wide (`_on_one_body`); 0: off
    body_close_pips: float = 0.0
    # ... only where each line (the 3's middle pip's aside) falls towards its pip by at
    # least this share of the body's spread: every blurred pip has its skirt; a side
    # pip's die edge lies on one line, its top 1's stays on the lit top
    body_close_alike: float = 0.0

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
        for key in ("polarities", "split_levels", "pip_row_spacing", "faint_split_levels",
                    "lean_outline_table_ring", "lean_outline_top_ring", "lean_outline_span",
                    "face_bar_span", "face_bar_width"):
            if key in data:
                data[key] = tuple(data[key])
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
    angle: float = 0.0  # direction of the ellipse's major axis, radians


def read_dice(frame: np.ndarray, region=None, config: DiceConfig | None = None,
              region_mm=None, still: StillReads | None = None) -> list[DieReading]:
    """All dice whose top face shows pips in ``frame`` (BGR or grey), optionally only inside
    ``region``: (x, y, w, h) or a polygon of (x, y) points. With ``region_mm`` (the polygon's
    corners on the table in mm, same order) the area is read in a rectified top view, where
    every die has a known size whatever the camera's pose (`read_dice_rectified`; a reader
    of a stream of frames passes its ``still`` reads)."""
    config = config or DiceConfig()
    _check_image(frame)
    if region_mm is not None:
        return read_dice_rectified(frame, region, region_mm, config, still)
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
    model = _face_model(config)
    for polarity in config.polarities:
        image = grey if polarity == "dark" else 255 - grey
        pips, closed, hat = find_pips(image, mask, config)
        if model is not None:
            faces = read_faces(image, pips, bounds, config, model)
            if config.face_faint_contrast > 0:
                faces += _faint_closeup_faces(image, mask, hat, faces, bounds, config, model)
            readings += [_to_frame(r, x0, y0, config.scale) for r in faces]
            continue
        for face in group_faces(pips, image, closed, hat, config):
            reading = read_face(face, bounds, config)
            if reading is not None:
                readings.append(_to_frame(reading, x0, y0, config.scale))
    return _drop_duplicates(readings)


def _faint_closeup_faces(image: np.ndarray, mask: np.ndarray | None, hat: np.ndarray,
                         read: list[DieReading], bounds: tuple[float, float, float, float],
                         config: DiceConfig, model: FaceModel) -> list[DieReading]:
    """Dice a blur (a shaken camera, a rolling die) leaves with pips under ``min_contrast``
    and stretched out of round: the black-hat's blobs over ``face_faint_contrast``, at least
    ``face_faint_roundness`` round, are read by the face check again (`faint_faces`); with
    ``face_bars``, two of its blobs may be a 6's columns run into bars (`_bar_sixes`)."""
    faint = _faint_closeup_config(config)
    _, binary = cv2.threshold(hat, faint.min_contrast, 255, cv2.THRESH_BINARY)
    if mask is not None:
        binary = cv2.bitwise_and(binary, mask)
    contours = _contours(binary, None)  # found once for both
    found = faint_faces(image, _blobs(binary, hat, faint, contours=contours), read, bounds,
                        faint, model)
    if config.face_bars:
        found += _bar_sixes(image, hat, _bars(contours, config), read + found, bounds, config)
    return found


class _Bar(NamedTuple):
    """A black-hat blob longer than wide (px): its middle, extent along and across, and
    the direction along it (radians)."""

    x: float
    y: float
    length: float
    width: float
    angle: float


def _bar_sixes(image: np.ndarray, hat: np.ndarray, bars: list[_Bar], read: list[DieReading],
               bounds: tuple[float, float, float, float],
               config: DiceConfig) -> list[DieReading]:
    """Blurred 6s whose columns a blur runs into bars, which neither search offers the face
    check (no pip in them): two bars make a 6 (`_six_of_bars`, their middles filled:
    `_filled_middle`, looked at for such pairs only) where no face ``read`` lies within
    ``side_distance`` pip diameters; each bar is taken once, the pairs likest a 6's columns
    first. Read at ``face_bar_confidence``: no learned check looked at them."""
    pairs = sorted((fit, i, j) for i in range(len(bars)) for j in range(i + 1, len(bars))
                   if (fit := _six_of_bars(bars[i], bars[j], image, config)) is not None)
    filled = {k: _filled_middle(bars[k], hat, config) for _, i, j in pairs for k in (i, j)}
    left, top, right, bottom = bounds
    found: list[DieReading] = []
    used: set[int] = set()
    for _, i, j in pairs:
        a, b = bars[i], bars[j]
        x, y, d = (a.x + b.x) / 2, (a.y + b.y) / 2, (a.width + b.width) / 2
        half = config.face_half * d
        inside = left + half <= x <= right - half and top + half <= y <= bottom - half
        if (i in used or j in used or not filled[i] or not filled[j] or not inside
                or any(math.hypot(x - r.centre[0], y - r.centre[1])
                       < config.side_distance * d for r in read + found)):
            continue
        used |= {i, j}
        found.append(DieReading(6, config.face_bar_confidence,
                                (int(round(x - half)), int(round(y - half)),
                                 int(round(2 * half)), int(round(2 * half))), (x, y)))
    return found


def _bars(contours: list[np.ndarray], config: DiceConfig) -> list[_Bar]:
    """The blobs (their outer ``contours``) at least twice as long as wide, as wide as a
    blurred pip may be (``face_faint_min_area_px`` to ``max_pip_area_px``; their least
    rotated box): print and grain make thinner lines."""
    thin = math.sqrt(4 * config.face_faint_min_area_px / math.pi)
    thick = math.sqrt(4 * config.max_pip_area_px / math.pi)
    bars = []
    for contour in contours:
        _, _, w, h = cv2.boundingRect(contour)
        if max(w, h) < 2 * thin:
            continue
        (x, y), (u, v), turn = cv2.minAreaRect(contour)
        length, width = max(u, v) + 1, min(u, v) + 1  # the contour runs through edge pixels
        if thin <= width <= thick and length >= 2 * width:
            along = math.radians(turn if u >= v else turn + 90)
            bars.append(_Bar(x, y, length, width, along))
    return bars


def _filled_middle(bar: _Bar, hat: np.ndarray, config: DiceConfig) -> bool:
    """The black-hat along the bar's axis, within a quarter of its width of its middle, is
    on average at least ``face_bar_middle`` of its most along it: a 6's column has its
    middle pip there, a 4's (or a 2's diagonal) its gap."""
    steps = np.arange(-bar.length / 2, bar.length / 2 + 1e-9)
    h, w = hat.shape
    xs = _pixels(bar.x + steps * math.cos(bar.angle), 0, w - 1)
    ys = _pixels(bar.y + steps * math.sin(bar.angle), 0, h - 1)
    values = hat[ys, xs].astype(np.float64)
    middle = values[np.abs(steps) <= bar.width / 4]
    return len(middle) > 0 and middle.mean() >= config.face_bar_middle * values.max()


def _six_of_bars(a: _Bar, b: _Bar, image: np.ndarray, config: DiceConfig) -> float | None:
    """How far two bars are from a 6's columns (0: exactly; None: no 6): parallel within
    ``face_bar_turn_deg``, side by side (middles ``face_bar_shift`` separations apart along
    them at most), each ``face_bar_width`` and, its length less its width,
    ``face_bar_span`` of their separation, on one body (`_same_body`)."""
    turn = (a.angle - b.angle + math.pi / 2) % math.pi - math.pi / 2
    if abs(turn) > math.radians(config.face_bar_turn_deg):
        return None
    angle = a.angle - turn / 2
    dx, dy = b.x - a.x, b.y - a.y
    along = abs(dx * math.cos(angle) + dy * math.sin(angle))
    apart = abs(-dx * math.sin(angle) + dy * math.cos(angle))
    if apart <= 0 or along > config.face_bar_shift * apart:
        return None
    spans = [(bar.length - bar.width) / apart for bar in (a, b)]
    widths = [bar.width / apart for bar in (a, b)]
    lo, hi = config.face_bar_span
    if not all(lo <= s <= hi for s in spans) or not all(
            config.face_bar_width[0] <= w <= config.face_bar_width[1] for w in widths):
        return None
    pa, pb = (Pip(bar.x, bar.y, bar.width, 1.0, 0.0) for bar in (a, b))
    if not _same_body(pa, pb, image, config):
        return None
    return abs(spans[0] - 1) + abs(spans[1] - 1) + along / apart


@lru_cache(maxsize=4)
def _faint_closeup_config(config: DiceConfig) -> DiceConfig:
    """The close-up faint search's pip config (made once per config)."""
    return replace(config, min_contrast=config.face_faint_contrast,
                   min_pip_roundness=config.face_faint_roundness,
                   min_pip_area_px=config.face_faint_min_area_px)


def _face_model(config: DiceConfig) -> FaceModel | None:
    """The learned face check named by the config (a file in dice_configs/), or None."""
    if not config.face_model:
        return None
    path = PRESETS / config.face_model
    if not path.is_file():
        raise DiceInputError(f"the dice face model {path} is missing")
    return load_model(str(path))


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


def find_pips(image: np.ndarray, mask: np.ndarray | None, config: DiceConfig,
              windows: list[Box] | None = None, in_place: bool = False, hat_name: str = "",
              ) -> tuple[list[Pip], np.ndarray, np.ndarray]:
    """Small round blobs darker than the body around them (in ``image``; invert for light
    pips). Also returns the closing (pips filled by the body colour) and the black-hat
    (how much darker than the body each pixel is). With ``windows`` (x0, y0, x1, y1, not
    overlapping) only those are searched: elsewhere the closing is the image itself, so no
    pip is found; with ``in_place`` as well the closing is written over ``image`` (the
    caller needs it no more), saving a copy of the whole view, and with ``hat_name`` the
    black-hat is made in that work image (`_work_image`), kept for the thread's next read."""
    k = config.hat_kernel_px
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))
    if windows is None:
        closed = cv2.morphologyEx(image, cv2.MORPH_CLOSE, kernel)
        hat = cv2.subtract(closed, image)
        return _hat_blobs(hat, mask, config), closed, hat
    # the black-hat is 0 outside the windows (the closing is the image there): every
    # whole-image step is done in the windows only (writing each new page of a whole-view
    # array costs more than the pixel work); the thresholded image is looked at in the
    # windows only (`_contours`, `_blobs`), so it is not zeroed elsewhere (~0.2 ms). Each
    # window's results are written into the views' windows (``dst``), not copied there.
    closed = image if in_place else image.copy()
    if hat_name:
        hat = _work_image(hat_name, image.shape)
        hat.fill(0)
    else:
        hat = np.zeros(image.shape, np.uint8)
    binary = _work_image("binary", image.shape)
    for x0, y0, x1, y1 in windows:
        part = np.s_[y0:y1, x0:x1]
        filled = binary[part]  # the closing passes through it before its threshold
        cv2.morphologyEx(image[part], cv2.MORPH_CLOSE, kernel, dst=filled)
        cv2.subtract(filled, image[part], dst=hat[part])
        closed[part] = filled
        cv2.threshold(hat[part], config.min_contrast, 255, cv2.THRESH_BINARY, dst=binary[part])
        if mask is not None:
            cv2.bitwise_and(binary[part], mask[part], dst=binary[part])
    return _blobs(binary, hat, config, windows=windows), closed, hat


def _contours(binary: np.ndarray, windows: list[Box] | None) -> list[np.ndarray]:
    """The outer contours of ``binary``'s blobs, as one findContours call on it lists them
    (last found first) were it 0 outside ``windows``, found in those only (a blob may not
    cross a window's edge). findContours finds a blob at its first pixel in raster
    order, its contour's first point."""
    if windows is None:
        return list(cv2.findContours(binary, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0])
    found = [c for x0, y0, x1, y1 in windows
             for c in cv2.findContours(binary[y0:y1, x0:x1], cv2.RETR_EXTERNAL,
                                       cv2.CHAIN_APPROX_SIMPLE, offset=(x0, y0))[0]]
    return sorted(found, key=lambda c: (int(c[0, 0, 1]), int(c[0, 0, 0])), reverse=True)


def _hat_blobs(hat: np.ndarray, mask: np.ndarray | None, config: DiceConfig) -> list[Pip]:
    """The pips among the black-hat's blobs over ``min_contrast``, inside ``mask``."""
    _, binary = cv2.threshold(hat, config.min_contrast, 255, cv2.THRESH_BINARY)
    if mask is not None:
        binary = cv2.bitwise_and(binary, mask)
    return _blobs(binary, hat, config)


def _blobs(binary: np.ndarray, hat: np.ndarray, config: DiceConfig, level: int = 0,
           origin: tuple[int, int] = (0, 0), windows: list[Box] | None = None,
           rows: _RowLimits | None = None,
           contours: list[np.ndarray] | None = None) -> list[Pip]:
    """Pips among the blobs of ``binary`` (only in ``windows``, if given: `_contours`). A
    blob too large or not round may be pips run together by blur: it is thresholded again
    higher up its own contrast (``split_levels``). The images anded with a blob's image are
    255 where set (a threshold, a drawn contour), so a plain bitwise and leaves them set on
    the blob only, whatever its value there (~2 µs less than with a mask). ``rows``:
    `_row_limits` of ``config``, worked out once per search, not per blob; ``contours``:
    `_contours` of ``binary``, if the caller found them already."""
    rows = _row_limits(config) if rows is None else rows
    # contours, not connected components: several times faster on the same blobs
    contours = _contours(binary, windows) if contours is None else contours
    rects = [cv2.boundingRect(c) for c in contours]
    pips: list[Pip] = []
    for contour, (x, y, w, h), alone in zip(contours, rects, _alone(rects), strict=True):
        if w * h < config.min_pip_area_px:
            continue
        if alone:  # its box holds no other blob's pixels: the blob is the box's pixels
            roi = binary[y:y + h, x:x + w]
        else:
            roi = np.zeros((h, w), np.uint8)
            cv2.drawContours(roi, [contour], -1, 255, cv2.FILLED, offset=(-x, -y))
            cv2.bitwise_and(roi, binary[y:y + h, x:x + w], dst=roi)  # holes left out
        area = cv2.countNonZero(roi)
        if area < config.min_pip_area_px:
            continue
        patch = hat[y:y + h, x:x + w]
        too_long = level == 0 and 0 < config.split_max_px < max(w, h)
        if not rows.on and (area > config.max_pip_area_px or area < config.min_fill * w * h):
            # no pip, and no bar to cut: its moments are not needed to split it
            if level < len(config.split_levels) and not too_long:
                pips += _split(roi, patch, area, config, level, (origin[0] + x, origin[1] + y),
                               rows)
            continue
        m = cv2.moments(roi, binaryImage=True)
        mu20, mu02, mu11 = m["mu20"] / area, m["mu02"] / area, m["mu11"] / area
        spread = math.sqrt(max(((mu20 - mu02) / 2) ** 2 + mu11 ** 2, 0.0))
        major = (mu20 + mu02) / 2 + spread
        minor = (mu20 + mu02) / 2 - spread
        roundness = math.sqrt(max(minor, 0.0) / major) if major > 0 else 1.0
        if (area > config.max_pip_area_px or area < config.min_fill * w * h
                or roundness < config.min_pip_roundness):
            centre = (m["m10"] / m["m00"], m["m01"] / m["m00"])
            row = _pip_row(roi, patch, centre, mu20, mu02, mu11, config) if _row_shaped(
                major, minor, rows) else []
            if row:
                pips += [Pip(p.x + origin[0] + x, p.y + origin[1] + y, p.diameter, p.roundness,
                             p.contrast, p.angle) for p in row]
            elif level < len(config.split_levels) and not too_long:
                pips += _split(roi, patch, area, config, level, (origin[0] + x, origin[1] + y),
                               rows)
            continue
        cx, cy = x + m["m10"] / m["m00"], y + m["m01"] / m["m00"]
        contrast = cv2.sumElems(cv2.bitwise_and(patch, patch, mask=roi))[0] / area  # = mean
        pips.append(Pip(float(cx + origin[0]), float(cy + origin[1]),
                        2.0 * math.sqrt(area / math.pi), roundness, contrast,
                        0.5 * math.atan2(2 * mu11, mu20 - mu02)))
    return pips


def _split(roi: np.ndarray, patch: np.ndarray, area: int, config: DiceConfig, level: int,
           origin: tuple[int, int], rows: _RowLimits) -> list[Pip]:
    """The pips of a blob (``roi``, 255 on it) turned down at ``level``: it is thresholded
    at the next of ``split_levels`` up its own contrast (``patch``, the black-hat over its
    box at ``origin``) that keeps some but not all of it, and searched again there."""
    peak = cv2.minMaxLoc(patch, mask=roi)[1]
    for deeper, share in enumerate(config.split_levels[level:], level + 1):
        t = config.min_contrast + share * (peak - config.min_contrast)
        # an 8-bit threshold compares with floor(t): the same for whole grey levels
        _, higher = cv2.threshold(patch, t, 255, cv2.THRESH_BINARY)
        cv2.bitwise_and(higher, roi, dst=higher)  # a new image: 0 off roi
        kept = cv2.countNonZero(higher)
        if kept < config.min_pip_area_px:  # no pip in it
            break
        if kept < area:
            return _blobs(higher, patch, config, deeper, origin, rows=rows)
        # all of the blob again: one level deeper it would be found, measured and turned
        # down as here, and split at the next level: that is done here
    return []


def _alone(rects: list[tuple[int, int, int, int]]) -> list[bool]:
    """Per bounding box (x, y, w, h) of a binary image's outer contours: whether it meets
    no other. Such a box holds only its blob's pixels and what lies in the blob's holes,
    which is what drawing the filled contour and masking the image with it leaves (a
    sweep from left to right: numpy's calls cost more on the few boxes of a search)."""
    alone = [True] * len(rects)
    if len(rects) < 2:  # most splits: no other box to sort and sweep
        return alone
    order = sorted(range(len(rects)), key=rects.__getitem__)
    for k, i in enumerate(order):
        x, y, w, h = rects[i]
        for j in order[k + 1:]:
            u, v, _, q = rects[j]
            if u >= x + w:  # this box and those after it start right of box i
                break
            if v < y + h and y < v + q:
                alone[i] = alone[j] = False
    return alone


class _RowLimits(NamedTuple):
    """`_row_shaped`'s bounds on a bar's width and length (px); ``on`` False: no bars."""

    on: bool
    thin: float
    thick: float
    short: float
    long: float


def _row_limits(config: DiceConfig) -> _RowLimits:
    """The bounds `_row_shaped` checks a blob against, from ``config``'s pip sizes and
    ``pip_row_pitch_px`` (0: no bars are cut)."""
    pitch = config.pip_row_pitch_px
    smallest = math.sqrt(4 * config.min_pip_area_px / math.pi)
    largest = math.sqrt(4 * config.max_pip_area_px / math.pi)
    return _RowLimits(pitch > 0, 0.8 * smallest, largest,
                      0.8 * (config.pip_row_spacing[0] * pitch + smallest),
                      2 * config.pip_row_spacing[1] * pitch + largest)


def _row_shaped(major: float, minor: float, rows: _RowLimits) -> bool:
    """A blob's second moments (``major`` and ``minor`` variance) allow a bar of 2-3 pips
    (`_pip_row`): most blobs end here, cheaply. A bar's extent is about sqrt(12 var) along
    each axis (0.87 of a disc's diameter)."""
    return (rows.on and rows.thin <= math.sqrt(12 * max(minor, 0.0)) <= rows.thick
            and rows.short <= math.sqrt(12 * major) <= rows.long)


def _pip_row(roi: np.ndarray, patch: np.ndarray, centre: tuple[float, float], mu20: float,
             mu02: float, mu11: float, config: DiceConfig) -> list[Pip]:
    """A bar one pip wide and as long as two or three pips a lattice pitch apart (a 6's
    column, a 3's diagonal run together by blur, often with no dip left between the pips
    for ``split_levels`` to part them at), cut into its pips midway between them; [] when
    the blob is not such a bar or a piece is not round enough for a pip. Each pip's diameter
    is the bar's width, its roundness that of its piece of the bar. Only for blobs whose
    moments allow such a bar (`_row_shaped`); ``centre`` and the moments are the blob's."""
    pitch = config.pip_row_pitch_px
    smallest = math.sqrt(4 * config.min_pip_area_px / math.pi)
    largest = math.sqrt(4 * config.max_pip_area_px / math.pi)
    ys, xs = np.nonzero(roi)
    cx, cy = centre
    angle = 0.5 * math.atan2(2 * mu11, mu20 - mu02)
    cos, sin = math.cos(angle), math.sin(angle)
    dx, dy = xs - cx, ys - cy
    along = dx * cos + dy * sin
    across = -dx * sin + dy * cos
    start = along.min()
    length = float(along.max() - start) + 1.0
    width = float(across.max() - across.min()) + 1.0
    count = round((length - width) / pitch) + 1
    if not (smallest <= width <= largest and count in (2, 3)):
        return []
    step = (length - width) / (count - 1)
    if not config.pip_row_spacing[0] * pitch <= step <= config.pip_row_spacing[1] * pitch:
        return []
    first = start + width / 2
    piece = _pixels((along - first) / step, 0, count - 1)
    pips = []
    for k in range(count):
        inside = piece == k
        px, py = xs[inside], ys[inside]
        n = len(px)
        # sums over n, as ndarray.mean takes them, without its overhead
        mx, my = int(px.sum()) / n, int(py.sum()) / n
        dx, dy = px - mx, py - my
        vxx, vyy, vxy = (float((dx * dx).sum() / n), float((dy * dy).sum() / n),
                         float((dx * dy).sum() / n))
        half = math.hypot((vxx - vyy) / 2, vxy)
        major, minor = (vxx + vyy) / 2 + half, (vxx + vyy) / 2 - half
        roundness = math.sqrt(max(minor, 0.0) / major) if major > 0 else 1.0
        if roundness < config.min_pip_roundness:  # a smear, a gap between dice: no pips
            return []
        pips.append(Pip(mx, my, width, roundness, int(patch[py, px].sum()) / n,
                        0.5 * math.atan2(2 * vxy, vxx - vyy)))
    return pips


def _median_level(values: np.ndarray) -> float:
    """np.median of grey levels (whole numbers), without its overhead: the mean of the two
    middle levels is exact in any float type."""
    ordered = np.sort(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return float(ordered[middle])
    return (float(ordered[middle - 1]) + float(ordered[middle])) / 2


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
    xs, ys = _pixels(a.x + t * (b.x - a.x), 0, w - 1), _pixels(a.y + t * (b.y - a.y), 0, h - 1)
    values = image[ys, xs].astype(np.float32)
    body = max(values[0], values[-1]) if config.link_on_closing else _median_level(values)
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

    for i, j in _linkable_pairs(pips, config):
        if root(i) != root(j) and _same_body(pips[i], pips[j], line_image, config):
            parent[root(i)] = root(j)
    groups: dict[int, list[Pip]] = {}
    for i, pip in enumerate(pips):
        groups.setdefault(root(i), []).append(pip)
    faces = [g for g in groups.values() if _is_top_face(g, closed, config)]
    return _without_side_faces(faces, config)


def _linkable_pairs(pips: list[Pip], config: DiceConfig) -> list[tuple[int, int]]:
    """The pairs (i < j, in that order) near and alike enough for `_same_body` to follow
    the line between them: it turns every other pair down by its first two tests."""
    if len(pips) < 2:
        return []
    diameter = np.array([p.diameter for p in pips])
    larger = np.maximum(diameter[:, None], diameter[None, :])
    smaller = np.minimum(diameter[:, None], diameter[None, :])
    near = distances(np.array([(p.x, p.y) for p in pips])) <= \
        SLACK * config.link_distance * larger
    i, j = np.nonzero(np.triu(near & (larger <= config.pip_size_ratio * smaller), 1))
    return list(zip(i.tolist(), j.tolist(), strict=True))


def _without_side_faces(faces: list[list[Pip]], config: DiceConfig) -> list[list[Pip]]:
    """The faces that are no side face of another: a face right beside another whose pips
    are clearly rounder or larger is a side face of the same die, seen at a grazing angle.
    Each face is measured once; pairs farther apart than ``side_distance`` pip sizes are
    not looked at."""
    if not faces:
        return []
    centres = [np.array([(p.x, p.y) for p in f]).mean(axis=0) for f in faces]
    sizes = [float(np.median([p.diameter for p in f])) for f in faces]
    roundness = [np.mean([p.roundness for p in f]) for f in faces]
    near = distances(np.array(centres)) <= SLACK * config.side_distance * np.array(sizes)

    def side_of(face: int, top: int) -> bool:
        if face == top or np.linalg.norm(centres[face] - centres[top]) > \
                config.side_distance * sizes[top]:
            return False
        return bool(roundness[face] < roundness[top] - config.side_roundness_gap
                    or sizes[face] < config.side_size_ratio * sizes[top])

    return [f for i, f in enumerate(faces)
            if not any(side_of(i, top) for top in np.flatnonzero(near[i]))]


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


#: The 3x3 pip lattice of each face value, as sets of (column, row) cells in -1..1; a face
#: seen turned by 90 degrees gives the same sets, so 2, 3 and 6 list both ways round.
_CORNERS = frozenset({(-1, -1), (1, -1), (-1, 1), (1, 1)})
_PATTERNS = {
    frozenset({(0, 0)}): 1,
    frozenset({(-1, -1), (1, 1)}): 2, frozenset({(1, -1), (-1, 1)}): 2,
    frozenset({(-1, -1), (0, 0), (1, 1)}): 3, frozenset({(1, -1), (0, 0), (-1, 1)}): 3,
    _CORNERS: 4, _CORNERS | {(0, 0)}: 5,
    _CORNERS | {(-1, 0), (1, 0)}: 6, _CORNERS | {(0, -1), (0, 1)}: 6,
}
_CENTRE_CELL = 1 << 4  # GridFace.cells of a lone 1: the lattice's centre point
_CELLS = np.array([(i, j) for j in (-1, 0, 1) for i in (-1, 0, 1)], dtype=np.float64)
#: Lattice offsets two pips of one face can have (up to symmetry): the pair's length gives the
#: pitch, its direction the face's turn.
_OFFSETS = np.array([(1, 0), (1, 1), (2, 0), (2, 1), (1, 2), (2, 2)], dtype=np.float64)
#: Their lengths (in pitches) and directions.
_OFFSET_LENGTH = np.hypot(_OFFSETS[:, 0], _OFFSETS[:, 1])
_OFFSET_ANGLE = np.arctan2(_OFFSETS[:, 1], _OFFSETS[:, 0])


@dataclass(frozen=True)
class GridFace:
    """A top face fitted as a turned 3x3 lattice in the rectified view (mm on the table)."""

    value: int | None
    centre: tuple[float, float]
    angle: float  # radians, the lattice's turn (mod 90 degrees)
    pitch: float  # mm between neighbouring lattice points
    members: tuple[int, ...]  # indices of its pips
    error: float  # mean distance of the pips from their lattice points, in pitches
    cells: int = 0  # occupied lattice points, bit 3 * (row + 1) + column + 1


def read_dice_rectified(frame: np.ndarray, region, region_mm, config: DiceConfig,
                        still: StillReads | None = None) -> list[DieReading]:
    """Warp the dice area to a top view of the table at ``rectified_px_per_mm``, so pips and
    dice have known sizes and side faces (stretched or squashed there) are told apart by
    shape; fit each face as a 3x3 lattice and map the results back to frame pixels. With
    ``still`` and ``still_change``, a frame in which nothing changed since the area was last
    read in full (the referee's dice lying still) gets that frame's readings, once
    ``still_reads`` full reads in a row agreed."""
    if region is None:
        raise DiceInputError("the dice region in pixels is needed with region_mm")
    px = np.asarray(region, dtype=np.float64)
    mm = np.asarray(region_mm, dtype=np.float64)
    if px.ndim != 2 or px.shape != mm.shape or px.shape[1] != 2 or len(px) < 4:
        raise DiceInputError("region and region_mm must be the same four or more corners, "
                             "in pixels and in table mm")
    s = config.rectified_px_per_mm
    remember = still is not None and config.still_change > 0
    key = (mm.tobytes(), frame.shape[:2], config)
    last = still.last(key) if remember else None
    unchanged, grey, seen = _still(last, frame, px, config)
    if unchanged and last.agreed >= config.still_reads:
        return list(last.readings)
    view = _top_view(px.tobytes(), mm.tobytes(), frame.shape[:2], config)
    lo, rect_to_frame, lens, tops = view.lo, view.rect_to_frame, view.lens, view.tops
    if seen is None or last.box != view.frame_box:
        grey, seen = frame if frame.ndim == 2 else _grey_box(frame, view.frame_box), None
    elif frame.ndim == 3:  # the still test made the box grey, and its blocks
        _zero_round(grey, view.frame_box)
    located = _locate(grey, view, config) if config.locate_contrast > 0 else None
    top = _warp(grey, view, located and located.strips)
    pip_config = _rectified_pip_config(config)
    layers = []  # per pip colour: pips, their table mm, closing, black-hat, lattice fits
    # each pip colour's image made before either is closed in place (`find_pips`)
    images = [top if polarity == "dark" else
              cv2.bitwise_not(top, dst=_work_image(f"inverted {k}", top.shape))
              for k, polarity in enumerate(config.polarities)]
    for k, (polarity, image) in enumerate(zip(config.polarities, images, strict=True)):
        pips, closed, hat = (find_pips(image, None, pip_config) if located is None else
                             find_pips(image, located.search, pip_config, located.boxes,
                                       in_place=config.polarities.count(polarity) == 1,
                                       hat_name=f"hat {k}"))
        pts = np.array([(p.x / s + lo[0], p.y / s + lo[1]) for p in pips]).reshape(-1, 2)
        layers.append((pips, pts, closed, hat, lattice_candidates(pts, tops)))

    def to_px(q: np.ndarray) -> np.ndarray:
        return (q - lo) * s

    judges = [_Judge(pips, pts, closed, hat, tops, to_px, to_px(lens[0]))
              for pips, pts, closed, hat, _ in layers]

    def fit(throw: tuple[float, float] | None) -> list[tuple[GridFace, list[Pip]]]:
        return [(f, [pips[i] for i in f.members])
                for (pips, pts, _, _, fits), judge in zip(layers, judges, strict=True)
                for f in fit_faces(pips, pts, judge, tops, fits, throw, lens[0])]

    faces = fit(None)  # of both pip colours
    throw = throw_sizes(_not_sides(faces, lens, config) if config.throw_from_tops else faces,
                        tops)
    shrunk: set[int] = set()  # ids of pips the throw's sizes left off their face
    if throw is not None:
        before = faces
        faces = fit(throw)
        if config.faint_refit_small:
            shrunk = _left_off(before, faces)
    faint_blobs: list[list[np.ndarray]] = []  # per pip colour, with face_bars
    if config.faint_contrast:
        faces = _with_faint_faces(faces, layers, located, throw, tops, lo, lens[0], config,
                                  faint_blobs if config.face_bars else None, shrunk)
    bar_sixes = (_table_bar_sixes(faces, layers, faint_blobs, lo, lens, config)
                 if faint_blobs else [])
    faces += bar_sixes
    front = (partial(_shows_own_sides, faces, layers, lens, config)
             if config.front_one_reach else None)
    strength = _strengths(faces)
    shown = drop_side_faces([f for f, _ in faces], lens, config, strength, front)
    if config.dotted_row_reach:
        shown = _without_dotted_rows(faces, shown, layers, strength, config)
    if config.one_beside_pips:
        shown = _ones_beside_pips(faces, shown, layers, lens, config)
    leaning, tilted = (_leaning_outlines(frame, shown, view, config)
                       if (config.lean_outline or config.lean_square) and frame.ndim == 3
                       else (set(), set()))
    if config.uneven_two_roundness:
        faces, shown = _uneven_twos_as_ones(faces, shown, judges, leaning, config)
    if config.lopsided_two_one and leaning:
        faces, shown = _lopsided_twos_as_ones(frame, faces, shown, judges, leaning, view,
                                              config)
    if config.strong_side_match:
        leaning |= _strong_sides(shown, lens, config)
    if tilted:  # a 2 read as a 1 by `_lopsided_twos_as_ones` is a new face, not in it
        shown = [replace(g, value=None) if g is not None and id(g) in tilted else g
                 for g in shown]
    barred = {id(f) for f, _ in bar_sixes}
    readings = [_face_reading(g, members, rect_to_frame, lo, grey.shape, config,
                              id(g) in leaning, id(f) in barred)
                for (f, members), g in zip(faces, shown, strict=True)
                if g is not None and _in_area(f, view.area, lens, config)]
    readings = _drop_duplicates(readings)
    if seen is None and remember:
        seen = _blocks(grey, view.frame_box, config)
    blocks = seen
    if blocks is not None:
        agreed = (last.agreed + 1 if unchanged and _values(last.readings) == _values(readings)
                  else 1)
        still.keep(key, _LastRead(px.copy(), view.frame_box, blocks, readings, agreed))
    return list(readings)


def _strong_sides(shown: list[GridFace | None], lens: tuple[np.ndarray, float],
                  config: DiceConfig) -> set[int]:
    """The ids of read faces of 2+ pips lying within ``strong_side_match`` die edges of
    where another read die, farther from the point under the lens, shows a side towards it:
    `drop_side_faces` keeps them as no weaker than that die's face (``side_match_share``: a
    die standing in front of that side hides it), but at the far side of the referee's
    dice area a lit top's pips measure faint and small and its own side then reads as
    strong (synthetic table scenes: a side's 2, 3 or 5 read beside its die's top)."""
    nadir = lens[0]
    read = [g for g in shown if g is not None and g.value]
    flagged: set[int] = set()
    for g in read:
        if len(g.members) < 2:
            continue
        reach = np.linalg.norm(np.asarray(g.centre) - nadir)
        for f in read:
            if f is g or np.linalg.norm(np.asarray(f.centre) - nadir) <= reach:
                continue
            spot, edge = footprint(f, lens, config)
            sides = _lens_sides(spot, edge, _side_turn(f, g, config), lens)
            if (np.hypot(*(sides - np.asarray(g.centre)).T).min()
                    < config.strong_side_match * edge):
                flagged.add(id(g))
                break
    return flagged


def _shows_own_sides(faces: list[tuple[GridFace, list[Pip]]], layers: list,
                     lens: tuple[np.ndarray, float], config: DiceConfig, face: GridFace) -> bool:
    """Whether a lone pip's die, standing where its footprint puts it, shows a pip of the
    pip's colour within ``front_one_reach`` die edges of a side pip towards the lens (any
    turn), within ``unread_beside`` die edges of it and ``front_one_ahead`` towards the
    lens from it: a 1 standing in front of a die shows its own sides there; that die's
    side pip has the table in front of it (`drop_side_faces`)."""
    own = next(members for f, members in faces if f is face)[0]
    pips, pts = next((p, q) for p, q, *_ in layers if any(x is own for x in p))
    spot, edge = footprint(face, lens, config)
    offsets = pts - np.asarray(face.centre)
    towards = lens[0] - np.asarray(face.centre)
    near = ((np.hypot(*offsets.T) <= config.unread_beside * edge)
            & (offsets @ towards >= config.front_one_ahead * edge * np.linalg.norm(towards)))
    return any(_side_pip_of(q, face, spot, edge, lens, config, config.front_one_reach)
               for p, q, close in zip(pips, pts, near, strict=True) if close and p is not own)


def _ones_beside_pips(faces: list[tuple[GridFace, list[Pip]]], shown: list[GridFace | None],
                      layers: list, lens: tuple[np.ndarray, float],
                      config: DiceConfig) -> list[GridFace | None]:
    """``shown`` (`drop_side_faces`), a read 1 unreadable where a pip about as strong as its
    own (``side_pip_share``), as contrasted (``one_beside_contrast``) and round lies on its
    die (``unread_beside``) off every read face's lattice, off the sides towards the lens of
    every read die and, with ``one_beside_other_tops``, off the tops of read dice of the
    other pip colour: a flat 1's die shows no pip there, a leaning 2-6 read from one pip
    does."""
    colour = _colours(faces, layers)
    read = [(g, *footprint(g, lens, config), k)
            for g, k in zip(shown, colour, strict=True) if g is not None and g.value]
    lattice = np.array([p for g, *_ in read for p in _pips_of(g)]).reshape(-1, 2)
    out: list[GridFace | None] = []
    for (_, members), g, mine in zip(faces, shown, colour, strict=True):
        if g is None or g.value != 1:
            out.append(g)
            continue
        # pips of the 1's own colour: the other colour's blobs include gaps between pips
        pips, pts = layers[mine][:2]
        strength = np.array([p.diameter * p.contrast for p in pips])
        alike = np.array([p.roundness >= config.single_roundness and p.contrast
                          >= config.one_beside_contrast * members[0].contrast for p in pips],
                         bool)
        _, edge = footprint(g, lens, config)
        own = members[0].diameter * members[0].contrast
        own_reach = config.one_own_side_reach or None
        tops = ([_foot_and_top(h, spot, e, lens)[1].astype(np.float32)
                 for h, spot, e, k in read if k not in (None, mine)]
                if config.one_beside_other_tops else [])
        near = pts[alike & (strength >= config.side_pip_share * own)
                   & (np.hypot(*(pts - np.asarray(g.centre)).T)
                      <= config.unread_beside * edge)]
        beside = any(np.hypot(*(lattice - q).T).min() > config.lattice_tolerance * g.pitch
                     and not any(_side_pip_of(q, h, spot, e, lens, config,
                                              own_reach if h is g else None)
                                 for h, spot, e, _ in read)
                     and not any(cv2.pointPolygonTest(top, (float(q[0]), float(q[1])), False)
                                 > 0 for top in tops) for q in near)
        out.append(replace(g, value=None) if beside else g)
    return out


def _colours(faces: list[tuple[GridFace, list[Pip]]], layers: list) -> list[int | None]:
    """Per face, the index of the pip colour layer that found its pips; None for pips found
    later (faint faces, bar sixes)."""
    found = [{id(p) for p in pips} for pips, *_ in layers]
    return [next((k for k, ids in enumerate(found) if id(members[0]) in ids), None)
            for _, members in faces]


#: 49 directions at 3 radii across a ring (an odd count: its median is a sample), as
#: (direction, share of the way from the ring's inner to its outer radius)
_RING_DIRS = np.tile(np.stack([np.cos(np.linspace(0.0, 2 * np.pi, 49, endpoint=False)),
                               np.sin(np.linspace(0.0, 2 * np.pi, 49, endpoint=False))],
                              axis=1), (3, 1))
_RING_SHARES = np.repeat(np.linspace(0.0, 1.0, 3), 49)[:, None]


def _leaning_outlines(frame: np.ndarray, shown: list[GridFace | None], view: _TopView,
                      config: DiceConfig) -> tuple[set[int], set[int]]:
    """The ids of read faces whose die may be leaning, told by its body's outline in the top
    view: with ``lean_outline``, a body reaching ``lean_outline`` top-face edges farther on
    one side across the view (at right angles to the way to the point under the lens) than
    on the other, on ``lean_outline_rays`` neighbouring rays: a flat die seen from above
    shows its top face and, towards the lens, its sides; a leaning die shows its lifted side
    too, whichever way it leans. With ``lean_square``, a 1 whose top face is no square
    round its pip (`_lopsided_ones`). Rays ending near another read die's outline are not
    judged (`_body_reach`), nor, with ``lean_outline_through``, `lean_outline`'s rays
    passing through one (`_rays_through`). Second, the ids of those `_lopsided_ones`
    finds tilted past doubt (``lean_square_unreadable``)."""
    read = [g for g in shown if g is not None and g.value]
    if not read:
        return set(), set()
    nadir = view.lens[0]
    outlines = _read_outlines(read, view, config)
    flagged: set[int] = set()
    tilted: set[int] = set()
    if config.lean_square:
        flagged, tilted = _lopsided_ones(frame, read, outlines, view, config)
    if not config.lean_outline:
        return flagged, tilted
    centres = np.array([g.centre for g in read])  # (faces, 2)
    tops = np.array([g.pitch / config.pip_pitch_share for g in read])
    turns = np.radians(np.arange(-config.lean_outline_window_deg,
                                 config.lean_outline_window_deg + 1e-9,
                                 config.lean_outline_step_deg))
    towards = nadir - centres
    across = np.stack([-towards[:, 1], towards[:, 0]], axis=1)
    across /= np.maximum(np.linalg.norm(across, axis=1), 1e-9)[:, None]
    c, sn = np.cos(turns)[None, :], np.sin(turns)[None, :]
    rays = np.stack([c * across[:, :1] - sn * across[:, 1:], sn * across[:, :1]
                     + c * across[:, 1:]], axis=2)
    rays = np.concatenate([rays, -rays], axis=1)  # (faces, rays, 2): each, then its opposite
    ends, judged, _, _ = _body_reach(frame, centres, tops, rays, outlines,
                                     list(range(len(read))), view, config)
    half = len(turns)
    wider = (ends[:, :half] - ends[:, half:]) / tops[:, None]  # farther than opposite
    valid = judged[:, :half] & judged[:, half:]
    lopsided = [k for k in range(len(read)) if _lopsided(wider[k], valid[k], config)]
    if config.lean_outline_through and lopsided:  # only these can change: rays are dropped
        passed = _rays_through(read, centres, tops, rays, ends, outlines, lopsided, view,
                               config)
        valid[lopsided] &= ~(passed[:, :half] | passed[:, half:])
        lopsided = [k for k in lopsided if _lopsided(wider[k], valid[k], config)]
    flagged |= {id(read[k]) for k in lopsided}
    return flagged, tilted


def _lopsided(wider: np.ndarray, valid: np.ndarray, config: DiceConfig) -> bool:
    """``lean_outline``'s test of one face: its body reaching ``lean_outline`` top-face edges
    farther one way than the other on ``lean_outline_rays`` judged rays in a row."""
    for sign in (1, -1):
        run = 0
        for far, judge in zip(sign * wider > config.lean_outline, valid, strict=True):
            run = run + 1 if far and judge else 0
            if run >= config.lean_outline_rays:
                return True
    return False


def _rays_through(read: list[GridFace], centres: np.ndarray, tops: np.ndarray,
                  rays: np.ndarray, ends: np.ndarray, outlines: np.ndarray, which: list[int],
                  view: _TopView, config: DiceConfig) -> np.ndarray:
    """Whether each ray of the faces ``which`` (their rows of `_leaning_outlines`' arrays)
    passes through another read die's outline on its way (points ``lean_outline_near_body``
    die edges apart, from ``lean_outline_span``'s start to the ray's end): the body it
    follows may be a touching die's of the same colour, running on past that outline. The
    outline of a die the face may be a side of (nearer the point under the lens than that
    die, within ``lean_outline_through_side`` of its edges across the way to it) does not
    count: a side read as a die runs on into its own die's body."""
    nadir, height = view.lens
    first, last = config.lean_outline_span
    step = config.lean_outline_near_body * float((tops * (height - tops) / height).min())
    way = first * tops.min() + step * np.arange(int(np.ceil((last - first) * tops.max()
                                                            / step)))
    on = centres[which, None, None, :] + rays[which, :, None, :] * way[None, None, :, None]
    passed = _inside_hulls(outlines, on.reshape(-1, 2)).reshape(
        len(outlines), len(which), rays.shape[1], len(way))
    passed &= (way < ends[which, :, None])[None]
    counted = np.ones((len(outlines), len(which)), dtype=bool)  # [outline, face]
    for o, g in enumerate(read):
        spot, edge = footprint(g, view.lens, config)
        to_lens = (nadir - spot) / max(float(np.linalg.norm(nadir - spot)), 1e-9)
        off = centres[which] - spot
        across = np.abs(off[:, 0] * to_lens[1] - off[:, 1] * to_lens[0])
        counted[o] = ~((off @ to_lens > 0)
                       & (across < config.lean_outline_through_side * edge))
    counted[which, np.arange(len(which))] = False  # its own outline
    return (passed.any(axis=3) & counted[..., None]).any(axis=0)


def _read_outlines(read: list[GridFace], view: _TopView, config: DiceConfig) -> np.ndarray:
    """The outlines in the top view of the read faces' dice, each its foot and its top
    (`_stacked_hulls`; a 1's as discs of ``lean_outline_one_reach`` die edges)."""
    hulls = []
    for g in read:
        spot, edge = footprint(g, view.lens, config)
        foot, raised = _foot_and_top(g, spot, edge, view.lens, config.lean_outline_one_reach)
        hulls.append(cv2.convexHull(np.vstack([foot, raised]).astype(np.float32)))
    return _stacked_hulls(hulls)


def _uneven_twos_as_ones(faces: list[tuple[GridFace, list[Pip]]], shown: list[GridFace | None],
                         judges: list[_Judge], leaning: set[int], config: DiceConfig
                         ) -> tuple[list[tuple[GridFace, list[Pip]]], list[GridFace | None]]:
    """``faces`` and ``shown`` with each read 2 of uneven pips (`_uneven_pair`) read as the
    1 of its rounder pip where that pip alone makes a plausible 1: a flat 1 fitted with a
    pip of a side face beside it (its own towards the lens, or a neighbour's), foreshortened
    there, where a flat 2's two pips lie on one face and are seen alike; with
    ``uneven_two_ground`` a read 2 whose pips lie on unlike grounds too (`_ground`). Capped
    either way (ids added to ``leaning``): the rounder pip is the better guess, not a sure
    one."""
    faces, shown = list(faces), list(shown)
    for n, ((_, members), g) in enumerate(zip(faces, shown, strict=True)):
        if g is None or g.value != 2:
            continue
        k = 0 if members[0].roundness > members[1].roundness else 1
        judge = next((j for j in judges if any(p is members[k] for p in j.pips)), None)
        if not (_uneven_pair(members, config)
                or judge is not None and config.uneven_two_ground and len(members) == 2
                and abs(_ground(members[0], judge) - _ground(members[1], judge))
                > config.uneven_two_ground):
            continue
        if judge is not None:
            i = g.members[k]
            one = GridFace(1, (float(judge.pts[i][0]), float(judge.pts[i][1])), g.angle,
                           g.pitch, (i,), 0.0, _CENTRE_CELL)
            if judge.plausible(one):
                faces[n], shown[n] = (one, [members[k]]), one
        leaning.add(id(shown[n]))
    return faces, shown


def _uneven_pair(pips: list[Pip], config: DiceConfig) -> bool:
    """Two pips whose roundness differ by more than ``uneven_two_roundness``, both
    ``uneven_two_min_pip`` wide or more (a small blurred pip's roundness is a few pixels')."""
    return (len(pips) == 2 and min(p.diameter for p in pips) >= config.uneven_two_min_pip
            and abs(pips[0].roundness - pips[1].roundness) > config.uneven_two_roundness)


#: Where `_ground` looks round a pip: 24 directions at 0.8, 1.05 and 1.3 pip diameters from
#: its centre (off the pip, and within a flat 2's top face round its corner pip).
_GROUND_RING = np.concatenate([
    r * np.stack([np.cos(np.linspace(0.0, 2 * np.pi, 24, endpoint=False)),
                  np.sin(np.linspace(0.0, 2 * np.pi, 24, endpoint=False))], axis=1)
    for r in (0.8, 1.05, 1.3)])


def _ground(pip: Pip, judge: _Judge) -> float:
    """The median grey level of the pip colour's image (its closing less its black-hat) round
    ``pip``: the die body the pip lies on, not the closing, which fills a narrow shaded side
    with the lit top beside it."""
    h, w = judge.closed.shape
    xs, ys = _pixels(np.array([pip.x, pip.y]) + pip.diameter * _GROUND_RING, 0,
                     (w - 1, h - 1)).T
    return float(np.median(judge.closed[ys, xs].astype(np.int16) - judge.hat[ys, xs]))


def _lopsided_twos_as_ones(frame: np.ndarray, faces: list[tuple[GridFace, list[Pip]]],
                           shown: list[GridFace | None], judges: list[_Judge], leaning: set[int],
                           view: _TopView, config: DiceConfig
                           ) -> tuple[list[tuple[GridFace, list[Pip]]], list[GridFace | None]]:
    """``faces`` and ``shown`` with each read 2 whose top face is no square round its
    lattice or lopsided (``leaning``, `_leaning_outlines`) read as a 1 where exactly one of
    its pips alone makes a plausible 1 whose top face is a square round that pip
    (`_square_amplitudes` within ``lopsided_two_one``): a flat 1 fitted with a pip of a side
    face beside it as a 2 (the 2's lattice centre lies half a diagonal off its die's);
    still capped as leaning (its id added to ``leaning``). A faint 2 (`_with_faint_faces`)
    is left as it is."""
    read = [g for g in shown if g is not None and g.value]
    ones: dict[int, list[tuple[GridFace, Pip] | None]] = {}  # by index in read
    for k, g in enumerate(read):
        if g.value != 2 or id(g) not in leaning:
            continue
        first = faces[next(n for n, h in enumerate(shown) if h is g)][1][0]
        judge = next((j for j in judges if any(p is first for p in j.pips)), None)
        if judge is None:
            continue
        ones[k] = []
        for i in g.members:
            one = GridFace(1, (float(judge.pts[i][0]), float(judge.pts[i][1])), g.angle,
                           g.pitch, (i,), 0.0, _CENTRE_CELL)
            ones[k].append((one, judge.pips[i]) if judge.plausible(one) else None)
    if not ones:
        return faces, shown
    square: dict[int, list[bool]] = {k: [] for k in ones}
    for j in range(2):  # each 2's first pip's 1, then its second's, in place of the 2
        trial = list(read)
        which = [k for k in ones if ones[k][j] is not None]
        for k in which:
            trial[k] = ones[k][j][0]
        amps = _square_amplitudes(frame, trial, _read_outlines(trial, view, config), view,
                                  config, which)
        for k in ones:
            square[k].append(k in amps and amps[k][0] <= config.lopsided_two_one)
    faces, shown = list(faces), list(shown)
    for k, fits in square.items():
        if sum(fits) == 1:
            one, pip = ones[k][fits.index(True)]
            n = next(n for n, h in enumerate(shown) if h is read[k])
            faces[n], shown[n] = (one, [pip]), one
            leaning.add(id(one))
    return faces, shown


def _lopsided_ones(frame: np.ndarray, read: list[GridFace], outlines: np.ndarray,
                   view: _TopView, config: DiceConfig) -> tuple[set[int], set[int]]:
    """The ids of read 1s whose top face is no square round the pip: a flat 1's top face
    seen from above is one (the table-plane view of a level square), so on the half away
    from the lens, where no side of its die shows, its body reaches as far at each angle as
    90 degrees round; a leaning die's tilted face is squashed or stretched one way, and its
    lifted side may show beyond it. The difference of those reaches, fitted as
    A cos 2a + B sin 2a over ``lean_square_pairs`` or more pairs of judged rays, amplitude
    over ``lean_square`` top-face edges; rays reaching past ``lean_square_reach`` (a
    neighbour, a shadow) or stopped at once are left out, and so are dice whose top is
    under ``lean_square_contrast`` from the table (no outline to follow). With
    ``lean_square_lattice``, read 2s and 3s too, round their lattice's centre. Second, the
    ids of those over ``lean_square_unreadable`` (0: none) whose top is not darker than
    ``lean_square_unreadable_lightness``: a flat face, even blurred, is seldom that far
    from a square, a leaning die's often is."""
    limits = {1: config.lean_square, 2: config.lean_square_lattice,
              3: config.lean_square_lattice}
    measured = _square_amplitudes(frame, read, outlines, view, config,
                                  [k for k, g in enumerate(read) if limits.get(g.value)])
    tilted = config.lean_square_unreadable or np.inf
    return ({id(read[k]) for k, (amp, _) in measured.items() if amp > limits[read[k].value]},
            {id(read[k]) for k, (amp, light) in measured.items()
             if amp > tilted and light >= config.lean_square_unreadable_lightness})


def _square_amplitudes(frame: np.ndarray, read: list[GridFace], outlines: np.ndarray,
                       view: _TopView, config: DiceConfig, which: list[int]
                       ) -> dict[int, tuple[float, float]]:
    """`_lopsided_ones`' amplitude (top-face edges) of each face ``which`` indexes in
    ``read`` that has enough judged pairs of rays and contrast, with its top's CIE L*. A
    ray crossing one of the face's own pips (``lean_square_pip_clear``) is followed from
    past it."""
    if not which:
        return {}
    centres = np.array([read[k].centre for k in which])
    tops = np.array([read[k].pitch / config.pip_pitch_share for k in which])
    away = centres - view.lens[0]
    heading = np.arctan2(away[:, 1], away[:, 0])
    quarter = int(round(90.0 / config.lean_outline_step_deg))
    turns = np.radians(np.arange(-quarter, quarter + 1) * config.lean_outline_step_deg)
    angles = heading[:, None] + turns[None, :]
    rays = np.stack([np.cos(angles), np.sin(angles)], axis=2)  # (faces, rays, 2)
    starts = config.lean_outline_span[0] * tops[:, None] * np.ones(rays.shape[:2])
    for n, k in enumerate(which):
        spots = np.asarray(_pips_of(read[k])) - centres[n]  # (pips, 2) mm
        radius = config.lean_square_pip_clear * config.pip_share * tops[n]
        along = rays[n] @ spots.T  # (rays, pips)
        across = np.abs(rays[n, :, :1] * spots[:, 1] - rays[n, :, 1:] * spots[:, 0])
        crossed = (along > 0) & (across < radius)
        exits = along + np.sqrt(np.maximum(radius ** 2 - across ** 2, 0.0))
        starts[n] = np.maximum(starts[n], np.where(crossed, exits, 0.0).max(axis=1))
    ends, judged, contrast, light = _body_reach(frame, centres, tops, rays, outlines, which,
                                                view, config, starts, config.lean_square_reach)
    reach = ends / tops[:, None]
    usable = (judged & (ends > starts + 1e-6 * tops[:, None])
              & (reach < config.lean_square_reach))
    # the ray at turn a (0-90 degrees) and the one 90 degrees before it
    diff = reach[:, quarter:] - reach[:, :quarter + 1]
    both = usable[:, quarter:] & usable[:, :quarter + 1]
    a = 2 * turns[quarter:]
    basis = np.stack([np.cos(a), np.sin(a)], axis=1)
    judge = (both.sum(axis=1) >= config.lean_square_pairs) & (
        contrast >= config.lean_square_contrast)
    if not judge.any():
        return {}
    # least squares of every judged face at once, over its pairs of judged rays
    w = both[judge].astype(np.float64)
    normal = np.einsum("fn,ni,nj->fij", w, basis, basis)
    coef = np.linalg.solve(normal, np.einsum("fn,ni->fi", w * diff[judge], basis)[..., None])
    return {k: (float(np.hypot(*c[:, 0])), float(lk)) for k, c, lk in zip(
        np.asarray(which)[judge].tolist(), coef, light[judge], strict=True)}


def _body_reach(frame: np.ndarray, centres: np.ndarray, tops: np.ndarray, rays: np.ndarray,
                outlines: np.ndarray, owners: list[int], view: _TopView,
                config: DiceConfig, starts: np.ndarray | None = None,
                stop: float | None = None
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """How far the die body reaches from each face's centre along each of its ``rays``
    ((faces, rays, 2) unit vectors; top-face edges ``tops``): mm (faces, rays), whether
    each ray is judged (not ending within ``lean_outline_near_body`` die edges of another
    read die's outline, ``outlines`` (`_stacked_hulls`); ``owners``: each face's own
    outline), each face's top colour's distance to the table's and its top's CIE L*.
    Each ray follows the body from ``lean_outline_span``'s start
    (or from ``starts``, mm (faces, rays), each ray's samples before it taken as body)
    until ``lean_outline_gap_px`` view pixels in a row are off it, or to past ``stop``
    top-face edges (a ray not ending before it ends past it)
    (``lean_outline_body_share``: the table's and the top face's colours sampled in rings,
    `_RING_DIRS`). Only those points are sampled (bilinear, the frame's colours at their
    places in the top view), for all faces at once, each face's on its own grid (steps by
    ``die_max_mm``): a face's reaches do not move with the other faces measured with it."""
    height = view.lens[1]
    s = config.rectified_px_per_mm
    faces = len(centres)
    edges = tops * (height - tops) / height  # `footprint`'s
    # samples along each ray, ~a view pixel apart on the largest die the reader accepts, and
    # each face's gap at its own spacing: a face's reaches are its own, whatever else was read
    first, last_share = config.lean_outline_span
    shares = np.linspace(first, last_share,
                         int(np.ceil((last_share - first) * config.die_max_mm * s)))
    gaps = np.maximum(1, np.round(config.lean_outline_gap_px / s
                                  / ((shares[1] - shares[0]) * tops))).astype(int)
    gap = int(gaps.max())
    final = len(shares) - 1  # the last sample a ray may end at
    if stop is not None:  # past it, only the samples that tell a ray ending there
        final = min(final, int(np.searchsorted(shares, stop)))
        shares = shares[:final + gap]
    count = len(shares)
    along = tops[:, None] * shares[None, :]  # (faces, count) mm
    rings = [_RING_DIRS[None] * (lo + (hi - lo) * _RING_SHARES)[None] * size[:, None, None]
             for (lo, hi), size in ((config.lean_outline_table_ring, edges),
                                       (config.lean_outline_top_ring, tops))]
    pts = np.concatenate([(rays[:, :, None, :] * along[:, None, :, None]).reshape(faces, -1, 2),
                          *rings], axis=1) + centres[:, None, :]
    at = cv2.perspectiveTransform(((pts.reshape(-1, 2) - view.lo) * s)[None],
                                  view.rect_to_frame).astype(np.float32)
    colours = cv2.remap(frame, at[..., 0], at[..., 1], cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_REPLICATE)
    # L*, a* and b* apart (each (faces, samples)), L* weighted: numpy's work on a last axis
    # of 3 costs several times as much
    lab = [c.reshape(faces, -1) for c in cv2.split(
        cv2.cvtColor(colours.astype(np.float32) / 255, cv2.COLOR_BGR2Lab))]
    lab[0] *= np.float32(config.lean_outline_lightness)
    n, ring = rays.shape[1] * count, len(_RING_DIRS)
    # each ring's median colour (an odd count of samples: the middle one, per channel)
    table = np.stack([np.sort(c[:, n:n + ring], axis=1)[:, ring // 2] for c in lab], axis=1)
    body = np.stack([np.sort(c[:, n + ring:], axis=1)[:, ring // 2] for c in lab], axis=1)
    # squared distances summed channel after channel, as numpy's sum adds a last axis of 3
    to_body = [np.square(c[:, :n] - body[:, k:k + 1]) for k, c in enumerate(lab)]
    to_table = [np.square(c[:, :n] - table[:, k:k + 1]) for k, c in enumerate(lab)]
    near_body = to_body[0] + to_body[1]
    near_body += to_body[2]
    near_table = to_table[0] + to_table[1]
    near_table += to_table[2]
    near_table *= np.float32(config.lean_outline_body_share ** 2)
    off = (near_body >= near_table).reshape(*rays.shape[:2], count)
    if starts is not None:
        off &= along[:, None, :] >= starts[..., None]
    # where each ray leaves the body: the first of lean_outline_gap_px view pixels off it
    # (its face's gap of samples, all before ``final``)
    padded = np.concatenate([off, np.zeros((*off.shape[:2], gap - 1), bool)], axis=2)
    gone = off.copy()
    for j in range(1, gap):
        gone &= padded[..., j:count + j] | (j >= gaps)[:, None, None]
    gone[..., final + 1:] = False
    last = tops[:, None] * (shares[final] + (shares[1] - shares[0]))
    ends = np.where(gone.any(axis=2), np.take_along_axis(
        along, np.argmax(gone, axis=2), axis=1), last)  # (faces, rays) mm
    reach = ends + config.lean_outline_near_body * edges[:, None]
    tips = centres[:, None, :] + rays * reach[..., None]
    inside = _inside_hulls(outlines, tips.reshape(-1, 2)).reshape(
        len(outlines), faces, -1)  # [outline, face, ray]
    inside[owners, np.arange(faces)] = False
    return (ends, ~inside.any(axis=0), np.linalg.norm(table - body, axis=1),
            body[:, 0] / config.lean_outline_lightness)


def _stacked_hulls(hulls: list[np.ndarray]) -> np.ndarray:
    """cv2.convexHull's polygons as one (hulls, vertices, 2) float64 array for
    `_inside_hulls`, each padded with copies of its last vertex (edges of length 0)."""
    most = max(len(h) for h in hulls)
    out = np.empty((len(hulls), most, 2))
    for k, h in enumerate(hulls):
        out[k, :len(h)] = h.reshape(-1, 2)
        out[k, len(h):] = out[k, len(h) - 1]
    return out


def _inside_hulls(hulls: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Which of ``pts`` (n, 2) lie in each convex polygon of ``hulls`` (`_stacked_hulls`),
    its edge included: on one side of every edge; (hulls, n). An edge of length 0 is on
    both sides of every point (its cross product is 0)."""
    e = np.concatenate([hulls[:, 1:], hulls[:, :1]], axis=1) - hulls  # (hulls, edges, 2)
    cross = (e[:, None, :, 0] * (pts[None, :, None, 1] - hulls[:, None, :, 1])
             - e[:, None, :, 1] * (pts[None, :, None, 0] - hulls[:, None, :, 0]))
    return (cross >= 0).all(axis=2) | (cross <= 0).all(axis=2)


def _strengths(faces: list[tuple[GridFace, list[Pip]]]) -> dict[GridFace, float]:
    """Each face's mean pip diameter x contrast (`drop_side_faces`)."""
    return {f: sum(p.diameter * p.contrast for p in members) / len(members)
            for f, members in faces}


def _not_sides(faces: list[tuple[GridFace, list[Pip]]], lens: tuple[np.ndarray, float],
               config: DiceConfig) -> list[tuple[GridFace, list[Pip]]]:
    """The faces `drop_side_faces` keeps, as reported: a side face's 5 beside its die's
    top face, foreshortened, measures a pitch between the top faces' and a side's 2, and
    won the throw's pitch vote (`throw_sizes`), so a top 3 was left unread as leaning.
    Unread faces neither vote nor make others sides: left out."""
    read = [(f, members) for f, members in faces if f.value]
    shown = drop_side_faces([f for f, _ in read], lens, config, _strengths(read))
    return [(g, members) for (_, members), g in zip(read, shown, strict=True)
            if g is not None]


def _with_faint_faces(faces: list[tuple[GridFace, list[Pip]]], layers: list,
                      located: _Located | None, throw: tuple[float, float] | None,
                      tops: DiceConfig, lo: np.ndarray, nadir: np.ndarray,
                      config: DiceConfig, blobs: list[list[np.ndarray]] | None = None,
                      refit: set[int] | None = None) -> list[tuple[GridFace, list[Pip]]]:
    """``faces`` and the faces of faint pips (``faint_contrast``, black-hat under
    ``min_contrast``: blur and dim light take a small pip's contrast far under it): a face
    of 2-6 pips read with a value, its pips round (``faint_roundness``), at least one of
    them a pip the search over ``min_contrast`` did not find, where no face of those pips
    (read, or unreadable) would stand by its die (``side_overlap``). ``layers`` are
    `read_dice_rectified`'s per pip colour: the closing and black-hat are the same at any
    threshold. Faint lone pips are no 1s (``single_min_contrast``), and faint pips beside
    read dice would be their sides. With ``faint_over_unread`` an unread face (pips no
    pattern explains) does not hold the search off: a dim die's pips are often partly found
    over ``min_contrast``; a faint face is kept there only if it explains those of them on
    its die (`_explains`: a leaning die's tilted lattice leaves pips off it), and the
    unread face is then dropped as the read die's side (``unread_beside``). With ``blobs``,
    each pip colour's blobs' contours are added to it (`_table_bar_sixes`). The pips of
    ``refit`` (ids; ``faint_refit_small``) count as not found over ``min_contrast``."""
    faint_config, faint_tops = _faint_configs(config, tops)
    s = config.rectified_px_per_mm
    blocking = [(f, m) for f, m in faces if f.value or not config.faint_over_unread]
    unread = [np.array([(p.x, p.y) for p in m]) / s + lo
              for f, m in faces if f.value is None and config.faint_over_unread]
    strong = [(np.asarray(f.centre), f.pitch / config.pip_pitch_share) for f, _ in blocking]

    def to_px(q: np.ndarray) -> np.ndarray:
        return (q - lo) * s

    # no pip within this of a strong face's centre is on a faint face kept (its lattice
    # reaches sqrt(2) pitches from its centre): not searched (these discs are cleared from
    # each pip colour's thresholded image, not from a copy of the whole search mask)
    shape = layers[0][3].shape
    discs = []
    for (c, e), (f, _) in zip(strong, blocking, strict=True):
        r = config.side_overlap * e - math.sqrt(2) * f.pitch
        if r > 0:
            discs.append((tuple(int(v) for v in np.rint(to_px(c))), int(r * s)))
    # `_blobs` looks at the located boxes only: thresholded there alone (``dst``), not over
    # the whole view
    boxes = [(0, 0, shape[1], shape[0])] if located is None else located.boxes
    binary = _work_image("binary", shape)
    found: list[tuple[GridFace, list[Pip]]] = []
    for found_pips, _, closed, hat, _ in layers:
        if refit:
            found_pips = [p for p in found_pips if id(p) not in refit]
        for x0, y0, x1, y1 in boxes:
            part = np.s_[y0:y1, x0:x1]
            cv2.threshold(hat[part], config.faint_contrast, 255, cv2.THRESH_BINARY,
                          dst=binary[part])
            if located is not None:
                cv2.bitwise_and(binary[part], located.search[part], dst=binary[part])
        for centre, radius in discs:
            cv2.circle(binary, centre, radius, 0, -1)
        contours = _contours(binary, located and located.boxes)
        if blobs is not None:
            blobs.append(contours)
        pips = _blobs(binary, hat, faint_config, contours=contours)
        pts = np.array([(p.x / s + lo[0], p.y / s + lo[1]) for p in pips]).reshape(-1, 2)
        new = _new_pips(pips, found_pips)
        # only faces of 2+ pips, one of them new, are kept, and no fit or check reaches from
        # one pip to another farther than _fit_reach: pips not chained to a new pip by such
        # steps cannot change them (the fits are picked greedily, each pip on one face)
        kept = _chained(pts, new, _fit_reach(tops))
        if len(kept) < len(pips):
            pips, pts, new = [pips[i] for i in kept], pts[kept], [new[i] for i in kept]
        if not any(new):
            continue
        judge = _Judge(pips, pts, closed, hat, faint_tops, to_px, to_px(nadir))
        for f in fit_faces(pips, pts, judge, faint_tops, lattice_candidates(pts, tops), throw,
                           nadir):
            edge = f.pitch / config.pip_pitch_share
            members = [pips[i] for i in f.members]
            least = (config.faint_many_roundness
                     if len(members) >= config.many_pips and config.faint_many_roundness
                     else config.faint_roundness)
            if (f.value and len(members) >= 2 and any(new[i] for i in f.members)
                    and sum(p.roundness for p in members) / len(members) >= least
                    and all(np.linalg.norm(np.asarray(f.centre) - c) >= config.side_overlap
                            * max(edge, e) for c, e in strong)
                    and all(_explains(f, q, edge, config) for q in unread)):
                found.append((f, members))
    return faces + found


def _table_bar_sixes(faces: list[tuple[GridFace, list[Pip]]], layers: list,
                     blobs: list[list[np.ndarray]], lo: np.ndarray,
                     lens: tuple[np.ndarray, float],
                     config: DiceConfig) -> list[tuple[GridFace, list[Pip]]]:
    """Blurred 6s whose columns run into bars in the top view, which no search cuts into
    pips that fit a lattice (the close-up's `_bar_sixes`, at the table's sizes): two of the
    black-hat's blobs over ``faint_contrast`` (``blobs``: the faint search's contours, per
    pip colour) that `_six_of_bars` takes for a 6's columns on one body (the closing),
    their separation two pitches of a die ``die_min_mm`` to ``die_max_mm`` across, their
    middles filled (`_filled_middle`) and each even along its pips (`_even_bar`: a sharp
    side face's or leaning top's squashed pips run together at this contrast but dip
    between), every unread pip of their colour on the die on a column (`_on_columns`),
    where no face read with a value would stand by its die (``side_overlap``) nor shows a
    side towards the lens (``side_match``: such a side's pips, foreshortened, run into bars
    however strong, and `drop_side_faces` keeps what is as strong as the top). Each is a 6
    of the columns' pitch and turn, its two bars as its pips; each bar is taken once, the
    pairs likest a 6's columns first. An unread face there is left to `drop_side_faces`
    as its side."""
    s = config.rectified_px_per_mm
    bar_config = _table_bar_config(config)
    least, most = (2 * config.pip_pitch_share * mm * s
                   for mm in (config.die_min_mm, config.die_max_mm))
    # a column spans face_bar_span of the separation besides its width: its box is at least
    # that over sqrt 2 on a side, and at most that and a blurred pip (pips, most of the
    # blobs, and the board's lines are not looked at further)
    shortest = config.face_bar_span[0] * least / math.sqrt(2)
    longest = config.face_bar_span[1] * most + math.sqrt(4 * bar_config.max_pip_area_px / math.pi)
    candidates = []
    for layer, contours in zip(layers, blobs, strict=True):
        bars = _bars([c for c in contours
                      if shortest <= max(cv2.boundingRect(c)[2:]) <= longest], bar_config)
        pairs = sorted((fit, i, j) for i in range(len(bars)) for j in range(i + 1, len(bars))
                       if least <= math.dist(bars[i][:2], bars[j][:2]) <= most
                       and (fit := _six_of_bars(bars[i], bars[j], layer[2], bar_config))
                       is not None)
        if pairs:
            candidates.append((layer, bars, pairs))
    if not candidates:
        return []
    read, sides = _read_dice_and_sides(faces, lens, config)
    unread = [m for f, m in faces if f.value is None]
    found: list[tuple[GridFace, list[Pip]]] = []
    for (layer_pips, _, _, hat, _), bars, pairs in candidates:
        clusters = _unread_of(unread, layer_pips)
        used: set[int] = set()
        for _, i, j in pairs:
            a, b = bars[i], bars[j]
            centre = np.array([(a.x + b.x) / 2, (a.y + b.y) / 2]) / s + lo
            pitch = math.dist(a[:2], b[:2]) / 2 / s
            edge = pitch / config.pip_pitch_share
            if (i in used or j in used
                    or any(np.linalg.norm(centre - c) < config.side_overlap * max(edge, e)
                           for c, e in read)
                    or any(np.linalg.norm(centre - q) < config.side_match * e for q, e in sides)
                    or not all(_filled_middle(bar, hat, bar_config)
                               and _even_bar(bar, hat, config.face_bar_even) for bar in (a, b))
                    or not all(_on_columns(q, (a, b), config.lattice_tolerance * pitch * s,
                                           config.face_bar_die_reach) for q in clusters)):
                continue
            used |= {i, j}
            turn = a.angle % math.pi  # the columns along the lattice's first axis, or across
            face = GridFace(6, (float(centre[0]), float(centre[1])), turn % (math.pi / 2),
                            pitch, (), 0.0, _SIX_ALONG if turn < math.pi / 2 else _SIX_ACROSS)
            pips = [Pip(bar.x, bar.y, bar.width, bar.width / bar.length,
                        float(hat[int(bar.y), int(bar.x)]), bar.angle) for bar in (a, b)]
            found.append((face, pips))
            read.append((centre, edge))
    return found


def _read_dice_and_sides(faces: list[tuple[GridFace, list[Pip]]],
                         lens: tuple[np.ndarray, float], config: DiceConfig) -> tuple[list, list]:
    """Each face read with a value as (centre, die edge), and each of its die's sides
    towards the lens as the top view shows it (`drop_side_faces`) as (centre, die edge)."""
    read, sides = [], []
    for f, _ in faces:
        if f.value:
            spot, edge = footprint(f, lens, config)
            read.append((np.asarray(f.centre), edge))
            sides += [(q, edge) for q in _lens_sides(spot, edge, f.angle, lens)]
    return read, sides


def _unread_of(unread: list[list[Pip]], pips: list[Pip]) -> list[np.ndarray]:
    """The ``unread`` clusters of ``pips``' colour (view px): the other colour's blobs
    include the gaps between pips."""
    own = {id(p) for p in pips}
    return [np.array([(p.x, p.y) for p in m]) for m in unread if id(m[0]) in own]


def _on_columns(pips: np.ndarray, bars: tuple[_Bar, _Bar], reach: float,
                die: float) -> bool:
    """Whether every one of ``pips`` (view px, an unread cluster's) within ``die`` of the
    columns' separation of the middle between the two ``bars`` lies within ``reach`` of a
    bar's axis, within its length: a blurred 6's columns cut into pips that fit no lattice
    do, a leaning die's other pips (its top's beside its side's 6) do not."""
    a, b = bars
    centre = np.array([(a.x + b.x) / 2, (a.y + b.y) / 2])
    half = die * math.dist(a[:2], b[:2])
    on_die = pips[np.hypot(*(pips - centre).T) < half]
    for x, y in on_die:
        if not any(abs(-(x - bar.x) * math.sin(bar.angle) + (y - bar.y) * math.cos(bar.angle))
                   <= reach and abs((x - bar.x) * math.cos(bar.angle)
                                    + (y - bar.y) * math.sin(bar.angle)) <= bar.length / 2
                   for bar in bars):
            return False
    return True


def _even_bar(bar: _Bar, hat: np.ndarray, least: float) -> bool:
    """The black-hat along the bar's axis between its end pips' centres (its length less
    its width) is nowhere under ``least`` of its most along the whole bar: a blurred
    column's pips run into each other, sharp squashed pips dip between."""
    steps = np.arange(-bar.length / 2, bar.length / 2 + 1e-9)
    h, w = hat.shape
    xs = _pixels(bar.x + steps * math.cos(bar.angle), 0, w - 1)
    ys = _pixels(bar.y + steps * math.sin(bar.angle), 0, h - 1)
    values = hat[ys, xs]
    inner = values[np.abs(steps) <= (bar.length - bar.width) / 2]
    return len(inner) > 0 and int(inner.min()) >= least * int(values.max())


#: GridFace.cells of a 6 whose columns run along the lattice's first axis, or across it
_SIX_ALONG = sum(1 << k for k, (_, j) in enumerate(_CELLS) if j)
_SIX_ACROSS = sum(1 << k for k, (i, _) in enumerate(_CELLS) if i)


@lru_cache(maxsize=4)
def _table_bar_config(config: DiceConfig) -> DiceConfig:
    """The top view's pip sizes (`_rectified_pip_config`) for `_bars` and `_six_of_bars`:
    a bar is as wide as a pip of the smallest die, and at most ``face_bar_width`` of the
    largest die's columns' separation (a blurred pip may be wider than the largest pip)."""
    pips = _rectified_pip_config(config)
    widest = config.face_bar_width[1] * 2 * config.pip_pitch_share * config.die_max_mm \
        * config.rectified_px_per_mm
    return replace(pips, face_faint_min_area_px=pips.min_pip_area_px,
                   max_pip_area_px=max(pips.max_pip_area_px, math.pi / 4 * widest ** 2))


def _left_off(before: list[tuple[GridFace, list[Pip]]],
              after: list[tuple[GridFace, list[Pip]]]) -> set[int]:
    """The ids of the pips of faces of 2+ read by the fit without the throw's sizes
    (``before``) that the fit with them (``after``) reads on no face, unless it fitted that
    same lattice again (an unreadable cluster of those pips is no lattice): unread then as
    tilted (its pitch off the throw's, not its pips' size;
    a 1 fitted with its side's pip as a 2 was so)."""
    again = {(frozenset(map(id, members)), f.pitch, f.angle) for f, members in after}
    read = {id(p) for f, members in after if f.value for p in members}
    return {id(p) for f, members in before if f.value and len(members) >= 2
            and (frozenset(map(id, members)), f.pitch, f.angle) not in again
            for p in members} - read


def _new_pips(pips: list[Pip], known: list[Pip]) -> list[bool]:
    """Per pip, whether no pip of ``known`` lies within its radius (math.hypot); only pairs
    that near along x and y are measured: the rest lie farther whatever the rounding."""
    new = [True] * len(pips)
    if not pips or not known:
        return new
    xy = np.array([(p.x, p.y) for p in pips])
    kx, ky = np.array([(q.x, q.y) for q in known]).T
    radius = np.array([p.diameter / 2 for p in pips])[:, None] * (1 + 1e-9)
    near = (np.abs(xy[:, :1] - kx) <= radius) & (np.abs(xy[:, 1:] - ky) <= radius)
    for i, j in zip(*np.nonzero(near), strict=True):
        p, q = pips[i], known[j]
        if new[i] and math.hypot(p.x - q.x, p.y - q.y) <= p.diameter / 2:
            new[i] = False
    return new


def _chained(pts: np.ndarray, start: list[bool], reach: float) -> np.ndarray:
    """Indices of the points (in order) joined by steps of at most ``reach`` to a ``start``
    point that has another point within ``reach``."""
    close = distances(pts) <= reach
    reached = np.array(start, bool) & (close.sum(axis=1) > 1)
    while True:
        grown = reached | close[reached].any(axis=0)
        if (grown == reached).all():
            return np.flatnonzero(reached)
        reached = grown


def _explains(face: GridFace, pips: np.ndarray, edge: float, config: DiceConfig) -> bool:
    """Whether every one of ``pips`` (table mm, an unread cluster's) within half ``edge`` of
    the face's centre sits on one of its pips' lattice points (``lattice_tolerance``)."""
    on_die = pips[np.hypot(*(pips - np.asarray(face.centre)).T) < edge / 2]
    if not len(on_die):
        return True
    points = np.array(_pips_of(face))
    gaps = np.hypot(*(on_die[:, None] - points[None]).transpose(2, 0, 1)).min(axis=1)
    return bool(gaps.max() <= config.lattice_tolerance * face.pitch)


@lru_cache(maxsize=8)
def _faint_configs(config: DiceConfig, tops: DiceConfig) -> tuple[DiceConfig, DiceConfig]:
    """The faint search's pip config and its face checks' ``tops`` (`_with_faint_faces`):
    they depend on the config and the view only, and making them costs ~0.1 ms a frame."""
    faint_config = replace(_rectified_pip_config(config), min_contrast=config.faint_contrast,
                           split_levels=config.faint_split_levels, pip_row_pitch_px=0.0)
    # an empty lattice point's limit is a share of the faint search's contrast: the strong
    # one's (30) let a faint 3's corners, its fainter middle pip unfound, pass as a 2
    return faint_config, replace(tops, min_contrast=config.faint_contrast)


def _grey_box(frame: np.ndarray, box: Box) -> np.ndarray:
    """The frame in grey where the top view samples it (``box``, `_TopView.frame_box`), 0
    elsewhere: the rest of the frame is never looked at."""
    _work_image("grey", frame.shape[:2]).fill(0)
    return _grey_in_box(frame, box)


def _grey_in_box(frame: np.ndarray, box: Box) -> np.ndarray:
    """The frame made grey in ``box`` only, in the thread's grey work image (`_work_image`),
    the rest of it left as the last read left it: the still test looks at the box alone."""
    x0, y0, x1, y1 = box
    grey = _work_image("grey", frame.shape[:2])
    if x1 > x0 and y1 > y0:  # else the area is wholly outside the frame
        cv2.cvtColor(frame[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY, dst=grey[y0:y1, x0:x1])
    return grey


def _zero_round(image: np.ndarray, box: Box) -> None:
    """``image`` zeroed outside ``box`` (x0, y0, x1, y1), in place: as `_grey_box` leaves
    the grey frame, without writing the box twice."""
    x0, y0, x1, y1 = box
    if x1 <= x0 or y1 <= y0:
        image.fill(0)
    else:
        image[:y0], image[y1:], image[y0:y1, :x0], image[y0:y1, x1:] = 0, 0, 0, 0


_WORK = threading.local()
_WORK_KEPT = 16  # work images a thread keeps (a read uses 9: 6 of the view, 3 of the frame)


def _work_image(name: str, shape: tuple[int, ...]) -> np.ndarray:
    """An 8-bit image of a read's work, kept between this thread's reads and handed out
    again with what the last read left in it: the allocator gives a fresh whole-view array's
    pages back when a read ends, and the system faults and zeroes them in again on the next
    (~500 pages, ~5-10 % of a read)."""
    kept = getattr(_WORK, "images", None)
    if kept is None:
        kept = _WORK.images = {}
    image = kept.get((name, shape))
    if image is None:
        if len(kept) >= _WORK_KEPT:
            kept.clear()
        image = kept[(name, shape)] = np.empty(shape, np.uint8)
    return image


def _warp(grey: np.ndarray, view: _TopView, strips: list[Box] | None) -> np.ndarray:
    """The bicubic top view of the area, or only of ``strips`` (0 elsewhere): a piece warped
    on its own is the whole view's pixels but for a rare last-bit rounding."""
    flags = cv2.INTER_CUBIC | cv2.WARP_INVERSE_MAP
    if strips is None:
        return cv2.warpPerspective(grey, view.rect_to_frame, view.size, flags=flags,
                                   borderMode=cv2.BORDER_REPLICATE)
    top = _work_image("top", view.size[::-1])
    top.fill(0)
    for x0, y0, x1, y1 in strips:  # each strip warped straight into its place (``dst``)
        shift = np.array([[1, 0, x0], [0, 1, y0], [0, 0, 1]], np.float64)
        cv2.warpPerspective(grey, view.rect_to_frame @ shift, (x1 - x0, y1 - y0),
                            dst=top[y0:y1, x0:x1], flags=flags,
                            borderMode=cv2.BORDER_REPLICATE)
    return top


class _Located(NamedTuple):
    """Where pips may be in the top view (`_locate`)."""

    strips: list[Box]  # the table within locate_margin_mm of a mark, in rows: warped
    boxes: list[Box]  # not overlapping, round the strips: each closed on its own
    search: np.ndarray  # 255 where pips are searched: the closing is right there


_STRIP_MM = 12  # height of `_Located.strips`: fewer warp calls against less area warped


def _locate(grey: np.ndarray, view: _TopView, config: DiceConfig) -> _Located:
    """Where pips are worth searching for: the table within ``locate_margin_mm`` of frame
    pixels as much darker (dark pips) or lighter (light pips) than their surroundings as
    ``locate_contrast``. Found in the frame itself, which has fewer pixels than the top view:
    a cheap first pass. Pips are searched only where every pixel the closing takes in is
    warped, so none is made up at the edge of what is warped."""
    x0, y0, x1, y1 = view.frame_box
    crop = grey[y0:y1, x0:x1]
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (view.locate_kernel,) * 2)
    # made in the corners of frame-sized work images: the box's size changes with the view
    marks = _work_image("marks", grey.shape)[:y1 - y0, :x1 - x0]
    marks.fill(0)
    hat = _work_image("frame hat", grey.shape)[:y1 - y0, :x1 - x0]
    for polarity in config.polarities if crop.size else ():  # none: area outside the frame
        cv2.morphologyEx(crop, cv2.MORPH_BLACKHAT if polarity == "dark" else cv2.MORPH_TOPHAT,
                         kernel, dst=hat)
        cv2.threshold(hat, config.locate_contrast - 1, 255, cv2.THRESH_BINARY, dst=hat)
        cv2.max(marks, hat, dst=marks)
    found = (cv2.findNonZero(cv2.bitwise_and(marks, view.frame_mask, dst=marks))
             if crop.size else None)
    s = config.rectified_px_per_mm
    w, h = view.size
    cols, rows = math.ceil(w / s), math.ceil(h / s)
    grid = np.zeros((rows, cols), np.uint8)  # 1 mm cells from the view's corner
    if found is not None:
        cells = cv2.perspectiveTransform((found.reshape(-1, 1, 2) + (x0, y0)).astype(
            np.float64), view.frame_to_rect).reshape(-1, 2) // s
        cells = cells[(cells[:, 0] >= 0) & (cells[:, 0] < cols) & (cells[:, 1] >= 0)
                      & (cells[:, 1] < rows)].astype(np.int64)
        grid[cells[:, 1], cells[:, 0]] = 1

    def near(mm: int) -> np.ndarray:
        return cv2.dilate(grid, cv2.getStructuringElement(cv2.MORPH_RECT, (2 * mm + 1,) * 2))

    warped = near(math.ceil(config.locate_margin_mm))
    # each strip: the cells of _STRIP_MM rows in a row, one run of columns with marks near
    bands = -(-rows // _STRIP_MM)
    band = np.zeros((bands * _STRIP_MM, cols + 2), np.uint8)
    band[:rows, 1:-1] = warped
    band = band.reshape(bands, _STRIP_MM, cols + 2).max(axis=1)
    row, col = np.nonzero(np.diff(band.astype(np.int8), axis=1))
    strips = [(round(a * s), round(r * _STRIP_MM * s), min(round(b * s), w),
               min(round((r + 1) * _STRIP_MM * s), h))
              for r, a, b in zip(row[::2].tolist(), col[::2].tolist(), col[1::2].tolist(),
                                 strict=True)]
    contours, _ = cv2.findContours(warped, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cell_boxes = _disjoint([(x, y, x + bw, y + bh)
                            for x, y, bw, bh in map(cv2.boundingRect, contours)])
    # the closing takes in pixels up to twice its kernel's half away; one cell more for the
    # view's pixels that cells only approximately cover
    closing_mm = 2 * (_rectified_pip_config(config).hat_kernel_px // 2) / s
    searched = near(max(math.ceil(config.locate_margin_mm - closing_mm) - 1, 0)) * 255
    search = _work_image("search", (h, w))
    search.fill(0)  # outside the boxes no pip is found anyway
    boxes = []
    for cx0, cy0, cx1, cy1 in cell_boxes:
        x0, y0, x1, y1 = round(cx0 * s), round(cy0 * s), min(round(cx1 * s), w), \
            min(round(cy1 * s), h)
        cv2.resize(searched[cy0:cy1, cx0:cx1], (x1 - x0, y1 - y0), dst=search[y0:y1, x0:x1],
                   interpolation=cv2.INTER_NEAREST)
        boxes.append((x0, y0, x1, y1))
    return _Located(strips, boxes, search)


def _disjoint(boxes: list[Box]) -> list[Box]:
    """Overlapping boxes (x0, y0, x1, y1) merged into their bounding box until none
    overlap: each is closed on its own, so none may cut into another."""
    merged = True
    while merged:
        merged = False
        for i, a in enumerate(boxes):
            for j in range(i + 1, len(boxes)):
                b = boxes[j]
                if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                    boxes[i] = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]),
                                max(a[3], b[3]))
                    del boxes[j]
                    merged = True
                    break
            if merged:
                break
    return boxes


class _LastRead(NamedTuple):
    """The last frame of a dice area read in full: its corners, block means and readings."""

    region_px: np.ndarray
    box: tuple[int, int, int, int]  # `_TopView.frame_box`
    blocks: np.ndarray  # `_blocks` of that box
    readings: list[DieReading]
    agreed: int  # full reads in a row of the still area, up to this one, with these values


def _values(readings: list[DieReading]) -> list[int]:
    """The values read, unread dice as 0, in order: what must agree between full reads."""
    return sorted(r.value or 0 for r in readings)


class StillReads:
    """The last frame of each dice area read in full, for a reader of a stream of frames
    (the throw tracker keeps one): while nothing changes there but sensor noise, its
    readings hold (``DiceConfig.still_change``). Keyed by the area, frame size and config;
    the ``size`` areas used last are kept."""

    def __init__(self, size: int = 4) -> None:
        self.size = size
        self._reads: dict[tuple[bytes, tuple[int, ...], DiceConfig], _LastRead] = {}

    def __repr__(self) -> str:
        return f"<StillReads {len(self._reads)} of {self.size} areas>"

    def last(self, key: tuple[bytes, tuple[int, ...], DiceConfig]) -> _LastRead | None:
        return self._reads.get(key)

    def keep(self, key: tuple[bytes, tuple[int, ...], DiceConfig], read: _LastRead) -> None:
        self._reads.pop(key, None)
        self._reads[key] = read
        if len(self._reads) > self.size:
            del self._reads[next(iter(self._reads))]


def _blocks(image: np.ndarray, box: tuple[int, int, int, int],
            config: DiceConfig) -> np.ndarray | None:
    """Mean grey of each block of ``still_block_px`` round the area's top view in the frame
    (BGR or grey; None if none of it is in the frame): averaging leaves sensor noise far
    under a pip's or a die edge's change. Only the box is made grey: a still frame costs
    little more than this."""
    x0, y0, x1, y1 = box
    if x1 <= x0 or y1 <= y0:
        return None
    crop = image[y0:y1, x0:x1]
    grey = crop if crop.ndim == 2 else cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    b = config.still_block_px
    w, h = max(1, (x1 - x0) // b), max(1, (y1 - y0) // b)
    return cv2.resize(grey, (w, h), interpolation=cv2.INTER_AREA).astype(np.int16)


def _still(last: _LastRead | None, frame: np.ndarray, px: np.ndarray, config: DiceConfig
           ) -> tuple[bool, np.ndarray | None, np.ndarray | None]:
    """Whether nothing in the area changed since ``last`` was read: its readings hold for this
    frame. Blocks are compared in ``last``'s box: the board's reading jitters the area's
    corners by ~0.001 px a frame, which may move the box by a pixel and no block by a grey
    level. Also the frame's grey in that box (`_grey_in_box`) and its blocks, if they were
    made: a full read of the same box needs them both (the referee's moving frames)."""
    if last is None or float(np.abs(last.region_px - px).max()) >= config.still_shift_px:
        return False, None, None
    grey = frame if frame.ndim == 2 else _grey_in_box(frame, last.box)
    blocks = _blocks(grey, last.box, config)
    return int(np.abs(last.blocks - blocks).max()) < config.still_change, grey, blocks


class _TopView(NamedTuple):
    """What the top view of one dice area needs besides the frame."""

    lo: np.ndarray  # table mm at the view's top left corner
    size: tuple[int, int]  # the view's width and height in pixels
    rect_to_frame: np.ndarray  # homography from view pixels to frame pixels
    frame_to_rect: np.ndarray  # and back
    area: np.ndarray  # the dice area's corners in table mm (float32, for pointPolygonTest)
    lens: tuple[np.ndarray, float]  # `_lens_over_table`
    tops: DiceConfig  # the die sizes as top faces show in the table-plane view
    frame_box: Box  # the view's bounding box in the frame
    locate_kernel: int  # `_locate`'s hat kernel: the pip search's, in frame pixels at most
    frame_mask: np.ndarray  # 255 where the view shows in ``frame_box``


@lru_cache(maxsize=16)
def _top_view(region_px: bytes, region_mm: bytes, frame_shape: tuple[int, ...],
              config: DiceConfig) -> _TopView:
    """The geometry of the dice area's top view, from its corners (float64 bytes) in frame
    pixels and table mm: worked out once while the referee's area stays where it is."""
    px = np.frombuffer(region_px).reshape(-1, 2)
    mm = np.frombuffer(region_mm).reshape(-1, 2)
    s = config.rectified_px_per_mm
    lo = mm.min(axis=0) - config.die_max_mm  # dice at the area's edge are seen whole
    size = np.ceil((mm.max(axis=0) + config.die_max_mm - lo) * s).astype(int)
    mm_to_frame, _ = cv2.findHomography(mm, px)
    if mm_to_frame is None:
        raise DiceInputError("the dice region's corners do not span an area")
    rect_to_frame = mm_to_frame @ np.array([[1 / s, 0, lo[0]], [0, 1 / s, lo[1]], [0, 0, 1]])
    lens = _lens_over_table(mm_to_frame, frame_shape, config)
    # top faces lie one die above the table: the table-plane view enlarges them by H / (H - e)
    height = lens[1]
    tops = replace(config, die_min_mm=config.die_min_mm * height / (height - config.die_min_mm),
                   die_max_mm=config.die_max_mm * height / (height - config.die_max_mm))
    corners = np.array([[0, 0], [size[0], 0], [size[0], size[1]], [0, size[1]]], np.float64)
    seen = cv2.perspectiveTransform(corners[None], rect_to_frame)[0]
    # bicubic samples reach two pixels beyond a view pixel's place in the frame
    (x0, y0), (x1, y1) = np.floor(seen.min(axis=0)) - 2, np.ceil(seen.max(axis=0)) + 3
    h, w = frame_shape[:2]
    box = (int(np.clip(x0, 0, w)), int(np.clip(y0, 0, h)), int(np.clip(x1, 0, w)),
           int(np.clip(y1, 0, h)))
    # the pip search's kernel in mm, in frame pixels where they cover least table
    step = np.array([[[0, 0], [s, 0], [0, s]]], np.float64) + corners[:, None]  # 1 mm steps
    moved = cv2.perspectiveTransform(step.reshape(1, -1, 2), rect_to_frame)[0].reshape(-1, 3, 2)
    px_per_mm = float(np.linalg.norm(moved[:, 1:] - moved[:, :1], axis=2).max())
    kernel = 2 * math.ceil(_rectified_pip_config(config).hat_kernel_px / s * px_per_mm / 2) + 1
    frame_mask = np.zeros((box[3] - box[1], box[2] - box[0]), np.uint8)
    cv2.fillConvexPoly(frame_mask, np.round(seen - box[:2]).astype(np.int32), 255)
    return _TopView(lo, (int(size[0]), int(size[1])), rect_to_frame, np.linalg.inv(rect_to_frame),
                    mm.astype(np.float32), lens, tops, box, kernel, frame_mask)


def _lens_over_table(mm_to_frame: np.ndarray, shape: tuple[int, ...],
                     config: DiceConfig) -> tuple[np.ndarray, float]:
    """The table point under the lens (mm) and the lens height (mm), from the dice area's
    homography; the focal length is estimated from it when plausible, else the default."""
    h, w = shape[:2]
    focal = estimate_focal(mm_to_frame, w, h)
    if focal is None or not config.fov_min_deg <= fov_from_focal(focal, w) <= config.fov_max_deg:
        focal = focal_from_fov(config.default_fov_deg, w)
    pose = pose_from_homography(mm_to_frame, focal, w, h)
    return pose.nadir_mm, pose.height_mm


def _in_area(face: GridFace, area: np.ndarray, lens: tuple[np.ndarray, float],
             config: DiceConfig) -> bool:
    """A die standing outside the dice area is not thrown. Where a read face's die stands
    decides, not where its top face shows in the table-plane view; unread pips may lie on
    the table (marks, a dotted line), so they are taken where they show."""
    spot = footprint(face, lens, config)[0] if face.value else np.asarray(face.centre)
    return cv2.pointPolygonTest(area, (float(spot[0]), float(spot[1])), False) >= 0


def footprint(face: GridFace, lens: tuple[np.ndarray, float],
              config: DiceConfig) -> tuple[np.ndarray, float]:
    """Where the face's die stands on the table (mm) and its edge: the top view is of the
    table plane, where a top face one die up lies farther from the point under the lens
    (by ~16 mm at the far side of the referee's dice area)."""
    nadir, height = lens
    edge = face.pitch / config.pip_pitch_share
    return nadir + (np.asarray(face.centre) - nadir) * (height - edge) / height, edge


def drop_side_faces(faces: list[GridFace], lens: tuple[np.ndarray, float],
                    config: DiceConfig,
                    strength: dict[GridFace, float] | None = None,
                    in_front: Callable[[GridFace], bool] | None = None) -> list[GridFace | None]:
    """A side face seen from above looks like a face of its own, beside the top face on the
    side towards the lens. A face is dropped as a side face when it lies within
    ``side_match`` die edges of where a read top face's die shows a side towards the lens
    (a 1's die turned as the face, `_side_turn`; its sides are squashed too little in the
    top view to tell by shape, and a 1 or 2 has no shape to tell by) and, unless a lone
    pip, weaker than that die's face
    (``side_match_share``: a die in front of that side hides it, and is not
    foreshortened; a lone pip too if ``in_front`` finds its die's own sides), or when,
    lowered from the die's height to the table, its die would stand inside another die
    whose face lies farther from the point under the lens (dice cannot stand inside each
    other), or when it is under ``side_face_share`` of a read die's strength and all its
    pips lie on the sides of such dice as the top view shows them (`_on_sides`: pips of
    two touching dice's sides fit a 2). First, with
    ``side_pip_reach``, a lone pip under ``side_pip_share`` of a read face's strength
    (``strength``: mean diameter x contrast of each face's pips) is dropped where that
    face's die shows a pip on a side (`_side_pip_of`): under a steep view such a pip shows
    a die edge or more from its top face, too far for the rest. Pips left unread within
    ``unread_beside`` die edges of a read face are taken for its sides, and so are those
    under ``side_face_share`` of a read die's strength within ``unread_side_match`` die
    edges of where it shows a side; they never hide a read face. Returns each face as
    reported, None where dropped; with ``one_over_one`` a 1 whose die would stand over
    another lone pip read as a 1, of at least ``side_pip_share`` its pip's strength, is
    unreadable: that pip is no side pip of its die, and a die showing 1 shows no 1 on a
    side."""
    nadir = lens[0]
    strength = strength or {}

    def lone(face: GridFace) -> bool:
        return len(face.members) == 1 and face in strength

    feet = [footprint(f, lens, config) for f in faces]
    read = [(f, spot, edge, list(_lens_sides(spot, edge, f.angle, lens)))
            for f, (spot, edge) in zip(faces, feet, strict=True) if f.value]
    side_pips = {face for face in faces if face.value and lone(face) and config.side_pip_reach
                 and any(f is not face and strength[face] < config.side_pip_share
                         * strength.get(f, 0.0)
                         and _side_pip_of(np.asarray(face.centre), f, spot, e, lens, config)
                         for f, spot, e, _ in read)}
    read = [r for r in read if r[0] not in side_pips]

    def sides(f: GridFace, spot: np.ndarray, edge: float, shown: list, face: GridFace) -> list:
        turn = _side_turn(f, face, config)
        return shown if turn == f.angle else list(_lens_sides(spot, edge, turn, lens))

    kept: list[GridFace | None] = []
    unsure: set[GridFace] = set()
    for face, (spot, edge) in zip(faces, feet, strict=True):
        outward = np.linalg.norm(spot - nadir)
        if face in side_pips:
            side = True
        elif face.value:
            over = [f for f, other, e, _ in read if f is not face
                    and np.linalg.norm(spot - other) < config.side_overlap * max(edge, e)
                    and np.linalg.norm(other - nadir) > outward]
            stronger = [(f, other, e) for f, other, e, _ in read if f is not face
                        and strength.get(face, 0.0)
                        < config.side_face_share * strength.get(f, 0.0)]
            side = bool(over) or any(
                lone(face) and not (in_front and in_front(face))
                or not config.side_match_share
                or strength.get(face, 0.0) < config.side_match_share * strength.get(f, 0.0)
                for f, other, e, shown in read if f is not face
                and min((math.dist(face.centre, q) for q in sides(f, other, e, shown, face)),
                        default=math.inf) < config.side_match * e
            ) or _on_sides(face, stronger, lens)
            if config.one_over_one and lone(face):
                unsure.update(f for f in over if lone(f) and f.value == 1
                              and strength[face] >= config.side_pip_share * strength[f])
        else:
            side = any(math.dist(face.centre, f.centre) < config.unread_beside * e
                       or min((math.dist(face.centre, q) for q in shown), default=math.inf)
                       < config.unread_side_match * e and strength.get(face, 0.0)
                       < config.side_face_share * strength.get(f, 0.0)
                       for f, _, e, shown in read)
        kept.append(None if side else face)
    return [replace(f, value=None) if f in unsure else f for f in kept]


def _side_turn(die: GridFace, face: GridFace, config: DiceConfig) -> float:
    """The turn at which ``die``'s die is taken to show ``face`` on a side: its own lattice's,
    or with ``one_sides_at_face_turn`` for a 1 (no turn) and a face of 2+ pips the face's,
    as a side's lattice lies along its die's edges."""
    if config.one_sides_at_face_turn and die.value == 1 and len(face.members) > 1:
        return face.angle
    return die.angle


def _on_sides(face: GridFace, dice: list[tuple[GridFace, np.ndarray, float]],
              lens: tuple[np.ndarray, float]) -> bool:
    """Whether every pip of ``face`` lies on the sides of one of ``dice`` (top face, where
    it stands, edge) as the top view shows them: within the die's body, its foot and its
    top raised by its edge and seen from the lens, but off its top face. A die showing 1
    has no known turn: its foot and top are taken as the squares' inscribed circles."""
    if not dice:
        return False
    shapes = []
    for top, spot, edge in dice:
        foot, raised = _foot_and_top(top, spot, edge, lens)
        raised = raised.astype(np.float32)
        shapes.append((cv2.convexHull(np.vstack([foot.astype(np.float32), raised])), raised))
    return all(any(cv2.pointPolygonTest(body, p, False) > 0
                   and cv2.pointPolygonTest(raised, p, False) < 0 for body, raised in shapes)
               for p in _pips_of(face))


def _foot_and_top(face: GridFace, spot: np.ndarray, edge: float,
                  lens: tuple[np.ndarray, float], one_radius: float = 0.5
                  ) -> tuple[np.ndarray, np.ndarray]:
    """A read die's foot where it stands (`footprint`: ``spot``, ``edge``), its square, and
    its top face as the top view shows it, the foot raised by the die's edge towards the
    lens. A die showing 1 has no known turn: its foot is a disc of ``one_radius`` edges."""
    nadir, height = lens
    foot = (_square(spot, edge, face.angle) if face.value != 1 else
            spot + one_radius * edge * np.stack([np.cos(_ROUND), np.sin(_ROUND)], axis=1))
    return foot, nadir + (foot - nadir) * height / (height - edge)


#: Angles of the polygon that stands in for a circle.
_ROUND = np.linspace(0, 2 * np.pi, 16, endpoint=False)


def _square(centre: np.ndarray, edge: float, angle: float) -> np.ndarray:
    """Corners of a square of side ``edge`` turned by ``angle`` about ``centre``."""
    c, s = math.cos(angle) * edge / 2, math.sin(angle) * edge / 2
    return centre + np.array([(c - s, s + c), (-c - s, -s + c), (-c + s, -s - c),
                              (c + s, s - c)])


def _pips_of(face: GridFace) -> list[tuple[float, float]]:
    """The lattice points of a face's pips (mm)."""
    c, s = math.cos(face.angle) * face.pitch, math.sin(face.angle) * face.pitch
    return [(face.centre[0] + c * i - s * j, face.centre[1] + s * i + c * j)
            for k, (i, j) in enumerate(_CELLS) if face.cells >> k & 1]


def _sides_towards(nadir: np.ndarray, spot: np.ndarray, angle: float) -> np.ndarray:
    """The outward normals of the sides of a die standing at ``spot``, turned by ``angle``,
    that face the point under the lens."""
    c, s = math.cos(angle), math.sin(angle)
    normals = np.array([(c, s), (-s, c), (-c, -s), (s, -c)])
    return normals[normals @ (nadir - spot) > 0]


def _lens_sides(spot: np.ndarray, edge: float, angle: float,
                lens: tuple[np.ndarray, float]) -> np.ndarray:
    """Centres of the sides facing the lens of a die standing at ``spot``, half a die up,
    as the top view (the table plane) shows them: one row each."""
    nadir, height = lens
    centres = spot + _sides_towards(nadir, spot, angle) * edge / 2
    return nadir + (centres - nadir) * height / (height - edge / 2)


#: Where a side's pips can lie: across the side and up it, in pitches from its centre.
_SIDE_LATTICE = np.array([(u, v) for u in (-1, 0, 1) for v in (-1, 0, 1)], dtype=np.float64)


def _side_pip_of(pip: np.ndarray, face: GridFace, spot: np.ndarray, edge: float,
                 lens: tuple[np.ndarray, float], config: DiceConfig,
                 reach: float | None = None) -> bool:
    """Whether a pip seen at ``pip`` (top view, mm) lies within ``reach`` (default
    ``side_pip_reach``) die edges of a lattice point of a side towards the lens of ``face``'s
    die, standing at ``spot``; a 1 tells no turn, so every turn of its die is tried."""
    nadir, height = lens
    reach = config.side_pip_reach if reach is None else reach
    pitch = config.pip_pitch_share * edge
    turns = ([face.angle] if face.value != 1
             else np.linspace(0.0, math.pi / 2, 10, endpoint=False))
    for angle in turns:
        for normal in _sides_towards(nadir, spot, angle):
            across = np.array([-normal[1], normal[0]])
            ground = spot + normal * edge / 2 + np.outer(_SIDE_LATTICE[:, 0] * pitch, across)
            up = edge / 2 + _SIDE_LATTICE[:, 1] * pitch
            shown = nadir + (ground - nadir) * (height / (height - up))[:, None]
            if np.min(np.hypot(*(shown - pip).T)) < reach * edge:
                return True
    return False


@lru_cache(maxsize=16)
def _rectified_pip_config(config: DiceConfig) -> DiceConfig:
    """Pip sizes and the hat kernel in pixels of the rectified view, from the sizes in mm."""
    pip_px = config.pip_share * (config.die_min_mm + config.die_max_mm) / 2 * \
        config.rectified_px_per_mm
    largest = config.pip_max_ratio * pip_px
    return DiceConfig(**{**asdict(config), "hat_kernel_px": int(largest) + 2,
                         "min_pip_area_px": math.pi / 4 * (config.pip_min_ratio * pip_px) ** 2,
                         "max_pip_area_px": math.pi / 4 * largest ** 2,
                         "min_pip_roundness": config.rectified_roundness,
                         "polarities": tuple(config.polarities),
                         "split_levels": tuple(config.split_levels),
                         "split_max_px": config.split_max_diagonals * math.sqrt(2)
                         * config.die_max_mm * config.rectified_px_per_mm,
                         "pip_row_pitch_px": config.pip_pitch_share * (config.die_min_mm
                                                                       + config.die_max_mm) / 2
                         * config.rectified_px_per_mm if config.cut_pip_rows else 0.0})


def lattice_candidates(pts: np.ndarray, config: DiceConfig) -> list[GridFace]:
    """Every die-pattern lattice fit through the pips (table mm), most pips and least error
    first (`_lattice_fits`)."""
    return sorted(_lattice_fits(pts, config), key=lambda f: (-len(f.members), f.error))


def fit_faces(pips: list[Pip], pts: np.ndarray, judge: _Judge, config: DiceConfig,
              candidates: list[GridFace], throw: tuple[float, float] | None = None,
              nadir: np.ndarray | None = None) -> list[GridFace]:
    """Explain the pips (``pts`` in table mm) as top faces: of the plausible (``judge``)
    ``candidates`` (`lattice_candidates`), take the first, drop the fits sharing its pips,
    repeat. With ``throw`` (the lattice pitch and pip diameter of the throw's surest faces,
    `throw_sizes`), fits whose size differs from them are left out first. A face
    foreshortened one way (``min_squareness``) is tilted: unreadable. Pips no die pattern
    explains are reported as one unreadable face per cluster of three or more
    (``min_unreadable_pips``) that fits on one die; fewer, or a longer chain (a dotted line),
    are dropped as not a die. With ``nadir`` (the table point under the lens, mm), a 2 or 3
    that is a 1 with its die's side pips (`_one_with_side_pips`) is left to that 1. With
    ``many_pip_size_ratio``, 5s and 6s of pips more unlike than ``pip_size_ratio`` are
    fitted last, from the pips left (`_Judge.plausible_unlike`)."""
    if throw is not None:  # the dice of one throw are one size: a fit of another size mixes
        pitch, pip = throw  # faces; a side face's pips are foreshortened, smaller than the tops'
        candidates = [f for f in candidates
                      if (len(f.members) == 1 or abs(f.pitch / pitch - 1)
                          <= config.pitch_agreement)
                      and (len(f.members) >= 4 or min(pips[i].diameter for i in f.members)
                           >= _pip_agreement(f, config) * pip)]
    if nadir is not None:
        candidates = [f for f in candidates if not judge.one_with_side_pips(f, nadir)]
    faces = _select(candidates, judge.plausible)
    if config.many_pip_size_ratio:  # then 5s and 6s of unlike pips from the pips left
        used = {i for f in faces for i in f.members}
        faces += _select([f for f in candidates if len(f.members) >= config.many_pips
                          and used.isdisjoint(f.members)], judge.plausible_unlike)
    if throw is not None and config.one_at_throw_pitch:
        faces = [replace(f, pitch=throw[0]) if len(f.members) == 1 else f for f in faces]
    faces = [replace(f, value=None) if len(f.members) >= 4
             and judge.squareness(f) < config.min_squareness else f for f in faces]
    if throw is not None and config.lean_pitch:
        faces = [replace(f, value=None) if _leaning(f, pips, throw[0], config) else f
                 for f in faces]
    used = {i for f in faces for i in f.members}
    left = [i for i in range(len(pts)) if i not in used]
    widest = math.sqrt(2) * config.die_max_mm  # a die seen with its sides
    for cluster in _clusters(judge.near(), left):
        if len(cluster) < config.min_unreadable_pips:
            continue
        spread = np.ptp(pts[cluster], axis=0)
        if math.hypot(*spread) <= widest:
            c = pts[cluster].mean(axis=0)
            faces.append(GridFace(None, (float(c[0]), float(c[1])), 0.0, _nominal_pitch(config),
                                  tuple(cluster), 1.0))
    return faces


def _pip_agreement(face: GridFace, config: DiceConfig) -> float:
    """The share of the throw's pip size a 1-3's smallest pip must reach (``pip_agreement``,
    ``one_pip_agreement`` for a 1)."""
    if len(face.members) == 1 and config.one_pip_agreement:
        return config.one_pip_agreement
    return config.pip_agreement


def _leaning(face: GridFace, pips: list[Pip], pitch: float, config: DiceConfig) -> bool:
    """A 2 or 3 of like pips whose pitch is off the throw's (``lean_pitch``): its top face
    is tilted, as a leaning die's is (a 4-6 is told by `_squareness` instead)."""
    if face.value not in (2, 3) or abs(face.pitch / pitch - 1) <= config.lean_pitch:
        return False
    sizes = [pips[i].diameter for i in face.members]
    return max(sizes) <= config.lean_pip_ratio * min(sizes)


def _one_with_side_pips(face: GridFace, pips: list[Pip], pts: np.ndarray, nadir: np.ndarray,
                        plausible: Callable[[GridFace], bool], config: DiceConfig) -> bool:
    """A 2 or 3 whose other pips are much weaker (diameter x contrast under
    ``side_pip_share``) than its strongest and lie towards the lens from it, where that pip
    alone makes a plausible 1: a top 1 with pips of its die's side face, which are
    foreshortened and fainter in the top view (at the referee's tilt a side pip lies about
    as far from the 1 as a 2's pips lie apart). Needs no 4-6 in the throw, unlike
    ``pip_agreement``."""
    if face.value not in (2, 3):
        return False
    strength = {i: pips[i].diameter * pips[i].contrast for i in face.members}
    top = max(strength, key=strength.__getitem__)
    others = [i for i in face.members if i != top]
    if max(strength[i] for i in others) >= config.side_pip_share * strength[top]:
        return False
    if any(np.dot(pts[i] - pts[top], nadir - pts[top]) <= 0 for i in others):
        return False
    one = GridFace(1, (float(pts[top][0]), float(pts[top][1])), 0.0, _nominal_pitch(config),
                   (top,), 0.0, _CENTRE_CELL)
    return plausible(one)


def throw_sizes(faces: list[tuple[GridFace, list[Pip]]],
                config: DiceConfig) -> tuple[float, float] | None:
    """Median lattice pitch (mm) and pip diameter (px) of the faces read with 4+ pips, of
    either pip colour, that the most read faces agree with (``pitch_agreement``; 2s and 3s
    vote too); None without such a face. A white die's face between its dark pips can fit
    a lattice of light "pips" at another pitch: with that false 4 in the median, a 5, 3
    and 2 of the true pitch were all left out (Spexxx seed 4 on the simulated table)."""
    sure = [(f, members) for f, members in faces if f.value and len(f.members) >= 4]
    if not sure:
        return None
    measured = [f.pitch for f, _ in faces if f.value and len(f.members) >= 2]

    def support(pitch: float) -> int:
        return sum(abs(q / pitch - 1) <= config.pitch_agreement for q in measured)

    most = max(support(f.pitch) for f, _ in sure)
    sure = [(f, members) for f, members in sure if support(f.pitch) == most]
    return (float(np.median([f.pitch for f, _ in sure])),
            float(np.median([p.diameter for _, members in sure for p in members])))


def _squareness(face: GridFace, pts: np.ndarray) -> float:
    """Shorter / longer axis of the affine map from the ideal lattice to the pips (1 for a
    face lying flat; a tilted top face, as of a leaning die, is foreshortened one way)."""
    c, s = math.cos(face.angle), math.sin(face.angle)
    local = (pts[list(face.members)] - face.centre) @ np.array([[c, -s], [s, c]]) / face.pitch
    cells = np.round(local)
    design = np.column_stack([cells, np.ones(len(cells))])
    fit, *_ = np.linalg.lstsq(design, local, rcond=None)
    axes = np.linalg.svd(fit[:2], compute_uv=False)
    return float(axes[1] / axes[0])


def _select(candidates: list[GridFace],
            plausible: Callable[[GridFace], bool]) -> list[GridFace]:
    """Best first, each pip on one face only."""
    faces: list[GridFace] = []
    used: set[int] = set()
    for face in candidates:
        if used.isdisjoint(face.members) and plausible(face):
            faces.append(face)
            used.update(face.members)
    return faces


def _nominal_pitch(config: DiceConfig) -> float:
    return config.pip_pitch_share * (config.die_min_mm + config.die_max_mm) / 2


def _clusters(close: list[list[bool]], idx: list[int]) -> list[list[int]]:
    """Pips near enough to lie on one face (``close``, `_Judge.near`), chained."""
    groups: list[list[int]] = []
    for i in idx:
        near = [g for g in groups if any(close[i][j] for j in g)]
        merged = [i] + [j for g in near for j in g]
        groups = [g for g in groups if g not in near] + [merged]
    return groups


#: Face value of each 9-bit lattice occupancy (bit 3 * (row + 1) + column + 1), 0 if none.
_VALUE_OF_BITS = np.zeros(512, dtype=np.int64)
_POPCOUNT = np.array([bin(i).count("1") for i in range(512)])
for _cells, _value in _PATTERNS.items():
    _VALUE_OF_BITS[sum(1 << (3 * (j + 1) + i + 1) for i, j in _cells)] = _value
#: The lattice points left empty by each occupancy.
_EMPTY_CELLS = [_CELLS[[not bits >> k & 1 for k in range(9)]] for bits in range(512)]
#: A pixel and its 8 neighbours, as (dx, dy).
_AROUND = np.array([(dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1)])


def _fit_reach(config: DiceConfig) -> float:
    """The farthest (mm) a lattice fit's pips, or the pips it is checked against, lie from
    its anchor pip: the lattice's diagonal at the largest pitch, with its tolerance."""
    pmax = config.pip_pitch_share * config.die_max_mm
    return 2 * math.sqrt(2) * pmax * (1 + config.lattice_tolerance)


def _lattice_fits(pts: np.ndarray, config: DiceConfig) -> list[GridFace]:
    """Every die-pattern lattice through the pips: each pair of nearby pips proposes a turn
    and pitch (from the lattice offsets they could have), each anchor pip one of the 9 cells;
    a fit leaves no other pip on its face. One fit per set of pips, the closest. All anchors'
    proposals are tried at once, on one flat run of (proposal, nearby pip) pairs."""
    if not len(pts):
        return []
    pmin = config.pip_pitch_share * config.die_min_mm
    pmax = config.pip_pitch_share * config.die_max_mm
    reach = _fit_reach(config)
    half_face = 0.5 / config.pip_pitch_share - 0.5 * config.pip_share / config.pip_pitch_share
    close = distances(pts) <= reach
    # each pair of nearby pips (a < b, by a then b) proposes a turn and pitch per lattice
    # offset of the right length; math.hypot and math.atan2, as numpy's differ in last bits
    first, second = np.nonzero(np.triu(close, 1))
    step = pts[second] - pts[first]
    dx, dy = step[:, 0].tolist(), step[:, 1].tolist()
    length = np.array([math.hypot(u, v) for u, v in zip(dx, dy, strict=True)])[:, None]
    turn = np.array([math.atan2(v, u) for u, v in zip(dx, dy, strict=True)])[:, None]
    ratio = length / _OFFSET_LENGTH
    fits = (pmin <= ratio) & (ratio <= pmax)
    # each anchor's proposals together, first its lone pip's (turn does not matter)
    anchors = np.concatenate([np.arange(len(pts)), first[np.nonzero(fits)[0]]])
    order = np.argsort(anchors, kind="stable")
    anchors = anchors[order]
    ang = np.concatenate([np.zeros(len(pts)), (turn - _OFFSET_ANGLE)[fits]])[order]
    pitch = np.concatenate([np.full(len(pts), _nominal_pitch(config)), ratio[fits]])[order]
    alone = order < len(pts)  # the lone pips' proposals
    c, s = np.cos(ang), np.sin(ang)
    # every (proposal, nearby pip) pair in one flat run, a proposal's pairs together
    counts = close.sum(axis=1)
    sizes = counts[anchors]
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    row = np.repeat(np.arange(len(anchors)), sizes)
    nearby = np.nonzero(close)[1]  # each pip's nearby pips, by pip
    pip = nearby[np.repeat(np.cumsum(counts)[anchors] - counts[anchors] - starts, sizes)
                 + np.arange(len(row))]
    d = pts[pip] - pts[anchors[row]]  # (P, 2)
    # the pip in lattice units round the anchor, per pair, with the anchor at each cell
    # (P, 9); x and y apart: numpy reduces a last axis of 2 slowly
    x = ((d[:, 0] * c[row] + d[:, 1] * s[row]) / pitch[row])[:, None] + _CELLS[:, 0]
    y = ((-d[:, 0] * s[row] + d[:, 1] * c[row]) / pitch[row])[:, None] + _CELLS[:, 1]
    sx, sy = np.round(x), np.round(y)
    err = np.hypot(x - sx, y - sy)
    inlier = (np.maximum(np.abs(sx), np.abs(sy)) <= 1) & (err <= config.lattice_tolerance)
    out = np.maximum(np.abs(x), np.abs(y))  # how far out on the face, in pitches
    if config.lone_face_disc:
        lone = np.nonzero(alone[row])[0]
        out[lone] = np.hypot(x[lone], y[lone])
    stray = np.logical_or.reduceat((out <= half_face) & ~inlier, starts)
    bit = (3 * (sy + 1) + sx + 1).clip(0, 8).astype(np.int64)
    occupied = np.bitwise_or.reduceat(np.where(inlier, 1 << bit, 0), starts)  # (H, 9)
    count = np.add.reduceat(inlier.astype(np.int64), starts)
    unique = _POPCOUNT[occupied]
    value = np.where(stray | (unique != count), 0, _VALUE_OF_BITS[occupied])
    fit_h, fit_k = np.nonzero(value)
    if not len(fit_h):
        return []
    # each die-pattern fit's pips and their errors, one fit after another in one flat run
    runs = sizes[fit_h]
    begin = np.cumsum(runs) - runs
    pair = np.repeat(starts[fit_h] - begin, runs) + np.arange(runs.sum())
    cell = np.repeat(fit_k, runs)
    taken = inlier[pair, cell]
    fit_pips, fit_err = pip[pair][taken], err[pair, cell][taken]
    bounds = np.concatenate([[0], np.cumsum(np.add.reduceat(taken, begin))]).tolist()
    fit_pips, fit_err = fit_pips.tolist(), fit_err.tolist()  # lists: sliced once per fit
    best: dict[tuple[int, ...], GridFace] = {}
    for h, k, a, b in zip(fit_h.tolist(), fit_k.tolist(), bounds[:-1], bounds[1:],
                          strict=True):
        members = tuple(fit_pips[a:b])
        e = 0.0  # the mean error: numpy sums fewer than 8 values (a fit has at most 6)
        for one in fit_err[a:b]:  # one after another, so this is ndarray.sum's sum
            e += one
        e /= b - a
        known = best.get(members)
        if known is not None and known.error <= e:
            continue
        rot = np.array([[c[h], -s[h]], [s[h], c[h]]])
        centre = pts[anchors[h]] - rot @ (_CELLS[k] * pitch[h])
        best[members] = GridFace(int(value[h, k]), (float(centre[0]), float(centre[1])),
                                 float(ang[h]), float(pitch[h]), members, e,
                                 int(occupied[h, k]))
    return list(best.values())


class _Judge:
    """One pip colour's checks of lattice fits, each fit judged once: the second fitting
    pass (with the throw's sizes) judges mostly the fits the first one judged, and looks
    for the same clusters of pips."""

    def __init__(self, pips: list[Pip], pts: np.ndarray, closed: np.ndarray, hat: np.ndarray,
                 config: DiceConfig, to_px: Callable[[np.ndarray], np.ndarray],
                 nadir_px: np.ndarray):
        self.pips, self.pts, self.closed, self.hat = pips, pts, closed, hat
        self.config, self.to_px, self.nadir_px = config, to_px, nadir_px
        self._plausible: dict[GridFace, bool] = {}
        self._unlike: dict[GridFace, bool] = {}
        self._squareness: dict[GridFace, float] = {}
        self._side_ones: dict[GridFace, bool] = {}
        self._near: list[list[bool]] | None = None

    def plausible(self, face: GridFace) -> bool:
        """`_face_plausible` (one look-up a judged fit: hashing a fit costs ~1 µs)."""
        judged = self._plausible.get(face)
        if judged is None:
            judged = self._plausible[face] = _face_plausible(
                face, self.pips, self.closed, self.hat, self.config, self.to_px, self.nadir_px)
        return judged

    def plausible_unlike(self, face: GridFace) -> bool:
        """`_face_plausible` with pips up to ``many_pip_size_ratio`` unlike."""
        judged = self._unlike.get(face)
        if judged is None:
            judged = self._unlike[face] = _face_plausible(
                face, self.pips, self.closed, self.hat, _unlike_config(self.config),
                self.to_px, self.nadir_px)
        return judged

    def squareness(self, face: GridFace) -> float:
        """`_squareness`."""
        if face not in self._squareness:
            self._squareness[face] = _squareness(face, self.pts)
        return self._squareness[face]

    def one_with_side_pips(self, face: GridFace, nadir: np.ndarray) -> bool:
        """`_one_with_side_pips`, with the read's one ``nadir``."""
        if face not in self._side_ones:
            self._side_ones[face] = _one_with_side_pips(face, self.pips, self.pts, nadir,
                                                        self.plausible, self.config)
        return self._side_ones[face]

    def near(self) -> list[list[bool]]:
        """Per pip, which pips lie near enough to be on one face with it (`_clusters`; lists:
        a few pips at a time are looked up)."""
        if self._near is None:
            reach = 2 * math.sqrt(2) * self.config.pip_pitch_share * self.config.die_max_mm \
                * (1 + self.config.lattice_tolerance)
            self._near = (distances(self.pts) <= reach).tolist()
        return self._near


@lru_cache(maxsize=8)
def _unlike_config(config: DiceConfig) -> DiceConfig:
    """``config`` with ``pip_size_ratio`` at ``many_pip_size_ratio`` (`_Judge.plausible_unlike`)."""
    return replace(config, pip_size_ratio=config.many_pip_size_ratio)


def _face_plausible(face: GridFace, pips: list[Pip], closed: np.ndarray, hat: np.ndarray,
                    config: DiceConfig, to_px, nadir_px: np.ndarray) -> bool:
    """No pip hides at an empty lattice point (a missed pip would change the value), the
    pips are alike, a 2's or 3's pips are joined by even die body (a top pip fitted with a
    side face's) and a lone pip sits on an even patch of die body. A 4-6 is not held to the
    even body: beside a darker side face the closing is uneven round a row of pips near the
    die's edge, and that dropped blurred 6s."""
    sizes = [pips[i].diameter for i in face.members]
    if max(sizes) > config.pip_size_ratio * min(sizes):
        return False
    c, s = math.cos(face.angle), math.sin(face.angle)
    rot = np.array([[c, -s], [s, c]])
    empty = _EMPTY_CELLS[face.cells]
    where = to_px(np.asarray(face.centre) + (empty * face.pitch) @ rot.T)
    h, w = hat.shape
    xs, ys = _pixels(where, 1, (w - 2, h - 2)).T
    dark = hat[ys[:, None] + _AROUND[:, 1], xs[:, None] + _AROUND[:, 0]].max(axis=1)
    pip_contrast = sum(pips[i].contrast for i in face.members) / len(face.members)
    if dark.max() > max(config.empty_cell_contrast * config.min_contrast,
                        config.empty_cell_share * pip_contrast):
        return False
    if face.value in (2, 3) and _dotted_line(face, pips, config):
        return False
    if face.value in (2, 3):
        return _on_one_body(face, pips, closed, hat, config, to_px)
    if face.value != 1:
        return True
    pip = pips[face.members[0]]
    if pip.contrast < config.single_min_contrast and not _dim_one(pip, face, hat, config):
        return False
    if pip.roundness < _lone_pip_roundness(pip, pips, nadir_px, config):
        return False
    r = config.single_ring * pip.diameter / 2
    angles = np.linspace(0, 2 * math.pi, 12, endpoint=False)
    xs = _pixels(pip.x + r * np.cos(angles), 0, w - 1)
    ys = _pixels(pip.y + r * np.sin(angles), 0, h - 1)
    ring = closed[ys, xs].astype(np.float32)
    return bool(ring.max() - ring.min() <= config.single_ring_spread)


def _dim_one(pip: Pip, face: GridFace, hat: np.ndarray, config: DiceConfig) -> bool:
    """A lone pip under ``single_min_contrast`` (at least ``dim_one_contrast``) alone on its
    die: no other blob of the black-hat over ``faint_contrast`` within ``dim_one_reach``
    pitches (a 2's other pip lies 2.8 pitches off). A dim 2-6 whose other pips are fainter
    still shows them there; a dim 1's die shows nothing round its pip."""
    if not config.dim_one_contrast or pip.contrast < config.dim_one_contrast:
        return False
    reach = config.dim_one_reach * face.pitch * config.rectified_px_per_mm
    h, w = hat.shape
    x0, y0 = max(int(pip.x - reach), 0), max(int(pip.y - reach), 0)
    x1, y1 = min(int(pip.x + reach) + 2, w), min(int(pip.y + reach) + 2, h)
    blobs = (hat[y0:y1, x0:x1] > config.faint_contrast).astype(np.uint8)
    _, labels = cv2.connectedComponents(blobs)
    ys, xs = np.ogrid[y0:y1, x0:x1]
    near = (xs - pip.x) ** 2 + (ys - pip.y) ** 2 <= reach ** 2
    own = labels[_pixels(pip.y, 0, h - 1) - y0, _pixels(pip.x, 0, w - 1) - x0]
    return not np.any(near & (labels > 0) & (labels != own))


def _pixels(coords: np.ndarray, lo: int, hi: int | tuple[int, int]) -> np.ndarray:
    """The nearest whole number to each coordinate (a pixel, a pip's place in a bar), kept
    within lo..hi: np.clip and np.round cost more than the ufuncs themselves on a few points
    (the same values). With ``hi`` per column, (x, y) points are done in one go."""
    return np.minimum(np.maximum(np.rint(coords).astype(int), lo), hi)


def _lone_pip_roundness(pip: Pip, pips: list[Pip], nadir_px: np.ndarray,
                        config: DiceConfig) -> float:
    """The least roundness of a top 1's pip in the top view: lower when the pip is stretched
    towards the point under the lens (``nadir_px``), as the frame's blur is there: a frame
    pixel covers more table that way (a 1 measured 0.74-0.77 in tame scenes), unless other
    pips lie just beyond it, away from the lens (the middle pip of a side face's 5 beside its
    top face's pips: `radial_clear_share`)."""
    if not config.single_radial_roundness:
        return config.single_roundness
    outward = np.array([pip.x - nadir_px[0], pip.y - nadir_px[1]])
    turn = abs((pip.angle - math.atan2(outward[1], outward[0]) + math.pi / 2) % math.pi
               - math.pi / 2)
    floor = config.single_radial_roundness
    if turn > math.radians(config.radial_slack_deg):
        if turn > math.radians(config.radial_wide_slack_deg):
            return config.single_roundness
        floor = config.radial_wide_roundness
    reach = config.radial_clear_share * config.rectified_px_per_mm * (
        config.die_min_mm + config.die_max_mm) / 2
    far = 1.001 * reach  # a pip this far off along x or y is beyond reach, rounding or not
    for other in pips:
        dx, dy = other.x - pip.x, other.y - pip.y
        if abs(dx) > far or abs(dy) > far or other is pip:  # most pips: no numpy call
            continue
        away = np.array([dx, dy])
        if away @ away <= reach ** 2 and away @ outward > 0:
            return config.single_roundness
    return floor


def _dotted_line(face: GridFace, pips: list[Pip], config: DiceConfig) -> bool:
    """A 2 or 3 whose row of pips goes on at the same spacing at both ends is part of a
    dotted line on the table, not a die."""
    pts = np.array([(pips[i].x, pips[i].y) for i in face.members])
    i, j = _farthest_pair(pts.tolist())
    a, b = pts[i], pts[j]
    step = (b - a) / (len(pts) - 1)  # the spacing of the row
    reach = config.lattice_tolerance * face.pitch * config.rectified_px_per_mm
    others = np.array([(p.x, p.y) for p in pips])
    return all(np.hypot(*(others - end).T).min() <= reach for end in (b + step, a - step))


def _without_dotted_rows(faces: list[tuple[GridFace, list[Pip]]], shown: list[GridFace | None],
                         layers: list, strength: dict[GridFace, float],
                         config: DiceConfig) -> list[GridFace | None]:
    """``shown`` without the unread faces that are part of a dotted line on the table
    (`_row_goes_on`), weak beside the read dice (``dotted_row_strength``): the fit reports
    a longer chain's pieces of three or more pips on one die's reach as unread dice, each
    of which would hold the throw; with ``dotted_read_rows`` also the 2s and 3s read there
    (the faint search's). ``layers`` are `read_dice_rectified`'s (the black-hat),
    ``strength`` each face's (`_strengths`)."""
    rows = [k for k, ((f, members), g) in enumerate(zip(faces, shown, strict=True))
            if g is not None and (g.value is None and len(members) >= config.min_unreadable_pips
                                  or config.dotted_read_rows and g.value in (2, 3))]
    if not rows:
        return shown
    read = [strength[f] for (f, _), g in zip(faces, shown, strict=True) if g and g.value]
    if not read:
        return shown
    weak = config.dotted_row_strength * statistics.median(read)
    colour = _colours(faces, layers)
    out = list(shown)
    for k in rows:
        f, members = faces[k]
        if strength[f] < weak and _row_goes_on(members, _hat_of(members, colour[k], layers),
                                               f, config):
            out[k] = None
    return out


def _hat_of(members: list[Pip], colour: int | None, layers: list) -> np.ndarray:
    """The black-hat of the pips' colour layer; for pips no layer found (a faint face) the
    one in which they stand out most."""
    if colour is not None:
        return layers[colour][3]
    xs, ys = np.array([(round(p.x), round(p.y)) for p in members]).T
    return max((hat for *_, hat, _ in layers), key=lambda hat: int(hat[ys, xs].sum()))


def _row_goes_on(members: list[Pip], hat: np.ndarray, face: GridFace,
                 config: DiceConfig) -> bool:
    """Whether the pips lie in a row (within ``lattice_tolerance`` of their spacing of the
    line through the farthest two, view px) and the black-hat stays over
    ``dotted_row_contrast`` on ``dotted_row_share`` of that line (as near) for
    ``dotted_row_reach`` die edges past each end: a dotted line goes on there, a die's body
    or the table beside it does not."""
    pts = np.array([(p.x, p.y) for p in members])
    i, j = _farthest_pair(pts.tolist())
    a, b = pts[i], pts[j]
    length = float(np.hypot(*(b - a)))
    if length == 0:
        return False
    along = (b - a) / length
    across = np.array([-along[1], along[0]])
    half = max(1, round(config.lattice_tolerance * length / (len(pts) - 1)))
    if np.abs((pts - a) @ across).max() > half:
        return False
    reach = round(config.dotted_row_reach * face.pitch / config.pip_pitch_share
                  * config.rectified_px_per_mm)
    steps = np.arange(1, reach + 1, dtype=np.float64)[:, None, None]
    offsets = np.arange(-half, half + 1, dtype=np.float64)[None, :, None]
    h, w = hat.shape
    for end, sign in ((b, 1.0), (a, -1.0)):
        line = end + sign * steps * along + offsets * across  # (reach, band, 2)
        xs, ys = np.rint(line[..., 0]).astype(int), np.rint(line[..., 1]).astype(int)
        inside = ((xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)).all(axis=1)
        if not inside.any():
            return False
        level = hat[ys[inside], xs[inside]].max(axis=1)
        if np.mean(level > config.dotted_row_contrast) < config.dotted_row_share:
            return False
    return True


def _farthest_pair(pts: list[list[float]]) -> tuple[int, int]:
    """The two points farthest apart, the first such pair in row-major order: what
    np.argmax finds among np.linalg.norm's pairwise distances (the same sums and square
    roots), without numpy's overhead on the 2 or 3 pips of a row."""
    pair, far = (0, 0), -1.0
    for i, (x, y) in enumerate(pts):
        for j, (u, v) in enumerate(pts):
            gap = math.sqrt((x - u) * (x - u) + (y - v) * (y - v))
            if gap > far:
                pair, far = (i, j), gap
    return pair


def _on_one_body(face: GridFace, pips: list[Pip], closed: np.ndarray, hat: np.ndarray,
                 config: DiceConfig, to_px) -> bool:
    """Every pip is joined to the face's centre by even die body (pips filled in): a top
    pip fitted together with a side face's pips is parted by the die's edge. Each line
    stops ``body_pip_clearance`` pip radii short of its pip's centre. With
    ``body_close_pips``, a body that dips is closed again round the face with a kernel
    that many of its largest pips wide: a blurred pip's skirt, wider than the closing's
    kernel, is filled so; a die's edge is a step no closing fills."""
    centre = to_px(np.asarray(face.centre))
    t = np.linspace(0.0, 1.0, 9)[:, None]
    ends = np.array([(pips[i].x, pips[i].y) for i in face.members])
    radii = np.array([pips[i].diameter / 2 for i in face.members])
    length = np.maximum(np.hypot(*(ends - centre).T), 1e-6)
    reach = np.clip(1 - config.body_pip_clearance * radii / length, 0, 1)
    ends = centre + reach[:, None] * (ends - centre)
    line = (centre + t[:, None] * (ends[None] - centre)).reshape(-1, 2)  # (9 * n, 2)
    h, w = closed.shape
    xs, ys = _pixels(line, 0, (w - 1, h - 1)).T
    values = closed[ys, xs].astype(np.float32)
    if np.abs(values - _median_level(values)).max() <= config.edge_drop:
        return True
    if not config.body_close_pips:
        return False
    lines = values.reshape(-1, len(ends))[:, reach > 0]  # from the centre, pips dark
    falls = lines.max(axis=0) - lines[-1]
    if falls.min() < config.body_close_alike * (values.max() - values.min()):
        return False
    k = int(round(config.body_close_pips * 2 * radii.max())) | 1
    x0, y0 = max(int(xs.min()) - k, 0), max(int(ys.min()) - k, 0)
    x1, y1 = min(int(xs.max()) + k + 1, w), min(int(ys.max()) + k + 1, h)
    image = cv2.subtract(closed[y0:y1, x0:x1], hat[y0:y1, x0:x1])
    reclosed = cv2.morphologyEx(image, cv2.MORPH_CLOSE,
                                cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    values = reclosed[ys - y0, xs - x0].astype(np.float32)
    return bool(np.abs(values - _median_level(values)).max() <= config.edge_drop)


def _face_reading(face: GridFace, pips: list[Pip], rect_to_frame: np.ndarray, lo: np.ndarray,
                  frame_shape: tuple[int, ...], config: DiceConfig,
                  leaning: bool = False, bars: bool = False) -> DieReading:
    """The face in frame pixels; a face whose die is not wholly inside the frame is
    unreadable (value None); one that may be a leaning die's (`_leaning_outlines`) is read
    at most at ``lean_outline_confidence``, a dim 1 (`_dim_one`) at ``dim_one_confidence``,
    a 6 read from two bars (`_table_bar_sixes`) at ``face_bar_confidence``."""
    s = config.rectified_px_per_mm
    c, sn = math.cos(face.angle), math.sin(face.angle)
    rot = np.array([[c, -sn], [sn, c]])
    centre = np.asarray(face.centre)
    pip_mm = config.pip_share * face.pitch / config.pip_pitch_share
    square = np.array([(-1, -1), (1, -1), (1, 1), (-1, 1)], dtype=np.float64)

    def frame_px(half_mm: float) -> np.ndarray:
        pts = ((centre + (square * half_mm) @ rot.T - lo) * s).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, rect_to_frame).reshape(-1, 2)

    lattice = frame_px(face.pitch + pip_mm / 2)
    die = frame_px(face.pitch / config.pip_pitch_share / 2 + config.border_margin * pip_mm)
    x0, y0 = lattice.min(axis=0)
    x1, y1 = lattice.max(axis=0)
    box = (int(round(x0)), int(round(y0)), int(round(x1 - x0)), int(round(y1 - y0)))
    mid = cv2.perspectiveTransform(((centre - lo) * s).reshape(1, 1, 2), rect_to_frame)[0, 0]
    h, w = frame_shape[:2]
    cut = die.min() < 0 or die[:, 0].max() > w - 1 or die[:, 1].max() > h - 1
    if face.value is None or cut:
        return DieReading(None, 0.0, box, (float(mid[0]), float(mid[1])))
    roundness = float(np.mean([p.roundness for p in pips]))
    fit = max(0.0, 1.0 - face.error / config.lattice_tolerance)
    # one face's pips are printed alike: unlike sizes (up to pip_size_ratio) mean a pip of
    # another face may have been taken in, so the read is less sure
    sizes = [p.diameter for p in pips]
    least = 1.0 / config.pip_size_ratio
    alike = (min(sizes) / max(sizes) - least) / (1.0 - least)
    confidence = round(float(np.clip((0.5 * fit + 0.5 * roundness) * alike, 0.0, 1.0)), 3)
    if leaning:
        confidence = min(confidence, config.lean_outline_confidence)
    if face.value == 1 and pips[0].contrast < config.single_min_contrast:
        confidence = min(confidence, config.dim_one_confidence)
    if bars:
        confidence = min(confidence, config.face_bar_confidence)
    return DieReading(face.value, confidence, box, (float(mid[0]), float(mid[1])))


def annotate_dice(frame: np.ndarray, readings: list[DieReading]) -> None:
    """Each die's box and value drawn on ``frame`` in place (it is usually already a copy
    with the board's reading on it): green when read, red '?' when not."""
    for r in readings:
        x, y, w, h = r.box
        colour = (0, 200, 0) if r.value is not None else (0, 0, 255)
        cv2.rectangle(frame, (x, y), (x + w, y + h), colour, 2)
        cv2.putText(frame, str(r.value) if r.value is not None else "?", (x, max(y - 4, 12)),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.6, colour, 2)
