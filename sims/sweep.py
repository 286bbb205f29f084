"""Sweeps: one printed number, or a grid of two, played at several values on the same deals.

``[sweeps.NAME]`` names a ``parameter`` (a rule setting such as ``destinations_drawn`` or
``rounds.4``, a seat lever's count for one seat ``seat_extra_cards.1``, a ticket's points
``destinations.24.points``, a bonus ``big_cities.Chicago``, the train deck's count of a card
kind ``deck.red`` or ``deck.locomotive``) and its ``values`` (or ``start``/``stop``/``step``,
the stop included); ``parameters`` and ``values`` as two lists make a grid. Each value
becomes a variant of the study named ``NAME=VALUE`` (``NAME=V1,V2`` on a grid); the value
the base game already has is the base variant itself, so every value is compared with the
printed one on the same deals (the study is paired by deals: common random numbers).
"""

from __future__ import annotations

import itertools
from typing import Any

from cardgame import Catalogue, Rules
from cardgame.rules import MAX_PLAYERS, SEAT_LEVERS

from .errors import StudyError
from .plan import Sweep

MAX_POINTS_PER_SWEEP = 100  # values (or grid points) of one sweep: more is a typo
SWEEP_KEYS = {"parameter", "parameters", "values", "start", "stop", "step", "players"}


def parse_sweeps(
    data: Any, base_rules: Rules, base_cards: Catalogue, base: str, where: str
) -> tuple[dict[str, Sweep], dict[str, dict[str, Any]]]:
    """The sweeps of a study file, and the variant tables they add (to be parsed like the
    file's own ``[variants.*]``)."""
    if not isinstance(data, dict):
        raise StudyError(f"{where}: sweeps: must be a table of named sweeps")
    sweeps: dict[str, Sweep] = {}
    tables: dict[str, dict[str, Any]] = {}
    for name, table in data.items():
        here = f"{where}: sweeps.{name}"
        if not isinstance(table, dict):
            raise StudyError(f"{here}: must be a table (parameter, values)")
        unknown = sorted(set(table) - SWEEP_KEYS)
        if unknown:
            raise StudyError(
                f"{here}.{unknown[0]}: unknown key (known: {', '.join(sorted(SWEEP_KEYS))})"
            )
        parameters, grids = _axes(table, here)
        printed = tuple(printed_value(p, base_rules, base_cards, here) for p in parameters)
        points = []
        for values in itertools.product(*grids):
            if values == printed:
                points.append((values, base))
                continue
            variant = f"{name}=" + ",".join(show_value(v) for v in values)
            variant_table: dict[str, Any] = {}
            for parameter, value in zip(parameters, values, strict=True):
                set_value(variant_table, parameter, value)
            if "players" in table:
                variant_table["players"] = table["players"]
            tables[variant] = variant_table
            points.append((values, variant))
        if len(points) > MAX_POINTS_PER_SWEEP:
            raise StudyError(f"{here}: {len(points)} values, at most {MAX_POINTS_PER_SWEEP}")
        sweeps[name] = Sweep(name, parameters, tuple(points), printed)
    return sweeps, tables


def _axes(table: dict[str, Any], here: str) -> tuple[tuple[str, ...], list[list[int | bool]]]:
    """The parameters and the values of each."""
    if ("parameter" in table) == ("parameters" in table):
        raise StudyError(f"{here}: give parameter (one) or parameters (a grid of two)")
    if "parameter" in table:
        parameters = [table["parameter"]]
        grids = [_values(table, here)]
    else:
        parameters = table["parameters"]
        values = table.get("values")
        if not (isinstance(parameters, list) and len(parameters) == 2):
            raise StudyError(f"{here}.parameters: must list two parameters (a grid)")
        if not (isinstance(values, list) and len(values) == 2):
            raise StudyError(f"{here}.values: a grid needs two lists, one per parameter")
        grids = [_values({"values": v}, f"{here}.values[{i}]") for i, v in enumerate(values)]
    for parameter in parameters:
        if not isinstance(parameter, str) or not parameter:
            raise StudyError(f"{here}: a parameter must be a name such as destinations.24.points")
    if len(set(parameters)) != len(parameters):
        raise StudyError(f"{here}.parameters: the same parameter twice")
    return tuple(parameters), grids


def _values(table: dict[str, Any], here: str) -> list[int | bool]:
    if "values" in table:
        if any(k in table for k in ("start", "stop", "step")):
            raise StudyError(f"{here}: give values or start/stop/step, not both")
        values = table["values"]
        if not isinstance(values, list) or not values:
            raise StudyError(f"{here}.values: must be a non-empty list")
        for value in values:
            if not isinstance(value, int):  # a bool is an int: for on/off settings
                raise StudyError(f"{here}.values: {value!r} is not a whole number or a boolean")
        if len(set(values)) != len(values):
            raise StudyError(f"{here}.values: a value is listed twice")
        return list(values)
    if not all(k in table for k in ("start", "stop")):
        raise StudyError(f"{here}: give values = [...] or start, stop (and step)")
    start, stop, step = table["start"], table["stop"], table.get("step", 1)
    for key, value in (("start", start), ("stop", stop), ("step", step)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise StudyError(f"{here}.{key}: must be a whole number, got {value!r}")
    if step <= 0 or stop < start:
        raise StudyError(f"{here}: needs start <= stop and step > 0")
    if (stop - start) // step + 1 > MAX_POINTS_PER_SWEEP:
        raise StudyError(f"{here}: more than {MAX_POINTS_PER_SWEEP} values")
    return list(range(start, stop + 1, step))


def printed_value(parameter: str, rules: Rules, cards: Catalogue, here: str) -> int | bool:
    """The base game's value of ``parameter`` (refusing a name that is no parameter)."""
    parts = parameter.split(".")
    if parts[0] == "destinations" and len(parts) == 3 and parts[2] == "points":
        if (
            parts[1].isascii()
            and parts[1].isdigit()
            and any(d.id == int(parts[1]) for d in cards.destinations)
        ):
            return cards.destination(int(parts[1])).points
        raise StudyError(f"{here}: {parameter}: unknown destination id")
    if parts[0] == "big_cities" and len(parts) in (2, 3) and parts[2:] in ([], ["points"]):
        for city in cards.big_cities:
            if city.city == parts[1]:
                return city.points
        raise StudyError(f"{here}: {parameter}: unknown big city")
    if parts[0] == "deck" and len(parts) == 2:
        kinds = cards.card_names
        if parts[1] in kinds:
            return cards.deck[kinds.index(parts[1])]
        raise StudyError(f"{here}: {parameter}: unknown card kind (known: {', '.join(kinds)})")
    if parts[0] == "rounds" and len(parts) == 2 and parts[1] in ("2", "3", "4"):
        return rules.rounds_for(int(parts[1]))
    if parts[0] in SEAT_LEVERS and len(parts) == 2:
        if parts[1] in tuple(map(str, range(MAX_PLAYERS))):
            return getattr(rules, parts[0])[int(parts[1])]
        raise StudyError(f"{here}: {parameter}: not a seat (0-{MAX_PLAYERS - 1})")
    if len(parts) == 1 and parts[0] in _NUMBERS:
        return getattr(rules, parts[0])
    known = ", ".join(_NUMBERS)
    raise StudyError(
        f"{here}: unknown parameter {parameter!r} (a rule setting: {known}; rounds.N; "
        f"{'.SEAT; '.join(SEAT_LEVERS)}.SEAT; destinations.ID.points; big_cities.CITY; "
        "deck.KIND)"
    )


# the rule settings a sweep sets whole: a number or on/off (not rounds or the seat levers,
# swept one count at a time, nor first_turn, a choice a variant names)
_NUMBERS = tuple(f for f in Rules._fields if f not in ("rounds", "first_turn", *SEAT_LEVERS))


def set_value(table: dict[str, Any], parameter: str, value: Any) -> None:
    """Set a parameter in a variant table, as a study file writes it: ``destinations = { 24 =
    { points = 10 } }``, ``big_cities = { Chicago = 10 }``, ``rounds = { 4 = 1 }``,
    ``seat_extra_cards = { 1 = 1 }``, ``deck = { red = 12 }``, ``face_up = 6``."""
    head, _, rest = parameter.partition(".")
    if not rest:
        table[head] = value
        return
    key = rest.split(".")[0]
    inner = table.get(head)
    if isinstance(inner, list):  # a setting given by seat as an array: by seat from here on
        inner = {str(i): v for i, v in enumerate(inner)}
    if not isinstance(inner, dict):
        inner = {}
    inner[key] = {"points": value} if head == "destinations" else value
    table[head] = inner


def show_value(value: Any) -> str:
    """A value as a variant's name shows it (``true``, not ``True``)."""
    return str(value).lower() if isinstance(value, bool) else str(value)
