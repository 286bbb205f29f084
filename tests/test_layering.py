"""The engine imports only the standard library; the layers point one way."""

import ast
from pathlib import Path

ROOT = Path(__file__).parents[1]
FORBIDDEN = {
    "cardgame": {"pandas", "numpy", "plotly", "simpy", "pyarrow", "sims", "reports"},
    "sims": {"plotly", "reports"},
}


def imported_modules(package: str):
    for path in (ROOT / package).rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    yield path, alias.name.split(".")[0]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                yield path, node.module.split(".")[0]


def test_imports_follow_reports_sims_cardgame():
    for package, forbidden in FORBIDDEN.items():
        if not (ROOT / package).exists():
            continue
        bad = [
            (str(p.relative_to(ROOT)), m) for p, m in imported_modules(package) if m in forbidden
        ]
        assert not bad, f"{package} imports what it must not: {bad}"


def _sims_subpackage_imports() -> dict[str, set[str]]:
    """sims sub-package -> the sims sub-packages its modules import (absolute or relative)."""
    out: dict[str, set[str]] = {}
    for path in (ROOT / "sims").rglob("*.py"):
        parts = path.relative_to(ROOT / "sims").parts
        if len(parts) < 2:
            continue  # a top-level module of sims, not a sub-package
        package = parts[0]
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom):
                if node.level == 0 and node.module and node.module.startswith("sims."):
                    names = [node.module.split(".")[1]]
                elif node.level == 2:  # from ..x import y, or from .. import x
                    names = (
                        [node.module.split(".")[0]] if node.module else [a.name for a in node.names]
                    )
            elif isinstance(node, ast.Import):
                names = [a.name.split(".")[1] for a in node.names if a.name.startswith("sims.")]
            out.setdefault(package, set()).update(n for n in names if n != package)
    return out


def test_no_import_circle_between_sims_packages():
    imports = _sims_subpackage_imports()
    circles = sorted(
        (a, b) for a, targets in imports.items() for b in targets if a in imports.get(b, set())
    )
    assert not circles, f"sims packages import each other: {circles}"
    assert "strategies" in imports.get("search", set())  # the search builds on the scripted


def test_no_private_name_is_imported_from_another_module():
    """A leading underscore means "this module's own": another module asks for a public name."""
    found = []
    for package in ("cardgame", "sims", "reports"):
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ImportFrom) and node.module != "__future__":
                    found += [
                        f"{path.relative_to(ROOT)}: {alias.name}"
                        for alias in node.names
                        if alias.name.startswith("_")
                        and not alias.name.startswith("__")
                        and alias.name != "_native"  # the compiled twins' package, by design
                    ]
    assert not found, f"private names imported across modules: {found}"


def test_reports_read_the_plan_not_the_study_parser():
    """A report reads the plan stored in the manifest (sims/plan.py): it never parses a study
    again, so it needs no strategy module to be importable."""
    parsers = {"sims.study", "sims.sweep"}
    bad = []
    for path in (ROOT / "reports").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = {node.module} | {f"{node.module}.{a.name}" for a in node.names}
            elif isinstance(node, ast.Import):
                names = {a.name for a in node.names}
            else:
                continue
            bad += [f"{path.relative_to(ROOT)}: {n}" for n in sorted(names & parsers)]
    assert not bad, bad
