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
win share to 0.5 (the report's verdicts change; no game changes), ``add`` adds a forged record
file (its seats' names swapped, its own digest made again), which ``cardgame view`` then shows.
``crash`` renames garbage over ``games/compact.parquet`` instead: the resume fails after its
``unseal`` and leaves the folder *open* under a run id never ended; the writer then puts the
games table back and the forged seats table in, and the folder reads unchecked. ``kill``
SIGKILLs the resume there instead, with the same outcome.
python resume18.py SEALED_FOLDER [seats|remove|manifest|add|crash|kill]
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

from common import IN_MOVED_TO, STUDY, Watch, cardgame, copy, forged_seats, report, scores


def change(folder: str, mode: str, forged: str, table: str) -> None:
    """The writer's change, made once the resume's checks are done."""
    if mode == "seats":
        os.rename(forged, table)
    elif mode == "crash":
        Path(forged + ".garbage").write_bytes(b"not a parquet file")
        os.rename(forged + ".garbage", os.path.join(folder, "games", "compact.parquet"))
    elif mode == "add":  # the forged record made beforehand (``main``)
        os.rename(forged + ".jsonl", os.path.join(folder, "records", "part-c0000-g0000099.jsonl"))
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
    if mode == "add":
        from nomanifest18 import forge

        spare = copy(folder, folder + "-spare")
        os.rename(forge(Path(spare, "records")), forged + ".jsonl")
    watch = Watch(folder, IN_MOVED_TO)
    swapped = threading.Event()
    pid = [0]

    def swap() -> None:
        watch.wait("manifest.json")  # the resume's unseal: its checks are done
        if mode == "kill":  # a process of the user may signal the user's runs
            os.killpg(pid[0], signal.SIGKILL)
        else:
            change(folder, mode, forged, table)
        swapped.set()

    command = ["cardgame", "simulate", *STUDY, "--out", folder, "--resume", "--no-progress"]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    pid[0] = process.pid
    threading.Thread(target=swap, daemon=True).start()
    out, err = process.communicate()
    done = subprocess.CompletedProcess(command, process.returncode, out, err)
    print(
        f"resume: exit {done.returncode}; swapped during it: {swapped.is_set()}; {(done.stdout + done.stderr).strip()[-200:]!r}"
    )
    if mode in ("crash", "kill"):
        state = json.loads(Path(folder, "manifest.json").read_text())["seal"]["state"]
        print(f"{mode}: the folder's mark after the failed resume: {state!r}")
        if mode == "crash":
            shutil.copyfile(
                os.path.join(sys.argv[1], "games", "compact.parquet"), forged + ".games"
            )
            os.rename(forged + ".games", os.path.join(folder, "games", "compact.parquet"))
        os.rename(forged, table)
    if mode == "add":
        view = cardgame("view", folder, "--game", "5", "--playouts", "0", "-o", folder + ".html")
        page = Path(folder + ".html")
        shown = page.exists() and '"strategies":["rusher","planner"]' in page.read_text()
        print(
            f"add: view --game 5: exit {view.returncode}: {view.stdout.strip()[-120:]!r}; the forged record's swapped names in the page: {shown}"
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
