"""A study's settings: the keys of a study file that are one value or one small table each,
read and checked one at a time (each raises one StudyError naming the file and the key), so
that ``sims.study.from_dict`` can find every problem of a file in one pass."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from cardgame.rules import MAX_PLAYERS, MIN_PLAYERS

from .deadline import DEFAULT_DECISION_SECONDS
from .errors import SimsError, StudyError, StudyProblems
from .looks import PLANNED, SETTLED, STOPS
from .plan import REPORT_MARGINS, SEARCH_ITERATIONS, Isolation, Sweep, margin_problem

if TYPE_CHECKING:  # the clock imports SimPy: only when a study is built
    from .clock import ThinkTimes

R = TypeVar("R")
D = TypeVar("D")
ROTATIONS = ("permutations", "random")
# "seatings" (the default): every line-up of a player count on the same deals, each deal in
# every seat order, so identical strategies play identical games; "deals": common random
# numbers across cells, one seat order a game; "none": every game its own deal (docs/data.md)
PAIRINGS = ("none", "deals", "seatings")
DEFAULT_PAIRING = "seatings"
# "auto": built-in line-ups on the native core when it is built (identical results, faster);
# "python": every game on the reference engine; "native": the core, or refuse to run
ENGINES = ("auto", "python", "native")
ISOLATIONS = tuple(i.value for i in Isolation)
# games each strategy's search may play on one design when players are adapted (sims/adapt.py):
# fewer cannot rank a generation of candidates; more is a typo
ADAPT_BUDGET = (200, 10**8)
# the strategies whose knobs adapt to a design: the scripted families (random reads no value,
# the search player sees every edit through the engine, one's own classes are one's own)
ADAPTABLE = ("planner", "thief", "hoarder", "rusher", "ticket_hunter", "big_city")
# deals a design the search check plays (a search game costs a second or more: more is a typo),
# and the search player's iterations per decision there
CHECK_DEALS = (1, 10**5)
MAX_STUDY_GAMES = 10**12  # a study's cap: more is a typo
CHECK_ITERATIONS = (1, 10**5)
# what a study's [metrics] table may turn on: tables beyond the three every study writes
METRICS = ("quality",)


class Problems:
    """The problems of a study file found so far: a check that fails is noted, and the
    checks after it still run; several problems a check found are noted one by one."""

    def __init__(self) -> None:
        self.found: list[SimsError] = []

    def __len__(self) -> int:
        return len(self.found)

    def add(self, where: str, message: str) -> None:
        self.found.append(StudyError(f"{where}: {message}"))

    @contextlib.contextmanager
    def check(self) -> Iterator[None]:
        try:
            yield
        except SimsError as exc:
            self._note(exc)

    def value(self, read: Callable[[], R], default: D) -> R | D:
        """What ``read`` returns, or ``default`` when it finds a problem (noted)."""
        try:
            return read()
        except SimsError as exc:
            self._note(exc)
            return default

    def _note(self, exc: SimsError) -> None:
        if isinstance(exc, StudyProblems):
            self.found.extend(StudyError(line) for line in exc.problems)
        else:
            self.found.append(exc)

    def raise_any(self) -> None:
        if len(self.found) == 1:
            raise self.found[0]
        if self.found:
            raise StudyProblems([str(exc) for exc in self.found])


def need(cond: object, where: str, message: str) -> None:
    if not cond:
        raise StudyError(f"{where}: {message}")


def whole(
    data: dict[str, Any], key: str, default: int, low: int, where: str, high: int | None = None
) -> int:
    value = data.get(key, default)
    ok = isinstance(value, int) and not isinstance(value, bool) and value >= low
    need(
        ok and (high is None or value <= high),
        f"{where}: {key}",
        f"must be a whole number >= {low}, got {value!r}"
        if high is None
        else f"must be a whole number from {low} to {high}, got {value!r}",
    )
    return value


def name(data: dict[str, Any], where: str) -> str:
    name = data.get("name", Path(where).stem)
    need(isinstance(name, str) and bool(name), f"{where}: name", "must be a non-empty string")
    return cast(str, name)


def players(data: dict[str, Any], where: str) -> list[int]:
    players = data.get("players", [2, 3, 4])
    if isinstance(players, int) and not isinstance(players, bool):
        players = [players]
    need(
        isinstance(players, list)
        and players
        and all(isinstance(p, int) and MIN_PLAYERS <= p <= MAX_PLAYERS for p in players),
        f"{where}: players",
        f"must be a list of 2, 3 or 4, got {players!r}",
    )
    return cast(list[int], players)


def choice(data: dict[str, Any], key: str, choices: tuple[str, ...], where: str) -> str:
    value = data.get(key, choices[0])
    need(value in choices, f"{where}: {key}", f"must be one of {', '.join(choices)}, got {value!r}")
    return cast(str, value)


def isolation(data: dict[str, Any], where: str) -> Isolation:
    return Isolation(choice(data, "isolation", ISOLATIONS, where))


def pairing(data: dict[str, Any], sweeps: dict[str, Sweep], where: str) -> str:
    pairing = data.get("pairing", "deals" if sweeps else DEFAULT_PAIRING)
    need(
        pairing in PAIRINGS,
        f"{where}: pairing",
        f"must be one of {', '.join(PAIRINGS)}, got {pairing!r}",
    )
    need(
        not sweeps or pairing == "deals",
        f"{where}: pairing",
        'a study with sweeps plays every value on the same deals: pairing = "deals"',
    )
    return cast(str, pairing)


def clock(data: dict[str, Any], where: str) -> ThinkTimes:
    from .clock import ThinkTimes

    clock = data.get("clock", {})
    need(
        isinstance(clock, dict),
        f"{where}: clock",
        f"must be a table of think times in seconds, got {clock!r}",
    )
    found = Problems()  # each think time alone first: every bad one is a line
    for key, value in clock.items():
        with found.check():
            ThinkTimes.from_dict({key: value}, f"{where}: clock")
    found.raise_any()
    return ThinkTimes.from_dict(clock, f"{where}: clock")


def output(data: dict[str, Any], name: str, where: str) -> str:
    output = data.get("output", f"results/{name}")
    need(isinstance(output, str) and bool(output), f"{where}: output", "must be a folder path")
    return cast(str, output)


def description(data: dict[str, Any], where: str) -> str:
    description = data.get("description", "")
    need(isinstance(description, str), f"{where}: description", "must be a string")
    return cast(str, description)


def report_table(table: Any, where: str) -> None:
    """``[report] margins = { win_share = 0.03 }``: the practical margin of each metric the
    report gives a verdict on (read by reports/margins.py from the manifest)."""
    need(isinstance(table, dict), f"{where}: report", "must be a table (margins)")
    extra = sorted(set(table) - {"margins"})
    need(not extra, f"{where}: report.{extra[0] if extra else ''}", "unknown key (known: margins)")
    margins = table.get("margins", {})
    need(
        isinstance(margins, dict), f"{where}: report.margins", "must be a table of metric = margin"
    )
    found = Problems()
    for name, value in margins.items():
        with found.check():
            margin(name, value, where)
    found.raise_any()


def margin(name: str, value: Any, where: str) -> None:
    need(
        name in REPORT_MARGINS,
        f"{where}: report.margins.{name}",
        f"unknown metric (known: {', '.join(REPORT_MARGINS)})",
    )
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0
    need(ok, f"{where}: report.margins.{name}", f"must be a positive number, got {value!r}")
    problem = margin_problem(name, value)
    need(problem is None, f"{where}: report.margins.{name}", problem or "")


def metrics_table(table: Any, where: str) -> dict[str, bool]:
    """``[metrics] quality = true``: the optional tables a study writes (each off by default)."""
    need(isinstance(table, dict), f"{where}: metrics", "must be a table (quality = true)")
    extra = sorted(set(table) - set(METRICS))
    need(
        not extra,
        f"{where}: metrics.{extra[0] if extra else ''}",
        f"unknown key (known: {', '.join(METRICS)})",
    )
    for name, value in table.items():
        need(
            isinstance(value, bool),
            f"{where}: metrics.{name}",
            f"must be true or false, got {value!r}",
        )
    return {name: bool(table.get(name, False)) for name in METRICS}


def engine(engine: Any, where: str) -> str:
    """``engine``: which engine plays; "native" is refused where the core is not built."""
    need(
        engine in ENGINES,
        f"{where}: engine",
        f"must be one of {', '.join(ENGINES)}, got {engine!r}",
    )
    if engine == "native":
        from cardgame import _native

        need(
            _native.BUILT,
            f"{where}: engine",
            f"native asked, but the core is not built here ({_native.NOT_BUILT})",
        )
    return str(engine)


def decision_seconds(limits: Any, where: str) -> float:
    """``[limits] decision_seconds``: seconds a strategy may take per decision (0: no limit)."""
    need(isinstance(limits, dict), f"{where}: limits", "must be a table")
    extra = sorted(set(limits) - {"decision_seconds", "steady"})
    need(
        not extra,
        f"{where}: limits.{extra[0] if extra else ''}",
        "unknown key (known: decision_seconds, steady)",
    )
    value = limits.get("decision_seconds", DEFAULT_DECISION_SECONDS)
    need(
        isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value < 1e6,
        f"{where}: limits.decision_seconds",
        f"must be a number of seconds >= 0 (0: no limit), got {value!r}",
    )
    return float(value)


def steady(limits: Any, decision_seconds: float, isolated: bool, where: str) -> bool:
    """``[limits] steady = true``: every decision of an isolated game takes its whole limit
    and a guest's process runs only while its seat decides (docs/strategies.md)."""
    value = limits.get("steady", False) if isinstance(limits, dict) else False
    need(isinstance(value, bool), f"{where}: limits.steady", f"must be true or false: {value!r}")
    if value:
        need(
            decision_seconds > 0,
            f"{where}: limits.steady",
            "needs a decision limit (limits.decision_seconds > 0): each decision takes all of it",
        )
        need(
            isolated,
            f"{where}: limits.steady",
            'paces strategies of one\'s own in their sandboxes: needs isolation = "process" '
            "(--isolate)",
        )
    return bool(value)


def adapt(table: Any, labels: dict[str, str], where: str) -> tuple[int, tuple[str, ...]]:
    """``adapt = { budget = GAMES, strategies = [...] }``: the budget of each strategy's search
    on each design, and the labels to adapt (default: every adaptable one). One line each."""
    if not isinstance(table, dict):
        raise StudyError(f"{where}: adapt: must be a table (budget = GAMES)")
    extra = sorted(set(table) - {"budget", "strategies"})
    if extra:
        raise StudyError(f"{where}: adapt.{extra[0]}: unknown key (known: budget, strategies)")
    budget = table.get("budget")
    if isinstance(budget, bool) or not isinstance(budget, int):
        raise StudyError(f"{where}: adapt.budget: must be a whole number of games, got {budget!r}")
    if not ADAPT_BUDGET[0] <= budget <= ADAPT_BUDGET[1]:
        raise StudyError(
            f"{where}: adapt.budget: must be from {ADAPT_BUDGET[0]} to {ADAPT_BUDGET[1]:,} "
            f"games, got {budget}"
        )
    names = table.get("strategies")
    if names is None:
        return budget, ()
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise StudyError(f"{where}: adapt.strategies: must be a list of the study's strategies")
    unknown = sorted(set(names) - set(labels))
    if unknown:
        raise StudyError(
            f"{where}: adapt.strategies: {unknown[0]!r} is not a strategy of the study "
            f"(its strategies: {', '.join(sorted(labels))})"
        )
    fixed = [n for n in names if labels[n] not in ADAPTABLE]
    if fixed:
        raise StudyError(
            f"{where}: adapt.strategies: {fixed[0]!r} cannot be adapted (its base "
            f"{labels[fixed[0]]!r} is not one of {', '.join(ADAPTABLE)})"
        )
    return budget, tuple(dict.fromkeys(names))


def check(table: Any, where: str) -> tuple[int, int]:
    """``[check] search = DEALS, iterations = N``: the deals a design the search check plays
    (0: none) and its search player's iterations per decision. One line each."""
    if not isinstance(table, dict):
        raise StudyError(f"{where}: check: must be a table (search = DEALS)")
    extra = sorted(set(table) - {"search", "iterations"})
    if extra:
        raise StudyError(f"{where}: check.{extra[0]}: unknown key (known: search, iterations)")
    found = []
    for key, default, (low, high) in (
        ("search", 0, CHECK_DEALS),
        ("iterations", SEARCH_ITERATIONS, CHECK_ITERATIONS),
    ):
        value = table.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int):
            raise StudyError(f"{where}: check.{key}: must be a whole number, got {value!r}")
        if value != default and not low <= value <= high:
            raise StudyError(f"{where}: check.{key}: must be from {low} to {high:,}, got {value}")
        found.append(value)
    return found[0], found[1]


def stop(data: dict[str, Any], where: str) -> tuple[str, int]:
    """``stop = "settled"`` (with ``max_games = N``, the cap) or ``"planned"``: how long the
    study plays (sims/looks.py). ``max_games`` 0 is the default cap, set once the study's own
    games are known."""
    how = data.get("stop", PLANNED)
    if how not in STOPS:
        raise StudyError(f"{where}: stop: must be one of {', '.join(STOPS)}, got {how!r:.40}")
    cap = data.get("max_games", 0)
    if isinstance(cap, bool) or not isinstance(cap, int):
        raise StudyError(f"{where}: max_games: must be a whole number, got {cap!r:.40}")
    if "max_games" in data and how != SETTLED:
        raise StudyError(
            f'{where}: max_games: caps a study played until settled (stop = "settled")'
        )
    if cap and not 1 <= cap <= MAX_STUDY_GAMES:
        raise StudyError(f"{where}: max_games: must be from 1 to {MAX_STUDY_GAMES:,}, got {cap:,}")
    return how, cap
