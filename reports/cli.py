"""`cardgame report`: one self-contained HTML page (or Markdown) from a results folder.

Without a results folder, it runs the default study first (resuming it if a run was
stopped), so the README's main command ends with a report to open.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sims.study import DEFAULT_STUDY  # light: the study module imports no pandas or SimPy


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
    parser.set_defaults(run=main)


def main(args: argparse.Namespace) -> int:
    # Imported here, not at the top: `cardgame --help` must not pay for pandas and plotly.
    from sims.results import load_results

    from . import html, markdown
    from .analysis import analyse
    from .checks import check_out_path, check_reportable, planned_games

    out = Path(args.out or f"report.{args.format}")
    check_out_path(out)
    folder = Path(args.results) if args.results else _default_results(args.workers)
    results = load_results(folder)  # every problem with the folder is one clear line
    check_reportable(results)
    planned = planned_games(results.study)
    if planned is not None and len(results.games) < planned:
        print(
            f"warning: {folder} holds {len(results.games):,} of the study's {planned:,} games "
            "(the run was stopped); the report covers only those. Finish the run with "
            "cardgame simulate ... --resume",
            file=sys.stderr,
        )
    analysis = analyse(results, planned_games=planned)
    text = html.render(analysis) if args.format == "html" else markdown.render(analysis)
    html.write(text, out)
    print(f"Wrote {out} ({len(results.games):,} games from {folder})")
    return 0


def _default_results(workers: int | None) -> Path:
    from sims.results import read_manifest
    from sims.runner import run
    from sims.study import load_study

    study = load_study(DEFAULT_STUDY)
    folder = Path(study.output)
    manifest = read_manifest(folder)
    print(
        f"No results given: running the default study {study.name!r} "
        f"({study.total_games:,} games) into {folder}",
        file=sys.stderr,
    )
    summary = run(study, workers=workers, out=folder, resume=manifest is not None)
    if summary.interrupted:
        raise KeyboardInterrupt
    return folder
