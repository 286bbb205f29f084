"""Rule settings as data: a frozen object a study can vary (variants are parameters).

Defaults are the printed game (rulebook + rulings R1-R22). ``Rules.from_dict`` is the
boundary: unknown keys or impossible values are refused with a message naming the key.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from .errors import RulesError
from .layout import (
    DESTINATIONS,
    LOCOMOTIVES,
    MAX_FACE_UP,
    MAX_OFFER,
    MAX_PLAYERS,
    MAX_ROUNDS,
    MIN_PLAYERS,
    TRAIN_CARDS,
)
from .value import Value

DEFAULT_ROUNDS: Mapping[int, int] = MappingProxyType({2: 1, 3: 1, 4: 2})


class _RulesFields(NamedTuple):
    # R17-R19: rounds per player count; given as a mapping (a partial one keeps the printed
    # counts), stored as sorted pairs
    rounds: tuple[tuple[int, int], ...] = tuple(DEFAULT_ROUNDS.items())
    starting_hand: int = 7  # R3
    starting_locomotives: int = 1  # R3
    face_up: int = 5  # R3
    destinations_dealt: int = 6  # R5
    destinations_min_keep: int = 1  # R5
    destinations_drawn: int = 4  # R13
    round_two_deal: int = 4  # R19
    three_locomotive_wipe: bool = False  # R4


class Rules(Value, _RulesFields):
    """Every setting that a rule variant may change; defaults are the printed rules.

    Truly immutable (cardgame.value): every seat's view carries the game's rules.
    """

    __slots__ = ()

    def __new__(cls, *args: Any, **kwargs: Any) -> Rules:
        made: Any = _RulesFields.__new__(cls, *args, **kwargs)
        rounds: Any = made.rounds
        if isinstance(rounds, Mapping):  # a partial mapping keeps the printed counts
            rounds = tuple({**DEFAULT_ROUNDS, **rounds}.items())
        if not isinstance(rounds, tuple) or not all(
            isinstance(p, tuple) and len(p) == 2 for p in rounds
        ):
            raise RulesError("rules.rounds: must map player count to rounds")
        rounds = tuple(sorted(rounds, key=lambda p: str(p[0])))
        if rounds != made.rounds:
            made = _RulesFields.__new__(cls, rounds, *made[1:])
        made._validate()
        return made

    def rounds_for(self, players: int) -> int:
        return dict(self.rounds)[players]

    def _validate(self) -> None:
        def need(ok: bool, key: str, message: str) -> None:
            if not ok:
                raise RulesError(f"rules.{key}: {message}")

        counts = [players for players, _ in self.rounds]
        need(len(counts) == len(set(counts)), "rounds", "a player count is given twice")
        for players, rounds in self.rounds:
            need(
                isinstance(players, int) and MIN_PLAYERS <= players <= MAX_PLAYERS,
                "rounds",
                f"player count {players!r} is not 2, 3 or 4",
            )
            need(
                isinstance(rounds, int)
                and not isinstance(rounds, bool)
                and 1 <= rounds <= MAX_ROUNDS,
                "rounds",
                f"rounds for {players} players must be 1-{MAX_ROUNDS}, got {rounds!r}",
            )
        for players in range(MIN_PLAYERS, MAX_PLAYERS + 1):
            need(players in counts, "rounds", f"missing the count for {players} players")
        ints = {
            "starting_hand": (0, 20),
            "starting_locomotives": (0, LOCOMOTIVES // MAX_PLAYERS),
            "face_up": (0, MAX_FACE_UP),
            "destinations_dealt": (1, MAX_OFFER),
            "destinations_min_keep": (0, MAX_OFFER),
            "destinations_drawn": (1, MAX_OFFER),
            "round_two_deal": (0, 20),
        }
        for key, (low, high) in ints.items():
            value = getattr(self, key)
            need(
                isinstance(value, int) and not isinstance(value, bool),
                key,
                f"must be a whole number, got {value!r}",
            )
            need(low <= value <= high, key, f"must be between {low} and {high}, got {value}")
        need(
            self.destinations_min_keep <= self.destinations_dealt,
            "destinations_min_keep",
            f"cannot exceed destinations_dealt ({self.destinations_dealt})",
        )
        need(
            isinstance(self.three_locomotive_wipe, bool),
            "three_locomotive_wipe",
            f"must be true or false, got {self.three_locomotive_wipe!r}",
        )
        dealt = MAX_PLAYERS * (self.starting_hand + self.starting_locomotives) + self.face_up
        need(
            dealt < TRAIN_CARDS,
            "starting_hand",
            f"4 players would need {dealt} of the {TRAIN_CARDS} train cards at setup",
        )
        need(
            MAX_PLAYERS * self.destinations_dealt <= DESTINATIONS,
            "destinations_dealt",
            f"4 players would need more than the {DESTINATIONS} destination cards",
        )

    def to_dict(self) -> dict[str, Any]:
        data = self._asdict()
        data["rounds"] = {str(k): v for k, v in self.rounds}
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> Rules:
        """Build rules from a mapping (TOML, JSON); missing keys keep their defaults."""
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise RulesError(f"rules: expected a table of settings, got {type(data).__name__}")
        known = set(cls._fields)
        unknown = sorted(set(data) - known)
        if unknown:
            raise RulesError(
                f"rules.{unknown[0]}: unknown setting (known: {', '.join(sorted(known))})"
            )
        values = dict(data)
        if "rounds" in values:
            rounds = values["rounds"]
            if not isinstance(rounds, dict):
                raise RulesError("rules.rounds: must map player count to rounds")
            merged = dict(DEFAULT_ROUNDS)
            for key, value in rounds.items():
                try:
                    merged[int(key)] = value
                except (TypeError, ValueError):
                    raise RulesError(
                        f"rules.rounds: player count {key!r} is not 2, 3 or 4"
                    ) from None
            values["rounds"] = merged
        return cls(**values)

    def differences(self) -> dict[str, Any]:
        """Settings that differ from the printed game (names a variant)."""
        base = Rules().to_dict()
        return {k: v for k, v in self.to_dict().items() if base[k] != v}


DEFAULT_RULES = Rules()
