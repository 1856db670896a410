import numpy as np
import pytest

from companion.layout import load_layout
from tests.vision.synthetic import camera_homography
from vision.config import VisionConfig
from vision.markers import board_corners_mm, marker_corners_mm, project
from vision.pose import fit_plane_pose, focal_from_fov, recover_pose

LAYOUT = load_layout("just4fun")


@pytest.mark.parametrize("height,tilt,yaw,fov", [
    (450, 15, 0, 60), (600, 30, 135, 70), (800, 40, 250, 80), (550, 25, 300, 75),
])
def test_pose_from_homography_with_estimated_focal(height, tilt, yaw, fov):
    focal = focal_from_fov(fov, 1280)
    pose = recover_pose(camera_homography(LAYOUT, height, tilt, yaw, focal), VisionConfig())
    assert pose.focal_estimated
    assert pose.focal_px == pytest.approx(focal, rel=0.01)
    assert pose.height_mm == pytest.approx(height, rel=0.01)
    assert pose.tilt_deg == pytest.approx(tilt, abs=0.5)


def test_straight_down_camera_uses_the_configured_or_default_focal():
    truth = camera_homography(LAYOUT, 700, 0, 40, focal_from_fov(65, 1280))
    configured = recover_pose(truth, VisionConfig(focal_px=focal_from_fov(65, 1280)))
    assert configured.height_mm == pytest.approx(700, rel=0.005)
    assert configured.tilt_deg < 0.5
    default = recover_pose(truth, VisionConfig())
    assert not default.focal_estimated
    assert default.nadir_mm == pytest.approx([145, 145], abs=1)


def test_lift_moves_raised_points_away_from_the_nadir():
    pose = recover_pose(camera_homography(LAYOUT, 500, 30, 0, 914), VisionConfig())
    nadir = pose.nadir_mm
    lifted = pose.lift([[145, 145]], 50.0)[0]
    # 50 mm up at 500 mm lens height: 1/9 further from the nadir
    assert lifted - nadir == pytest.approx(([145, 145] - nadir) * 500 / 450, abs=0.5)


def two_marker_fit(truth, ids):
    mm = np.concatenate([marker_corners_mm(LAYOUT)[LAYOUT.markers.ids[k]] for k in ids])
    noise = 0.3**2 * np.eye(2 * len(mm))
    return fit_plane_pose(mm, project(truth, mm), noise, 1280, 960, focal_from_fov(70, 1280),
                          180.0)


def test_plane_pose_from_two_markers_finds_the_focal_length_and_the_board():
    focal = focal_from_fov(62, 1280)
    truth = camera_homography(LAYOUT, 600, 30, 135, focal)
    fit = two_marker_fit(truth, (0, 2))
    assert fit.focal_px == pytest.approx(focal, rel=0.01)
    corners = board_corners_mm(LAYOUT)
    assert np.abs(project(fit.homography, corners) - project(truth, corners)).max() < 0.5


def test_two_adjacent_markers_pin_the_board_worse_than_two_diagonal_ones():
    # rotating the board about the line through two markers barely moves them
    truth = camera_homography(LAYOUT, 600, 25, 20, focal_from_fov(70, 1280))
    corners = board_corners_mm(LAYOUT)
    diagonal = two_marker_fit(truth, (0, 2)).spread_px(corners).max()
    adjacent = two_marker_fit(truth, (2, 3)).spread_px(corners).max()
    assert adjacent > 1.5 * diagonal
