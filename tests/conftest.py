import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: The labelled photographs of real dice, beside the checkout (see its README).
DICE_PHOTOS = ROOT.parent / "shared" / "data" / "dice"


def run_cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run the companion CLI as a person would, in a subprocess."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "companion", *args],
        capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT,
    )


@pytest.fixture
def cli():
    return run_cli
