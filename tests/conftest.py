import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _main_checkout() -> Path:
    """The main checkout: a git worktree lies elsewhere, but its photos lie beside the main one."""
    found = subprocess.run(["git", "rev-parse", "--git-common-dir"], cwd=ROOT,
                           capture_output=True, text=True)
    if found.returncode != 0:
        return ROOT
    return (ROOT / found.stdout.strip()).resolve().parent


#: The labelled photographs of real dice, beside the checkout (see its README).
DICE_PHOTOS = _main_checkout().parent / "shared" / "data" / "dice"


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
