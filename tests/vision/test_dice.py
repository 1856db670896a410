"""The dice reader on real labelled photos (picked by a rule), rendered dice and bad input."""

from __future__ import annotations

import csv
import dataclasses
import math
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.layout import load_layout
from tests.conftest import DICE_PHOTOS
from vision.dice import (
    DiceConfig,
    DiceInputError,
    DieReading,
    GridFace,
    Pip,
    StillReads,
    drop_side_faces,
    read_dice,
    throw_sizes,
)
from vision.sim import random_pose, random_scene, render
from vision.sim.scene import Die

DATA = DICE_PHOTOS
TABLE = DiceConfig.preset("table")
CLOSEUP = DiceConfig.preset("closeup")


def _valid_photos() -> list[tuple[str, list[int]]]:
    """Every 25th held-out photo in name order: chosen by rule, not by how well it reads."""
    if not (DATA / "labels.csv").is_file():
        return []
    with open(DATA / "labels.csv") as f:
        rows = [r for r in csv.DictReader(f) if Path(r["image"]).name.startswith("valid_")]
    rows.sort(key=lambda r: r["image"])
    return [(r["image"], sorted(int(v) for v in r["values_sorted"].split())) for r in rows[::25]]


PHOTO_50 = DATA / "images" / "valid_valid_50.jpg"
needs_photo_50 = pytest.mark.skipif(not PHOTO_50.is_file(),
                                    reason="the real dice photos are not on this machine")


@pytest.mark.parametrize(("image", "values"), _valid_photos())
def test_real_photo_values_match_label(image: str, values: list[int]) -> None:
    readings = read_dice(cv2.imread(str(DATA / image)), config=CLOSEUP)
    assert sorted((r.value or 0) for r in readings) == values


def _area(layout, pose) -> tuple[np.ndarray, np.ndarray]:
    """The layout's dice area: its corners in frame pixels under ``pose``, and on the table
    in mm, as `read_dice` takes them."""
    x0, y0, x1, y1 = layout.dice_area_mm
    area_mm = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float)
    return pose.project(np.column_stack([area_mm, np.zeros(4)])), area_mm


def _table_frame(dice: list[Die], seed: int = 3):
    layout = load_layout("cuatro")
    rng = np.random.default_rng(seed)
    scene = dataclasses.replace(random_scene(layout, rng, dice=0, hard=False), dice=dice)
    pose = random_pose(rng, layout)
    out = render(scene, pose, rng)
    return out, _area(layout, pose)


def _dice_area(layout) -> tuple[float, float]:
    x0, y0, x1, y1 = layout.dice_area_mm
    return (x0 + x1) / 2, (y0 + y1) / 2


def _read_values(out, area) -> list[int | None]:
    readings = read_dice(out.frame, area[0], TABLE, region_mm=area[1])
    return sorted((r.value for r in readings), key=lambda v: v or 0)


@pytest.mark.parametrize("angle", [0.0, 20.0, 45.0, 70.0])
def test_rendered_dice_at_any_rotation(angle: float) -> None:
    layout = load_layout("cuatro")
    cx, cy = _dice_area(layout)
    dice = [Die(cx - 40 + 20 * i, cy, v, angle + 7 * i) for i, v in enumerate([2, 3, 4, 5, 6])]
    out, area = _table_frame(dice)
    assert _read_values(out, area) == [2, 3, 4, 5, 6]


def test_touching_dice_are_read_apart() -> None:
    layout = load_layout("cuatro")
    cx, cy = _dice_area(layout)
    dice = [Die(cx, cy, 5, 0.0), Die(cx + 16.2, cy, 6, 0.0), Die(cx, cy + 16.2, 4, 0.0)]
    out, area = _table_frame(dice)
    assert _read_values(out, area) == [4, 5, 6]


def test_dark_dice_with_light_pips() -> None:
    layout = load_layout("cuatro")
    cx, cy = _dice_area(layout)
    dice = [Die(cx - 25 + 25 * i, cy, v, 15.0 * i, body="#1f1f1f", pips="#f5f5f5")
            for i, v in enumerate([1, 3, 5])]
    out, area = _table_frame(dice)
    assert _read_values(out, area) == [1, 3, 5]


def test_no_dice_gives_nothing() -> None:
    frame = np.full((480, 640, 3), 180, np.uint8)
    assert read_dice(frame) == []


@needs_photo_50
def test_die_cut_by_the_frame_edge_is_unreadable() -> None:
    image = cv2.imread(str(PHOTO_50))
    whole = read_dice(image)
    five = next(r for r in whole if r.value == 5)
    x, y, w, h = five.box
    cut = image[:, x + w // 2:]  # the left half of the five is outside the picture
    at_edge = [r for r in read_dice(cut) if r.centre[0] < w]
    assert at_edge and all(r.value is None for r in at_edge)


def test_leaning_die_is_unreadable() -> None:
    layout = load_layout("cuatro")
    cx, cy = _dice_area(layout)
    out, area = _table_frame([Die(cx, cy, 5, 10.0, leaning=True)])
    readings = read_dice(out.frame, area[0], TABLE, region_mm=area[1])
    assert readings and all(r.value is None for r in readings)
    upright, _ = _table_frame([Die(cx, cy, 5, 10.0)])  # the same die lying flat reads as a 5
    assert [r.value for r in read_dice(upright.frame, area[0], TABLE, region_mm=area[1])] == [5]


@needs_photo_50
def test_region_limits_the_search() -> None:
    image = cv2.imread(str(PHOTO_50))
    whole = read_dice(image)
    x, y, w, h = whole[0].box
    inside = read_dice(image, region=(x - 20, y - 20, w + 40, h + 40))
    assert [r.value for r in inside] == [whole[0].value]
    assert inside[0].centre == pytest.approx(whole[0].centre, abs=1.0)


@pytest.mark.parametrize("shift", [(1000, 1000), (-1000, -1000), (600, 100)])
def test_dice_area_outside_the_frame_has_no_dice(shift: tuple[int, int]) -> None:
    """A dice area wholly or partly outside the frame (the board seen at its edge) is read
    without error: no marks to locate dice by there, no dice."""
    frame = np.full((480, 640, 3), 90, np.uint8)
    area_mm = np.array([[0, 0], [100, 0], [100, 80], [0, 80]], float)
    assert read_dice(frame, area_mm * 2 + shift, TABLE, region_mm=area_mm) == []


@pytest.mark.parametrize("bad", [np.zeros((0, 0, 3), np.uint8), np.zeros((10, 10), np.float32),
                                 "photo.png"])
def test_bad_images_are_refused_in_words(bad) -> None:
    with pytest.raises(DiceInputError, match="dice reader"):
        read_dice(bad)


def test_config_with_unknown_key_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "dice.json"
    path.write_text('{"min_contrst": 40}')
    with pytest.raises(DiceInputError, match="min_contrst"):
        DiceConfig.from_json(path)


def test_region_mm_needs_the_same_corners_in_pixels() -> None:
    frame = np.full((480, 640, 3), 180, np.uint8)
    corners_mm = [[0, 0], [100, 0], [100, 100], [0, 100]]
    with pytest.raises(DiceInputError, match="region"):
        read_dice(frame, None, TABLE, region_mm=corners_mm)
    with pytest.raises(DiceInputError, match="same four"):
        read_dice(frame, [[0, 0], [10, 0], [10, 10]], TABLE, region_mm=corners_mm)
    assert read_dice(frame, [[100, 100], [400, 100], [400, 400], [100, 400]], TABLE,
                     region_mm=corners_mm) == []


_YELLOW = {"body": "#f1c40f", "pips": "#111111", "size_mm": 14.29}
_BLUE = {"body": "#1f4e9a", "pips": "#f5f5f5", "size_mm": 17.08}


def _read_at_the_usual_tilt(dice: list[Die], seed: int = 1, noise: int = 1) -> list[int | None]:
    """The dice as the referee's simulated table of game ``seed`` renders them (cuatro, 35
    degree tilt; the seed picks the table's cloth; ``noise`` the render's noise draw), read
    in the dice area placed by the true pose."""
    return _read_values(*_at_the_usual_tilt(dice, seed, noise))


def _at_the_usual_tilt(dice: list[Die], seed: int, noise: int):
    """`_read_at_the_usual_tilt`'s render and dice area (pixels, table mm)."""
    from companion.simtable import TABLE_LIGHT, table_pose
    from vision.sim.scene import Scene

    layout = load_layout("cuatro")
    pose = table_pose(layout)
    scene = Scene(layout, stacks={}, dice=dice, lighting=TABLE_LIGHT, noise_sigma=1.0,
                  blur_sigma=0.4, jpeg_quality=None, seed=seed)
    out = render(scene, pose, np.random.default_rng(noise))
    return out, _area(layout, pose)


def test_lone_one_beside_its_side_faces_at_the_usual_tilt() -> None:
    """A black 1 among white 4, 5 and 6 at the referee's 35 degree tilt: its pip and a
    (smaller, foreshortened) pip of a side face used to fit a 2 (SimTable cuatro seed 1,
    frame 169)."""
    white = {"body": "#f4f1ea", "pips": "#151515", "size_mm": 15.56}
    dice = [Die(489.7, 117.3, 4, 302.3, **white), Die(517.3, 198.0, 2, 342.7, **white),
            Die(394.3, 224.7, 5, 84.8, **white), Die(429.7, 121.8, 6, 207.7, **white),
            Die(448.0, 251.3, 1, 225.1, body="#1f1f1f", pips="#f5f5f5", size_mm=15.56)]
    assert _read_at_the_usual_tilt(dice) == [1, 2, 4, 5, 6]


def test_one_with_a_faint_side_pip_among_dice_alike() -> None:
    """Black dice only: the 1's pip and a fainter, smaller pip of its side face (towards the
    lens) fitted a 2 whose pips pass ``pip_agreement`` (0.84 of the throw's pip size; SimTable
    cuatro seed 3, frames 121-135 read 2 3 4 5 5)."""
    black = {"body": "#1f1f1f", "pips": "#f5f5f5", "size_mm": 16.56}
    dice = [Die(490.7, 196.5, 5, 235.5, **black), Die(515.5, 190.0, 3, 87.6, **black),
            Die(526.7, 125.0, 1, 146.3, **black), Die(457.0, 140.9, 4, 58.2, **black),
            Die(374.8, 46.5, 5, 306.2, **black)]
    assert _read_at_the_usual_tilt(dice) == [1, 3, 4, 5, 5]


@pytest.mark.parametrize(("seed", "dice"), [
    # SimTable cuatro seed 2, frames 218-232: 1 1 4 4 6 read 1 1 4 4 (the throw was lost)
    (2, [Die(392.5, 249.5, 1, 305.8, **_YELLOW), Die(486.0, 69.6, 4, 298.6, **_YELLOW),
         Die(412.7, 258.0, 1, 119.8, **_YELLOW), Die(465.8, 90.0, 4, 142.4, **_YELLOW),
         Die(452.7, 103.0, 6, 30.1, **_YELLOW)]),
    # seed 7, frames 150-153: 1 3 3 5 6 read 1 3 5 6 (the throw was settled so)
    (7, [Die(428.1, 96.8, 1, 286.3, **_BLUE), Die(384.0, 259.5, 6, 282.3, **_BLUE),
         Die(432.9, 73.8, 3, 60.9, **_BLUE), Die(435.7, 120.7, 5, 127.1, **_BLUE),
         Die(425.7, 137.3, 3, 36.6, **_BLUE)]),
], ids=["six-before-a-four", "three-before-a-five"])
def test_die_in_front_of_a_side_is_read(seed: int, dice: list[Die]) -> None:
    """A die standing just in front of another's side towards the lens, where that die's
    side face would show, hides that side: its face, as strong as the other die's, is read,
    not dropped as the side (``side_match_share``). Patterns left unread (seed 7's cloth
    has a dotted line) are not looked at."""
    read = [v for v in _read_at_the_usual_tilt(dice, seed) if v is not None]
    assert read == sorted(d.value for d in dice)


_WHITE = {"body": "#f4f1ea", "pips": "#151515"}


def test_lone_one_with_a_side_pip_by_its_corner_is_read() -> None:
    """A white 1 at the dice area's far side, turned 25 degrees: a pip of its own side face
    lies within the unturned square round its pip, though off its face at any turn, and no
    1 was fitted (``lone_face_disc``; SimTable cuatro seed 3, frames 170-209 read the throw
    1 1 2 3 4 as 1 2 3 4 and an unreadable die, the throw was lost)."""
    white = dict(size_mm=14.23, **_WHITE)
    dice = [Die(397.3, 282.7, 4, 326.5, **white), Die(370.1, 243.0, 3, 2.0, **white),
            Die(387.3, 266.9, 2, 24.3, **white), Die(440.8, 82.2, 1, 334.5, **white),
            Die(513.5, 101.4, 1, 343.6, **white)]
    assert _read_at_the_usual_tilt(dice, 3) == [1, 1, 2, 3, 4]


def test_one_of_large_dice_is_not_left_to_its_side_face() -> None:
    """Large dice (17.8 mm): a 1 fitted at the nominal pitch stood for a smaller die, so its
    side face, which showed beyond where that die's side would, was read as a 2 and the 1
    dropped under it (``one_at_throw_pitch``; SimTable cuatro seed 8, frames 155-158 read
    1 2 3 5 6 as 2 2 3 5 6, and the throw was settled so)."""
    white = dict(size_mm=17.76, **_WHITE)
    dice = [Die(434.9, 201.2, 5, 273.9, body="#c0392b", pips="#f5f5f5", size_mm=17.76),
            Die(408.7, 203.9, 6, 26.9, **white), Die(471.9, 184.7, 2, 317.0, **white),
            Die(465.8, 61.6, 1, 95.6, **white), Die(542.3, 235.6, 3, 212.0, **white)]
    assert _read_at_the_usual_tilt(dice, 8) == [1, 2, 3, 5, 6]


def test_one_at_the_far_edge_with_a_smaller_pip_is_read() -> None:
    """A black 1 the farthest die from the lens: its pip, fainter there, measures 0.72 of
    the throw's pips, under ``pip_agreement``, and was left out once the throw was known
    (``one_pip_agreement``; SimTable cuatro seed 13, frames 268-287 read 1 2 3 4 5 as
    2 3 4 5 and an unreadable die, the throw was lost)."""
    black = {"body": "#1f1f1f", "pips": "#f5f5f5", "size_mm": 17.10}
    dice = [Die(410.1, 174.7, 2, 116.2, **black), Die(528.1, 64.4, 3, 40.3, **black),
            Die(542.8, 42.7, 1, 295.5, **black), Die(476.3, 86.9, 4, 110.6, **black),
            Die(396.4, 240.0, 5, 266.7, **black)]
    assert _read_at_the_usual_tilt(dice, 13) == [1, 2, 3, 4, 5]


def test_three_is_not_held_to_a_side_face_s_pitch() -> None:
    """A 4's side face towards the lens shows a 5, foreshortened: its pitch (3.82 mm) lay
    between the top faces' (4.01-4.07) and a side's 2 (3.66), so it won the throw's pitch
    vote, and the 3, 6 % off it, was left unread as leaning (``throw_from_tops``; the
    referee's end-to-end game, cuatro seed 2, move 24: 3 4 4 6 6 counted 1 4 4 6 6)."""
    white = dict(size_mm=15.08, **_WHITE)
    dice = [Die(511.2, 117.2, 4, 304.5, **white), Die(450.0, 274.4, 3, 345.8, **white),
            Die(374.6, 89.6, 6, 108.2, **white), Die(537.7, 176.0, 6, 163.5, **white),
            Die(520.0, 36.9, 4, 337.5, **white)]
    assert _read_at_the_usual_tilt(dice, 2) == [3, 4, 4, 6, 6]


def test_twos_are_not_held_to_their_neighbour_s_sides() -> None:
    """Two sides of a 2 towards the lens fit a 6 at a pitch 6 % under the top faces'; it
    tied the throw's pitch vote, the median between fell 3 % under the 2s, and they were
    left unread as leaning in most frames, the false 6 kept (``throw_from_tops``; the
    referee's end-to-end game, cuatro seed 3: 1 2 2 2 6 counted 1 1 1 6 6 and a stone
    falsely flagged). Read under four noise draws: the misread came in about half."""
    white = dict(size_mm=17.3, body="#fbfbf7", pips="#1a1a60")
    dice = [Die(483.4, 94.2, 2, 205.7, **white), Die(451.1, 168.1, 1, 316.1, **white),
            Die(536.5, 210.5, 2, 54.9, **white), Die(487.4, 72.0, 2, 204.2, **white),
            Die(489.5, 50.2, 6, 110.3, **white)]
    assert [_read_at_the_usual_tilt(dice, 3, noise) for noise in range(4)] == \
        [[1, 2, 2, 2, 6]] * 4


def test_die_at_the_far_edge_of_the_area_at_the_usual_tilt() -> None:
    """A die standing 15 mm inside the far edge of the dice area, at the referee's 35 degree
    tilt: its top face, one die up, shows 16 mm farther out in the table-plane view, beyond
    the edge, and the die was left out as lying outside the area (SimTable cuatro seed 1,
    frames 200-237: every frame read 1 2 2 3, the throw was lost)."""
    blue = {"body": "#1f4e9a", "pips": "#f5f5f5", "size_mm": 16.25}
    dice = [Die(433.0, 35.5, 3, 31.4, **blue), Die(482.5, 271.0, 1, 127.2, **blue),
            Die(392.6, 131.6, 2, 338.6, **blue), Die(443.2, 241.3, 2, 220.0, **blue),
            Die(427.8, 215.7, 3, 17.7, **blue)]
    assert _read_at_the_usual_tilt(dice) == [1, 2, 2, 3, 3]


def _read_in_bench_scene(seed: int, dice: list[Die]) -> list[int | None]:
    """The dice in the table, light and camera pose of `bench/throw_counting.py`'s session
    ``seed``, read in its dice area."""
    layout = load_layout("cuatro")
    rng = np.random.default_rng(seed)
    base = random_scene(layout, rng, dice=0, hard=False)
    pose = random_pose(rng, layout)
    out = render(dataclasses.replace(base, dice=dice), pose, np.random.default_rng(1))
    return _read_values(out, _area(layout, pose))


def test_six_whose_columns_run_together_is_read() -> None:
    """Small dice, blurred: a 6's columns of pips come out as two bars with no dip between
    the pips for `split_levels` to part them at (throw_counting seeds 7106 and 7108, frame
    48: the 6 never found in a whole rest, the throw not counted)."""
    yellow = {"body": "#f1c40f", "pips": "#111111", "size_mm": 15.54}
    assert _read_in_bench_scene(7106, [Die(436.5, 55.9, 6, 63.6, **yellow)]) == [6]
    white = {"body": "#f4f1ea", "pips": "#151515", "size_mm": 14.88}
    assert _read_in_bench_scene(7108, [Die(529.3, 226.1, 6, 167.4, **white),
                                       Die(397.4, 280.8, 4, 54.1, body="#1f4e9a",
                                           pips="#f5f5f5", size_mm=14.88)]) == [4, 6]


def test_dice_area_changed_between_frames_is_read_anew() -> None:
    """The referee reads every frame in the same dice area, whose top view's geometry is
    worked out once; when the board's reading moves the area, or it shrinks, the new
    corners are used."""
    layout = load_layout("cuatro")
    cx, cy = _dice_area(layout)
    out, (area_px, area_mm) = _table_frame([Die(cx - 30, cy, 3, 10.0), Die(cx + 30, cy, 5, 40.0)])
    whole = read_dice(out.frame, area_px, TABLE, region_mm=area_mm)
    assert [r.value for r in whole] == [3, 5]
    left_mm = area_mm.copy()
    left_mm[[1, 2], 0] = cx
    to_px, _ = cv2.findHomography(area_mm, area_px)
    left_px = cv2.perspectiveTransform(left_mm.reshape(-1, 1, 2), to_px).reshape(-1, 2)
    assert [r.value for r in read_dice(out.frame, left_px, TABLE, region_mm=left_mm)] == [3]
    shift = np.array([40.0, 30.0])
    moved = cv2.warpAffine(out.frame, np.float64([[1, 0, shift[0]], [0, 1, shift[1]]]),
                           out.frame.shape[1::-1], flags=cv2.INTER_NEAREST,
                           borderMode=cv2.BORDER_REPLICATE)
    after = read_dice(moved, area_px + shift, TABLE, region_mm=area_mm)
    assert [r.value for r in after] == [3, 5]
    for b, a in zip(whole, after, strict=True):
        assert np.subtract(a.centre, b.centre) == pytest.approx(shift, abs=0.5)
    assert read_dice(out.frame, area_px, TABLE, region_mm=area_mm) == whole


def test_still_frames_keep_the_last_reading_until_the_dice_change() -> None:
    """The referee reads every frame; while nothing in the area changes but sensor noise,
    the last frame read in full gives the readings (`still_change`), once three full reads
    in a row agreed (`still_reads`). A die turned to another face, or nudged by 3 mm, is read
    anew at once. Only a reader that keeps its `StillReads` remembers: a single read never
    gets another caller's readings."""
    from companion.simtable import TABLE_LIGHT, table_pose
    from vision.sim.scene import Scene

    layout = load_layout("cuatro")
    pose = table_pose(layout)
    area_px, area_mm = _area(layout, pose)
    cx, cy = _dice_area(layout)

    def frame(dice: list[Die], noise: int) -> np.ndarray:
        scene = Scene(layout, stacks={}, dice=dice, lighting=TABLE_LIGHT, noise_sigma=1.0,
                      blur_sigma=0.4, jpeg_quality=None, seed=1)
        return render(scene, pose, np.random.default_rng(noise)).frame

    still = StillReads()

    def read(image: np.ndarray, memory: StillReads | None = still) -> list:
        return read_dice(image, area_px, TABLE, region_mm=area_mm, still=memory)

    lying = [Die(cx - 30, cy, 3, 10.0), Die(cx + 30, cy, 5, 40.0)]
    first = read(frame(lying, 1))
    assert sorted(r.value for r in first) == [3, 5]
    for noise in (2, 3):
        third = read(frame(lying, noise))
        assert third == read(frame(lying, noise), None)  # read anew: the same
    assert read(frame(lying, 4)) == third
    assert repr(still).startswith("<StillReads 1 of")
    turned = [lying[0], dataclasses.replace(lying[1], value=6)]
    assert sorted(r.value for r in read(frame(turned, 5))) == [3, 6]
    nudged = [dataclasses.replace(lying[0], x_mm=cx - 27), turned[1]]
    after = read(frame(nudged, 6))
    assert sorted(r.value for r in after) == [3, 6]
    assert after == read(frame(nudged, 6), None)


def test_a_full_read_after_the_still_test_takes_its_grey_and_blocks() -> None:
    """A frame the still test finds changed is read in full from the grey box and blocks the
    test made (`_still`): read as anew, its blocks kept as a fresh frame's, and the grey
    frame 0 outside the box whatever the last read left there."""
    from companion.simtable import TABLE_LIGHT, table_pose
    from vision import dice
    from vision.sim.scene import Scene

    layout = load_layout("cuatro")
    pose = table_pose(layout)
    area_px, area_mm = _area(layout, pose)
    cx, cy = _dice_area(layout)

    def frame(dice_: list[Die]) -> np.ndarray:
        scene = Scene(layout, stacks={}, dice=dice_, lighting=TABLE_LIGHT, noise_sigma=1.0,
                      blur_sigma=0.4, jpeg_quality=None, seed=1)
        return render(scene, pose, np.random.default_rng(1)).frame

    still = StillReads()
    before = frame([Die(cx - 30, cy, 3, 10.0), Die(cx + 30, cy, 5, 40.0)])
    read_dice(before, area_px, TABLE, region_mm=area_mm, still=still)
    key = (area_mm.tobytes(), before.shape[:2], TABLE)
    box = still.last(key).box
    grey = dice._work_image("grey", before.shape[:2])
    grey[...] = 77  # what another read may have left
    after = frame([Die(cx - 30, cy, 3, 10.0), Die(cx + 20, cy + 5, 6, 70.0)])
    readings = read_dice(after, area_px, TABLE, region_mm=area_mm, still=still)
    bx0, by0, bx1, by1 = box
    expected = np.zeros(after.shape[:2], np.uint8)
    expected[by0:by1, bx0:bx1] = cv2.cvtColor(after[by0:by1, bx0:bx1], cv2.COLOR_BGR2GRAY)
    assert np.array_equal(grey, expected)
    assert still.last(key).box == box
    assert np.array_equal(still.last(key).blocks, dice._blocks(after, box, TABLE))
    assert readings == read_dice(after, area_px, TABLE, region_mm=area_mm)
    assert sorted(r.value for r in readings) == [3, 6]


def test_work_images_kept_between_reads_leave_no_trace() -> None:
    """A thread's reads of the top view reuse its work images (`_work_image`), whatever the
    last read left in them: a frame is read the same with them filled with noise, after
    another frame of the same view size, and in a thread of its own (bench tuning scenes:
    cuatro 1000 and 1002 share a view size)."""
    import threading

    from vision import dice

    scenes = [_bench_scene(seed, hard=True) for seed in (1000, 1002)]

    def read(k: int) -> list:
        out, area_px, area_mm = scenes[k]
        return read_dice(out.frame, area_px, TABLE, region_mm=area_mm)

    first = [read(0), read(1)]
    assert first[0] and first[1]
    rng = np.random.default_rng(0)
    for image in dice._WORK.images.values():
        image[...] = rng.integers(0, 256, image.shape)
    assert read(0) == first[0] and read(1) == first[1]
    elsewhere: list = []
    thread = threading.Thread(
        target=lambda: elsewhere.append((read(1), dice._work_image("top", (2, 2)))))
    thread.start()
    thread.join()
    assert elsewhere[0][0] == first[1]
    assert dice._work_image("top", (2, 2)) is dice._work_image("top", (2, 2))
    assert dice._work_image("top", (2, 2)) is not elsewhere[0][1]


def _bench_values(seed: int, hard: bool = False) -> tuple[list[int | None], list[int | None]]:
    """(read, true) values of `bench/dice_accuracy.py`'s rendered frame ``seed`` (tuning
    seeds 1000+: cuatro on even seeds, spexxx on odd); a leaning die's true value is None."""
    out, area_px, area_mm = _bench_scene(seed, hard)
    truth = [None if d.leaning else d.value for d in out.truth.dice if d.visible]
    return _read_values(out, (area_px, area_mm)), sorted(truth, key=lambda v: v or 0)


def _bench_scene(seed: int, hard: bool):
    """`bench/dice_accuracy.py`'s rendered frame ``seed`` and its dice area (10 mm wider
    than the layout's, as the bench reads it) in frame pixels and table mm."""
    layout = load_layout("cuatro" if seed % 2 == 0 else "spexxx")
    rng = np.random.default_rng(seed)
    scene = random_scene(layout, rng, dice=5, hard=hard)
    pose = random_pose(rng, layout)
    out = render(scene, pose, rng)
    x0, y0, x1, y1 = layout.dice_area_mm
    area_mm = np.array([[x0 - 10, y0 - 10], [x1 + 10, y0 - 10], [x1 + 10, y1 + 10],
                        [x0 - 10, y1 + 10]], float)
    return out, pose.project(np.column_stack([area_mm, np.zeros(4)])), area_mm


@pytest.mark.parametrize("seed", [1052, 1185])
def test_one_blurred_towards_the_lens_is_read(seed: int) -> None:
    """A top 1's pip, blurred by the frame, measures 0.74-0.77 round in the top view: a frame
    pixel covers more table towards the point under the lens, so blur stretches the pip that
    way (tame tuning seeds 1052 and 1185: the 1s were reported unreadable)."""
    read, true = _bench_values(seed)
    assert read == true


@pytest.mark.parametrize("seed", [1068, 1164])
def test_five_with_large_dark_pips_is_read(seed: int) -> None:
    """Sharp, high-contrast 5s (pip contrast 107-166): the blur round their large pips
    reaches the empty lattice cells between them over ``empty_cell_contrast`` (37-41 against
    30), which took them for a hidden pip (hard tuning seeds 1068 and 1164: unreadable)."""
    read, true = _bench_values(seed, hard=True)
    assert read == true


@pytest.mark.parametrize("seed", [1036, 1156])
def test_blurred_two_and_three_are_joined_by_their_body(seed: int) -> None:
    """Blurred 2s and 3s: the closing does not fill a blurred pip's core with body colour, so
    the even-body line from the face's centre dipped 23 grey levels at the pip itself, over
    ``edge_drop`` (hard tuning seeds 1036 and 1156: with ``body_pip_clearance`` 0, a 2 or
    a 3 is read as a 1 or unreadable)."""
    read, true = _bench_values(seed, hard=True)
    assert read == true


@pytest.mark.parametrize("seed", [1062, 1074])
def test_faint_lone_pip_of_a_blurred_die_is_no_one(seed: int) -> None:
    """Dim, blurred frames: of a 2 or a 4 only one pip is found, barely over
    ``min_contrast`` (54-58 against 50), and it was read as a 1 (hard tuning seeds 1062 and
    1074). Such dice may be missed or unreadable, never read with a wrong value."""
    read, true = _bench_values(seed, hard=True)
    wrong = Counter(v for v in read if v is not None) - Counter(true)
    assert not wrong


@pytest.mark.parametrize("seed", [1047, 1146])
def test_leaning_two_or_three_is_unreadable(seed: int) -> None:
    """A leaning die's 2 or 3 has no squareness to tell by, but its tilted diagonal comes
    out 3-7 % shorter or longer than the 4s/5s/6s' of the throw, flat ones within 2.5 %
    (``lean_pitch``; tame tuning seeds 1047 and 1146: a leaning 3 and 2 read as 3 and 2)."""
    read, true = _bench_values(seed)
    assert read == true


@pytest.mark.parametrize(("seed", "hard"), [(1087, False), (1014, True), (1165, True)])
def test_leaning_die_read_as_a_one_is_unreadable(seed: int, hard: bool) -> None:
    """A leaning 2's or 4's diagonal is foreshortened under the least die size, so no fit
    takes its pips together and each is a plausible 1, one standing over the other; a die
    showing 1 shows no 1 on a side, so that 1 is unreadable (``one_over_one``; tuning seeds
    tame 1087, hard 1014 and 1165: read as a 1)."""
    read, true = _bench_values(seed, hard=hard)
    assert read == true


def test_faint_dice_of_a_blurred_dim_frame_are_read() -> None:
    """Blur and dim light leave the pips of small dice, white pips on coloured dice most,
    at a black-hat contrast under ``min_contrast`` (50) in the top view: no pip was found
    and the die was missed (hard tuning seed 1092: a 4; 1062, 1190 before the renderer's
    noise was mended). Found over ``faint_contrast`` (30) where no face of the strong pips
    lies, it is read."""
    read, true = _bench_values(1092, hard=True)
    assert read == true
    out, area_px, area_mm = _bench_scene(1092, hard=True)
    strong_only = dataclasses.replace(TABLE, faint_contrast=0.0)
    assert 4 not in [r.value for r in read_dice(out.frame, area_px, strong_only, area_mm)]


@pytest.mark.parametrize("seed", [1062, 1130])
def test_faint_pips_need_to_be_round(seed: int) -> None:
    """Faint blobs round far, blurred dice (or a Spexxx dotted line) fit faces that are not
    there (hard tuning seeds 1062 and 1130; 1081, a tiny 1 read as a 4, before the
    renderer's noise was mended). Faces of faint pips need ``faint_roundness`` (0.75) mean
    roundness: with it no wrong value is read, without it one is."""
    out, area_px, area_mm = _bench_scene(seed, hard=True)
    true = Counter(None if d.leaning else d.value for d in out.truth.dice if d.visible)
    for roundness, wrong in ((TABLE.faint_roundness, False), (0.0, True)):
        config = dataclasses.replace(TABLE, faint_roundness=roundness)
        read = Counter(r.value for r in read_dice(out.frame, area_px, config, area_mm)
                       if r.value is not None)
        assert bool(read - true) == wrong


def test_faint_three_missing_its_middle_pip_is_no_two() -> None:
    """A dim, blurred green 3 (held-out hard seed 2024, seen while confirming the faint
    search): its corner pips are found at 32-34 black-hat, its middle pip, fainter, is
    not. An empty lattice point must stay under ``empty_cell_contrast`` of the search's
    contrast: the strong search's (0.6 x 50 = 30) let the middle pip pass for an empty
    point, and the corners were read as a 2; the faint search's (0.6 x 30 = 18) does not."""
    out, area_px, area_mm = _bench_scene(2024, hard=True)
    three = next(d for d in out.truth.dice if d.value == 3)
    there = [r.value for r in read_dice(out.frame, area_px, TABLE, area_mm)
             if math.dist(r.centre, three.centre_px) < 12]
    assert 2 not in there


def _bench_dice_alone(seed: int, hard: bool, noise: int):
    """The dice, light, blur and cloth of `bench/dice_accuracy.py`'s rendered frame
    ``seed``, alone on their cloth (no pieces, hand or clutter; ``noise`` the render's noise
    draw), and the bench's dice area in frame pixels and table mm."""
    layout = load_layout("cuatro" if seed % 2 == 0 else "spexxx")
    rng = np.random.default_rng(seed)
    scene = random_scene(layout, rng, dice=5, hard=hard)
    pose = random_pose(rng, layout)
    alone = dataclasses.replace(scene, stacks={}, hand=None, clutter=(), cables=())
    out = render(alone, pose, np.random.default_rng(noise))
    x0, y0, x1, y1 = layout.dice_area_mm
    area_mm = np.array([[x0 - 10, y0 - 10], [x1 + 10, y0 - 10], [x1 + 10, y1 + 10],
                        [x0 - 10, y1 + 10]], float)
    return out, pose.project(np.column_stack([area_mm, np.zeros(4)])), area_mm


def _values(readings) -> list[int | None]:
    return sorted((r.value for r in readings), key=lambda v: v or 0)


def test_dim_die_partly_found_is_read_from_its_faint_pips() -> None:
    """A dim red 4 (hard tuning seed 1058, alone on its cloth): the strong search finds
    three of its pips, barely over ``min_contrast``, which fit no face, so they were an
    unread cluster, and the faint search stayed off round it: the die was missed. With
    ``faint_over_unread`` the faint search reads its four pips, which take in the
    cluster's."""
    out, area_px, area_mm = _bench_dice_alone(1058, hard=True, noise=0)
    true = _values(out.truth.dice)
    assert _values(read_dice(out.frame, area_px, TABLE, area_mm)) == true == [1, 1, 2, 4, 6]
    blocked = dataclasses.replace(TABLE, faint_over_unread=False)
    assert 4 not in _values(read_dice(out.frame, area_px, blocked, area_mm))


def test_faint_face_leaving_unread_pips_on_its_die_is_not_read(monkeypatch) -> None:
    """A leaning 6 (tame tuning seed 1117, alone on its cloth, noise draw 3): its tilted
    lattice leaves unread clusters, and a faint 6 fits over them. Pips of such a cluster
    on that die off the 6's lattice points show it is not the die's top face: it stays
    unreadable, as a leaning die must. Without that check it is read 6."""
    out, area_px, area_mm = _bench_dice_alone(1117, hard=False, noise=3)
    assert _values(read_dice(out.frame, area_px, TABLE, area_mm)) == [None, 1, 1, 5, 6]
    assert [d.value for d in out.truth.dice if d.leaning] == [6]
    monkeypatch.setattr("vision.dice._explains", lambda *args: True)
    assert _values(read_dice(out.frame, area_px, TABLE, area_mm)) == [1, 1, 5, 6, 6]


@pytest.mark.parametrize(("seed", "hard"), [(1006, False), (1066, True)])
def test_leaning_die_read_as_a_one_beside_its_own_pips_is_unreadable(seed: int,
                                                                     hard: bool) -> None:
    """A leaning 2 and a leaning 5 (tuning seeds tame 1006, hard 1066, alone on their
    cloth): no fit takes their tilted lattice, and one pip was read as a 1 (0.93-0.99 sure)
    beside the others, as strong and round, on no read face and on no side towards the
    lens of any read die. A flat 1's die shows no such pip (``one_beside_pips``)."""
    out, area_px, area_mm = _bench_dice_alone(seed, hard=hard, noise=0)
    true = _values([dataclasses.replace(d, value=None) if d.leaning else d
                    for d in out.truth.dice])
    assert _values(read_dice(out.frame, area_px, TABLE, area_mm)) == true
    before = dataclasses.replace(TABLE, one_beside_pips=False)
    assert _values(read_dice(out.frame, area_px, before, area_mm)).count(1) == \
        true.count(1) + 1


def test_flat_ones_beside_read_dice_stay_ones() -> None:
    """Flat 1s touching a read 3 and 4 (tame tuning seed 1094, alone on its cloth): those
    dice's pips lie on their own lattices, so ``one_beside_pips`` leaves the 1s read."""
    out, area_px, area_mm = _bench_dice_alone(1094, hard=False, noise=0)
    assert _values(read_dice(out.frame, area_px, TABLE, area_mm)) == \
        _values(out.truth.dice) == [1, 1, 3, 3, 4]


def test_one_over_a_weaker_lone_pip_is_read() -> None:
    """A flat 1 whose die stands over a lone pip of under ``side_pip_share`` its strength
    (0.45: a side pip, foreshortened and fainter) stays a 1 with ``one_over_one`` (tame
    tuning seed 1075; on the referee's table, cuatro seed 3, such a 1 was unreadable)."""
    read, true = _bench_values(1075)
    assert read.count(1) == true.count(1) == 1


def test_the_throws_pitch_is_the_one_most_faces_agree_with():
    """A white die's face between its dark pips fitted a 4 of light "pips" at another pitch
    (Spexxx seed 4 on the simulated table): with it in the throw's median, the 5, 3 and 2 of
    the true pitch fell outside the agreement and were read as no die at all."""
    def face(value: int, pitch: float, pips: int, diameter: float):
        return (GridFace(value, (0.0, 0.0), 0.0, pitch, tuple(range(pips)), 0.1),
                [Pip(0.0, 0.0, diameter, 1.0, 50.0)] * pips)

    config = DiceConfig.preset("table")
    five, three, two = face(5, 3.95, 5, 9.8), face(3, 3.97, 3, 9.8), face(2, 3.98, 2, 9.8)
    false_four = face(4, 4.99, 4, 14.0)
    assert throw_sizes([five, three, two, false_four], config) == (3.95, 9.8)
    # with nothing to tell them apart, both 4+ faces count
    pitch, _ = throw_sizes([five, false_four], config)
    assert pitch == pytest.approx((3.95 + 4.99) / 2)


@pytest.mark.parametrize(("seed", "hard"), [(1000, False), (1001, False), (1002, True),
                                            (1003, True)])
def test_located_pips_hold_every_die_and_read_as_the_whole_area(seed: int,
                                                                hard: bool) -> None:
    """The first pass (`locate_contrast`) finds where pips may be in the frame; only there is
    the top view warped and searched. Pips are searched on every die's top face, the face
    is warped with the closing's reach round it, the pips found are those of the whole
    area's search, and the readings are the same (bench tuning scenes: cuatro on even seeds,
    spexxx, whose dotted lines are pips too, on odd ones)."""
    from vision.dice import _locate, _rectified_pip_config, _top_view, _warp, find_pips

    out, area_px, area_mm = _bench_scene(seed, hard)
    view = _top_view(area_px.tobytes(), area_mm.tobytes(), out.frame.shape[:2], TABLE)
    grey = cv2.cvtColor(out.frame, cv2.COLOR_BGR2GRAY)
    located = _locate(grey, view, TABLE)
    whole, part = _warp(grey, view, None), _warp(grey, view, located.strips)
    warped = np.zeros(part.shape, bool)
    for a, b, c, d in located.strips:
        warped[b:d, a:c] = True
    if seed == 1000:  # a plain table: a small part of the view is warped
        assert warped.mean() < 0.2
    reach = _rectified_pip_config(TABLE).hat_kernel_px
    for die in out.truth.dice:
        face = cv2.perspectiveTransform(die.top_face_px.reshape(-1, 1, 2).astype(np.float64),
                                        view.frame_to_rect).reshape(-1, 2)
        a, b = np.clip(np.floor(face.min(axis=0)).astype(int), 0, None)
        c, d = np.ceil(face.max(axis=0)).astype(int) + 1
        assert located.search[b:d, a:c].any(), (die.value, face.mean(axis=0))
        assert warped[max(b - reach, 0):d + reach, max(a - reach, 0):c + reach].all()
    config = _rectified_pip_config(TABLE)
    for polarity in TABLE.polarities:
        a, b = ((top if polarity == "dark" else 255 - top) for top in (whole, part))
        pips = np.array([(p.x, p.y) for p in find_pips(a, None, config)[0]])
        found = np.array([(p.x, p.y) for p in find_pips(b, located.search, config,
                                                        located.boxes)[0]])
        assert len(found) == len(pips)
        # one to one; a pip across a seam between two warped strips may sit half a pixel
        # off (the spexxx board's dotted line on hard seed 1003, which is no die)
        apart = np.hypot(*(pips[:, None, :] - found[None, :, :]).transpose(2, 0, 1))
        assert (apart.min(axis=1) < 0.7).all() and (apart.min(axis=0) < 0.7).all()
        assert np.median(apart.min(axis=1)) < 0.05
    everywhere = dataclasses.replace(TABLE, locate_contrast=0.0)
    assert read_dice(out.frame, area_px, TABLE, region_mm=area_mm) == read_dice(
        out.frame, area_px, everywhere, region_mm=area_mm)


def test_windowed_search_lists_blobs_as_the_whole_image_does():
    """Searched in windows, the blobs are the whole image's, in findContours' own order
    (pips are fitted in that order), and the closing written in place is the copy's."""
    from vision.dice import _contours, _rectified_pip_config, find_pips

    rng = np.random.default_rng(3)
    image = np.full((240, 320), 200, np.uint8)
    for x, y in rng.integers(20, 300, (40, 2)):
        cv2.circle(image, (int(x), int(y) * 3 // 4), int(rng.integers(2, 6)), 60, -1)
    cv2.rectangle(image, (30, 30), (60, 50), 60, 3)  # a ring with a pip inside
    cv2.circle(image, (45, 40), 3, 60, -1)
    windows = [(10, 10, 150, 120), (150, 10, 310, 120), (10, 120, 310, 230)]
    mask = np.zeros(image.shape, np.uint8)
    for x0, y0, x1, y1 in windows:
        mask[y0 + 8:y1 - 8, x0 + 8:x1 - 8] = 255
    binary = np.where((image < 100) & (mask > 0), 255, 0).astype(np.uint8)
    whole = cv2.findContours(binary, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0]
    found = _contours(binary, windows)
    assert len(found) == len(whole) > 30
    assert all(np.array_equal(a, b) for a, b in zip(found, whole, strict=True))
    config = _rectified_pip_config(TABLE)
    copied = find_pips(image, mask, config, windows)
    own = image.copy()
    in_place = find_pips(own, mask, config, windows, in_place=True)
    assert in_place[0] == copied[0] and len(copied[0]) > 20
    assert in_place[1] is own and np.array_equal(own, copied[1])
    assert np.array_equal(in_place[2], copied[2])


def test_a_blob_alone_in_its_box_is_the_box_itself():
    """`_blobs` measures a blob whose bounding box meets no other blob's on the box's
    pixels instead of drawing its contour: the same pixels (holes and what lies in them
    included), and `_alone` is the plain pairwise check of the boxes."""
    from vision.dice import _alone

    rng = np.random.default_rng(5)
    kinds = Counter()
    for _ in range(20):
        binary = np.zeros((120, 160), np.uint8)
        for x, y in rng.integers(5, 150, (25, 2)):
            size = (int(rng.integers(1, 8)), int(rng.integers(1, 8)))
            cv2.ellipse(binary, (int(x), int(y) * 3 // 4), size, float(rng.uniform(0, 180)),
                        0, 360, 255, int(rng.choice([-1, 1, 2])))
        cv2.circle(binary, (80, 60), 9, 255, 2)  # a ring with a blob in its hole
        cv2.circle(binary, (80, 60), 2, 255, -1)
        contours = cv2.findContours(binary, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0]
        rects = [cv2.boundingRect(c) for c in contours]
        alone = _alone(rects)
        assert alone == [not any(a[0] < b[0] + b[2] and b[0] < a[0] + a[2]
                                 and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]
                                 for j, b in enumerate(rects) if j != i)
                         for i, a in enumerate(rects)]
        kinds.update(alone)
        for contour, (x, y, w, h), single in zip(contours, rects, alone, strict=True):
            if single:
                drawn = np.zeros((h, w), np.uint8)
                cv2.drawContours(drawn, [contour], -1, 255, cv2.FILLED, offset=(-x, -y))
                crop = binary[y:y + h, x:x + w]
                assert np.array_equal(cv2.bitwise_and(drawn, crop), crop)
    assert kinds[True] > 300 and kinds[False] > 30


def test_numpy_sums_a_few_values_one_after_another():
    """`_lattice_fits` takes a fit's mean error (at most 6 pips) as a plain running sum,
    which is what ndarray.sum does with fewer than 8 values (pairwise only from 8 on)."""
    rng = np.random.default_rng(7)
    for n in range(1, 8):
        for values in rng.random((2000, n)) * rng.choice([1e-3, 0.3], (2000, 1)):
            total = 0.0
            for v in values.tolist():
                total += v
            assert total / n == float(values.sum() / n)


def test_weak_lone_pip_where_a_die_shows_a_side_is_no_die():
    """Under a steep view a pip of a die's side shows a die edge or more from its top face,
    beyond where `drop_side_faces` looks for side faces, and was read as a die of its own,
    a 1 (simulated table, 350-510 mm from the point under the lens): a sixth die beside a
    1 (Cuatro seed 18; a 1 tells no turn, so every turn of its die is tried), and a 1 for a
    3 beside a 5 (Cuatro seed 17). Such a pip is at most ``side_pip_share`` as strong as
    the top face's (``side_pip_reach``). As strong a pip there is a die of its own; a weak
    pip away from the lens is no side of that die."""
    lens = (np.array([251.7, 505.0]), 494.6)

    def one(x: float, y: float, member: int) -> GridFace:
        return GridFace(1, (x, y), 0.0, 4.3, (member,), 0.0, 1 << 4)

    top, side, far = one(533.3, 276.5, 0), one(517.1, 285.8, 1), one(549.5, 267.2, 2)
    strength = {top: 1488.0, side: 737.0, far: 737.0}
    assert drop_side_faces([top, side, far], lens, TABLE, strength) == [top, None, far]
    assert drop_side_faces([top, side], lens, TABLE, {top: 1488.0, side: 1200.0}) == [top, side]
    off = dataclasses.replace(TABLE, side_pip_reach=0.0, side_face_share=0.0)
    assert drop_side_faces([top, side], lens, off, strength) == [top, side]

    five = GridFace(5, (534.8, 60.7), math.radians(-164), 4.51, (0, 1, 2, 3, 4), 0.1)
    pip = one(521.1, 79.2, 5)
    assert drop_side_faces([five, pip], lens, TABLE, {five: 1616.0, pip: 921.0}) == [five, None]
    assert drop_side_faces([five, pip], lens, off, {five: 1616.0, pip: 921.0}) == [five, pip]


def test_unread_side_of_a_far_die_is_no_die():
    """Referee's table scenes (Cuatro tuning seeds 200324 and 200265): a far die's side,
    its pips foreshortened past any fit, shows 1.26-1.41 die edges from its top, beyond
    ``unread_beside``, and was reported as an unread die of its own, which holds the
    throw back. Within ``unread_side_match`` of where the die shows that side and weak, it
    is that side; an unread die there as strong as a top (seed 200428, a 3 beside a 1) is
    still reported."""
    lens = (np.array([253.47, 505.54]), 494.99)
    one = GridFace(1, (554.44, 61.61), 0.0, 3.769, (0,), 0.0, 16)
    side = GridFace(None, (543.37, 76.21), 0.0, 4.303, (1, 2, 3), 0.0, 0)
    strength = {one: 1455.8, side: 286.3}
    assert drop_side_faces([one, side], lens, TABLE, strength) == [one, None]
    off = dataclasses.replace(TABLE, unread_side_match=0.0)
    assert drop_side_faces([one, side], lens, off, strength) == [one, side]
    assert drop_side_faces([one, side], lens, TABLE, {**strength, side: 1106.0}) == [one, side]

    one = GridFace(1, (503.31, 99.11), 0.0, 4.787, (0,), 0.0, 16)
    die = GridFace(None, (497.76, 125.24), 0.0, 4.303, (1, 2, 3), 0.0, 0)
    assert drop_side_faces([one, die], lens, TABLE, {one: 1623.3, die: 1226.9}) == [one, die]


def test_one_standing_in_front_of_a_die_is_no_side_of_it():
    """Referee's table scene (Cuatro tuning seed 200377): a flat 1 touching a 3 on the side
    towards the lens hides the 3's side and lies within ``side_match`` of it; as a lone pip
    it was dropped as that side's pip, as strong as it is (1.03 of the 3's). Its own die
    shows a pip of a side towards the lens (`_shows_own_sides`, ``front_one_reach``), so it
    is held to ``side_match_share`` as a face of 2+ pips is; a weak one is still a side,
    and so is a pip of a side whose neighbour on that side lies across the view."""
    from vision.dice import _shows_own_sides

    lens = (np.array([253.47, 505.54]), 494.99)
    three = GridFace(3, (529.84, 47.81), math.radians(-116.4), 3.996, (18, 20, 21), 0.001, 273)
    one = GridFace(1, (515.83, 62.15), 0.0, 4.036, (17,), 0.0, 16)
    strength = {three: 1288.0, one: 1322.3}
    assert drop_side_faces([three, one], lens, TABLE, strength) == [three, None]
    assert drop_side_faces([three, one], lens, TABLE, strength, lambda f: True) == [three, one]
    weak = {three: 1288.0, one: 1000.0}
    assert drop_side_faces([three, one], lens, TABLE, weak, lambda f: True) == [three, None]

    def pip(x: float, y: float, strength: float) -> Pip:
        return Pip(x, y, 10.0, 0.9, strength / 10.0)

    top, side = pip(515.83, 62.15, 1322.3), pip(508.03, 71.86, 622.0)
    behind = [pip(528.04, 53.16, 1286.8), pip(519.22, 50.61, 995.3)]
    for pips, shows in ([top, side, *behind], True), ([top, *behind], False):
        layers = [(pips, np.array([(p.x, p.y) for p in pips]))]
        assert _shows_own_sides([(one, [top])], layers, lens, TABLE, one) is shows
    off = dataclasses.replace(TABLE, front_one_reach=0.01)
    layers = [([top, side], np.array([(top.x, top.y), (side.x, side.y)]))]
    assert _shows_own_sides([(one, [top])], layers, lens, off, one) is False

    # seed 200262: a 5's side towards the lens, two of its pips read as lone 1s, one beside
    # the other across the view (``front_one_ahead``), the 5's top pips behind them
    side_one = GridFace(1, (498.53, 43.30), 0.0, 4.294, (0,), 0.0, 16)
    pips = [pip(498.53, 43.30, 654.2), pip(490.55, 40.81, 643.0), pip(502.64, 35.39, 657.5),
            pip(494.50, 32.92, 680.8), pip(505.71, 27.80, 692.8), pip(497.51, 25.33, 706.1)]
    layers = [(pips, np.array([(p.x, p.y) for p in pips]))]
    members = [(side_one, pips[:1])]
    assert _shows_own_sides(members, layers, lens, TABLE, side_one) is False
    across = dataclasses.replace(TABLE, front_one_ahead=0.0)
    assert _shows_own_sides(members, layers, lens, across, side_one) is True


def test_weak_face_on_the_sides_of_the_dice_beside_it_is_no_die():
    """Cuatro seed 277 on the simulated table: blue dice 1 1 1 2 2 read as seven dice in
    every frame of their rest, and the throw was never counted. Two pips of the sides of
    the two touching 2s fitted a 2 between them, and a side of a 1 another 2; each at about
    half the strength of the top faces, beside the lens-facing sides' centres that
    ``side_match`` looks at, but on the dice's bodies as the top view shows them
    (``side_face_share``). As strong a face there is a die of its own. The 1's side is
    also where the 1's die, turned as that 2, shows a side (0.04 edges off), so
    ``one_sides_at_face_turn`` drops it by ``side_match`` as well."""
    lens = (np.array([251.75, 504.87]), 494.55)
    left = GridFace(2, (432.70, 146.29), -0.9312, 4.669, (0, 1), 0.0, 257)
    right = GridFace(2, (451.64, 160.19), -3.7859, 4.675, (2, 3), 0.0, 257)
    between = GridFace(2, (431.71, 168.38), -3.4370, 4.105, (4, 5), 0.0, 257)
    one = GridFace(1, (509.37, 120.28), 0.0, 4.303, (6,), 0.0, 16)
    beside_one = GridFace(2, (498.80, 133.46), -0.8274, 3.905, (7, 8), 0.0, 257)
    faces = [left, right, between, one, beside_one]
    strength = {left: 1311.0, right: 1383.0, between: 683.0, one: 1145.0, beside_one: 657.0}
    assert drop_side_faces(faces, lens, TABLE, strength) == [left, right, None, one, None]
    strong = {**strength, between: 1300.0, beside_one: 1150.0}
    assert drop_side_faces(faces, lens, TABLE, strong) == faces
    off = dataclasses.replace(TABLE, side_face_share=0.0)
    assert drop_side_faces(faces, lens, off, strength) == [left, right, between, one, None]
    off = dataclasses.replace(off, one_sides_at_face_turn=False)
    assert drop_side_faces(faces, lens, off, strength) == faces

    blue = {"body": "#1f4e9a", "pips": "#f5f5f5", "size_mm": 17.26}
    dice = [Die(444.6, 172.35, 2, 233.08, **blue), Die(543.58, 102.24, 1, 88.03, **blue),
            Die(469.54, 164.63, 1, 172.79, **blue), Die(426.36, 159.0, 2, 216.27, **blue),
            Die(500.12, 133.93, 1, 134.45, **blue)]
    assert _read_at_the_usual_tilt(dice) == [1, 1, 1, 2, 2]


def test_farthest_pair_is_numpys_first_farthest():
    """`_dotted_line` finds a row's ends in Python: the pair np.argmax picks among
    np.linalg.norm's distances, ties (evenly spaced rows) included."""
    from vision.dice import _farthest_pair

    rng = np.random.default_rng(11)
    for n in (2, 3):
        for k in range(3000):
            pts = rng.random((n, 2)) * 300
            if k % 3 == 0:
                start, step = rng.random(2) * 300, np.round(rng.random(2) * 20)
                pts = np.array([start + i * step for i in range(n)])
            gaps = np.linalg.norm(pts[:, None] - pts[None], axis=2)
            assert _farthest_pair(pts.tolist()) == tuple(
                int(i) for i in np.unravel_index(np.argmax(gaps), gaps.shape))


def test_inside_hulls_is_each_hull_on_its_own():
    """`_body_reach` tests every ray's tip against every read die's outline at once
    (`_inside_hulls` on `_stacked_hulls`, shorter hulls padded with their last vertex):
    the same answer as each hull's own edges, points on an edge or a vertex included."""
    from vision.dice import _inside_hulls, _stacked_hulls

    def inside(hull: np.ndarray, pts: np.ndarray) -> np.ndarray:
        v = hull.reshape(-1, 2).astype(np.float64)
        e = np.concatenate([v[1:], v[:1]]) - v
        cross = (e[:, 0] * (pts[:, None, 1] - v[:, 1]) - e[:, 1] * (pts[:, None, 0] - v[:, 0]))
        return (cross >= 0).all(axis=1) | (cross <= 0).all(axis=1)

    rng = np.random.default_rng(5)
    for _ in range(300):
        hulls = [cv2.convexHull((rng.random((int(rng.integers(3, 17)), 2)) * 40
                                 + rng.random(2) * 60).astype(np.float32))
                 for _ in range(int(rng.integers(1, 7)))]
        corners = np.vstack([h.reshape(-1, 2) for h in hulls]).astype(np.float64)
        pts = np.vstack([rng.random((80, 2)) * 110, corners,
                         (corners + np.roll(corners, 1, axis=0)) / 2])
        assert np.array_equal(_inside_hulls(_stacked_hulls(hulls), pts),
                              np.array([inside(h, pts) for h in hulls]))


def test_numpy_sums_a_last_axis_of_three_one_after_another():
    """`_body_reach` sums squared Lab distances channel by channel on planes: the same
    float32 values as numpy's sum over a last axis of 3."""
    rng = np.random.default_rng(9)
    lab = (rng.random((6, 4000, 3)) * [100, 200, 200] - [0, 100, 100]).astype(np.float32)
    centre = lab[:, :1] * np.float32(0.9)
    diff = lab - centre
    planes = [np.square(lab[..., k] - centre[..., k]) for k in range(3)]
    assert np.array_equal((diff ** 2).sum(axis=2), (planes[0] + planes[1]) + planes[2])


def test_a_blob_longer_than_a_die_is_not_split():
    """A pip run into a board line is no die's (a die is not that long): the line's blob,
    longer than ``split_max_diagonals`` die diagonals, is not split into it; a pip as dark
    beside a short bar still is."""
    from vision.dice import _rectified_pip_config, find_pips

    image = np.full((120, 240), 200, np.uint8)
    cv2.line(image, (20, 30), (220, 30), 130, 3)  # a board line ~67 mm long at 3 px/mm
    cv2.circle(image, (120, 34), 5, 40, -1)  # a pip run into it
    cv2.line(image, (100, 85), (130, 85), 130, 3)  # a short bar, ~10 mm
    cv2.circle(image, (115, 89), 5, 40, -1)  # a pip run into that
    every = _rectified_pip_config(dataclasses.replace(TABLE, split_max_diagonals=0.0))
    config = _rectified_pip_config(dataclasses.replace(TABLE, split_max_diagonals=1.0))
    assert config.split_max_px == pytest.approx(math.sqrt(2) * 18.5 * 3)
    split = sorted((round(p.x), round(p.y)) for p in find_pips(image, None, every)[0])
    kept = sorted((round(p.x), round(p.y)) for p in find_pips(image, None, config)[0])
    assert split == [(115, 89), (120, 34)]
    assert kept == [(115, 89)]


def test_new_pips_are_those_with_no_known_pip_within_their_radius():
    """`_new_pips` measures only pairs near along x and y: the same answer as measuring
    every pair, pips at exactly their radius from a known one included."""
    from vision.dice import _new_pips

    rng = np.random.default_rng(5)
    for _ in range(200):
        pips = [Pip(*rng.random(2) * 40, rng.uniform(3, 12), 1.0, 50.0)
                for _ in range(rng.integers(0, 12))]
        known = [Pip(*rng.random(2) * 40, 7.0, 1.0, 60.0) for _ in range(rng.integers(0, 12))]
        known += [Pip(p.x + p.diameter / 2, p.y, 7.0, 1.0, 60.0) for p in pips[:2]]
        assert _new_pips(pips, known) == [
            all(math.hypot(p.x - q.x, p.y - q.y) > p.diameter / 2 for q in known)
            for p in pips]


def test_only_pips_chained_to_a_new_pip_with_a_neighbour_are_fitted_faint():
    """`_chained`: steps of at most ``reach`` from a new pip that has another pip within
    ``reach``; a lone new pip's faces have one pip, never kept."""
    from vision.dice import _chained

    pts = np.array([[0.0, 0], [10, 0], [20, 0], [50, 0], [80, 0], [90, 0], [200, 0]])
    assert _chained(pts, [True, False, False, False, False, False, False], 10).tolist() \
        == [0, 1, 2]
    assert _chained(pts, [False] * 5 + [True, False], 10).tolist() == [4, 5]
    assert _chained(pts, [False] * 6 + [True], 10).tolist() == []
    assert _chained(pts, [False, False, False, True, False, False, False], 10).tolist() == []


@pytest.mark.parametrize(("seed", "hard"), [(1092, True), (1058, True), (1117, False)])
def test_faint_search_reads_the_same_with_every_pip_fitted(monkeypatch, seed: int,
                                                           hard: bool) -> None:
    """The faint search fits only pips chained to a new one (`_chained`): the same
    readings as fitting all of them (tuning seeds; 1092 reads a faint 4), and on these
    frames some pips are left out."""
    import vision.dice as dice

    out, area_px, area_mm = _bench_scene(seed, hard=hard)
    left_out = []
    chained = dice._chained

    def counted(pts, start, reach):
        kept = chained(pts, start, reach)
        left_out.append(len(pts) - len(kept))
        return kept

    monkeypatch.setattr(dice, "_chained", counted)
    pruned = read_dice(out.frame, area_px, TABLE, area_mm)
    assert sum(left_out) > 0
    monkeypatch.setattr(dice, "_chained", lambda pts, start, reach: np.arange(len(pts)))
    assert read_dice(out.frame, area_px, TABLE, area_mm) == pruned


#: the table preset reading leaning dice found tilted past doubt (``lean_square_unreadable``)
#: with the value they show, only capped: the dice of the cap's tests are so found
CAPPED = dataclasses.replace(TABLE, lean_square_unreadable=0.0)


def _leaning_confidences(scene, config: DiceConfig, value: int | None = None
                         ) -> tuple[float, list[float]]:
    """The one leaning die's read confidence in a bench scene (``_bench_scene``), checked
    to read ``value`` if given, and the other dice's."""
    out, area_px, area_mm = scene
    readings = [r for r in read_dice(out.frame, area_px, config, area_mm)
                if r.value is not None]
    leaning = [r for r in readings for d in out.truth.dice
               if d.leaning and math.dist(r.centre, d.centre_px) < 12]
    assert len(leaning) == 1 and value in (None, leaning[0].value)
    return leaning[0].confidence, [r.confidence for r in readings if r is not leaning[0]]


@pytest.mark.parametrize("seed", [1178, 1195])
def test_leaning_die_read_as_a_value_is_unsure(seed: int) -> None:
    """A leaning 2 read as a 1 and a leaning 2 read as a 2 (tame tuning seeds 1178 and
    1195: 0.93 and 0.97 sure): each die shows its lifted side beside its top face, so its
    body reaches farther on one side across the view than on the other, which a flat
    die's does not (``lean_outline``). The read is kept but made unsure
    (``lean_outline_confidence``); the flat dice of the frame stay sure. (1178's 1 is
    no square round its pip either, ``lean_square``.)"""
    scene = _bench_scene(seed, hard=False)
    lean, flat = _leaning_confidences(scene, CAPPED)
    assert lean <= TABLE.lean_outline_confidence < 0.5 <= min(flat)
    lean_before, flat_before = _leaning_confidences(
        scene, dataclasses.replace(CAPPED, lean_outline=0.0, lean_square=0.0,
                                   lean_square_lattice=0.0))
    assert lean_before > 0.9 and flat_before == flat


@pytest.mark.parametrize(("seed", "value", "check", "sure_before"), [
    (1037, 1, "lean_square", 0.9), (1115, 1, "lean_square", 0.9),
    (1076, 3, "lean_square_lattice", 0.8), (1099, 3, "lean_square_lattice", 0.8)])
def test_leaning_die_read_with_its_own_value_is_unsure(seed: int, value: int, check: str,
                                                       sure_before: float) -> None:
    """A leaning die read with its own value, which the outline across the view does not
    catch, nor, for a 3, its pitch (``lean_pitch``): a leaning 1 (tame tuning seeds 1037,
    leaning away from the lens, and 1115: 0.93 and 0.94 sure) or 3 (1076 and 1099: 0.87
    sure). Its tilted top face is no square round its pip or middle pip, so away from the
    lens its body (for a 3 followed from past its corner pips) reaches farther at some
    angles than 90 degrees round (``lean_square``, ``lean_square_lattice``). The read is
    kept but made unsure; the flat dice of the frame keep their confidences."""
    scene = _bench_scene(seed, hard=False)
    lean, flat = _leaning_confidences(scene, CAPPED, value=value)
    assert lean <= TABLE.lean_outline_confidence < 0.5
    lean_before, flat_before = _leaning_confidences(
        scene, dataclasses.replace(CAPPED, **{check: 0.0}), value=value)
    assert lean_before > sure_before and flat_before == flat


@pytest.mark.parametrize(("seed", "value"), [(1103, 1), (1195, 2), (1099, 3)])
def test_leaning_die_far_from_square_is_unreadable(seed: int, value: int) -> None:
    """A leaning 1, 2 and 3 read with their own value (tame tuning seeds 1103, 1195 and
    1099): round the pip or the lattice's centre their top face is further from a square
    (0.2-0.3 top-face edges) than a light flat face's, even blurred (under ~0.13), so
    they are unreadable (``lean_square_unreadable``), not only unsure; the flat dice of the
    frame are read as before."""
    out, area_px, area_mm = _bench_scene(seed, hard=False)
    lean = next(d for d in out.truth.dice if d.leaning and d.value == value)

    def read(config: DiceConfig) -> tuple[DieReading, list[DieReading]]:
        readings = read_dice(out.frame, area_px, config, area_mm)
        near = [r for r in readings if math.dist(r.centre, lean.centre_px) < 12]
        assert len(near) == 1
        return near[0], [r for r in readings if r is not near[0]]

    now, flat = read(TABLE)
    before, flat_before = read(CAPPED)
    assert now.value is None
    assert before.value == value and before.confidence <= TABLE.lean_outline_confidence
    assert flat == flat_before


def test_leaning_one_just_off_a_square_is_unsure() -> None:
    """A leaning die read as a 1 (tame tuning seed 1386: 0.94 sure) whose top face is
    0.096-0.097 top-face edges from a square round its pip, just under the 0.1
    ``lean_square`` was first set to; the flat dice of the frame keep their confidences."""
    scene = _bench_scene(1386, hard=False)
    lean, flat = _leaning_confidences(scene, TABLE, value=1)
    assert lean <= TABLE.lean_outline_confidence < 0.5
    lean_before, flat_before = _leaning_confidences(
        scene, dataclasses.replace(TABLE, lean_square=0.1), value=1)
    assert lean_before > 0.9 and flat_before == flat


def _read_at(scene, config: DiceConfig, value: int) -> DieReading | None:
    """The reading at the one flat die showing ``value`` in a bench scene
    (``_bench_scene``), if any."""
    out, area_px, area_mm = scene
    die = [d for d in out.truth.dice if d.value == value and d.visible and not d.leaning]
    assert len(die) == 1
    near = [r for r in read_dice(out.frame, area_px, config, area_mm)
            if math.dist(r.centre, die[0].centre_px) < 12]
    return near[0] if near else None


def _read_unsure_only_with(seed: int, value: int, **off: float) -> None:
    """The flat die showing ``value`` in hard bench scene ``seed`` is read as it, unsure,
    and not read at all with the settings ``off``."""
    scene = _bench_scene(seed, hard=True)
    read = _read_at(scene, TABLE, value)
    assert read is not None and read.value == value and read.confidence < 0.5
    before = _read_at(scene, dataclasses.replace(TABLE, **off), value)
    assert before is None or before.value is None


@pytest.mark.parametrize("value", [2, 3])
def test_flat_black_die_by_its_shadow_is_read(value: int) -> None:
    """A flat black 2 and 3 (hard tuning seed 1204, blurred): their soft shadow, as dark as
    their top, draws their outline out on one side, so round their lattice's centre they
    measure 0.19-0.22 top-face edges from a square, over ``lean_square_unreadable``. A top
    darker than ``lean_square_unreadable_lightness`` is only made unsure, so they are read."""
    scene = _bench_scene(1204, hard=True)
    die = _read_at(scene, TABLE, value)
    assert die is not None and die.value == value and die.confidence < 0.5
    any_top = dataclasses.replace(TABLE, lean_square_unreadable_lightness=0.0)
    before = _read_at(scene, any_top, value)
    assert before is not None and before.value is None


@pytest.mark.parametrize("seed", [1149, 1342])
def test_six_of_unlike_pips_is_read_unsure(seed: int) -> None:
    """Blurred 6s whose columns run into bars, cut into pips 1.65 and 2.3 times unlike in
    size (hard tuning seeds 1149 and 1342: past ``pip_size_ratio``, unreadable). A 6's
    pattern is hard to make of two faces' pips, so up to ``many_pip_size_ratio`` it is
    read, at confidence 0: unlike pips may still be another face's."""
    _read_unsure_only_with(seed, 6, many_pip_size_ratio=0.0)


def test_four_of_unlike_pips_is_not_read() -> None:
    """A dim, blurred 5 beside a 6 (hard tuning seed 1388): four of their pips, 1.9 times
    unlike in size, make a 4's corners, which two faces' pips can: past ``pip_size_ratio``
    only faces of ``many_pips`` (5) are read."""
    read, true = _bench_values(1388, hard=True)
    assert 4 not in true and 4 not in read
    out, area_px, area_mm = _bench_scene(1388, hard=True)
    loose = dataclasses.replace(TABLE, many_pips=4)
    assert 4 in [r.value for r in read_dice(out.frame, area_px, loose, area_mm)]


def test_sharp_five_is_not_taken_into_a_six_of_unlike_pips() -> None:
    """A sharp white 5 beside a 4 (throw_counting seed 8108, the last rest: read at 0.88):
    fitted before the 5 (more pips first), a 6 of its pips and a pip beside it, within
    2.5 x unlike, took them and the 5 was unreadable. 5s and 6s of unlike pips
    (``many_pip_size_ratio``) are fitted from the pips no face of alike pips takes."""
    white = {"body": "#f4f1ea", "pips": "#151515", "size_mm": 15.19}
    dice = [Die(457.6, 237.3, 5, 18.5, **white), Die(486.4, 249.5, 2, 317.0, **white),
            Die(451.7, 54.4, 6, 169.8, **white), Die(466.1, 181.9, 6, 144.0, **white),
            Die(443.5, 219.5, 4, 283.0, **white)]
    assert _read_in_bench_scene(8108, dice) == [2, 4, 5, 6, 6]


def test_faint_five_of_pips_less_round_is_read() -> None:
    """A dim, blurred 5 whose pips are found only over ``faint_contrast`` (hard tuning seed
    1130), 0.7-0.75 round on average, under ``faint_roundness`` (0.75; a faint 2-4 that
    round can be made of blobs round far dice, `test_faint_pips_need_to_be_round`). A 5's
    or 6's pattern is not, so from ``faint_many_roundness`` (0.7) it is read, unsure."""
    _read_unsure_only_with(1130, 5, faint_many_roundness=0.0)


@pytest.mark.parametrize("seed", [1206, 1216])
def test_one_fitted_with_a_side_pip_as_a_lopsided_two_is_read_one(seed: int) -> None:
    """A flat blue 1 beside its own side face (tame tuning seeds 1206 and 1216): its pip and
    a pip of the side fit a 2, whose top face round the 2's lattice centre is no square
    (``lean_square_lattice``: read at 0.4; over ``lean_square_unreadable``, unreadable).
    Round the 1's pip it is one, within ``lopsided_two_one``, so the die is read 1, still
    unsure."""
    scene = _bench_scene(seed, hard=False)
    one = _read_at(scene, TABLE, 1)
    assert one is not None and one.value == 1 and one.confidence < 0.5
    before = _read_at(scene, dataclasses.replace(CAPPED, lopsided_two_one=0.0), 1)
    assert before is not None and before.value == 2


def _reads_at(scene, config: DiceConfig, value: int) -> list[DieReading | None]:
    """The reading at each flat die showing ``value`` in a bench scene (``_bench_scene``)."""
    out, area_px, area_mm = scene
    readings = read_dice(out.frame, area_px, config, area_mm)
    return [next((r for r in readings if math.dist(r.centre, d.centre_px) < 12), None)
            for d in out.truth.dice if d.value == value and d.visible and not d.leaning]


@pytest.mark.parametrize("seed", [1149, 1269])
def test_one_fitted_with_a_foreshortened_side_pip_is_read_one_unsure(seed: int) -> None:
    """A flat 1 (tame tuning seeds 1149 and 1269) whose pip fits a 2 with a pip of the near
    side of the die beyond it, foreshortened there (roundness 0.63 against the 1's
    0.96-0.97), found neither leaning nor lopsided: read as its rounder pip's 1, unsure
    (``uneven_two_roundness``), where it was a 2 at 0.50-0.54."""
    scene = _bench_scene(seed, hard=False)
    ones = _reads_at(scene, TABLE, 1)
    assert all(r is not None and r.value == 1 for r in ones)
    assert min(r.confidence for r in ones) < 0.5
    before = _reads_at(scene, dataclasses.replace(TABLE, uneven_two_roundness=0.0), 1)
    assert any(r is not None and r.value == 2 and r.confidence >= 0.5 for r in before)


def test_small_blurred_pips_are_not_told_apart_by_roundness() -> None:
    """A blurred flat 2 of small pips (speed bench scene 5004: 6.7 and 5.9 px, roundness
    0.69 and 0.93) is no 1 with a side pip: under ``uneven_two_min_pip`` a pip's roundness
    is a few pixels'. The same pips 10 px wide are."""
    from vision.dice import Pip, _uneven_pair

    assert not _uneven_pair([Pip(0.0, 0.0, 6.7, 0.69, 58.0), Pip(30.0, 30.0, 5.9, 0.93, 60.0)],
                            TABLE)
    assert _uneven_pair([Pip(0.0, 0.0, 10.0, 0.69, 58.0), Pip(30.0, 30.0, 10.0, 0.93, 60.0)],
                        TABLE)


def test_faint_lopsided_two_is_left_as_it_is() -> None:
    """A 2 of the faint search's pips (`_with_faint_faces`) has no pip colour's judge to
    tell a lone pip's 1 by: found lopsided, it is left a 2 (`bench/throw_counting.py 30
    --first-seed 8090` stopped at such a 2 with StopIteration)."""
    from vision.dice import GridFace, Pip, _lopsided_twos_as_ones

    two = GridFace(2, (100.0, 100.0), 0.0, 4.0, (0, 1), 0.0, 1 << 0 | 1 << 8)
    faces = [(two, [Pip(10.0, 10.0, 9.0, 0.9, 40.0), Pip(30.0, 30.0, 9.0, 0.9, 40.0)])]
    assert _lopsided_twos_as_ones(np.zeros((4, 4, 3), np.uint8), faces, [two], [],
                                  {id(two)}, None, TABLE) == (faces, [two])


@pytest.mark.parametrize("seed", [1254, 1255])
def test_dim_one_alone_on_its_die_is_read_unsure(seed: int) -> None:
    """A dim, blurred 1 (hard tuning seeds 1254 and 1255: its pip's contrast 56-57, under
    ``single_min_contrast``, 60) with no other blob over ``faint_contrast`` round it is read,
    at most at ``dim_one_confidence``: a dim 2-6 shows its other pips there."""
    _read_unsure_only_with(seed, 1, dim_one_contrast=0.0)


def test_dim_four_with_fainter_pips_is_no_one() -> None:
    """A dim 4 (hard tuning seed 1130) with one pip over ``min_contrast`` and its other
    corners fainter, within 2-3 pitches of it: no dim 1 (``dim_one_reach``, 3 pitches,
    beyond a 2's diagonal)."""
    scene = _bench_scene(1130, hard=True)
    four = _read_at(scene, TABLE, 4)
    assert four is None or four.value != 1
    near = _read_at(scene, dataclasses.replace(TABLE, dim_one_reach=2.0), 4)
    assert near is not None and near.value == 1


@pytest.mark.parametrize(("seed", "value"), [(1178, 2), (1183, 2)])
def test_blurred_two_whose_pips_skirts_dip_its_body_is_read(seed: int, value: int) -> None:
    """A 2 of large blurred pips (hard tuning seeds 1178 and 1183): the closing
    leaves each pip's skirt, wider than its kernel, so the body dips over ``edge_drop``
    towards every pip; closed again with a kernel ``body_close_pips`` of its pips wide it
    is even, and the face is read (unreadable or missed without)."""
    scene = _bench_scene(seed, hard=True)
    read = _read_at(scene, TABLE, value)
    assert read is not None and read.value == value
    before = _read_at(scene, dataclasses.replace(TABLE, body_close_pips=0.0), value)
    assert before is None or before.value != value


def test_one_and_its_side_pip_closed_again_is_no_two() -> None:
    """A sharp 1 and a pip of its die's side as large (hard tuning seed 1207): closed again,
    the side face between them, narrower than the kernel, is filled too; but the body
    falls only towards the side pip (``body_close_alike``), so the 1 is read."""
    scene = _bench_scene(1207, hard=True)
    one = _read_at(scene, TABLE, 1)
    assert one is not None and one.value == 1
    any_fall = _read_at(scene, dataclasses.replace(TABLE, body_close_alike=0.0), 1)
    assert any_fall is not None and any_fall.value == 2


@pytest.mark.parametrize("seed", [1255, 1259])
def test_six_whose_columns_run_into_bars_is_read_unsure(seed: int) -> None:
    """A blurred 6 whose columns run into two bars in the top view, no pip in them that fits
    a lattice (hard tuning seeds 1255 and 1259: missed, unreadable) is read 6 from the bars
    (`_table_bar_sixes`), at most at ``face_bar_confidence``."""
    _read_unsure_only_with(seed, 6, face_bars=False)


@pytest.mark.parametrize("seed", [1032, 1080, 1109, 1148])
def test_side_or_leaning_six_run_into_bars_is_no_six(seed: int) -> None:
    """Sharp 6s whose pips a view squashes run into bars over ``faint_contrast`` too: a
    side face where a read die shows one (tame tuning seeds 1032 and 1080, taken for an
    extra 6), a leaning 6's top whose squashed pips dip between (1109, ``face_bar_even``),
    a leaning 3's side 6 beside its unread top pips (1148, `_on_columns`): no 6 read."""
    read, true = _bench_values(seed)
    assert not Counter(v for v in read if v is not None) - Counter(true)


def test_a_faces_body_reach_is_its_own_whatever_else_is_measured_with_it() -> None:
    """`_body_reach` measures every face of one call at once: a face's reaches (and so
    `_square_amplitudes`' judged pairs) are the same measured alone or beside a larger and
    a smaller face, its samples spaced by its own top and ``die_max_mm``. On a grid set by
    the call's largest and smallest tops, a 2's rays ended a sample farther whenever a 3
    was read beside it, and it went unmeasured."""
    from vision.dice import _body_reach, _stacked_hulls, _TopView

    s = TABLE.rectified_px_per_mm
    frame = np.full((150 * 3, 200 * 3, 3), 70, np.uint8)
    faces = [((40.0, 50.0), 15.2), ((100.0, 50.0), 18.5), ((160.0, 50.0), 13.4)]
    hulls = []
    for (x, y), top in faces:
        corners = np.array([[x - top / 2, y - top / 2], [x + top / 2, y - top / 2],
                            [x + top / 2, y + top / 2], [x - top / 2, y + top / 2]])
        cv2.fillConvexPoly(frame, np.round(corners * s).astype(np.int32), (225, 220, 215))
        hulls.append(cv2.convexHull(corners.astype(np.float32)))
    view = _TopView(np.zeros(2), frame.shape[1::-1], np.eye(3), np.eye(3), None,
                    (np.array([100.0, 300.0]), 600.0), TABLE, None, 0, None)
    angles = np.radians(np.arange(0, 360, 5.0) + 3.0)
    one_ray_set = np.stack([np.cos(angles), np.sin(angles)], axis=1)

    def reach(which: list[int]) -> np.ndarray:
        centres = np.array([faces[k][0] for k in which])
        tops = np.array([faces[k][1] for k in which])
        rays = np.repeat(one_ray_set[None], len(which), axis=0)
        outlines = _stacked_hulls([hulls[k] for k in which])
        return _body_reach(frame, centres, tops, rays, outlines, list(range(len(which))),
                           view, TABLE, stop=TABLE.lean_square_reach)[0][0]

    alone = reach([0])
    assert ((alone / 15.2 > 0.5) & (alone / 15.2 < 0.75)).all()  # a square's half-widths
    assert np.array_equal(reach([0, 1]), alone)
    assert np.array_equal(reach([0, 2]), alone)
    assert np.array_equal(reach([0, 1, 2]), alone)
