# ruff: noqa: E501  (attack code: long report lines)
"""A decoy in front of a forgery: the refusal names only the first problem it finds.

The writer forges ``seats/compact.parquet`` of a sealed folder (every score +500, planner
winning every game) and adds ``.nfs000000000001a2b`` (an empty file, the name NFS gives a
file removed while open, which docs/data.md names as something a seal may see). What do
``report`` and ``--resume`` say, and what do the ``--accept-changes`` they suggest read and seal?

python decoy27.py
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq
from common27 import ROOT, cardgame, last_line, mentions, report, study_file


def forge(table: str) -> None:
    t = pq.read_table(table)
    t = t.set_column(t.schema.get_field_index("score"), "score", pc.add(t["score"], 500))
    first = pc.equal(t["strategy"].cast("string"), "planner")
    t = t.set_column(t.schema.get_field_index("is_winner"), "is_winner", first)
    t = t.set_column(t.schema.get_field_index("win_share"), "win_share", pc.cast(first, "float64"))
    spare = os.path.join(ROOT, "decoy27-spare.parquet")
    pq.write_table(
        t.replace_schema_metadata(pq.read_schema(table).metadata), spare, compression="zstd"
    )
    os.rename(spare, table)


def main() -> None:
    folder = os.path.join(ROOT, "decoy27")
    shutil.rmtree(folder, ignore_errors=True)
    path = study_file("decoy27", 6, 2)
    made = cardgame("simulate", path, "--workers", "1", "--no-progress")
    print(f"  the run: exit {made.returncode}: {last_line(made)!r}")
    out = os.path.join(ROOT, "decoy27.md")
    done, text = report(folder, out)
    print(
        f"  report (no writer): exit {done.returncode}; {mentions(text, r'planner wins [0-9.]+%')[:1]}"
    )
    forge(os.path.join(folder, "seats", "compact.parquet"))
    print("  the writer: seats/compact.parquet forged (alone)")
    done, _ = report(folder, out)
    print(f"  report: exit {done.returncode}: {last_line(done)!r}")
    Path(folder, ".nfs000000000001a2b").touch()
    print("  the writer: .nfs000000000001a2b added beside it")
    done, _ = report(folder, out)
    print(f"  report: exit {done.returncode}: {last_line(done)!r}")
    resumed = cardgame(
        "simulate", path, "--workers", "1", "--no-progress", "--out", folder, "--resume"
    )
    print(f"  --resume: exit {resumed.returncode}: {last_line(resumed)!r}")
    accepted = cardgame("report", folder, "--format", "md", "--out", out, "--accept-changes")
    text = Path(out).read_text() if os.path.exists(out) else ""
    warned = [line for line in accepted.stderr.splitlines() if "warning" in line.lower()]
    print(
        f"  report --accept-changes: exit {accepted.returncode}; warnings: {warned[:2]}; {mentions(text, r'planner wins [0-9.]+%')[:1]}"
    )
    resumed = cardgame(
        "simulate", path, "--workers", "1", "--no-progress", "--out", folder, "--resume",
        "--accept-changes",
    )  # fmt: skip
    said = [line for line in resumed.stderr.splitlines() if "warning" in line.lower()]
    print(
        f"  --resume --accept-changes: exit {resumed.returncode}; warnings: {said[:2]}: {last_line(resumed)!r}"
    )
    done, text = report(folder, out)
    after = [line for line in done.stderr.splitlines() if "warning" in line.lower()]
    print(
        f"  report after: exit {done.returncode}; warnings: {after[:2]}; {mentions(text, r'planner wins [0-9.]+%')[:1]}"
    )


if __name__ == "__main__":
    main()
