"""The reports package keeps its modules' privates private (docs/reports-layout.md)."""

import ast
from pathlib import Path

REPORTS = Path(__file__).parents[2] / "reports"


def test_no_module_imports_a_private_name_of_another():
    bad = []
    for path in sorted(REPORTS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            sibling = isinstance(node, ast.ImportFrom) and (
                node.level == 1 or (node.module or "").startswith("reports")
            )
            if sibling:
                bad += [f"{path.name}: {a.name}" for a in node.names if a.name.startswith("_")]
    assert not bad, f"private names imported across reports modules: {bad}"
