"""A game: rules, player count and seed. Immutable; ``new_state`` starts a fresh state."""

from __future__ import annotations

from dataclasses import dataclass, field

from .catalogue import Catalogue, default_catalogue
from .errors import RulesError
from .rules import DEFAULT_RULES, MAX_PLAYERS, MIN_PLAYERS, Rules
from .shuffling import SeededShuffles, ShuffleSource
from .state import GameState


@dataclass(frozen=True)
class Game:
    """The parameters that, with the players' decisions, fix a game completely."""

    players: int
    seed: int
    rules: Rules = DEFAULT_RULES  # truly immutable: one shared value, not validated per game
    catalogue: Catalogue = field(default_factory=default_catalogue)
    big_city_set: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.players, bool) or not isinstance(self.players, int):
            raise RulesError(f"players must be a whole number, got {self.players!r}")
        if not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise RulesError(f"players must be 2, 3 or 4, got {self.players}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise RulesError(f"seed must be a whole number >= 0, got {self.seed!r}")
        problem, big_city_set = _table_facts(self.rules, self.catalogue, self.players)
        if problem is not None:
            raise RulesError(problem)
        object.__setattr__(self, "big_city_set", big_city_set)

    def new_state(self, record: bool = False, shuffles: ShuffleSource | None = None) -> GameState:
        """A fresh state after setup (R3-R5); ``record`` keeps a replayable game record."""
        source = shuffles if shuffles is not None else SeededShuffles(self.seed)
        return GameState(self, source, record=record)


# (id(rules), id(catalogue), players) -> (rules, catalogue, deal problem, big-city names)
_FACTS: dict[tuple[int, int, int], tuple[Rules, Catalogue, str | None, frozenset[str]]] = {}
_FACTS_HELD = 64  # entries before the cache starts again (a study has a few per worker)


def _table_facts(
    rules: Rules, catalogue: Catalogue, players: int
) -> tuple[str | None, frozenset[str]]:
    """Whether the deck can be dealt (R1, R3) and the big cities' names: they depend only on
    (rules, catalogue, players), so a worker works them out once per cell, not per game.

    Keyed on the objects themselves by identity (each entry holds them, so their ids are not
    reused while it lives): an edited catalogue is never served the printed one's facts,
    and hashing a catalogue would cost more than the facts."""
    key = (id(rules), id(catalogue), players)
    held = _FACTS.get(key)
    if held is not None and held[0] is rules and held[1] is catalogue:
        return held[2], held[3]
    problem = rules.deal_problem(players, catalogue.deck, len(catalogue.destinations))
    big_city_set = frozenset(catalogue.big_city_names)
    if len(_FACTS) >= _FACTS_HELD:
        _FACTS.clear()
    _FACTS[key] = (rules, catalogue, problem, big_city_set)
    return problem, big_city_set
