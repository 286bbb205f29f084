"""One function per figure: a stats frame in, a Plotly figure out, no I/O.

Every interval drawn is the frame's ``ci_low``/``ci_high``; the figures add nothing the
frames do not hold, so tests check figures by their data.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .numbers import p_text
from .wins import BASELINES

TEMPLATE = "plotly_white"


def _errors(
    frame: pd.DataFrame, value: str = "rate", low: str = "ci_low", high: str = "ci_high"
) -> dict:
    """Asymmetric error bars from an interval's columns."""
    return {
        "type": "data",
        "symmetric": False,
        "array": (frame[high] - frame[value]).tolist(),
        "arrayminus": (frame[value] - frame[low]).tolist(),
    }


def themed(fig: go.Figure) -> go.Figure:
    """The report's template on a figure. Assigning a template through ``update_layout``
    validates and deep-copies all of it (about 0.1 s a figure); this sets the already valid
    template object the way Plotly sets its default one, without validating it again."""
    import plotly.io as pio

    template = pio.templates[TEMPLATE]
    layout = fig.layout
    if hasattr(layout, "_validate"):
        previous, layout._validate = layout._validate, False
        try:
            layout.template = template
        finally:
            layout._validate = previous
    else:  # a Plotly without that switch: the slow, validated way
        fig.update_layout(template=TEMPLATE)
    return fig


def _layout(fig: go.Figure, title: str, **kwargs) -> go.Figure:
    themed(fig)
    fig.update_layout(title=title, margin={"t": 60, "l": 60, "r": 20}, **kwargs)
    return fig


def percent_format(values, signed: bool = False) -> str:
    """A tick format whose labels never repeat: one decimal when the axis spans under 10
    points (Plotly may then step by half a point), none otherwise."""
    finite = [float(v) for v in values if v is not None and np.isfinite(v)]
    span = (max(finite) - min(finite)) if finite else 1.0
    return ("+" if signed else "") + (".1%" if span < 0.1 else ".0%")


def _bars_by_players(
    table: pd.DataFrame,
    x: str,
    value: str,
    low: str = "ci_low",
    high: str = "ci_high",
    fmt: str = ".3g",
) -> go.Figure:
    """One bar trace per player count, with the interval as error bars and the number of
    games in the hover."""
    fig = go.Figure()
    count = next((c for c in ("n_games", "n") if c in table), None)
    for players, group in table.groupby("players"):
        fig.add_bar(
            name=f"{players} players",
            x=group[x],
            y=group[value],
            error_y=_errors(group, value, low, high),
            customdata=group[[count]] if count else None,
            hovertemplate=f"%{{x}}: %{{y:{fmt}}} (%{{customdata[0]}} games)<extra></extra>"
            if count
            else None,
        )
    return fig


def win_rates(table: pd.DataFrame) -> go.Figure:
    """Win rate per strategy, one bar group per player count, fair share as a line."""
    fig = _bars_by_players(table, "strategy", "rate", fmt=".1%")
    for players in sorted(table["players"].unique()):
        fig.add_hline(
            y=1 / players,
            line_dash="dot",
            line_color="grey",
            annotation_text=f"fair share, {players} players",
        )
    values = [*table["ci_low"], *table["ci_high"], *(1 / table["players"])]
    fig.update_yaxes(tickformat=percent_format(values), title="win rate (shared wins split)")
    return _layout(fig, "Win rate by strategy", barmode="group")


def strength_order(ratings: pd.DataFrame | None, players: int, names: list[str]) -> list[str]:
    """Strategies at one player count, strongest first: by Plackett-Luce strength, a strategy
    that finished ahead of every other first and one behind every other last."""
    if ratings is None or ratings.empty:
        return sorted(names)
    here = ratings[ratings["players"] == players].set_index("strategy")

    def key(name: str) -> tuple[int, float, str]:
        if name not in here.index:
            return (1, 0.0, name)
        row = here.loc[name]
        note = str(row.get("note", ""))
        if note.startswith("finished ahead"):
            return (0, -np.inf, name)
        if note.startswith("finished behind"):
            return (2, 0.0, name)
        strength = row.get("strength")
        return (1, -float(strength) if pd.notna(strength) else 0.0, name)

    return sorted(names, key=key)


def head_to_head(
    table: pd.DataFrame, players: int | None = None, ratings: pd.DataFrame | None = None
) -> go.Figure:
    """Heatmap at one player count (the smallest if none given): how often the row strategy
    finishes ahead of the column strategy in the games where both sat, the share printed in
    each cell (* where the pair's test separates it, Holm), strongest first; the colour scale
    is set by the non-random pairs (a random baseline's cells are clipped to it)."""
    players = int(table["players"].min()) if players is None else players
    here = table[table["players"] == players]
    names = sorted(set(here["strategy"]) | set(here["opponent"]))
    order = strength_order(ratings, players, names)
    matrix = here.pivot(index="strategy", columns="opponent", values="rate")
    matrix = matrix.reindex(index=order, columns=order)
    n = here.pivot(index="strategy", columns="opponent", values="n_games").reindex_like(matrix)
    star = here.pivot(index="strategy", columns="opponent", values="significant")
    star = star.reindex_like(matrix)
    separated = star.fillna(False).astype(bool).to_numpy()
    text = [
        [
            "" if pd.isna(v) else f"{100 * v:.0f}%" + ("*" if separated[i, j] else "")
            for j, v in enumerate(row)
        ]
        for i, row in enumerate(matrix.to_numpy())
    ]
    fair = here[~here["strategy"].isin(BASELINES) & ~here["opponent"].isin(BASELINES)]
    spread = float((fair["rate"] - 0.5).abs().max()) if len(fair) else 0.5
    spread = min(max(spread, 0.05), 0.5)
    fig = go.Figure(
        go.Heatmap(
            z=matrix.to_numpy(),
            x=order,
            y=order,
            zmin=0.5 - spread,
            zmax=0.5 + spread,
            colorscale="RdBu",
            text=text,
            texttemplate="%{text}",
            customdata=n.to_numpy(),
            hovertemplate="%{y} ahead of %{x}: %{z:.1%} (%{customdata} games)<extra></extra>",
            colorbar={"tickformat": ".0%"},
        )
    )
    fig.update_xaxes(title="opponent", categoryorder="array", categoryarray=order)
    fig.update_yaxes(
        title="strategy", autorange="reversed", categoryorder="array", categoryarray=order
    )
    fig.update_layout(meta={"own_order": True})
    return _layout(
        fig,
        f"Head to head at {players} players: share of games finished ahead (strongest first)",
        height=max(320, 120 + 48 * len(order)),
    )


def _off_scale(table: pd.DataFrame) -> pd.DataFrame:
    """Baseline strengths far below the others: they would squash the axis, so they are
    drawn at its edge with their value written."""
    rated = table.dropna(subset=["strength"])
    base = rated[rated["strategy"].isin(BASELINES)]
    rest = rated[~rated["strategy"].isin(BASELINES)]
    if base.empty or rest.empty:
        return base.iloc[0:0]
    low, high = float(rest["ci_low"].min()), float(rest["ci_high"].max())
    return base[base["ci_high"] < low - (high - low)]


def ratings_apart(table: pd.DataFrame) -> str:
    """A sentence naming the strengths drawn apart (``ratings``), or ''."""
    apart = _off_scale(table)
    if apart.empty:
        return ""
    parts = ", ".join(
        f"{r['strategy']} {r['strength']:+.2f} at {r['players']} players"
        for _, r in apart.iterrows()
    )
    return f"the baseline, far below the others, is drawn at the left edge with its value ({parts})"


def ratings(table: pd.DataFrame) -> go.Figure:
    """Plackett-Luce strengths per player count with Wald intervals; strategies without a
    finite strength (see the table's note) are not drawn; a baseline far below the others is
    drawn at the axis's left edge with its value, so it does not squash the rest."""
    fig = go.Figure()
    apart = _off_scale(table)
    rated = table.dropna(subset=["strength"])
    kept = rated.drop(index=apart.index)
    order = sorted(set(apart["strategy"]) - set(kept["strategy"])) + (
        kept.groupby("strategy")["strength"].mean().sort_values().index.tolist()
    )  # weakest at the bottom
    for players, group in kept.groupby("players", sort=True):
        ordered = group.sort_values("strength")
        fig.add_scatter(
            name=f"{players} players",
            x=ordered["strength"],
            y=ordered["strategy"],
            mode="markers",
            marker={"size": 10},
            error_x=_errors(ordered, "strength"),
            customdata=ordered[["n_tables"]],
            hovertemplate="%{y}: %{x:.2f} (%{customdata[0]} tables)<extra></extra>",
        )
    if not apart.empty:
        low = float(kept["ci_low"].min())
        high = float(kept["ci_high"].max())
        edge = low - 0.1 * (high - low)
        by = apart.groupby("strategy", sort=True)
        fig.add_scatter(
            name="off scale (value written)",
            x=[edge] * by.ngroups,
            y=list(by.groups),
            mode="markers+text",
            marker={"symbol": "triangle-left", "size": 12, "color": BASELINE_COLOUR},
            text=[
                ", ".join(f"{r['strength']:+.2f} ({r['players']}p)" for _, r in rows.iterrows())
                for _, rows in by
            ],
            textposition="middle right",
            hovertemplate="%{y}: %{text}, off the scale<extra></extra>",
        )
        fig.update_xaxes(range=[edge - 0.05 * (high - low), high + 0.05 * (high - low)])
    fig.update_yaxes(categoryorder="array", categoryarray=order)
    fig.update_layout(meta={"own_order": True})
    fig.update_xaxes(title="strength (log odds; 0 = mean of the non-random strategies)")
    return _layout(fig, "Strategy rating per player count (Plackett-Luce)")


def seat_advantage(table: pd.DataFrame) -> go.Figure:
    """Win rate by seat per player count, with each count's fair share."""
    fig = go.Figure()
    for players, group in table.groupby("players"):
        fig.add_scatter(
            name=f"{players} players",
            x=group["seat"],
            y=group["rate"],
            mode="lines+markers",
            error_y=_errors(group),
            customdata=group[["n_games"]],
            hovertemplate="seat %{x}: %{y:.1%} (%{customdata[0]} games)<extra></extra>",
        )
        fig.add_hline(y=1 / players, line_dash="dot", line_color="grey")
    fig.update_xaxes(title="seat (seat 0 plays first)", dtick=1)
    fig.update_yaxes(
        tickformat=percent_format([*table["ci_low"], *table["ci_high"]]), title="win rate"
    )
    return _layout(fig, "Seat advantage")


def score_parts(table: pd.DataFrame, players: int) -> go.Figure:
    """Mean score parts per strategy at one player count (penalties drawn below zero)."""
    here = table[table["players"] == players]
    fig = go.Figure()
    for part, sign in (("destination_points", 1), ("bonus_points", 1), ("penalties", -1)):
        rows = here[here["part"] == part]
        if sign < 0:  # drawn below zero: the interval flips with the bar
            rows = rows.assign(mean=-rows["mean"], ci_low=-rows["ci_high"], ci_high=-rows["ci_low"])
        fig.add_bar(
            name=part.replace("_", " "),
            x=rows["strategy"],
            y=rows["mean"],
            error_y=_errors(rows, "mean"),
        )
    fig.update_yaxes(title="mean points per game")
    return _layout(fig, f"Score parts by strategy, {players} players", barmode="relative")


def destination_balance(table: pd.DataFrame) -> go.Figure:
    """Each card's mean net points when kept against what cards of its printed points and
    trains earn (the model's expected value), one panel per player count; on the diagonal a
    card earns what its class earns; flagged cards marked and numbered."""
    from plotly.subplots import make_subplots

    counts = sorted(table.loc[table["expected"].notna(), "players"].unique())
    titles = [f"{p} players" if p else "all player counts" for p in counts]
    fig = make_subplots(rows=1, cols=max(len(counts), 1), subplot_titles=titles)
    for col, players in enumerate(counts, start=1):
        rows = table[(table["players"] == players) & table["expected"].notna()]
        # the two cards closest to a flag are named too, so a panel never reads as unlabelled
        nearest = set(rows[rows["flag"] == ""].nsmallest(2, "p").index) if "p" in rows else set()
        for name in ("in line", "flagged"):
            frame = rows[(rows["flag"] != "") == (name == "flagged")]
            # open circles: kept too rarely to be tested, placed at their class's value
            symbol = frame["tested"].map({True: "circle", False: "circle-open"}).tolist()
            names = frame["label"] + " (" + frame["points"].astype(int).astype(str) + ")"
            shown = names.where(frame.index.isin(nearest) | (name == "flagged"), "")
            fig.add_scatter(
                name=name,
                legendgroup=name,
                showlegend=col == 1,
                x=frame["expected"],
                y=frame["net_mean"],
                mode="markers+text",
                text=shown if name == "flagged" else shown.tolist(),
                hovertext=names,
                textposition="middle right" if name == "flagged" else "bottom right",
                textfont={"size": 10},
                marker={
                    "symbol": "diamond" if name == "flagged" else symbol,
                    "size": 11 if name == "flagged" else 7,
                    "color": "#d62728" if name == "flagged" else PALETTE[0],
                },
                error_y=_errors(frame, "net_mean", "net_ci_low", "net_ci_high"),
                customdata=frame[["label", "points", "cards", "kept", "completion"]],
                hovertemplate="%{hovertext}, %{customdata[2]} trains: net %{y:.1f}, expected "
                "%{x:.1f}, kept %{customdata[3]}, completed %{customdata[4]:.0%}<extra></extra>",
                row=1,
                col=col,
            )
        if not rows.empty:
            ends = [float(rows["expected"].min()), float(rows["expected"].max())]
            fig.add_scatter(
                name="earns what its class earns",
                legendgroup="diagonal",
                showlegend=col == 1,
                x=ends,
                y=ends,
                mode="lines",
                line={"dash": "dot", "color": "grey"},
                row=1,
                col=col,
            )
    if not counts:
        fig.add_annotation(
            text="Too few cards kept often enough to fit the model at any player count.",
            showarrow=False,
        )
    fig.update_xaxes(title="expected net points")  # of cards of its points and trains
    fig.update_yaxes(title="mean net points when kept", col=1)
    return _layout(fig, "Destination cards: earned against expected")


def score_parts_by_count(table: pd.DataFrame) -> go.Figure:
    """Mean score parts per player count, for a study where every seat plays one strategy."""
    fig = go.Figure()
    for part, sign in (("destination_points", 1), ("bonus_points", 1), ("penalties", -1)):
        rows = table[table["part"] == part].sort_values("players")
        if sign < 0:
            rows = rows.assign(mean=-rows["mean"], ci_low=-rows["ci_high"], ci_high=-rows["ci_low"])
        fig.add_bar(
            name=part.replace("_", " "),
            x=rows["players"].map(lambda p: f"{p} players"),
            y=rows["mean"],
            error_y=_errors(rows, "mean"),
        )
    fig.update_yaxes(title="mean points per seat and game")
    return _layout(fig, "Score parts by player count", barmode="relative")


def big_cities(table: pd.DataFrame) -> go.Figure:
    """Win-rate lift from winning each big-city bonus, per player count."""
    fig = _bars_by_players(table, "city", "win_lift", "lift_ci_low", "lift_ci_high")
    fig.update_yaxes(
        tickformat=percent_format([*table["lift_ci_low"], *table["lift_ci_high"]], signed=True),
        title="win rate with the bonus minus without",
    )
    return _layout(fig, "Big-city bonuses: win-rate lift", barmode="group")


LENGTH_TITLES = {
    "turns": "turns (all seats together)",
    "turns_per_player": "turns per player",
    "sim_minutes": "simulated minutes",
    "steals": "steals per game",
}


def game_length(table: pd.DataFrame) -> go.Figure:
    """Turns (all seats together and per player), minutes and steals per game by player
    count (one panel per metric, each on its own scale)."""
    from plotly.subplots import make_subplots

    metrics = list(dict.fromkeys(table["metric"]))
    fig = make_subplots(
        rows=1, cols=len(metrics), subplot_titles=[LENGTH_TITLES.get(m, m) for m in metrics]
    )
    for col, metric in enumerate(metrics, start=1):
        rows = table[table["metric"] == metric]
        fig.add_bar(
            x=rows["players"].map(lambda p: f"{p} players"),
            y=rows["mean"],
            error_y=_errors(rows, "mean"),
            showlegend=False,
            customdata=rows[["n_games"]],
            hovertemplate="%{x}: %{y:.1f} (%{customdata[0]} games)<extra></extra>",
            row=1,
            col=col,
        )
    return _layout(fig, "Length and interaction by player count")


VARIANT_METRICS = {
    "turns": ("turns", 1.0, "turns"),
    "mean_score": ("mean score", 1.0, "score"),
    "first_seat_win_share": ("seat 0's win share (points)", 100.0, "win_share"),
}


QUALITY_TITLES = {
    "lead_changes_chance": "lead changes (favourite)",
    "lead_changes_points": "lead changes (points)",
    "drama": "drama",
    "decisive_fraction": "share played before decided",
    "excitement": "excitement",
    "comeback": "comeback",
    "final_margin": "winning margin (points)",
}
QUALITY_METRICS = {metric: (title, 1.0, "") for metric, title in QUALITY_TITLES.items()}


def verdict_interval(rows: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    """The interval each row's verdict is read from (reports/margins.py): the family's
    Bonferroni interval, the equivalence interval for *practically equal*; the plain 95%
    interval of a table without verdicts."""
    if not {"family_low", "family_high", "verdict"} <= set(rows):
        return rows["ci_low"], rows["ci_high"]
    low, high = rows["family_low"], rows["family_high"]
    if {"equiv_low", "equiv_high"} <= set(rows):
        equal = rows["verdict"] == "practically equal"
        low, high = low.where(~equal, rows["equiv_low"]), high.where(~equal, rows["equiv_high"])
    return low.astype(float), high.astype(float)


def variant_effects(
    table: pd.DataFrame,
    metrics=tuple(VARIANT_METRICS),
    labels: dict[str, tuple[str, float, str]] | None = None,
    title: str = "Rule variants: variant minus the printed game (each panel its own scale)",
) -> go.Figure:
    """Small multiples: one panel per metric (rows) and variant (columns), each with its own
    scale, so no variant's effect flattens the others; a point per player count with its
    interval, the practical margin as a grey band, the verdict in the hover. ``labels``:
    metric -> (row title, scale, margin name), VARIANT_METRICS by default."""
    from plotly.subplots import make_subplots

    labels = labels or VARIANT_METRICS
    variants = sorted(table["variant"].unique())
    metrics = [m for m in metrics if (table["metric"] == m).any()]
    fig = make_subplots(
        rows=max(len(metrics), 1),
        cols=max(len(variants), 1),
        shared_yaxes=False,
        column_titles=variants,
        row_titles=[labels[m][0] for m in metrics],
        horizontal_spacing=0.06,
        vertical_spacing=0.08 if len(metrics) < 6 else 0.04,
    )
    colours = {2: PALETTE[0], 3: PALETTE[1], 4: PALETTE[2]}
    shown = set()
    for r, metric in enumerate(metrics, start=1):
        _, scale, _ = labels[metric]
        for c, variant in enumerate(variants, start=1):
            rows = table[(table["metric"] == metric) & (table["variant"] == variant)]
            if rows.empty:
                continue
            low, high = verdict_interval(rows)
            rows = rows.assign(
                difference=rows["difference"] * scale, ci_low=low * scale, ci_high=high * scale
            )
            units = rows["n_deals"].where(rows["method"] == "paired t", rows["n_games"])
            for _, row in rows.assign(units=units).iterrows():
                players = int(row["players"])
                name = f"{players} players"
                fig.add_scatter(
                    x=[name],
                    y=[row["difference"]],
                    mode="markers",
                    name=name,
                    legendgroup=name,
                    showlegend=name not in shown,
                    marker={"size": 10, "color": colours.get(players, "#555")},
                    error_y={
                        "type": "data",
                        "symmetric": False,
                        "array": [row["ci_high"] - row["difference"]],
                        "arrayminus": [row["difference"] - row["ci_low"]],
                    },
                    hovertemplate=f"{variant}, {name}: %{{y:+.2f}} ({row['verdict']}; "
                    f"{row['method']}, {int(row['units'])} "
                    f"{'deals' if row['method'] == 'paired t' else 'games'})<extra></extra>",
                    row=r,
                    col=c,
                )
                shown.add(name)
            margin = float(rows["margin"].iloc[0]) * scale if "margin" in rows else 0.0
            if margin:
                fig.add_hrect(
                    y0=-margin,
                    y1=margin,
                    fillcolor="grey",
                    opacity=0.15,
                    line_width=0,
                    row=r,
                    col=c,
                )
            fig.add_hline(y=0, line_color="black", line_width=1, row=r, col=c)
    fig.update_layout(
        height=max(320, 230 * len(metrics) + 110),
        legend={"orientation": "h", "y": -0.08, "x": 0},
    )
    return _layout(fig, title)


def game_quality(table: pd.DataFrame) -> go.Figure:
    """Each quality metric by player count: the mean per game with its 95% interval, one
    panel per metric on its own scale."""
    from plotly.subplots import make_subplots

    metrics = [m for m in QUALITY_TITLES if (table["metric"] == m).any()]
    cols = 4
    rows_n = -(-len(metrics) // cols)
    fig = make_subplots(
        rows=rows_n,
        cols=cols,
        subplot_titles=[QUALITY_TITLES[m] for m in metrics],
        horizontal_spacing=0.07,
        vertical_spacing=0.22,
    )
    for i, metric in enumerate(metrics):
        rows = table[(table["metric"] == metric) & table["mean"].notna()]
        fig.add_bar(
            x=rows["players"].map(lambda p: f"{p} players"),
            y=rows["mean"],
            error_y=_errors(rows, "mean"),
            marker_color=[PALETTE[int(p) - 2] for p in rows["players"]],
            showlegend=False,
            customdata=rows[["n_games", "median"]],
            hovertemplate="%{x}: mean %{y:.3g}, median %{customdata[1]:.3g} "
            "(%{customdata[0]} games)<extra></extra>",
            row=i // cols + 1,
            col=i % cols + 1,
        )
    fig.update_layout(height=300 * rows_n + 80)
    return _layout(fig, "Game quality by player count (mean per game, 95% interval)")


def variant_seat_edge(table: pd.DataFrame) -> go.Figure:
    """Seat 0's edge over the fair share per rule set, one panel per player count."""
    from plotly.subplots import make_subplots

    counts = sorted(table["players"].unique())
    fig = make_subplots(rows=1, cols=len(counts), subplot_titles=[f"{p} players" for p in counts])
    for col, players in enumerate(counts, start=1):
        rows = table[table["players"] == players].copy()
        for column in ("difference", "ci_low", "ci_high"):
            rows[column] = rows[column] * 100
        fig.add_scatter(
            x=rows["variant"],
            y=rows["difference"],
            mode="markers",
            showlegend=False,
            marker={"size": 10, "color": PALETTE[0]},
            error_y=_errors(rows, "difference"),
            customdata=rows[["n_games", "verdict"]],
            hovertemplate="%{x}: %{y:+.1f} points (%{customdata[0]} games, "
            "%{customdata[1]})<extra></extra>",
            row=1,
            col=col,
        )
        margin = float(rows["margin"].iloc[0]) * 100
        fig.add_hrect(
            y0=-margin, y1=margin, fillcolor="grey", opacity=0.15, line_width=0, row=1, col=col
        )
        fig.add_hline(y=0, line_color="black", line_width=1, row=1, col=col)
    fig.update_yaxes(title="seat 0's edge (points of win share)", col=1)
    return _layout(fig, "First seat's edge under each rule set")


def variant_ratings(table: pd.DataFrame) -> go.Figure:
    """Plackett-Luce strengths per rule set, one panel per player count, a colour per
    variant; a baseline far below the others is left out of the axis (ratings_apart)."""
    from plotly.subplots import make_subplots

    rated = table.dropna(subset=["strength"])
    rated = rated[~rated["strategy"].isin(BASELINES)]
    counts = sorted(rated["players"].unique())
    fig = make_subplots(
        rows=1,
        cols=max(len(counts), 1),
        shared_yaxes=True,
        subplot_titles=[f"{p} players" for p in counts],
    )
    variants = sorted(rated["variant"].unique(), key=lambda v: (v != "base", v))
    for col, players in enumerate(counts, start=1):
        for i, variant in enumerate(variants):
            rows = rated[(rated["players"] == players) & (rated["variant"] == variant)]
            if rows.empty:
                continue
            fig.add_scatter(
                x=rows["strength"],
                y=rows["strategy"],
                mode="markers",
                name=variant,
                legendgroup=variant,
                showlegend=col == 1,
                marker={"size": 9, "color": PALETTE[i % len(PALETTE)]},
                error_x=_errors(rows, "strength"),
                hovertemplate=f"{variant}: %{{y}} %{{x:+.2f}}<extra></extra>",
                row=1,
                col=col,
            )
    fig.update_xaxes(title="strength (log-odds)")
    return _layout(fig, "Strategy strength under each rule set (random left out)")


# ------------------------------------------------------------------ order and colours
PALETTE = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)
BASELINE_COLOUR = "#b0b0b0"


def strategy_order(strategies) -> list[str]:
    """One order for every chart of a report: alphabetical, the `random` baseline last."""
    names = sorted(set(strategies))
    return [s for s in names if s != "random"] + (["random"] if "random" in names else [])


def strategy_colours(order: list[str]) -> dict[str, str]:
    """One colour per strategy for the whole report (the baseline grey)."""
    colours, i = {}, 0
    for name in order:
        if name == "random":
            colours[name] = BASELINE_COLOUR
        else:
            colours[name] = PALETTE[i % len(PALETTE)]
            i += 1
    return colours


def order_axes(fig: go.Figure, order: list[str], x: bool = True, y: bool = False) -> go.Figure:
    """Put a figure's strategy axes in the report's one order."""
    if x:
        fig.update_xaxes(categoryorder="array", categoryarray=order)
    if y:
        fig.update_yaxes(categoryorder="array", categoryarray=order)
    return fig


def convergence(table: pd.DataFrame, colours: dict[str, str] | None = None) -> go.Figure:
    """Cumulative estimate and its 95% band against games played, one panel per player count:
    where the lines flatten and the bands stop shrinking, more games change little."""
    from plotly.subplots import make_subplots

    counts = sorted(table["players"].unique())
    fig = make_subplots(
        rows=1, cols=max(len(counts), 1), subplot_titles=[f"{p} players" for p in counts]
    )
    colours = colours or {}
    shown: set[str] = set()
    for col, players in enumerate(counts, start=1):
        here = table[table["players"] == players]
        for i, (name, rows) in enumerate(here.groupby("strategy", sort=False)):
            colour = colours.get(name, PALETTE[i % len(PALETTE)])
            band = pd.concat([rows["ci_high"], rows["ci_low"][::-1]])
            games = pd.concat([rows["games"], rows["games"][::-1]])
            fig.add_scatter(
                x=games,
                y=band,
                fill="toself",
                fillcolor=colour,
                opacity=0.1,
                line={"width": 0},
                hoverinfo="skip",
                showlegend=False,
                legendgroup=name,
                row=1,
                col=col,
            )
            fig.add_scatter(
                name=name,
                x=rows["games"],
                y=rows["rate"],
                mode="lines",
                line={"color": colour},
                legendgroup=name,
                showlegend=name not in shown,
                customdata=rows[["n_games"]],
                hovertemplate=f"{name}: %{{y:.1%}} after %{{x}} games "
                "(%{customdata[0]} of them its own)<extra></extra>",
                row=1,
                col=col,
            )
            shown.add(name)
        fig.add_hline(y=1 / players, line_dash="dot", line_color="grey", row=1, col=col)
    fig.update_xaxes(title="games played (game-index order)")
    fig.update_yaxes(tickformat=".0%")
    fig.update_yaxes(title="cumulative win rate", col=1)
    return _layout(fig, "How the estimates settle with the number of games")


# ------------------------------------------------------------------ what designers ask
def first_seat_advantage(table: pd.DataFrame) -> go.Figure:
    """The first seat's win rate minus the fair share at mirror tables (every seat the same
    strategy), per player count, with the t interval over games and the 80%-power MDE."""
    rows = table[table["n_games"] > 0]
    fig = go.Figure()
    for strategy, group in rows.groupby("strategy", sort=True):
        fig.add_bar(
            name=f"{strategy} at every seat",
            x=group["players"].map(lambda p: f"{p} players"),
            y=group["advantage"],
            error_y=_errors(group, "advantage", "adv_ci_low", "adv_ci_high"),
            customdata=group[["n_games", "rate", "mde"]],
            hovertemplate="%{x}: seat 0 wins %{customdata[1]:.1%}, %{y:+.1%} against the fair "
            "share (%{customdata[0]} games; detectable: %{customdata[2]:.1%})<extra></extra>",
        )
    fig.add_hline(y=0, line_color="black")
    fig.update_yaxes(
        tickformat=percent_format([*rows["adv_ci_low"], *rows["adv_ci_high"], 0], signed=True),
        title="seat 0 win rate minus fair share",
    )
    return _layout(fig, "First-seat advantage among equal players", barmode="group")


def score_margins(distribution: pd.DataFrame) -> go.Figure:
    """Distribution of the winner's margin over the runner-up (one per game), per player
    count; a margin of 0 is a tied top score (decided by R22's tie-break)."""
    fig = go.Figure()
    for players, group in distribution.groupby("players", sort=True):
        fig.add_bar(
            name=f"{players} players",
            x=group["margin"],
            y=group["share"],
            customdata=group[["n_games"]],
            hovertemplate="margin %{x}: %{y:.1%} of games (%{customdata[0]})<extra></extra>",
            opacity=0.6,
        )
    fig.update_xaxes(title="winner's score minus runner-up's (points)")
    fig.update_yaxes(tickformat=percent_format([0, *distribution["share"]]), title="share of games")
    return _layout(fig, "Score margins", barmode="overlay")


def card_contribution(table: pd.DataFrame) -> go.Figure:
    """Win rate of the seats that completed a card minus the seats that kept and failed it,
    with Newcombe intervals: the rows given (top and bottom cards), per player count."""
    fig = go.Figure()
    for players, group in table.groupby("players", sort=True):
        ordered = group.sort_values("difference")
        fig.add_scatter(
            name=f"{players} players",
            x=ordered["difference"],
            y=ordered["label"] + f" ({players}p)",
            mode="markers",
            marker={"size": 9},
            error_x=_errors(ordered, "difference"),
            customdata=ordered[["n_completed", "n_failed", "win_completed", "win_failed"]],
            hovertemplate="%{y}: completed %{customdata[2]:.0%} (%{customdata[0]} seats), "
            "failed %{customdata[3]:.0%} (%{customdata[1]} seats)<extra></extra>",
        )
    fig.add_vline(x=0, line_color="black")
    fig.update_xaxes(
        tickformat=percent_format([*table["ci_low"], *table["ci_high"]], signed=True),
        title="win rate when completed minus when failed",
    )
    return _layout(fig, "Destination cards: contribution to winning", height=700)


def meta_game(table: pd.DataFrame) -> go.Figure:
    """The 2-player meta-game's equilibrium mix: bootstrap mean weight with its 95%
    percentile interval (bars), the weight fitted on the data (diamonds)."""
    fig = go.Figure()
    informative = (table["ci_high"] - table["ci_low"]) < 0.9  # else the interval says nothing
    fig.add_bar(
        name="bootstrap mean",
        x=table["strategy"],
        y=table["boot_mean"],
        error_y={
            "type": "data",
            "symmetric": False,
            "array": (table["ci_high"] - table["boot_mean"]).where(informative, 0).tolist(),
            "arrayminus": (table["boot_mean"] - table["ci_low"]).where(informative, 0).tolist(),
        },
        customdata=table[["share_positive", "draws"]],
        hovertemplate="%{x}: mean weight %{y:.0%}, positive in %{customdata[0]:.0%} of "
        "%{customdata[1]} draws<extra></extra>",
    )
    fig.add_scatter(
        name="equilibrium on the data",
        x=table["strategy"],
        y=table["weight"],
        mode="markers",
        marker={"symbol": "diamond", "size": 11},
    )
    fig.update_yaxes(tickformat=".0%", title="weight in the equilibrium mix", range=[0, 1.05])
    return _layout(fig, "Equilibrium mix of the 2-player meta-game")


# ------------------------------------------------------------------ the skill ladder
def skill_pairs(table: pd.DataFrame, players: int) -> go.Figure:
    """At one player count, each pair of strategies that met: how often the stronger one
    finished ahead, with its Wilson interval over games; 50% is a coin toss."""
    here = table[table["players"] == players].sort_values("rate")
    labels = here["strategy"] + " ahead of " + here["opponent"]
    fig = go.Figure(
        go.Scatter(
            x=here["rate"],
            y=labels,
            mode="markers",
            marker={"size": 9, "color": here["significant"].map({True: "#1f77b4", False: "#999"})},
            error_x=_errors(here),
            customdata=here[["n_games"]].assign(p=here["p_adjusted"].map(p_text)),
            hovertemplate="%{y}: %{x:.1%} of %{customdata[0]} games (Holm-adjusted "
            "%{customdata[1]})<extra></extra>",
            showlegend=False,
        )
    )
    fig.add_vline(x=0.5, line_dash="dot", line_color="grey")
    fig.update_xaxes(tickformat=".0%", title="share of the games the first finished ahead")
    return _layout(
        fig,
        f"Skill ladder at {players} players: how often the stronger of a pair finishes ahead",
        height=max(300, 60 + 22 * len(here)),
    )


def skill_share(table: pd.DataFrame) -> go.Figure:
    """Share of the seat-score variance explained by the seated strategy, per player count
    and scope, with its game-bootstrap interval."""
    fig = go.Figure()
    for scope, group in table.groupby("scope", sort=True):
        fig.add_bar(
            name=scope,
            x=group["players"].map(lambda p: f"{p} players"),
            y=group["share"],
            error_y=_errors(group, "share"),
            customdata=group[["n_games", "n_strategies"]],
            hovertemplate="%{x}: %{y:.0%} (%{customdata[0]} games, %{customdata[1]} "
            "strategies)<extra></extra>",
        )
    fig.update_yaxes(
        tickformat=".0%", title="score variance explained by the strategy", range=[0, 1]
    )
    return _layout(fig, "How much of the score spread is skill", barmode="group")


def memory_value(table: pd.DataFrame, measure: str) -> go.Figure:
    """Perfect minus human-like memory on one paired measure, per player count."""
    here = table[table["measure"] == measure]
    fig = go.Figure(
        go.Bar(
            x=here["players"].map(lambda p: f"{p} players"),
            y=here["value"],
            error_y=_errors(here, "value"),
            customdata=here[["n", "unit"]],
            hovertemplate="%{x}: %{y:+.3g} (%{customdata[0]} %{customdata[1]})<extra></extra>",
        )
    )
    fig.add_hline(y=0, line_color="black")
    title = measure.replace("_", " ")
    fig.update_yaxes(title=f"{title}: perfect minus human memory")
    return _layout(fig, f"The value of memory: {title}")


def search_ranking(table: pd.DataFrame) -> go.Figure:
    """Each strategy's share of comparisons won against scripted (x) and search (y)
    opponents, one panel per player count: points rising left to right keep their order."""
    from plotly.subplots import make_subplots

    counts = sorted(table["players"].unique())
    fig = make_subplots(
        rows=1,
        cols=max(len(counts), 1),
        shared_yaxes=True,
        subplot_titles=[f"{p} players" for p in counts],
    )
    for col, players in enumerate(counts, start=1):
        group = table[table["players"] == players]
        for i, (_, one) in enumerate(group.sort_values("strategy").iterrows()):
            name = one["strategy"]
            row = group.loc[[one.name]]
            fig.add_scatter(
                name=name,
                legendgroup=name,
                showlegend=col == 1,
                x=row["rate_scripted"],
                y=row["rate_search"],
                mode="markers",
                marker={"size": 10, "color": PALETTE[i % len(PALETTE)]},
                error_x=_errors(row, "rate_scripted", "scripted_ci_low", "scripted_ci_high"),
                error_y=_errors(row, "rate_search", "search_ci_low", "search_ci_high"),
                customdata=row[["n_games_scripted", "n_games_search"]],
                hovertemplate=f"{name}: %{{x:.1%}} against scripted (%{{customdata[0]}} games), "
                "%{y:.1%} against search (%{customdata[1]} games)<extra></extra>",
                row=1,
                col=col,
            )
        fig.update_xaxes(tickformat=".0%", title="won against scripted", row=1, col=col)
    fig.update_yaxes(tickformat=".0%", title="won against search", row=1, col=1)
    return _layout(fig, "Does the heuristics' ranking hold against search players?")


def edit_effects(table: pd.DataFrame) -> go.Figure:
    """What each variant's edits did to what they edit (reports/edit_effects.py): one panel
    per variant, a row per edited thing and metric, the variant minus base in points (win
    shares and rates in percentage points, net points as points) with its simultaneous
    interval, a marker per player count; the verdict and both levels in the hover."""
    from plotly.subplots import make_subplots

    from .edit_effects import METRICS

    variants = sorted(table["variant"].unique())
    fig = make_subplots(rows=max(len(variants), 1), cols=1, subplot_titles=variants,
                        vertical_spacing=0.12 / max(len(variants), 1))  # fmt: skip
    colours = {2: PALETTE[0], 3: PALETTE[1], 4: PALETTE[2]}
    shown: set[str] = set()
    heights = 0
    marker = {p: {"size": 9, "color": c} for p, c in colours.items()}
    for r, variant in enumerate(variants, start=1):
        rows = table[table["variant"] == variant]
        scale = rows["metric"].map(lambda m: METRICS[m][2]).astype(float)
        said = [
            METRICS[m][0].format(who=w) for m, w in zip(rows["metric"], rows["who"], strict=True)
        ]
        item = rows["item"].str.split(" ").str[0].where(rows["kind"] != "seat", "")
        label = (item + " " + pd.Series(said, index=rows.index)).str.strip()
        rows = rows.assign(label=label, d=rows["difference"] * scale,
                           lo=rows["family_low"] * scale, hi=rows["family_high"] * scale,
                           b=rows["base"] * scale, v=rows["value"] * scale)  # fmt: skip
        heights += rows["label"].nunique()
        for players, part in rows.groupby("players"):
            name = f"{int(players)} players"
            fig.add_scatter(
                x=part["d"], y=part["label"], mode="markers", name=name, legendgroup=name,
                showlegend=name not in shown, marker=marker.get(int(players), {"size": 9}),
                error_x={"type": "data", "symmetric": False, "array": part["hi"] - part["d"],
                         "arrayminus": part["d"] - part["lo"]},
                customdata=part[["b", "v", "verdict", "deals", "method"]],
                hovertemplate="%{y}, " + name + ": %{x:+.2f} (base %{customdata[0]:.2f}, variant "
                "%{customdata[1]:.2f}; %{customdata[2]}; %{customdata[4]} over %{customdata[3]} "
                "deals)<extra></extra>",
                row=r, col=1,
            )  # fmt: skip
            shown.add(name)
        fig.add_vline(x=0, line_color="black", row=r, col=1)
    fig.update_xaxes(title_text="variant minus base (points)", row=len(variants), col=1)
    return _layout(fig, "What each variant's edits did to the ticket, bonus or seats they edit",
                   height=160 + 42 * heights + 60 * len(variants))  # fmt: skip
