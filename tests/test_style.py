"""The code base stays `ruff check` clean."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_check_is_clean():
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if not Path(ruff).exists():
        pytest.fail("ruff is not installed: pip install -e '.[test]'")
    result = subprocess.run([ruff, "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("package,others", [
    ("vision", ("companion", "hardware", "web")),
    ("hardware", ("companion", "vision", "web")),
    ("web", ("companion", "vision", "hardware")),
])
def test_data_flows_one_way(package, others):
    """vision, hardware and web import none of each other nor the rules core (companion
    imports them): loading every module of the package must load none of the others."""
    code = (f"import importlib, pkgutil, sys, {package}\n"
            f"for m in pkgutil.walk_packages({package}.__path__, '{package}.'):\n"
            "    importlib.import_module(m.name)\n"
            f"print(sorted(n for n in sys.modules if n.split('.')[0] in {others!r}))")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
