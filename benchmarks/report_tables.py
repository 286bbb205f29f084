"""Every table a report computes (``reports.analysis.analyse``), kept and compared, and the
report's strategy and seat statistics timed one by one: a faster report must print the same
tables to the last bit.

    python benchmarks/report_tables.py dump FOLDER TABLES.pkl     # the tables of this code
    python benchmarks/report_tables.py compare FOLDER TABLES.pkl  # this code's against them
    python benchmarks/report_tables.py time FOLDER                # seconds per statistic

``--reports DIR``: the ``reports`` package of another source tree (``git archive COMMIT
reports | tar -x -C DIR``), the code before a change, with this tree's ``sims``.

``compare`` prints one line per table that differs (or "identical: N tables") and exits 1
when any does; the frames are compared exactly (values, dtypes, index, column order)."""

from __future__ import annotations

import argparse
import pickle
import resource
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd

# benchmarks/sims.py is named like the package: keep this folder off the import path
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]


def _tables(folder: Path) -> dict[str, Any]:
    """Every frame and dict of the folder's analysis, by a flat name (a check's under its
    name)."""
    from reports.analysis import analyse
    from sims.results import load_results

    print(f"reports from {sys.modules['reports'].__file__}", file=sys.stderr)

    def flat(analysis, prefix: str) -> dict[str, Any]:
        out: dict[str, Any] = {f"{prefix}{k}": v for k, v in analysis.tables.items()}
        out.update({f"{prefix}sweep:{k}": v for k, v in analysis.sweep_tables.items()})
        out[f"{prefix}edge_test"] = analysis.edge_test
        for name, check in analysis.checks.items():
            out.update(flat(check, f"{prefix}check:{name}:"))
        return out

    return flat(analyse(load_results(folder, destinations=False)), "")


def _differs(before: Any, after: Any) -> str:
    """'' when identical, else what differs."""
    if isinstance(before, pd.DataFrame) and isinstance(after, pd.DataFrame):
        try:
            pd.testing.assert_frame_equal(after, before, check_exact=True)
        except AssertionError as error:
            return " ".join(str(error).split())[:400]
        return ""
    same = pickle.dumps(before) == pickle.dumps(after)
    return "" if same else f"{before!r} != {after!r}"[:400]


def _time(folder: Path) -> None:
    """Each statistic of the report's seat stages on the folder's base rows, in order."""
    from reports import analysis as an
    from reports import ratings as rt
    from reports.margins import margins_of
    from reports.points import round_shares, score_parts
    from reports.seat_order import seat_advantage, seat_edge
    from reports.swaps import lineup_swaps
    from reports.wins import head_to_head, win_rates
    from sims.results import load_results

    start = time.perf_counter()
    results = load_results(folder, destinations=False)
    base = an._base_rules(results.seats)
    print(f"read {len(base):,} seat rows: {time.perf_counter() - start:.1f} s", flush=True)
    margins = margins_of(results.study)
    pairing = results.study.get("pairing", "none")
    kept: dict[str, Any] = {}
    steps = [
        ("win_rates", lambda: win_rates(base, margins)),
        ("head_to_head", lambda: head_to_head(base)),
        ("rating_fits", lambda: kept.setdefault("fits", rt.rating_fits(base))),
        ("pooling_test", lambda: rt.pooling_test(base, kept["fits"])),
        ("pooled_fit", lambda: rt.pooled_fit(base)),
        ("pairwise", lambda: rt.pairwise(base, margins, kept["fits"])),
        ("lineup_swaps", lambda: lineup_swaps(base, pairing, margins)),
        ("seat_edge", lambda: seat_edge(base, margins)),
        ("seat_advantage", lambda: seat_advantage(base)),
        ("score_parts", lambda: score_parts(base)),
        ("round_shares", lambda: round_shares(base)),
    ]
    for name, step in steps:
        start = time.perf_counter()
        step()
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        took = time.perf_counter() - start
        print(f"{name}: {took:.2f} s (peak so far {peak:,.0f} MB)", flush=True)


def _use_reports(tree: Path) -> None:
    """Import ``reports`` (and so its modules) from ``tree``, ahead of the installed one."""
    import importlib.machinery
    import importlib.util

    spec = importlib.machinery.PathFinder.find_spec("reports", [str(tree)])
    if spec is None or spec.loader is None:
        raise SystemExit(f"no reports package in {tree}")
    module = importlib.util.module_from_spec(spec)
    sys.modules["reports"] = module
    spec.loader.exec_module(module)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=["dump", "compare", "time"])
    parser.add_argument("folder", type=Path)
    parser.add_argument("tables", type=Path, nargs="?")
    parser.add_argument("--reports", type=Path, help="a source tree whose reports to use")
    args = parser.parse_args(argv)
    if args.reports is not None:
        _use_reports(args.reports)
    if args.action == "time":
        _time(args.folder)
        return 0
    if args.tables is None:
        parser.error("dump and compare need a TABLES.pkl")
    tables = _tables(args.folder)
    if args.action == "dump":
        args.tables.write_bytes(pickle.dumps(tables))
        print(f"{len(tables)} tables -> {args.tables}")
        return 0
    before = pickle.loads(args.tables.read_bytes())
    bad = 0
    for name in sorted(set(before) | set(tables)):
        if name not in tables or name not in before:
            print(f"{name}: only {'before' if name in before else 'after'}")
            bad += 1
            continue
        why = _differs(before[name], tables[name])
        if why:
            print(f"{name}: {why}")
            bad += 1
    if not bad:
        print(f"identical: {len(tables)} tables")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
