"""The search itself: screen, racing rounds, greedy combination and the hold-out check."""

from __future__ import annotations

import contextlib
import copy
import json
import math
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import SimsError, StudyError, TuneError
from ..files import write_atomic
from ..runner import worker_count
from ..stopping import catch_stop_signals
from ..study import BASE, Study, from_dict, load_study
from ..study_settings import ADAPT_BUDGET
from ..sweep import show_value
from .adapted import AdaptedPlayers
from .evaluation import Runner, step_seed
from .objectives import (
    Context,
    DestinationsObjective,
    Mix,
    parse_bands,
    parse_objective,
    warnings_off,
)
from .prices import Price, cost_class, price_list, within_spread
from .sample import Sample, normal_z
from .settings import (
    DEFAULT_BUDGET,
    DEFAULT_HOLDOUT,
    DEFAULT_MAX_EDITS,
    DEFAULT_SUSPECTS,
    DROP_LEVEL,
    INCREMENTS,
    INDIFFERENCE_FLOOR,
    INDIFFERENCE_SHARE,
    MAX_BUDGET,
    MAX_EDITS_LIMIT,
    MAX_HOLDOUT,
    MIN_DEALS_TO_DECIDE,
    SCREEN_SHARE,
    SIGNIFICANCE,
    TARGET_LEVEL,
)
from .space import (
    Design,
    Parameter,
    Space,
    arm_name,
    base_cards,
    default_edits,
    load_edits,
    parse_edits,
    ticket_costs,
    whole,
)
from .study_file import write_study_file
from .verdict import verdict

# the tune ---------------------------------------------------------------------------------


@dataclass
class TuneResult:
    """What ``tune`` found: the edits (parameter -> value), every evaluation (one row per arm
    and step), the hold-out comparison (one row per item and design), and the verdict."""

    edits: dict[str, int | bool]
    evaluations: pd.DataFrame
    holdout: pd.DataFrame
    target_met: bool | None
    summary: list[str]
    folder: Path
    study_file: Path | None = None
    trace: list[dict[str, Any]] = field(default_factory=list)


class Tuner:
    """One tune: settings checked up front (nothing is written before), then the search."""

    def __init__(
        self,
        study: Study | str | Path,
        objective: str | Mapping[str, float] = "seat",
        edits: str | Path | Mapping[str, Any] | None = None,
        max_edits: int = DEFAULT_MAX_EDITS,
        budget: int = DEFAULT_BUDGET,
        holdout: int = DEFAULT_HOLDOUT,
        cards: str | None = None,
        workers: int | None = None,
        out: str | Path = "tune",
        players: list[int] | tuple[int, ...] | None = None,
        seed: int | None = None,
        bands: str | Mapping[str, float] | None = None,
        suspects: int = DEFAULT_SUSPECTS,
        progress: bool = True,
        stop: Any = None,
        log: Any = None,
        adapt: int | Mapping[str, Any] | None = None,
    ) -> None:
        self.weights = parse_objective(objective)
        self.bands = parse_bands(bands)
        self.max_edits = whole(max_edits, "max-edits", "tune", 1)
        if self.max_edits > MAX_EDITS_LIMIT:
            raise TuneError(f"tune: max-edits: at most {MAX_EDITS_LIMIT}, got {max_edits}")
        # refused here, not when a step's study is built after games and files
        self.budget = whole(budget, "budget", "tune", 1, MAX_BUDGET)
        self.holdout = whole(holdout, "holdout", "tune", 0, MAX_HOLDOUT)
        self.suspects = whole(suspects, "suspects", "tune", 1)
        self.workers = workers
        if workers is not None:
            whole(workers, "workers", "tune", 1)
            try:
                worker_count(workers)
            except StudyError as exc:
                raise TuneError(f"tune: {exc}") from None
        self.out = Path(out)
        self.progress = progress
        self.log = log or self._say
        self.study = self._study(study, cards, players, seed, adapt)
        self.cards = self.study.cards
        self.players = self.study.players
        self.seed = self.study.seed
        self.source = copy.deepcopy(self.study.source)
        # common random numbers: every arm replays the same deals; for the seat objective each
        # deal is also played in every seat order of a line-up, so that within a deal the
        # strategies' strengths cancel and what is left is the seats' own
        self.pairing = (
            "seatings"
            if "seat" in self.weights and self.study.rotation == "permutations"
            else "deals"
        )
        self.base_table = self._base_table()
        if isinstance(edits, str | Path):
            self.parameters, self.edits_data = load_edits(edits, self.study, self.base_table)
        else:
            data = (
                dict(edits)
                if edits is not None
                else default_edits(self.weights, tuple(self.study.players))
            )
            where = "edits" if edits is not None else "default edits"
            self.parameters = parse_edits(
                data, self.study, self.base_table, where, lenient=edits is None
            )
            self.edits_data = data
        self.space = Space(self.parameters, self.study, self.base_table)
        self.allowed = self.space.parameters  # name -> Parameter
        self.context = self._context()
        self.mix = Mix(self.weights, self.context)
        self.runner = Runner(self)
        # players adapted to each design (``adapt``, or the study's own adapt table)
        self.adapted_players = AdaptedPlayers(self) if self.study.adapt_budget else None
        self.stop = stop
        self.bar: Any = None
        self.spent = 0
        self.trace: list[dict[str, Any]] = []
        self.rows: list[dict[str, Any]] = []
        self.item_rows: list[dict[str, Any]] = []
        self.notes: list[str] = []
        # destinations: each ticket arm's deal value on its own ticket when last raced
        # (points, estimate, standard error), and the sample it was last raced on
        self.curve: dict[str, tuple[float, float, float]] = {}
        self.last_sample: dict[str, Sample] = {}
        # destinations: how far out of line each ticket and city is at the round's end
        self.card_order: dict[str, float] = {}

    def _say(self, line: str) -> None:
        """A line on stderr that leaves the progress bar intact."""
        if getattr(self, "bar", None) is not None and not self.bar.disable:
            self.bar.write(line, file=sys.stderr)
        else:
            print(line, file=sys.stderr)

    # setup ---------------------------------------------------------------------------------

    def _study(
        self,
        study: Study | str | Path,
        cards: str | None,
        players: Any,
        seed: int | None,
        adapt: int | Mapping[str, Any] | None = None,
    ) -> Study:
        if not isinstance(study, Study):  # a study file or a built-in study's name
            study = load_study(study)
        if not study.source:
            raise TuneError("study: build it with sims.study.load_study or from_dict")
        data = copy.deepcopy(study.source)
        if cards is not None:
            data["cards"] = str(cards)
        if players is not None:
            data["players"] = list(players)
            if isinstance(data.get("lineups"), list):  # keep the line-ups of these counts
                kept = [
                    x
                    for x in data["lineups"]
                    if len(x["seats"] if isinstance(x, dict) else x) in set(players)
                ]
                if not kept:
                    raise TuneError(f"players: the study has no line-up of {players} players")
                data["lineups"] = kept
        if seed is not None:
            data["seed"] = whole(seed, "seed", "tune", 0)
        if isinstance(adapt, Mapping):  # a whole adapt table: budget and strategies
            data["adapt"] = dict(adapt)
        elif adapt is not None:  # --adapt GAMES: the budget; the file's strategies list stays
            low, high = ADAPT_BUDGET
            whole(adapt, "adapt", "tune", low, high)
            table = data.get("adapt")
            data["adapt"] = {**(table if isinstance(table, dict) else {}), "budget": adapt}
        data.pop("sweeps", None)
        data.pop("stop", None)  # a tune decides how many games each design plays
        data.pop("max_games", None)
        variants = data.get("variants")
        if isinstance(variants, dict):  # the tune starts from the study's base variant
            data["variants"] = {BASE: variants.get(BASE, {})}
        try:
            return from_dict(data, study.name if study.source else "study")
        except SimsError as exc:
            raise TuneError(str(exc)) from None

    def _base_table(self) -> dict[str, Any]:
        variants = self.source.get("variants") or {}
        table = dict(variants.get(BASE, {}))
        table.pop("players", None)
        return table

    def _context(self) -> Context:
        cards = base_cards(self.study)
        labels = sorted({s for cell in self.study.plan.cells for s in cell.lineup})
        randoms = frozenset(k for k, v in self.study.strategies.items() if v.base == "random")
        if "strategies" in self.weights and not [x for x in labels if x not in randoms]:
            raise TuneError("objective strategies: the study seats no strategy but random")
        if "strategies" in self.weights and all(
            len(set(c.lineup)) == 1 for c in self.study.plan.cells
        ):
            raise TuneError("objective strategies: no line-up seats two different strategies")
        return Context(
            players=self.study.players,
            random_labels=randoms,
            labels=tuple(labels),
            card_ids=tuple(d.id for d in cards.destinations),
            card_cities={d.id: (d.city_a, d.city_b) for d in cards.destinations},
            city_names=cards.big_city_names,
            bands=self.bands,
            card_costs=ticket_costs(cards),
        )

    def settings(self) -> dict[str, Any]:
        """What fixes the tune's decisions (a rerun with other settings is refused)."""
        return json.loads(
            json.dumps(
                {
                    "study": self.study.to_dict(),
                    "objective": self.weights,
                    "bands": {k: v for k, v in self.bands.items() if k in self.weights},
                    "edits": self.edits_data,
                    "max_edits": self.max_edits,
                    "budget": self.budget,
                    "holdout": self.holdout,
                    "suspects": self.suspects,
                },
                sort_keys=True,
                default=str,
            )
        )

    def prepare_folder(self, resume: bool) -> None:
        """Refuse a folder that holds something else, or other settings; write the settings."""
        out = self.out
        if out.exists() and not out.is_dir():
            raise TuneError(f"{out}: is a file, not a folder")
        state = out / "tune.json"
        if state.is_file():
            try:
                saved = json.loads(state.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise TuneError(f"{state}: cannot read ({exc})") from None
            old = saved.get("settings", {})
            new = self.settings()
            if old != new:
                changed = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
                raise TuneError(
                    f"{out}: holds a tune with other settings ({', '.join(changed)} differ); "
                    "rerun it with the same ones, or choose another --out"
                )
            return
        if resume:
            raise TuneError(f"{out}: holds no tune to resume")
        if out.exists() and any(out.iterdir()):
            raise TuneError(f"{out}: folder is not empty and holds no tune")
        try:
            out.mkdir(parents=True, exist_ok=True)
            _write_json(state, {"settings": self.settings(), "status": "running"})
        except OSError as exc:
            raise TuneError(f"{out}: cannot write: {exc.strerror or exc}") from None

    # progress ------------------------------------------------------------------------------

    def spent_bar(self, games: int, label: str) -> None:
        self.spent += games if not label.startswith("holdout") else 0
        if self.bar is not None:
            self.bar.update(games)
            self.bar.set_postfix_str(label)

    # the search ----------------------------------------------------------------------------

    def run(self, resume: bool = False) -> TuneResult:
        self.prepare_folder(resume)
        with stop_signals(self) as stop:
            self.stop = stop
            from tqdm import tqdm

            holdout_games = self.holdout * 2
            self.bar = tqdm(
                total=self.budget + holdout_games,
                unit="game",
                desc="tune",
                file=sys.stderr,
                disable=not self.progress,
                dynamic_ncols=True,
            )
            finished = False
            try:
                design, met = self.search()
                result = self.confirm(design, met)
                self.bar.total = self.bar.n  # the search may stop before its budget
                self.bar.refresh()
                finished = True
            finally:
                self.bar.close()
                self.runner.close(kill=not finished)
        return result

    def _announce(self) -> None:
        names = ", ".join(
            f"{k}={v:g}" if len(self.weights) > 1 else k for k, v in self.weights.items()
        )
        self.log(
            f"tune {self.study.name}: objective {names}; {len(self.parameters)} parameter(s) "
            f"may change; at most {self.max_edits} edit(s); search budget {self.budget:,} games, "
            f"hold-out {self.holdout:,} games per design -> {self.out}"
        )
        if self.adapted_players is not None:
            self.log(
                f"players adapted to each design first: {self.adapted_players.budget:,} games "
                "a strategy and design, kept by design in "
                f"{self.adapted_players.folder} (not counted in the budget)"
            )

    def search(self) -> tuple[Design, bool | None]:
        self._announce()
        design = Design(self.base_table)
        screen_games = max(1, int(self.budget * SCREEN_SHARE))
        unit, cost = self.runner.deal_cost({BASE: design})
        deals = max(unit, int(screen_games // cost) // unit * unit)
        if deals * cost > self.budget:
            self.notes.append("the budget does not cover the smallest screen: nothing searched")
            return design, None
        screen = self.runner.play("screen", {BASE: design}, deals)
        sample = Sample(screen.deals, screen.stats, step_seed(self.seed, "boot:screen"))
        destinations = self.mix.get("destinations")
        if isinstance(destinations, DestinationsObjective):
            total, _ = sample.agg(BASE)
            destinations.fit(total[self.mix.slices[self.mix.objectives.index(destinations)]])
        met, _ = self.record_items("screen", sample, BASE, design)
        self.record_arms("screen", 0, 0, sample, {BASE: design}, {}, design)
        self.trace.append(
            {
                "step": "screen",
                "games": screen.games,
                "deals": len(screen.deals),
                "design": design.describe(),
                "target_met": met,
            }
        )
        self.log(
            f"screen: {screen.games:,} games, {len(screen.deals):,} deals; "
            f"target {'met' if met else 'not met'} by {design.describe()}"
        )
        if met:
            return design, True
        pending = self.first_parameters(sample, design)
        rounds = 0
        while rounds < self.max_edits and pending:
            rounds += 1
            left = self.budget - self.spent
            share = left / (self.max_edits - rounds + 1)
            outcome = self.round(rounds, design, pending, share)
            if outcome is None:
                break
            winner, significant, winner_sample = outcome
            if winner is None:
                self.log(f"round {rounds}: no edit beats {design.describe()} significantly")
                break
            parameter, value = winner
            design = design.with_edit(parameter, value)
            met, _ = self.record_items(
                f"round {rounds}", winner_sample, arm_name(parameter, value), design
            )
            self.log(
                f"round {rounds}: applied {parameter} = {show_value(value)}; target "
                f"{'met' if met else 'not met'} on the search's deals"
            )
            if met:
                return design, True
            pending = [p for p in significant if p != parameter]
            if not pending and not isinstance(destinations, DestinationsObjective):
                self.log(f"round {rounds}: no other significant edit to combine with it")
            if isinstance(destinations, DestinationsObjective):
                extra = self.suspect_parameters(winner_sample, arm_name(parameter, value), design)
                pending += [p for p in extra if p not in pending and p not in dict(design.edits)]
        return design, False

    def first_parameters(self, sample: Sample, design: Design) -> list[str]:
        """Round 1's parameters: every one allowed, the screened kinds only where suspect."""
        screened = self._screened()
        names = [p for p in self.allowed if self.allowed[p].kind not in screened]
        names += self.suspect_parameters(sample, BASE, design)
        return names

    def _screened(self) -> set[str]:
        return {"destination", "big_city"} if "destinations" in self.weights else set()

    def suspect_parameters(self, sample: Sample, arm: str, design: Design) -> list[str]:
        """The tickets (and cities) furthest out of line, worst first."""
        signed = self.mispricing(sample, arm, design)
        scores = {name: abs(value) for name, value in signed.items()}
        chosen = sorted(scores, key=lambda k: (-scores[k], k))[: self.suspects]
        self.direction = getattr(self, "direction", {})
        for name in chosen:
            if name.startswith("destinations."):
                self.direction[name] = -1 if signed[name] > 0 else 1
        self.log("suspects: " + ", ".join(f"{n} ({scores[n]:.2f})" for n in chosen))
        return chosen

    def prices(self, design: Design) -> dict[int, Price]:
        """The design's price list: each ticket's price by its same-cost mates' points, else
        by the fit of the deck's points on cost (``prices``), from the edition's own tickets."""
        return price_list(self.space.resolve(design)[1])

    def mispricing(self, sample: Sample, arm: str, design: Design) -> dict[str, float]:
        """How far out of line each ticket (and big city) is, signed (positive: too good a
        deal), in z units. A ticket's is its deal value in play and its points against its
        price list (points less its price, over how far a ticket's points may lie from it)
        combined (their sum over the square root of 2): the games and the designer's
        principle "same cost, same points" each count once, so a ticket both of them put
        out of line is named before one only the games' noise does. A big city's is the
        mean deal value of the tickets naming it."""
        objective = self.mix.get("destinations")
        if not isinstance(objective, DestinationsObjective):
            return {}
        index = self.mix.objectives.index(objective)
        total, _ = sample.agg(arm)
        d = objective.values(total[self.mix.slices[index]])
        prices = self.prices(design)  # the design the arm plays (its edit applied)
        cards = self.space.resolve(design)[1]
        points = {t.id: t.points for t in cards.destinations}
        scores: dict[str, float] = {}
        for c, value in zip(self.context.card_ids, d, strict=True):
            name = f"destinations.{c}.points"
            if name in self.allowed and np.isfinite(value):
                price = prices[c]
                listed = (points[c] - price.value) / price.apart
                scores[name] = (float(value) + listed) / math.sqrt(2)
        for city in self.context.city_names:
            name = f"big_cities.{city}"
            if name in self.allowed:
                mine = [
                    v
                    for c, v in zip(self.context.card_ids, d, strict=True)
                    if city in self.context.card_cities[c] and np.isfinite(v)
                ]
                if mine:
                    scores[name] = float(np.mean(mine))
        return scores

    def arms_for(self, design: Design, names: list[str]) -> dict[str, tuple[str, int | bool]]:
        arms = {}
        for parameter, value in self.space.candidates(design, names):
            direction = getattr(self, "direction", {}).get(parameter)
            if direction is not None:
                current = self.space.current(design, parameter)
                if (value - current) * direction < 0:
                    continue
            arms[arm_name(parameter, value)] = (parameter, value)
        return arms

    def round(
        self, number: int, design: Design, names: list[str], budget: float
    ) -> tuple[tuple[str, int | bool] | None, list[str], Sample] | None:
        arms = self.arms_for(design, names)
        if not arms:
            self.notes.append(f"round {number}: no candidate edit is a valid game")
            return None
        alive = dict(arms)
        designs = {BASE: design, **{a: design.with_edit(p, v) for a, (p, v) in arms.items()}}
        blocks: dict[str, list[np.ndarray]] = {a: [] for a in designs}
        deals_frames: list[pd.DataFrame] = []
        spent = 0.0
        increment_games = budget / INCREMENTS
        step = 0
        dropped: dict[str, str] = {}
        sample: Sample | None = None
        self.log(
            f"round {number}: {len(arms)} candidate edit(s) of "
            f"{len({p for p, _ in arms.values()})} "
            f"parameter(s) from {design.describe()}"
        )
        while True:
            current = {BASE: design, **{a: designs[a] for a in alive}}
            unit, cost = self.runner.deal_cost(current)
            left = min(budget - spent, self.budget - self.spent)
            target = min(max(increment_games, unit * cost), left)
            deals = int(target // cost) // unit * unit
            if deals < unit or (sample is not None and target < increment_games / 2):
                # the round's share is spent: with nothing significant yet there is no later
                # round to save for, so the round goes on with what is left of the budget
                whole = spent + self.budget - self.spent
                if sample is None or whole <= budget or self.significant(sample, alive, arms)[0]:
                    break
                budget = whole
                continue
            step += 1
            evaluation = self.runner.play(f"r{number}-s{step:02d}", current, deals)
            spent += evaluation.games
            deals_frames.append(evaluation.deals.assign(step=step))
            for a in current:
                blocks[a].append(evaluation.stats[a])
            all_deals = pd.concat(deals_frames, ignore_index=True)
            stats = {a: np.concatenate(blocks[a]) for a in current}
            sample = Sample(all_deals, stats, step_seed(self.seed, f"boot:r{number}-s{step:02d}"))
            decided = self.race(number, step, sample, alive, arms, dropped, design, len(all_deals))
            self.trace.append(
                {
                    "step": f"r{number}-s{step:02d}",
                    "games": evaluation.games,
                    "deals": len(evaluation.deals),
                    "arms": len(current) - 1,
                    "design": design.describe(),
                }
            )
            if decided:
                break
        if sample is None:
            self.notes.append(f"round {number}: the budget left does not cover one increment")
            return None
        return self.conclude(number, step, sample, alive, arms, design)

    def _estimates(self, sample: Sample, arms: list[str]) -> dict[str, tuple[float, np.ndarray]]:
        """Each arm's loss and its bootstrap replicates, as the search compares them."""
        base_total, base_boot = sample.agg(BASE)
        out = {}
        for a in arms:
            total, boot = sample.agg(a)
            borrowed = self._borrowed_columns(a)
            if borrowed.size:
                total, boot = total.copy(), boot.copy()
                total[borrowed] = base_total[borrowed]
                boot[:, borrowed] = base_boot[:, borrowed]
            out[a] = (float(self.mix.loss(total)), np.asarray(self.mix.loss(boot)))
        return out

    def _borrowed_columns(self, arm: str) -> np.ndarray:
        """For an arm that edits a ticket's points (or a big city's bonus), the destinations
        statistics of every other ticket (of every ticket not naming the city), which the
        search takes from the current design.

        Once the edited ticket is dealt the paired games diverge, so every ticket's deal
        value differs between the arms by sampling noise: summed over 46 tickets, that noise
        drowns the gain on the one ticket the edit is about (a planted ticket's best fix gained
        0.015 on a loss of 0.154 with a standard error of 0.023). An edit's real effect on
        the other tickets is small; the hold-out, which compares every ticket, judges it."""
        objective = self.mix.get("destinations")
        if arm == BASE or not isinstance(objective, DestinationsObjective):
            return np.empty(0, dtype=int)
        parameter = Parameter(arm.split("=", 1)[0])  # what it edits follows from its name
        ids = self.context.card_ids
        if parameter.kind == "destination":
            focus = {parameter.card}
        elif parameter.kind == "big_city":
            focus = {c for c in ids if parameter.card in self.context.card_cities[c]}
        else:
            return np.empty(0, dtype=int)
        start = self.mix.slices[self.mix.objectives.index(objective)].start
        width = len(DestinationsObjective.PARTS)
        return np.array(
            [
                start + width * i + k
                for i, c in enumerate(ids)
                if c not in focus
                for k in range(width)
            ],
            dtype=int,
        )

    def race(
        self,
        number: int,
        step: int,
        sample: Sample,
        alive: dict[str, tuple[str, Any]],
        arms: dict[str, tuple[str, Any]],
        dropped: dict[str, str],
        design: Design,
        deals: int,
    ) -> bool:
        """Drop the arms that lost; True when the round is decided."""
        est = self._estimates(sample, [BASE, *alive])
        self._record_curve(sample, alive)
        base_loss, base_boot = est[BASE]
        margin = max(INDIFFERENCE_FLOOR, INDIFFERENCE_SHARE * base_loss)
        z_drop = normal_z(DROP_LEVEL)
        if deals >= MIN_DEALS_TO_DECIDE:
            best = min([BASE, *alive], key=lambda a: (est[a][0], a))
            for a in alive:
                if a == best:
                    continue
                diff = est[a][0] - est[best][0]
                se = float(np.std(est[a][1] - est[best][1], ddof=1))
                if diff - z_drop * se > 0:
                    dropped[a] = f"worse than {best} at 99% at step {step}"
                    continue
                gain = est[a][0] - base_loss
                se = float(np.std(est[a][1] - base_boot, ddof=1))
                if gain - z_drop * se > -margin:
                    dropped[a] = (
                        f"cannot gain {margin:.3g} on the current design at 99% at step {step}"
                    )
        for a in list(alive):
            if a in dropped:
                del alive[a]
        self.record_arms(
            f"r{number}-s{step:02d}",
            number,
            step,
            sample,
            {BASE: design, **{a: design.with_edit(*arms[a]) for a in arms}},
            dropped,
            design,
            est,
        )
        if not alive:
            return True
        # decided: one arm left, and it beats the current design
        return len(alive) == 1 and bool(self.significant(sample, alive, arms)[0])

    def _ticket_value(self, sample: Sample, arm: str, card: int) -> tuple[float, float]:
        """One arm's deal value on one ticket, and its bootstrap standard error."""
        objective = self.mix.get("destinations")
        assert isinstance(objective, DestinationsObjective)
        columns = self.mix.slices[self.mix.objectives.index(objective)]
        i = self.context.card_ids.index(card)
        total, boot = sample.agg(arm)
        value = float(objective.values(total[columns])[i])
        with warnings_off():
            se = float(np.nanstd(objective.values(boot[:, columns])[:, i], ddof=1))
        return value, se

    def _record_curve(self, sample: Sample, alive: dict[str, tuple[str, Any]]) -> None:
        """Each arm that edits a ticket's points: its deal value on that ticket, kept as the
        round's evidence of where the ticket's in-play price lies (``price``)."""
        if not isinstance(self.mix.get("destinations"), DestinationsObjective):
            return
        for a, (parameter, value) in alive.items():
            if Parameter(parameter).kind == "destination" and isinstance(value, int):
                card = Parameter(parameter).card
                assert isinstance(card, int)
                self.curve[a] = (float(value), *self._ticket_value(sample, a, card))
                self.last_sample[a] = sample

    def price(
        self,
        parameter: str,
        arms: dict[str, tuple[str, Any]],
        sample: Sample,
        design: Design,
    ) -> tuple[int, str]:
        """The value a ticket's points are set to, and the sentence that says why.

        The games give the ticket's in-play price: where a line through its deal value at
        each value raced (weighted by their errors, the current value included) crosses zero,
        with its standard error, and tickets of one cost play some way apart. The edition's
        price list gives the price of its cost (``prices``), with its own error. The value is
        the precision-weighted mean of the two, rounded to the nearest value raced: the games
        outweigh the price list as far as they are sure, and a ticket the games cannot price
        closely goes to its same-cost mates' price (or the deck's fit)."""
        card = Parameter(parameter).card
        assert isinstance(card, int)
        current = float(self.space.current(design, parameter))
        mine = {a: v for a, (p, v) in arms.items() if p == parameter and a in self.curve}
        base_value, base_se = self._ticket_value(sample, BASE, card)
        xs = np.array([current] + [self.curve[a][0] for a in mine])
        ys = np.array([base_value] + [self.curve[a][1] for a in mine])
        ses = np.array([base_se] + [self.curve[a][2] for a in mine])
        listed = self.prices(design)[card]
        play, play_se, slope = _crossing(xs, ys, ses)
        if play is None:  # no slope to read: the race's own best value, as sure as the list
            best = min(mine, key=lambda a: (abs(self.curve[a][1]), a))
            play, play_se, apart = self.curve[best][0], 0.0, listed.error
        else:
            apart = self._played_apart(sample, design, card, slope)
            play_se = math.hypot(play_se, self._expected_error(card) / slope)
        error = math.sqrt(play_se**2 + apart**2)
        w_play, w_list = 1.0 / error**2, 1.0 / listed.error**2
        blended = (play * w_play + listed.value * w_list) / (w_play + w_list)
        value = min(mine.values(), key=lambda v: (abs(v - blended), abs(v - current)))
        where = "its same-cost mates' price" if listed.source == "mates" else "the deck's fit"
        sentence = (
            f"{parameter}: in play {play:.1f} (± {play_se:.1f}; tickets of one cost play "
            f"{apart:.1f} apart), {where} {listed.value:.1f} (± {listed.error:.1f}): "
            f"{blended:.1f}, so {show_value(value)}"
        )
        return value, sentence

    def _expected_error(self, card: int) -> float:
        """The standard error, in deal value (z), of what the screen's fit expects of a
        ticket of this cost: the zero its in-play price is read against. The three parts'
        errors are taken as moving together (their mean), the cautious reading."""
        se = self.context.expected_se
        if se is None:
            return 0.0
        i = self.context.card_ids.index(card)
        return float(np.mean(se[i] / np.asarray(self.context.scales)))

    def _played_apart(self, sample: Sample, design: Design, card: int, slope: float) -> float:
        """How far apart tickets of one cost play in this deck, in points: each ticket's
        in-play price in the current design (its points less its deal value over the
        slope of deal value in points, read off the round's ticket), pooled within the
        classes of one cost (the ticket priced left out)."""
        objective = self.mix.get("destinations")
        assert isinstance(objective, DestinationsObjective)
        columns = self.mix.slices[self.mix.objectives.index(objective)]
        values = objective.values(sample.agg(BASE)[0][columns])
        cards = self.space.resolve(design)[1]
        points = {t.id: float(t.points) for t in cards.destinations}
        played = {
            c: points[c] - float(v) / slope
            for c, v in zip(self.context.card_ids, values, strict=True)
            if np.isfinite(v)
        }
        return within_spread(cost_class(cards), played, leave_out=card)

    def conclude(
        self,
        number: int,
        step: int,
        sample: Sample,
        alive: dict[str, tuple[str, Any]],
        arms: dict[str, tuple[str, Any]],
        design: Design,
    ) -> tuple[tuple[str, int | bool] | None, list[str], Sample]:
        self.card_order = self.mispricing(sample, BASE, design)
        significant, best_of = self.significant(sample, alive, arms)
        for row in self.rows:
            if row["step"] == f"r{number}-s{step:02d}" and row["arm"] in best_of.values():
                row["status"] = "significant" if row["parameter"] in significant else row["status"]
        for a in [BASE, *alive]:  # the evidence: each arm's items at the end of the round
            self.record_items(
                f"r{number}-end", sample, a, design if a == BASE else design.with_edit(*arms[a])
            )
        if not significant:
            return None, [], sample
        winner = best_of[significant[0]]
        parameter, value = arms[winner]
        if Parameter(parameter).kind == "destination" and winner in self.curve:
            value, sentence = self.price(parameter, arms, sample, design)
            winner = arm_name(parameter, value)
            self.notes.append(f"round {number}: {sentence}")
            self.log(f"round {number}: {sentence}")
        last = max(
            (
                i
                for i, row in enumerate(self.rows)
                if row["round"] == number and row["arm"] == winner
            ),
            default=None,
        )
        if last is not None:
            self.rows[last]["status"] = "applied"
        return (parameter, value), significant, self.last_sample.get(winner, sample)

    def significant(
        self, sample: Sample, alive: dict[str, tuple[str, Any]], arms: dict[str, tuple[str, Any]]
    ) -> tuple[list[str], dict[str, str]]:
        """The parameters whose best surviving arm beats the current design at 95% (one-sided,
        Bonferroni over the surviving arms), best first; and each one's best arm."""
        est = self._estimates(sample, [BASE, *alive])
        base_loss, base_boot = est[BASE]
        z_sig = normal_z(1 - (1 - SIGNIFICANCE) / max(1, len(alive)))
        best_of: dict[str, str] = {}
        for a, (p, _) in alive.items():
            if p not in best_of or (est[a][0], a) < (est[best_of[p]][0], best_of[p]):
                best_of[p] = a
        significant = []
        if len(sample.deals) >= MIN_DEALS_TO_DECIDE:
            for p, a in best_of.items():
                se = float(np.std(est[a][1] - base_boot, ddof=1))
                if est[a][0] - base_loss + z_sig * se < 0:
                    significant.append(p)
        significant.sort(key=lambda p: (est[best_of[p]][0], p))
        order = self.card_order
        if order and all(p in order for p in significant):
            # destinations: the ticket (or city) furthest out of line first (``mispricing``)
            significant.sort(key=lambda p: (-abs(order[p]), p))
        return significant, best_of

    # records -------------------------------------------------------------------------------

    def record_arms(
        self,
        label: str,
        number: int,
        step: int,
        sample: Sample,
        designs: dict[str, Design],
        dropped: dict[str, str],
        design: Design,
        est: dict[str, tuple[float, np.ndarray]] | None = None,
    ) -> None:
        present = [a for a in designs if a in sample.stats]
        if est is None:
            est = self._estimates(sample, present)
        base_loss, base_boot = est[BASE]
        for a in present:
            if a not in est:
                continue
            loss, boot = est[a]
            parameter, value = (None, None) if a == BASE else a.split("=", 1)
            diff_se = float(np.std(boot - base_boot, ddof=1)) if a != BASE else 0.0
            just_dropped = a in dropped and dropped[a].endswith(f" at step {step}")
            self.rows.append(
                {
                    "step": label,
                    "round": number,
                    "increment": step,
                    "arm": a,
                    "parameter": parameter,
                    "value": value,
                    "design": designs[a].describe(),
                    "deals": len(sample.deals),
                    "loss": loss,
                    "loss_se": float(np.std(boot, ddof=1)),
                    "difference": loss - base_loss if a != BASE else 0.0,
                    "difference_se": diff_se,
                    "status": (
                        "current"
                        if a == BASE
                        else f"dropped: {dropped[a]}"
                        if just_dropped
                        else "racing"
                    ),
                }
            )

    def record_items(
        self, label: str, sample: Sample, arm: str, design: Design
    ) -> tuple[bool, list[dict[str, Any]]]:
        """Each item's estimate and interval for one arm; whether the target is met."""
        total, boot = sample.agg(arm)
        rows = []
        met = True
        for objective, values, bvalues in zip(
            self.mix.objectives,
            self.mix.values(total),
            self.mix.values(boot),
            strict=True,
        ):
            z = normal_z(
                1 - (1 - TARGET_LEVEL) / (2 if objective.two_sided else 1) / objective.free_items()
            )
            with warnings_off():
                se = np.nanstd(bvalues, axis=0, ddof=1)
            inside = objective.within(values, se, z)
            inside = np.where(np.isfinite(values), inside, False)
            met = met and bool(np.all(inside))
            for name, v, e, ok in zip(objective.items(), values, se, inside, strict=True):
                rows.append(
                    {
                        "step": label,
                        "arm": arm,
                        "design": design.describe(),
                        "objective": objective.name,
                        "item": name,
                        "estimate": float(v),
                        "se": float(e),
                        "low": float(v - z * e),
                        "high": float(v + z * e),
                        "band": objective.band,
                        "within": bool(ok),
                    }
                )
        self.item_rows += rows
        return met, rows

    # hold-out ------------------------------------------------------------------------------

    def confirm(self, design: Design, met_in_search: bool | None) -> TuneResult:
        start = Design(self.base_table)
        edited = bool(design.edits)
        holdout = pd.DataFrame()
        target_met: bool | None = None
        summary: list[str] = []
        if self.holdout > 0:
            designs = {BASE: start, **({"tuned": design} if edited else {})}
            unit, cost = self.runner.deal_cost(designs)
            deals = max(unit, math.ceil(self.holdout * len(designs) / cost / unit) * unit)
            evaluation = self.runner.play("holdout", designs, deals)
            sample = Sample(
                evaluation.deals, evaluation.stats, step_seed(self.seed, "boot:holdout")
            )
            before_met, before = self.record_items("holdout", sample, BASE, start)
            target_met = before_met
            after = before
            if edited:
                target_met, after = self.record_items("holdout", sample, "tuned", design)
            holdout = self.paired(sample, before, after, edited)
            self.trace.append(
                {
                    "step": "holdout",
                    "games": evaluation.games,
                    "deals": len(evaluation.deals),
                    "design": design.describe(),
                    "target_met": target_met,
                }
            )
        summary = verdict(self, start, design, target_met, holdout, met_in_search)
        if self.adapted_players is not None:
            summary.append(self.adapted_players.sentence())
        return self.write(design, holdout, target_met, summary)  # cardgame tune prints it

    def paired(
        self,
        sample: Sample,
        before: list[dict[str, Any]],
        after: list[dict[str, Any]],
        edited: bool,
    ) -> pd.DataFrame:
        """Items before and after on the held-out deals, with the paired difference; and the
        loss of each design."""
        frame = pd.DataFrame(before).assign(design_label="before")
        if edited:
            frame = pd.concat([frame, pd.DataFrame(after).assign(design_label="after")])
        frame = frame.reset_index(drop=True)
        if edited:
            tb, bb = sample.agg(BASE)
            ta, ba = sample.agg("tuned")
            diffs = []
            for vb, va, bvb, bva in zip(
                self.mix.values(tb),
                self.mix.values(ta),
                self.mix.values(bb),
                self.mix.values(ba),
                strict=True,
            ):
                with warnings_off():
                    se = np.nanstd(bva - bvb, axis=0, ddof=1)
                diffs += list(zip(va - vb, se, strict=True))
            z = normal_z(0.975)
            n = len(diffs)
            frame["difference"] = [d for d, _ in diffs] * 2
            frame["difference_low"] = [d - z * e for d, e in diffs] * 2
            frame["difference_high"] = [d + z * e for d, e in diffs] * 2
            assert len(frame) == 2 * n
            lb, bl = float(self.mix.loss(tb)), self.mix.loss(bb)
            la, al = float(self.mix.loss(ta)), self.mix.loss(ba)
            self.holdout_loss = {
                "before": lb,
                "after": la,
                "before_se": float(np.std(bl, ddof=1)),
                "after_se": float(np.std(al, ddof=1)),
                "difference_se": float(np.std(al - bl, ddof=1)),
            }
        else:
            tb, bb = sample.agg(BASE)
            self.holdout_loss = {
                "before": float(self.mix.loss(tb)),
                "before_se": float(np.std(self.mix.loss(bb), ddof=1)),
            }
        return frame

    # outputs -------------------------------------------------------------------------------

    def write(
        self, design: Design, holdout: pd.DataFrame, target_met: bool | None, summary: list[str]
    ) -> TuneResult:
        evaluations = pd.DataFrame(self.rows)
        items = pd.DataFrame(self.item_rows)
        evaluations.to_parquet(self.out / "evaluations.parquet", index=False)
        if not items.empty:
            items.to_parquet(self.out / "items.parquet", index=False)
        if not holdout.empty:
            holdout.to_parquet(self.out / "holdout.parquet", index=False)
        study_file = self.out / "edits.toml"
        write_study_file(study_file, self, design)
        edits = {p: v for p, v in design.edits}
        start = Design(self.base_table)
        _write_json(
            self.out / "tune.json",
            {
                "settings": self.settings(),
                "status": "done",
                "edits": [
                    {"parameter": p, "from": self.space.current(start, p), "to": v}
                    for p, v in design.edits
                ],
                "target_met": target_met,
                "summary": summary,
                "notes": self.notes,
                "trace": self.trace,
                "games": {
                    "search": self.spent,
                    "holdout": int(self.trace[-1]["games"])
                    if self.trace and self.trace[-1]["step"] == "holdout"
                    else 0,
                },
                "holdout_loss": getattr(self, "holdout_loss", None),
                **(
                    {"adapt": self.adapted_players.summary()}
                    if self.adapted_players is not None
                    else {}
                ),
            },
        )
        return TuneResult(
            edits, evaluations, holdout, target_met, summary, self.out, study_file, self.trace
        )


def _write_json(path: Path, data: Any) -> None:
    write_atomic(path, json.dumps(data, indent=2, sort_keys=True, default=str))


# signals ----------------------------------------------------------------------------------


@contextlib.contextmanager
def stop_signals(tuner: Tuner) -> Iterator[Any]:
    """SIGINT/SIGTERM set a flag that the runs and the search poll (unless the caller gave
    one): the evaluation in flight stops cleanly and the tune can be continued."""
    if tuner.stop is not None:
        yield tuner.stop
        return
    with catch_stop_signals() as flag:
        yield flag


def _crossing(xs: np.ndarray, ys: np.ndarray, ses: np.ndarray) -> tuple[float | None, float, float]:
    """Where a weighted line through (xs, ys) crosses zero, within the values given, its
    standard error (the delta method) and the line's slope; None where it does not rise."""
    keep = np.isfinite(ys) & np.isfinite(ses) & (ses > 0)
    xs, ys, ses = xs[keep], ys[keep], ses[keep]
    if len(set(xs.tolist())) < 2:
        return None, math.inf, math.nan
    design = np.column_stack([np.ones(len(xs)), xs])
    weights = 1.0 / ses**2
    cov = np.linalg.inv(design.T @ (design * weights[:, None]))
    a, b = cov @ design.T @ (weights * ys)
    # the deal value is no straight line in the points: a misfit beyond the errors widens
    # the line's uncertainty by it (the reduced chi-square, where there are points to spare)
    if len(xs) > 2:
        misfit = float(np.sum(weights * (ys - a - b * xs) ** 2)) / (len(xs) - 2)
        cov = cov * max(1.0, misfit)
    if not b > 0:
        return None, math.inf, float(b)
    x = -a / b
    var = (cov[0, 0] + 2 * x * cov[0, 1] + x * x * cov[1, 1]) / b**2
    return float(np.clip(x, xs.min(), xs.max())), float(math.sqrt(max(var, 0.0))), float(b)
