import pytest

from companion.layout import load_layout
from tests.vision.synthetic import camera_homography
from vision.config import VisionConfig
from vision.pose import focal_from_fov, recover_pose

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
