# ruff: noqa: E501  (attack code: long report lines)
"""What every attack of this pass shares: a forged seats table (+500 scores, the first
strategy winning every game), an inotify watch, and the commands run against a folder."""

from __future__ import annotations

import ctypes
import os
import shutil
import struct
import subprocess
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq

libc = ctypes.CDLL(None, use_errno=True)
IN_MOVED_TO = 0x80
IN_CREATE = 0x100
IN_CLOSE_NOWRITE = 0x10
STUDY = [
    "--strategies",
    "planner,rusher",
    "--players",
    "2",
    "--games",
    "4",
    "--workers",
    "1",
    "--records",
]


def forged_seats(table: str, out: str) -> str:
    """Write ``table`` with every score +500 and its first strategy winning every game to
    ``out`` (its footer, the compaction's list of batches, kept); the strategy's name."""
    original = pq.read_table(table)
    t = original.set_column(
        original.schema.get_field_index("score"), "score", pc.add(original["score"], 500)
    )
    first = pc.equal(t["strategy"].cast("string"), t["strategy"].cast("string")[0])
    t = t.set_column(t.schema.get_field_index("is_winner"), "is_winner", first)
    t = t.set_column(t.schema.get_field_index("win_share"), "win_share", pc.cast(first, "float64"))
    pq.write_table(t.replace_schema_metadata(original.schema.metadata), out, compression="zstd")
    return str(t["strategy"].cast("string")[0])


def forge_folder(folder: str) -> str:
    """Forge every seats file of ``folder`` in place (its compact file or its parts)."""
    from sims.parts import encode_part, read_part

    compact = os.path.join(folder, "seats", "compact.parquet")
    if os.path.exists(compact):
        name = forged_seats(compact, compact + ".new")
        os.replace(compact + ".new", compact)
        return name
    for part in sorted(Path(folder, "seats", "_parts").glob("part-*.arrows.lz4")):
        t = read_part(part)
        t = t.set_column(t.schema.get_field_index("score"), "score", pc.add(t["score"], 500))
        first = pc.equal(t["strategy"].cast("string"), "planner")
        t = t.set_column(t.schema.get_field_index("is_winner"), "is_winner", first)
        t = t.set_column(
            t.schema.get_field_index("win_share"), "win_share", pc.cast(first, "float64")
        )
        part.write_bytes(encode_part(t))
    return "planner"


def copy(folder: str, to: str) -> str:
    shutil.rmtree(to, ignore_errors=True)
    shutil.copytree(folder, to)
    return to


def cardgame(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["cardgame", *args], capture_output=True, text=True)


def report(folder: str, name: str = "planner") -> str:
    """A plain ``cardgame report`` of ``folder``: its exit, its last line, and whether it says
    ``name`` wins every game."""
    out = folder.rstrip("/") + ".md"
    if os.path.exists(out):
        os.remove(out)
    done = cardgame("report", folder, "--format", "md", "--out", out)
    text = Path(out).read_text() if os.path.exists(out) else ""
    last = (done.stdout + done.stderr).strip().splitlines()[-1][:200]
    return f"report: exit {done.returncode}: {last!r}; '{name} wins 100.0%' in it: {f'{name} wins 100.0% of its games' in text}"


def scores(folder: str) -> list[int]:
    return pq.read_table(os.path.join(folder, "seats", "compact.parquet"))["score"].to_pylist()


class Watch:
    """inotify on a folder: ``wait(name, mask)`` blocks until an event on ``name``."""

    def __init__(self, folder: str, mask: int) -> None:
        self.fd = libc.inotify_init1(0)
        if libc.inotify_add_watch(self.fd, folder.encode(), mask) < 0:
            raise OSError(ctypes.get_errno(), "inotify_add_watch")

    def wait(self, name: str) -> None:
        while True:
            data = os.read(self.fd, 65536)
            at = 0
            while at < len(data):
                _, _, _, size = struct.unpack_from("iIII", data, at)
                found = data[at + 16 : at + 16 + size].rstrip(b"\0").decode()
                at += 16 + size
                if found == name or not name:  # "": any event (a watch on a file)
                    return
