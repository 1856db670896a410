"""The simulated table: geometry, truth and determinism of rendered frames."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.layout import load_layout
from vision.sim import (
    CameraPose,
    Die,
    Hand,
    Lighting,
    Scene,
    random_pose,
    random_scene,
    render,
)
from vision.sim.camera import must_see_points

GAMES = ("just4fun", "cuatro", "spexxx", "muehle")
SMALL = (640, 480)  # tests render small frames: same code paths, a quarter of the pixels


@pytest.fixture(scope="module")
def layouts():
    return {g: load_layout(g) for g in GAMES}


def clean(scene: Scene) -> Scene:
    """The same scene without camera defects, for pixel-exact checks."""
    scene.noise_sigma = 0.0
    scene.blur_sigma = 0.0
    scene.jpeg_quality = None
    scene.lighting = Lighting(glare=(), vignetting=0.0, gradient=0.0)
    return scene


def detect_markers(frame: np.ndarray) -> dict[int, np.ndarray]:
    aruco = cv2.aruco
    detector = aruco.ArucoDetector(aruco.getPredefinedDictionary(aruco.DICT_4X4_50),
                                   aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
    if ids is None:
        return {}
    found = {}
    for c, i in zip(corners, ids.ravel(), strict=True):
        c = c.reshape(4, 2).astype(np.float32)
        # Refine as a board reader would; the truth is exact, so the comparison is fair.
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        cv2.cornerSubPix(gray, c, (3, 3), (-1, -1),
                         (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.01))
        found[int(i)] = c
    return found


def test_project_matches_opencv_and_homography():
    pose = CameraPose(height_mm=550, tilt_deg=32, yaw_deg=-70, fov_deg=75, k1=-0.045,
                      target_mm=(150, 140))
    rng = np.random.default_rng(1)
    pts = np.column_stack([rng.uniform(-30, 330, 50), rng.uniform(-30, 330, 50),
                           rng.uniform(0, 60, 50)])
    # OpenCV's world frame is ours with z = -height.
    cv_px, _ = cv2.projectPoints(pts * [1, 1, -1], pose.rvec, pose.tvec, pose.K,
                                 pose.dist_coeffs)
    assert np.allclose(pose.project(pts), cv_px.reshape(-1, 2), atol=1e-6)
    flat = pts.copy()
    flat[:, 2] = 0
    mapped = cv2.perspectiveTransform(flat[None, :, :2], pose.homography())[0]
    assert np.allclose(mapped, pose.project_undistorted(flat), atol=1e-6)
    assert np.allclose(pose.undistort_pixels(pose.project(flat)), mapped, atol=1e-4)


def test_pose_orientation_is_as_documented():
    pose = CameraPose(tilt_deg=0, yaw_deg=0, k1=0.0, target_mm=(100, 100))
    centre, right, below = pose.project(np.array([[100, 100, 0], [150, 100, 0], [100, 150, 0]]))
    assert centre == pytest.approx((640, 480))
    assert right[0] > centre[0] and below[1] > centre[1]  # board x right, y down
    assert pose.project(np.array([[150, 100, 40]]))[0, 0] > right[0]  # higher = nearer = bigger
    side = CameraPose(tilt_deg=0, yaw_deg=90, k1=0.0, target_mm=(100, 100))
    # Seen from the right edge, board-up points to the image's right.
    assert side.project(np.array([[100, 50, 0]]))[0, 0] > 640


def test_random_poses_keep_board_markers_and_dice_area_in_view(layouts):
    rng = np.random.default_rng(7)
    for layout in layouts.values():
        for _ in range(20):
            pose = random_pose(rng, layout)
            assert pose.sees(must_see_points(layout))
            assert 400 <= pose.height_mm <= 800 and 0 <= pose.tilt_deg <= 40
            assert 60 <= pose.fov_deg <= 80 and -0.05 <= pose.k1 <= 0


@pytest.mark.parametrize("game", GAMES)
def test_markers_are_detected_where_truth_says(game, layouts):
    layout = layouts[game]
    rng = np.random.default_rng(11)
    pose = random_pose(rng, layout, image_size=(1280, 960))
    scene = clean(random_scene(layout, rng, hard=False))
    out = render(scene, pose, rng)
    found = detect_markers(out.frame)
    assert set(found) == set(layout.markers.ids)
    for marker_id, corners in zip(out.truth.marker_ids, out.truth.marker_corners, strict=True):
        error = np.linalg.norm(found[marker_id] - corners, axis=1).max()
        assert error < 1.0, f"{game} marker {marker_id}: corners off by {error:.2f} px"


def test_truth_matches_scene_and_pixels(layouts):
    layout = layouts["cuatro"]
    stacks = {"A0": ["red"], "C2": ["blue", "red", "yellow"], "F5": ["green"] * 5}
    scene = clean(Scene(layout, stacks=stacks, table="plain"))
    pose = CameraPose(height_mm=700, tilt_deg=0, k1=0.0, image_size=SMALL, target_mm=(260, 160))
    out = render(scene, pose, np.random.default_rng(3))
    truth = out.truth
    assert truth.fields["C2"].height == 3 and truth.fields["C2"].top == "yellow"
    assert truth.fields["C2"].colours == ("blue", "red", "yellow")
    assert truth.fields["F5"].height == 5 and truth.fields["F5"].top == "green"
    assert not truth.fields["B1"].occupied and truth.fields["B1"].top is None
    assert sum(f.occupied for f in truth.fields.values()) == 3
    assert all(f.visible for f in truth.fields.values())
    # The pixel at each tower's top shows the top piece's colour, or the bare board.
    frame = out.frame.astype(int)
    for name, colour in (("A0", "#c62828"), ("C2", "#f9c80e"), ("B1", "#e8dcc0")):
        x, y = (int(round(v)) for v in truth.fields[name].top_px)
        hexcol = colour.lstrip("#")
        expected = np.array([int(hexcol[4:6], 16), int(hexcol[2:4], 16), int(hexcol[0:2], 16)])
        patch = frame[y - 2:y + 3, x - 2:x + 3].reshape(-1, 3).mean(axis=0)
        assert np.abs(patch - expected).max() < 60, (name, patch, expected)
    # Flat truth agrees with the homography.
    c = cv2.perspectiveTransform(np.array([[[layout.fields["B1"].x_mm,
                                             layout.fields["B1"].y_mm]]]), truth.homography)
    assert np.allclose(c[0, 0], truth.fields["B1"].centre_px, atol=1e-6)  # k1 = 0 here


def test_hand_occludes_fields_under_it(layouts):
    layout = layouts["just4fun"]
    stacks = {"C3": ["red", "blue"], "F6": ["green"]}
    hand = Hand(entry_mm=(145, -700), tip_mm=(145, 150), height_mm=80)
    scene = clean(Scene(layout, stacks=stacks, hand=hand))
    pose = CameraPose(height_mm=650, tilt_deg=10, k1=-0.02, image_size=SMALL,
                      target_mm=(145, 145))
    out = render(scene, pose, np.random.default_rng(5))
    fields = out.truth.fields
    assert fields["C1"].occluded and fields["D1"].occluded  # under the arm, near the top
    assert fields["A6"].visible and fields["F6"].visible  # far corner
    assert fields["F6"].height == 1
    # Occluded fields really show skin, not board: the hand mask covers their centres.
    for name in ("C1", "D1"):
        x, y = (int(round(v)) for v in fields[name].centre_px)
        assert out.truth.hand_mask[y, x] == 255
    x, y = (int(round(v)) for v in fields["A6"].centre_px)
    assert out.truth.hand_mask[y, x] == 0


def test_dice_truth(layouts):
    layout = layouts["cuatro"]
    dice = [Die(400, 80, 5, 20.0), Die(480, 200, 2, 65.0, body="#1f1f1f", pips="#f5f5f5")]
    scene = clean(Scene(layout, dice=dice, table="cloth"))
    pose = random_pose(np.random.default_rng(2), layout, image_size=SMALL)
    out = render(scene, pose, np.random.default_rng(2))
    assert [d.value for d in out.truth.dice] == [5, 2]
    for d, spec in zip(out.truth.dice, dice, strict=True):
        x0, y0, x1, y1 = d.bbox
        assert d.visible and 0 <= x0 < x1 < SMALL[0] and 0 <= y0 < y1 < SMALL[1]
        centre = pose.project(np.array([[spec.x_mm, spec.y_mm, spec.size_mm]]))[0]
        assert x0 <= centre[0] <= x1 and y0 <= centre[1] <= y1
        # The top face has dark or light pips on a contrasting body: not a flat patch.
        crop = cv2.cvtColor(out.frame[int(y0):int(y1) + 1, int(x0):int(x1) + 1],
                            cv2.COLOR_BGR2GRAY)
        assert crop.std() > 20


def test_same_seed_same_frame_and_different_seed_differs(layouts):
    layout = layouts["spexxx"]
    frames = []
    for seed in (4, 4, 5):
        rng = np.random.default_rng(seed)
        scene = random_scene(layout, rng, hand_prob=1.0)
        pose = random_pose(rng, layout, image_size=SMALL)
        frames.append(render(scene, pose, rng).frame)
    assert np.array_equal(frames[0], frames[1])
    assert not np.array_equal(frames[0], frames[2])


@pytest.mark.parametrize("game", GAMES)
def test_every_layout_renders_varied_hard_scenes(game, layouts):
    layout = layouts[game]
    rng = np.random.default_rng(hash(game) % 1000)
    for _ in range(3):
        scene = random_scene(layout, rng, hand_prob=0.5)
        out = render(scene, random_pose(rng, layout, image_size=SMALL), rng)
        assert out.frame.shape == (SMALL[1], SMALL[0], 3) and out.frame.dtype == np.uint8
        assert set(out.truth.fields) == set(layout.fields)
        for name, f in out.truth.fields.items():
            assert f.height == len(scene.stacks.get(name, []))
            assert f.height <= 5
        assert out.truth.marker_corners.shape == (4, 4, 2)
        assert len(out.truth.dice) == len(scene.dice)


def test_bad_scenes_are_refused_in_plain_words(layouts):
    layout = layouts["muehle"]
    with pytest.raises(ValueError, match="no field"):
        Scene(layout, stacks={"z9": ["white"]})
    with pytest.raises(ValueError, match="no 'red' pieces"):
        Scene(layout, stacks={"a1": ["red"]})
    with pytest.raises(ValueError, match="1 to 6"):
        Die(0, 0, 7)
    with pytest.raises(ValueError, match="tilt"):
        CameraPose(tilt_deg=95)
    with pytest.raises(ValueError, match="above the table"):
        CameraPose(height_mm=-5)


@pytest.mark.parametrize("value", range(1, 7))
def test_die_top_face_shows_its_value(value, layouts):
    layout = layouts["cuatro"]
    die = Die(450, 150, value, angle_deg=33.0 * value, size_mm=18)
    scene = clean(Scene(layout, dice=[die], table="plain"))
    pose = CameraPose(height_mm=400, tilt_deg=0, k1=0.0, image_size=SMALL, target_mm=(450, 150))
    out = render(scene, pose, np.random.default_rng(0))
    x0, y0, x1, y1 = (int(round(v)) for v in out.truth.dice[0].bbox)
    top = cv2.cvtColor(out.frame[y0:y1 + 1, x0:x1 + 1], cv2.COLOR_BGR2GRAY)
    pad = max(2, (x1 - x0) // 10)  # stay off the rounded dark edge of the face
    dark = (top[pad:-pad, pad:-pad] < 80).astype(np.uint8)
    count, _, stats, _ = cv2.connectedComponentsWithStats(dark)
    pips = sum(1 for s in stats[1:] if s[cv2.CC_STAT_AREA] >= 4)
    assert pips == value


def test_tower_top_truth_in_an_oblique_view(layouts):
    layout = layouts["just4fun"]
    scene = clean(Scene(layout, stacks={"C3": ["red", "red", "red", "red", "blue"]},
                        table="plain"))
    pose = CameraPose(height_mm=450, tilt_deg=38, yaw_deg=20, k1=-0.03, image_size=SMALL,
                      target_mm=(145, 145))
    out = render(scene, pose, np.random.default_rng(8))
    f = out.truth.fields["C3"]
    assert np.hypot(f.top_px[0] - f.centre_px[0], f.top_px[1] - f.centre_px[1]) > 10
    x, y = (int(round(v)) for v in f.top_px)
    b, g, r = out.frame[y - 1:y + 2, x - 1:x + 2].reshape(-1, 3).mean(axis=0)
    assert b > r + 40  # blue on top, although four red stones lie under it


def test_pieces_that_stay_put_look_the_same_in_the_next_frame(layouts):
    layout = layouts["just4fun"]
    pose = CameraPose(height_mm=600, tilt_deg=20, image_size=SMALL, target_mm=(145, 145))
    before = clean(Scene(layout, stacks={"B2": ["red", "blue"]}, seed=42))
    after = clean(Scene(layout, stacks={"B2": ["red", "blue"], "E5": ["green"]}, seed=42))
    a = render(before, pose, np.random.default_rng(1))
    b = render(after, pose, np.random.default_rng(2))
    x, y = (int(round(v)) for v in a.truth.fields["B2"].top_px)
    patch = np.s_[y - 20:y + 20, x - 20:x + 20]
    assert np.abs(a.frame[patch].astype(int) - b.frame[patch].astype(int)).mean() < 1.0
    x, y = (int(round(v)) for v in b.truth.fields["E5"].top_px)
    patch = np.s_[y - 5:y + 5, x - 5:x + 5]
    assert np.abs(a.frame[patch].astype(int) - b.frame[patch].astype(int)).mean() > 30


def test_seen_share_tells_when_a_nearer_tower_hides_a_piece(layouts):
    layout = layouts["just4fun"]
    stacks = {"C4": ["red"] * 5, "C3": ["blue"], "F1": ["green"], "A4": ["blue"] * 5}
    scene = clean(Scene(layout, stacks=stacks))
    # Camera on the player's side, low and steep: C4 stands between it and C3.
    pose = CameraPose(height_mm=420, tilt_deg=40, yaw_deg=0, k1=0.0, image_size=SMALL,
                      target_mm=(145, 145))
    fields = render(scene, pose, np.random.default_rng(0)).truth.fields
    assert fields["C3"].seen_share < 0.9
    assert fields["C4"].seen_share > 0.99 and fields["F1"].seen_share > 0.99
    assert fields["A3"].seen_share < 0.99  # the empty field behind a tower is partly hidden
    assert fields["F6"].seen_share > 0.99
    assert all(f.visible for f in fields.values())  # no hand: nothing counts as occluded


def test_random_dice_touch_but_never_overlap(layouts):
    from vision.sim.scene import dice_overlap, random_dice

    layout = layouts["cuatro"]
    x0, y0, x1, y1 = layout.dice_area_mm
    rng = np.random.default_rng(3)
    close_pairs = 0
    for _ in range(40):
        dice = random_dice(layout, rng, 5)
        assert len(dice) == 5
        for i, a in enumerate(dice):
            assert x0 <= a.x_mm <= x1 and y0 <= a.y_mm <= y1
            for b in dice[i + 1:]:
                assert not dice_overlap(a, b)
                close_pairs += np.hypot(a.x_mm - b.x_mm, a.y_mm - b.y_mm) < 1.5 * a.size_mm
    assert close_pairs >= 10  # thrown dice often end up side by side


def test_markers_out_of_frame_or_under_a_card_are_not_visible(layouts):
    layout = layouts["muehle"]
    scene = clean(Scene(layout, markers_hidden=frozenset({2})))
    # Close and aimed at the top-left corner: the right-hand markers fall outside the frame.
    pose = CameraPose(height_mm=400, tilt_deg=0, k1=0.0, image_size=SMALL, target_mm=(40, 160))
    out = render(scene, pose, np.random.default_rng(0))
    assert out.truth.markers_visible == (True, False, False, True)
    assert set(detect_markers(out.frame)) == {0, 3}


def test_hand_stuck_markers_are_drawn_and_reported_where_they_really_lie(layouts):
    layout = layouts["cuatro"]
    pose = CameraPose(height_mm=600, tilt_deg=15, yaw_deg=-10, k1=-0.02,
                      target_mm=(250, 160))
    offsets = ((3.0, -2.0, 8.0), (0.0, 0.0, 0.0), (-2.5, 1.5, -5.0), (0.0, 0.0, 0.0))
    exact = render(clean(Scene(layout)), pose, np.random.default_rng(0))
    placed = render(clean(Scene(layout, marker_offsets=offsets)), pose, np.random.default_rng(0))
    moved = placed.truth
    found = detect_markers(placed.frame)
    for i, marker_id in enumerate(layout.markers.ids):
        error = np.linalg.norm(found[marker_id] - moved.marker_corners[i], axis=1).max()
        assert error < 1.0
        shift = np.linalg.norm(moved.marker_corners[i] - exact.truth.marker_corners[i],
                               axis=1).max()
        assert (shift > 3.0) == (offsets[i] != (0.0, 0.0, 0.0))
