"""``companion selftest`` run as a person would, in a subprocess, on virtual pins."""

import os
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


def selftest(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "companion", "selftest", *args],
                          capture_output=True, text=True, timeout=60, env=env, cwd=ROOT)


@pytest.fixture
def quick_config(tmp_path):
    """A short long-press so the simulated hold takes a fraction of a second."""
    path = tmp_path / "panel.toml"
    path.write_text("[buttons]\nlong_press = 0.3\n")
    return path


@pytest.fixture
def frames(tmp_path):
    folder = tmp_path / "frames"
    folder.mkdir()
    cv2.imwrite(str(folder / "0001.png"), np.full((48, 64, 3), 100, np.uint8))
    return folder


def test_selftest_simulated_checks_everything(quick_config, frames, tmp_path):
    saved = tmp_path / "grab.png"
    result = selftest("--simulate", "--camera", f"replay:{frames}", "--panel-config",
                      str(quick_config), "--timeout", "5", "--save-frame", str(saved))
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "Board Companion self-test (virtual pins)"
    ok = [line for line in lines if line.startswith("  [ok  ]")]
    # pins, 4 seats, 3 colours, 5 throw LEDs, buzzer, 3 buttons, long press, camera
    assert len(ok) == 19
    assert "  [ok  ] seat LED 4: GPIO22" in lines
    assert "  [ok  ] long press of confirm: GPIO23" in lines
    assert any("camera replay:" in line and "64x48 frame, mean brightness 100" in line
               for line in ok)
    assert lines[-1] == "19 ok, 0 failed, 0 to check by eye or ear, 0 skipped"
    assert cv2.imread(str(saved)).shape == (48, 64, 3)


def test_selftest_reports_what_fails(quick_config, tmp_path):
    result = selftest("--panel-config", str(quick_config), "--camera",
                      f"replay:{tmp_path / 'nothing'}")
    assert result.returncode == 1
    assert ("  [FAIL] GPIO pins: no GPIO here (not a Raspberry Pi); run with --simulate to use "
            "virtual pins") in result.stdout.splitlines()
    assert "no such file or folder" in result.stdout
    assert "Traceback" not in result.stderr


def test_selftest_broken_config_is_one_line(tmp_path):
    path = tmp_path / "panel.toml"
    path.write_text("[buttons]\nconfirm = 99\n")
    result = selftest("--simulate", "--panel-config", str(path))
    assert result.returncode == 1
    assert result.stderr.strip().count("\n") == 0
    assert "buttons.confirm = 99 is not a usable GPIO pin" in result.stderr


def test_selftest_grabs_a_frame_of_the_simulated_table(quick_config, tmp_path):
    saved = tmp_path / "table.png"
    result = selftest("--simulate", "--camera", "sim", "--panel-config", str(quick_config),
                      "--timeout", "5", "--save-frame", str(saved))
    assert result.returncode == 0, result.stdout + result.stderr
    assert any(line.startswith("  [ok  ] camera sim: 1280x960 frame") for line in
               result.stdout.splitlines())
    assert cv2.imread(str(saved)).shape == (960, 1280, 3)
