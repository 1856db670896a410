"""The learned face check of the close-up reader (`vision/dice_faces.py`)."""

from __future__ import annotations

import csv
import dataclasses
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.conftest import DICE_PHOTOS
from vision.dice import DiceConfig, DiceInputError, read_dice
from vision.dice_faces import hog

CLOSEUP = DiceConfig.preset("closeup")
needs_photos = pytest.mark.skipif(not (DICE_PHOTOS / "boxes.csv").is_file(),
                                  reason="the real dice photos are not on this machine")


def _labelled(prefix: str, every: int) -> dict[str, list[tuple[int, float, float]]]:
    """Every ``every``-th photo of a split in name order (picked by rule): its dice as
    (value, centre x, centre y)."""
    dice: dict[str, list[tuple[int, float, float]]] = {}
    with open(DICE_PHOTOS / "boxes.csv") as f:
        for row in csv.DictReader(f):
            if Path(row["image"]).name.startswith(prefix):
                dice.setdefault(row["image"], []).append(
                    (int(row["value"]), (float(row["x1"]) + float(row["x2"])) / 2,
                     (float(row["y1"]) + float(row["y2"])) / 2))
    return {image: dice[image] for image in sorted(dice)[::every]}


def test_the_closeup_setup_uses_the_shipped_model() -> None:
    assert CLOSEUP.face_model
    assert (Path(__file__).resolve().parents[2] / "vision" / "dice_configs"
            / CLOSEUP.face_model).is_file()


@needs_photos
def test_model_reads_the_labelled_training_dice() -> None:
    right = total = 0
    for image, dice in _labelled("train_", 10).items():
        readings = read_dice(cv2.imread(str(DICE_PHOTOS / image)), config=CLOSEUP)
        for value, x, y in dice:
            total += 1
            near = [r for r in readings if np.hypot(r.centre[0] - x, r.centre[1] - y) < 15]
            right += [r.value for r in near] == [value]
    assert total > 80 and right / total >= 0.95


def test_no_dice_gives_nothing() -> None:
    rng = np.random.default_rng(0)
    wood = cv2.GaussianBlur(rng.normal(190, 12, (480, 640)).astype(np.float32), (0, 0), 3)
    frame = cv2.cvtColor(np.clip(wood, 0, 255).astype(np.uint8), cv2.COLOR_GRAY2BGR)
    assert read_dice(frame, config=CLOSEUP) == []


@needs_photos
@pytest.mark.parametrize("side", ["left", "right", "top", "bottom"])
def test_die_half_outside_the_frame_is_unreadable(side: str) -> None:
    image = cv2.imread(str(DICE_PHOTOS / "images" / "valid_valid_50.jpg"))
    for die in [r for r in read_dice(image, config=CLOSEUP) if r.value is not None]:
        x, y, w, h = die.box
        cx, cy = round(die.centre[0]), round(die.centre[1])
        cut, (ox, oy) = {"left": (image[:, cx:], (cx, 0)), "right": (image[:, :cx], (0, 0)),
                         "top": (image[cy:], (0, cy)), "bottom": (image[:cy], (0, 0))}[side]
        near = [r for r in read_dice(cut, config=CLOSEUP)
                if abs(r.centre[0] + ox - cx) < w and abs(r.centre[1] + oy - cy) < h]
        assert all(r.value is None for r in near), (die, near)


def test_a_missing_model_is_refused_in_words() -> None:
    config = dataclasses.replace(CLOSEUP, face_model="no_such_model.npz")
    with pytest.raises(DiceInputError, match="face model"):
        read_dice(np.full((120, 160, 3), 180, np.uint8), config=config)


def test_hog_of_a_flat_patch_is_zero_and_finite() -> None:
    features = hog(np.full((2, 32, 32), 200, np.uint8))
    assert features.shape == (2, 324) and np.all(features == 0)


@needs_photos
@pytest.mark.parametrize("photo", ["valid_valid_45", "train_six_59"])
def test_a_one_near_the_frame_edge_is_read_other_faces_there_are_not(photo: str) -> None:
    """A 1 whose lattice one frame edge cuts 1.5 pip diameters from its pip is read (a 3's
    or 5's corner pip would show on the far side); a 2-6 cut as near is never read."""
    image = cv2.imread(str(DICE_PHOTOS / "images" / f"{photo}.jpg"))
    dice = [r for r in read_dice(image, config=CLOSEUP) if r.value is not None]
    assert 1 in [r.value for r in dice] and len(dice) >= 3
    for die in dice:
        d = die.box[2] / (2 * CLOSEUP.face_half)
        cx, cy = die.centre
        for gap in (1.5, 2.0) if die.value == 1 else (1.0, 1.5, 2.0):
            e = round(gap * d)
            for cut, (ox, oy) in [(image[:, int(cx) - e:], (int(cx) - e, 0)),
                                  (image[:, :int(cx) + e + 1], (0, 0)),
                                  (image[int(cy) - e:], (0, int(cy) - e)),
                                  (image[:int(cy) + e + 1], (0, 0))]:
                near = [r.value for r in read_dice(np.ascontiguousarray(cut), config=CLOSEUP)
                        if abs(r.centre[0] + ox - cx) < 2.5 * d
                        and abs(r.centre[1] + oy - cy) < 2.5 * d]
                if die.value == 1:
                    assert near == [1], (die, gap, near)
                else:
                    assert all(v is None for v in near), (die, gap, near)


@needs_photos
@pytest.mark.parametrize("angle", [45, 90, 135])
def test_a_blurred_die_with_faint_pips_is_read(angle: float) -> None:
    """A shaken, dim photo: the 3's pips are smeared under ``min_contrast``; the faint
    search reads it (and the 2 stays a 2), the first search alone misses it."""
    image = cv2.imread(str(DICE_PHOTOS / "images" / "valid_valid_45.jpg"))
    sharp = [r for r in read_dice(image, config=CLOSEUP) if r.value in (2, 3)]
    kernel = np.zeros((11, 11), np.float32)
    kernel[5, :] = 1
    kernel = cv2.warpAffine(kernel, cv2.getRotationMatrix2D((5, 5), angle, 1), (11, 11))
    blurred = cv2.filter2D(image, -1, kernel / kernel.sum())
    blurred = cv2.addWeighted(blurred, 0.55, np.full_like(blurred, 200), 0.45, 0)

    def near(readings: list, die) -> list:
        return [r.value for r in readings if np.hypot(r.centre[0] - die.centre[0],
                                                      r.centre[1] - die.centre[1]) < 15]

    with_faint = read_dice(blurred, config=CLOSEUP)
    without = read_dice(blurred, config=dataclasses.replace(CLOSEUP, face_faint_contrast=0))
    assert sorted(r.value for r in sharp) == [2, 3]
    for die in sharp:
        assert near(with_faint, die) == [die.value]
    assert near(without, [r for r in sharp if r.value == 3][0]) == []


def _smeared_die(value: int, angle: float, smear: int) -> np.ndarray:
    """A white die ~46 px across (a close-up's) on a grey table, its 6's columns (or 4's)
    along its turned y axis, pips 9 px, smeared ``smear`` px along the columns (a rolling
    die): a 6's pips 12 px apart run into two bars with no dip between them."""
    rng = np.random.default_rng(0)
    image = np.full((480, 640), 150, np.float32)
    turn = np.radians(angle)
    rot = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
    centre = np.array([320.0, 240.0])
    corners = np.array([(-23, -23), (23, -23), (23, 23), (-23, 23)]) @ rot.T + centre
    cv2.fillConvexPoly(image, np.round(corners * 16).astype(np.int32), 225, cv2.LINE_AA, 4)
    pips = {6: [(-11, -12), (-11, 0), (-11, 12), (11, -12), (11, 0), (11, 12)],
            4: [(-12, -12), (-12, 12), (12, -12), (12, 12)]}[value]
    for pip in pips:
        x, y = np.round((rot @ np.array(pip, float) + centre) * 16).astype(int)
        cv2.circle(image, (int(x), int(y)), 72, 60, -1, cv2.LINE_AA, 4)
    kernel = np.zeros((2 * smear + 1, 2 * smear + 1), np.float32)
    along = rot @ np.array([0.0, 1.0])
    for s in np.linspace(-smear / 2, smear / 2, 4 * smear + 1):
        kernel[int(round(smear + s * along[1])), int(round(smear + s * along[0]))] = 1
    image = cv2.filter2D(image, -1, kernel / kernel.sum()) + rng.normal(0, 2, image.shape)
    return cv2.cvtColor(np.clip(image, 0, 255).astype(np.uint8), cv2.COLOR_GRAY2BGR)


@pytest.mark.parametrize("angle", [0, 30, 60, 100])
def test_a_six_whose_columns_run_into_bars_is_read_unsure(angle: float) -> None:
    """Neither search finds a pip in the two bars, so without `face_bars` the die is
    not read; with it the bars are a 6's columns, read at ``face_bar_confidence``."""
    frame = _smeared_die(6, angle, 6)
    without = read_dice(frame, config=dataclasses.replace(CLOSEUP, face_bars=False))
    assert without == []
    assert [(r.value, r.confidence) for r in read_dice(frame, config=CLOSEUP)] == [
        (6, CLOSEUP.face_bar_confidence)]


@pytest.mark.parametrize("smear", [20, 26])
@pytest.mark.parametrize("angle", [0, 30, 60, 100])
def test_a_four_whose_columns_run_into_bars_is_no_six(angle: float, smear: int) -> None:
    """A 4's columns run together only under a smear spanning their gap: the bars are
    longer than a 6's, and their middle, the gap's, is fainter."""
    assert 6 not in [r.value for r in read_dice(_smeared_die(4, angle, smear), config=CLOSEUP)]
