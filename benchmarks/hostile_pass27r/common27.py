"""What the attacks of this pass share: studies of planner against rusher under ``HP27R``
(default /tmp/hp27r), run with a seal key of their own (``XDG_CONFIG_HOME``, set by
run.sh), never the user's; no script reads any key. An inotify watch (ctypes) tells the
writer when a reader opens or closes a file."""

from __future__ import annotations

import ctypes
import os
import re
import select
import struct
import subprocess
from pathlib import Path

libc = ctypes.CDLL(None, use_errno=True)
IN_ACCESS = 0x1
IN_CLOSE_WRITE = 0x8
IN_CLOSE_NOWRITE = 0x10
IN_OPEN = 0x20
ROOT = os.environ.get("HP27R", "/tmp/hp27r")


def study_file(name: str, games: int, batch_size: int = 2, extra: str = "") -> str:
    """A study of planner against rusher, 2 players, ``games`` games a cell."""
    os.makedirs(ROOT, exist_ok=True)
    path = os.path.join(ROOT, f"{name}.toml")
    Path(path).write_text(
        f'name = "{name}"\nseed = 27\npool = ["planner", "rusher"]\nplayers = [2]\n'
        f'games_per_cell = {games}\nrotation = "permutations"\npairing = "none"\n'
        f'batch_size = {batch_size}\noutput = "{ROOT}/{name}"\n{extra}'
    )
    return path


def cardgame(*args: str, timeout: float = 400) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["cardgame", *args], capture_output=True, text=True, timeout=timeout)


def last_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = (done.stdout + done.stderr).strip().splitlines()
    return lines[-1][:220] if lines else ""


def report(folder: str, out: str) -> tuple[subprocess.CompletedProcess[str], str]:
    """``cardgame report FOLDER --format md``: the process and the Markdown it wrote."""
    if os.path.exists(out):
        os.remove(out)
    done = cardgame("report", folder, "--format", "md", "--out", out)
    return done, Path(out).read_text() if os.path.exists(out) else ""


def mentions(text: str, pattern: str) -> list[str]:
    return [line.strip()[:160] for line in text.splitlines() if re.search(pattern, line)]


class Watch:
    """inotify on folders: ``next(timeout)`` is the next (folder, name, mask) or None."""

    def __init__(self, folders: list[str], mask: int) -> None:
        self.fd = libc.inotify_init1(0)
        self.wd: dict[int, str] = {}
        for folder in folders:
            wd = libc.inotify_add_watch(self.fd, folder.encode(), mask)
            if wd < 0:
                raise OSError(ctypes.get_errno(), "inotify_add_watch")
            self.wd[wd] = folder
        self.pending: list[tuple[str, str, int]] = []

    def next(self, timeout: float | None = None) -> tuple[str, str, int] | None:
        while not self.pending:
            ready, _, _ = select.select([self.fd], [], [], timeout)
            if not ready:
                return None
            data = os.read(self.fd, 65536)
            at = 0
            while at < len(data):
                wd, mask, _, size = struct.unpack_from("iIII", data, at)
                name = data[at + 16 : at + 16 + size].rstrip(b"\0").decode()
                self.pending.append((self.wd.get(wd, "?"), name, mask))
                at += 16 + size
        return self.pending.pop(0)

    def close(self) -> None:
        os.close(self.fd)
