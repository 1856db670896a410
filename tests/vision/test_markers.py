import math
from dataclasses import replace
from functools import cache

import cv2
import numpy as np
import pytest

from companion.layout import load_layout
from tests.vision.rendered import bench_frame, frame
from tests.vision.synthetic import camera_homography, view
from vision.config import VisionConfig
from vision.errors import VisionError
from vision.markers import (
    Localiser,
    NoBoard,
    arm_reaching_in,
    board_corners_mm,
    detect_markers,
    fit_one_marker,
    fit_two_markers,
    homography_from_corners,
    looks_unchanged,
    project,
    rescue_markers,
)
from vision.pose import Camera
from vision.print_align import align_to_print, print_match
from vision.reader import read_board
from vision.sim import CameraPose
from vision.sim.scene import Hand

LAYOUT = load_layout("cuatro")
PROBE_MM = np.array([[0, 0], [320, 0], [320, 320], [0, 320], [160, 160], [40, 250]])


def grey(image):
    return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


def max_error(h_found, h_true):
    return np.abs(project(h_found, PROBE_MM) - project(h_true, PROBE_MM)).max()


@pytest.mark.parametrize("height,tilt,yaw,focal", [
    (600, 0, 0, 914), (800, 10, 30, 763), (600, 30, 45, 1108), (700, 40, 200, 914),
])
def test_four_markers_give_the_true_homography(height, tilt, yaw, focal):
    truth = camera_homography(LAYOUT, height, tilt, yaw, focal)
    found = Localiser(LAYOUT).locate(grey(view(LAYOUT, truth)))
    assert found.markers_seen == 4
    assert max_error(found.homography, truth) < 1.0


def cover_marker(image, truth, index):
    centre = project(truth, [LAYOUT.markers.centres_mm[index]])[0].astype(int)
    cv2.circle(image, tuple(centre), 60, (60, 120, 200), -1)
    return image


def test_a_colour_frame_locates_as_its_grey_frame():
    """A BGR frame is turned grey only where the localiser looks (a warm tracker whose
    markers all look unchanged looks at their windows only): the same result."""
    truth = camera_homography(LAYOUT, 650, 20, 10, 914)
    frames = [view(LAYOUT, truth), cover_marker(view(LAYOUT, truth), truth, 2),
              view(LAYOUT, truth)]
    in_colour, in_grey = Localiser(LAYOUT), Localiser(LAYOUT)
    for image in frames:
        a, b = in_colour.locate(image), in_grey.locate(grey(image))
        assert np.array_equal(a.homography, b.homography)
        assert (a.source, a.markers_seen) == (b.source, b.markers_seen)


def test_one_covered_marker_keeps_the_board_located():
    truth = camera_homography(LAYOUT, 650, 20, 10, 914)
    localiser = Localiser(LAYOUT)
    localiser.locate(grey(view(LAYOUT, truth)))
    found = localiser.locate(grey(cover_marker(view(LAYOUT, truth), truth, 2)))
    assert found.markers_seen == 3 and not found.relocalised
    assert max_error(found.homography, truth) < 1.0


def test_a_marker_window_unchanged_but_for_noise_and_exposure_looks_unchanged():
    rng = np.random.default_rng(3)
    truth = camera_homography(LAYOUT, 650, 20, 10, 914)
    image = grey(view(LAYOUT, truth)).astype(np.float32) * 0.7 + 30  # a camera's range
    x, y = project(truth, [LAYOUT.markers.centres_mm[0]])[0].astype(int)
    window = (slice(y - 60, y + 60), slice(x - 60, x + 60))
    noisy = [np.clip(image[window] + rng.normal(0, 8, (120, 120)) + lift, 0, 255)
             .astype(np.uint8) for lift in (0, 10)]
    assert looks_unchanged(noisy[1], noisy[0], 8, VisionConfig.marker_still_level)
    moved = np.roll(image, 1, axis=1)[window].astype(np.uint8)
    assert not looks_unchanged(moved, image[window].astype(np.uint8), 8,
                               VisionConfig.marker_still_level)


def test_a_board_moved_by_a_pixel_is_followed_not_kept_where_it_was():
    # markers whose windows look unchanged keep their corners unsearched; one that moved
    # must be searched again, or the homography would stay where the board was
    truth = camera_homography(LAYOUT, 650, 20, 10, 914)
    shifted = np.array([[1, 0, 3.0], [0, 1, 0.0], [0, 0, 1]]) @ truth
    localiser = Localiser(LAYOUT)
    localiser.locate(grey(view(LAYOUT, truth)))
    found = localiser.locate(grey(view(LAYOUT, shifted)))
    assert found.markers_seen == 4 and not found.relocalised
    assert max_error(found.homography, shifted) < 1.0
    still = localiser.locate(grey(view(LAYOUT, shifted)))
    assert max_error(still.homography, shifted) < 1.0


def test_two_covered_markers_keep_the_previous_homography_but_fail_from_scratch():
    truth = camera_homography(LAYOUT, 650, 20, 10, 914)
    covered = cover_marker(cover_marker(view(LAYOUT, truth), truth, 0), truth, 1)
    with pytest.raises(NoBoard, match="2 of 4"):
        Localiser(LAYOUT).locate(grey(covered))
    localiser = Localiser(LAYOUT)
    localiser.locate(grey(view(LAYOUT, truth)))
    found = localiser.locate(grey(covered))
    assert found.source == "previous" and max_error(found.homography, truth) < 1.0


def test_markers_covered_for_a_while_do_not_make_each_frame_search_the_whole_frame(
        monkeypatch):
    truth = camera_homography(LAYOUT, 650, 20, 10, 914)
    covered = grey(cover_marker(cover_marker(view(LAYOUT, truth), truth, 0), truth, 1))
    localiser = Localiser(LAYOUT)
    localiser.locate(grey(view(LAYOUT, truth)))
    searches = []
    monkeypatch.setattr("vision.markers.detect_markers",
                        lambda *args: searches.append(1) or detect_markers(*args))
    for _ in range(3):
        found = localiser.locate(covered)
        assert found.source == "previous" and max_error(found.homography, truth) < 1.0
    assert not searches


def test_after_a_bump_two_diagonal_markers_relocalise_the_board():
    # the focal length is the one the four markers gave before the bump
    before = camera_homography(LAYOUT, 600, 30, 45, 914)
    after = camera_homography(LAYOUT, 620, 26, 40, 914)
    localiser = Localiser(LAYOUT)
    localiser.locate(grey(view(LAYOUT, before)))
    covered = cover_marker(cover_marker(view(LAYOUT, after), after, 0), after, 2)
    found = localiser.locate(grey(covered))
    assert found.source == "two markers" and found.relocalised and localiser.bumps == 1
    fields = np.array([f.centre_mm for f in LAYOUT.fields.values()])
    assert np.abs(project(found.homography, fields) - project(after, fields)).max() < 4.0


def test_a_bump_is_noticed_and_the_board_relocalised():
    before = camera_homography(LAYOUT, 650, 20, 10, 914)
    after = camera_homography(LAYOUT, 650, 24, 14, 914)
    localiser = Localiser(LAYOUT)
    localiser.locate(grey(view(LAYOUT, before)))
    found = localiser.locate(grey(view(LAYOUT, after)))
    assert found.relocalised and localiser.bumps == 1
    assert max_error(found.homography, after) < 1.0
    assert not localiser.locate(grey(view(LAYOUT, after))).relocalised


def test_no_board_in_view():
    empty = np.full((960, 1280), 128, np.uint8)
    with pytest.raises(NoBoard, match="no board in view"):
        Localiser(LAYOUT).locate(empty)


def test_hand_given_corners_replace_markers():
    truth = camera_homography(LAYOUT, 650, 25, 0, 914)
    corners = project(truth, [[0, 0], [320, 0], [320, 320], [0, 320]])
    localiser = Localiser(LAYOUT, corners_px=corners)
    blank = np.zeros((960, 1280), np.uint8)
    assert max_error(localiser.locate(blank).homography, truth) < 1e-3
    with pytest.raises(VisionError, match="clockwise"):
        homography_from_corners(corners[::-1], LAYOUT, Camera.from_config(VisionConfig()))


def test_barrel_distortion_is_undone():
    config = VisionConfig(k1=-0.08, focal_px=914)
    camera = Camera.from_config(config)
    truth = camera_homography(LAYOUT, 600, 20, 0, 914)
    ideal = view(LAYOUT, truth)
    # distort the ideal image: each raw pixel looks up its undistorted position
    ys, xs = np.mgrid[0:960, 0:1280].astype(np.float32)
    raw_pts = np.stack([xs.ravel(), ys.ravel()], axis=1)
    ideal_pts = camera.undistort(raw_pts).astype(np.float32)
    maps = ideal_pts.reshape(960, 1280, 2)
    distorted = cv2.remap(ideal, maps[..., 0], maps[..., 1], cv2.INTER_LINEAR)
    found = Localiser(LAYOUT, config).locate(grey(distorted))
    assert max_error(found.homography, truth) < 1.5
    plain = Localiser(LAYOUT, VisionConfig(focal_px=914)).locate(grey(distorted))
    assert max_error(plain.homography, truth) > 3


@pytest.mark.parametrize("seed,index", [((1, 125)), ((1, 185))])
def test_small_blurred_markers_are_read(seed, index):
    # bench seed 1's Cuatro frames 125 and 185: small, blurred markers (137 before the
    # renderer's noise was mended); OpenCV's default bit sampling finds two of four, which
    # leaves the photo unreadable
    from vision.sim import random_pose, random_scene, render

    rng = np.random.default_rng([seed, index])
    scene = random_scene(LAYOUT, rng)
    rendered = render(scene, random_pose(rng, LAYOUT), rng)
    found = Localiser(LAYOUT).locate(grey(rendered.frame))
    assert found.markers_seen == 4
    assert np.abs(project(found.homography, PROBE_MM)
                  - project(rendered.truth.homography, PROBE_MM)).max() < 3.0
    old = VisionConfig(marker_pixels_per_cell=4, marker_cell_margin=0.13, marker_rescue_below=0)
    with pytest.raises(NoBoard):
        Localiser(LAYOUT, old).locate(grey(rendered.frame))


@pytest.mark.parametrize("index", [54, 217, 346])
def test_markers_missed_in_blur_or_dim_light_are_found_again(index):
    # board bench seed 1: nothing over the lost markers, but blur or dim light leaves one
    # bit misread or too little contrast; two markers of four left the photo unread (346,
    # Mühle, three markers found, is then put on its print's edges: 1.1 mm off, not 2.9)
    layout, _, rendered, _ = bench_frame(1, index)
    found = Localiser(layout).locate(grey(rendered.frame))
    assert found.markers_seen >= 3 and found.source in ("markers", "print")
    truth = dict(zip(rendered.truth.marker_ids, rendered.truth.marker_corners, strict=True))
    for marker_id, corners in found.marker_corners.items():
        assert np.abs(corners - truth[marker_id]).max() < 3.5
    assert np.abs(project(found.homography, PROBE_MM)
                  - project(rendered.truth.homography, PROBE_MM)).max() < 5.0
    with pytest.raises(NoBoard, match="2 of 4"):
        Localiser(layout, VisionConfig(marker_rescue_below=0)).locate(grey(rendered.frame))


def test_a_marker_found_again_that_does_not_fit_the_others_is_left_out(monkeypatch):
    # a corrected bit may misread a marker (here its turn: corners one place round); a
    # marker found so must fit the board with the others, or the photo stays unread
    layout, _, rendered, _ = bench_frame(1, 346)
    first = detect_markers(grey(rendered.frame), layout, VisionConfig())
    right = rescue_markers(grey(rendered.frame), layout, VisionConfig(), first)
    assert len(first) == 2 and len(right) == 1
    misread = {marker_id: np.roll(corners, 1, axis=0) for marker_id, corners in right.items()}
    monkeypatch.setattr("vision.markers.rescue_markers", lambda *args: misread)
    with pytest.raises(NoBoard, match="2 of 4"):
        Localiser(layout).locate(grey(rendered.frame))


@cache
def two_hidden(game, hidden):
    layout, rendered = frame(game, {}, markers_hidden=frozenset(hidden))
    return layout, rendered


@pytest.mark.parametrize("game,hidden", [("just4fun", (0, 2)), ("spexxx", (1, 3))])
def test_two_diagonal_markers_locate_the_board_under_the_camera_model(game, hidden):
    # nothing seen before and two markers covered: a free homography from the other two's
    # eight corners was 1.6-21 px off on the board bench, so the reader gave up; a pose
    # fitted under the camera model is sure enough here, and within 4 px at every field
    layout, rendered = two_hidden(game, hidden)
    localiser = Localiser(layout)
    found = localiser.locate(grey(rendered.frame))
    assert found.source == "two markers" and found.markers_seen == 2
    names = list(layout.fields)
    mm = np.array([layout.fields[n].centre_mm for n in names])
    truth = np.array([rendered.truth.fields[n].centre_px for n in names])
    error = np.linalg.norm(localiser.camera.board_to_frame(found.homography, mm) - truth, axis=1)
    assert error.max() < 4.0


def test_two_adjacent_markers_are_too_uncertain_and_still_refused():
    # the board swings about the line through two adjacent markers: the far fields are
    # pinned by the markers' small foreshortening alone, and the plain Cuatro print does
    # not match the frame better aligned than from the markers' fit
    layout, rendered = two_hidden("cuatro", (2, 3))
    with pytest.raises(NoBoard, match="only 2 of 4"):
        Localiser(layout).locate(grey(rendered.frame))


@cache
def two_hidden_tilted(game, hidden, hand):
    # a camera at 30 degrees (the test frames' default is 22): the board's swing about the
    # two adjacent markers' line shows less in their foreshortening
    layout = load_layout(game)
    w, h = layout.board_size_mm
    pose = CameraPose(height_mm=600, tilt_deg=30, yaw_deg=25, fov_deg=72, k1=0.0,
                      target_mm=(w / 2, h / 2))
    reach = Hand(entry_mm=(w / 2, h + 700), tip_mm=(w * 0.4, h * 0.35), height_mm=80)
    return frame(game, {}, pose=pose, seed=3, markers_hidden=frozenset(hidden),
                 hand=reach if hand else None)


def field_errors(layout, rendered, camera, homography):
    names = list(layout.fields)
    mm = np.array([layout.fields[n].centre_mm for n in names])
    truth = np.array([rendered.truth.fields[n].centre_px for n in names])
    return np.linalg.norm(camera.board_to_frame(homography, mm) - truth, axis=1)


@pytest.mark.parametrize("game,hidden", [("just4fun", (1, 2)), ("spexxx", (2, 3))])
def test_two_adjacent_markers_and_the_print_locate_the_board(game, hidden):
    # a hand over the board and two adjacent markers covered: the fit to the markers is
    # too unsure (4-7 px off at the far fields); the printed board aligned to the frame
    # from there pins the swing
    layout, rendered = two_hidden_tilted(game, hidden, True)
    localiser = Localiser(layout)
    config, camera = localiser.config, localiser.camera
    found = detect_markers(grey(rendered.frame), layout, config)
    two = fit_two_markers(found, layout, camera, config)
    assert len(found) == 2 and not two.sure(config)
    assert field_errors(layout, rendered, camera, two.homography).max() > 3.0
    where = localiser.locate(grey(rendered.frame))
    assert where.source == "print" and where.markers_seen == 2
    assert field_errors(layout, rendered, camera, where.homography).max() < 2.0


def test_a_print_alignment_that_went_astray_is_refused():
    # the empty Just 4 Fun board on a pale wood table: ECC slides the print off, farther
    # than the markers' own fit is (OpenCV 4.12: 15 px at the far fields, 4.13-5.0: 4 px,
    # against 1.7); it matches the frame worse than that fit did, so the board is not
    # located rather than located wrong. (ECC from the fit swung one way, run 40
    # iterations, lands 1.1 px off; at the 12 iterations a start gets it does not get
    # there, and the board stays unlocated.)
    layout, rendered = two_hidden_tilted("just4fun", (0, 1), False)
    config = VisionConfig()
    camera = Camera.from_config(config)
    gray = grey(rendered.frame)
    two = fit_two_markers(detect_markers(gray, layout, config), layout, camera, config)
    aligned = align_to_print(gray, layout, camera, two.homography, config)
    assert aligned is not None
    assert field_errors(layout, rendered, camera, aligned).max() > 2 * field_errors(
        layout, rendered, camera, two.homography).max()
    assert print_match(gray, layout, camera, aligned, config) < print_match(
        gray, layout, camera, two.homography, config)
    for one_or_three in (False, True):
        with pytest.raises(NoBoard, match="only 2 of 4"):
            Localiser(layout, replace(config, print_align_two_from_swung=one_or_three)
                      ).locate(gray)


def board_error_mm(layout, rendered, homography):
    """How far (mm on the board) the homography puts the farthest field from its place."""
    fields = np.array([f.centre_mm for f in layout.fields.values()])
    back = project(np.linalg.inv(rendered.truth.homography) @ homography, fields)
    return np.linalg.norm(back - fields, axis=1).max()


#: main's two-marker rule before the eleventh session: one ECC of 40 iterations from the fit,
#: believed where its chi-square is at most 4 and it matches the print better than the starts
ONE_START = replace(VisionConfig(), print_align_two_from_swung=False, print_align_two_margin=1.0,
                    print_align_two_min_gain=-math.inf, print_align_two_iterations=40,
                    print_align_two_marker_shift_mm=math.inf, print_align_max_disagreement=4.0,
                    print_align_two_min_agreeing=1)


def test_two_markers_put_on_their_print_from_the_best_of_three_starts():
    # board bench seed 1 frame 556 (tuning): Just 4 Fun with a hand, two markers found; one ECC
    # from the two markers' fit was not believed, so the photo was not read; the best of
    # three starts lands 0.8 mm off, another start beside it, and the hand is flagged
    layout, calibration, rendered, _ = bench_frame(1, 556)
    where = Localiser(layout).locate(rendered.frame)
    assert where.source == "print" and where.markers_seen == 2
    assert board_error_mm(layout, rendered, where.homography) < 1.5
    with pytest.raises(NoBoard, match="only 2 of 4"):
        Localiser(layout, ONE_START).locate(rendered.frame)
    reading = read_board(rendered.frame, layout, calibration)
    assert reading.ok and reading.occluded


def test_two_markers_whose_print_matches_no_better_stay_unlocated():
    # board bench seed 5 frame 221 (tuning): Cuatro, cards over two adjacent markers; one
    # ECC from the fit was believed 19 mm off. Its plain print matches ECC's best result
    # from three starts barely better than the starts: refused by the margin, by the floor
    # on the gain and by the starts landing apart, each alone (with none, 15 mm off)
    layout, _, rendered, _ = bench_frame(5, 221)
    config = VisionConfig()
    off = dict(print_align_two_margin=1.0, print_align_two_min_gain=-math.inf,
               print_align_two_min_agreeing=1)
    for check in (None, *off):
        alone = replace(config, **{k: v for k, v in off.items() if k != check})
        if check is None:
            where = Localiser(layout, alone).locate(rendered.frame)
            assert board_error_mm(layout, rendered, where.homography) > 10
        else:
            with pytest.raises(NoBoard, match="only 2 of 4"):
                Localiser(layout, alone).locate(rendered.frame)


def test_two_markers_on_the_print_believed_only_where_two_starts_land_together():
    # board bench seed 6 frame 543 (tuning): Spexxx, two markers covered; the best of
    # three starts is 3.1 mm off at the far fields (one start alone 4.2) and no other start
    # lands within 2 mm of it: refused
    layout, _, rendered, _ = bench_frame(6, 543)
    with pytest.raises(NoBoard, match="only 2 of 4"):
        Localiser(layout).locate(rendered.frame)
    alone = replace(VisionConfig(), print_align_two_min_agreeing=1)
    where = Localiser(layout, alone).locate(rendered.frame)
    assert where.source == "print" and board_error_mm(layout, rendered, where.homography) > 3


def test_one_corner_a_pixel_off_makes_two_markers_unsure():
    layout, rendered = two_hidden("just4fun", (0, 2))
    config = VisionConfig()
    camera = Camera.from_config(config)
    found = detect_markers(grey(rendered.frame), layout, config)
    assert fit_two_markers(found, layout, camera, config).sure(config)
    found[min(found)][0] += [1.0, 0.0]
    fit = fit_two_markers(found, layout, camera, config)
    assert fit.jackknife_px > config.two_marker_max_jackknife_px and not fit.sure(config)


def test_three_markers_and_a_blurred_hand_are_refined_against_the_print():
    # board bench seed 1 frame 379: a hand over one marker, motion blur; the three left
    # put the far corner's fields 8.5 mm off; the print lines them up within a mm
    layout, _, rendered, _ = bench_frame(1, 379)
    localiser = Localiser(layout)
    where = localiser.locate(rendered.frame)
    assert where.source == "print" and where.markers_seen == 3
    camera = localiser.camera
    markers = field_errors(layout, rendered, camera, where.markers_homography).max()
    assert markers > 3 * field_errors(layout, rendered, camera, where.homography).max()
    # the next frame, the same three markers where they were: the alignment is kept
    again = localiser.locate(rendered.frame)
    assert again.source == "print" and np.array_equal(again.homography, where.homography)


def test_three_markers_refined_against_the_print_stay_on_their_own_corners():
    # board bench seed 6 frame 511 (tuning): a hand at the covered marker's corner draws
    # ECC off, the print matching a little better there, but the three markers found
    # move 15 mm: the markers' own homography is kept (a worst field 2.5 px off, not 9)
    layout, _, rendered, _ = bench_frame(6, 511)
    localiser = Localiser(layout)
    where = localiser.locate(rendered.frame)
    assert where.markers_seen == 3 and where.source == "markers"
    loose = replace(VisionConfig(), print_align_three_marker_shift_mm=100.0)
    drawn = Localiser(layout, config=loose).locate(rendered.frame)
    assert drawn.source == "print"
    camera = localiser.camera
    assert (field_errors(layout, rendered, camera, drawn.homography).max()
            > 2 * field_errors(layout, rendered, camera, where.homography).max())


def test_three_markers_refined_against_the_print_leave_out_the_covered_corner():
    # board bench seed 1 frames 254 (Mühle, a card across the covered marker's corner) and
    # 262 (tuning): what lies over the covered corner draws ECC off when it looks there.
    # With a disc round the covered marker left out the print places the board better than
    # the three markers on both, and on one at least halves the worst field's error against
    # looking there (254 with AVX-512 kernels: 5.9 -> under 1 mm; 262 without: 4.6 -> 1.4)
    seeing = replace(VisionConfig(), print_align_three_covered_mm=0.0)
    halved = []
    for index in (254, 262):
        layout, _, rendered, _ = bench_frame(1, index)
        localiser = Localiser(layout)
        where = localiser.locate(rendered.frame)
        assert where.markers_seen == 3 and where.source == "print"
        drawn = Localiser(layout, config=seeing).locate(rendered.frame)
        camera = localiser.camera
        placed = field_errors(layout, rendered, camera, where.homography).max()
        assert placed < field_errors(layout, rendered, camera, where.markers_homography).max()
        halved.append(2 * placed < field_errors(layout, rendered, camera, drawn.homography).max())
    assert any(halved)


def test_a_board_put_on_its_print_stays_there_while_too_few_markers_are_seen():
    # board bench seed 1 frame 171 live: the clear view shows three markers, refined
    # against the print; the hand's frame shows two, and read through the three markers'
    # homography it lay a few mm off its clear view (139 fields hidden for 17 covered)
    layout, _, rendered, before = bench_frame(1, 171)
    localiser = Localiser(layout)
    clear = localiser.locate(before.frame)
    assert clear.source == "print"
    hand = localiser.locate(rendered.frame)
    assert hand.source == "previous" and hand.markers_seen == 2
    assert np.array_equal(hand.homography, clear.homography)
    assert np.array_equal(hand.markers_homography, clear.markers_homography)


def test_three_markers_pin_their_own_corners_and_the_print_the_covered_one():
    # board bench seed 6 frame 335 (tuning): a hand over a marker; the three markers put a
    # field 5.5 mm off, ECC against the print moves the markers found 6.5 mm (refused
    # as such), but where it puts the covered marker, fitted with the three found, places
    # every field within a mm
    layout, _, rendered, _ = bench_frame(6, 335)
    where = Localiser(layout).locate(rendered.frame)
    assert where.markers_seen == 3 and where.source == "print"
    refused = replace(VisionConfig(), print_align_three_marker_stray_mm=0.0)
    assert Localiser(layout, config=refused).locate(rendered.frame).source == "markers"
    camera = Camera.from_config(VisionConfig())
    placed = field_errors(layout, rendered, camera, where.homography).max()
    assert 2 * placed < field_errors(layout, rendered, camera, where.markers_homography).max()


def test_a_board_printed_with_lines_is_put_on_its_print_by_its_edges():
    # board bench seed 1 frame 426 (tuning): Mühle, three markers found, their homography
    # a field 5.1 mm off; ECC against the grey print fails (the markers' kept), on the
    # gradient magnitude it puts every field within 1.5 mm
    layout, _, rendered, _ = bench_frame(1, 426)
    where = Localiser(layout).locate(rendered.frame)
    assert where.markers_seen == 3 and where.source == "print"
    assert board_error_mm(layout, rendered, where.homography) < 1.5
    assert board_error_mm(layout, rendered, where.markers_homography) > 4.5
    grey = replace(VisionConfig(), print_align_three_lines_on_edges=False)
    assert Localiser(layout, config=grey).locate(rendered.frame).source == "markers"


@pytest.mark.parametrize(("seed", "index"), [(1, 38), (5, 6)])
def test_a_flat_card_beside_a_board_is_no_arm_reaching_in(seed, index):
    """Board bench seeds 1 frame 38 and 5 frame 6 (Mühle, no hand; tuning) placed from
    two of their four markers, as a board left unlocated is: a card lying on the table
    reaches from the frame's edge to near the board and stands out from the table by a
    step, as an arm does, but is one flat colour where an arm is shaded round."""
    layout, _, rendered, _ = bench_frame(seed, index)
    assert not any(t.occluded for t in rendered.truth.fields.values())
    config = VisionConfig()
    localiser = Localiser(layout, config)
    grey = cv2.cvtColor(rendered.frame, cv2.COLOR_BGR2GRAY)
    found = detect_markers(grey, layout, config, localiser.detector)
    two = {m: found[m] for m in (0, 1)}
    rough = fit_two_markers(two, layout, localiser.camera, config).homography
    assert not arm_reaching_in(rendered.frame, rough, layout, localiser.camera, config)
    flat = replace(config, unlocated_arm_min_lightness_sd=0.0)
    assert arm_reaching_in(rendered.frame, rough, layout, localiser.camera, flat)


@pytest.mark.parametrize(("index", "hand"), [(5, True), (4, False)])
def test_one_marker_places_the_board_roughly_enough_to_find_an_arm(index, hand):
    """Board bench seed 1 frames 5 (Cuatro, a hand over the fields) and 4 (Just 4 Fun, no
    hand; tuning), four sharp markers found, placed from each one alone as a board left
    unlocated with one marker found is: the board's corners lie within 25 px of the
    truth (tilt is what one marker pins worst), and the arm is found from each marker,
    or from none."""
    layout, _, rendered, _ = bench_frame(1, index)
    assert any(t.occluded for t in rendered.truth.fields.values()) == hand
    config = VisionConfig()
    localiser = Localiser(layout, config)
    camera = localiser.camera
    found = detect_markers(grey(rendered.frame), layout, config, localiser.detector)
    assert len(found) == 4
    corners = board_corners_mm(layout)
    truth = rendered.truth.pose.project(np.column_stack([corners, np.zeros(4)]))
    for marker_id, marker in found.items():
        rough = fit_one_marker({marker_id: marker}, layout, camera, config)
        assert np.linalg.norm(camera.board_to_frame(rough, corners) - truth, axis=1).max() < 25
        assert arm_reaching_in(rendered.frame, rough, layout, camera, config) == hand
