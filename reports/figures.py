"""One function per figure: a stats frame in, a Plotly figure out, no I/O.

Every interval drawn is the frame's ``ci_low``/``ci_high``; the figures add nothing the
frames do not hold, so tests check figures by their data.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

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


def _layout(fig: go.Figure, title: str, **kwargs) -> go.Figure:
    fig.update_layout(template=TEMPLATE, title=title, margin={"t": 60, "l": 60, "r": 20}, **kwargs)
    return fig


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
    fig.update_yaxes(tickformat=".0%", title="win rate (shared wins split)")
    return _layout(fig, "Win rate by strategy", barmode="group")


def head_to_head(table: pd.DataFrame, players: int | None = None) -> go.Figure:
    """Heatmap at one player count (the smallest if none given): how often the row strategy
    finishes ahead of the column strategy in the games where both sat."""
    players = int(table["players"].min()) if players is None else players
    here = table[table["players"] == players]
    matrix = here.pivot(index="strategy", columns="opponent", values="rate")
    n = here.pivot(index="strategy", columns="opponent", values="n_games").reindex_like(matrix)
    fig = go.Figure(
        go.Heatmap(
            z=matrix.to_numpy(),
            x=list(matrix.columns),
            y=list(matrix.index),
            zmin=0,
            zmax=1,
            colorscale="RdBu",
            customdata=n.to_numpy(),
            hovertemplate="%{y} ahead of %{x}: %{z:.1%} (%{customdata} games)<extra></extra>",
            colorbar={"tickformat": ".0%"},
        )
    )
    fig.update_xaxes(title="opponent")
    fig.update_yaxes(title="strategy", autorange="reversed")
    return _layout(fig, f"Head to head at {players} players: share of games finished ahead")


def ratings(table: pd.DataFrame) -> go.Figure:
    """Plackett-Luce strengths per player count with Wald intervals; strategies without a
    finite strength (see the table's note) are not drawn."""
    fig = go.Figure()
    for players, group in table.dropna(subset=["strength"]).groupby("players", sort=True):
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
    fig.update_xaxes(title="strength (log odds; 0 = mean of the non-random strategies)")
    return _layout(fig, "Strategy rating per player count (Plackett-Luce)")


def seat_advantage(table: pd.DataFrame) -> go.Figure:
    """Win rate by seat per player count, with each count's fair share."""
    fig = go.Figure()
    for players, group in table.groupby("players"):
        fig.add_scatter(
            name=f"{players} players",
            x=group["seat"] + 1,
            y=group["rate"],
            mode="lines+markers",
            error_y=_errors(group),
            customdata=group[["n_games"]],
            hovertemplate="seat %{x}: %{y:.1%} (%{customdata[0]} games)<extra></extra>",
        )
        fig.add_hline(y=1 / players, line_dash="dot", line_color="grey")
    fig.update_xaxes(title="seat (1 plays first)", dtick=1)
    fig.update_yaxes(tickformat=".0%", title="win rate")
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
        for name in ("in line", "flagged"):
            frame = rows[(rows["flag"] != "") == (name == "flagged")]
            # open circles: kept too rarely to be tested, placed at their class's value
            symbol = frame["tested"].map({True: "circle", False: "circle-open"}).tolist()
            fig.add_scatter(
                name=name,
                legendgroup=name,
                showlegend=col == 1,
                x=frame["expected"],
                y=frame["net_mean"],
                mode="markers+text" if name == "flagged" else "markers",
                text=frame["destination_id"].map(lambda i: f"#{i}"),
                textposition="middle right",
                marker={
                    "symbol": "diamond" if name == "flagged" else symbol,
                    "size": 11 if name == "flagged" else 7,
                },
                error_y=_errors(frame, "net_mean", "net_ci_low", "net_ci_high"),
                customdata=frame[["label", "points", "cards", "kept", "completion"]],
                hovertemplate="%{customdata[0]} (%{customdata[1]} pts, %{customdata[2]} "
                "trains): net %{y:.1f}, expected %{x:.1f}, kept %{customdata[3]}, completed "
                "%{customdata[4]:.0%}<extra></extra>",
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
    fig.update_yaxes(tickformat="+.0%", title="win rate with the bonus minus without")
    return _layout(fig, "Big-city bonuses: win-rate lift", barmode="group")


def game_length(table: pd.DataFrame) -> go.Figure:
    """Turns, minutes and steals per game by player count (one panel per metric)."""
    from plotly.subplots import make_subplots

    metrics = list(dict.fromkeys(table["metric"]))
    fig = make_subplots(rows=1, cols=len(metrics), subplot_titles=metrics)
    for col, metric in enumerate(metrics, start=1):
        rows = table[table["metric"] == metric]
        fig.add_bar(
            x=rows["players"].map(lambda p: f"{p}p"),
            y=rows["mean"],
            error_y=_errors(rows, "mean"),
            showlegend=False,
            row=1,
            col=col,
        )
    return _layout(fig, "Interaction and length by player count")


def variant_effects(table: pd.DataFrame, metric: str) -> go.Figure:
    """One metric's difference from the base game, per variant and player count, only where
    the variant was played; the hover names the method, the games or deals compared and the
    smallest difference that n could detect (80% power, 5% level)."""
    rows = table[table["metric"] == metric]
    fig = go.Figure()
    for players, group in rows.groupby("players"):
        paired = group["method"] == "paired t"
        detail = pd.DataFrame(
            {
                "count": group["n_deals"].where(paired, group["n_games"]).astype(int),
                "units": paired.map({True: "deals", False: "games"}),
                "how": group["method"],
                "mde": group["detectable"],
            }
        )
        fig.add_bar(
            name=f"{players} players",
            x=group["variant"],
            y=group["difference"],
            error_y=_errors(group, "difference"),
            customdata=detail,
            hovertemplate="%{x}: %{y:+.3g} (%{customdata[2]}, %{customdata[0]} "
            "%{customdata[1]}; could detect ±%{customdata[3]:.3g})<extra></extra>",
        )
    fig.add_hline(y=0, line_color="black")
    fig.update_yaxes(title=f"{metric.replace('_', ' ')}: variant minus base")
    return _layout(fig, f"Rule variants: {metric.replace('_', ' ')}", barmode="group")


# ------------------------------------------------------------------ order and colours
PALETTE = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf",
)  # fmt: skip
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
            hovertemplate="%{x}: seat 1 wins %{customdata[1]:.1%}, %{y:+.1%} against the fair "
            "share (%{customdata[0]} games; detectable: %{customdata[2]:.1%})<extra></extra>",
        )
    fig.add_hline(y=0, line_color="black")
    fig.update_yaxes(tickformat="+.0%", title="seat 1 win rate minus fair share")
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
    fig.update_yaxes(tickformat=".0%", title="share of games")
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
    fig.update_xaxes(tickformat="+.0%", title="win rate when completed minus when failed")
    return _layout(fig, "Destination cards: contribution to winning", height=700)


def meta_game(table: pd.DataFrame) -> go.Figure:
    """The 2-player meta-game's equilibrium mix: bootstrap mean weight with its 95%
    percentile interval (bars), the weight fitted on the data (diamonds)."""
    fig = go.Figure()
    fig.add_bar(
        name="bootstrap mean",
        x=table["strategy"],
        y=table["boot_mean"],
        error_y=_errors(table, "boot_mean"),
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
            customdata=here[["n_games", "p_adjusted"]],
            hovertemplate="%{y}: %{x:.1%} of %{customdata[0]} games (Holm p = "
            "%{customdata[1]:.2g})<extra></extra>",
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
        fig.add_scatter(
            name=f"{players} players",
            x=group["rate_scripted"],
            y=group["rate_search"],
            mode="markers+text",
            text=group["strategy"],
            textposition="top center",
            error_x=_errors(group, "rate_scripted", "scripted_ci_low", "scripted_ci_high"),
            error_y=_errors(group, "rate_search", "search_ci_low", "search_ci_high"),
            customdata=group[["n_games_scripted", "n_games_search"]],
            hovertemplate="%{text}: %{x:.1%} against scripted (%{customdata[0]} games), "
            "%{y:.1%} against search (%{customdata[1]} games)<extra></extra>",
            showlegend=False,
            row=1,
            col=col,
        )
        fig.update_xaxes(tickformat=".0%", title="won against scripted", row=1, col=col)
    fig.update_yaxes(tickformat=".0%", title="won against search", row=1, col=1)
    return _layout(fig, "Does the heuristics' ranking hold against search players?")
