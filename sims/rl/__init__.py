"""Reinforcement-learning interface: a PettingZoo AEC environment over the engine.

Needs the optional extra (``pip install -e ".[rl]"``: pettingzoo, gymnasium); without it,
importing ``sims.rl.env`` says what to install. Nothing else in ``sims`` imports this package,
so ``sims`` works without them. docs/rl.md describes the
action space, the observation vector and the rewards.

    from sims.rl.env import env  # PettingZoo's convention: the module has env and raw_env
    e = env(players=3)
    e.reset(seed=1)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_WHERE = {
    "ActionTable": "actions",
    "ObservationEncoder": "observation",
    "TTRCardGameEnv": "env",
}

__all__ = ["ActionTable", "ObservationEncoder", "TTRCardGameEnv"]

if TYPE_CHECKING:
    from .actions import ActionTable
    from .env import TTRCardGameEnv
    from .observation import ObservationEncoder


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'sims.rl' has no attribute {name!r}")
    module = importlib.import_module(f".{_WHERE[name]}", __name__)
    return getattr(module, name)
