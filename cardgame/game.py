"""A game: rules, player count and seed. Immutable; ``new_state`` starts a fresh state."""

from __future__ import annotations

from dataclasses import dataclass, field

from .catalogue import Catalogue, default_catalogue
from .errors import RulesError
from .rules import MAX_PLAYERS, MIN_PLAYERS, Rules
from .shuffling import SeededShuffles, ShuffleSource
from .state import GameState


@dataclass(frozen=True)
class Game:
    """The parameters that, with the players' decisions, fix a game completely."""

    players: int
    seed: int
    rules: Rules = field(default_factory=Rules)
    catalogue: Catalogue = field(default_factory=default_catalogue)
    big_city_set: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.players, bool) or not isinstance(self.players, int):
            raise RulesError(f"players must be a whole number, got {self.players!r}")
        if not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise RulesError(f"players must be 2, 3 or 4, got {self.players}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise RulesError(f"seed must be a whole number >= 0, got {self.seed!r}")
        problem = self.rules.deal_problem(self.players, self.catalogue.deck)  # R1, R3
        if problem is not None:
            raise RulesError(problem)
        object.__setattr__(self, "big_city_set", frozenset(self.catalogue.big_city_names))

    def new_state(self, record: bool = False, shuffles: ShuffleSource | None = None) -> GameState:
        """A fresh state after setup (R3-R5); ``record`` keeps a replayable game record."""
        source = shuffles if shuffles is not None else SeededShuffles(self.seed)
        return GameState(self, source, record=record)
