"""Changing a finished, sealed results folder without the user's seal key (third pass).

Usage: python seal3.py SOURCE_FOLDER WORK [simulate options of its run]. Copies SOURCE (a
finished run) to WORK/<case>, raises the guest's scores there by 500 in
seats/compact.parquet, then changes the folder so that the seal check might pass, and asks
``cardgame report``, ``cardgame simulate --resume`` and ``sims.results.load_results``
about each case."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq


def raise_scores(folder: Path) -> None:
    path = folder / "seats" / "compact.parquet"
    table = pq.read_table(path)
    frame = table.to_pandas()
    mask = frame["strategy"].astype(str).str.startswith("hp3:")
    frame.loc[mask, "score"] = frame.loc[mask, "score"] + 500
    import pyarrow as pa

    pq.write_table(pa.Table.from_pandas(frame, schema=table.schema, preserve_index=False), path)


def no_manifest(folder: Path) -> None:
    (folder / "manifest.json").unlink()


def manifest_dir(folder: Path) -> None:
    (folder / "manifest.json").unlink()
    (folder / "manifest.json").mkdir()


CASES = {"changed": None, "no_manifest": no_manifest, "manifest_dir": manifest_dir}


STRATEGIES: list[str] = []


def ask(folder: Path) -> None:
    for what, cmd in (
        ("report", ["cardgame", "report", str(folder), "--out", str(folder) + "-report.md"]),
        (
            "resume",
            [
                "cardgame",
                "simulate",
                *STRATEGIES,
                "--resume",
                "--out",
                str(folder),
                "--workers",
                "1",
                "--no-progress",
                "--isolate",
            ],
        ),
    ):
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
        said = (done.stderr.strip().splitlines() or [""])[-1][:240]
        print(f"  {what}: exit {done.returncode}: {said}")
    code = (
        "import sys\nfrom sims.results import load_results\n"
        "r = load_results(sys.argv[1]); s = r.seats\n"
        "print(s.groupby('strategy', observed=True)['score'].mean().to_dict())"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(folder)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    out = (done.stdout.strip() or done.stderr.strip().splitlines()[-1])[:240]
    print(f"  load_results: exit {done.returncode}: {out}")


def main() -> None:
    source = Path(sys.argv[1])
    STRATEGIES.extend(sys.argv[3:])
    work = Path(sys.argv[2] if len(sys.argv) > 2 else "/tmp/hp3/seal")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    print(f"untouched copy of {source}:")
    shutil.copytree(source, work / "untouched")
    ask(work / "untouched")
    for name, change in CASES.items():
        folder = work / name
        shutil.copytree(source, folder)
        raise_scores(folder)
        if change is not None:
            change(folder)
        print(f"{name}:")
        ask(folder)


if __name__ == "__main__":
    main()
