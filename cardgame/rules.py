"""Rule settings as data: a frozen object a study can vary (variants are parameters).

Defaults are the printed game (rulebook + rulings R1-R22). ``Rules.from_dict`` is the
boundary: unknown keys or impossible values are refused with a message naming the key.

Beside the printed rules' numbers, the levers a designer uses against a seat edge, all off by
default (docs/rules.md "Levers against a seat edge"): extra train cards and extra locomotives
at setup by seat (``seat_extra_cards``, ``seat_extra_locomotives``: one count per seat, seat
0 first; a TOML array ``[0, 1, 1]``, shorter arrays padded with zeros, or a table by seat
``{ 1 = 1 }``), and a first turn limited for the first seat (``first_turn = "one_card"``).
Whether the game's train deck can deal the setup depends on the deck too (card data):
``deal_problem`` says, ``Game`` refuses.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, NamedTuple

from .errors import RulesError
from .layout import (
    MAX_DESTINATIONS,
    MAX_FACE_UP,
    MAX_LOCOMOTIVES,
    MAX_OFFER,
    MAX_PLAYERS,
    MAX_ROUNDS,
    MIN_PLAYERS,
)
from .value import Value

DEFAULT_ROUNDS: Mapping[int, int] = MappingProxyType({2: 1, 3: 1, 4: 2})
# first_turn's values, by their number in the native core (CRules.first_turn): "full" the
# printed turn; "one_card" seat 0's first turn is a single train card (docs/rules.md)
FIRST_TURNS: tuple[str, ...] = ("full", "one_card")
NO_EXTRAS: tuple[int, ...] = (0,) * MAX_PLAYERS
SEAT_LEVERS = ("seat_extra_cards", "seat_extra_locomotives")  # one count per seat
MAX_EXTRA_CARDS = 20  # seat_extra_cards: like starting_hand


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
    # levers against a seat edge (not printed rules; off by default): per seat, seat 0 first
    seat_extra_cards: tuple[int, ...] = NO_EXTRAS  # R3: cards dealt after the hands
    seat_extra_locomotives: tuple[int, ...] = NO_EXTRAS  # R3: beside starting_locomotives
    first_turn: str = "full"  # R6, R10: "one_card": seat 0's first turn is one train card


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
        fixed = {"rounds": rounds}
        for key in SEAT_LEVERS:
            fixed[key] = _by_seat(getattr(made, key), key)
        if any(fixed[key] != getattr(made, key) for key in fixed):
            made = made._replace(**fixed)
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
            "starting_locomotives": (0, MAX_LOCOMOTIVES // MAX_PLAYERS),
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
        for key, high in (
            ("seat_extra_cards", MAX_EXTRA_CARDS),
            ("seat_extra_locomotives", MAX_LOCOMOTIVES),
        ):
            for seat, value in enumerate(getattr(self, key)):
                need(
                    isinstance(value, int) and not isinstance(value, bool),
                    f"{key}.{seat}",
                    f"must be a whole number, got {value!r}",
                )
                need(
                    0 <= value <= high,
                    f"{key}.{seat}",
                    f"must be between 0 and {high}, got {value}",
                )
        need(
            isinstance(self.first_turn, str) and self.first_turn in FIRST_TURNS,
            "first_turn",
            f"must be one of {', '.join(map(repr, FIRST_TURNS))}, got {self.first_turn!r}",
        )
        need(
            MAX_PLAYERS * self.destinations_dealt <= MAX_DESTINATIONS,
            "destinations_dealt",
            f"4 players would need more than the {MAX_DESTINATIONS} destination cards an "
            "edition may hold",
        )

    def deal_problem(
        self, players: int, deck: Sequence[int], tickets: int | None = None
    ) -> str | None:
        """Why a train deck of these counts (``Catalogue.deck``) and ``tickets`` destination
        cards cannot be dealt to ``players`` seats under these rules (R3, R5), in one line
        naming the key, or None: the locomotives handed out before the shuffle must be in the
        deck, the hands, the extra cards and the face-up row must leave at least one card to
        draw, and each seat must be dealt its offer of tickets."""
        n = players
        if tickets is not None and n * self.destinations_dealt > tickets:
            return (
                f"destinations: {n} players are dealt {n * self.destinations_dealt} tickets "
                f"(destinations_dealt {self.destinations_dealt} each), the edition has {tickets}"
            )
        extra_locos = sum(self.seat_extra_locomotives[:n])
        locos = n * self.starting_locomotives + extra_locos
        if locos > deck[-1]:  # the locomotives: the last count
            return (
                f"deck.locomotive: the deck has {deck[-1]} locomotives, {n} players start "
                f"with {locos} (starting_locomotives {self.starting_locomotives} each, "
                f"seat_extra_locomotives {extra_locos})"
            )
        total = sum(deck)
        extra = sum(self.seat_extra_cards[:n])
        dealt = locos + n * self.starting_hand + extra + self.face_up
        if dealt >= total:
            return (
                f"deck: {n} players would need {dealt} of the {total} train cards at setup "
                f"(starting_hand {self.starting_hand} each, seat_extra_cards {extra}, "
                f"{locos} locomotives, face_up {self.face_up}), leaving none to draw"
            )
        return None

    def to_dict(self) -> dict[str, Any]:
        data = self._asdict()
        data["rounds"] = {str(k): v for k, v in self.rounds}
        for key in SEAT_LEVERS:
            data[key] = list(data[key])
        return data

    @classmethod
    def from_json(cls, text: str) -> Rules:
        """``from_dict`` of a JSON object (``--rules``); a key given twice is refused (JSON
        would keep the last without a word)."""

        def unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
            keys = [key for key, _ in pairs]
            twice = next((key for key in keys if keys.count(key) > 1), None)
            if twice is not None:
                raise RulesError(f"rules: the key {twice!r} is given twice")
            return dict(pairs)

        data = json.loads(text, object_pairs_hook=unique)
        if not isinstance(data, dict):
            raise RulesError(f"rules: must be a JSON object of rule settings, got {text!r}")
        return cls.from_dict(data)

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
            given: dict[int, Any] = {}
            for key, value in rounds.items():
                try:
                    count = int(key)
                except (TypeError, ValueError):
                    raise RulesError(
                        f"rules.rounds: player count {key!r} is not 2, 3 or 4"
                    ) from None
                if count in given:  # "4" and "04": the last would win without a word
                    raise RulesError(
                        f"rules.rounds: player count {count} is given twice "
                        f"({given[count]!r} and {key!r})"
                    )
                given[count] = key
                merged[count] = value
            values["rounds"] = merged
        return cls(**values)

    def differences(self) -> dict[str, Any]:
        """Settings that differ from the printed game (names a variant)."""
        base = Rules().to_dict()
        return {k: v for k, v in self.to_dict().items() if base[k] != v}


def _by_seat(value: Any, key: str) -> tuple[int, ...]:
    """A seat lever as one count per seat (``MAX_PLAYERS`` of them): from a list (shorter
    ones padded with zeros) or a table by seat number (the others zero)."""
    if isinstance(value, Mapping):
        counts = list(NO_EXTRAS)
        given: dict[int, Any] = {}
        for seat, count in value.items():
            text = str(seat).strip()
            if (
                isinstance(seat, bool)
                or not (text.isascii() and text.isdigit())
                or int(text) >= MAX_PLAYERS
            ):
                raise RulesError(f"rules.{key}.{seat}: not a seat (0-{MAX_PLAYERS - 1})")
            if int(text) in given:  # "1" and "01"
                raise RulesError(
                    f"rules.{key}: seat {int(text)} is given twice ({given[int(text)]!r} and "
                    f"{seat!r})"
                )
            given[int(text)] = seat
            counts[int(text)] = count
        return tuple(counts)
    if isinstance(value, (list, tuple)):
        if len(value) > MAX_PLAYERS:
            raise RulesError(f"rules.{key}: {len(value)} seats, a game has at most {MAX_PLAYERS}")
        return (*value, *NO_EXTRAS[len(value) :])
    raise RulesError(f"rules.{key}: must list a count per seat (seat 0 first), got {value!r}")


DEFAULT_RULES = Rules()


def same_rules_at(a: Rules, b: Rules, players: int) -> bool:
    """Whether two rule sets play identically at ``players``: the rounds count only there,
    the deal of later rounds only when there is a later round (R19), a seat lever only for
    the seats the game has."""
    left, right = a.to_dict(), b.to_dict()
    left.pop("rounds"), right.pop("rounds")
    for key in SEAT_LEVERS:
        left[key], right[key] = left[key][:players], right[key][:players]
    if a.rounds_for(players) == b.rounds_for(players) == 1:
        left.pop("round_two_deal"), right.pop("round_two_deal")
    return left == right and a.rounds_for(players) == b.rounds_for(players)
