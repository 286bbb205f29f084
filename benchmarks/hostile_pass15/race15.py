# ruff: noqa: E501  (attack code: long report lines)
"""Class 4, a live writer behind a link: the seal's change check (``folder_state``) takes
every path's ``lstat``, so a file of the folder made a symbolic link stays the same link
while what it points to, outside the folder, is swapped. The link's target first holds the
sealed bytes (so the seal's digests, read through the link, match), then a writer swaps it
between the sealed table and one with every score +500 (atomic renames outside the folder,
every few ms) while ``load_results`` (what report, view and --resume use) runs.
python race15.py SEALED_FOLDER [TRIES] [report]: with "report", each try is a `cardgame report
--format md` run instead, and the bad file also makes the first strategy win every game.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from multiprocessing import Process

import pyarrow.compute as pc
import pyarrow.parquet as pq

from sims.errors import SimsError
from sims.results import load_results


def swapper(outside: str, good: str, bad: str) -> None:
    """Swap the link's target (outside the folder) between the two tables."""
    target = os.path.join(outside, "compact.parquet")
    tmp = target + ".swap"
    while True:
        for src in (good, bad):
            shutil.copyfile(src, tmp)
            os.replace(tmp, target)
            time.sleep(0.002)


def main() -> None:
    sealed, tries = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 100
    folder = sealed + "-link"
    outside = sealed + "-outside"
    for path in (folder, outside):
        shutil.rmtree(path, ignore_errors=True)
    shutil.copytree(sealed, folder)
    os.makedirs(outside)
    table = os.path.join(folder, "seats", "compact.parquet")
    good = os.path.join(outside, "good.parquet")
    bad = os.path.join(outside, "bad.parquet")
    shutil.copyfile(table, good)
    shutil.copyfile(table, os.path.join(outside, "compact.parquet"))
    os.remove(table)
    os.symlink(os.path.join(outside, "compact.parquet"), table)
    t = pq.read_table(good)
    t = t.set_column(t.schema.get_field_index("score"), "score", pc.add(t["score"], 500))
    first = pc.equal(t["strategy"].cast("string"), t["strategy"].cast("string")[0])
    t = t.set_column(t.schema.get_field_index("is_winner"), "is_winner", first)
    t = t.set_column(t.schema.get_field_index("win_share"), "win_share", pc.cast(first, "float64"))
    pq.write_table(t, bad)
    honest = load_results(folder).seats["score"].mean()
    print(
        f"the folder with the table made a link to {outside}/compact.parquet (sealed bytes): load_results reads it, mean score {honest:.1f}"
    )
    p = Process(target=swapper, args=(outside, good, bad), daemon=True)
    p.start()
    if "report" in sys.argv[3:]:
        report(folder, tries, str(t["strategy"].cast("string")[0]))
    else:
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
        print(
            f"{tries} loads in {time.perf_counter() - start:.1f} s while a writer swapped the link's target: "
            f"refused {refused}, read the sealed scores {same}, read scores +500 unseen {unseen} "
            f"(honest mean {honest:.1f}); a refusal said: {said}"
        )
    p.terminate()
    p.join()


def report(folder: str, tries: int, name: str) -> None:
    refused = unseen = same = other = 0
    said = ""
    for k in range(tries):
        out = f"{folder}.{k}.md"
        done = subprocess.run(
            ["cardgame", "report", folder, "--format", "md", "--out", out],
            capture_output=True,
            text=True,
        )
        text = ""
        if done.returncode == 0 and os.path.exists(out):
            with open(out) as f:
                text = f.read()
        if "changed" in done.stderr:
            refused += 1
            said = said or done.stderr.strip().splitlines()[-1][:200]
        elif f"{name} wins 100.0% of its games" in text:
            unseen += 1
        elif f"{name} wins 50.0% of its games" in text:
            same += 1
        else:
            other += 1
            said = said or f"other: exit {done.returncode} {done.stderr.strip()[-200:]}"
    print(
        f"{tries} `cardgame report` runs while a writer swapped the link's target: refused {refused}, "
        f"the sealed results {same}, exit 0 with '{name} wins 100.0% of its games' (unseen) {unseen}, "
        f"other {other}; said: {said}"
    )


if __name__ == "__main__":
    main()
