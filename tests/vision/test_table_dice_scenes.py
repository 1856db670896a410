"""bench/table_dice_scenes.py: it runs and prints its figures, and scores as it says."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

from vision.dice import DieReading

BENCH = Path(__file__).resolve().parents[2] / "bench" / "table_dice_scenes.py"


def _bench():
    spec = importlib.util.spec_from_file_location("table_dice_scenes", BENCH)
    module = sys.modules[spec.name] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_runs_and_prints_the_figures():
    done = subprocess.run([sys.executable, str(BENCH), "--scenes", "2", "--first-seed", "200000",
                           "--verbose"], capture_output=True, text=True, timeout=120,
                          cwd=BENCH.parents[1])
    assert done.returncode == 0, done.stderr
    assert re.search(r"cuatro table scenes 200000-200001 \(2 scenes, 5 dice\): per die \d+/10 = "
                     r"[\d.]+ %, whole throws \d/2 = [\d.]+ %; read wrong with confidence >= "
                     r"0.5: \d+; right read under 0.5: \d+; all right and sure \d/2", done.stdout)
    assert re.search(r"speed \(one thread, CPU time\): read median [\d.]+ ms; reference .* "
                     r"ratio [\d.]+", done.stdout)


def reading(value: int | None, x: float, confidence: float = 0.9) -> DieReading:
    return DieReading(value, confidence, (int(x) - 8, 92, 16, 16), (x, 100.0))


def test_a_side_read_beside_its_top_is_wrong_and_sure():
    """The referee's error class: an extra sure reading beside a die read right."""
    truth = [(3, 90, 90, 110, 110), (5, 140, 90, 160, 110)]
    c = _bench().judge([reading(3, 100), reading(5, 150), reading(2, 122, 0.6)], truth)
    assert (c["right"], c["dice"], c["wrong sure"], c["right unsure"]) == (2, 3, 1, 0)
    c = _bench().judge([reading(3, 100, 0.3), reading(6, 150), reading(2, 122, 0.4)], truth)
    assert (c["right"], c["dice"], c["wrong sure"], c["right unsure"]) == (1, 3, 1, 1)
