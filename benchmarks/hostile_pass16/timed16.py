# ruff: noqa: E501  (attack code: long report lines)
"""Class (2), as ``mmap16.py`` but timed, not blind: the writer watches the table with
inotify (outside any sandbox: a writer of the folder) and, at the first close after a
command opened it (the seal's hash of the sealed bytes), stores the +500 table through its
shared mapping; when the command has exited it stores the sealed bytes back. No size, inode
or time moves, so ``check_sealed``'s before/after ``folder_state`` sees nothing.
python timed16.py SEALED_FOLDER [TRIES] [report|view|replay|resume]
"""

from __future__ import annotations

import ctypes
import mmap
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq
from mmap16 import same_size

IN_CLOSE_NOWRITE = 0x10
libc = ctypes.CDLL(None, use_errno=True)


class Watch:
    """Store ``bad`` at the first close of ``path`` once armed (then disarm)."""

    def __init__(self, path: str, view: mmap.mmap, bad: bytes) -> None:
        self.fd = libc.inotify_init1(0)
        libc.inotify_add_watch(self.fd, path.encode(), IN_CLOSE_NOWRITE)
        self.view, self.bad = view, bad
        self.armed = threading.Event()
        self.fired = 0
        threading.Thread(target=self.loop, daemon=True).start()

    def loop(self) -> None:
        while True:
            data = os.read(self.fd, 4096)
            for _ in range(0, len(data), 16):
                if self.armed.is_set():
                    self.armed.clear()
                    self.view[:] = self.bad
                    self.fired += 1


def bad_table(table: str) -> tuple[bytes, bytes, str]:
    with open(table, "rb") as f:
        good = f.read()
    t = pq.read_table(table)
    t = t.set_column(t.schema.get_field_index("score"), "score", pc.add(t["score"], 500))
    first = pc.equal(t["strategy"].cast("string"), t["strategy"].cast("string")[0])
    t = t.set_column(t.schema.get_field_index("is_winner"), "is_winner", first)
    t = t.set_column(t.schema.get_field_index("win_share"), "win_share", pc.cast(first, "float64"))
    return good, same_size(t, len(good)), str(t["strategy"].cast("string")[0])


def main() -> None:
    sealed, tries = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 4
    mode = sys.argv[3] if len(sys.argv) > 3 else "report"
    folder = sealed + "-timed"
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(sealed, folder)
    table = os.path.join(folder, "seats", "compact.parquet")
    good, bad, name = bad_table(table)
    if mode in ("view", "replay"):  # the record file: every game's seats swapped by name
        table = os.path.join(
            folder, "records", sorted(os.listdir(os.path.join(folder, "records")))[0]
        )
        with open(table, "rb") as f:
            good = f.read()
        bad = good.replace(
            b'"strategies":["planner","rusher"]', b'"strategies":["rusher","planner"]'
        )
        assert len(bad) == len(good) and bad != good
    fd = os.open(table, os.O_RDWR)
    view = mmap.mmap(fd, len(good))
    view[:] = good  # the one stamp, before any reader
    watch = Watch(table, view, bad)
    counts: dict[str, int] = {}
    said = ""
    for k in range(tries):
        out = f"{folder}.{k}.md"
        line = {
            "report": ["cardgame", "report", folder, "--format", "md", "--out", out],
            "view": ["cardgame", "view", folder, "-o", out + ".html", "--playouts", "0"],
            "replay": ["cardgame", "replay", table],
            "resume": [
                "cardgame",
                "simulate",
                "--resume",
                folder,
                "--workers",
                "1",
                "--no-progress",
            ],
        }[mode]
        for stale in (out, out + ".html"):
            if os.path.exists(stale):
                os.remove(stale)
        watch.armed.set()
        done = subprocess.run(line, capture_output=True, text=True)
        watch.armed.clear()
        view[:] = good
        text = Path(out).read_text() if os.path.exists(out) else ""
        if done.returncode != 0:
            kind = f"exit {done.returncode}"
            said = said or done.stderr.strip()[-200:]
        elif mode == "view" and b'["rusher","planner"]' in Path(out + ".html").read_bytes():
            kind = "exit 0, the page shows the seats swapped (unseen)"
        elif f"{name} wins 100.0% of its games" in text:
            kind = "exit 0, +500 and 100% wins (unseen)"
        else:
            kind = "exit 0, the sealed results"
            said = said or (done.stdout + done.stderr).strip()[-200:]
        counts[kind] = counts.get(kind, 0) + 1
    st = os.stat(table)
    print(
        f"{tries} `cardgame {mode}` runs, the table flipped at its first close: {counts}; stores made {watch.fired}; said: {said}"
    )
    print(
        f"the table now: {len(Path(table).read_bytes())} bytes, sealed bytes back: {Path(table).read_bytes() == good}; ctime {st.st_ctime_ns}"
    )


if __name__ == "__main__":
    main()
