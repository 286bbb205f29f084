"""The edit space: what a tune may change (a ticket's points, a big city's bonus, a rule
setting), its range and step, and a design (the edits applied so far)."""

from __future__ import annotations

import copy
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardgame import CardgameError, Catalogue, Rules, default_catalogue
from cardgame.edits import KINDS as CARD_KINDS
from cardgame.edits import CardEdits

from ..errors import StudyError, TuneError
from ..study import Study
from ..sweep import printed_value, set_value, show_value
from .settings import (
    BIG_CITY_RANGE,
    DEFAULT_RULE_EDITS,
    DESTINATION_RANGE,
    DESTINATION_WITHIN,
    MAX_EDIT_VALUES,
    SEAT_LEVER_EDITS,
    SPEC_KEYS,
)

# the edit space ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Parameter:
    """A number the tuner may change, and which values it may take."""

    name: str  # as in sweeps: destinations.24.points, big_cities.Chicago, face_up, rounds.4
    within: int | None = None
    low: int | None = None
    high: int | None = None
    step: int = 1
    values: tuple[int | bool, ...] | None = None
    lenient: bool = False  # a default: values the rules refuse are left out, not an error

    @property
    def kind(self) -> str:
        head = self.name.split(".")[0]
        return {"destinations": "destination", "big_cities": "big_city"}.get(head, "rule")

    @property
    def card(self) -> int | str | None:
        """What a card edit is about: the ticket's id (its points) or the big city (its
        bonus); None for a rule setting."""
        if self.kind == "destination":
            return int(self.name.split(".")[1])
        if self.kind == "big_city":
            return self.name.split(".", 1)[1]
        return None

    def grid(self, current: Any) -> list[Any]:
        """Every value this parameter may take from ``current`` (current left out)."""
        options: list[Any]
        if isinstance(current, str):
            options = list(self.values) if self.values is not None else list(_choices(self.name))
            return [v for v in options if v != current]
        if isinstance(current, bool):
            options = list(self.values) if self.values is not None else [not current]
            return [v for v in options if v != current]
        if self.values is not None:
            return [v for v in self.values if v != current]
        low, high = self.bounds(current)
        below = range(current - self.step, low - 1, -self.step)
        above = range(current + self.step, high + 1, self.step)
        return sorted([*below, *above])

    def bounds(self, current: int) -> tuple[int, int]:
        """The lowest and highest value a range (not ``values``) lets the search try."""
        low, high = self.domain()
        if self.within is not None:
            low = max(low, current - self.within)
            high = min(high, current + self.within)
        if self.low is not None:
            low = max(low, self.low)
        if self.high is not None:
            high = min(high, self.high)
        return low, high

    def domain(self) -> tuple[int, int]:
        if self.kind == "destination":
            return DESTINATION_RANGE
        if self.kind == "big_city":
            return BIG_CITY_RANGE
        return (0, 10**6)


@dataclass(frozen=True)
class Design:
    """The study's base variant and the edits applied to it so far (parameter -> value)."""

    table: dict[str, Any]  # the study's base variant table (rules and card edits)
    edits: tuple[tuple[str, int | bool], ...] = ()

    def with_edit(self, parameter: str, value: int | bool) -> Design:
        edits = dict(self.edits)
        edits[parameter] = value
        return Design(self.table, tuple(edits.items()))

    def variant_table(self) -> dict[str, Any]:
        table = copy.deepcopy(self.table)
        for parameter, value in self.edits:
            set_value(table, parameter, value)
        return table

    def describe(self) -> str:
        return ", ".join(f"{p} = {show_value(v)}" for p, v in self.edits) or "the starting design"


def arm_name(parameter: str, value: int | bool) -> str:
    return f"{parameter}={show_value(value)}"


class Space:
    """The edit set checked against a study: parameters, current values, valid designs."""

    def __init__(self, parameters: list[Parameter], study: Study, base_table: dict[str, Any]):
        self.parameters = {p.name: p for p in parameters}
        self.study = study
        self.base_table = base_table
        self.printed_cards = base_cards(study)

    def current(self, design: Design, parameter: str, where: str = "edits") -> Any:
        rules, cards = self.resolve(design)
        return current_value(parameter, rules, cards, where)

    def resolve(self, design: Design) -> tuple[Rules, Catalogue]:
        table = design.variant_table()
        rules = {k: v for k, v in table.items() if k not in CARD_KINDS}
        edits = {k: v for k, v in table.items() if k in CARD_KINDS}
        cards = CardEdits.from_dict(edits, self.printed_cards, "").apply(self.printed_cards)
        return Rules.from_dict(rules), cards

    def valid(self, design: Design) -> str | None:
        """None, or why the design is no valid game at one of the study's player counts."""
        try:
            rules, cards = self.resolve(design)
        except CardgameError as exc:
            return str(exc)
        except (TypeError, ValueError) as exc:
            return " ".join(str(exc).split())
        problem = getattr(rules, "deal_problem", None)  # the deck must deal the setup
        if problem is not None and hasattr(cards, "deck"):
            for players in self.study.players:
                why = problem(players, cards.deck, len(cards.destinations))
                if why is not None:
                    return f"{players} players: {why}"
        return None

    def candidates(self, design: Design, names: list[str]) -> list[tuple[str, int | bool]]:
        """Each parameter's values from ``design``: valid games that differ from it at one
        of the study's player counts at least."""
        from cardgame.rules import same_rules_at

        rules, _ = self.resolve(design)
        out = []
        for name in names:
            parameter = self.parameters[name]
            current = self.current(design, name)
            for value in parameter.grid(current):
                changed = design.with_edit(name, value)
                if self.valid(changed) is not None:
                    continue
                if name.split(".")[0] in Rules._fields:  # a rule: it may not apply here
                    new_rules, _ = self.resolve(changed)
                    if all(same_rules_at(new_rules, rules, p) for p in self.study.players):
                        continue
                out.append((name, value))
        return out


def current_value(parameter: str, rules: Rules, cards: Catalogue, where: str) -> Any:
    """A parameter's value in a design (names as in sweeps, sims/sweep.py); a rule setting
    that is a choice (``first_turn``) too."""
    if parameter in Rules._fields and isinstance(getattr(rules, parameter), str):
        return getattr(rules, parameter)
    return printed_value(parameter, rules, cards, where)


def _choices(parameter: str) -> tuple[str, ...]:
    """The values of a rule setting that is a choice, where the rules module names them."""
    from cardgame import rules as rules_module

    return tuple(getattr(rules_module, f"{parameter.upper()}S", ()))


def ticket_costs(cards: Catalogue) -> dict[int, tuple[float, float]]:
    """What each ticket costs or brings besides its points: its circles (the cards it
    needs) and the bonus points of the big cities it names."""
    bonus = {city.city: city.points for city in cards.big_cities}
    return {
        d.id: (float(len(d.colours)), float(bonus.get(d.city_a, 0) + bonus.get(d.city_b, 0)))
        for d in cards.destinations
    }


def base_cards(study: Study) -> Catalogue:
    return study.catalogue_for("__no_variant__") or default_catalogue()


def _flatten(data: Any, prefix: str, where: str) -> Iterator[tuple[str, Any]]:
    """Leaf specs of an edits file: a table of spec keys, or a list of values."""
    if isinstance(data, list):
        yield prefix, {"values": data}
        return
    if not isinstance(data, dict) or (prefix and not data):
        raise TuneError(
            f"{where}: {prefix or 'the file'}: give a table such as "
            "{ within = 3 }, { min = 5, max = 9, step = 1 } or { values = [6, 8] }"
        )
    if prefix and set(data) & SPEC_KEYS:
        yield prefix, data  # a spec (unknown keys in it are named by the caller)
        return
    if prefix and not any(isinstance(v, dict | list) for v in data.values()):
        first = next(iter(data))
        raise TuneError(
            f"{where}: {prefix}.{first}: unknown key (known: {', '.join(sorted(SPEC_KEYS))})"
        )
    for key, value in data.items():
        yield from _flatten(value, f"{prefix}.{key}" if prefix else str(key), where)


def whole(value: Any, key: str, where: str, low: int | None = None, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TuneError(f"{where}: {key}: must be a whole number, got {value!r}")
    if low is not None and value < low:
        raise TuneError(f"{where}: {key}: must be at least {low}, got {value}")
    if high is not None and value > high:
        raise TuneError(f"{where}: {key}: must be at most {high:,}, got {value}")
    return value


def _count(parameter: Parameter, current: int | bool | str) -> int:
    """How many values ``parameter`` lets the search try, counted without listing them (a
    rule's range runs to a million when only its min is given)."""
    if parameter.values is not None:
        return len(parameter.values)
    if isinstance(current, bool | str):
        return 0
    low, high = parameter.bounds(current)
    return max(0, (high - low) // parameter.step + 1)


def parse_edits(
    data: Mapping[str, Any],
    study: Study,
    base_table: dict[str, Any],
    where: str = "edits",
    lenient: bool = False,
) -> list[Parameter]:
    """The parameters an edits file (parsed TOML) allows, checked against the study's base."""
    space = Space([], study, base_table)
    start = Design(base_table)
    rules, cards = space.resolve(start)
    out: dict[str, Parameter] = {}
    for name, spec in _flatten(dict(data), "", where):
        key = f"{where}: {name}"
        unknown = sorted(set(spec) - SPEC_KEYS)
        if unknown:
            raise TuneError(
                f"{key}.{unknown[0]}: unknown key (known: {', '.join(sorted(SPEC_KEYS))})"
            )
        names = _expand(name, cards, key)
        within = spec.get("within")
        low, high = spec.get("min"), spec.get("max")
        step = spec.get("step", 1)
        values = spec.get("values")
        if values is not None:
            if set(spec) != {"values"}:
                raise TuneError(f"{key}: give values, or within/min/max/step, not both")
            if not isinstance(values, list) or not values:
                raise TuneError(f"{key}.values: must be a non-empty list")
            for value in values:
                if not isinstance(value, int | str):
                    raise TuneError(f"{key}.values: {value!r} is not a whole number or a boolean")
            if len(set(values)) != len(values):
                raise TuneError(f"{key}.values: a value is listed twice")
            values = tuple(values)
        else:
            if within is None and low is None and high is None:
                raise TuneError(f"{key}: give within = N, min/max, or values = [...]")
            if within is not None:
                within = whole(within, "within", key, 1)
            if low is not None:
                low = whole(low, "min", key)
            if high is not None:
                high = whole(high, "max", key)
            if low is not None and high is not None and high < low:
                raise TuneError(f"{key}: needs min <= max, got {low} > {high}")
            step = whole(step, "step", key, 1)
        for parameter_name in names:
            here = f"{where}: {parameter_name}"
            try:
                current = current_value(parameter_name, rules, cards, where)
            except StudyError as exc:
                raise TuneError(str(exc)) from None
            if values is not None and any(
                isinstance(v, str) != isinstance(current, str) for v in values
            ):
                kind = "names such as " + repr(current) if isinstance(current, str) else "numbers"
                raise TuneError(f"{here}.values: {parameter_name} takes {kind}")
            if isinstance(current, str) and values is None and (low, high) != (None, None):
                raise TuneError(f"{here}: a choice takes values = [...]")
            if parameter_name in out:
                raise TuneError(f"{here}: named twice")
            if (
                isinstance(current, bool)
                and values is None
                and (low is not None or high is not None)
            ):
                raise TuneError(f"{here}: an on/off setting takes values = [true] or [false]")
            parameter = Parameter(parameter_name, within, low, high, step, values, lenient)
            count = _count(parameter, current)
            if count > MAX_EDIT_VALUES:
                open_ended = within is None and high is None and values is None
                hint = "give a max" if open_ended else "narrow it"
                raise TuneError(
                    f"{here}: lets the search try {count:,} values, at most {MAX_EDIT_VALUES} "
                    f"can be searched: {hint}"
                )
            if not lenient:
                span = parameter.domain()
                if parameter.kind != "rule" and values is None:
                    for bound, label in ((low, "min"), (high, "max")):
                        if bound is not None and not span[0] <= bound <= span[1]:
                            raise TuneError(
                                f"{here}: {label} must be within {span[0]}-{span[1]}, got {bound}"
                            )
                explicit = (
                    values
                    if values is not None
                    else (
                        list(range(low, high + 1, step))
                        if low is not None and high is not None
                        else []
                    )
                )
                for value in explicit:
                    if value == current:
                        continue
                    problem = space.valid(start.with_edit(parameter_name, value))
                    if problem is not None:
                        raise TuneError(f"{here} = {show_value(value)}: {problem}")
            if not parameter.grid(current):
                if lenient:
                    continue
                raise TuneError(
                    f"{here}: allows no value other than the current {show_value(current)}"
                )
            out[parameter_name] = parameter
    if not out:
        raise TuneError(f"{where}: names nothing to change")
    return list(out.values())


def _expand(name: str, cards: Catalogue, key: str) -> list[str]:
    """``destinations.*.points`` and ``big_cities.*``: one parameter per ticket or city."""
    parts = name.split(".")
    if parts[0] == "destinations" and len(parts) >= 2 and parts[1] == "*":
        if parts[2:] not in ([], ["points"]):
            raise TuneError(f"{key}: a ticket's parameter is destinations.ID.points")
        return [f"destinations.{d.id}.points" for d in cards.destinations]
    if parts[0] == "destinations" and len(parts) == 2:
        return [f"{name}.points"]  # destinations.24: its points
    if parts[0] == "big_cities" and len(parts) >= 2 and parts[1] == "*":
        if parts[2:] not in ([], ["points"]):
            raise TuneError(f"{key}: a big city's parameter is big_cities.CITY")
        return [f"big_cities.{c.city}" for c in cards.big_cities]
    if parts[0] == "big_cities" and parts[2:] == ["points"]:
        return [".".join(parts[:2])]
    return [name]


def load_edits(
    path: str | Path, study: Study, base_table: dict[str, Any]
) -> tuple[list[Parameter], dict[str, Any]]:
    """An edits file: its parameters and its parsed data (kept with the tune's settings)."""
    where = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TuneError(f"{where}: no such edits file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise TuneError(f"{where}: cannot read ({exc})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TuneError(f"{where}: not valid TOML ({exc})") from None
    return parse_edits(data, study, base_table, where), data


def default_edits(weights: dict[str, float], players: tuple[int, ...]) -> dict[str, Any]:
    """What may change by default, as an edits file would say it: for ``seat`` the levers
    against a seat edge (extra cards or locomotives at setup for the later seats, a first turn
    of one card for the first seat), or the setup and draw settings where the rules have no
    such levers; for ``strategies`` the setup and draw settings and the big-city bonuses; for
    ``destinations`` every ticket's points and every bonus."""
    data: dict[str, Any] = {}
    levers = all(f in Rules._fields for f in SEAT_LEVER_EDITS)
    if "seat" in weights and levers:
        for seat in range(1, max(players)):
            for lever, spec in SEAT_LEVER_EDITS.items():
                data[f"{lever}.{seat}"] = dict(spec)
        data["first_turn"] = {"values": ["one_card"]}
    if ("seat" in weights and not levers) or "strategies" in weights:
        data.update(copy.deepcopy(DEFAULT_RULE_EDITS))
    if "strategies" in weights:
        data["big_cities.*"] = {"within": 4, "step": 2}
    if "destinations" in weights:
        data["destinations.*.points"] = {"within": DESTINATION_WITHIN}
        data["big_cities.*"] = {"within": 4}
    return data
