# ruff: noqa: E501  (attack code: long report lines)
"""A compact file is hashed, before it lands, "through the writer's own handle": but that
handle is the temporary file's inode, which any writer of the folder can open by its name
(``.compact.parquet.PID.tmp``, mode 0644) and write in place. Once the writer has written
the footer (the file ends with ``PAR1``) and before ``land`` hashes it, the attacker writes
a forged table (every planner seat wins, scores +500) over it through its own handle: the
run hashes the forged bytes, notes them as its own, renames and seals them; exit 0, and the
report shows the forgery.

The forged bytes come from a twin run of the same study in another folder (a game is a pure
function of the study and seed, so its compact file names the same batches).

python inplace22.py 24     # a small run: the compaction in the parent's threads
python inplace22.py 80     # a big run: its compaction forked
python inplace22.py check  # a check's folder (checks/search, --check-search 2)
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pyarrow.parquet as pq
from common import ROOT, Watch, cardgame, forged_table, last_line, report, study_file

IN_CREATE = 0x100
IN_MODIFY = 0x2
TEMP = re.compile(r"^\.compact.*\.tmp$")


def forged_bytes(twin: str, within: str = "") -> bytes:
    original = pq.read_table(os.path.join(twin, within, "seats", "compact.parquet"))
    sink = io.BytesIO()
    pq.write_table(
        forged_table(original).replace_schema_metadata(original.schema.metadata),
        sink,
        compression="zstd",
    )
    return sink.getvalue()


def ends_whole(fd: int) -> bool:
    size = os.fstat(fd).st_size
    if size < 12:
        return False
    tail = os.pread(fd, 8, size - 8)
    return tail[4:] == b"PAR1" and int.from_bytes(tail[:4], "little") < size


def attack(seats: str, forged: bytes, done: list[str]) -> None:
    while not os.path.isdir(seats):
        time.sleep(0.001)
    watch = Watch(seats, IN_CREATE | IN_MODIFY)
    fd = -1
    for name in watch.events():
        if not TEMP.match(name):
            continue
        if fd < 0:
            try:
                fd = os.open(os.path.join(seats, name), os.O_RDWR)
            except OSError:
                continue
            done.append(f"opened {name}")
        if ends_whole(fd):
            os.pwrite(fd, forged, 0)
            os.ftruncate(fd, len(forged))
            done.append(f"wrote {len(forged)} forged bytes over {name}")
            os.close(fd)
            return


CHECK = [
    "--strategies",
    "planner,rusher",
    "--players",
    "2",
    "--games",
    "4",
    "--workers",
    "1",
    "--no-progress",
    "--check-search",
    "2",
]


def report_of(folder: str, out: str) -> str:
    """A report of ``folder`` written to ``out`` (outside it): exit, last line, planner's rate."""
    done = cardgame("report", folder, "--format", "md", "--out", out)
    text = Path(out).read_text() if os.path.exists(out) else ""
    rate = re.search(r"planner wins [0-9.]+% of its games", text)
    return f"report: exit {done.returncode}: {last_line(done)!r} ({rate.group(0) if rate else 'no rate'})"


def check_folder() -> None:
    """The same against a check's folder: its compaction is the same writer."""
    twin = os.path.join(ROOT, "check-twin")
    shutil.rmtree(twin, ignore_errors=True)
    done = cardgame("simulate", *CHECK, "--out", twin)
    within = os.path.join("checks", "search")
    print(
        f"  twin run: exit {done.returncode}: {last_line(done)!r}; its check: {report_of(os.path.join(twin, within), twin + '-search.md')}"
    )
    forged = forged_bytes(twin, within)
    folder = os.path.join(ROOT, "check-inplace")
    shutil.rmtree(folder, ignore_errors=True)
    what: list[str] = []
    seats = os.path.join(folder, within, "seats")
    thread = threading.Thread(target=attack, args=(seats, forged, what), daemon=True)
    thread.start()
    run = subprocess.run(
        ["cardgame", "simulate", *CHECK, "--out", folder],
        capture_output=True,
        text=True,
        timeout=600,
    )
    print(f"  attacked run: exit {run.returncode}: {last_line(run)!r}")
    print(f"  attacker: {what}")
    print(f"  its check's folder: {report_of(os.path.join(folder, within), folder + '-search.md')}")
    scores = pq.read_table(os.path.join(folder, within, "seats", "compact.parquet"))[
        "score"
    ].to_pylist()
    twins = pq.read_table(os.path.join(twin, within, "seats", "compact.parquet"))[
        "score"
    ].to_pylist()
    print(f"  its check's scores: {scores[:4]} (the twin's: {twins[:4]})")
    print(f"  the study: {report(folder)}")


def main() -> None:
    if sys.argv[1:] == ["check"]:
        check_folder()
        return
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 24
    name = f"inplace{games}"
    path = study_file(name, games, 1)
    twin = os.path.join(ROOT, f"twin{games}")
    shutil.rmtree(twin, ignore_errors=True)
    done = cardgame("simulate", path, "--workers", "1", "--no-progress", "--out", twin)
    print(f"  twin run: exit {done.returncode}: {last_line(done)!r}; {report(twin)}")
    forged = forged_bytes(twin)
    folder = os.path.join(ROOT, name)
    shutil.rmtree(folder, ignore_errors=True)
    what: list[str] = []
    thread = threading.Thread(
        target=attack, args=(os.path.join(folder, "seats"), forged, what), daemon=True
    )
    thread.start()
    run = subprocess.run(
        ["cardgame", "simulate", path, "--workers", "1", "--no-progress"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    print(f"  attacked run: exit {run.returncode}: {last_line(run)!r}")
    print(f"  attacker: {what}")
    print(f"  after: {report(folder)}")
    view = cardgame("view", folder)
    print(f"  view: exit {view.returncode}: {last_line(view)!r}")
    again = cardgame("simulate", path, "--workers", "1", "--no-progress", "--resume")
    print(f"  resume: exit {again.returncode}: {last_line(again)!r}")


if __name__ == "__main__":
    main()
