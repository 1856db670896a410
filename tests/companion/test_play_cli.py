"""`companion play --simulate --autoplay`, `companion export` and `companion score`."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.core import find_game
from companion.gamelog import GameLog
from companion.simtable import TABLE_LIGHT, table_pose
from vision.sim import Scene, render

ROOT = Path(__file__).resolve().parents[2]


def test_play_simulate_autoplay_then_export(tmp_path):
    log = tmp_path / "games.sqlite"
    done = subprocess.run(
        [sys.executable, "-m", "companion", "play", "--game", "muehle", "--players",
         "white,black", "--simulate", "--autoplay", "--seed", "3", "--max-moves", "4",
         "--port", "0", "--pin", "1234", "--log", str(log)],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "PIN 1234" in out and "http://127.0.0.1:" in out
    assert out.count("white: place") == 2 and out.count("black: place") == 2
    assert "same as the scripted game: yes" in out
    record_path = tmp_path / "record.json"
    assert main(["export", "--log", str(log), "--out", str(record_path)]) == 0
    record = json.loads(record_path.read_text())
    assert record["game"] == "muehle" and len(record["moves"]) == 4


def test_autoplay_needs_the_simulated_table(capsys):
    assert main(["play", "--game", "muehle", "--players", "white,black", "--autoplay"]) == 1
    assert "--autoplay needs the simulated table" in capsys.readouterr().err


def test_the_simulated_camera_with_real_pins_says_how_to_simulate_off_a_pi(capsys, tmp_path):
    args = ["play", "--game", "muehle", "--players", "white,black", "--camera", "sim",
            "--autoplay", "--log", str(tmp_path / "games.sqlite"), "--port", "0"]
    assert main(args) == 1
    assert "--simulate" in capsys.readouterr().err


def finished_photo(tmp_path, name, players, seed):
    cls = find_game(name)
    game = cls(players, dict(cls.random_play_options))
    rng = random.Random(seed)
    while not game.is_over:
        game.apply(game.random_move(rng))
    pose = table_pose(game.layout)
    scene = Scene(game.layout, stacks={f: list(s) for f, s in game.stacks().items()},
                  lighting=TABLE_LIGHT, noise_sigma=1.0, blur_sigma=0.4, jpeg_quality=None,
                  seed=seed)
    frame = render(scene, pose, np.random.default_rng(seed)).frame
    path = tmp_path / f"{name}.png"
    cv2.imwrite(str(path), frame)
    return game, path, pose


@pytest.mark.parametrize("name, players, seed", [
    ("muehle", ["white", "black"], 3), ("just4fun", ["red", "blue"], 2),
])
def test_score_a_finished_board_from_a_photo(tmp_path, capsys, name, players, seed):
    game, photo, pose = finished_photo(tmp_path, name, players, seed)
    assert main(["score", str(photo), "--game", name, "--players", ",".join(players),
                 "--k1", str(pose.k1)]) == 0
    out = capsys.readouterr().out
    for player, score in game.scores().items():
        assert f"{player}: {score.total} points" in out


def test_spexxx_score_says_the_block_bonus_is_not_in_a_photo(tmp_path, capsys):
    game, photo, pose = finished_photo(tmp_path, "spexxx", ["black", "white"], 3)
    assert main(["score", str(photo), "--game", "spexxx", "--players", "black,white",
                 "--k1", str(pose.k1)]) == 0
    out = capsys.readouterr().out
    assert "block bonus is not included" in out
    block_points = {p: sum(line.points for line in s.lines if "block" in line.label)
                    for p, s in game.scores().items()}
    for player, score in game.scores().items():
        assert f"{player}: {score.total - block_points[player]} points" in out


def test_score_refuses_a_missing_photo(capsys, tmp_path):
    assert main(["score", str(tmp_path / "none.png"), "--game", "cuatro",
                 "--players", "red,blue"]) == 1
    assert "no photo" in capsys.readouterr().err


def test_play_resume_continues_the_logged_game(tmp_path, capsys):
    log = str(tmp_path / "games.sqlite")
    common = ["--simulate", "--autoplay", "--seed", "5", "--port", "0", "--log", log]
    assert main(["play", "--game", "just4fun", "--players", "red,blue", "--max-moves", "2",
                 *common]) == 0
    first = capsys.readouterr().out
    assert main(["play", "--resume", "--max-moves", "4", *common]) == 0
    second = capsys.readouterr().out
    assert first.count(": place") + first.count("set a piece aside") == 2
    assert "same as the scripted game: yes" in second
    with GameLog(log) as games:
        assert len(games.games()) == 1 and len(games.moves(1)) == 4
    assert main(["play", "--resume", "--simulate", "--autoplay", "--seed", "6", "--port", "0",
                 "--log", log]) == 1
    assert "not the simulated game of this --seed" in capsys.readouterr().err


def test_resume_with_a_game_given_starts_it_when_nothing_is_unfinished(tmp_path, capsys):
    log = str(tmp_path / "games.sqlite")
    assert main(["play", "--resume", "--game", "muehle", "--players", "white,black",
                 "--simulate", "--autoplay", "--seed", "3", "--max-moves", "2", "--port", "0",
                 "--log", log]) == 0
    assert "same as the scripted game: yes" in capsys.readouterr().out
    with GameLog(log) as games:
        assert len(games.games()) == 1 and len(games.moves(1)) == 2


def test_the_terminal_says_when_the_dice_were_put_right(capsys):
    from companion.commands.play import _printer
    from companion.session import Session

    session = Session(find_game("cuatro")(["red", "blue"]))
    session.listeners.append(_printer(session))
    session.throw_settled((1, 2, 4, 5, 6))
    session.correct_throw((1, 2, 2, 5, 6))
    session.correct_throw((3, 3, 3, 5, 6), missed=True)
    out = capsys.readouterr().out
    assert "(the dice show 1 2 2 5 6: the last throw was read as 1 2 4 5 6)" in out
    assert "(the dice show 3 3 3 5 6: a throw the camera missed)" in out
