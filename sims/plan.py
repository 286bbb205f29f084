"""The plan: a study resolved once, typed and frozen, from the file and the command's flags.

``sims.study`` reads a study file (and the flags that patch it), validates it and resolves it
into a ``Plan``: every cell with its line-up, rules, cards and games; every variant with its
complete rules and card edits and the player counts it is played at; every sweep with its
values; the settings of the run. The runner plays the plan, the manifest stores it as plain
data (``Plan.to_dict``), and the reports read it back (``Plan.from_dict``) without parsing the
study again: reading a plan validates nothing and imports no strategy, so a results folder
reports on a machine where a study's ``module:Class`` strategy is not importable.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from itertools import pairwise, permutations
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cardgame import Catalogue, Rules
from cardgame.edits import CardEdits
from cardgame.errors import RulesError
from cardgame.rules import MAX_PLAYERS, MIN_PLAYERS

from .errors import ResultsError
from .looks import ALPHA, PLANNED, SETTLED, look_levels
from .strategy import StrategySpec

if TYPE_CHECKING:  # the clock imports SimPy: only when games are played
    from .clock import ThinkTimes

BASE = "base"  # the variant other variants are compared with
# the checks of a study's verdicts (Plan.check_plans), each played into checks/NAME
CHECKS_FOLDER = "checks"
KNOBS_CHECK = "knobs"  # the same games with the study's own knobs (adapted players used)
SEARCH_CHECK = "search"  # every seat the search player
SEARCH_ITERATIONS = 16  # the search check's iterations per decision by default
SEARCH_BATCH = 8  # games a batch of the search check (a search game costs a second or more)
DEFAULT_STUDY = "strategy-ladder"
# what a study's [report] table may set: the practical margin of each metric, and its range
# from a hundredth of the report's default (reports/margins.py DEFAULT_MARGINS; a test holds
# them to it) to the most the metric can move
REPORT_MARGINS: dict[str, tuple[float, float]] = {
    "win_share": (0.0002, 1.0),
    "log_odds": (0.001, 10.0),
    "score": (0.01, 1000.0),
    "turns": (0.01, 2000.0),
    "minutes": (0.01, 1000.0),
    "steals": (0.001, 2000.0),
    "unreached": (0.001, 100.0),
    "points_per_game": (0.0025, 100.0),
    "lead_changes": (0.0025, 2000.0),
    "drama": (0.0001, 1.0),
    "excitement": (0.0005, 2000.0),
    "decisive_fraction": (0.0002, 1.0),
    "comeback": (0.0025, 100.0),
}


def margin_problem(name: str, value: float) -> str | None:
    """Why ``value`` cannot be the practical margin of ``name`` (inf or 1e308 made every
    verdict "practically equal"; 5e-324 one no study can decide), or None."""
    low, high = REPORT_MARGINS[name]
    if low <= value <= high:
        return None
    shown = repr(value) if len(repr(value)) <= 24 else f"a number of {len(repr(value))} digits"
    return f"must be from {low:g} to {high:g}, got {shown}"


class Isolation(enum.StrEnum):
    """Where a strategy of one's own plays: in the worker (trusted code) or in a process of
    its own (``--isolate``, sims/guest.py)."""

    NONE = "none"
    PROCESS = "process"


@dataclass(frozen=True)
class Cell:
    """One combination of rule variant, player count and line-up."""

    key: str
    variant: str
    rules: Rules
    players: int
    lineup: tuple[str, ...]  # strategy labels, sorted: seating comes from rotation
    games: int
    catalogue: Catalogue | None = None  # the cards played with; None: the printed ones

    def seatings(self) -> list[tuple[str, ...]]:
        """Every distinct seat order of the line-up, in a fixed order."""
        return sorted(set(permutations(self.lineup)))


@dataclass(frozen=True)
class Sweep:
    """A swept parameter (or two), its values, and the variant that plays each value."""

    name: str
    parameters: tuple[str, ...]
    # (the values, one per parameter; the variant that plays them: "base" for the printed)
    points: tuple[tuple[tuple[int | bool, ...], str], ...]
    printed: tuple[int | bool, ...]  # the base game's values

    @property
    def variants(self) -> tuple[str, ...]:
        return tuple(variant for _, variant in self.points)

    @property
    def card(self) -> int | None:
        """The ticket a ``destinations.ID.points`` sweep changes."""
        if len(self.parameters) == 1 and self.parameters[0].startswith("destinations."):
            return int(self.parameters[0].split(".")[1])
        return None


@dataclass(frozen=True)
class Variant:
    """A rule variant as played: its complete rules, its edits of the study's cards, the
    player counts it is played at, and the sweep whose value it plays (if any)."""

    name: str
    rules: Rules
    edits: CardEdits
    players: tuple[int, ...]
    sweep: str | None = None


@dataclass(frozen=True)
class Plan:
    """Everything a run plays and a report reads, resolved once (see the module docstring)."""

    name: str
    seed: int
    players: tuple[int, ...]
    rotation: str
    pairing: str
    batch_size: int
    strategies: Mapping[str, StrategySpec]
    variants: Mapping[str, Variant]
    cells: tuple[Cell, ...]
    clock: Mapping[str, float]  # think times (sims/clock.py ThinkTimes, as plain data)
    description: str = ""
    output: str = ""
    isolation: Isolation = Isolation.NONE
    # which engine plays; not stored: results are the same on either
    engine: str = "auto"
    decision_seconds: float = 0.0
    steady: bool = False  # [limits] steady = true (sims/deadline.py Guard.hold, sims/guest.py)
    sweeps: Mapping[str, Sweep] = field(default_factory=dict)
    quality: bool = False  # [metrics] quality = true
    margins: Mapping[str, float] = field(default_factory=dict)  # [report] margins
    cards: str | None = None  # a folder of card files; None: the printed cards
    cards_digest: str | None = None
    # the edition's name and its cards' rows (catalogue_rows): reports and the viewer read
    # the cards from here, without the folder
    cards_name: str | None = None
    cards_rows: Mapping[str, Any] | None = None
    # players adapted to each design (sims/adapt.py): the games each strategy's search may
    # play on a design (0: none), the labels to adapt (empty: every scripted one), and once
    # searched, the knobs used per design and label, with a sentence per search
    adapt_budget: int = 0
    adapt_strategies: tuple[str, ...] = ()
    adapted: Mapping[str, Mapping[str, Mapping[str, Any]]] | None = None
    adaptations: tuple[Mapping[str, Any], ...] = ()
    # the search check (reports/checks.py): deals per design replayed with the search player
    # in every seat (0: none), and its iterations per decision
    check_search: int = 0
    search_iterations: int = SEARCH_ITERATIONS
    # played until settled (sims/looks.py): the cap, each look's games as a multiple of the
    # first look's, the look these cells are at, and after each look judged, the questions
    # it left open (none: settled, the run stopped there)
    stop: str = PLANNED
    max_games: int = 0
    look_factors: tuple[int, ...] = ()
    look: int = 0
    judged: tuple[tuple[str, ...], ...] = ()

    def spec_for(self, variant: str, label: str) -> StrategySpec:
        """The strategy a seat of ``label`` plays on ``variant``: its study knobs, with the
        knobs adapted to that design where an adaptation is used."""
        spec = self.strategies[label]
        knobs = (self.adapted or {}).get(variant, {}).get(label)
        if not knobs:
            return spec
        return StrategySpec(label, spec.base, tuple(sorted({**dict(spec.knobs), **knobs}.items())))

    @property
    def total_games(self) -> int:
        return sum(cell.games for cell in self.cells)

    @property
    def until_settled(self) -> bool:
        return self.stop == SETTLED

    @property
    def level(self) -> float:
        """The level this plan's verdicts are read at: its look's share of the spending
        (sims/looks.py), or the plain 0.05 of a study played as planned."""
        if not self.until_settled:
            return ALPHA
        return look_levels(self.look_factors)[self.look]

    @property
    def open_questions(self) -> tuple[str, ...] | None:
        """The questions this plan's look left open; None before it is judged."""
        return self.judged[self.look] if len(self.judged) > self.look else None

    @property
    def last_look(self) -> bool:
        return not self.until_settled or self.look == len(self.look_factors) - 1

    def at_look(self, look: int) -> Plan:
        """The plan with every cell at ``look``'s games (a study played until settled)."""
        now, then = self.look_factors[self.look], self.look_factors[look]
        cells = tuple(replace(cell, games=cell.games // now * then) for cell in self.cells)
        return replace(self, cells=cells, look=look)

    def look_bounds(self, cell: Cell) -> list[int]:
        """Where the looks up to this plan's end in ``cell``'s games: batches never straddle
        one, so a look's batches are the same whichever look the run goes on to."""
        if not self.until_settled:
            return [cell.games]
        first = cell.games // self.look_factors[self.look]
        return [first * factor for factor in self.look_factors[: self.look + 1]]

    def check_plans(self) -> dict[str, Plan]:
        """The games that put the headline verdicts to other players, each a plan of its
        own, played after the study into ``checks/NAME`` and compared by reports/checks.py:

        - ``knobs``, where adapted players were used: the very games (the same cells, so the
          same deals) with the study's own knobs, so the report can say which verdicts hold
          for adapted players;
        - ``search``, where ``check_search`` asks: that many deals of every design and player
          count with the search player (which sees every edit through the engine) in every
          seat, common deals across the designs.
        """
        plain = replace(
            self, adapt_budget=0, adapt_strategies=(), adapted=None, adaptations=(),
            check_search=0, stop=PLANNED, max_games=0, look_factors=(), look=0, judged=(),
        )  # fmt: skip
        out: dict[str, Plan] = {}
        if any(entry.get("used") for entry in self.adaptations):
            out[KNOBS_CHECK] = replace(plain, name=f"{self.name}-{KNOBS_CHECK}")
        if self.check_search:
            searcher = StrategySpec(
                SEARCH_CHECK, "ismcts", (("iterations", self.search_iterations),)
            )
            designs = dict.fromkeys((cell.variant, cell.players) for cell in self.cells)
            catalogues = {cell.variant: cell.catalogue for cell in self.cells}
            cells = tuple(
                Cell(
                    f"{variant}/{players}p/{SEARCH_CHECK}",
                    variant,
                    self.variants[variant].rules,
                    players,
                    (SEARCH_CHECK,) * players,
                    self.check_search,
                    catalogues[variant],
                )
                for variant, players in designs
            )
            out[SEARCH_CHECK] = replace(
                plain,
                name=f"{self.name}-{SEARCH_CHECK}",
                strategies={SEARCH_CHECK: searcher},
                cells=cells,
                pairing="deals",
                batch_size=min(self.batch_size, SEARCH_BATCH),
                isolation=Isolation.NONE,
                quality=False,
            )
        return out

    def think_times(self) -> ThinkTimes:
        from .clock import ThinkTimes

        return ThinkTimes(**self.clock)

    def _cards_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"folder": self.cards, "digest": self.cards_digest}
        if self.cards_name is not None:
            out["name"] = self.cards_name
        if self.cards_rows is not None:
            out["rows"] = dict(self.cards_rows)
        return out

    def catalogue(self) -> Any:
        """The edition the study was played with: its cards from the manifest (the folder
        need not exist any more), else the folder's, else the printed cards (unedited: a
        variant's card edits apply on top, ``Study.catalogue_for``). Results made before
        manifests kept the cards, whose folder has gone, get the printed cards' labels."""
        from cardgame import default_catalogue, load_catalogue
        from cardgame.catalogue import catalogue_from_rows

        if self.cards_rows is not None:
            return catalogue_from_rows(dict(self.cards_rows), "cards.rows", self.cards_name or "")
        if self.cards is not None and Path(self.cards).is_dir():
            return load_catalogue(Path(self.cards))
        return default_catalogue()  # results made before manifests kept the cards, moved

    def to_dict(self) -> dict[str, Any]:
        """The plan as plain data (JSON), as the manifest stores it."""
        return {
            "name": self.name,
            "description": self.description,
            "seed": self.seed,
            "players": list(self.players),
            "rotation": self.rotation,
            "pairing": self.pairing,
            "isolation": self.isolation.value,
            "batch_size": self.batch_size,
            "decision_seconds": self.decision_seconds,
            **({"steady": True} if self.steady else {}),
            "quality": self.quality,
            "margins": dict(self.margins),
            "cards": self._cards_dict() if self.cards else None,
            "clock": dict(self.clock),
            "strategies": {
                label: {"base": spec.base, "knobs": dict(spec.knobs)}
                for label, spec in self.strategies.items()
            },
            "variants": {
                name: {
                    "rules": variant.rules.to_dict(),
                    "edits": {k: [list(x) for x in v] for k, v in variant.edits._asdict().items()},
                    "players": list(variant.players),
                    "sweep": variant.sweep,
                }
                for name, variant in self.variants.items()
            },
            "sweeps": {
                name: {
                    "parameters": list(sweep.parameters),
                    "points": [[list(values), variant] for values, variant in sweep.points],
                    "printed": list(sweep.printed),
                }
                for name, sweep in self.sweeps.items()
            },
            "cells": [
                {
                    "key": cell.key,
                    "variant": cell.variant,
                    "players": cell.players,
                    "lineup": list(cell.lineup),
                    "games": cell.games,
                }
                for cell in self.cells
            ],
            "total_games": self.total_games,
            **(
                {
                    "adapt": {
                        "budget": self.adapt_budget,
                        "strategies": list(self.adapt_strategies),
                        "adapted": self.adapted,
                        "adaptations": list(self.adaptations),
                    }
                }
                if self.adapt_budget
                else {}
            ),
            **(
                {"check": {"search": self.check_search, "iterations": self.search_iterations}}
                if self.check_search
                else {}
            ),
            **(
                {
                    "sequential": {
                        "max_games": self.max_games,
                        "factors": list(self.look_factors),
                        "look": self.look,
                        "judged": [list(found) for found in self.judged],
                    }
                }
                if self.until_settled
                else {}
            ),
        }

    @classmethod
    def from_dict(cls, data: Any, where: str = "manifest: plan") -> Plan:
        """A plan stored by ``to_dict``. Nothing is validated again and no strategy is
        loaded; a plan that is not one is a ResultsError in one line. Cells carry no
        catalogue: a report needs none, and the card folder may be gone."""
        try:
            _check_shape(data)
            return cls._from_dict(data)
        except (KeyError, TypeError, ValueError, AttributeError, RulesError) as exc:
            raise ResultsError(
                f"{where}: not a plan this version reads ({_one_line(exc)})"
            ) from None

    @classmethod
    def _from_dict(cls, data: dict[str, Any]) -> Plan:
        variants = {
            name: Variant(
                name,
                Rules.from_dict(v["rules"]),
                CardEdits(**{k: tuple(tuple(x) for x in e) for k, e in v["edits"].items()}),
                tuple(v["players"]),
                v["sweep"],
            )
            for name, v in data["variants"].items()
        }
        cells = tuple(
            Cell(
                c["key"],
                c["variant"],
                variants[c["variant"]].rules,
                int(c["players"]),
                tuple(c["lineup"]),
                int(c["games"]),
            )
            for c in data["cells"]
        )
        cards = data["cards"]
        adapt = data.get("adapt") or {}
        check = data.get("check") or {}
        looks = data.get("sequential")
        sequential: dict[str, Any] = {}
        if looks is not None:
            sequential = {
                "stop": SETTLED,
                "max_games": int(looks["max_games"]),
                "look_factors": tuple(int(f) for f in looks["factors"]),
                "look": int(looks["look"]),
                "judged": tuple(tuple(map(str, found)) for found in looks["judged"]),
            }
        return cls(
            **sequential,
            check_search=int(check.get("search", 0)),
            search_iterations=int(check.get("iterations", SEARCH_ITERATIONS)),
            adapt_budget=int(adapt.get("budget", 0)),
            adapt_strategies=tuple(adapt.get("strategies", ())),
            adapted=adapt.get("adapted"),
            adaptations=tuple(adapt.get("adaptations", ())),
            name=str(data["name"]),
            description=str(data["description"]),
            seed=int(data["seed"]),
            players=tuple(data["players"]),
            rotation=str(data["rotation"]),
            pairing=str(data["pairing"]),
            isolation=Isolation(data["isolation"]),
            batch_size=int(data["batch_size"]),
            decision_seconds=float(data["decision_seconds"]),
            steady=data.get("steady", False) is True,
            quality=bool(data["quality"]),
            margins=dict(data["margins"]),
            cards=cards["folder"] if cards else None,
            cards_digest=cards["digest"] if cards else None,
            cards_name=cards.get("name") if cards else None,
            cards_rows=cards.get("rows") if cards else None,
            clock=dict(data["clock"]),
            strategies={
                label: StrategySpec(label, s["base"], tuple(sorted(s["knobs"].items())))
                for label, s in data["strategies"].items()
            },
            variants=variants,
            sweeps={
                name: Sweep(
                    name,
                    tuple(s["parameters"]),
                    tuple((tuple(values), variant) for values, variant in s["points"]),
                    tuple(s["printed"]),
                )
                for name, s in data["sweeps"].items()
            },
            cells=cells,
        )


# the keys ``to_dict`` writes, each table's: a plan with one missing or one more was not
# written by this version (or was edited by hand)
_KEYS = {
    "plan": (
        "name description seed players rotation pairing isolation batch_size decision_seconds "
        "quality margins cards clock strategies variants sweeps cells total_games"
    ),
    "cards": "folder digest",
    "strategy": "base knobs",
    "variant": "rules edits players sweep",
    "edits": "destinations big_cities deck",
    "sweep": "parameters points printed",
    "cell": "key variant players lineup games",
}
# keys a plan holds only when its setting is on
_OPTIONAL = {"plan": {"adapt", "check", "sequential", "steady"}, "cards": {"name", "rows"}}
_MOST_GAMES = 2**53  # a count a float holds exactly: more is no count of games played


def _check_shape(data: Any) -> None:
    """Raise ValueError naming the first thing in ``data`` that ``to_dict`` never writes: a
    key missing or extra, a value of the wrong type, NaN or infinity, a name that points
    nowhere. Only the shape is held: the rules and knobs were validated when the run began."""
    _table(data, "plan")
    for key in ("name", "description", "rotation", "pairing", "isolation"):
        _of(data[key], str, key)
    _count(data["seed"], "seed")
    _count(data["batch_size"], "batch_size", low=1)
    _players(data["players"], "players")
    _number(data["decision_seconds"], "decision_seconds")
    if "steady" in data and data["steady"] is not True:  # written only when on
        raise ValueError(f"steady: must be true where present, got {data['steady']!r}")
    _of(data["quality"], bool, "quality")
    for key in ("margins", "clock"):
        for name, value in _of(data[key], dict, key).items():
            _number(value, f"{key}.{name}")
    if data["cards"] is not None:
        _table(data["cards"], "cards")
        _of(data["cards"]["folder"], str, "cards.folder")
        if data["cards"]["digest"] is not None:
            _of(data["cards"]["digest"], str, "cards.digest")
        if "name" in data["cards"]:
            _of(data["cards"]["name"], str, "cards.name")
        if "rows" in data["cards"]:
            _of(data["cards"]["rows"], dict, "cards.rows")
    for label, spec in _of(data["strategies"], dict, "strategies").items():
        _table(spec, "strategy", f"strategies.{label}")
        _of(spec["base"], str, f"strategies.{label}.base")
        _of(spec["knobs"], dict, f"strategies.{label}.knobs")
    sweeps = _of(data["sweeps"], dict, "sweeps")
    variants = _of(data["variants"], dict, "variants")
    for name, variant in variants.items():
        where = f"variants.{name}"
        _table(variant, "variant", where)
        _of(variant["rules"], dict, f"{where}.rules")
        _table(variant["edits"], "edits", f"{where}.edits")
        for kind, first in (("destinations", int), ("big_cities", str), ("deck", int)):
            for pair in _of(variant["edits"][kind], list, f"{where}.edits.{kind}"):
                if not (isinstance(pair, list) and len(pair) == 2):
                    raise ValueError(f"{where}.edits.{kind}: {pair!r} is no (key, value) pair")
                _of(pair[0], first, f"{where}.edits.{kind}")
                _count(pair[1], f"{where}.edits.{kind}")
        _players(variant["players"], f"{where}.players")
        if variant["sweep"] is not None and variant["sweep"] not in sweeps:
            raise ValueError(f"{where}.sweep: no sweep {variant['sweep']!r}")
    for name, sweep in sweeps.items():
        where = f"sweeps.{name}"
        _table(sweep, "sweep", where)
        parameters = _of(sweep["parameters"], list, f"{where}.parameters")
        if not parameters or not all(isinstance(p, str) for p in parameters):
            raise ValueError(f"{where}.parameters: {parameters!r}")
        for point in [[sweep["printed"], BASE], *_of(sweep["points"], list, f"{where}.points")]:
            if not (isinstance(point, list) and len(point) == 2):
                raise ValueError(f"{where}.points: {point!r} is no (values, variant) pair")
            values, variant = point
            if not isinstance(values, list) or len(values) != len(parameters):
                raise ValueError(f"{where}: {values!r} is not one value per parameter")
            if not all(isinstance(value, int) for value in values):  # bools: on/off settings
                raise ValueError(f"{where}: {values!r:.40} are not whole numbers or booleans")
            if not isinstance(variant, str) or variant not in variants:
                raise ValueError(f"{where}.points: no variant {variant!r}")
    keys: set[str] = set()
    total = 0
    for cell in _of(data["cells"], list, "cells"):
        _table(cell, "cell", "cells")
        key = _of(cell["key"], str, "cells.key")
        if key in keys:
            raise ValueError(f"cells: {key!r} twice")
        keys.add(key)
        variant = variants.get(_of(cell["variant"], str, f"{key}: variant"))
        if variant is None:
            raise ValueError(f"{key}: no variant {cell['variant']!r}")
        players = _count(cell["players"], f"{key}: players")
        if players not in variant["players"]:
            raise ValueError(f"{key}: {players} players, its variant is played at others")
        lineup = _of(cell["lineup"], list, f"{key}: lineup")
        if len(lineup) != players or not all(
            isinstance(label, str) and label in data["strategies"] for label in lineup
        ):
            raise ValueError(f"{key}: lineup {lineup!r} is not {players} of its strategies")
        total += _count(cell["games"], f"{key}: games")
    if data["total_games"] != total or isinstance(data["total_games"], bool):
        raise ValueError(f"total_games {data['total_games']!r}, its cells add up to {total}")
    if "adapt" in data:
        _check_adapt(data["adapt"], variants, data["strategies"])
    if "check" in data:
        check = data["check"]
        if not isinstance(check, dict) or set(check) != {"search", "iterations"}:
            raise ValueError(f"check: {check!r:.60} is not what a run writes")
        _count(check["search"], "check.search", low=1)
        _count(check["iterations"], "check.iterations", low=1)
    if "sequential" in data:
        _check_looks(data["sequential"], data["cells"])


def _check_looks(looks: Any, cells: list[dict[str, Any]]) -> None:
    """A study played until settled: its cap, looks (each a multiple of the first, rising),
    the look its cells are at (their games whole multiples of its factor), what each look
    judged left open."""
    if not isinstance(looks, dict) or set(looks) != {"max_games", "factors", "look", "judged"}:
        raise ValueError(f"sequential: {looks!r:.60} is not what a run writes")
    _count(looks["max_games"], "sequential.max_games", low=1)
    factors = _of(looks["factors"], list, "sequential.factors")
    if (
        not factors
        or factors[0] != 1
        or not all(isinstance(f, int) and not isinstance(f, bool) for f in factors)
        or any(b <= a for a, b in pairwise(factors))
    ):
        raise ValueError(f"sequential.factors: {factors!r:.60} are not rising multiples")
    look = _count(looks["look"], "sequential.look")
    if look >= len(factors):
        raise ValueError(f"sequential.look: {look} of {len(factors)} looks")
    if any(cell["games"] % factors[look] for cell in cells):
        raise ValueError("sequential: a cell's games are not its look's multiple")
    judged = _of(looks["judged"], list, "sequential.judged")
    if len(judged) > look + 1 or not all(
        isinstance(found, list) and all(isinstance(q, str) for q in found) for found in judged
    ):
        raise ValueError("sequential.judged: not the open questions of the looks played")


def _check_adapt(adapt: Any, variants: dict[str, Any], strategies: dict[str, Any]) -> None:
    """The players adapted to each design: budget, labels, the knobs used, the searches."""
    if not isinstance(adapt, dict) or set(adapt) != {
        "budget", "strategies", "adapted", "adaptations"
    }:  # fmt: skip
        raise ValueError(f"adapt: {adapt!r:.60} is not what a run writes")
    _count(adapt["budget"], "adapt.budget", low=1)
    for label in _of(adapt["strategies"], list, "adapt.strategies"):
        if label not in strategies:
            raise ValueError(f"adapt.strategies: no strategy {label!r}")
    if adapt["adapted"] is not None:
        for variant, labels in _of(adapt["adapted"], dict, "adapt.adapted").items():
            if variant not in variants:
                raise ValueError(f"adapt.adapted: no variant {variant!r}")
            for label, knobs in _of(labels, dict, f"adapt.adapted.{variant}").items():
                if label not in strategies:
                    raise ValueError(f"adapt.adapted.{variant}: no strategy {label!r}")
                for name, value in _of(knobs, dict, f"adapt.adapted.{variant}.{label}").items():
                    _number(value, f"adapt.adapted.{variant}.{label}.{name}")
    for entry in _of(adapt["adaptations"], list, "adapt.adaptations"):
        _of(entry, dict, "adapt.adaptations")


def _table(value: Any, kind: str, where: str = "") -> None:
    if not isinstance(value, dict):
        raise ValueError(f"{where or kind}: a table expected, got {type(value).__name__}")
    keys = set(_KEYS[kind].split())
    missing = sorted(keys - set(value))
    extra = sorted(set(value) - keys - _OPTIONAL.get(kind, set()))
    if missing or extra:
        which = f"no {missing[0]!r}" if missing else f"an unknown key {extra[0]!r}"
        raise ValueError(f"{where or kind}: {which}")


def _of(value: Any, kind: type, where: str) -> Any:
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ValueError(f"{where}: a {kind.__name__} expected, got {value!r:.40}")
    return value


def _count(value: Any, where: str, low: int = 0) -> int:
    if not low <= _of(value, int, where) <= _MOST_GAMES:
        raise ValueError(f"{where}: {value!r:.40} is out of range")
    return int(value)


def _players(value: Any, where: str) -> None:
    if not _of(value, list, where) or not all(
        not isinstance(n, bool) and n in range(MIN_PLAYERS, MAX_PLAYERS + 1) for n in value
    ):
        raise ValueError(f"{where}: {value!r:.40} are not player counts")


def _number(value: Any, where: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{where}: a finite number expected, got {value!r:.40}")


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__
