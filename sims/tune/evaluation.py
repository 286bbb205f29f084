"""Evaluations on common deals: the studies a step plays for its arms, on the tune's warm
pool of workers, and the per-deal sums the statistics are made of, one table a step."""

from __future__ import annotations

import copy
import json
import math
import zlib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..batch import Batch, BatchColumns, plan_batches
from ..errors import TuneError, TuneInterrupted
from ..files import write_atomic
from ..pool import WarmPool
from ..study import BASE, Study, from_dict
from .adapted import with_players
from .objectives import Context, DestinationsObjective, Mix
from .settings import (
    BATCH_CAP,
)
from .space import Design

if TYPE_CHECKING:
    from ..plan import Plan
    from .tuner import Tuner


# evaluations ------------------------------------------------------------------------------


def step_seed(root: int, label: str) -> int:
    """The root seed of one evaluation: the search's steps and the hold-out never share one."""
    sequence = np.random.SeedSequence(root, spawn_key=(zlib.crc32(label.encode()),))
    return int(sequence.generate_state(1, dtype=np.uint32)[0])


@dataclass
class Evaluation:
    """One study played: its arms' per-deal statistics, aligned on the same deals."""

    label: str
    folder: Path
    seed: int
    games: int
    deals: pd.DataFrame  # players, deal, seed (one row per deal, the rows of each matrix)
    stats: dict[str, np.ndarray]  # arm -> (deals, columns)


class Runner:
    """Builds and plays the tune's studies, and reads what the objectives need.

    A step is one study per line-up, each with a root seed of its own, all played as one run
    of batches on the warm pool and summed per deal into ``evaluations/STEP.parquet``: the
    arms of a line-up replay the same deals (common random numbers), and different line-ups
    play different deals. One study for all line-ups would deal game i alike at every
    line-up of a player count, and a deal's own bias (how much it favours the first seat, how
    well a ticket fits it) would then count once per line-up: on the strategy ladder at 2
    players that multiplies the variance of the first seat's share by about 3.5.
    """

    def __init__(self, tuner: Tuner) -> None:
        self.t = tuner
        cells = [c for c in tuner.study.plan.cells if c.variant == BASE] or tuner.study.plan.cells
        self.lineups = sorted({c.lineup for c in cells}, key=lambda x: (len(x), x))
        self._pool: WarmPool | None = None

    def study(
        self,
        designs: dict[str, Design],
        deals: int,
        seed: int,
        folder: Path,
        lineups: list[tuple[str, ...]] | None = None,
    ) -> Study:
        data = copy.deepcopy(self.t.source)
        data.pop("sweeps", None)
        data.pop("pool", None)
        data.pop("adapt", None)  # adapted players come from the tune's cache (play)
        lineups = self.lineups if lineups is None else lineups
        data["name"] = self.t.study.name
        data["seed"] = seed
        data["games_per_cell"] = deals
        data["lineups"] = [list(x) for x in lineups]
        data["players"] = sorted({len(x) for x in lineups})
        data["pairing"] = self.t.pairing
        data["output"] = str(folder)
        data["batch_size"] = max(1, min(deals, BATCH_CAP))
        if self.t.cards is not None:
            data["cards"] = self.t.cards
        data["variants"] = {name: design.variant_table() for name, design in designs.items()}
        return from_dict(data, f"tune step {folder.name}")

    def deal_cost(self, designs: dict[str, Design]) -> tuple[int, float]:
        """The smallest games per line-up that plays every seat order equally often, and
        the games that many cost (all line-ups, these arms) divided by it."""
        probe = self.study(designs, 1, 0, Path("probe"))
        unit = 1
        if probe.rotation == "permutations":
            for cell in probe.plan.cells:
                unit = math.lcm(unit, len(cell.seatings()))
        study = self.study(designs, unit, 0, Path("probe"))
        return unit, study.plan.total_games / unit

    def play(self, label: str, designs: dict[str, Design], deals: int) -> Evaluation:
        """Play ``deals`` games per line-up and arm (each line-up a study of its own seed,
        all of them one run of batches on the tune's warm pool) and sum them per deal; a step
        already played (a resumed tune) is read from its table."""
        path = self.t.out / EVALUATIONS / f"{label}.parquet"
        facts = {
            "label": label,
            "deals": deals,
            "arms": {a: d.describe() for a, d in designs.items()},
        }
        stored = read_evaluation(path, facts)
        if stored is not None:
            self.t.spent_bar(stored.games, label)
            return stored
        plans = self.plans(label, designs, deals, path.parent / label)
        columns = {t: COLUMNS[t] for t in self.tables}
        batches = [(i, b) for i, plan in enumerate(plans) for b in self._batches(plan)]
        found = self.pool.play([b for _, b in batches], columns, self.t.stop)
        if found is None or self.t.stop:
            raise TuneInterrupted("interrupted")
        failures = [line for result in found for line in result.failures]
        if failures:
            raise TuneError(
                f"{path.parent / label}: {len(failures)} game(s) failed, e.g. {failures[0]}"
            )
        tables = frames([(i, b, r) for (i, b), r in zip(batches, found, strict=True)], self.tables)
        deals_frame, stats = self.read(plans, tables, designs)
        games = sum(plan.total_games for plan in plans)
        evaluation = Evaluation(label, path, 0, games, deals_frame, stats)
        said = plans[0].to_dict()
        facts["games"] = games
        facts["plan"] = {"adapt": said.get("adapt"), "variants": said["variants"]}
        write_evaluation(path, evaluation, facts)
        self.t.spent_bar(games, label)
        return evaluation

    @property
    def tables(self) -> tuple[str, ...]:
        """The results tables the objectives read."""
        return ("games", "seats", "destinations") if "destinations" in self.t.weights else (
            "games", "seats")  # fmt: skip

    @property
    def pool(self) -> WarmPool:
        """The tune's worker processes, started at its first games and kept to its end."""
        if self._pool is None:
            from ..runner import worker_count

            self._pool = WarmPool(worker_count(self.t.workers))
        return self._pool

    def close(self, kill: bool = False) -> None:
        if self._pool is not None:
            self._pool.close(kill)

    def plans(self, label: str, designs: dict[str, Design], deals: int, folder: Path) -> list[Plan]:
        """The step's studies, one per line-up with a root seed of its own: one study of
        every line-up is built (with the players adapted to each arm), and each line-up's
        plan is its cells with that line-up's seed."""
        study = self.study(designs, deals, 0, folder)
        players = self.t.adapted_players
        if players is not None:
            adapted = players.for_designs(designs)
            study = with_players(study, adapted, players.budget, players.strategies)
        out = []
        for lineup in self.lineups:
            name = f"{len(lineup)}p-{'+'.join(lineup)}"
            cells = tuple(c for c in study.plan.cells if c.lineup == lineup)
            seed = step_seed(self.t.seed, f"{label}/{name}")
            out.append(replace(study.plan, seed=seed, cells=cells, players=(len(lineup),),
                               output=str(folder / name)))  # fmt: skip
        return out

    def _batches(self, plan: Plan) -> list[Batch]:
        from ..runner import run_guest_key

        return list(plan_batches(plan, guest_key=run_guest_key(plan, Path(plan.output), False)))

    def read(
        self, plans: list[Plan], tables: tuple[pd.DataFrame, ...], designs: dict[str, Design]
    ) -> tuple[pd.DataFrame, dict[str, np.ndarray]]:
        """The deals of a step's studies (one per line-up, ``frames``) and each arm's per-deal
        statistics on them, line-up after line-up."""
        games, seats, dests = tables
        frame = per_deal(games, seats, dests, self.t.mix, reference=BASE, by=(LINEUP,))
        deals = (
            games.groupby([LINEUP, "players", "seed"])["game_index"]
            .min()
            .rename("first_game")
            .reset_index()
            .sort_values([LINEUP, "players", "first_game", "seed"])
            .reset_index(drop=True)
        )
        index = pd.MultiIndex.from_frame(deals[[LINEUP, "players", "seed"]])
        stats = {}
        variants = set(frame.index.get_level_values("variant"))
        width = len(self.t.mix.columns)

        def matrix(name: str) -> np.ndarray:
            if name not in variants:
                return np.zeros((len(index), width))
            return frame.loc[name].reindex(index, fill_value=0.0).to_numpy()

        base = matrix(BASE)
        for name in designs:
            # where an arm equals the current design (a rule of other player counts) it
            # plays the same games: the current design's rows stand for it
            counts = [plan.variants[name].players for plan in plans]  # of each line-up
            played = np.array(
                [p in counts[n] for n, p in zip(deals[LINEUP], deals["players"], strict=True)],
                dtype=bool,
            )
            stats[name] = np.where(played[:, None], matrix(name), base)
        return deals.drop(columns=LINEUP), stats


LINEUP = "lineup"  # a step's rows: the number of the line-up (the study) they belong to
COLUMNS = {
    "games": ("variant", "players", "cell", "game_index", "seed", "failed"),
    "seats": ("variant", "players", "cell", "game_index", "seed", "seat", "strategy", "score",
              "win_share"),
    "destinations": ("cell", "game_index", "seat", "destination_id", "kept"),
}  # fmt: skip
EVALUATIONS = "evaluations"  # DIR/evaluations/STEP.parquet: each step's per-deal sums
META_KEY = b"ttr_cardgame.tune_step"


def frames(
    played: list[tuple[int, Batch, BatchColumns]], tables: tuple[str, ...]
) -> tuple[pd.DataFrame, ...]:
    """A step's rows of the columns the objectives read, finished games only, each row with
    its line-up's number (``LINEUP``): line-up after line-up, and each line-up's rows in the
    order its results folder would hold them (cells in their names' order, each cell's games
    in order). ``played``: (line-up, batch, its columns)."""
    import pyarrow as pa

    order = sorted(range(len(played)), key=lambda k: (played[k][0], played[k][1].cell.key, k))

    def table(name: str, numbered: bool = True) -> pd.DataFrame:
        pieces = [played[k][2].tables[name] for k in order]
        arrow = pa.concat_tables(pieces)
        if numbered:  # a cell names its line-up: the tables joined on it need no number
            numbers = np.repeat([played[k][0] for k in order], [len(p) for p in pieces])
            arrow = arrow.append_column(LINEUP, pa.array(numbers, pa.int32()))
        return arrow.to_pandas()

    games = table("games")
    games = games[~games["failed"]].drop(columns="failed")
    seats = table("seats").merge(games[["cell", "game_index"]], on=["cell", "game_index"])
    dests = (
        table("destinations", numbered=False)
        if "destinations" in tables
        else pd.DataFrame(columns=list(COLUMNS["destinations"]))
    )
    return games, seats, dests


def write_evaluation(path: Path, evaluation: Evaluation, facts: dict[str, Any]) -> None:
    """A step's deals and each arm's per-deal sums, one row per deal, atomically: the table a
    resumed tune reads instead of playing the step again."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(evaluation.deals, preserve_index=False)
    for arm, matrix in evaluation.stats.items():
        width = matrix.shape[1]
        flat = pa.array(np.ascontiguousarray(matrix, dtype=np.float64).reshape(-1))
        table = table.append_column(f"stats:{arm}", pa.FixedSizeListArray.from_arrays(flat, width))
    metadata = {
        **(table.schema.metadata or {}),
        META_KEY: json.dumps(facts, sort_keys=True, default=str).encode(),
    }
    sink = pa.BufferOutputStream()
    pq.write_table(table.replace_schema_metadata(metadata), sink)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, sink.getvalue().to_pybytes())
    except OSError as exc:
        raise TuneError(f"{path}: cannot write: {exc.strerror or exc}") from None


def read_evaluation(path: Path, facts: dict[str, Any]) -> Evaluation | None:
    """The step's table if a tune wrote it for these arms and deals (else None: it is played
    again); one TuneError for a file that cannot be read."""
    import pyarrow.parquet as pq

    if not path.is_file():
        return None
    try:
        table = pq.read_table(path)
        stored = json.loads((table.schema.metadata or {})[META_KEY])
    except (OSError, ValueError, KeyError) as exc:
        raise TuneError(f"{path}: cannot read ({exc})") from None
    if any(stored.get(k) != v for k, v in facts.items()):
        return None
    arms = [n for n in table.column_names if n.startswith("stats:")]
    deals = table.drop_columns(arms).to_pandas()
    stats = {}
    for name in arms:
        column = table[name].combine_chunks()
        width = column.type.list_size
        stats[name.removeprefix("stats:")] = (
            np.asarray(column.flatten()).reshape(-1, width) if width else np.zeros((len(deals), 0))
        )
    return Evaluation(stored["label"], path, 0, int(stored["games"]), deals, stats)


def step_table(path: Path) -> dict[str, Any]:
    """What a step's table says of itself: its arms, games and the plan its line-ups played."""
    import pyarrow.parquet as pq

    return json.loads(pq.read_schema(path).metadata[META_KEY])


def per_deal(
    games: pd.DataFrame,
    seats: pd.DataFrame,
    dests: pd.DataFrame,
    mix: Mix,
    reference: str,
    by: tuple[str, ...] = (),
) -> pd.DataFrame:
    """Sums per (variant, players, deal) of every statistic the mix needs; a deal is its
    seed (in a paired study every cell of a player count replays the same seeds). ``by``:
    columns that tell several studies' rows apart (after the variant in the index)."""
    keys = ["variant", *by, "players", "seed"]
    parts = []
    ctx = mix.context
    if mix.get("seat") is not None:
        wins = seats.pivot_table(index=keys, columns="seat", values="win_share", aggfunc="sum")
        counts = games.groupby(keys).size()
        frame = pd.DataFrame(index=counts.index)
        for p in ctx.players:
            at = counts.index.get_level_values("players") == p
            for s in range(p):
                column = wins[s] if s in wins.columns else pd.Series(0.0, index=wins.index)
                frame[f"seat:{p}:{s}"] = np.where(at, column.reindex(counts.index).fillna(0.0), 0.0)
            frame[f"games:{p}"] = np.where(at, counts, 0)
        parts.append(frame)
    if mix.get("strategies") is not None:
        parts.append(_strategy_sums(seats, ctx, keys))
    if mix.get("destinations") is not None:
        parts.append(_destination_sums(seats, dests, ctx, reference, keys))
    out = pd.concat(parts, axis=1).fillna(0.0)
    out.index = out.index.set_names(keys)
    return out.reindex(columns=mix.columns, fill_value=0.0).astype(float)


def _strategy_sums(seats: pd.DataFrame, ctx: Context, keys: list[str]) -> pd.DataFrame:
    """Per deal and strategy: its win share, what the field would win, games it met others."""
    s = seats.assign(is_random=seats["strategy"].isin(ctx.random_labels))
    game = ["cell", "game_index"]
    s["random_seats"] = s.groupby(game)["is_random"].transform("sum")
    s["random_share"] = (
        (s["win_share"] * s["is_random"]).groupby([s["cell"], s["game_index"]]).transform("sum")
    )
    per = (
        s.groupby([*game, *keys, "strategy"], sort=False)
        .agg(
            value=("win_share", "sum"),
            seats=("seat", "size"),
            random_seats=("random_seats", "first"),
            random_share=("random_share", "first"),
        )
        .reset_index()
    )
    per = per[(per["seats"] < per["players"]) & ~per["strategy"].isin(ctx.random_labels)]
    others = per["players"] - per["random_seats"]
    per["field"] = np.where(
        others > 0, per["seats"] * (1 - per["random_share"]) / others.clip(lower=1), 0.0
    )
    per["games"] = 1.0
    sums = per.groupby([*keys, "strategy"])[["value", "field", "games"]].sum()
    wide = sums.unstack("strategy").fillna(0.0)
    frame = pd.DataFrame(index=wide.index)
    for p in ctx.players:
        at = wide.index.get_level_values("players") == p
        for label in ctx.labels:
            if label in ctx.random_labels:
                continue
            for part in ("value", "field", "games"):
                column = wide[(part, label)] if (part, label) in wide.columns else 0.0
                frame[f"strat:{p}:{label}:{part}"] = np.where(at, column, 0.0)
    return frame


def margins(seats: pd.DataFrame) -> pd.Series:
    """Each seat's score minus the best score among the other seats of its game."""
    game = [seats["cell"], seats["game_index"]]
    best = seats.groupby(game)["score"].transform("max")
    count_best = (seats["score"] == best).groupby(game).transform("sum")
    second = seats["score"].where(seats["score"] < best).groupby(game).transform("max")
    other_best = np.where((seats["score"] == best) & (count_best == 1), second, best)
    return seats["score"] - pd.Series(other_best, index=seats.index).fillna(seats["score"])


def _destination_sums(
    seats: pd.DataFrame, dests: pd.DataFrame, ctx: Context, reference: str, keys: list[str]
) -> pd.DataFrame:
    """Per deal and ticket: offered, kept, and the kept ones' holders' margin and win share,
    each minus the reference design's mean for the same line-up and seat."""
    s = seats.assign(margin=margins(seats))
    s["slot"] = s["cell"].str.split("/", n=1).str[1] + "#" + s["seat"].astype(str)
    ref = s[s["variant"] == reference] if (s["variant"] == reference).any() else s
    means = ref.groupby("slot")[["margin", "win_share"]].mean()
    s["margin"] -= s["slot"].map(means["margin"]).fillna(0.0)
    s["win"] = s["win_share"] - s["slot"].map(means["win_share"]).fillna(0.0)
    d = dests.merge(
        s[["cell", "game_index", "seat", *keys, "margin", "win"]], on=["cell", "game_index", "seat"]
    )
    kept = d["kept"].astype(float)
    d = d.assign(offered=1.0, kept=kept, margin=d["margin"] * kept, win=d["win"] * kept)
    sums = d.groupby([*keys, "destination_id"])[["offered", "kept", "margin", "win"]].sum()
    wide = sums.unstack("destination_id").fillna(0.0)
    columns = {}
    for c in ctx.card_ids:
        for part in DestinationsObjective.PARTS:
            columns[f"dest:{c}:{part}"] = wide[(part, c)] if (part, c) in wide.columns else 0.0
    return pd.DataFrame(columns, index=wide.index)
