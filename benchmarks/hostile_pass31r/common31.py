"""What this pass 31r's attacks share: studies of planner against rusher under ``HP31R``
(default /tmp/hp31r), run with a seal key of their own (``XDG_CONFIG_HOME``), never the
user's; no script reads any key."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = os.environ.get("HP31R", "/tmp/hp31r")
os.environ.setdefault("XDG_CONFIG_HOME", os.path.join(ROOT, "config"))


def study_file(name: str, games: int, batch_size: int = 2, extra: str = "") -> str:
    """A study of planner against rusher, 2 players, ``games`` games a cell."""
    os.makedirs(ROOT, exist_ok=True)
    path = os.path.join(ROOT, f"{name}.toml")
    Path(path).write_text(
        f'name = "{name}"\nseed = 31\npool = ["planner", "rusher"]\nplayers = [2]\n'
        f'games_per_cell = {games}\nrotation = "permutations"\npairing = "none"\n'
        f'batch_size = {batch_size}\noutput = "{ROOT}/{name}"\n{extra}'
    )
    return path


def cardgame(*args: str, timeout: float = 400) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["cardgame", *args], capture_output=True, text=True, timeout=timeout)


def show(what: str, done: subprocess.CompletedProcess[str]) -> None:
    tb = "Traceback" in done.stderr
    lines = (done.stdout + done.stderr).strip().splitlines()
    last = lines[-1][:200] if lines else ""
    print(f"    {what}: exit {done.returncode}{' TRACEBACK' if tb else ''}: {last!r}", flush=True)
