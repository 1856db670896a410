"""`companion dice PHOTO` as a player would run it."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.conftest import DICE_PHOTOS, run_cli

PHOTO = DICE_PHOTOS / "images" / "valid_valid_50.jpg"


@pytest.mark.skipif(not PHOTO.is_file(), reason="the real dice photos are not on this machine")
def test_json_and_annotated_copy(tmp_path: Path) -> None:
    out = tmp_path / "dice.png"
    result = run_cli("dice", str(PHOTO), "--json", "--annotate", str(out))
    assert result.returncode == 0, result.stderr
    dice = json.loads(result.stdout)["dice"]
    assert dice and all(set(d) == {"value", "confidence", "box", "centre"} for d in dice)
    drawn = cv2.imread(str(out))
    original = cv2.imread(str(PHOTO))
    x, y, w, h = dice[0]["box"]
    assert drawn.shape == original.shape
    assert np.abs(drawn[y, x:x + w].astype(int) - original[y, x:x + w]).sum() > 0  # box drawn


def test_text_output_for_a_photo_without_dice(tmp_path: Path) -> None:
    photo = tmp_path / "empty.png"
    cv2.imwrite(str(photo), np.full((120, 160, 3), 200, np.uint8))
    result = run_cli("dice", str(photo))
    assert result.returncode == 0
    assert result.stdout.startswith("0 dice")


def test_missing_photo_is_one_line_in_words(tmp_path: Path) -> None:
    result = run_cli("dice", str(tmp_path / "nope.jpg"))
    assert result.returncode == 1
    assert "cannot read the photo" in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1
