"""Field occupancy, colour and tower height on rendered frames."""

import pytest

from tests.vision.rendered import field_states, frame, read_states
from vision.calibration import ColourCalibration
from vision.reader import read_board
from vision.sim import CameraPose, Lighting

J4F_STACKS = {
    "A1": ["red"], "B1": ["blue", "red"], "F1": ["green", "yellow", "blue"],
    "C3": ["yellow"], "D4": ["red", "red", "blue", "green"], "A6": ["blue"] * 5,
    "F6": ["green", "yellow"], "E2": ["yellow", "yellow", "yellow"],
}


def test_just4fun_colours_and_heights_on_a_tilted_camera():
    layout, rendered = frame("just4fun", J4F_STACKS)
    reading = read_board(rendered.frame, layout, ColourCalibration.default(layout))
    assert reading.ok and not reading.occluded
    assert_tops_and_heights(read_states(reading), field_states(rendered.truth), J4F_STACKS)


@pytest.mark.parametrize("yaw", [0, 120, 250])
def test_cuatro_roof_towers_from_several_sides(yaw):
    stacks = {"A0": ["red", "blue"], "F0": ["green"] * 3, "C2": ["yellow"],
              "F5": ["blue", "red", "blue", "red"], "A5": ["green", "yellow"]}
    pose = CameraPose(height_mm=560, tilt_deg=32, yaw_deg=yaw, fov_deg=72, k1=-0.01,
                      target_mm=(160, 160))
    layout, rendered = frame("cuatro", stacks, pose)
    reading = read_board(rendered.frame, layout, ColourCalibration.default(layout))
    assert_tops_and_heights(read_states(reading), field_states(rendered.truth), stacks)


def assert_tops_and_heights(read, truth, stacks):
    """Every top colour right; heights right but for at most one tower (the bench
    measures how often heights are exact: about 72 % today)."""
    assert {n: top for n, (top, _) in read.items()} == {n: top for n, (top, _) in truth.items()}
    off = {n: (truth[n][1], read[n][1]) for n in stacks if truth[n][1] != read[n][1]}
    assert len(off) <= 1, off


def test_board_colours_are_not_pieces():
    """An empty Just 4 Fun board (six printed colours) and an empty Spexxx board (eight
    zones) read as empty everywhere."""
    for game in ("just4fun", "spexxx"):
        layout, rendered = frame(game, {})
        reading = read_board(rendered.frame, layout, ColourCalibration.default(layout))
        assert {f.height for f in reading.fields.values()} == {0}, game


def test_spexxx_small_stones_on_coloured_zones():
    stacks = {"1x2+1x1": ["black"], "2x3+1x3": ["white"], "3x4+2x2": ["magenta"],
              "3x6+2x6": ["cyan"], "2x2+2x1": ["white"], "1x6+1x4": ["magenta"]}
    layout, rendered = frame("spexxx", stacks)
    reading = read_board(rendered.frame, layout, ColourCalibration.default(layout))
    assert read_states(reading) == field_states(rendered.truth)


def test_reading_survives_exposure_and_white_balance():
    stacks = {"a1": ["white"], "d2": ["black"], "g7": ["white"], "c4": ["black"]}
    dim_warm = Lighting(exposure=0.6, white_balance=(0.8, 1.0, 1.2), vignetting=0.3)
    layout, rendered = frame("muehle", stacks, lighting=dim_warm)
    reading = read_board(rendered.frame, layout, ColourCalibration.default(layout))
    assert read_states(reading) == field_states(rendered.truth)
