"""A random legal player, uniform over the legal actions: the engine's own test driver and
the CLI's players until scripted strategies are installed (sims)."""

from __future__ import annotations

import random

from .game import Game
from .state import GameState


def play_random(game: Game, record: bool = False, checked: bool = True) -> GameState:
    """Play ``game`` to the end with every seat choosing uniformly among legal actions.

    The players' RNG is seeded from the game seed (not the deck's RNG), so the game is a
    pure function of (rules, seed).
    """
    state = game.new_state(record=record)
    rng = random.Random(f"random-player:{game.seed}")
    apply = state.apply if checked else state.apply_unchecked
    while not state.is_over:
        actions = state.legal_actions()
        apply(actions[rng.randrange(len(actions))])
    return state
