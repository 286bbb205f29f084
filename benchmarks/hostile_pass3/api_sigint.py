"""SigioHost through the library (``sims.match.play_game`` in a plain Python process, as a
notebook or a tournament script of one's own would): the host inherits SIGINT's default
disposition there, so Python's handler is installed and a SIGIO-routed SIGINT kills it.

Usage: python api_sigint.py [Attack]   (from this folder, the project's venv active)."""

from __future__ import annotations

import sys

from cardgame.rules import Rules
from sims.match import GameSpec, play_game
from sims.seeding import new_guest_key
from sims.strategy import StrategySpec

name = sys.argv[1] if len(sys.argv) > 1 else "SigioHost"
seats = (StrategySpec("guest", f"hp3:{name}"), StrategySpec("rival", "planner"))
spec = GameSpec("t", "c", "base", Rules(), 2, seats, 3, 3, "process", guest_key=new_guest_key())
out = play_game(spec, record=False, decision_seconds=10.0)
g = out.game
print(
    {k: g[k] for k in g if k.startswith("failure") or k in ("failed",)}
    if isinstance(g, dict)
    else g
)
