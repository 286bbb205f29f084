"""Studies: what to simulate, read from TOML. Bad files get one line naming file and key.

A study expands into cells: one per (rule variant, player count, line-up), a variant only at
the player counts where it changes the rules. Each cell plays ``games_per_cell`` games, seated
by rotation so every seat order is equally represented; ``pairing`` makes cells share deals.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from importlib import resources
from itertools import combinations, combinations_with_replacement, permutations
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar, cast

from cardgame import CardgameError, Catalogue, Rules, default_catalogue, load_catalogue
from cardgame.catalogue import catalogue_rows
from cardgame.edits import KINDS as CARD_KINDS
from cardgame.edits import NO_EDITS, CardEdits
from cardgame.errors import one_line
from cardgame.rules import MAX_PLAYERS, MIN_PLAYERS, same_rules_at

from . import study_settings as setting
from .deadline import DEFAULT_DECISION_SECONDS
from .errors import ResultsError, SimsError, StudyError, StudyProblems
from .looks import DEFAULT_CAP_FACTOR, PLANNED, SETTLED, look_factors
from .plan import (
    BASE,
    SEARCH_ITERATIONS,
    Cell,
    Isolation,
    Plan,
    Variant,
)
from .strategy import StrategySpec
from .study_settings import ROTATIONS, Problems, need
from .sweep import Sweep, parse_sweeps

P = ParamSpec("P")
R = TypeVar("R")

if TYPE_CHECKING:  # the clock imports SimPy: only when a study is built
    from .clock import ThinkTimes

# the results join strategy names with these: a cell's line-up with +, a game's seats with |,
# and a cell's name is VARIANT/PLAYERSp/LINE-UP
LABEL_SEPARATORS = ("+", "|", "/")
STUDY_KEYS = {
    "name",
    "description",
    "seed",
    "games_per_cell",
    "players",
    "pool",
    "lineups",
    "rotation",
    "output",
    "batch_size",
    "strategies",
    "variants",
    "clock",
    "limits",
    "pairing",
    "engine",
    "isolation",
    "cards",
    "sweeps",
    "report",
    "metrics",
    "adapt",
    "check",
    "stop",
    "max_games",
}
MAX_GAMES = 10**9  # games per cell: more is a typo, not a study


@dataclass(frozen=True)
class Study:
    name: str
    seed: int
    games_per_cell: int
    players: tuple[int, ...]
    lineups: tuple[tuple[str, ...], ...] | None  # explicit line-ups, or None for a pool
    pool: tuple[str, ...]
    rotation: str
    output: str
    batch_size: int
    strategies: dict[str, StrategySpec]
    variants: dict[str, Rules]
    clock: ThinkTimes
    description: str = ""
    decision_seconds: float = DEFAULT_DECISION_SECONDS  # wall-clock limit per decision; 0: none
    steady: bool = False  # [limits] steady: each isolated decision takes its whole limit
    source: dict[str, Any] = field(default_factory=dict, compare=False)
    pairing: str = "none"
    # games of line-ups given as ``{seats = [...], games = N}`` (by sorted line-up): costly
    # line-ups (search players) play fewer games than ``games_per_cell``
    lineup_games: dict[tuple[str, ...], int] = field(default_factory=dict)
    # which engine plays the games; not in ``to_dict``: results are the same on either, so
    # a run may be resumed on the other
    engine: str = "auto"
    # player counts a variant is played at (given by its `players` key, or every count where
    # its rules differ from base); a variant missing here is played at every count
    variant_players: dict[str, tuple[int, ...]] = field(default_factory=dict)
    isolation: Isolation = Isolation.NONE
    # the cards: a folder of card files (``cards = "folder"``, ``--cards``; None: the printed
    # ones), and each variant's edits of them (``destinations``/``big_cities`` in a variant)
    cards: str | None = None
    variant_cards: dict[str, CardEdits] = field(default_factory=dict)
    # each sweep's values and the variants that play them (their variants are the study's)
    sweeps: dict[str, Sweep] = field(default_factory=dict)
    # [metrics] quality = true: each game's quality (lead changes, drama, decisiveness...)
    # from each seat's estimated chance after every turn, in a ``quality`` table
    quality: bool = False
    # adapt = { budget = GAMES }: each scripted strategy's knobs fitted to each design before
    # the games (sims/adapt.py); 0: the study's knobs everywhere
    adapt_budget: int = 0
    adapt_strategies: tuple[str, ...] = ()
    # [check] search = DEALS: the headline verdicts replayed with the search player in every
    # seat on that many deals a design (reports/checks.py); 0: no search check
    check_search: int = 0
    search_iterations: int = SEARCH_ITERATIONS
    # stop = "settled": played in looks until the summary's questions are settled, up to
    # max_games (sims/looks.py); "planned": the games given, once
    stop: str = PLANNED
    max_games: int = 0

    def catalogue_for(self, variant: str) -> Catalogue | None:
        """The cards ``variant`` is played with (None: the printed cards, unedited)."""
        return _catalogue(self.cards, self.variant_cards.get(variant, NO_EDITS))

    def players_for(self, variant: str) -> tuple[int, ...]:
        """The study's player counts at which ``variant`` is simulated."""
        allowed = self.variant_players.get(variant)
        return tuple(p for p in self.players if allowed is None or p in allowed)

    def cells(self) -> list[Cell]:
        """The study's cells, in a fixed order (variant, players, line-up)."""
        out = []
        for variant, rules in self.variants.items():
            for players in self.players_for(variant):
                for lineup in self._lineups(players):
                    seatings = len(set(permutations(lineup)))
                    games = self.games_for(lineup)
                    if self.rotation == "permutations" and games % seatings:
                        games += seatings - games % seatings  # every seating equally often
                    key = f"{variant}/{players}p/{'+'.join(lineup)}"
                    catalogue = self.catalogue_for(variant)
                    out.append(Cell(key, variant, rules, players, lineup, games, catalogue))
        return out

    def games_for(self, lineup: tuple[str, ...]) -> int:
        """The games asked for a line-up: its own ``games``, else ``games_per_cell``."""
        return self.lineup_games.get(tuple(sorted(lineup)), self.games_per_cell)

    def _lineups(self, players: int) -> list[tuple[str, ...]]:
        if self.lineups is not None:
            return [tuple(sorted(x)) for x in self.lineups if len(x) == players]
        pool = sorted(self.pool)
        if len(pool) >= players:
            return [tuple(c) for c in combinations(pool, players)]
        return [tuple(c) for c in combinations_with_replacement(pool, players)]

    @property
    def total_games(self) -> int:
        return sum(cell.games for cell in self.cells())

    def rounding_note(self) -> str | None:
        """Says so when the permutations rotation plays more games than asked for."""
        rounded: dict[int, dict[int, set[int]]] = {}  # asked -> played -> player counts
        for cell in self.cells():
            asked = self.games_for(cell.lineup)
            if cell.games != asked:
                rounded.setdefault(asked, {}).setdefault(cell.games, set()).add(cell.players)
        if not rounded:
            return None
        notes = []
        for asked, played in sorted(rounded.items()):
            parts = [
                f"{games} ({', '.join(map(str, sorted(players)))} players)"
                for games, players in sorted(played.items())
            ]
            what = "games per cell" if asked == self.games_per_cell else "games of a line-up"
            notes.append(f"{asked} {what} rounded up to {' or '.join(parts)}")
        return f"{'; '.join(notes)} so every seat order appears equally often"

    @functools.cached_property
    def plan(self) -> Plan:
        """The study resolved (sims/plan.py): what the runner plays and the manifest keeps."""
        swept = {v: s.name for s in self.sweeps.values() for v in s.variants if v != BASE}
        variants = {
            name: Variant(
                name,
                rules,
                self.variant_cards.get(name, NO_EDITS),
                self.players_for(name),
                swept.get(name),
            )
            for name, rules in self.variants.items()
        }
        return Plan(
            name=self.name,
            description=self.description or builtin_description(self.name),
            seed=self.seed,
            players=self.players,
            rotation=self.rotation,
            pairing=self.pairing,
            batch_size=self.batch_size,
            strategies=self.strategies,
            variants=variants,
            cells=tuple(self.cells()),
            clock=self.clock.to_dict(),
            output=self.output,
            isolation=self.isolation,
            engine=self.engine,
            decision_seconds=self.decision_seconds,
            steady=self.steady,
            sweeps=self.sweeps,
            quality=self.quality,
            margins=dict(self.source.get("report", {}).get("margins", {})),
            cards=self.cards,
            cards_digest=_cards_digest(self.cards) if self.cards is not None else None,
            cards_name=_folder_catalogue(self.cards).name if self.cards is not None else None,
            cards_rows=catalogue_rows(_folder_catalogue(self.cards))
            if self.cards is not None
            else None,
            adapt_budget=self.adapt_budget,
            adapt_strategies=self.adapt_strategies,
            check_search=self.check_search,
            search_iterations=self.search_iterations,
            **self._looks(),
        )

    def _looks(self) -> dict[str, Any]:
        """A study played until settled: its cap and looks, the plan at the first."""
        if self.stop != SETTLED:
            return {}
        return {
            "stop": SETTLED,
            "max_games": self.max_games,
            "look_factors": look_factors(self.total_games, self.max_games),
        }

    def to_dict(self) -> dict[str, Any]:
        """The study as plain data: stored with results to check a resumed run."""
        swept = {v for sweep in self.sweeps.values() for v in sweep.variants if v != BASE}
        return {
            "name": self.name,
            "seed": self.seed,
            "games_per_cell": self.games_per_cell,
            "players": list(self.players),
            "lineups": [self._lineup_dict(x) for x in self.lineups]
            if self.lineups is not None
            else None,
            "pool": list(self.pool),
            "rotation": self.rotation,
            "batch_size": self.batch_size,
            "strategies": {
                k: {"base": s.base, "knobs": dict(s.knobs)} for k, s in self.strategies.items()
            },
            "variants": {k: self._variant_dict(k) for k in self.variants if k not in swept},
            "clock": self.clock.to_dict(),
            **self._pairing_dict(),
            # only when on: a run is resumed in the mode it started in, and results made
            # before the option existed still resume
            **({"isolation": self.isolation.value} if self.isolation != Isolation.NONE else {}),
            # the folder and a digest of what it held: resume refuses changed cards
            **self._cards_dict(),
            **({"sweeps": self.source["sweeps"]} if self.sweeps else {}),
            **({"report": self.source["report"]} if self.source.get("report") else {}),
            # only when on: results made before the option existed still resume
            **({"metrics": {"quality": True}} if self.quality else {}),
            # only when on: results made before the option existed still resume
            **({"adapt": self._adapt_dict()} if self.adapt_budget else {}),
            **({"check": self._check_dict()} if self.check_search else {}),
            # only when on: results made before the option existed still resume
            **({"stop": self.stop, "max_games": self.max_games} if self.stop == SETTLED else {}),
        }

    def _check_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"search": self.check_search}
        if self.search_iterations != SEARCH_ITERATIONS:
            out["iterations"] = self.search_iterations
        return out

    def _adapt_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"budget": self.adapt_budget}
        if self.adapt_strategies:
            out["strategies"] = list(self.adapt_strategies)
        return out

    def _lineup_dict(self, lineup: tuple[str, ...]) -> list[str] | dict[str, Any]:
        """A line-up as the file gave it: a list, or a table when it has its own games."""
        games = self.lineup_games.get(tuple(sorted(lineup)))
        return list(lineup) if games is None else {"seats": list(lineup), "games": games}

    def _cards_dict(self) -> dict[str, Any]:
        if self.cards is None:
            return {}
        edition = _folder_catalogue(self.cards)
        return {
            "cards": {
                "folder": self.cards,
                "digest": _cards_digest(self.cards),
                "name": edition.name,
            }
        }

    def _pairing_dict(self) -> dict[str, Any]:
        """Pairing, always: a study that names none was unpaired before it was paired by
        seatings, so a manifest without the key (``legacy_plan``) is read as unpaired and a
        resume of such results under the new default is refused as a changed study."""
        return {"pairing": self.pairing}

    def _variant_dict(self, name: str) -> dict[str, Any]:
        """A variant's rules, with ``players`` when it is not played at every count (so the
        manifest rebuilds the same cells, and resume sees a change of counts)."""
        data = self.variants[name].to_dict()
        data.update(self.variant_cards.get(name, NO_EDITS).to_dict())
        if name in self.variant_players and self.players_for(name) != self.players:
            data["players"] = list(self.variant_players[name])
        return data


BATCH_GAMES = (50, 1000)  # a study's default games a batch: at least, and at most


def default_batch_size(games_per_cell: int) -> int:
    """The batch of a study that names none: 50 games, or an eighth of a cell where that is
    more (up to 1,000). A big study then writes few parts (each costs a millisecond or two to
    write and to merge at the end, however small) and still has several batches a cell for
    the workers to share."""
    low, high = BATCH_GAMES
    return max(low, min(high, -(-games_per_cell // 8)))


def _one_line_errors(function: Callable[P, R]) -> Callable[P, R]:
    """Every error of ``function`` is a one-line StudyError (or UnknownStrategyError)."""

    @functools.wraps(function)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return function(*args, **kwargs)
        except StudyProblems as exc:
            raise StudyProblems([one_line(line) for line in exc.problems]) from None
        except SimsError as exc:
            raise type(exc)(one_line(str(exc))) from None

    return wrapper


@_one_line_errors
def from_dict(data: dict[str, Any], where: str = "study", check_strategies: bool = True) -> Study:
    """Build a study from parsed TOML. One pass finds every problem of the file, each a line
    naming ``where`` and the key (``StudyProblems`` when there are several); a check that
    needs a value found wrong is left out, so one mistake is not reported twice.
    ``check_strategies=False`` loads no strategy (a manifest read back, sims/results.py)."""
    found = Problems()
    for key in sorted(set(data) - STUDY_KEYS):
        found.add(f"{where}: {key}", f"unknown key (known: {', '.join(sorted(STUDY_KEYS))})")
    name = found.value(lambda: setting.name(data, where), Path(where).stem or "study")
    seed = found.value(lambda: setting.whole(data, "seed", 2026, 0, where), 2026)
    games = found.value(
        lambda: setting.whole(data, "games_per_cell", 100, 1, where, MAX_GAMES), 100
    )
    batch = found.value(
        lambda: setting.whole(data, "batch_size", default_batch_size(games), 1, where), 1
    )
    players = found.value(lambda: setting.players(data, where), None)
    rotation = found.value(lambda: setting.choice(data, "rotation", ROTATIONS, where), ROTATIONS[0])
    strategies = found.value(lambda: _strategies(data.get("strategies", {}), where), None)
    seating = found.value(lambda: _seating(data, players, where), None)
    lineups, pool, lineup_games, labels = seating or (None, (), {}, [])
    isolation = found.value(lambda: setting.isolation(data, where), Isolation.NONE)
    decision_seconds = found.value(
        lambda: setting.decision_seconds(data.get("limits", {}), where), DEFAULT_DECISION_SECONDS
    )
    steady = found.value(
        lambda: setting.steady(
            data.get("limits", {}), decision_seconds, isolation == Isolation.PROCESS, where
        ),
        False,
    )
    if strategies is not None and seating is not None:
        with found.check():
            strategies = _seat_strategies(strategies, labels, where)
            if check_strategies:
                checked = [strategies[x] for x in sorted(set(labels))]
                _check_strategies(checked, isolation, where, decision_seconds)
            strategies = {k: v for k, v in strategies.items() if k in set(labels)}

    cards = found.value(lambda: _cards_folder(data.get("cards"), where), ())
    variants: dict[str, Rules] = {}
    variant_cards: dict[str, CardEdits] = {}
    variant_players: dict[str, tuple[int, ...]] = {}
    sweeps: dict[str, Sweep] = {}
    variant_labels: dict[str, str] = {}  # a sweep's variant -> how messages name it
    if cards != ():  # the card edits are checked against the cards
        cards = cast(str | None, cards)
        before = len(found)
        printed = _catalogue(cards, NO_EDITS) or default_catalogue()
        variants_data = found.value(lambda: _variant_tables(data, where), {})
        if "sweeps" in data and variants_data:
            with found.check(), contextlib.suppress(_BaseVariantError):
                # a broken base: the sweeps need it; its own check below names it, once
                sweeps, variant_labels = _add_sweeps(data, variants_data, printed, where)
        explicit: dict[str, tuple[int, ...]] = {}
        for variant, table in variants_data.items():
            label = variant_labels.get(variant, f"variants.{one_line(variant)}")
            with found.check():
                rules, edits, counts = _variant(
                    variant, table, label, printed, where, variant_labels
                )
                variants[variant], variant_cards[variant] = rules, edits
                if counts is not None:
                    explicit[variant] = counts
        variant_cards = {k: v for k, v in variant_cards.items() if v}
        if len(found) == before and players is not None:
            with found.check():
                counts = tuple(sorted(set(players)))
                variant_players = _variant_players(variants, explicit, counts, where, variant_cards)
    else:
        cards = None
    pairing = found.value(lambda: setting.pairing(data, sweeps, where), setting.DEFAULT_PAIRING)
    engine = found.value(lambda: setting.engine(data.get("engine", "auto"), where), "auto")
    found.value(lambda: setting.report_table(data.get("report", {}), where), None)
    metrics = found.value(lambda: setting.metrics_table(data.get("metrics", {}), where), {})
    adapt_budget, adapt_strategies = 0, cast(tuple[str, ...], ())
    if "adapt" in data and seating is not None and strategies is not None:
        bases = {label: strategies[label].base for label in labels if label in strategies}
        adapt_budget, adapt_strategies = found.value(
            lambda: setting.adapt(data["adapt"], bases, where), (0, ())
        )
    check_search, search_iterations = found.value(
        lambda: setting.check(data.get("check", {}), where), (0, SEARCH_ITERATIONS)
    )
    stop, max_games = found.value(lambda: setting.stop(data, where), (PLANNED, 0))
    clock = found.value(lambda: setting.clock(data, where), None)
    output = found.value(lambda: setting.output(data, name, where), "")
    description = found.value(lambda: setting.description(data, where), "")
    found.raise_any()
    assert players is not None and strategies is not None and clock is not None  # else found
    study = Study(
        name=name,
        seed=seed,
        games_per_cell=games,
        players=tuple(sorted(set(players))),
        lineups=lineups,
        pool=pool,
        rotation=rotation,
        output=output,
        batch_size=batch,
        strategies=strategies,
        variants=variants,
        clock=clock,
        description=description,
        decision_seconds=decision_seconds,
        steady=steady,
        source=data,
        pairing=pairing,
        variant_players=variant_players,
        lineup_games=lineup_games,
        engine=engine,
        isolation=isolation,
        quality=metrics["quality"],
        adapt_budget=adapt_budget,
        adapt_strategies=adapt_strategies,
        check_search=check_search,
        search_iterations=search_iterations,
        stop=stop,
        max_games=max_games,
        cards=cards,
        variant_cards=variant_cards,
        sweeps=sweeps,
    )
    _check_deals(study, variant_labels, where)
    return _capped(study, where)


def _capped(study: Study, where: str) -> Study:
    """A study played until settled, with its cap: at least its own games (its first look),
    by default ``DEFAULT_CAP_FACTOR`` times them."""
    if study.stop != SETTLED:
        return study
    first = study.total_games
    if study.max_games == 0:
        return replace(study, max_games=DEFAULT_CAP_FACTOR * first)
    if study.max_games < first:
        raise StudyError(
            f"{where}: max_games: must be at least the study's own {first:,} games (its first "
            f"look), got {study.max_games:,}"
        )
    return study


def _seating(
    data: dict[str, Any], players: list[int] | None, where: str
) -> tuple[
    tuple[tuple[str, ...], ...] | None, tuple[str, ...], dict[tuple[str, ...], int], list[str]
]:
    """The line-ups (or the pool), the games of line-ups given their own, and every label
    seated; ``players`` None (found wrong) leaves out the check of the line-ups' seats."""
    lineups = data.get("lineups")
    pool = data.get("pool")
    if pool == [] and lineups is not None:  # a manifest's line-up study stores no pool as []
        pool = None
    need(lineups is None or pool is None, f"{where}: lineups", "give lineups or pool, not both")
    if lineups is None and pool is None:
        pool = ["planner", "random"]
    lineup_games: dict[tuple[str, ...], int] = {}
    if lineups is None:
        need(
            isinstance(pool, list) and pool and all(isinstance(s, str) for s in pool),
            f"{where}: pool",
            "must be a list of strategy names",
        )
        pool = cast(list[str], pool)  # checked just above
        need(len(set(pool)) == len(pool), f"{where}: pool", "lists a strategy twice")
        return None, tuple(pool), lineup_games, list(pool)
    lineups, lineup_games = _lineup_tables(lineups, where)
    need(
        isinstance(lineups, list)
        and lineups
        and all(isinstance(x, list) and x and all(isinstance(s, str) for s in x) for x in lineups),
        f"{where}: lineups",
        "must be a list of lists of strategy names",
    )
    seen: dict[tuple[str, ...], list[str]] = {}
    for lineup in lineups:
        need(
            players is None or len(lineup) in players,
            f"{where}: lineups",
            f"line-up {lineup} has {len(lineup)} seats; players are {players}",
        )
        again = seen.setdefault(tuple(sorted(lineup)), lineup)
        # one cell: its games would be played and counted twice
        need(
            again is lineup,
            f"{where}: lineups",
            f"line-up {lineup} is line-up {again} again (the seat orders come from rotation)",
        )
    labels = [s for x in lineups for s in x]
    return tuple(tuple(x) for x in lineups), (), lineup_games, labels


def _seat_strategies(
    strategies: dict[str, StrategySpec], labels: list[str], where: str
) -> dict[str, StrategySpec]:
    """The configured strategies and every seated label (a label of none is its own base)."""
    for label in [*labels, *strategies]:
        need(
            bool(label) and label.isprintable() and not set(label) & set(LABEL_SEPARATORS),
            f"{where}: strategy '{one_line(label)}'",
            f"must be a name without {' '.join(LABEL_SEPARATORS)} or control characters (the "
            "results join names with them)",
        )
    out = dict(strategies)
    for label in labels:
        out.setdefault(label, StrategySpec(label, label))
    return out


def _variant_tables(data: dict[str, Any], where: str) -> dict[str, Any]:
    variants = data.get("variants", {"base": {}})
    need(
        isinstance(variants, dict) and variants,
        f"{where}: variants",
        "must be a table of named rule variants",
    )
    return dict(variants)


def _add_sweeps(
    data: dict[str, Any], variants: dict[str, Any], printed: Catalogue, where: str
) -> tuple[dict[str, Sweep], dict[str, str]]:
    """The sweeps; the variant of each swept value joins ``variants`` (and how messages name
    it)."""
    variants.setdefault(BASE, {})  # every value is compared with the printed one
    base_rules, base_cards = _base_of(variants[BASE], printed, where)
    sweeps, swept = parse_sweeps(data["sweeps"], base_rules, base_cards, BASE, where)
    clash = sorted(set(swept) & set(variants))
    need(
        not clash,
        f"{where}: sweeps",
        f"variant {clash[0] if clash else ''!r} is named twice (a sweep's variants are NAME=VALUE)",
    )
    variants.update(swept)
    labels = {
        v: f"sweeps.{s.name} at {v.partition('=')[2]}"
        for s in sweeps.values()
        for v in s.variants
        if v != BASE
    }
    return sweeps, labels


def _variant(
    variant: str,
    table: Any,
    label: str,
    printed: Catalogue,
    where: str,
    swept: dict[str, str],
) -> tuple[Rules, CardEdits, tuple[int, ...] | None]:
    """A variant's rules, card edits and the player counts its table lists (None: none)."""
    need(
        bool(variant) and variant.isprintable() and "/" not in variant,
        f"{where}: {label}",
        "must be a name without / or control characters (a cell's name is "
        "VARIANT/PLAYERSp/LINE-UP)",
    )
    need(
        isinstance(table, dict),
        f"{where}: {label}",
        f"must be a table of rule settings, got {table!r}",
    )
    rules = dict(table)
    found = Problems()  # its player counts, each setting and each card edit: a line each
    counts = None
    if "players" in rules:
        value = rules.pop("players")
        counts = found.value(lambda: _variant_counts(value, f"{where}: {label}"), None)
    edits = {k: rules.pop(k) for k in CARD_KINDS if k in rules}
    named = "" if variant in swept else label  # a sweep's: "sweeps.x at 9: key"

    def read(make: Callable[[], R]) -> R:
        try:
            return make()
        except CardgameError as exc:
            text = str(exc)
            text = text if text.startswith(f"{label}.") else f"{label}: {text}"
            raise StudyError(f"{where}: {text}") from None
        except (TypeError, ValueError) as exc:  # a setting of the wrong type
            raise StudyError(f"{where}: {label}: {_one_line(exc)}") from None

    before = len(found)
    for key, value in rules.items():
        with found.check():
            read(functools.partial(Rules.from_dict, {key: value}))
    for kind, entries in edits.items():
        parts = entries.items() if isinstance(entries, dict) and entries else [(None, entries)]
        for entry, value in parts:
            one = {kind: value if entry is None else {entry: value}}
            with found.check():
                read(functools.partial(CardEdits.from_dict, one, printed, named))
    if len(found) == before:  # each alone is fine: what they ask together
        with found.check():
            both = read(
                lambda: (Rules.from_dict(rules), CardEdits.from_dict(edits, printed, named))
            )
    found.raise_any()
    return both[0], both[1], counts


def _check_deals(study: Study, labels: dict[str, str], where: str) -> None:
    """Refuse a variant whose train deck cannot deal a player count it is played at (R1,
    R3: a deck edited too small, or rules that hand out more than the deck holds)."""
    for variant, rules in study.variants.items():
        cards = study.catalogue_for(variant) or default_catalogue()
        for players in study.players_for(variant):
            problem = rules.deal_problem(players, cards.deck, len(cards.destinations))
            if problem is not None:
                label = labels.get(variant, f"variants.{variant}")
                raise StudyError(f"{where}: {label}: {problem}")


class _BaseVariantError(StudyError):
    """The base variant's table is wrong (``_variant`` reports it where the variants are
    read)."""


def _base_of(table: Any, printed: Catalogue, where: str) -> tuple[Rules, Catalogue]:
    """The base variant's rules and cards (what a sweep's printed values come from)."""
    if not isinstance(table, dict):
        raise _BaseVariantError(f"{where}: variants.{BASE}: must be a table")
    rules = {k: v for k, v in table.items() if k not in (*CARD_KINDS, "players")}
    edits = {k: v for k, v in table.items() if k in CARD_KINDS}
    try:
        cards = CardEdits.from_dict(edits, printed, f"variants.{BASE}").apply(printed)
        return Rules.from_dict(rules), cards
    except CardgameError as exc:
        raise _BaseVariantError(f"{where}: variants.{BASE}: {exc}") from None
    except (TypeError, ValueError) as exc:
        raise _BaseVariantError(f"{where}: variants.{BASE}: {_one_line(exc)}") from None


def _cards_folder(value: Any, where: str) -> str | None:
    """``cards``: a folder of card files, or (in a manifest) the folder and its digest, which
    must still match."""
    if value is None:
        return None
    digest = None
    if isinstance(value, dict) and {"folder", "digest"} <= set(value) <= {
        "folder",
        "digest",
        "name",
    }:
        value, digest = value["folder"], value["digest"]
    need(
        isinstance(value, str) and bool(value),
        f"{where}: cards",
        "must be a folder of card files (destinations.csv, big_cities.csv)",
    )
    try:
        _catalogue(value, NO_EDITS)
    except CardgameError as exc:
        raise StudyError(f"{where}: cards: {exc}") from None
    if digest is not None and digest != _cards_digest(value):
        raise StudyError(f"{where}: cards: the files in {value} changed since the run started")
    return str(value)


@functools.cache
def _folder_catalogue(folder: str) -> Catalogue:
    return load_catalogue(Path(folder))


def _catalogue(folder: str | None, edits: CardEdits) -> Catalogue | None:
    """The cards of a folder (None: the printed ones) with ``edits``; None when both are
    the printed cards unedited (records then hold no cards)."""
    if folder is None and not edits:
        return None
    base = _folder_catalogue(folder) if folder is not None else default_catalogue()
    return edits.apply(base)


def _cards_digest(folder: str) -> str:
    return str(_folder_catalogue(folder).digest)


def relative_cards(data: dict[str, Any], base: Path | None) -> None:
    """A study file names its edition relative to itself (``base``, the file's folder); the
    study holds it relative to the working folder, never as an absolute path."""
    value = data.get("cards")
    entry = value if isinstance(value, dict) else None
    folder = entry.get("folder") if entry is not None else value
    if not isinstance(folder, str) or not folder:
        return
    path = Path(folder)
    if base is not None and not path.is_absolute():
        path = base / path
    try:
        folder = os.path.relpath(path)
    except ValueError:  # another drive: no relative path exists
        folder = str(path)
    if entry is not None:
        data["cards"] = {**entry, "folder": folder}
    else:
        data["cards"] = folder


def _check_strategies(
    specs: list[StrategySpec], isolation: Isolation, where: str, decision_seconds: float
) -> None:
    """Refuse an unknown strategy or knob before any game. Under isolation a strategy of
    one's own is checked in a process of its own: this process never imports its module,
    whose start is held to the decision limit (``decision_seconds``) as in a game."""
    from .guest import SANDBOX, check_guest, close_hosts, is_guest
    from .sandbox import unavailable

    missing = unavailable() if isolation == Isolation.PROCESS and SANDBOX else None
    if missing is not None:  # never a weaker tournament than the one asked for
        raise StudyError(f'--isolate (isolation = "process"): {missing}')
    try:
        for seat in specs:
            if isolation == Isolation.PROCESS and is_guest(seat):
                check_guest(seat, where, decision_seconds)
            else:
                seat.check()
    except CardgameError as exc:
        text = str(exc)
        raise StudyError(text if text.startswith(f"{where}: ") else f"{where}: {text}") from None
    finally:
        close_hosts()


def _lineup_tables(lineups: Any, where: str) -> tuple[Any, dict[tuple[str, ...], int]]:
    """Line-ups given as tables ``{seats = [...], games = N}`` become plain lists, their
    games kept apart (so costly line-ups can play fewer games than the others)."""
    if not isinstance(lineups, list):
        return lineups, {}
    plain, games = [], {}
    for entry in lineups:
        if isinstance(entry, dict):
            extra = sorted(set(entry) - {"seats", "games"})
            need(
                not extra,
                f"{where}: lineups.{extra[0] if extra else ''}",
                "unknown key (known: games, seats)",
            )
            need("seats" in entry, f"{where}: lineups", f"line-up table {entry} has no seats")
            seats = entry["seats"]
            if isinstance(seats, list) and all(isinstance(s, str) for s in seats):
                count = setting.whole(entry, "games", 1, 1, f"{where}: lineups {seats}", MAX_GAMES)
                games[tuple(sorted(seats))] = count
            entry = seats
        plain.append(entry)
    return plain, games


def _variant_counts(value: Any, where: str) -> tuple[int, ...]:
    """A variant's ``players`` key: the player counts it applies to."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = [value]
    need(
        isinstance(value, list)
        and bool(value)
        and all(
            isinstance(p, int) and not isinstance(p, bool) and MIN_PLAYERS <= p <= MAX_PLAYERS
            for p in value
        ),
        f"{where}.players",
        f"must be a list of 2, 3 or 4, got {value!r}",
    )
    return tuple(sorted(set(value)))


def _variant_players(
    variants: dict[str, Rules],
    explicit: dict[str, tuple[int, ...]],
    players: tuple[int, ...],
    where: str,
    variant_cards: dict[str, CardEdits] | None = None,
) -> dict[str, tuple[int, ...]]:
    """Where each variant is simulated. A variant identical to base at a count it lists is
    refused (it would re-simulate base and report noise as an effect); a variant without a
    ``players`` key is played only where its rules differ from base. Cards edited otherwise
    than base's make a variant differ at every count."""
    cards = variant_cards or {}
    base = variants.get(BASE)
    out = dict(explicit)
    if base is None:
        return out
    everywhere = tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1))
    for name, rules in variants.items():
        if name == BASE:
            continue
        if cards.get(name, NO_EDITS) != cards.get(BASE, NO_EDITS):
            same = []
        else:
            same = [p for p in everywhere if same_rules_at(rules, base, p)]
        need(
            len(same) < len(everywhere),
            f"{where}: variants.{name}",
            f"the same rules as {BASE} at every player count",
        )
        listed = explicit.get(name)
        if listed is not None:
            clash = [p for p in listed if p in same]
            if clash:
                raise StudyError(
                    f"{where}: variants.{name}.players: the rules equal {BASE} "
                    f"at {clash[0]} players: nothing to compare there"
                )
        elif any(p in same for p in players):
            out[name] = tuple(p for p in everywhere if p not in same)
    return out


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _strategies(data: Any, where: str) -> dict[str, StrategySpec]:
    need(isinstance(data, dict), f"{where}: strategies", "must be a table")
    out = {}
    found = Problems()  # each configured strategy: a line each
    for label, entry in data.items():
        with found.check():
            out[label] = _strategy(label, entry, where)
    found.raise_any()
    return out


def _strategy(label: str, entry: Any, where: str) -> StrategySpec:
    key = f"{where}: strategies.{label}"
    need(isinstance(entry, dict), key, "must be a table with base and knobs")
    extra = sorted(set(entry) - {"base", "knobs"})
    need(not extra, f"{key}.{extra[0] if extra else ''}", "unknown key (known: base, knobs)")
    base = entry.get("base", label)
    knobs = entry.get("knobs", {})
    need(isinstance(base, str), f"{key}.base", "must be a strategy name")
    need(isinstance(knobs, dict), f"{key}.knobs", "must be a table")
    return StrategySpec(label, base, tuple(sorted(knobs.items())))


@_one_line_errors
def load_study(
    path: str | Path,
    isolation: Isolation | None = None,
    cards: str | None = None,
    adapt: int | None = None,
    check_search: int | None = None,
    until: str | None = None,
    max_games: int | None = None,
) -> Study:
    """Read a study TOML file; a built-in study can be named without a path.

    ``isolation`` (``--isolate``), ``cards`` (``--cards``) and ``adapt`` (``--adapt``, the
    budget of adapted players) and ``check_search`` (``--check-search``, deals of the search
    check), ``until`` and ``max_games`` (``--until settled --max-games N``) override the
    file's: given here,
    before the strategies are checked (an isolated run never imports a strategy of one's own)
    and the variants' card edits are checked against the cards."""
    text, where = _read(path)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise StudyError(f"{where}: not valid TOML ({exc})") from None
    relative_cards(data, Path(path).parent if Path(path).is_file() else None)
    if isolation is not None:
        data["isolation"] = Isolation(isolation).value
    if cards is not None:
        # named as the option, not as a key of the file (a flags-only run has none)
        need(bool(cards), "--cards", "must be a folder of card files")
        try:
            _catalogue(cards, NO_EDITS)
        except CardgameError as exc:
            raise StudyError(f"--cards: {exc}") from None
        data["cards"] = cards
        relative_cards(data, None)
    if adapt is not None:  # --adapt GAMES: the budget; the file's strategies list stays
        table = data.get("adapt")
        data["adapt"] = {**(table if isinstance(table, dict) else {}), "budget": adapt}
    if check_search is not None:  # --check-search DEALS; the file's iterations stay
        table = data.get("check")
        data["check"] = {**(table if isinstance(table, dict) else {}), "search": check_search}
    if until is not None:
        data["stop"] = until
    if max_games is not None:
        data["max_games"] = max_games
    return from_dict(data, where)


def legacy_plan(study: dict[str, Any], where: str) -> Plan:
    """The plan of a manifest written before plans (schema 1 to 4): its study resolved as
    the run resolved it, without loading a strategy."""
    # such a manifest stores both line-up keys, one of them empty; a study file gives one
    given = {k: v for k, v in study.items() if not (k in ("lineups", "pool") and not v)}
    given.setdefault("pairing", "none")  # the default when it was written
    try:
        return from_dict(given, where, check_strategies=False).plan
    except SimsError as exc:
        raise ResultsError(
            f"{where}: written before plans, and its study does not resolve here: {exc}"
        ) from None


def builtin_description(name: str) -> str:
    """The description of the built-in study of that name ('' for any other): a study
    named after a built-in one and describing itself not is described as that one."""
    if name not in builtin_studies():
        return ""
    description = tomllib.loads(_read(name)[0]).get("description", "")
    return description if isinstance(description, str) else ""


def builtin_studies() -> list[str]:
    folder = resources.files("sims") / "studies"
    return sorted(
        p.name.removesuffix(".toml") for p in folder.iterdir() if p.name.endswith(".toml")
    )


def _read(path: str | Path) -> tuple[str, str]:
    candidate = Path(path)
    if candidate.is_file():
        try:
            return candidate.read_text(encoding="utf-8"), str(candidate)
        except (OSError, UnicodeDecodeError) as exc:
            raise StudyError(f"{candidate}: cannot read ({exc})") from None
    name = str(path).removesuffix(".toml")
    if name in builtin_studies():
        resource = resources.files("sims") / "studies" / f"{name}.toml"
        return resource.read_text(encoding="utf-8"), f"{name}.toml"
    raise StudyError(
        f"{path}: no such study file or built-in study (built-in: {', '.join(builtin_studies())})"
    )


def quick_study(
    base: Study,
    games: int | None = None,
    players: list[int] | None = None,
    strategies: list[str] | None = None,
    seed: int | None = None,
    out: str | None = None,
    name: str | None = None,
    isolation: Isolation | None = None,
    until: str | None = None,
    max_games: int | None = None,
) -> Study:
    """The study with command-line overrides applied (validated like a file).

    The study keeps its own name (flags only tweak it) unless ``name`` gives a new one,
    which also becomes the default output folder ``results/<name>``. ``games`` plays that
    many games a cell once, unless ``until`` (``--until settled``, up to ``max_games``) asks
    for more.
    """
    data = dict(base.source)
    data["name"] = base.name
    if name is not None:
        data["name"] = name
        data["output"] = f"results/{name}"
        data.pop("description", None)
    if games is not None:  # every cell: line-ups lose their own games
        data["games_per_cell"] = games
        # that many games, once, unless asked to go on until settled (then the default cap)
        data.pop("max_games", None)
        data.pop("stop", None)
        if isinstance(data.get("lineups"), list):
            data["lineups"] = [
                x["seats"] if isinstance(x, dict) and "seats" in x else x for x in data["lineups"]
            ]
    if until is not None:
        data["stop"] = until
    if max_games is not None:
        data["max_games"] = max_games
    if players is not None:
        data["players"] = players
    if strategies is not None:
        data.pop("lineups", None)
        data["pool"] = strategies
    if seed is not None:
        data["seed"] = seed
    if out is not None:
        data["output"] = out
    if isolation is not None:
        data["isolation"] = Isolation(isolation).value
    return from_dict(data, "command line")


def adhoc_name(
    strategies: list[str] | tuple[str, ...], players: list[int] | tuple[int, ...]
) -> str:
    """The name (and folder) of a study given only by flags: ``adhoc-planner+thief-2p``."""
    labels = sorted(set(strategies))
    who = "+".join(labels) if len(labels) <= 3 else f"{len(labels)}-strategies"
    who = re.sub(r"[^A-Za-z0-9_+-]+", "-", who).strip("-") or "strategies"
    return f"adhoc-{who}-{'-'.join(str(p) for p in sorted(set(players)))}p"
