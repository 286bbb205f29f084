"""What the attacks of this pass share: a study of many one-game batches (a big run: its
compaction is forked), a forged part (every score +500, planner winning every game), an
inotify watch, and the commands run against a folder. Every run uses a seal key of its own
(``XDG_CONFIG_HOME``, set by run.sh), never the user's; no script reads any key."""

from __future__ import annotations

import ctypes
import os
import re
import shutil
import struct
import subprocess
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq

libc = ctypes.CDLL(None, use_errno=True)
IN_MOVED_TO = 0x80
IN_CREATE = 0x100
IN_CLOSE_WRITE = 0x8
ROOT = os.environ.get("HP26R", "/tmp/hp26r")


def study_file(name: str, games: int, batch_size: int = 1, extra: str = "") -> str:
    """A study of planner against rusher, 2 players, ``games`` games in batches of
    ``batch_size`` (80 batches of one game: past the 64 that fork the compaction)."""
    path = os.path.join(ROOT, f"{name}.toml")
    Path(path).write_text(
        f'name = "{name}"\nseed = 20\npool = ["planner", "rusher"]\nplayers = [2]\n'
        f'games_per_cell = {games}\nrotation = "permutations"\npairing = "none"\n'
        f'batch_size = {batch_size}\noutput = "{ROOT}/{name}"\n{extra}'
    )
    return path


def forged_table(t):
    t = t.set_column(t.schema.get_field_index("score"), "score", pc.add(t["score"], 500))
    first = pc.equal(t["strategy"].cast("string"), "planner")
    t = t.set_column(t.schema.get_field_index("is_winner"), "is_winner", first)
    return t.set_column(
        t.schema.get_field_index("win_share"), "win_share", pc.cast(first, "float64")
    )


def forge_part(part: Path, spare: str, put: bool = True) -> None:
    """Put a forged copy of the seats part ``part`` in its place, by rename (written first
    at ``spare``, outside the folder, on the same file system; ``put=False`` leaves it
    there for a rename later)."""
    from sims.parts import encode_part, read_part

    Path(spare).write_bytes(encode_part(forged_table(read_part(part))))
    if put:
        os.rename(spare, part)


def forge_compact(table: str, spare: str) -> None:
    """The same for a compact seats file (its footer, the batches it holds, kept)."""
    original = pq.read_table(table)
    pq.write_table(
        forged_table(original).replace_schema_metadata(original.schema.metadata),
        spare,
        compression="zstd",
    )
    os.rename(spare, table)


def copy(folder: str, to: str) -> str:
    shutil.rmtree(to, ignore_errors=True)
    shutil.copytree(folder, to)
    return to


def cardgame(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["cardgame", *args], capture_output=True, text=True, timeout=timeout)


def last_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = (done.stdout + done.stderr).strip().splitlines()
    return lines[-1][:220] if lines else ""


def report(folder: str, name: str = "planner") -> str:
    """A plain ``cardgame report`` of ``folder``: its exit, its last line, and whether it
    says ``name`` wins every game."""
    out = folder.rstrip("/") + ".md"
    if os.path.exists(out):
        os.remove(out)
    done = cardgame("report", folder, "--format", "md", "--out", out)
    text = Path(out).read_text() if os.path.exists(out) else ""
    won = f"{name} wins 100.0% of its games" in text
    rate = re.search(rf"{name} wins [0-9.]+% of its games", text)
    return (
        f"report: exit {done.returncode}: {last_line(done)!r}; '{name} wins 100.0%' in it: {won}"
        f" ({rate.group(0) if rate else 'no rate'})"
    )


def scores(folder: str) -> list[int]:
    return pq.read_table(os.path.join(folder, "seats", "compact.parquet"))["score"].to_pylist()


class Watch:
    """inotify on a folder: ``events()`` yields the names of its events as they come."""

    def __init__(self, folder: str, mask: int) -> None:
        self.fd = libc.inotify_init1(0)
        if libc.inotify_add_watch(self.fd, folder.encode(), mask) < 0:
            raise OSError(ctypes.get_errno(), "inotify_add_watch")

    def events(self):
        while True:
            data = os.read(self.fd, 65536)
            at = 0
            while at < len(data):
                _, _, _, size = struct.unpack_from("iIII", data, at)
                yield data[at + 16 : at + 16 + size].rstrip(b"\0").decode()
                at += 16 + size
