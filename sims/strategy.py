"""The strategy interface and the registry that finds strategies by name.

A strategy sees only its seat's ``SeatView`` (never a rival's hand or the deck order) and
its own seeded RNG. Knobs are a frozen dataclass so a study can configure variants.
Subclasses register themselves by defining ``name``: there is no hand-kept list.
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib
import math
import os
import random
import re
import sys
import warnings
from dataclasses import dataclass
from typing import Any, ClassVar

from cardgame import Action, KeepDestinations
from cardgame.observation import SeatView
from cardgame.state import KEEP_DRAWN, SECOND_PICK, TURN

from .errors import UnknownStrategyError
from .memory import RECALL_DEFAULT, Memory, knob_problem


@dataclass(frozen=True)
class Knobs:
    """Tunable settings of a strategy; subclasses add fields."""


AnyKnobs = Knobs  # the type, for annotations inside Strategy (where ``Knobs`` is the class's own)


@dataclass(frozen=True)
class MemoryKnobs(Knobs):
    """How the seat remembers its own circulation pile (sims/memory.py): every built-in's
    knobs derive from these; a strategy of one's own opts in the same way."""

    memory: str = "perfect"  # "perfect" (today's behaviour) or "human"
    recall: float = RECALL_DEFAULT  # human: chance that a card moved to the pile is recalled
    capacity: int = 0  # human: most cards recalled at once, oldest forgotten first (0: no limit)
    guess: str = "scaled"  # human: plan forgotten cards in the recalled mix, or "none" of them

    def __post_init__(self) -> None:
        problem = knob_problem(self.memory, self.recall, self.capacity, self.guess)
        if problem:
            raise ValueError(problem)


class Strategy:
    """Base class: one instance per seat per game."""

    name: ClassVar[str] = ""
    intent: ClassVar[str] = ""
    traits: ClassVar[frozenset[str]] = frozenset()
    Knobs: ClassVar[type[Knobs]] = Knobs
    memory: Memory | None = None  # the seat's memory of its own pile; None: perfect recall
    _registry: ClassVar[dict[str, type[Strategy]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        name = cls.__dict__.get("name")
        if not name:
            return
        taken = Strategy._registry.get(name)
        if taken is not None and _qualified(taken) != _qualified(cls):
            # first come, first kept: a user's class must not silently replace a built-in
            warnings.warn(
                f"strategy name {name!r} is taken by {_qualified(taken)}; "
                f"{_qualified(cls)} is not registered under it (use it as "
                f"{cls.__module__}:{cls.__qualname__}, or give it another name)",
                StrategyNameWarning,
                stacklevel=2,
            )
            return
        Strategy._registry[name] = cls  # a re-imported module replaces its own class

    def __init__(self, rng: random.Random, knobs: AnyKnobs | None = None) -> None:
        self.rng = rng
        self.knobs = knobs if knobs is not None else self.Knobs()
        if isinstance(self.knobs, MemoryKnobs) and self.knobs.memory == "human":
            # only then: perfect memory builds nothing, draws nothing, sets nothing
            knobs = self.knobs
            self.memory = Memory.for_strategy(rng, knobs.recall, knobs.capacity, knobs.guess)

    # the decisions ----------------------------------------------------------------
    def decide(self, view: SeatView) -> Action:
        """Dispatch on the decision the game waits for, with the view the seat remembers
        (its own pile as it recalls it) when its memory is human."""
        memory = self.memory
        if isinstance(memory, Memory):  # a strategy of one's own may use the name otherwise
            view = memory.recall(view)
        phase = view.phase
        if phase == TURN:
            return self.turn(view)
        if phase == SECOND_PICK:
            return self.second_pick(view)
        if phase == KEEP_DRAWN:
            return self.keep_drawn(view)
        return self.keep_setup(view)

    def keep_setup(self, view: SeatView) -> KeepDestinations:
        raise NotImplementedError

    def turn(self, view: SeatView) -> Action:
        raise NotImplementedError

    def second_pick(self, view: SeatView) -> Action:
        raise NotImplementedError

    def keep_drawn(self, view: SeatView) -> KeepDestinations:
        raise NotImplementedError


class StrategyNameWarning(UserWarning):
    """A strategy class names itself like one already registered: it is not registered."""


def _qualified(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def registered() -> dict[str, type[Strategy]]:
    """Every strategy known by name (importing the built-in families first)."""
    from . import strategies  # noqa: F401  (registers the scripted built-ins)
    from .search import player  # noqa: F401  (registers the search player)

    return dict(sorted(Strategy._registry.items()))


def strategy_help() -> str:
    """For --help: the registered names, and how to name a class of one's own."""
    return (
        f"Strategies: {', '.join(registered())}; or a class of your own as module:Class "
        "(a class whose name is already taken is not registered under it)."
    )


_MODULE_CLASS = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


def strategy_class(name: str) -> type[Strategy]:
    """Find a strategy by registered name or as ``module:Class``."""
    if ":" in name:
        return _load_class(name)
    known = registered()
    if name in known:
        return known[name]
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise UnknownStrategyError(f"unknown strategy {name!r}{hint} (known: {', '.join(known)})")


def _load_class(name: str) -> type[Strategy]:
    """Import ``module:Class``; anything that goes wrong on the way is one line."""
    if not _MODULE_CLASS.fullmatch(name):
        raise UnknownStrategyError(
            f"cannot load strategy {name!r}: expected module:Class, e.g. mystrategies:Greedy"
        )
    module_name, _, class_name = name.partition(":")
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())  # a user's module in the current folder
    try:
        found: Any = importlib.import_module(module_name)
        for part in class_name.split("."):
            found = getattr(found, part)
    except (Exception, SystemExit) as exc:  # the user's module may fail in any way
        text = " ".join(str(exc).split())
        detail = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
        raise UnknownStrategyError(f"cannot load strategy {name!r}: {detail}") from None
    if not (isinstance(found, type) and issubclass(found, Strategy)):
        raise UnknownStrategyError(f"{name!r} is not a sims.Strategy subclass")
    return found


def _knob_defaults(cls: type[Strategy], where: str) -> Knobs:
    """The class's default knobs, checking that its Knobs is a dataclass with defaults."""
    knobs_class = cls.Knobs
    if not (isinstance(knobs_class, type) and dataclasses.is_dataclass(knobs_class)):
        raise UnknownStrategyError(
            f"{where}: {_qualified(cls)}.Knobs must be a dataclass (subclass sims.strategy.Knobs)"
        )
    try:
        return knobs_class()
    except Exception as exc:
        raise UnknownStrategyError(
            f"{where}: {_qualified(cls)}.Knobs() failed: give every knob a default "
            f"({type(exc).__name__}: {' '.join(str(exc).split())})"
        ) from None


def make_knobs(cls: type[Strategy], values: dict[str, Any] | None, where: str) -> Knobs:
    """Build a strategy's knobs from a mapping; unknown knobs are refused by name."""
    values = dict(values or {})
    defaults = _knob_defaults(cls, where)
    fields = {f.name: f for f in dataclasses.fields(cls.Knobs)}
    unknown = sorted(set(values) - set(fields))
    if unknown:
        known = ", ".join(fields) or "none"
        raise UnknownStrategyError(
            f"{where}: strategy {cls.name!r} has no knob {unknown[0]!r} (knobs: {known})"
        )
    for key, value in values.items():
        default = getattr(defaults, key)
        if type(default) is float and isinstance(value, int) and not isinstance(value, bool):
            values[key] = float(value)
        elif type(value) is not type(default):
            raise UnknownStrategyError(
                f"{where}: knob {key!r} of {cls.name!r} must be {type(default).__name__}, "
                f"got {value!r}"
            )
        if isinstance(values[key], float) and not math.isfinite(values[key]):  # TOML has them
            raise UnknownStrategyError(
                f"{where}: knob {key!r} of {cls.name!r} must be a finite number, got {values[key]}"
            )
    try:
        return cls.Knobs(**values)
    except Exception as exc:  # a Knobs that checks its own values
        raise UnknownStrategyError(
            f"{where}: knobs of {cls.name or _qualified(cls)!r} refused: "
            f"{type(exc).__name__}: {' '.join(str(exc).split())}"
        ) from None


@dataclass(frozen=True)
class StrategySpec:
    """A named, configured strategy: what a study's line-up lists."""

    label: str  # the name shown in results (e.g. "planner" or "planner-cautious")
    base: str  # the registered name or module:Class
    knobs: tuple[tuple[str, Any], ...] = ()

    def build(self, rng: random.Random) -> Strategy:
        cls = strategy_class(self.base)
        return cls(rng, make_knobs(cls, dict(self.knobs), f"strategy {self.label!r}"))

    def check(self) -> None:
        """Fail early (before any game) on an unknown strategy or knob."""
        cls = strategy_class(self.base)
        make_knobs(cls, dict(self.knobs), f"strategy {self.label!r}")


def spec(name: str) -> StrategySpec:
    return StrategySpec(label=name, base=name)
