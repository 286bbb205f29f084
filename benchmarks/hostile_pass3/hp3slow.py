"""Stalls at import (third hostile pass): the module sleeps when it is imported by a game's
process (``_play`` on the stack) for GAME_SLEEP seconds, and by the host's load and check
processes for LOAD_SLEEP seconds; both without using CPU."""

from __future__ import annotations

import sys
import time
import traceback

from sims.strategies.planner import Planner

GAME_SLEEP = 15.0
LOAD_SLEEP = 0.0
where = [f.name for f in traceback.extract_stack()]
sleep = GAME_SLEEP if "_play" in where else LOAD_SLEEP if {"_load", "_check"} & set(where) else 0
sys.stderr.write(
    f"HOSTILE ImportStall: imported in {[w for w in where if w.startswith('_')]}, "
    f"sleeping {sleep} s\n"
)
time.sleep(sleep)


class ImportStall(Planner):
    """A planner whose module sleeps at import in each game's process."""
