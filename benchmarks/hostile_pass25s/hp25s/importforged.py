# ruff: noqa: E501  (attack code: the exact line it forges)
"""Item 5: a module whose import raises, its words padded with U+2800 so that a forged line
starts a terminal row of its own in the run's one-line refusal (``hp25s.importforged:X``)."""

import os

from hp25s import BLANK, key

_width = int(key()) if key().isdigit() else 80
_head = "cardgame simulate: error: command line: cannot load strategy 'hp25s.importforged:X': RuntimeError: "
raise RuntimeError(
    BLANK * ((-len(_head)) % _width)
    + "cardgame simulate: error: the planner failed its check; run refused"
    + f" [in sandbox: {not os.path.exists('/proc/self')}]"
)
