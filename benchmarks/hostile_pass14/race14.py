"""Class 4, a live writer: the seal is checked on the files' bytes, then the tables are read
again by path. A process that can write into the folder (but not read the key) swaps
``seats/compact.parquet`` between the sealed file and one with every score +500 (atomic
renames, every few ms) while ``load_results`` (what report, view and --resume use) runs.
python race14.py SEALED_FOLDER [TRIES]"""

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
    pq.write_table(t.set_column(i, "score", pc.add(t["score"], 500)), bad)
    honest = load_results(folder).seats["score"].mean()
    p = Process(target=swapper, args=(folder, good, bad), daemon=True)
    p.start()
    refused = unseen = same = 0
    first = None
    start = time.perf_counter()
    for _ in range(tries):
        try:
            mean = load_results(folder).seats["score"].mean()
        except (SimsError, OSError, ValueError) as exc:
            refused += 1
            first = first or str(exc)[:160]
            continue
        if mean > honest + 250:
            unseen += 1
        else:
            same += 1
    p.terminate()
    p.join()
    shutil.copyfile(good, os.path.join(folder, "seats", "compact.parquet"))
    print(
        f"{tries} loads in {time.perf_counter() - start:.1f} s while a writer swapped the seats table: "
        f"refused {refused}, read the sealed scores {same}, read scores +500 unseen {unseen} "
        f"(honest mean {honest:.1f}); a refusal said: {first}"
    )


if __name__ == "__main__":
    main()
