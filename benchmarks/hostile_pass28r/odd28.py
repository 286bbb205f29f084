# ruff: noqa: E501  (attack code: long report lines)
"""Odd manifests read with ``--accept-changes`` (the one way past the seal a user may take):
each mutation of a sealed folder's manifest is given to ``cardgame report``, ``cardgame view``
(in this process: ``cardgame.cli.main``, so a traceback is an exception out of it) and
``cardgame simulate --resume`` (a process). Anything but exit 0 or 2, or a traceback, is
reported.

python odd28.py
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
from pathlib import Path

from common28 import ROOT, cardgame, study_file

INF = float("inf")


def mutations() -> dict[str, object]:
    def at(*keys: str, value: object):
        def apply(m: dict) -> None:
            where = m
            for k in keys[:-1]:
                where = where[k] if not isinstance(where, list) else where[int(k)]
            where[keys[-1] if not isinstance(where, list) else int(keys[-1])] = value

        return apply

    def drop(*keys: str):
        def apply(m: dict) -> None:
            where = m
            for k in keys[:-1]:
                where = where[k]
            where.pop(keys[-1], None)

        return apply

    return {
        "study.report = 'x'": at("study", "report", value="x"),
        "study.report.margins = [1]": at("study", "report", value={"margins": [1]}),
        "study.metrics.quality = 'yes'": at("study", "metrics", value={"quality": "yes"}),
        "study.name = 5": at("study", "name", value=5),
        "study.check = 'x'": at("study", "check", value="x"),
        "study.games_per_cell = inf": at("study", "games_per_cell", value=INF),
        "study.variants = 5": at("study", "variants", value=5),
        "schema_version 4, no plan": lambda m: (m.update(schema_version=4), m.pop("plan")),
        "schema_version 1, no plan, study.pool = 5": lambda m: (
            m.update(schema_version=1),
            m.pop("plan"),
            m["study"].update(pool=5),
        ),
        "schema_version True": at("schema_version", value=True),
        "schema_version 5.0": at("schema_version", value=5.0),
        "plan.seed = inf": at("plan", "seed", value=INF),
        "plan.cells[0].games = 1e300": at("plan", "cells", "0", "games", value=1e300),
        "plan.cells[0].games = 10**30": at("plan", "cells", "0", "games", value=10**30),
        "plan.cells[0].players = 0": at("plan", "cells", "0", "players", value=0),
        "plan.cells[0].lineup = []": at("plan", "cells", "0", "lineup", value=[]),
        "plan.margins.x = 1e308": at("plan", "margins", value={"x": 1e308}),
        "plan.check = {'search': 10**30}": at("plan", "check", value={"search": 10**30}),
        "plan.sequential odd": at(
            "plan",
            "sequential",
            value={"max_games": 10**30, "factors": [0], "look": -1, "judged": []},
        ),
        "plan.adapt.adapted = 5": at("plan", "adapt", value={"adapted": 5}),
        "plan.strategies.planner.knobs = 5": at("plan", "strategies", "planner", "knobs", value=5),
        "fingerprint = 5": at("fingerprint", value=5),
        "guest_key = 5": at("guest_key", value=5),
        "sizes = 'x'": at("sizes", value="x"),
        "sizes[seats] = -1": at("sizes", "seats/compact.parquet", value=-1),
        "sizes[seats] = 10**30": at("sizes", "seats/compact.parquet", value=10**30),
        "files = []": at("files", value=[]),
        "files[seats] = 5": at("files", "seats/compact.parquet", value=5),
        "files['../x'] = 'a'": at("files", "../x", value="a"),
        "seal = {'state': 'open', 'run': ['x']}": at("seal", value={"state": "open", "run": ["x"]}),
        "seal = {'state': 'open', 'run': 'r', 'mac': 5}, no files": lambda m: (
            m.pop("files"),
            m.update(seal={"state": "open", "run": "r", "mac": 5}),
        ),
        "seal = {'state': 'sealed', 'mac': '\\u00e9'}": at(
            "seal", value={"state": "sealed", "mac": "\u00e9" * 64}
        ),
        "seal = 'sealed'": at("seal", value="sealed"),
        "manifest = []": None,
    }


def main() -> None:
    from cardgame.cli import main as cli

    path = study_file("odd28", 4, 2)
    base = os.path.join(ROOT, "odd28")
    shutil.rmtree(base, ignore_errors=True)
    made = cardgame("simulate", path, "--workers", "1", "--no-progress", "--records", "--out", base)
    print(f"  the run: exit {made.returncode}", flush=True)
    copy = os.path.join(ROOT, "odd28-copy")
    bad = 0
    for what, apply in mutations().items():
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(base, copy)
        manifest_path = Path(copy, "manifest.json")
        manifest = json.loads(manifest_path.read_text())
        if apply is None:
            manifest = []
        else:
            try:
                apply(manifest)
            except (KeyError, IndexError, TypeError) as exc:
                print(f"  {what}: not applicable ({exc!r})")
                continue
        manifest_path.write_text(json.dumps(manifest, indent=1))
        codes = []
        for args in (
            [
                "report",
                copy,
                "--accept-changes",
                "--format",
                "md",
                "--out",
                os.path.join(ROOT, "odd28.md"),
            ],
            [
                "view",
                copy,
                "--accept-changes",
                "--playouts",
                "0",
                "--out",
                os.path.join(ROOT, "odd28.html"),
            ],
        ):
            err = io.StringIO()
            try:
                with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                    code = cli(args)
                codes.append(f"{args[0]} {code}")
                if code not in (0, 2):
                    bad += 1
            except BaseException as exc:  # a traceback in a process
                bad += 1
                codes.append(f"{args[0]} TRACEBACK {type(exc).__name__}: {str(exc)[:120]}")
        done = subprocess.run(
            ["cardgame", "simulate", path, "--workers", "1", "--no-progress", "--records", "--out", copy, "--resume", "--accept-changes"],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        tb = "Traceback" in done.stderr
        if tb or done.returncode not in (0, 2):
            bad += 1
            tail = done.stderr.strip().splitlines()[-1][:140] if done.stderr.strip() else ""
            codes.append(f"resume {done.returncode}{' TRACEBACK ' + tail if tb else ''}")
        else:
            codes.append(f"resume {done.returncode}")
        print(f"  {what}: {'; '.join(codes)}", flush=True)
    print(f"  commands ending otherwise than 0 or 2, or in a traceback: {bad}")


if __name__ == "__main__":
    main()
