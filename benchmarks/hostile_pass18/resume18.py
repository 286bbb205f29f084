# ruff: noqa: E501  (attack code: long report lines)
"""A resume seals a table put in place (by rename) while it plays.

A resumed run reads the files of the seal it found with ``own_writes``: a file that is not
the one the check hashed (another inode) is taken as the run's own write, and its seal
keeps the old digest only for a file that is *still the same file* with other bytes. So a
writer of the folder (no key) waits for the resume's first rewrite of the manifest (the
``unseal`` after its checks), renames a forged ``seats/compact.parquet`` over the sealed one,
and the run's seal covers the forgery.
The same window takes any change: ``remove`` removes the records file (the seal then leaves
it out), ``manifest`` renames in a manifest whose study sets the report's practical margin of
win share to 0.5 (the report's verdicts change; no game changes).
python resume18.py SEALED_FOLDER [seats|remove|manifest]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

from common import IN_MOVED_TO, STUDY, Watch, copy, forged_seats, report, scores


def change(folder: str, mode: str, forged: str, table: str) -> None:
    """The writer's change, made once the resume's checks are done."""
    if mode == "seats":
        os.rename(forged, table)
    elif mode == "remove":
        os.remove(os.path.join(folder, "records", "part-c0000-g0000000.jsonl"))
    else:
        path = os.path.join(folder, "manifest.json")
        manifest = json.loads(Path(path).read_text())
        manifest["study"]["report"] = {"margins": {"win_share": 0.5}}
        Path(forged).write_text(json.dumps(manifest))
        os.rename(forged, path)


def main() -> None:
    mode = sys.argv[2] if len(sys.argv) > 2 else "seats"
    folder = copy(sys.argv[1], sys.argv[1] + "-resume")
    table = os.path.join(folder, "seats", "compact.parquet")
    forged = folder + "-forged.parquet"  # outside the folder, same file system
    name = forged_seats(table, forged)
    print(f"sealed scores {scores(folder)}")
    watch = Watch(folder, IN_MOVED_TO)
    swapped = threading.Event()

    def swap() -> None:
        watch.wait("manifest.json")  # the resume's unseal: its checks are done
        change(folder, mode, forged, table)
        swapped.set()

    threading.Thread(target=swap, daemon=True).start()
    done = subprocess.run(
        ["cardgame", "simulate", *STUDY, "--out", folder, "--resume", "--no-progress"],
        capture_output=True,
        text=True,
    )
    print(
        f"resume: exit {done.returncode}; swapped during it: {swapped.is_set()}; {(done.stdout + done.stderr).strip()[-200:]!r}"
    )
    print(
        f"{mode}: scores now {scores(folder)}; records: {os.listdir(os.path.join(folder, 'records'))}"
    )
    print(f"{mode}: afterwards, no writer left: " + report(folder, name))
    if mode == "manifest":
        text = Path(folder + ".md").read_text()
        print(
            "  "
            + next(x for x in text.splitlines() if x.startswith("🟢 settled") or "Margins:" in x)[
                -90:
            ]
        )


if __name__ == "__main__":
    main()
