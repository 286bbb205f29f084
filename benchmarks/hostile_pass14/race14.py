# ruff: noqa: E501, SIM115  (report lines)
"""Class 4, a live writer: the seal is checked on the files' bytes, then the tables are read
again by path. A process that can write into the folder (but not read the key) swaps
``seats/compact.parquet`` between the sealed file and one with every score +500 (atomic
renames, every few ms) while ``load_results`` (what report, view and --resume use) runs.
python race14.py SEALED_FOLDER [TRIES] [report]: with "report", each try is a `cardgame report
--format md` run instead, and the bad file also makes the first strategy win every game.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from multiprocessing import Process

import pyarrow.compute as pc
import pyarrow.parquet as pq

from sims.errors import SimsError
from sims.results import load_results


def swapper(folder: str, good: str, bad: str) -> None:
    target = os.path.join(folder, "seats", "compact.parquet")
    tmp = target + ".swap"
    while True:
        for src in (good, bad):
            shutil.copyfile(src, tmp)
            os.replace(tmp, target)
            time.sleep(0.002)


def writer_in_place(folder: str, good: str, bad: str) -> None:
    """The same change written into the file itself (one inode), then the sealed bytes
    back, and its modification time set back: only its change time and size move."""
    target = os.path.join(folder, "seats", "compact.parquet")
    times = os.stat(target)
    blobs = [open(good, "rb").read(), open(bad, "rb").read()]
    with open(target, "r+b") as f:
        while True:
            for blob in (blobs[1], blobs[0]):
                f.seek(0)
                f.write(blob)
                f.truncate(len(blob))
                f.flush()
                os.utime(target, ns=(times.st_atime_ns, times.st_mtime_ns))
                time.sleep(0.002)


def main() -> None:
    sealed, tries = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 100
    folder = sealed + "-race"
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(sealed, folder)
    good = folder + ".good.parquet"
    bad = folder + ".bad.parquet"
    shutil.copyfile(os.path.join(folder, "seats", "compact.parquet"), good)
    t = pq.read_table(good)
    i = t.schema.get_field_index("score")
    t = t.set_column(i, "score", pc.add(t["score"], 500))
    first = pc.equal(t["strategy"].cast("string"), t["strategy"].cast("string")[0])
    t = t.set_column(t.schema.get_field_index("is_winner"), "is_winner", first)
    t = t.set_column(t.schema.get_field_index("win_share"), "win_share", pc.cast(first, "float64"))
    pq.write_table(t, bad)
    if "report" in sys.argv[3:]:
        report(folder, good, bad, tries, str(t["strategy"].cast("string")[0]))
        return
    honest = load_results(folder).seats["score"].mean()
    how = writer_in_place if "inplace" in sys.argv[3:] else swapper
    p = Process(target=how, args=(folder, good, bad), daemon=True)
    p.start()
    refused = unseen = same = 0
    said = None
    start = time.perf_counter()
    for _ in range(tries):
        try:
            mean = load_results(folder).seats["score"].mean()
        except (SimsError, OSError, ValueError) as exc:
            refused += 1
            said = said or str(exc)[:160]
            continue
        if mean > honest + 250:
            unseen += 1
        else:
            same += 1
    p.terminate()
    p.join()
    shutil.copyfile(good, os.path.join(folder, "seats", "compact.parquet"))
    print(
        f"{tries} loads in {time.perf_counter() - start:.1f} s while a writer ({how.__name__}) changed the seats table: "
        f"refused {refused}, read the sealed scores {same}, read scores +500 unseen {unseen} "
        f"(honest mean {honest:.1f}); a refusal said: {said}"
    )


def report(folder: str, good: str, bad: str, tries: int, name: str) -> None:
    import subprocess

    p = Process(target=swapper, args=(folder, good, bad), daemon=True)
    p.start()
    refused = unseen = same = other = 0
    said = ""
    for k in range(tries):
        out = f"{folder}.{k}.md"
        done = subprocess.run(
            ["cardgame", "report", folder, "--format", "md", "--out", out],
            capture_output=True,
            text=True,
        )
        text = open(out).read() if done.returncode == 0 and os.path.exists(out) else ""
        if (
            "changed since its run ended" in done.stderr
            or "changed while it was read" in done.stderr
        ):
            refused += 1
            said = said or done.stderr.strip().splitlines()[-1][:200]
        elif f"{name} wins 100.0% of its games" in text:
            unseen += 1
        elif f"{name} wins 50.0% of its games" in text:
            same += 1
        else:
            other += 1
            said = (
                said
                or f"other: exit {done.returncode} {done.stderr.strip().splitlines()[-1][:200] if done.stderr.strip() else ''}"
            )
    p.terminate()
    p.join()
    shutil.copyfile(good, os.path.join(folder, "seats", "compact.parquet"))
    print(
        f"{tries} `cardgame report` runs while a writer swapped the seats table: refused {refused}, "
        f"the sealed results {same}, exit 0 with '{name} wins 100.0% of its games' (unseen) {unseen}, other {other}; said: {said}"
    )


if __name__ == "__main__":
    main()
