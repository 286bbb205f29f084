"""What a sweep does: each metric against the swept value, as a paired difference from the
printed value on the same deals.

A study with sweeps is paired by deals: every value replays the base game's deals (the same
seed per player count and deal). The unit is the deal: a metric is averaged over the games of
one deal in one variant (its line-ups and seat orders), and its difference from the printed
value is taken deal by deal, so the interval (Student's t over deals) is as narrow as common
random numbers make it. A sweep asks one question per metric about all its values and player
counts at once, so each metric's intervals are simultaneous over them (Bonferroni: level
1 - 0.05/k for k comparisons; ``family`` in the frames). Each value's verdict against the
metric's practical margin: *practically equal* (the whole interval inside the margin: no change
a designer would notice), *different* (otherwise, and the interval excludes no change) or *not
yet known*.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy import stats as st

from .margins import interval_verdict, margins_of

if TYPE_CHECKING:
    from sims.plan import Sweep
    from sims.results import Results

# metric -> (label a designer reads, unit, practical margin)
METRICS: dict[str, tuple[str, str, float]] = {
    "first_seat_edge": ("first seat's win share above its fair share", "points", 0.02),
    "mean_score": ("mean score", "points", 1.0),
    "margin": ("winning margin", "points", 1.0),
    "turns": ("game length", "turns, all seats", 1.0),
    "win_share": ("win share", "points", 0.02),
    "keep_rate": ("keep rate when offered", "points", 0.02),
    "completion": ("completed when kept", "points", 0.02),
    "points_per_game": ("points it earns per game (net)", "points", 0.25),
}
PERCENT = {"first_seat_edge", "win_share", "keep_rate", "completion"}
CARD_METRICS = {"keep_rate", "completion", "points_per_game"}  # of the swept ticket
# metric -> the study's practical margin that overrides the default above (reports/margins.py)
MARGIN_OF = {
    "first_seat_edge": "win_share",
    "mean_score": "score",
    "margin": "score",
    "turns": "turns",
    "win_share": "win_share",
    "keep_rate": "win_share",
    "completion": "win_share",
    "points_per_game": "points_per_game",
}
PLAYER_COLOURS = {2: "#1f77b4", 3: "#ff7f0e", 4: "#2ca02c"}  # one colour per player count
DASHES = ("solid", "dash", "dot", "dashdot", "longdash")  # strategies, in win share


def _family(frame: pd.DataFrame, sweep: Sweep, base: str, metric: str) -> int:
    """How many comparisons the sweep's question about ``metric`` makes (values other than
    the printed, times player counts): its intervals are simultaneous over them."""
    values = [v for _, v in sweep.points if v != base]
    return max(1, sum(len(_paired(frame, v, base, metric, _extra(metric), 0.95)) for v in values))


def _per_game(games: pd.DataFrame, seats: pd.DataFrame) -> pd.DataFrame:
    """One row per finished game: the game-level metrics."""
    ok = games.loc[~games["failed"], ["variant", "players", "cell", "seed", "game_index", "turns"]]
    keys = ["variant", "players", "cell", "seed", "game_index"]
    s = seats.merge(ok[keys], on=keys)
    first = s[s["seat"] == 0][[*keys, "win_share"]].rename(columns={"win_share": "first"})
    score = s.groupby(keys)["score"].agg(mean_score="mean", margin=lambda x: _margin(x.to_numpy()))
    out = ok.merge(first, on=keys).merge(score.reset_index(), on=keys)
    out["first_seat_edge"] = out["first"] - 1.0 / out["players"]
    return out.drop(columns="first")


def _margin(scores: np.ndarray) -> float:
    ordered = np.sort(scores)
    return float(ordered[-1] - ordered[-2]) if len(ordered) > 1 else 0.0


def _deal_means(frame: pd.DataFrame, column: str, extra: list[str]) -> pd.DataFrame:
    """The metric averaged over the games of each deal (players, seed) in each variant."""
    return frame.groupby(["variant", "players", "seed", *extra])[column].mean().reset_index()


def _paired(
    per_deal: pd.DataFrame, variant: str, base: str, column: str, extra: list[str], level: float
) -> list[dict[str, Any]]:
    """Per player count (and ``extra`` level): the value's level and its paired difference
    from base over the deals both played, with a two-sided interval at ``level``."""
    keys = ["players", "seed", *extra]
    mine = per_deal[per_deal["variant"] == variant].set_index(keys)[column]
    theirs = per_deal[per_deal["variant"] == base].set_index(keys)[column]
    joined = pd.concat([mine.rename("value"), theirs.rename("base")], axis=1, join="inner")
    rows = []
    for group, part in joined.groupby(level=["players", *extra]):
        group = group if isinstance(group, tuple) else (group,)
        diff = (part["value"] - part["base"]).to_numpy(dtype=float)
        n = len(diff)
        mean = float(diff.mean()) if n else float("nan")
        if n > 1 and diff.std(ddof=1) > 0:
            half = float(st.t.ppf(0.5 + level / 2, n - 1) * diff.std(ddof=1) / np.sqrt(n))
        else:
            half = 0.0 if n > 1 else float("nan")
        rows.append(
            {
                **dict(zip(["players", *extra], group, strict=True)),
                "level": float(part["value"].mean()),
                "printed_level": float(part["base"].mean()),
                "difference": mean,
                "ci_low": mean - half,
                "ci_high": mean + half,
                "deals": n,
            }
        )
    return rows


def verdict(low: float, high: float, margin: float) -> str:
    """The interval against the practical margin (reports/margins.py, ``interval_verdict``):
    a change inside the margin is negligible even when real; otherwise one that excludes no
    change is different."""
    return interval_verdict(low, high, margin)


def sweep_tables(results: Results) -> dict[str, pd.DataFrame]:
    """The sweeps of a results folder as one tidy frame per metric (``sweep_frames``), with
    the study's own margins: ``sweep_tables(load_results(folder))["turns"]``. Empty when the
    study has no sweeps."""
    sweeps = list(results.plan.sweeps.values())
    if not sweeps:
        return {}
    cards = {sweep.card for sweep in sweeps if sweep.card is not None}
    return sweep_frames(
        results.games,
        results.seats,
        results.destination_rows(cards),
        sweeps,
        margins=margins_of(results.study),
    )


def sweep_frames(
    games: pd.DataFrame,
    seats: pd.DataFrame,
    destinations: pd.DataFrame,
    sweeps: list[Sweep],
    base: str = "base",
    margins: dict[str, float] | None = None,
) -> dict[str, pd.DataFrame]:
    """One tidy frame per metric: a row per sweep, value, player count (and strategy for
    win share), with the level, the paired difference from the printed value, its 95%
    interval, the deals it rests on and the verdict against the metric's margin (the
    study's ``margins`` where given, else ``METRICS``)."""
    per_game = _per_game(games, seats)
    s = seats.merge(per_game[["variant", "players", "cell", "seed", "game_index"]])
    per_deal = {
        name: _deal_means(per_game, name, [])
        for name in ("first_seat_edge", "mean_score", "margin", "turns")
    }
    per_deal["win_share"] = _deal_means(s, "win_share", ["strategy"])
    out: dict[str, list[dict[str, Any]]] = {m: [] for m in METRICS}
    for sweep in sweeps:
        card = _card_frames(destinations, per_game, sweep.card) if sweep.card else {}
        frames = {**per_deal, **card}
        family = {metric: _family(frame, sweep, base, metric) for metric, frame in frames.items()}
        for values, variant in sweep.points:
            labels = {
                "sweep": sweep.name,
                "parameter": " x ".join(sweep.parameters),
                "value": values[0] if len(values) == 1 else values,
                "variant": variant,
                "printed": variant == base,
            }
            if len(values) == 2:
                labels["value"], labels["value_2"] = values
            for metric, frame in {**per_deal, **card}.items():
                level = 1 - 0.05 / family[metric]
                for row in _paired(frame, variant, base, metric, _extra(metric), level):
                    low, high = row["ci_low"], row["ci_high"]
                    margin = _practical_margin(metric, margins)
                    out[metric].append(
                        {
                            **labels,
                            **row,
                            "family": family[metric],
                            "margin": margin,
                            "verdict": verdict(low, high, margin),
                        }
                    )
    return {m: pd.DataFrame(rows) for m, rows in out.items() if rows}


def _practical_margin(metric: str, margins: dict[str, float] | None) -> float:
    """The metric's practical margin: the study's (margins.py) where it sets one."""
    if margins and MARGIN_OF.get(metric) in margins:
        return float(margins[MARGIN_OF[metric]])
    return METRICS[metric][2]


def _extra(metric: str) -> list[str]:
    return ["strategy"] if metric == "win_share" else []


def _card_frames(
    destinations: pd.DataFrame, per_game: pd.DataFrame, card: int
) -> dict[str, pd.DataFrame]:
    """Per deal: the swept ticket's keep rate, completion rate and net points per game."""
    keys = ["variant", "players", "cell", "seed", "game_index"]
    d = destinations.merge(per_game[keys], on=keys)
    mine = d[d["destination_id"] == card]
    kept = mine[mine["kept"]]
    per_game_points = (
        (mine.groupby(keys)["net_points"].sum().reindex(per_game.set_index(keys).index))
        .fillna(0.0)
        .reset_index()
    )
    return {
        "keep_rate": _deal_means(mine.assign(keep=mine["kept"].astype(float)), "keep", []).rename(
            columns={"keep": "keep_rate"}
        ),
        "completion": _deal_means(
            kept.assign(done=kept["reached"].astype(float)), "done", []
        ).rename(columns={"done": "completion"}),
        "points_per_game": _deal_means(per_game_points, "net_points", []).rename(
            columns={"net_points": "points_per_game"}
        ),
    }


def sentence(sweep: Sweep, frames: dict[str, pd.DataFrame], catalogue: Any | None = None) -> str:
    """What the sweep does, in one sentence as strong as its intervals; a swept ticket is
    named by ``catalogue``, the study's own cards (``results.plan.catalogue()``)."""
    moved = []
    for metric, frame in frames.items():
        part = frame[(frame["sweep"] == sweep.name) & (frame["verdict"] == "different")]
        if metric == "win_share" or part.empty:
            continue
        biggest = part.loc[part["difference"].abs().idxmax()]
        scale = 100 if metric in PERCENT else 1
        unit = " points" if metric in PERCENT else ""
        label = METRICS[metric][0]
        if metric in CARD_METRICS and sweep.card is not None:
            from .destinations import card_label

            label = f"{card_label(sweep.card, catalogue)}'s {label}"
        moved.append(
            f"{label} by up to {biggest['difference'] * scale:+.1f}{unit} "
            f"(at {_value(biggest)}, {int(biggest['players'])} players: "
            f"{biggest['ci_low'] * scale:+.1f} to {biggest['ci_high'] * scale:+.1f})"
        )
    what = " x ".join(sweep.parameters)
    printed = ", ".join(str(v) for v in sweep.printed)
    if not moved:
        return (
            f"Sweeping {what} (printed: {printed}) moves no metric beyond its practical margin "
            "with confidence: no evidence of an effect at these sample sizes."
        )
    return (
        f"Sweeping {what} (printed: {printed}) changes "
        + "; ".join(moved)
        + " (differences from the printed value on the same deals, simultaneous 95% intervals)."
    )


def _value(row: pd.Series) -> str:
    if "value_2" in row and pd.notna(row.get("value_2")):
        return f"{row['parameter']} = {row['value']}, {row['value_2']}"
    return f"{row['parameter']} = {row['value']}"


def sweep_figure(frames: dict[str, pd.DataFrame], sweep: Sweep) -> Any:
    """Each metric against the swept value (a numeric axis), as the difference from the
    printed value with its simultaneous interval: one panel per metric, a line per player
    count (and strategy, for win share; and second value, on a grid)."""
    from plotly.subplots import make_subplots

    from .figures import themed

    shown = [m for m in METRICS if m in frames and (frames[m]["sweep"] == sweep.name).any()]
    fig = make_subplots(
        rows=len(shown),
        cols=1,
        subplot_titles=[_panel_title(m) for m in shown],
        vertical_spacing=0.28 / max(len(shown), 1),
    )
    legend: set[str] = set()
    for row, metric in enumerate(shown, start=1):
        part = frames[metric][frames[metric]["sweep"] == sweep.name]
        scale = 100.0 if metric in PERCENT else 1.0
        lines = ["players"] + (["strategy"] if metric == "win_share" else [])
        if "value_2" in part:
            lines.append("value_2")
        strategies = sorted(part["strategy"].unique()) if "strategy" in part else []
        for key, line in part.groupby(lines):
            key = key if isinstance(key, tuple) else (key,)
            named = dict(zip(lines, key, strict=True))
            name = ", ".join(_line_name(k, v) for k, v in named.items())
            line = line.sort_values("value")
            dash = DASHES[strategies.index(named["strategy"]) % len(DASHES)] if strategies else None
            fig.add_scatter(
                row=row,
                col=1,
                x=line["value"],
                y=line["difference"] * scale,
                mode="lines+markers",
                name=name,
                legendgroup=name,
                showlegend=name not in legend,
                line={"color": PLAYER_COLOURS.get(int(named["players"]), "#555"), "dash": dash},
                error_y={
                    "type": "data",
                    "symmetric": False,
                    "array": (line["ci_high"] - line["difference"]) * scale,
                    "arrayminus": (line["difference"] - line["ci_low"]) * scale,
                },
                customdata=line[["level", "deals", "verdict"]].assign(level=line["level"] * scale),
                hovertemplate="%{x}: %{y:+.2f} vs printed (level %{customdata[0]:.2f}, "
                "%{customdata[1]} deals, %{customdata[2]})<extra>" + name + "</extra>",
            )
            legend.add(name)
        fig.add_hline(y=0, line_color="black", row=row, col=1)
        fig.add_vline(x=sweep.printed[0], line_dash="dot", line_color="grey", row=row, col=1)
    values = sorted({v[0] for v, _ in sweep.points})
    fig.update_xaxes(tickvals=values)  # the swept values, nothing between
    fig.update_xaxes(title_text=" x ".join(sweep.parameters), row=len(shown), col=1)
    fig.update_layout(
        title=f"Sweep {sweep.name}: difference from the printed value ({sweep.printed[0]}, "
        "dotted line), same deals, simultaneous 95% intervals",
        height=260 * len(shown) + 120,
        margin={"t": 90},
    )
    return themed(fig)


def _panel_title(metric: str) -> str:
    label, unit, _ = METRICS[metric]
    return f"{label} ({'percentage points' if metric in PERCENT else unit})"


def _line_name(key: str, value: Any) -> str:
    if key == "players":
        return f"{value} players"
    if key == "value_2":
        return f"second value {value}"
    return str(value)
