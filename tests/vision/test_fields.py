"""Field occupancy, colour and tower height on rendered frames."""

import math
from dataclasses import replace

import cv2
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.layout import load_layout
from companion.simtable import TABLE_LIGHT, table_pose
from tests.vision.rendered import bench_frame, field_states, frame, read_states
from vision.calibration import ColourCalibration, Levels, clipped_variants, to_lab
from vision.config import VisionConfig
from vision.errors import VisionError
from vision.fields import (
    BOARD,
    FOREIGN,
    UNKNOWN,
    ColourClasses,
    FieldState,
    _base_past_seam,
    _bridge_unsure,
    _column_medians,
    _foot_before_dip,
    _masked_medians,
    _neighbour_edges,
    _past_break,
    _segment_medians,
    _segment_percentiles,
    _top_step,
    far_edge_widths,
    look_alike_pieces,
    read_fields,
    silhouette_bias,
)
from vision.reader import BoardTracker, read_board
from vision.sim import CameraPose, Lighting, Scene, random_pose, random_scene, render

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
    measures how often heights are exact: about 82 % today, see docs/vision.md)."""
    assert {n: top for n, (top, _) in read.items()} == {n: top for n, (top, _) in truth.items()}
    off = {n: (truth[n][1], read[n][1]) for n in stacks if truth[n][1] != read[n][1]}
    assert len(off) <= 1, off


TOWERS = {"just4fun": ["A1", "F1", "A6", "F6", "C1"], "cuatro": ["A0", "F0", "A5", "F5", "C0"]}
COLOURS = ["red", "blue", "green", "yellow"]


@pytest.mark.parametrize("game", ["just4fun", "cuatro"])
@pytest.mark.parametrize("yaw", [100, 300])
def test_towers_one_to_five_high_read_right_or_flagged(game, yaw):
    """Towers 1-5 high at the board's rim, well away from the point below the lens: most
    heights read right, and every wrong one is marked uncertain so the referee asks."""
    stacks = {f: [COLOURS[(i + k) % 4] for k in range(i + 1)]
              for i, f in enumerate(TOWERS[game])}
    w, h = load_layout(game).board_size_mm
    pose = CameraPose(height_mm=600, tilt_deg=35, yaw_deg=yaw, fov_deg=70, k1=-0.01,
                      target_mm=(w / 2, h / 2))
    layout, rendered = frame(game, stacks, pose)
    reading = read_board(rendered.frame, layout, ColourCalibration.default(layout))
    unsure = VisionConfig().uncertain_below
    right = 0
    for name in stacks:
        got, height = reading.fields[name], rendered.truth.fields[name].height
        right += got.height == height
        assert got.height == height or got.confidence < unsure, (name, height, got)
    assert right >= 4, reading.fields


@pytest.mark.parametrize("game,name", [("just4fun", "C3"), ("cuatro", "C2")])
@pytest.mark.parametrize("height", [1, 3, 5])
def test_tower_right_below_the_lens_is_uncertain(game, name, height):
    """Straight below the lens a tower's top hides its sides: its height cannot be seen,
    so it must be reported as uncertain whatever it reads."""
    centre = load_layout(game).fields[name].centre_mm
    pose = CameraPose(height_mm=650, tilt_deg=0, yaw_deg=30, fov_deg=70, k1=-0.01,
                      target_mm=tuple(centre))
    layout, rendered = frame(game, {name: ["red"] * height}, pose)
    reading = read_board(rendered.frame, layout, ColourCalibration.default(layout))
    got = reading.fields[name]
    assert got.top_colour == "red"
    assert got.confidence < VisionConfig().uncertain_below, got


@pytest.mark.parametrize("table", ["cloth", "dark_wood"])
def test_tall_towers_leaning_off_the_board_onto_a_dark_table(table):
    """Five-high towers on the rim far from the lens lean off the board onto a table that
    matches a piece colour, so their silhouette runs to the end of its line: they still
    read five (once 3-4, from the top face alone), uncertain as the end was not seen."""
    stacks = {"A6": ["green", "green", "blue", "green", "blue"],
              "B6": ["red", "green", "blue", "red", "yellow"],
              "F6": ["blue", "blue", "red", "yellow", "yellow"]}
    pose = CameraPose(height_mm=420, tilt_deg=23, yaw_deg=175, fov_deg=73, k1=-0.04,
                      target_mm=(162, 133))
    layout, rendered = frame("just4fun", stacks, pose, table=table)
    reading = read_board(rendered.frame, layout, ColourCalibration.default(layout))
    assert {n: reading.fields[n].height for n in stacks} == {n: 5 for n in stacks}


def test_dark_seam_matching_the_field_does_not_cut_a_tower_short():
    """Red under green stones on brown fields: the shaded seam between them matches the
    brown board, so the silhouette has a gap; the base is the edge nearest where a
    centred base would be, not the gap (A4 read 2 before). None is cut short; one may
    still read a layer tall (E3, since the renderer's noise was mended)."""
    stacks = {n: ["red", "green", "green"] for n in ("F1", "C2", "E3", "A4", "D5", "B6")}
    pose = CameraPose(height_mm=550, tilt_deg=26, yaw_deg=88, fov_deg=77, k1=0.0,
                      target_mm=(145, 136))
    light = Lighting(exposure=0.7, light_azimuth_deg=213, light_elevation_deg=66,
                     shadow_strength=0.25)
    layout, rendered = frame("just4fun", stacks, pose, lighting=light, blur_sigma=0.9,
                             piece_style="groove")
    reading = read_board(rendered.frame, layout, ColourCalibration.default(layout))
    heights = {n: reading.fields[n].height for n in stacks}
    assert heights["A4"] == 3 and min(heights.values()) == 3
    assert sum(h == 3 for h in heights.values()) >= 5


def test_tower_top_touching_a_neighbour_ends_where_the_colour_changes():
    """A steep camera close over the board: a three-high tower's top leans onto the next
    field's stone. Of another colour, that stone ends the silhouette (D2 read red, five
    high, before); of the same colour nothing tells them apart, and the reading says so."""
    stacks = {"D2": ["blue", "red", "blue"], "D1": ["red"],
              "B2": ["red", "blue", "blue", "blue"], "B1": ["blue"]}
    pose = CameraPose(height_mm=360, tilt_deg=35, yaw_deg=0, fov_deg=66, k1=-0.02,
                      target_mm=(145, 145))
    layout, rendered = frame("just4fun", stacks, pose)
    reading = read_board(rendered.frame, layout, ColourCalibration.default(layout))
    d2 = reading.fields["D2"]
    assert (d2.top_colour, d2.height) == ("blue", 3) and d2.confidence >= 0.6
    b2 = reading.fields["B2"]
    assert b2.top_colour == "blue"
    assert b2.height == 4 or b2.confidence < VisionConfig().uncertain_below


def test_silhouette_bias_per_piece_shape_from_a_config_file(tmp_path):
    path = tmp_path / "vision.toml"
    path.write_text('silhouette_bias_mm = [["disc", 1.0], ["roof", 2.5]]\n')
    config = VisionConfig.load(path)
    assert config.silhouette_bias_mm == (("disc", 1.0), ("roof", 2.5))
    assert silhouette_bias("roof", config) == 2.5
    with pytest.raises(VisionError, match="'cube'"):
        silhouette_bias("cube", config)


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


@pytest.mark.parametrize("light_from", [90, 180, 270])
def test_white_stones_on_silver_cells_under_uneven_light(light_from):
    """A white stone on Spexxx's silver (the same grey, 1.3x as bright) where the lamp is
    dimmer than at the markers matches silver by colour; its face against the cell's
    corners tells it. The silver cells left empty stay empty."""
    layout = load_layout("spexxx")
    silver = [n for n, f in layout.fields.items() if f.attrs.get("zone") == "silver"]
    stacks = {name: ["white"] for name in silver[::2]}
    stacks.update({"2x3+1x3": ["black"], "1x2+1x1": ["white"]})
    light = Lighting(gradient=0.5, gradient_angle_deg=light_from)
    layout, rendered = frame("spexxx", stacks, lighting=light)
    calibration = ColourCalibration.default(layout, ["black", "white"])
    reading = read_board(rendered.frame, layout, calibration)
    assert read_states(reading) == field_states(rendered.truth)


@pytest.mark.parametrize("seed", [0, 3])
def test_magenta_and_cyan_on_red_and_blue_cells_in_a_dim_cast_frame(seed):
    """In a dim frame with a blue cast (board bench seed 1, frame 23's light and camera),
    stretched to the markers' white, magenta on Spexxx's red cells and cyan on its blue
    ones match both colours in the tables and read empty; within the frame they lie far
    from the empty cells of their colour and close to the same player's other pieces."""
    layout = load_layout("spexxx")
    zone = {c: [n for n, f in layout.fields.items() if f.printed == c]
            for c in ("red", "blue", "green")}
    stacks = {**{n: ["magenta"] for n in zone["red"][::3]},
              **{n: ["cyan"] for n in zone["blue"][::3]},
              **{n: ["magenta"] for n in zone["green"][::4]},
              **{n: ["cyan"] for n in zone["green"][1::4]}}
    light = Lighting(exposure=0.64, white_balance=(0.91, 1.01, 1.075),
                     light_azimuth_deg=149, light_elevation_deg=67, shadow_strength=0.41,
                     vignetting=0.16, gradient=0.26, gradient_angle_deg=79)
    pose = CameraPose(height_mm=777, tilt_deg=15.5, yaw_deg=181, fov_deg=79.8, k1=-0.011,
                      target_mm=(218, 186))
    layout, rendered = frame("spexxx", stacks, pose=pose, seed=seed, lighting=light,
                             noise_sigma=3.7, blur_sigma=1.2, jpeg_quality=None)
    calibration = ColourCalibration.default(layout, ["cyan", "magenta"])
    reading = read_board(rendered.frame, layout, calibration)
    assert read_states(reading) == field_states(rendered.truth)


@pytest.mark.parametrize("glare", [(0.5, 0.5, 0.2, 0.4), (0.5, 0.5, 0.12, 0.6)])
def test_black_stones_in_a_glare_spot_are_not_read_white(glare):
    """A lamp's reflection over the board washes black stones towards grey, and the
    lookup tables (which accept white in deep shade) read a dozen of them white; within
    the frame they are still far darker than every white stone. (A cell washed out by the
    glare may still read as a stone, white, or black beside white stones: not what this
    test is about. Read white, :func:`vision.fields.washed_out_board` empties it; read
    black beside the whites first, it stays black.)"""
    layout = load_layout("spexxx")
    playable = [n for n, f in layout.fields.items() if f.attrs.get("playable", True)]
    stacks = {n: ["black" if k % 2 else "white"] for k, n in enumerate(playable[::5])}
    layout, rendered = frame("spexxx", stacks, lighting=Lighting(glare=(glare,)))
    reading = read_board(rendered.frame, layout,
                         ColourCalibration.default(layout, ["black", "white"]))
    read = {n: f.top_colour for n, f in reading.fields.items()}
    assert len(read) == len(layout.fields)
    assert [n for n, c in stacks.items() if c == ["black"] and read[n] == "white"] == []
    assert [n for n, c in stacks.items() if c == ["white"] and read[n] != "white"] == []
    apart = replace(VisionConfig(), lightness_local_mm=0.0, washed_board_share=0.0)
    washed = {n for n, f in read_board(rendered.frame, layout, ColourCalibration.default(
        layout, ["black", "white"]), apart).fields.items() if n not in stacks and f.height}
    assert [n for n in read if n not in stacks and read[n] == "black" and n not in washed] == []


@pytest.mark.parametrize("index,greyed", [
    (231, ["3x5+2x4", "3x1+2x5", "3x4+2x3", "3x2+2x3", "3x3+2x5"]),
    (578, ["b4"]),
])
def test_black_stones_greyed_by_sheen_read_black_beside_white_ones(index, greyed):
    """Board bench seed 1: in Spexxx frame 231 the lamp nearly overhead mirrors in the
    glossy tops of the black stones near the board's middle and lifts them to grey (L
    156-187, the other blacks 36-125, the whites 241-255), so the frame's one cut leaves
    them with the whites; Mühle frame 578's b4 is lifted to 151 by the sheen, a white beside
    it at 236. The whites within a few cm, lifted alike, stay at white: beside them the
    greys are black."""
    layout, calibration, rendered, _ = bench_frame(1, index)
    truth = field_states(rendered.truth)
    assert all(truth[n] == ("black", 1) for n in greyed)
    reading = read_board(rendered.frame, layout, calibration)
    assert reading.ok and not reading.occluded
    read = read_states(reading)
    assert [n for n in greyed if read[n] != ("black", 1)] == []
    assert [n for n, t in truth.items() if t[0] == "white" and read[n][0] != "white"] == []
    apart = replace(VisionConfig(), lightness_local_mm=0.0, white_face_dark_share=-np.inf)
    read = read_states(read_board(rendered.frame, layout, calibration, apart))
    assert [n for n in greyed if read[n] == ("white", 1)] == greyed


@pytest.mark.parametrize("index,washed", [
    (74, ["b4", "c4", "c5", "b6"]),
    (590, ["a1", "a4", "b4"]),
    (115, ["4x5+1x1", "4x6+1x1", "4x5+1x2", "4x6+1x2", "4x5+1x3", "4x6+1x3", "4x6+1x4"]),
])
def test_a_board_washed_out_by_glare_is_no_white_stone(index, washed):
    """Board bench seed 1: a lamp's glare washes Mühle's tan board (frames 74 and 590)
    and Spexxx's red cells (115) towards white and past the markers' white, where they
    matched a white stone and read as one, most of them surely. A stone there, washed
    alike, would still differ from the board beside it; these points and cells do not."""
    layout, calibration, rendered, _ = bench_frame(1, index)
    truth = field_states(rendered.truth)
    assert all(truth[n] == (None, 0) for n in washed)
    read = read_states(read_board(rendered.frame, layout, calibration))
    assert [n for n in washed if read[n] != (None, 0)] == []
    assert [n for n, t in truth.items() if t[0] == "white" and read[n][0] != "white"] == []
    unwashed = replace(VisionConfig(), washed_board_share=0.0, white_face_dark_share=-np.inf)
    read = read_states(read_board(rendered.frame, layout, calibration, unwashed))
    assert [n for n in washed if read[n] == ("white", 1)] == washed


@pytest.mark.parametrize("index,pale", [
    (27, {"3x6+2x4": "magenta", "3x6+2x5": "magenta"}),
    (571, {"1x3+1x1": "cyan"}),
])
def test_stones_washed_pale_keep_their_hue_beside_white_ones(index, pale):
    """Board bench seed 1: haze or a lamp's glare washes magenta stones on Spexxx's
    purple cells (frame 27) and a cyan one (571) so pale that they matched white best,
    and read white surely (0.99, 0.94). Beside the frame's white stones their faces keep
    part of their hue: they read as their colour, unsure; every white stays white."""
    layout, calibration, rendered, _ = bench_frame(1, index)
    truth = field_states(rendered.truth)
    assert all(truth[n] == (colour, 1) for n, colour in pale.items())
    reading = read_board(rendered.frame, layout, calibration)
    assert reading.ok and not reading.occluded
    read = read_states(reading)
    assert {n: read[n] for n in pale} == {n: (colour, 1) for n, colour in pale.items()}
    config = VisionConfig()
    assert [n for n in pale if reading.fields[n].confidence >= config.uncertain_below] == []
    assert [n for n, t in truth.items() if t[0] == "white" and read[n][0] != "white"] == []
    neutral = replace(config, pale_piece_shift=np.inf)
    read = read_states(read_board(rendered.frame, layout, calibration, neutral))
    assert [n for n in pale if read[n] == ("white", 1)] == list(pale)


@pytest.mark.parametrize("index,dark", [(363, ["4x3+1x3"]), (175, ["4x3+1x3"])])
def test_black_stones_on_silver_found_by_their_dark_side(index, dark):
    """Board bench seed 1: in hazy Spexxx frames a black stone's face on a silver cell
    lies only half as dark as the cell's corners (frame 363: 74 against 157), far from
    black's nominal ratio, and read empty (0.99). Its side, outside the face, is as dark:
    it reads black, unsure; no empty silver cell reads as a piece. (Frame 363's also lies
    most of the way from the frame's silver cells to its blacks: ``mixed_stones`` is
    turned off with the dark side to see the side's own reading.)"""
    layout, calibration, rendered, _ = bench_frame(1, index)
    truth = field_states(rendered.truth)
    assert all(truth[n] == ("black", 1) for n in dark)
    reading = read_board(rendered.frame, layout, calibration)
    read = read_states(reading)
    assert [n for n in dark if read[n] != ("black", 1)] == []
    silver = [n for n, f in layout.fields.items() if f.printed == "silver"]
    assert [n for n in silver if truth[n] == (None, 0) and read[n] != (None, 0)] == []
    config = VisionConfig()
    assert [n for n in dark if reading.fields[n].confidence >= config.uncertain_below] == []
    blind = replace(config, look_alike_ring_ratio=1e-9, frame_colour_mix_share=math.inf)
    read = read_states(read_board(rendered.frame, layout, calibration, blind))
    assert [n for n in dark if read[n] == (None, 0)] == dark


@pytest.mark.parametrize("index,phantom,blind", [
    (547, "4x1+1x1", {"look_alike_rim_chroma": math.inf}),
    (119, "3x1+2x1", {"look_alike_outline_ratio": math.inf}),
])
def test_empty_silver_cells_read_white_are_unsure(index, phantom, blind):
    """Board bench seed 1: an empty silver cell read white surely. In frame 547 the face
    test compared its plain face with corners darkened by a blue cell and a magenta
    stone beside them (read white, 1.00): the corners lie far off silver's hue. In 119 a
    glare spot washes the cell evenly white and the colour tables read it white (0.64):
    no darker side or outline rings its face. Both read unsure; every white stone on
    silver keeps its reading."""
    layout, calibration, rendered, _ = bench_frame(1, index)
    truth = field_states(rendered.truth)
    assert truth[phantom] == (None, 0)
    config = VisionConfig()
    reading = read_board(rendered.frame, layout, calibration, config)
    assert reading.fields[phantom].confidence < config.uncertain_below
    silver = [n for n, f in layout.fields.items() if f.printed == "silver"]
    assert [n for n in silver if truth[n] == ("white", 1)
            and read_states(reading)[n] != ("white", 1)] == []
    reading = read_board(rendered.frame, layout, calibration, replace(config, **blind))
    assert reading.fields[phantom].confidence >= config.uncertain_below


@pytest.mark.parametrize("index,washed,unsure", [
    (373, {"A3": "blue", "B3": "blue", "A4": "red", "C4": "blue", "D4": "red", "C5": "red",
           "D5": "red"}, []),
    (485, {"D3": "blue", "F4": "yellow"}, ["E2", "F3"]),
])
def test_roofs_washed_out_by_glare_are_not_read_surely_empty(index, washed, unsure):
    """Board bench seed 1: a lamp's glare washes Cuatro's roofs (frames 373 and 485)
    towards the board's beige, where their labels matched the board and they read empty,
    most surely. The glare lifts the print beside them as much: the difference still
    points to the roof's colour, the printed symbol under the face left out: they read
    as it, unsure. The faintest two of 485 read empty, but unsure."""
    layout, calibration, rendered, _ = bench_frame(1, index)
    truth = field_states(rendered.truth)
    assert all(truth[n][0] == colour for n, colour in washed.items())
    reading = read_board(rendered.frame, layout, calibration)
    read = read_states(reading)
    assert {n: read[n][0] for n in washed} == washed
    config = VisionConfig()
    # read one high whatever their height (D4 is four high): the referee is asked
    assert [n for n in washed if reading.fields[n].confidence >= config.uncertain_below] == []
    assert [n for n in unsure if read[n] == (None, 0)
            and reading.fields[n].confidence < config.uncertain_below] == unsure
    assert [n for n, t in truth.items() if t == (None, 0) and read[n] != (None, 0)] == []
    blind = replace(config, roof_piece_share=np.inf, roof_unsure_share=np.inf)
    reading = read_board(rendered.frame, layout, calibration, blind)
    assert [n for n in [*washed, *unsure] if reading.fields[n].height] == []
    assert [n for n in unsure if reading.fields[n].confidence >= config.uncertain_below] == unsure


def test_magenta_and_cyan_stones_washed_out_by_glare_read_as_their_colour():
    """Board bench seed 6 frame 83: a lamp's glare (0.4-0.6 over them) washes Spexxx's
    magenta and cyan stones on the blue, purple and silver cells nearly white, past every
    colour table: they read empty, the cyan one on silver surely (1.00). The board around
    them lies 1.3x its print or more, and their faces still differ from it towards their
    colour: they read as it, unsure; no empty cell reads as a piece."""
    layout, calibration, rendered, _ = bench_frame(6, 83)
    washed = {"3x1+1x4": "magenta", "3x1+1x6": "magenta", "3x2+1x5": "magenta",
              "3x4+1x2": "magenta", "3x4+1x6": "magenta", "3x5+1x4": "magenta",
              "4x1+1x1": "cyan", "3x5+2x2": "cyan"}
    truth = field_states(rendered.truth)
    assert {n: truth[n] for n in washed} == {n: (colour, 1) for n, colour in washed.items()}
    reading = read_board(rendered.frame, layout, calibration)
    read = read_states(reading)
    assert {n: read[n] for n in washed} == {n: (colour, 1) for n, colour in washed.items()}
    config = VisionConfig()
    assert [n for n in washed if reading.fields[n].confidence >= config.uncertain_below] == []
    assert [n for n, t in truth.items() if t == (None, 0) and n in reading.fields
            and read[n] != (None, 0)] == []
    blind = replace(config, glare_stone_lift=np.inf)
    read = read_states(read_board(rendered.frame, layout, calibration, blind))
    assert [n for n in washed if read[n] == (None, 0)] == list(washed)


@pytest.mark.parametrize("seed,index,unsure,blind", [
    (1, 342, {"a1": "black"}, {"white_face_min_share": -np.inf}),
    (7, 466, {"g4": "black"}, {"white_face_min_share": -np.inf}),
    (5, 391, {"4x2+1x3": "magenta", "3x3+1x4": "cyan"}, {"disc_min_step": np.inf}),
    (5, 71, {"3x1+1x3": "cyan"}, {"disc_min_step": np.inf}),
])
def test_faces_that_do_not_look_like_the_piece_read_are_unsure(seed, index, unsure, blind):
    """Board bench tuning seeds: Mühle black stones greyed by glare or sheen (seed 1 frame
    342, seed 7 frame 466) read white surely, though their faces stand out from the board
    around them beside white's direction; Spexxx magenta and cyan stones blurred
    (seed 5 frame 391) or blurred by motion (frame 71) read empty surely, though their
    faces stand out as discs lighter than the cell beyond their rims. Read so, they are
    unsure, and no right reading loses its confidence. (Frame 391's third, a cyan at
    3x6+1x4, reads cyan since :func:`vision.fields.mixed_stones`.)"""
    layout, calibration, rendered, _ = bench_frame(seed, index)
    truth = field_states(rendered.truth)
    assert {n: truth[n][0] for n in unsure} == unsure
    config = VisionConfig()
    reading = read_board(rendered.frame, layout, calibration, config)
    sure = {n for n, f in reading.fields.items() if f.confidence >= config.uncertain_below}
    assert [n for n in unsure if n in sure] == []
    before = read_board(rendered.frame, layout, calibration, replace(config, **blind))
    assert read_states(before) == read_states(reading)
    was_sure = {n for n, f in before.fields.items() if f.confidence >= config.uncertain_below}
    assert set(unsure) <= was_sure
    assert [n for n in was_sure - sure if truth[n] == read_states(reading)[n]] == []


@pytest.mark.parametrize("seed,index,white", [
    (5, 155, ["4x4+1x4"]),
    (6, 259, ["4x3+1x3", "3x5+2x5"]),
    (7, 271, ["4x2+1x2"]),
])
def test_white_stones_on_silver_read_empty_found_as_lighter_discs(seed, index, white):
    """Board bench tuning seeds: white stones on Spexxx's silver cells read empty (seed 7
    frame 271 surely, 0.87), dimmed or greyed to silver's brightness past the face test.
    Their faces are discs lighter than the cell beyond their rims all round, and lighter
    than the square's corners: they read white, unsure, and no other field changes."""
    layout, calibration, rendered, _ = bench_frame(seed, index)
    truth = field_states(rendered.truth)
    assert all(truth[n] == ("white", 1) for n in white)
    config = VisionConfig()
    reading = read_board(rendered.frame, layout, calibration, config)
    read = read_states(reading)
    assert [n for n in white if read[n] != ("white", 1)] == []
    assert [n for n in white if reading.fields[n].confidence >= config.uncertain_below] == []
    before = read_states(read_board(rendered.frame, layout, calibration,
                                    replace(config, look_alike_disc_step=np.inf)))
    assert [n for n in white if before[n] != (None, 0)] == []
    assert {n for n in read if read[n] != before[n]} == set(white)


@pytest.mark.parametrize("seed,index,black", [
    (6, 291, ["1x6+1x2", "1x2+1x6", "2x2+2x3", "2x2+2x4"]),
    (7, 191, ["1x2+1x1", "1x4+1x1"]),
])
def test_grey_faces_read_cyan_are_black_stones(seed, index, black):
    """Board bench tuning seeds: Spexxx black stones in a bright frame (seed 6 frame 291,
    two of them read surely) or greyed by sheen (seed 7 frame 191) read cyan: the tables
    took their pixels for deep-shaded cyan, but the face is grey and dark as a whole.
    Unsure as a cyan reading without the colour held, they read black, unsure, with the
    darkness asked; no other field changes."""
    layout, calibration, rendered, _ = bench_frame(seed, index)
    truth = field_states(rendered.truth)
    assert all(truth[n] == ("black", 1) for n in black)
    config = VisionConfig()
    reading = read_board(rendered.frame, layout, calibration, config)
    read = read_states(reading)
    assert [n for n in black if read[n] != ("black", 1)] == []
    assert [n for n in black if reading.fields[n].confidence >= config.uncertain_below] == []
    cyan = read_board(rendered.frame, layout, calibration,
                      replace(config, colour_face_dark_lightness=-np.inf))
    assert [n for n in black if read_states(cyan)[n] != ("cyan", 1)] == []
    assert [n for n in black if cyan.fields[n].confidence >= config.uncertain_below] == []
    assert {n for n in read if read[n] != read_states(cyan)[n]} == set(black)
    if seed == 6:
        sure = read_board(rendered.frame, layout, calibration,
                          replace(config, colour_face_dark_lightness=-np.inf,
                                  colour_face_min_chroma=-np.inf))
        assert [n for n in black[:2] if sure.fields[n].confidence < config.uncertain_below] == []


@pytest.mark.parametrize("seed,index,stones", [
    (1, 255, {"3x1+1x2": "cyan"}),
    (6, 127, {"4x1+1x1": "black", "4x5+1x5": "black", "4x3+1x5": "magenta"}),
    (6, 203, {"4x6+1x3": "magenta"}),
    (6, 235, {"2x1+1x4": "cyan", "2x2+1x5": "cyan", "1x1+1x4": "black", "3x2+1x4": "black",
              "3x2+1x6": "black"}),
])
def test_stones_blurred_into_their_cells_read_as_their_colour(seed, index, stones):
    """Board bench tuning seeds: Spexxx cyan stones on blue or green cells and a magenta
    on red, blurred (seed 6 frames 203 and 235 by motion) or dim, read empty (seed 1
    frame 255 and seed 6 frame 203 surely, 0.84 and 0.86); black stones on silver lifted
    to grey by a lamp's sheen (seed 6 frame 127, surely, 0.61-0.93) or blurred
    into their cells (seed 6 frame 235). Their faces lie most of the way from the frame's
    own empty cells of their print to its own stones of their colour (cyan and magenta
    in a/b, black in Lab), and the cell beyond their rims does not: they read as that
    colour, unsure, and no other field changes."""
    layout, calibration, rendered, _ = bench_frame(seed, index)
    truth = field_states(rendered.truth)
    assert {n: truth[n] for n in stones} == {n: (colour, 1) for n, colour in stones.items()}
    config = VisionConfig()
    reading = read_board(rendered.frame, layout, calibration, config)
    read = read_states(reading)
    assert {n: read[n] for n in stones} == {n: (colour, 1) for n, colour in stones.items()}
    assert [n for n in stones if reading.fields[n].confidence >= config.uncertain_below] == []
    before = read_states(read_board(rendered.frame, layout, calibration,
                                    replace(config, frame_colour_mix_share=np.inf)))
    assert [n for n in stones if before[n] != (None, 0)] == []
    assert {n for n in read if read[n] != before[n]} == set(stones)


@pytest.mark.parametrize("seed,index,cells", [
    (6, 539, ["4x2+1x2"]),
    (6, 559, ["3x2+2x2"]),
])
def test_pale_cells_short_of_the_white_line_read_empty(seed, index, cells):
    """Board bench tuning seed 6, Spexxx: empty silver cells lit pale read white, unsure.
    Their faces lie under ``frame_colour_cell_share`` of the way, in Lab, from the frame's
    own silver cells to its own white stones, which the light lifts alike: they read
    empty, unsure, and no other field changes."""
    layout, calibration, rendered, _ = bench_frame(seed, index)
    truth = field_states(rendered.truth)
    assert [n for n in cells if truth[n] != (None, 0)] == []
    config = VisionConfig()
    reading = read_board(rendered.frame, layout, calibration, config)
    read = read_states(reading)
    assert [n for n in cells if read[n] != (None, 0)] == []
    assert [n for n in cells if reading.fields[n].confidence >= config.uncertain_below] == []
    before = read_states(read_board(rendered.frame, layout, calibration,
                                    replace(config, frame_colour_cell_share=-np.inf)))
    assert [n for n in cells if before[n] != ("white", 1)] == []
    assert {n for n in read if read[n] != before[n]} == set(cells)


@pytest.mark.parametrize("seed,index,dark", [
    (1, 346, {"d2": None, "d3": None, "b4": None, "e4": None, "f4": None, "e5": None}),
    (1, 542, {"c3": "black", "c5": "black"}),
    (5, 222, {"a1": "black", "a4": "black"}),
])
def test_faces_darker_than_the_board_around_are_no_white_stones(seed, index, dark):
    """Board bench tuning seeds, Mühle: printed points in a glare spot (seed 1 frame 346),
    whose faces keep the print's dark dot and lines while the glare lifts the board around
    them more, and black stones greyed by glare or a dim corner (seed 1 frame 542, seed 5
    frame 222) read white. Their faces lie darker than the board around them: the points
    read empty, the blacks, whose faces go far along black's step, black; unsure, and no
    right reading made wrong."""
    layout, calibration, rendered, _ = bench_frame(seed, index)
    truth = field_states(rendered.truth)
    assert {n: truth[n][0] for n in dark} == dark
    config = VisionConfig()
    reading = read_board(rendered.frame, layout, calibration, config)
    read = read_states(reading)
    assert {n: read[n][0] for n in dark} == dark
    assert [n for n in dark if reading.fields[n].confidence >= config.uncertain_below] == []
    before = read_states(read_board(rendered.frame, layout, calibration,
                                    replace(config, white_face_dark_share=-np.inf)))
    assert [n for n in dark if before[n] != ("white", 1)] == []
    assert [n for n in read if before[n] == truth[n] != read[n]] == []


@pytest.mark.parametrize("seed,index,white", [
    (1, 250, ["e3"]),
    (5, 406, ["b2"]),
    (6, 410, ["a1", "g1"]),
])
def test_white_stones_read_empty_stand_out_from_the_board_around_them(seed, index, white):
    """Board bench tuning seeds, Mühle: white stones in a dim (seed 1 frame 250, seed 6
    frame 410) or bright frame (seed 5 frame 406) matched the tan board's colour table
    better than white's and read empty, though their faces stand out from the board
    around them towards white as far as a white stone's. They read white, unsure; no
    right reading is made wrong."""
    layout, calibration, rendered, _ = bench_frame(seed, index)
    truth = field_states(rendered.truth)
    assert [truth[n] for n in white] == [("white", 1)] * len(white)
    config = VisionConfig()
    reading = read_board(rendered.frame, layout, calibration, config)
    read = read_states(reading)
    assert [read[n] for n in white] == [("white", 1)] * len(white)
    assert [n for n in white if reading.fields[n].confidence >= config.uncertain_below] == []
    before = read_states(read_board(rendered.frame, layout, calibration,
                                    replace(config, white_empty_share=np.inf)))
    assert [before[n] for n in white] == [(None, 0)] * len(white)
    assert [n for n in read if before[n] == truth[n] != read[n]] == []


def test_white_stones_ringed_by_neighbours_stay_white_though_darker_than_the_ring():
    """Board bench tuning seed 5, Spexxx frame 243, live: two white stones between crowded
    small cells, whose ring of board is mostly their neighbours' cyan stones, lie darker
    than that ring; it does not have its print's hue, so they are not taken for the
    board's printed point or a greyed black stone, and stay white. The board is placed by
    its three markers alone (``print_align_three_marker_stray_mm`` 0), as when this was
    measured: the print's placement of the covered corner moves the rings off them."""
    layout, calibration, rendered, before = bench_frame(5, 243)
    ringed = ["2x2+2x1", "2x3+2x1"]
    assert [field_states(rendered.truth)[n] for n in ringed] == [("white", 1)] * 2
    for ring_cosine, read in ((VisionConfig().white_face_ring_min_cosine, ("white", 1)),
                              (-np.inf, (None, 0))):
        config = replace(VisionConfig(), white_face_ring_min_cosine=ring_cosine,
                         print_align_three_marker_stray_mm=0.0)
        tracker = BoardTracker(layout, calibration, config)
        read_board(before.frame, layout, calibration, config, tracker)
        reading = read_states(read_board(rendered.frame, layout, calibration, config, tracker))
        assert [reading[n] for n in ringed] == [read] * 2


def test_white_stones_in_a_hands_shadow_stay_white():
    """Board bench seed 1 frame 539: a hand's shadow greys white stones beside unshaded
    ones (L 145 and 164, whites at 240-255 within 70 mm) as glare greys a black: the
    comparison with the neighbours is left out of a frame with a hand."""
    layout, calibration, rendered, _ = bench_frame(1, 539)
    reading = read_board(rendered.frame, layout, calibration)
    assert reading.occluded
    shaded = ["2x3+2x5", "1x6+2x6"]
    assert all(rendered.truth.fields[n].top == "white" for n in shaded)
    assert [reading.fields[n].top_colour for n in shaded] == ["white", "white"]


@pytest.mark.parametrize("index,greyed,shaded", [
    (143, ["2x6+2x4"], ["1x5+1x2", "1x3+1x2"]),
    # 107 is a two-marker board on its print: since its markers' black and white are taken
    # where their fit puts them, 2x4+2x1 reads black surely without the rule (right)
    (107, ["2x2+1x6"], []),
])
def test_black_stones_greyed_beside_a_hand_read_black_where_the_board_is_lit(
        index, greyed, shaded):
    """Board bench seed 1, Spexxx frames with a hand: black stones greyed 65-107 levels
    below the whites within 70 mm read white, surely (0.64-0.72); in 143 two whites in the
    hand's shadow lie 78 and 91 below theirs. The board around the shaded whites keeps
    0.39-0.40 of its printed brightness, around the blacks 0.62-0.65: the blacks read black,
    unsure, the whites stay white."""
    layout, calibration, rendered, _ = bench_frame(1, index)
    truth = field_states(rendered.truth)
    assert all(truth[n] == ("black", 1) for n in greyed)
    assert all(truth[n] == ("white", 1) for n in shaded)
    config = VisionConfig()
    reading = read_board(rendered.frame, layout, calibration, config)
    assert reading.occluded
    read = read_states(reading)
    assert [n for n in greyed if read[n] != ("black", 1)] == []
    assert all(reading.fields[n].confidence < config.uncertain_below for n in greyed)
    assert [n for n in shaded if read[n] != ("white", 1)] == []
    unlit = replace(config, lightness_shade_ratio=float("inf"))
    read = read_states(read_board(rendered.frame, layout, calibration, unlit))
    assert [n for n in greyed if read[n] == ("white", 1)] == greyed


def test_black_stones_in_glare_read_black_where_the_board_around_is_lifted():
    """Board bench seed 1, Spexxx frame 431 (no hand): a lamp's glare lifts three black
    stones to 28-44 levels below the whites beside them, which are cut at the frame's
    ceiling (L 233), short of ``lightness_local_gap``, and they read white, surely
    (0.81-0.90); whites elsewhere lie up to 37 below theirs. The board around the blacks is
    lifted to 1.19-1.34 of its print, around those whites at most 0.88: the blacks read
    black, unsure. Cells the glare washes white, around them as lifted, stay empty."""
    layout, calibration, rendered, _ = bench_frame(1, 431)
    greyed = ["2x2+2x5", "2x4+2x1", "2x4+2x3"]
    washed = ["3x1+2x2", "3x1+2x3"]
    truth = field_states(rendered.truth)
    assert all(truth[n] == ("black", 1) for n in greyed)
    assert all(truth[n] == (None, 0) for n in washed)
    config = VisionConfig()
    reading = read_board(rendered.frame, layout, calibration, config)
    assert reading.ok and not reading.occluded
    read = read_states(reading)
    assert [n for n in greyed if read[n] != ("black", 1)] == []
    assert all(reading.fields[n].confidence < config.uncertain_below for n in greyed)
    assert [n for n in washed if read[n] != (None, 0)] == []
    assert [n for n, t in truth.items() if t[0] == "white" and read[n][0] != "white"] == []
    unlit = replace(config, lightness_glare_ratio=float("inf"), white_face_dark_share=-np.inf)
    read = read_states(read_board(rendered.frame, layout, calibration, unlit))
    assert [n for n in greyed if read[n] == ("white", 1)] == greyed


def test_reading_survives_exposure_and_white_balance():
    stacks = {"a1": ["white"], "d2": ["black"], "g7": ["white"], "c4": ["black"]}
    dim_warm = Lighting(exposure=0.6, white_balance=(0.8, 1.0, 1.2), vignetting=0.3)
    layout, rendered = frame("muehle", stacks, lighting=dim_warm)
    reading = read_board(rendered.frame, layout, ColourCalibration.default(layout))
    assert read_states(reading) == field_states(rendered.truth)


def test_a_black_stone_off_centre_on_muehles_dark_lines_is_still_a_stone():
    """Mühle seed 102 on the simulated table: a black stone set 3 mm off d2 matched the
    printed lines it covered (a dark line looks like a black stone), which counted as
    board; with the crescent of board it left uncovered the point read empty, and the
    board read as occluded there for 15 s. Lines in a piece's own colour tell nothing."""
    layout, rendered = frame("muehle", {})
    calibration = ColourCalibration.default(layout, ["white", "black"])
    tracker = BoardTracker(layout, calibration)
    reading = read_board(rendered.frame, layout, calibration, tracker=tracker)
    geometry, _ = tracker.geometry(reading.homography)
    black = tracker.classes.players.index("black")
    labels = np.full(geometry.size[::-1], BOARD, np.uint8)
    x, y = np.rint(geometry.to_px(np.add(layout.fields["d2"].centre_mm, (0, 3)))).astype(int)
    radius = int(layout.piece.diameter_mm / 2 * geometry.px_per_mm)
    cv2.circle(labels, (x, y), radius, black, -1)
    labels[geometry.expected == tracker.classes.board_index("lines")] = BOARD
    states = {s.name: s for s in read_fields(labels, geometry, tracker.classes, VisionConfig())}
    assert (states["d2"].top_colour, states["d2"].height) == ("black", 1)
    assert all(s.height == 0 for name, s in states.items() if name != "d2")


def test_a_white_stone_at_muehles_far_rim_is_read_though_it_matches_the_board():
    """Mühle seed 110 on the simulated table: a white stone on d7, far from the lamp,
    matched the board by colour and read empty, and the referee saw several moves at
    once. Each point carries a printed dot; with the dot expected there, a stone that
    hides it shows where the board would be dark."""
    layout = load_layout("muehle")
    whites = ["a1", "b2", "d3", "e3", "c4", "f4", "e5", "f6", "d7"]
    blacks = ["g1", "f2", "c3", "e4", "g4", "c5", "d6", "a7"]
    stacks = {**{f: ["white"] for f in whites}, **{f: ["black"] for f in blacks}}
    pose = table_pose(layout)
    scene = Scene(layout, stacks=stacks, lighting=TABLE_LIGHT, noise_sigma=1.0,
                  blur_sigma=0.4, jpeg_quality=None, seed=110)
    rendered = render(scene, pose, np.random.default_rng(0))
    reading = read_board(rendered.frame, layout,
                         ColourCalibration.default(layout, ["white", "black"]),
                         VisionConfig(k1=pose.k1))
    assert read_states(reading) == field_states(rendered.truth)


def test_unplayable_spexxx_cells_are_printed_as_the_layout_says():
    """Spexxx's unplayable diagonal cells: the layout says what they are printed in, and
    the simulator draws and the reader expects that one colour (the simulator drew them
    at 0.6x their zone while the reader expected the zone: dark orange read as magenta)."""
    from vision.sim.board import PX_PER_MM, board_texture, hex_to_bgr

    layout = load_layout("spexxx")
    unplayable = [f for f in layout.fields.values() if not f.attrs.get("playable", True)]
    assert len(unplayable) == 12
    texture = board_texture(layout)
    for f in unplayable:
        assert f.printed in layout.field_colours and f.printed != f.attrs["zone"]
        x, y = int(f.x_mm * PX_PER_MM), int((f.y_mm - f.size_mm / 4) * PX_PER_MM)
        seen = texture[y - 2:y + 3, x - 2:x + 3].reshape(-1, 3).mean(axis=0)
        assert np.abs(seen - hex_to_bgr(layout.field_colours[f.printed])).max() < 12, f.name
    layout, rendered = frame("spexxx", {})
    tracker = BoardTracker(layout, ColourCalibration.default(layout))
    reading = read_board(rendered.frame, layout, tracker=tracker)
    geometry, _ = tracker.geometry(reading.homography)
    for f in unplayable:
        x, y = np.rint(geometry.to_px(f.centre_mm)).astype(int)
        assert geometry.expected[y, x] == tracker.classes.board_index(f.printed), f.name


def test_a_printed_colour_in_the_layout_is_what_the_simulator_draws(tmp_path):
    import json

    from companion.layout import LAYOUT_DIR, LayoutError, parse_layout
    from vision.sim.board import PX_PER_MM, board_texture, hex_to_bgr

    data = json.loads((LAYOUT_DIR / "spexxx.json").read_text(encoding="utf-8"))
    data["cells"][0][1]["printed"] = "purple"
    layout = parse_layout(data, str(tmp_path / "purple.json"))
    f = layout.fields["1x2+1x1"]
    assert f.printed == "purple"
    texture = board_texture(layout)
    x, y = int(f.x_mm * PX_PER_MM), int(f.y_mm * PX_PER_MM)
    seen = texture[y - 2:y + 3, x - 2:x + 3].reshape(-1, 3).mean(axis=0)
    assert np.abs(seen - hex_to_bgr(layout.field_colours["purple"])).max() < 12
    data["cells"][0][1]["printed"] = "mauve"
    with pytest.raises(LayoutError, match="mauve"):
        parse_layout(data)


def test_dark_unplayable_cells_in_a_dim_noisy_frame_are_empty():
    """A dim, warm, noisy frame (board bench seed 1 frame 79 of ``--games spexxx``): with
    the zone colour expected there, dark orange cells read as magenta stones (on the
    renderer's frames before its noise was mended, which crushed green and red)."""
    light = Lighting(exposure=0.64, white_balance=(0.88, 1.01, 1.12), light_azimuth_deg=310,
                     light_elevation_deg=60, shadow_strength=0.57, vignetting=0.03,
                     gradient=0.3, gradient_angle_deg=13)
    layout, rendered = frame("spexxx", {}, lighting=light, noise_sigma=7.0, jpeg_quality=67)
    reading = read_board(rendered.frame, layout, ColourCalibration.default(layout))
    assert {n: f.top_colour for n, f in reading.fields.items() if f.height} == {}


def test_a_dark_cell_beside_light_board_is_not_a_black_stone():
    """The brightness test for look-alike colours (a white stone on silver) also pairs
    black stones with cells printed darker than their zone. The corners of such a cell
    take in the light board beside it, so their light end says nothing of the cell:
    for a piece darker than the print, the face is taken at its light end and the
    corners at their dark end (doubt goes to the empty field)."""
    layout, rendered = frame("spexxx", {})
    calibration = ColourCalibration.default(layout)
    tracker = BoardTracker(layout, calibration)
    reading = read_board(rendered.frame, layout, calibration, tracker=tracker)
    geometry, _ = tracker.geometry(reading.homography)
    config = VisionConfig()
    name = "1x1+1x1"
    f = geometry.names.index(name)
    board = tracker.classes.board_index("orange_unplayable")
    black = tracker.classes.players.index("black")
    assert black in [p for p, _ in tracker.classes.look_alikes[board]]
    found = {g: (top, rim) for g, b, top, rim, _ in geometry.look_alike}
    assert f in found
    top, rim = found[f]
    normalised = np.zeros((geometry.size[1], geometry.size[0], 3), np.uint8)
    flat = normalised.reshape(-1, 3)
    flat[top] = (24, 84, 145)  # the empty cell, as printed
    flat[rim] = (24, 84, 145)
    flat[rim[::4]] = (200, 220, 230)  # a quarter of its corners blurred into the margin
    states = [FieldState(n, None, 0, 1.0) for n in geometry.names]
    out = look_alike_pieces(normalised, states, geometry, tracker.classes, config)
    assert (out[f].top_colour, out[f].height) == (None, 0)
    flat[top] = (5, 15, 25)  # a black stone there is still seen
    out = look_alike_pieces(normalised, states, geometry, tracker.classes, config)
    assert (out[f].top_colour, out[f].height) == ("black", 1)


@pytest.mark.parametrize("exposure", [1.45, 1.5])
def test_empty_orange_fields_in_an_overexposed_frame_are_not_yellow(exposure):
    """Board bench seed 1 (Just 4 Fun frames 24 and 144): an overexposed camera clips the
    red of the orange fields at the same level as the markers' white; scaled down by the
    board's cast like the unclipped channels, that red fell below the field's green and
    the empty orange fields read as yellow stones. A clipped channel is as bright as white."""
    stacks = {"C3": ["yellow"], "A6": ["red"], "F1": ["green", "yellow"], "D4": ["blue"]}
    light = Lighting(exposure=exposure, vignetting=0.4, gradient=0.25)
    layout, rendered = frame("just4fun", stacks, lighting=light)
    reading = read_board(rendered.frame, layout, ColourCalibration.default(layout))
    orange = [n for n, f in layout.fields.items()
              if f.attrs.get("colour") == "orange" and n not in stacks]
    read = read_states(reading)
    assert {n: read[n] for n in orange} == {n: (None, 0) for n in orange}
    assert {n: top for n, (top, _) in read.items()} == \
        {n: t.top for n, t in rendered.truth.fields.items()}


def test_a_board_brighter_than_the_markers_white_keeps_its_colours():
    """Small markers blurred at the frame's dim corners show too dark a white (board
    bench seed 1, Just 4 Fun frames 116 and 264): normalised to it, half the board
    passed 255, and cut to 8 bits before the board's cast was measured, orange and
    green fields, divided by too small a cast, read as yellow stones."""
    stacks = {"C3": ["yellow"], "A6": ["red"], "F1": ["green", "yellow"], "D4": ["blue"]}
    layout = load_layout("just4fun")
    w, h = layout.board_size_mm
    pose = CameraPose(height_mm=700, tilt_deg=10, yaw_deg=10, fov_deg=80, k1=-0.01,
                      target_mm=(w / 2, h / 2))
    layout, rendered = frame("just4fun", stacks, pose=pose, blur_sigma=1.5, noise_sigma=3.0,
                             lighting=Lighting(vignetting=0.7, exposure=0.6))
    reading = read_board(rendered.frame, layout, ColourCalibration.default(layout))
    assert {n: top for n, (top, _) in read_states(reading).items()} == \
        {n: t.top for n, t in rendered.truth.fields.items()}


def test_a_clipped_red_is_matched_as_at_least_that_bright():
    """Just 4 Fun seed 1 frame 24 of the board bench: an empty orange field whose red the
    camera clipped at the markers' white, divided by the board's cast (78/193/221 BGR where
    orange is printed 80/160/240), is nearer yellow than orange. Matched as at least that
    bright, it is the board."""
    layout = load_layout("just4fun")
    classes = ColourClasses(layout, ColourCalibration.default(layout), VisionConfig())
    orange = np.full((1, 1), classes.board_index("orange"), np.int16)
    offsets = classes.offsets(orange)
    seen = np.array([[[78, 193, 221]]], np.uint8)  # normalised, cast removed
    raw = np.array([[[109, 218, 238]]], np.uint8)  # red at the markers' white
    levels = Levels(np.array([31.0, 15.0, 14.0]), np.array([254.0, 237.0, 237.0]))
    yellow = classes.players.index("yellow")
    assert classes.label(to_lab(seen), offsets)[0, 0] == yellow
    variants = clipped_variants(raw, seen, levels, VisionConfig().clip_tolerance)
    assert classes.label(to_lab(seen), offsets, variants)[0, 0] == BOARD
    unclipped = np.array([[[109, 200, 220]]], np.uint8)  # below the white: nothing to vary
    assert len(clipped_variants(unclipped, seen, levels, 3.0)[0]) == 0


@given(st.lists(st.lists(st.integers(0, 255), min_size=1, max_size=40), min_size=1,
                max_size=6),
       st.floats(0, 100))
def test_segment_percentiles_are_numpys(runs, percentile):
    """The look-alike test's percentiles, taken for all fields in one sort, must be the
    very values np.percentile gives per field: readings may not move with the speed-up."""
    values = np.concatenate([np.array(run, float) / 3 for run in runs])
    sizes = np.array([len(run) for run in runs])
    wanted = [percentile, 100.0 - percentile]
    got = _segment_percentiles(values, sizes, wanted)
    starts = np.cumsum(sizes) - sizes
    for k, (start, size) in enumerate(zip(starts, sizes, strict=True)):
        assert np.array_equal(got[k], np.percentile(values[start:start + size], wanted))


@given(st.lists(st.lists(st.integers(0, 255), min_size=1, max_size=40), min_size=1,
                max_size=6))
def test_segment_medians_are_numpys(runs):
    """Top faces' medians from one histogram per face are np.median's."""
    values = np.concatenate([np.array(run, np.uint8) for run in runs])
    sizes = np.array([len(run) for run in runs])
    begin = np.cumsum(sizes) - sizes
    order = np.arange(len(values))[::-1]  # read through an index, as faces are
    got = _segment_medians(values[::-1], order, begin, begin + sizes)
    assert got.tolist() == [np.median(run) for run in runs]


def test_only_the_pixels_read_are_labelled():
    """Offsets built for some pixels label those as a full label would and the rest
    FOREIGN (the reader reads no others)."""
    layout = load_layout("just4fun")
    classes = ColourClasses(layout, ColourCalibration.default(layout), VisionConfig())
    expected = np.full((2, 3), classes.board_index("orange"), np.int16)
    expected[1] = UNKNOWN
    seen = np.array([[[80, 160, 240], [20, 200, 230], [30, 30, 200]],
                     [[80, 160, 240], [20, 200, 230], [30, 30, 200]]], np.uint8)
    lab = to_lab(seen)
    full = classes.label(lab, classes.offsets(expected))
    assert full[0, 0] == BOARD and full[1, 0] != BOARD
    within = np.array([0, 2, 4])
    some = classes.label(lab, classes.offsets(expected, within))
    assert some.ravel()[within].tolist() == full.ravel()[within].tolist()
    assert some.ravel()[[1, 3, 5]].tolist() == [FOREIGN] * 3


def test_a_top_touching_a_neighbour_s_piece_ends_where_the_colour_changes():
    """A top face of one colour at least ``top_run`` samples long, then another piece
    colour for at least ``gap`` samples before the silhouette ends: the neighbour's."""
    row = [-1, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, -1, -1]
    colours = np.array([row, row, row, [-1, 0, 0, 1, 1, 2, 2, 2, 2, 2, 2, -1, -1]])
    ends = np.array([11, 9, 11, 11])  # the second silhouette ends a sample into the stone
    touching = _neighbour_edges(colours, ends, centre=2, top_run=4, gap=2)
    assert touching.tolist() == [8, -1, 8, -1]  # the last top is too short to be one
    assert _neighbour_edges(colours, ends, centre=8, top_run=4, gap=2).tolist() == [-1] * 4


def test_a_short_run_of_no_majority_colour_between_a_top_and_a_neighbour_is_bridged():
    """Samples where no colour has a majority (-1) between two colours, at most
    ``longest`` of them, take the colour before; longer runs, and runs at either end,
    stay, so the neighbour rule then sees the top touch the neighbour's piece."""
    colours = np.array([[-1, 0, 0, 0, 0, -1, 1, 1, 1, -1],
                        [-1, 0, 0, 0, 0, -1, -1, -1, 1, 1]])
    bridged = _bridge_unsure(colours, 2)
    assert bridged.tolist() == [[-1, 0, 0, 0, 0, 0, 1, 1, 1, -1],
                                [-1, 0, 0, 0, 0, -1, -1, -1, 1, 1]]
    assert _bridge_unsure(colours, 0).tolist() == colours.tolist()
    ends = np.array([10, 10])
    assert _neighbour_edges(colours, ends, centre=1, top_run=4, gap=2).tolist() == [-1, -1]
    assert _neighbour_edges(bridged, ends, centre=1, top_run=4, gap=2).tolist() == [6, -1]


def test_a_top_run_to_the_end_of_its_line_ends_at_its_strongest_colour_step():
    """Past a top face's run of the last colour, the first sample after the strongest
    step of the profile colour, if it is strong enough; none where the run is too short
    to hold a top face before the line ends, or the step too faint."""
    config = replace(VisionConfig(), edge_plateau_mm=0.5, profile_step_mm=0.25,
                     top_step_contrast=50.0)
    colours = np.zeros((40, 3))
    colours[:, 1] = 180.0
    colours[28:] = (70.0, 130.0, 190.0)  # the table beyond: a step of 208
    colour = np.full(40, 2)
    colour[:6] = 1  # a lower piece's side of another colour
    assert _top_step(colours, colour, 10, config) == 28
    assert _top_step(colours, colour, 30, config) == -1  # no room for a top face
    assert _top_step(colours, colour, 10, replace(config, top_step_contrast=250.0)) == -1


def test_a_silhouette_broken_by_a_short_gap_goes_on_to_the_end_of_the_run_past_it():
    """Past a break of at most ``longest`` outside samples, a run of tower colour at
    least ``shortest`` long ends where the next run of outside samples starts; none where
    the break is longer, the run shorter, or the run goes on to the end of the line."""
    outside = np.zeros(40, bool)
    outside[10:13] = True  # the break: three samples
    outside[30:] = True  # the board past the top
    gap = 2
    total = np.cumsum(np.pad(outside, (1, 0)))
    runs = total[gap:] - total[:-gap] >= gap
    assert _past_break(outside, runs, 10, 3, 10) == 30
    assert _past_break(outside, runs, 10, 2, 10) == -1  # the break is longer
    assert _past_break(outside, runs, 10, 3, 18) == -1  # too short for a top face
    assert _past_break(outside, runs, 10, 0, 0) == -1  # off
    outside[30:] = False  # the run goes on to the line's end
    total = np.cumsum(np.pad(outside, (1, 0)))
    runs = total[gap:] - total[:-gap] >= gap
    assert _past_break(outside, runs, 10, 3, 10) == -1


@pytest.mark.parametrize("seed,index,towers,off", [
    # tops against neighbours' pieces behind, across a blurred border
    (1, 464, {"D5": 4, "F5": 4, "A6": 3}, {"neighbour_gap_mm": 0.0}),
    (5, 325, {"C0": 3}, {"neighbour_gap_mm": 0.0}),  # Cuatro, a blue top against a red roof
    # a yellow top, the table beyond labelled yellow
    (1, 200, {"C1": 3}, {"top_step_contrast": math.inf}),
    (1, 460, {"A1": 4, "A5": 4}, {"top_step_contrast": math.inf}),
])
def test_a_silhouette_run_on_past_its_top_is_cut_and_read_unsure(seed, index, towers, off):
    """Board bench tuning seeds 1 and 5, towers far from the nadir (one more piece moves
    the top 4+ px) whose silhouette ran on to the end of its line, reading them five: a
    top meeting a neighbour's piece of another colour across a sample or two where the
    profile lines disagree (the neighbour rule missed it; ``neighbour_gap_mm`` bridges
    it), or the table or a neighbour's piece beyond labelled the top's colour (ended at
    the profile colour's strongest step past a top face's run, ``top_step_contrast``).
    Cut there, they read right, unsure: where such a silhouette ends is a guess
    (docs/vision.md, fifteenth session)."""
    layout, calibration, rendered, _ = bench_frame(seed, index)
    assert {n: field_states(rendered.truth)[n][1] for n in towers} == towers
    config = VisionConfig()
    reading = read_board(rendered.frame, layout, calibration, config)
    read = read_states(reading)
    assert {n: read[n][1] for n in towers} == towers
    assert [n for n in towers if reading.fields[n].confidence >= config.uncertain_below] == []
    old = read_states(read_board(rendered.frame, layout, calibration, replace(config, **off)))
    assert {n: old[n][1] for n in towers} == dict.fromkeys(towers, 5)


@pytest.mark.parametrize("seed,index,field,top", [
    (1, 196, "B3", "blue"),  # a seam 2 mm past the lowest piece read board
    (5, 452, "B3", "yellow"),  # a green piece under four yellow ones, read blue one high, sure
])
def test_a_five_high_tower_broken_after_its_lowest_piece_is_read_whole(seed, index, field, top):
    """Board bench tuning seeds 1 and 5, five-high towers far from the nadir (one more
    piece moves the top 4+ px) whose silhouette broke after the lowest piece at a seam
    read board: measured on past the break (``broken_gap_mm``) they read five, as
    without it they read one (docs/vision.md, seventeenth session)."""
    layout, calibration, rendered, _ = bench_frame(seed, index)
    assert field_states(rendered.truth)[field] == (top, 5)
    config = VisionConfig()
    assert read_states(read_board(rendered.frame, layout, calibration, config))[field] \
        == (top, 5)
    old = read_board(rendered.frame, layout, calibration, replace(config, broken_gap_mm=0.0))
    assert read_states(old)[field][1] == 1


@given(st.lists(st.tuples(st.integers(0, 510), st.integers(0, 510)), min_size=1, max_size=40))
def test_column_medians_are_numpy_s(rows):
    values = np.array(rows) / 2  # top-face medians are whole or half levels
    assert np.array_equal(_column_medians(values), np.median(values, axis=0))


def _tower_frame(index: int, towers: dict[str, int]):
    """Frame ``index`` of board bench seed 1 with ``--games just4fun,cuatro`` (the height
    tuning frames), its layout and calibration; checked to hold ``towers`` (name: height)."""
    layout = load_layout(["just4fun", "cuatro"][index % 2])
    rng = np.random.default_rng([1, index])
    scene = random_scene(layout, rng)
    rendered = render(scene, random_pose(rng, layout), rng)
    players = sorted({p for colours in scene.stacks.values() for p in colours})
    calibration = ColourCalibration.default(layout, players)
    assert {n: rendered.truth.fields[n].height for n in towers} == towers
    return layout, calibration, rendered


@pytest.mark.parametrize("index,towers", [
    (3, {"C1": 4}),  # Cuatro
    (20, {"A1": 2}),  # Just 4 Fun
])
def test_whole_outline_fit_settles_lengths_between_two_heights(index, towers):
    """Board bench seed 1 (`--games just4fun,cuatro`, the outline fit's tuning frames):
    towers whose silhouette length alone read one layer low; the whole outline's fit
    added to the length's cost reads them right, but never surer than the length alone
    (left for the referee to confirm). With evidence lopsided towards the board (a
    tower's inside counted +0.4 against the board's -1) the fit read them low as well
    (docs/vision.md "The whole-outline fit, made cheap")."""
    layout, calibration, rendered = _tower_frame(index, towers)
    # the fit alone: the blurred top's correction reads Cuatro's C1 one low again
    fitted = VisionConfig(edge_width_bias_ratio=0.0)
    reading = read_board(rendered.frame, layout, calibration, fitted,
                         BoardTracker(layout, calibration, fitted))
    assert {n: reading.fields[n].height for n in towers} == towers
    assert all(reading.fields[n].confidence == 0.0 for n in towers)
    for config in (replace(fitted, outline_weight=0.0),
                   replace(fitted, outline_contrast_ratio=0.8)):
        other = read_board(rendered.frame, layout, calibration, config,
                           BoardTracker(layout, calibration, config))
        assert all(other.fields[n].height == h - 1 for n, h in towers.items())


def test_masked_medians_are_numpy_s_over_the_masked_samples():
    rng = np.random.default_rng(5)
    values = rng.integers(0, 50, (3, 4, 9)).astype(np.float32)
    mask = rng.random((4, 9)) < 0.6
    mask[3] = False
    got = _masked_medians(values, mask, least=2, default=-1.0)
    for row in range(3):
        assert np.allclose(got[:, row], np.median(values[:, row, mask[row]], axis=1))
    assert np.all(got[:, 3] == -1.0)


def test_far_edge_width_grows_with_the_blur():
    """The top's far edge, a step from the tower's colour to the board's blurred by a
    Gaussian: its quarter-to-three-quarters rise is 1.35 sigma wide, wherever the step
    lies between samples; NaN where the colours are too alike or the edge is off the
    line."""
    config = VisionConfig()
    t = np.arange(-10.0, 10.0, config.profile_step_mm)
    tower, board = np.array([40.0, 60.0, 200.0]), np.array([180.0, 170.0, 150.0])
    rows, edges = [], []
    for sigma in (0.4, 0.8, 1.2):
        for edge in (0.0, 0.1, 0.37):
            x = (t - edge) / (sigma * np.sqrt(2))
            share = 0.5 * (1 - np.array([math.erf(v) for v in x]))  # 1 inside .. 0 out
            rows.append(board + share[:, None] * (tower - board))
            edges.append(edge)
    faint = board + 0.05 * (tower - board) * (t < 0)[:, None]
    colours = np.stack(rows + [faint, rows[0]]).astype(np.float32)
    widths = far_edge_widths(colours, t, np.array(edges + [0.0, 9.5]), config)
    expected = np.repeat([0.4, 0.8, 1.2], 3) * 1.349
    assert np.allclose(widths[:-2], expected, atol=0.1)
    assert np.isnan(widths[-2]) and np.isnan(widths[-1])


@pytest.mark.parametrize("index,towers", [
    (6, {"A4": 2, "B4": 1}),  # Just 4 Fun
    (7, {"B0": 1}),  # Cuatro
    (29, {"A5": 1}),
])
def test_a_blurred_top_edge_measures_a_tower_longer(index, towers):
    """Board bench seed 1 (`--games just4fun,cuatro`, the tuning frames): towers whose
    far edge is blurred measure long and read one high with a constant silhouette bias;
    less the blurred top's share of the length they read right, and no surer than
    before (docs/vision.md, seventh session). The contrast is drawn on the board placed
    from frame 6's three markers, as it was tuned: put on its print, the predicted
    lengths move 0.1-0.4 mm, and its towers lie that close to a boundary under the
    constant bias (A4 then reads 3, B4 right; on the true board A4 right, B4 2)."""
    layout, calibration, rendered = _tower_frame(index, towers)
    placed = VisionConfig(print_align_three_max_shift_mm=0.0)
    for config in (VisionConfig(), placed):
        reading = read_board(rendered.frame, layout, calibration, config)
        assert {n: reading.fields[n].height for n in towers} == towers
        assert all(reading.fields[n].confidence < config.uncertain_below for n in towers)
    constant = replace(placed, edge_width_bias_ratio=0.0)
    other = read_board(rendered.frame, layout, calibration, constant,
                       BoardTracker(layout, calibration, constant))
    assert {n: other.fields[n].height for n in towers} == {n: h + 1 for n, h in towers.items()}


def test_a_lower_piece_beyond_a_seam_is_the_base():
    """Samples every 0.25 mm; the base nearest a centred one (at -12.7 mm) starts after
    sample 20: board, then 1.5 mm of a lower piece's side, a 1.5 mm seam read as board,
    and the rest of the tower. The base moves back to where the side starts, unless the
    side is shorter than ``base_side_run_mm``, the seam wider than ``base_seam_gap_mm``
    or the side's start farther than ``base_off_centre_mm`` from a centred base."""
    config = VisionConfig()
    t = -17.0 + 0.25 * np.arange(40)

    def base(side: int, seam: int, centred: float = -12.7) -> int:
        outside = np.ones(40, bool)
        outside[21:] = False
        outside[21 - seam - side:21 - seam] = False
        starts = np.flatnonzero(outside[:-1] & ~outside[1:])
        return _base_past_seam(outside, starts, 20, t, centred, config)

    assert base(side=6, seam=6) == 8  # the side's start, 2.3 mm beyond the centred base
    assert base(side=3, seam=6) == 20  # a 0.75 mm run: no piece's side
    assert base(side=6, seam=12) == 20  # a 3 mm gap: no seam
    assert base(side=6, seam=6, centred=-8.0) == 20  # 7 mm beyond a centred base


@pytest.mark.parametrize("index,towers", [
    (6, {"C5": 2}),  # Just 4 Fun
    (140, {"C4": 2}),
    (71, {"D5": 2}),  # Cuatro
])
def test_a_tower_off_centre_reads_its_lowest_piece_beyond_a_seam(index, towers):
    """Board bench seed 1 (`--games just4fun,cuatro`, tuning frames): towers standing 1.5-2
    mm off centre towards the nadir, whose lowest piece's side shows beyond a dark seam
    read as board. The base nearest a centred one cut them a piece short (C5 of frame 6
    surely); the lower piece's side taken as the base reads them right (docs/vision.md,
    eleventh session)."""
    layout, calibration, rendered = _tower_frame(index, towers)
    config = VisionConfig()
    reading = read_board(rendered.frame, layout, calibration, config)
    assert {n: reading.fields[n].height for n in towers} == towers
    nearest = replace(config, base_side_run_mm=float("inf"))
    other = read_board(rendered.frame, layout, calibration, nearest)
    assert {n: other.fields[n].height for n in towers} == {n: h - 1 for n, h in towers.items()}


def test_a_dark_foot_before_a_lit_piece_is_the_base():
    """Samples every 0.25 mm, brightness only: board (200), then from sample 15 a dark
    dip (80: the lowest piece's shaded side and the contact shadow, labelled board up to
    sample 20) before a lit piece (180). The base lies where the brightness has fallen
    half way to the dip, ``foot_dip_shift_mm`` further in; not where the piece is no
    brighter than ``foot_dip_rise`` times the dip, nor where the cue is off."""
    config = VisionConfig()
    t = -17.0 + 0.25 * np.arange(40)

    def foot(piece: float, config: VisionConfig = config) -> float:
        bright = np.full(40, 200.0)
        bright[14] = 150.0
        bright[15:22] = 80.0
        bright[22] = 130.0
        bright[23:] = piece
        return _foot_before_dip(np.repeat(bright[:, None], 3, axis=1), t, 20, config)

    # half way (140) between 150 at sample 14 and 80 at sample 15
    assert foot(180.0) == pytest.approx(t[14] + 0.25 / 7 + config.foot_dip_shift_mm)
    assert foot(120.0) == math.inf  # no lit piece after the dip
    assert foot(180.0, replace(config, foot_dip_rise=math.inf)) == math.inf


@pytest.mark.parametrize("index,towers", [
    (12, {"A3": 2, "E3": 2}),  # Just 4 Fun
    (236, {"B5": 2, "C6": 2}),
    (157, {"F4": 2}),  # Cuatro
])
def test_a_tower_reads_its_dark_foot_before_a_lit_piece(index, towers):
    """Board bench seed 1 (`--games just4fun,cuatro`, tuning frames): towers whose lowest
    piece's shaded side and contact shadow read as board before a lit piece; the edge half
    way to the tower's colour lay on the dark dip's far slope and read them a piece short.
    The base on the dip's near slope reads them right (docs/vision.md, twelfth session)."""
    layout, calibration, rendered = _tower_frame(index, towers)
    config = VisionConfig()
    reading = read_board(rendered.frame, layout, calibration, config)
    assert {n: reading.fields[n].height for n in towers} == towers
    off = replace(config, foot_dip_rise=math.inf)
    other = read_board(rendered.frame, layout, calibration, off)
    assert {n: other.fields[n].height for n in towers} == {n: h - 1 for n, h in towers.items()}


@pytest.mark.parametrize("seed,index,name,top", [
    (6, 120, "B1", "green"),  # blue, blue, blue under green, green
    (6, 400, "C6", "blue"),  # red, red, red under blue, blue
    (5, 572, "C2", "red"),  # blue x4 under red
])
def test_a_tall_tower_is_not_cut_at_its_own_upper_pieces(seed, index, name, top):
    """Board bench tuning seeds 5 and 6, Just 4 Fun towers five high far from the nadir:
    three or four pieces of one colour show a side as long as a top face, and the neighbour
    rule took the upper pieces of another colour for a neighbour's piece, reading the
    tower one high in the lower colour. Measured whole, with its top face, it reads five
    high in its top colour (docs/vision.md, thirteenth session)."""
    layout, calibration, rendered, _ = bench_frame(seed, index)
    assert field_states(rendered.truth)[name] == (top, 5)
    config = VisionConfig()
    assert read_states(read_board(rendered.frame, layout, calibration, config))[name] == (top, 5)
    cut = replace(config, whole_tower_margin=math.inf)
    old = read_states(read_board(rendered.frame, layout, calibration, cut))[name]
    assert old[1] == 1 and old[0] != top


@pytest.mark.parametrize("seed,index,printed", [
    (1, 300, ["F5", "A6"]),
    (1, 392, ["B2"]),
])
def test_print_read_as_yellow_towers_reads_empty(seed, index, printed):
    """Board bench tuning seed 1: overexposed Just 4 Fun frames (exposure 1.29-1.31) move
    the empty lime squares towards yellow in the colour tables, and they read as yellow
    towers, unsure. Their faces differ from the print around them by nothing like a yellow
    piece's step: they read empty, and no field read right without it reads wrong."""
    layout, calibration, rendered, _ = bench_frame(seed, index)
    truth = field_states(rendered.truth)
    assert [truth[n] for n in printed] == [(None, 0)] * len(printed)
    config = VisionConfig()
    blind = read_states(read_board(rendered.frame, layout, calibration,
                                   replace(config, print_piece_share=-1.0)))
    assert [blind[n][0] for n in printed] == ["yellow"] * len(printed)
    reading = read_board(rendered.frame, layout, calibration, config)
    read = read_states(reading)
    assert [read[n] for n in printed] == [(None, 0)] * len(printed)
    assert [n for n in printed if reading.fields[n].confidence >= config.uncertain_below] == []
    assert [n for n, r in blind.items() if r == truth[n] and read[n] != r] == []


@pytest.mark.parametrize("index,washed", [
    (228, {"F1": "green"}),
    (408, {"B2": "red"}),
    (528, {"A4": "red"}),
])
def test_just4fun_pieces_in_glare_judged_by_the_whole_face(index, washed):
    """Board bench tuning seed 1: a lamp's glare (0.7 over them) washes Just 4 Fun's
    pieces towards their square, 1.6-1.8x its print: they read empty (528 A4 surely).
    The face's lightest tenth, which Cuatro's symbol asks for, is the glare's sheen and
    points to no player; the whole face still points to the piece's colour: they read as
    it, one high and unsure, and no field read right without it reads wrong."""
    layout, calibration, rendered, _ = bench_frame(1, index)
    truth = field_states(rendered.truth)
    assert {n: truth[n][0] for n in washed} == washed
    config = VisionConfig()
    blind = read_states(read_board(rendered.frame, layout, calibration,
                                   replace(config, glare_stone_lift=np.inf)))
    assert [blind[n] for n in washed] == [(None, 0)] * len(washed)
    reading = read_board(rendered.frame, layout, calibration, config)
    read = read_states(reading)
    assert {n: read[n] for n in washed} == {n: (c, 1) for n, c in washed.items()}
    assert [n for n in washed if reading.fields[n].confidence >= config.uncertain_below] == []
    assert [n for n, r in blind.items() if r == truth[n] and read[n] != r] == []


@pytest.mark.parametrize("seed,index,printed", [
    (6, 472, ["B5", "C5"]),
    (7, 332, ["B1"]),
])
def test_just4fun_faces_off_any_washed_colour_stay_empty(seed, index, printed):
    """Board bench tuning seeds 6 and 7: empty Just 4 Fun squares out of glare whose
    face's lightest tenth points towards a player from the square read as that player's
    piece, one high. A piece there would lie on its colour's way to white (its top
    washed at most by its own glossy top mirroring the lamp); their whole faces lie far
    off it: they stay empty, unsure, and no field read right without it reads wrong."""
    layout, calibration, rendered, _ = bench_frame(seed, index)
    truth = field_states(rendered.truth)
    assert [truth[n] for n in printed] == [(None, 0)] * len(printed)
    config = VisionConfig()
    blind = read_states(read_board(rendered.frame, layout, calibration,
                                   replace(config, sheen_veto=np.inf)))
    assert all(blind[n][1] == 1 for n in printed)
    reading = read_board(rendered.frame, layout, calibration, config)
    read = read_states(reading)
    assert [read[n] for n in printed] == [(None, 0)] * len(printed)
    assert [n for n in printed if reading.fields[n].confidence >= config.uncertain_below] == []
    assert [n for n, r in blind.items() if r == truth[n] and read[n] != r] == []
