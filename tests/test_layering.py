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
