# ruff: noqa: E501  (attack code: long report lines)
"""Class (2), results changed unseen by a writer of the folder: a store through a shared
writable mapping of a file changes its bytes but, once the page is dirty, not its size,
inode, modification or change time (the kernel stamps a mapped file only when a clean page
is first written). ``folder_state`` compares exactly those, so ``check_sealed``'s "changed
while it was read" check cannot see it. The writer maps ``seats/compact.parquet`` shared,
dirties it with its own sealed bytes (before the reader's first ``stat``), then flips the
mapping between the sealed table and one of the same size with every score +500 and the
first strategy winning every game, every 2 ms, while ``load_results`` / ``cardgame report``
run. python mmap16.py SEALED_FOLDER [TRIES] [report]
"""

from __future__ import annotations

import io
import mmap
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


def same_size(table, size: int) -> bytes:
    """The table as a parquet file of exactly ``size`` bytes: written with the options that
    give the largest file not over ``size``, then padded between its data and its footer
    (readers find the footer from the end, and the data by offsets from the start)."""
    best = b""
    for compression in ("snappy", "zstd", "gzip", "none", "brotli", "lz4"):
        for dictionary in (True, False):
            buf = io.BytesIO()
            pq.write_table(table, buf, compression=compression, use_dictionary=dictionary)
            data = buf.getvalue()
            if len(best) < len(data) <= size:
                best = data
    if not best:
        raise SystemExit("no encoding of the changed table fits the sealed size")
    footer = int.from_bytes(best[-8:-4], "little") + 8
    return best[:-footer] + b"\0" * (size - len(best)) + best[-footer:]


def flipper(path: str, good: bytes, bad: bytes) -> None:
    """Flip the file's bytes through a shared mapping: no size, inode or time moves."""
    fd = os.open(path, os.O_RDWR)
    view = mmap.mmap(fd, len(good))
    while True:
        view[:] = bad
        time.sleep(0.002)
        view[:] = good
        time.sleep(0.002)


def main() -> None:
    sealed, tries = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 100
    folder = sealed + "-mmap"
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(sealed, folder)
    table = os.path.join(folder, "seats", "compact.parquet")
    with open(table, "rb") as f:
        good = f.read()
    t = pq.read_table(table)
    t = t.set_column(t.schema.get_field_index("score"), "score", pc.add(t["score"], 500))
    first = pc.equal(t["strategy"].cast("string"), t["strategy"].cast("string")[0])
    t = t.set_column(t.schema.get_field_index("is_winner"), "is_winner", first)
    t = t.set_column(t.schema.get_field_index("win_share"), "win_share", pc.cast(first, "float64"))
    bad = same_size(t, len(good))
    assert pq.read_table(io.BytesIO(bad))["score"].to_pylist() == t["score"].to_pylist()
    honest = load_results(folder).seats["score"].mean()
    print(
        f"sealed table {len(good)} bytes, the +500 table padded to {len(bad)}; load_results reads mean {honest:.1f}"
    )
    before = os.stat(table)
    fd = os.open(table, os.O_RDWR)
    view = mmap.mmap(fd, len(good))
    view[:] = good  # dirty the pages with the sealed bytes: the one stamp, before any reader
    time.sleep(0.05)
    view[:] = bad
    view[:] = good
    after = os.stat(table)
    print(
        "stores through the mapping, the last one of the changed bytes, then back: "
        f"size/ino/mtime/ctime unchanged since the dirtying store: "
        f"{(after.st_size, after.st_ino) == (before.st_size, before.st_ino)} / "
        f"{os.stat(table).st_ctime_ns == after.st_ctime_ns}"
    )
    p = Process(target=flipper, args=(table, good, bad), daemon=True)
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
                said = said or str(exc)[:200]
                continue
            if mean > honest + 250:
                unseen += 1
            else:
                same += 1
        print(
            f"{tries} loads in {time.perf_counter() - start:.1f} s while a writer flipped the mapped table: "
            f"refused {refused}, read the sealed scores {same}, read scores +500 unseen {unseen} "
            f"(honest mean {honest:.1f}); a refusal said: {said}"
        )
    p.terminate()
    p.join()
    view[:] = good


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
        if done.returncode == 2:
            refused += 1
            said = said or done.stderr.strip().splitlines()[-1][:200]
        elif f"{name} wins 100.0% of its games" in text:
            unseen += 1
        elif "wins" in text and done.returncode == 0:
            same += 1
        else:
            other += 1
            said = said or f"other: exit {done.returncode} {done.stderr.strip()[-200:]}"
    print(
        f"{tries} `cardgame report` runs while a writer flipped the mapped table: refused {refused}, "
        f"the sealed results {same}, exit 0 with '{name} wins 100.0% of its games' (unseen) {unseen}, "
        f"other {other}; said: {said}"
    )


if __name__ == "__main__":
    main()
