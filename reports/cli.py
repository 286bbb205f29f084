"""`cardgame report`: one self-contained HTML page (or Markdown) from a results folder.

Without a results folder, it runs the default study first (resuming it if a run was
stopped), so the README's main command ends with a report to open.
"""

from __future__ import annotations

import argparse
import ctypes
import sys
import time
from pathlib import Path

from sims.plan import DEFAULT_STUDY  # light: the plan module imports no pandas or SimPy


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "report",
        help="write a balance report (HTML or Markdown) from simulation results",
        description="Analyse a results folder. Without one, the default study "
        f"{DEFAULT_STUDY!r} is run first.",
    )
    parser.add_argument("results", nargs="?", help="a results folder from cardgame simulate")
    parser.add_argument("--out", help="the report file (default: report.html or report.md)")
    parser.add_argument("--format", choices=("html", "md"), default="html")
    parser.add_argument("--workers", type=int, help="for running the default study")
    parser.add_argument(
        "--accept-changes",
        action="store_true",
        help="read a results folder even if its files changed since its run ended",
    )
    parser.set_defaults(run=main)


class _Stages:
    """One line per stage on stderr, each with the seconds since the start, so a report on a
    loaded machine is never silent for long. The lines of the first stages are held until
    the results folder has been read and checked: bad input stays one line."""

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.held: list[str] | None = []

    def __call__(self, stage: str) -> None:
        line = f"report: {stage} ... ({time.perf_counter() - self.start:.1f} s)"
        if self.held is not None:
            self.held.append(line)
        else:
            print(line, file=sys.stderr, flush=True)

    def release(self) -> None:
        for line in self.held or []:
            print(line, file=sys.stderr, flush=True)
        self.held = None


M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_THRESHOLD = -1, -2, -3  # glibc's mallopt parameters


def keep_freed_memory() -> bool:
    """Have glibc's malloc keep the memory a report frees for its next columns.

    A report allocates and frees million-row columns over and over. By default glibc maps
    each big block afresh and hands it back when freed, so every column is page-faulted in
    again. At a million games that was 23% of the report's CPU, all of it system time; with
    freed memory kept it was 13%, for 3% more peak memory (docs/scaling.md). Returns whether
    the settings took (glibc on Linux only; elsewhere nothing changes)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    settings = ((M_MMAP_THRESHOLD, 1 << 30), (M_TRIM_THRESHOLD, 2**31 - 1), (M_TOP_PAD, 256 << 20))
    return all(mallopt(name, value) == 1 for name, value in settings)


def main(args: argparse.Namespace) -> int:
    stage = _Stages()
    keep_freed_memory()
    stage("loading pandas, scipy and plotly")
    # Imported here, not at the top: `cardgame --help` must not pay for pandas and plotly.
    from sims.results import load_results

    from . import html, markdown
    from .analysis import analyse
    from .checks import check_out_path, check_reportable
    from .margins import margins_of
    from .sections import build

    out = Path(args.out or f"report.{args.format}")
    check_out_path(out)
    folder = Path(args.results) if args.results else _default_results(args.workers)
    stage(f"reading {folder}")
    # every problem with the folder is one clear line (a change since its run ended too);
    # the destinations table, the longest, is summed from its files a chunk at a time
    # (reports/offers.py), never loaded whole
    results = load_results(folder, destinations=False, accept_changes=args.accept_changes)
    check_reportable(results)
    margins_of(results.study)  # a bad [report] table is one line too, before any progress
    if results.unchanged.note:  # once the input is good: a refusal stays one line
        print(f"warning: {results.unchanged.note}", file=sys.stderr)
    stage.release()
    planned = results.plan.total_games
    if len(results.games) < planned:
        print(
            f"warning: {folder} holds {len(results.games):,} of the study's {planned:,} games "
            "(the run was stopped); the report covers only those. Finish the run with "
            "cardgame simulate ... --resume",
            file=sys.stderr,
        )
    analysis = analyse(results, planned_games=planned, progress=stage)
    stage("the summary, findings and sections")
    report = build(analysis)
    stage("figures and the page" if args.format == "html" else "the Markdown summary")
    text = html.page(report) if args.format == "html" else markdown.summary(report)
    html.write(text, out)
    elapsed = time.perf_counter() - stage.start
    print(f"Wrote {out} ({len(results.games):,} games from {folder}) in {elapsed:.1f} s")
    return 0


def _default_results(workers: int | None) -> Path:
    from sims.runner import run_default_study

    return run_default_study(workers)
