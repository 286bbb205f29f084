"""What this pass's attacks share: studies of planner against rusher under ``HP28R``
(default /tmp/hp28r), run with a seal key of their own (``XDG_CONFIG_HOME``, set here and by
run.sh), never the user's; no script reads any key."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = os.environ.get("HP28R", "/tmp/hp28r")
os.environ.setdefault("XDG_CONFIG_HOME", os.path.join(ROOT, "config"))


def study_file(name: str, games: int, batch_size: int = 2, extra: str = "") -> str:
    """A study of planner against rusher, 2 players, ``games`` games a cell."""
    os.makedirs(ROOT, exist_ok=True)
    path = os.path.join(ROOT, f"{name}.toml")
    Path(path).write_text(
        f'name = "{name}"\nseed = 28\npool = ["planner", "rusher"]\nplayers = [2]\n'
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
