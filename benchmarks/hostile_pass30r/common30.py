"""What this pass 30r attacks share: studies of planner against rusher under ``HP30R``
(default /tmp/hp30r), run with a seal key of their own (``XDG_CONFIG_HOME``, set here and by
run.sh), never the user's; no script reads any key."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = os.environ.get("HP30R", "/tmp/hp30r")
os.environ.setdefault("XDG_CONFIG_HOME", os.path.join(ROOT, "config"))


def study_file(name: str, games: int, batch_size: int = 2, extra: str = "") -> str:
    """A study of planner against rusher, 2 players, ``games`` games a cell."""
    os.makedirs(ROOT, exist_ok=True)
    path = os.path.join(ROOT, f"{name}.toml")
    Path(path).write_text(
        f'name = "{name}"\nseed = 30\npool = ["planner", "rusher"]\nplayers = [2]\n'
        f'games_per_cell = {games}\nrotation = "permutations"\npairing = "none"\n'
        f'batch_size = {batch_size}\noutput = "{ROOT}/{name}"\n{extra}'
    )
    return path


def cardgame(*args: str, timeout: float = 400) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["cardgame", *args], capture_output=True, text=True, timeout=timeout)


def last_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = (done.stdout + done.stderr).strip().splitlines()
    return lines[-1][:220] if lines else ""


def show(what: str, done: subprocess.CompletedProcess[str]) -> None:
    tb = "Traceback" in done.stderr
    warn = [ln[:140] for ln in done.stderr.splitlines() if ln.startswith("warning")]
    print(
        f"    {what}: exit {done.returncode}{' TRACEBACK' if tb else ''}: "
        f"{last_line(done)[:200]!r}{' warnings: ' + repr(warn) if warn else ''}",
        flush=True,
    )


# inotify (ctypes): the writer learns when a reader opens a file
import ctypes  # noqa: E402
import select  # noqa: E402
import struct  # noqa: E402

libc = ctypes.CDLL(None, use_errno=True)
IN_OPEN = 0x20


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
