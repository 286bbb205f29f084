# ruff: noqa: E501  (attack code: long report lines)
"""What the seal holds against (each expected refused; a line says what came out):
- ``hardlink-resume``: a sealed table hard-linked from outside the folder, written in place
  through the other name once the resume's checks are done (same file, other bytes);
- ``punch-resume``: the same table's first 64 KiB punched out (``fallocate``) then;
- ``hardlink-report``: the table written through the outside name at the first close after
  ``cardgame report`` started (the check's hash), put back after;
- ``records-swap-view``: ``records/`` renamed away and another sealed folder's ``records/``
  renamed in at the first close of the record file after ``cardgame view`` started;
- ``folder-swap-report``: the whole folder renamed away and another sealed folder renamed in
  at the first close of its seats table after ``cardgame report`` started;
- ``lazy-chunks``: ``load_results(destinations=False)`` returns; then the destinations table
  is renamed over by another sealed run's, and ``destination_chunks`` read.
python blocked18.py SEALED_FOLDER
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import threading

from common import IN_CLOSE_NOWRITE, IN_MOVED_TO, STUDY, Watch, copy, libc, report

FALLOC_FL_KEEP_SIZE, FALLOC_FL_PUNCH_HOLE = 1, 2


def later(watch: Watch, name: str, act) -> threading.Event:
    done = threading.Event()

    def run() -> None:
        watch.wait(name)
        act()
        done.set()

    threading.Thread(target=run, daemon=True).start()
    return done


def flip(path: str) -> None:
    """Write the file in place, same size, other bytes (its middle inverted)."""
    fd = os.open(path, os.O_RDWR)
    size = os.fstat(fd).st_size
    middle = os.pread(fd, 64, size // 2)
    os.pwrite(fd, bytes(255 - b for b in middle), size // 2)
    os.close(fd)


def resume(folder: str, act) -> None:
    done = later(Watch(folder, IN_MOVED_TO), "manifest.json", act)
    run = subprocess.run(
        ["cardgame", "simulate", *STUDY, "--out", folder, "--resume", "--no-progress"],
        capture_output=True,
        text=True,
    )
    print(
        f"  resume: exit {run.returncode}, changed during it: {done.is_set()}: {(run.stdout + run.stderr).strip().splitlines()[-1][:150]!r}"
    )
    print("  afterwards: " + report(folder))


def main() -> None:
    sealed = sys.argv[1]
    other = sealed + "-seed7"
    print("hardlink-resume:")
    folder = copy(sealed, sealed + "-blocked")
    table = os.path.join(folder, "seats", "compact.parquet")
    outside = sealed + "-outside.parquet"
    if os.path.exists(outside):
        os.remove(outside)
    os.link(table, outside)
    resume(folder, lambda: flip(outside))

    print("punch-resume:")
    folder = copy(sealed, sealed + "-blocked")
    table = os.path.join(folder, "seats", "compact.parquet")

    def punch() -> None:
        fd = os.open(table, os.O_RDWR)
        if (
            libc.fallocate(
                fd,
                FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                ctypes.c_long(0),
                ctypes.c_long(65536),
            )
            != 0
        ):
            print(f"  fallocate: errno {ctypes.get_errno()}")
        os.close(fd)

    resume(folder, punch)

    print("hardlink-report:")
    folder = copy(sealed, sealed + "-blocked")
    table = os.path.join(folder, "seats", "compact.parquet")
    os.remove(outside)
    os.link(table, outside)
    later(Watch(table, IN_CLOSE_NOWRITE), "", lambda: flip(outside))
    print("  " + report(folder))

    print("records-swap-view:")
    folder = copy(sealed, sealed + "-blocked")
    spare = copy(other, other + "-spare")
    record = os.path.join(folder, "records", "part-c0000-g0000000.jsonl")

    def swap_records() -> None:
        os.rename(os.path.join(folder, "records"), os.path.join(spare, "records-old"))
        os.rename(os.path.join(spare, "records"), os.path.join(folder, "records"))

    done = later(Watch(record, IN_CLOSE_NOWRITE), "", swap_records)
    view = subprocess.run(
        ["cardgame", "view", folder, "--playouts", "0", "-o", folder + ".html"],
        capture_output=True,
        text=True,
    )
    print(
        f"  view: exit {view.returncode}, swapped: {done.is_set()}: {(view.stdout + view.stderr).strip().splitlines()[-1][:150]!r}"
    )

    print("folder-swap-report:")
    folder = copy(sealed, sealed + "-blocked")
    spare = copy(other, other + "-spare")
    table = os.path.join(folder, "seats", "compact.parquet")

    def swap_folder() -> None:
        os.rename(folder, folder + "-away")
        os.rename(spare, folder)

    if os.path.exists(folder + "-away"):
        subprocess.run(["rm", "-rf", folder + "-away"], check=True)
    later(Watch(table, IN_CLOSE_NOWRITE), "", swap_folder)
    print("  " + report(folder))

    print("lazy-chunks:")
    lazy(sealed)


def lazy(sealed: str) -> None:
    import shutil

    from sims.errors import ResultsError
    from sims.results import load_results

    folder = copy(sealed, sealed + "-blocked")
    results = load_results(folder, destinations=False)
    table = os.path.join(folder, "destinations", "compact.parquet")
    shutil.copyfile(
        os.path.join(sealed + "-seed7", "destinations", "compact.parquet"), table + ".x"
    )
    os.rename(table + ".x", table)
    try:
        rows = sum(chunk.num_rows for chunk in results.destination_chunks(["destination_id"]))
        print(f"  destination_chunks: {rows} rows read, not refused")
    except ResultsError as exc:
        print(f"  destination_chunks: refused: {exc}")


if __name__ == "__main__":
    main()
