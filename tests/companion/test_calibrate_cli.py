"""`companion calibrate`: the players' colours learned from a setup photo, then used by
`companion read` and `companion play` (``--calibration``)."""

from __future__ import annotations

import json
from dataclasses import replace

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.layout import load_layout
from vision.sim import CameraPose, Lighting, Scene, render

LAYOUT = load_layout("just4fun")
#: This table's pieces, painted off the layout's colours: a teal "green", a rust "red",
#: a violet "blue" (the layout's own hex values read three of them wrong).
PAINTED = replace(LAYOUT, piece_colours={**LAYOUT.piece_colours, "green": "#108a90",
                                         "red": "#a85020", "blue": "#3a3aa0"})
SETUP = {"A1": "red", "E4": "green", "F6": "blue", "B5": "yellow"}
GAME = {"A2": ["red"], "B3": ["green", "red"], "C4": ["blue"], "D1": ["yellow", "yellow"],
        "E6": ["green"], "F2": ["blue", "green", "yellow"], "C2": ["red"], "D5": ["green"]}


def photo(tmp_path, name: str, stacks: dict[str, list[str]], seed: int):
    w, h = LAYOUT.board_size_mm
    pose = CameraPose(height_mm=620, tilt_deg=22, yaw_deg=10, fov_deg=70, k1=-0.01,
                      target_mm=(w / 2, h / 2))
    scene = Scene(PAINTED, stacks=stacks, lighting=Lighting(), noise_sigma=1.5,
                  blur_sigma=0.4, jpeg_quality=92)
    rendered = render(scene, pose, np.random.default_rng(seed))
    path = tmp_path / name
    cv2.imwrite(str(path), rendered.frame)
    return path, rendered.truth


def read_fields(cli, path, *options) -> dict[str, tuple[str | None, int]]:
    done = cli("read", str(path), "--game", "just4fun", "--json", *options)
    assert done.returncode == 0, done.stderr
    fields = json.loads(done.stdout)["board"]["fields"]
    return {name: (f["top"], f["height"]) for name, f in fields.items()}


def test_colours_learned_at_setup_read_pieces_the_layout_colours_miss(cli, tmp_path):
    setup, _ = photo(tmp_path, "setup.png", {f: [c] for f, c in SETUP.items()}, 3)
    game, truth = photo(tmp_path, "game.png", GAME, 4)
    colours = tmp_path / "colours.json"
    pieces = ",".join(f"{f}={c}" for f, c in SETUP.items())
    done = cli("calibrate", str(setup), "--game", "just4fun", "--pieces", pieces,
               "--out", str(colours))
    assert done.returncode == 0, done.stderr
    assert f"saved {colours}" in done.stdout and "green: Lab" in done.stdout
    true_fields = {name: (t.top, t.height) for name, t in truth.fields.items()}
    assert read_fields(cli, game, "--calibration", str(colours)) == true_fields
    assert read_fields(cli, game) != true_fields


def test_a_setup_piece_that_does_not_read_back_saves_nothing(cli, tmp_path):
    setup, _ = photo(tmp_path, "setup.png", {f: [c] for f, c in SETUP.items()}, 3)
    colours = tmp_path / "colours.json"
    done = cli("calibrate", str(setup), "--game", "just4fun", "--pieces",
               "A1=red,C3=green", "--out", str(colours))  # nothing lies on C3
    assert done.returncode == 1
    assert "nothing saved: C3 reads empty, not one green piece" in done.stderr
    assert not colours.exists()
    done = cli("calibrate", str(setup), "--game", "just4fun", "--pieces", "A1=red,Z9=green",
               "--out", str(colours))
    assert done.returncode == 1 and "the board has no field Z9" in done.stderr


def test_pieces_the_colour_of_a_fields_print_save_nothing(cli, tmp_path):
    """Blue pieces painted nearly the violet of the board's print read back on their own
    field, but with their colour learned every empty violet field would read as a blue
    piece: the calibration is refused, and says which fields."""
    violet_blue = replace(PAINTED, piece_colours={**PAINTED.piece_colours, "blue": "#9070c0"})
    setup = {"A1": "red", "E4": "green", "C4": "blue", "B5": "yellow"}
    w, h = LAYOUT.board_size_mm
    pose = CameraPose(height_mm=620, tilt_deg=22, yaw_deg=10, fov_deg=70, k1=-0.01,
                      target_mm=(w / 2, h / 2))
    scene = Scene(violet_blue, stacks={f: [c] for f, c in setup.items()}, lighting=Lighting(),
                  noise_sigma=1.5, blur_sigma=0.4, jpeg_quality=92)
    path = tmp_path / "setup.png"
    cv2.imwrite(str(path), render(scene, pose, np.random.default_rng(3)).frame)
    colours = tmp_path / "colours.json"
    done = cli("calibrate", str(path), "--game", "just4fun", "--pieces",
               ",".join(f"{f}={c}" for f, c in setup.items()), "--out", str(colours))
    assert done.returncode == 1 and not colours.exists()
    assert "the empty violet fields C1, " in done.stderr and "read as blue pieces" in done.stderr


@pytest.mark.parametrize("content, message", [
    ("not json", "is not a colour calibration file"),
    (json.dumps({"colours_lab": {"white": [90, 0, 5]}}), "has no colour for black"),
])
def test_play_refuses_a_calibration_it_cannot_use(tmp_path, capsys, content, message):
    path = tmp_path / "colours.json"
    path.write_text(content)
    assert main(["play", "--game", "muehle", "--players", "white,black", "--simulate",
                 "--autoplay", "--calibration", str(path), "--log",
                 str(tmp_path / "games.sqlite"), "--port", "0"]) == 1
    assert message in capsys.readouterr().err
