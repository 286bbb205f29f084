# ruff: noqa: E501  (attack code: long report lines)
"""Class 4 without a race: as race15.py (a file of a sealed folder made a link to a file
outside it, with the sealed bytes), but the writer watches the target with inotify and
swaps it right after each read: the seal's check reads the sealed bytes (its first read),
the reader the table with every score +500 (its second), and then the sealed bytes are
put back. python link15.py SEALED_FOLDER [TRIES]: TRIES `cardgame report` runs.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import struct
import subprocess
import sys
from multiprocessing import Process

import pyarrow.compute as pc
import pyarrow.parquet as pq

IN_CLOSE_NOWRITE = 0x10
BAD_AFTER = int(os.environ.get("BAD_AFTER", "2"))
CLOSES = int(os.environ.get("CLOSES", "5"))


def watcher(outside: str, good: str, bad: str) -> None:
    """A report opens the target five times: twice within a millisecond (the seal's check),
    then three times 30 ms later (the tables' read). After the second close: the bad table;
    after the fifth: the sealed table again (``BAD_AFTER``, ``CLOSES``)."""
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.inotify_init()
    libc.inotify_add_watch(fd, outside.encode(), IN_CLOSE_NOWRITE)
    target = os.path.join(outside, "compact.parquet")
    closes = 0
    while True:
        data = os.read(fd, 65536)
        i = 0
        while i < len(data):
            _, _mask, _, n = struct.unpack_from("iIII", data, i)
            name = data[i + 16 : i + 16 + n].rstrip(b"\0").decode()
            i += 16 + n
            if name != "compact.parquet":
                continue
            closes = closes % CLOSES + 1
            if closes not in (BAD_AFTER, CLOSES):
                continue
            src = bad if closes == BAD_AFTER else good
            shutil.copyfile(src, target + ".swap")
            os.replace(target + ".swap", target)


def main() -> None:
    sealed, tries = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 10
    folder, outside = sealed + "-watch", sealed + "-watched"
    for path in (folder, outside):
        shutil.rmtree(path, ignore_errors=True)
    shutil.copytree(sealed, folder)
    os.makedirs(outside)
    table = os.path.join(folder, "seats", "compact.parquet")
    good = os.path.join(sealed + "-good.parquet")
    bad = os.path.join(sealed + "-bad.parquet")
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
    name = str(t["strategy"].cast("string")[0])
    p = Process(target=watcher, args=(outside, good, bad), daemon=True)
    p.start()
    import time

    time.sleep(0.3)
    tally: dict[str, int] = {}
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
        if done.returncode != 0:
            key = "refused"
            said = said or done.stderr.strip()[-200:]
        elif f"{name} wins 100.0% of its games" in text:
            key = "exit 0, +500 and 100% wins (unseen)"
        else:
            key = "exit 0, the sealed results"
        tally[key] = tally.get(key, 0) + 1
        shutil.copyfile(good, os.path.join(outside, "compact.parquet"))  # the next run starts clean
    p.terminate()
    print(
        f"{tries} `cardgame report` runs of {folder} (its seats table a link, its target swapped after each read): {tally}; refusal: {said}"
    )
    shutil.copyfile(out, folder + ".last.md")


if __name__ == "__main__":
    main()
