"""Evaluations on common deals: the studies a step plays for its arms, and the per-deal sums
the statistics are made of."""

from __future__ import annotations

import copy
import math
import shutil
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..errors import TuneError, TuneInterrupted
from ..study import BASE, Study, from_dict
from .adapted import with_players
from .objectives import Context, DestinationsObjective, Mix
from .settings import (
    BATCH_CAP,
)
from .space import Design

if TYPE_CHECKING:
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

    A step is one study per line-up (``evaluations/STEP/LINEUP``), each with a root seed of its
    own: the arms of a line-up replay the same deals (common random numbers), and different
    line-ups play different deals. One study for all line-ups would deal game i alike at every
    line-up of a player count, and a deal's own bias (how much it favours the first seat, how
    well a ticket fits it) would then count once per line-up: on the strategy ladder at 2
    players that multiplies the variance of the first seat's share by about 3.5.
    """

    def __init__(self, tuner: Tuner) -> None:
        self.t = tuner
        cells = [c for c in tuner.study.plan.cells if c.variant == BASE] or tuner.study.plan.cells
        self.lineups = sorted({c.lineup for c in cells}, key=lambda x: (len(x), x))

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
        """Play ``deals`` games per line-up and arm (one study per line-up) and read them."""
        parts = []
        games = 0
        for lineup in self.lineups:
            name = f"{len(lineup)}p-{'+'.join(lineup)}"
            folder = self.t.out / "evaluations" / label / name
            seed = step_seed(self.t.seed, f"{label}/{name}")
            study = self.study(designs, deals, seed, folder, [lineup])
            players = self.t.adapted_players
            if players is not None:
                study = with_players(
                    study, players.for_designs(designs), players.budget, players.strategies
                )
            self._run(study, folder, label)
            parts.append(self.read(study, folder, designs))
            games += study.plan.total_games
        deals_frame = pd.concat([p[0] for p in parts], ignore_index=True)
        stats = {a: np.concatenate([p[1][a] for p in parts]) for a in designs}
        return Evaluation(label, self.t.out / "evaluations" / label, 0, games, deals_frame, stats)

    def _run(self, study: Study, folder: Path, label: str) -> None:
        from ..runner import run

        resume = (folder / "manifest.json").is_file()
        if folder.exists() and not resume:
            shutil.rmtree(folder)  # a study stopped before its first batch landed
        summary = run(
            study,
            workers=self.t.workers,
            out=folder,
            resume=resume,
            progress=False,
            stop=self.t.stop,
        )
        if summary.interrupted or self.t.stop:
            raise TuneInterrupted("interrupted")
        if summary.failures:
            raise TuneError(
                f"{folder}: {len(summary.failures)} game(s) failed, e.g. {summary.failures[0]}"
            )
        self.t.spent_bar(study.plan.total_games, label)

    def read(
        self, study: Study, folder: Path, designs: dict[str, Design]
    ) -> tuple[pd.DataFrame, dict[str, np.ndarray]]:
        """The deals of one study and each arm's per-deal statistics on them."""
        games, seats, dests = read_tables(folder, "destinations" in self.t.weights)
        frame = per_deal(games, seats, dests, self.t.mix, reference=BASE)
        deals = (
            games.groupby(["players", "seed"])["game_index"]
            .min()
            .rename("first_game")
            .reset_index()
            .sort_values(["players", "first_game", "seed"])
            .reset_index(drop=True)
        )
        index = pd.MultiIndex.from_frame(deals[["players", "seed"]])
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
            played = np.isin(deals["players"].to_numpy(), study.plan.variants[name].players)
            stats[name] = np.where(played[:, None], matrix(name), base)
        return deals, stats


def read_tables(folder: Path, destinations: bool) -> tuple[pd.DataFrame, ...]:
    """The columns the objectives read, finished games only."""
    import pyarrow.dataset as ds

    def table(name: str, columns: list[str]) -> pd.DataFrame:
        return ds.dataset(folder / name, format="parquet").to_table(columns=columns).to_pandas()

    keys = ["variant", "players", "cell", "game_index", "seed"]
    games = table("games", [*keys, "failed"])
    games = games[~games["failed"]].drop(columns="failed")
    seats = table("seats", [*keys, "seat", "strategy", "score", "win_share"])
    seats = seats.merge(games[["cell", "game_index"]], on=["cell", "game_index"])
    dests = (
        table("destinations", ["cell", "game_index", "seat", "destination_id", "kept"])
        if destinations
        else pd.DataFrame(columns=["cell", "game_index", "seat", "destination_id", "kept"])
    )
    return games, seats, dests


def per_deal(
    games: pd.DataFrame, seats: pd.DataFrame, dests: pd.DataFrame, mix: Mix, reference: str
) -> pd.DataFrame:
    """Sums per (variant, players, deal) of every statistic the mix needs; a deal is its
    seed (in a paired study every cell of a player count replays the same seeds)."""
    keys = ["variant", "players", "seed"]
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
        parts.append(_strategy_sums(seats, ctx))
    if mix.get("destinations") is not None:
        parts.append(_destination_sums(seats, dests, ctx, reference))
    out = pd.concat(parts, axis=1).fillna(0.0)
    out.index = out.index.set_names(["variant", "players", "seed"])
    return out.reindex(columns=mix.columns, fill_value=0.0).astype(float)


def _strategy_sums(seats: pd.DataFrame, ctx: Context) -> pd.DataFrame:
    """Per deal and strategy: its win share, what the field would win, games it met others."""
    keys = ["variant", "players", "seed"]
    s = seats.assign(is_random=seats["strategy"].isin(ctx.random_labels))
    game = ["cell", "game_index"]
    s["random_seats"] = s.groupby(game)["is_random"].transform("sum")
    s["random_share"] = (
        (s["win_share"] * s["is_random"]).groupby([s["cell"], s["game_index"]]).transform("sum")
    )
    per = (
        s.groupby([*game, "variant", "players", "seed", "strategy"], sort=False)
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
    seats: pd.DataFrame, dests: pd.DataFrame, ctx: Context, reference: str
) -> pd.DataFrame:
    """Per deal and ticket: offered, kept, and the kept ones' holders' margin and win share,
    each minus the reference design's mean for the same line-up and seat."""
    s = seats.assign(margin=margins(seats))
    s["slot"] = s["cell"].str.split("/", n=1).str[1] + "#" + s["seat"].astype(str)
    ref = s[s["variant"] == reference] if (s["variant"] == reference).any() else s
    means = ref.groupby("slot")[["margin", "win_share"]].mean()
    s["margin"] -= s["slot"].map(means["margin"]).fillna(0.0)
    s["win"] = s["win_share"] - s["slot"].map(means["win_share"]).fillna(0.0)
    keys = ["variant", "players", "seed"]
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
