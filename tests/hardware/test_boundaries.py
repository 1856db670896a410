"""hardware/ stays standalone: it imports nothing from the other project packages."""

import ast
from pathlib import Path

HARDWARE = Path(__file__).resolve().parents[2] / "hardware"
FORBIDDEN = {"companion", "vision", "web"}


def test_hardware_imports_no_other_project_package():
    offenders = []
    for path in sorted(HARDWARE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] in FORBIDDEN]
    assert offenders == []
    assert len(list(HARDWARE.rglob("*.py"))) >= 6  # the scan saw the package
