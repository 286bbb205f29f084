"""What designers ask: first-seat advantage among equal players, score margins and
tie-breaks, each destination card's contribution to winning, non-transitivity of the
head-to-head matrix and the equilibrium mix of the 2-player meta-game.

DataFrame in, DataFrame out, no plotting. The game (``cell``, ``game_index``) is the unit of
every interval, as in reports/intervals.py; results are per player count. Methods and their
references: docs/statistics.md, "What designers ask".
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
from scipy import stats as sps

from .intervals import GAME, Z95, adjust, wilson
from .level import current_alpha
from .wins import BASELINES

BOOT_DRAWS = 200
SAME_PAYOFF = 1e-12  # payoff rows this close are one strategy's (float dust of a share)
BOOT_SEED = 2026  # the meta-game bootstrap is seeded: a report is a pure function of its data
MIN_EACH = 10  # seats that completed, and seats that failed, a card before it is tested
NO_MIRROR = "no table where every seat holds the same non-random strategy"


# ------------------------------------------------------------------ power
def mde_rate(p0: float, n: int, power: float = 0.8, family: int = 1) -> float:
    """Smallest true difference from ``p0`` a two-sided test at 0.05 / ``family`` (the first
    step of Holm over that many tests) over ``n`` independent games detects with the given
    power (normal approximation, variance at the null):
    (z_{1 - 0.025/family} + z_power) * sqrt(p0 (1 - p0) / n)."""
    if n <= 0:
        return np.nan
    z = Z95 if family <= 1 else sps.norm.ppf(1 - current_alpha() / (2 * family))
    return float((z + sps.norm.ppf(power)) * np.sqrt(p0 * (1 - p0) / n))


# ------------------------------------------------------------------ first seat among equals
def mirror_games(seats: pd.DataFrame) -> pd.DataFrame:
    """Seat rows of the games in which every seat holds one and the same non-baseline
    strategy (a mirror table: the players are equal, only the seat order differs)."""
    distinct = seats.groupby(GAME)["strategy"].transform("nunique")
    mirror = seats[(distinct == 1) & ~seats["strategy"].isin(BASELINES)]
    return mirror


def first_seat_advantage(seats: pd.DataFrame) -> pd.DataFrame:
    """Per player count and mirrored strategy: the first seat's (seat index 0, plays first,
    R6) win rate over its mirror games, minus the fair share 1/players.

    One value per game (the first seat's win share, 1/k for a k-way shared win): ``rate``
    with a Wilson interval, ``advantage`` = rate - fair with a Student t interval and
    t-test over games, ``mde`` the smallest advantage the games could detect (80% power,
    two-sided at 0.05 / the number of tests: Holm's family is every player count and
    mirrored strategy together). A player count without mirror tables gets one row with a
    ``note``."""
    mirror = mirror_games(seats)
    rows = []
    for players in sorted(seats["players"].unique()):
        here = mirror[(mirror["players"] == players) & (mirror["seat"] == 0)]
        if here.empty:
            rows.append({"players": int(players), "strategy": "", "n_games": 0, "note": NO_MIRROR})
            continue
        for strategy, group in here.groupby("strategy", sort=True):
            rows.append(_first_seat_row(int(players), str(strategy), group["win_share"]))
    table = pd.DataFrame(rows) if rows else pd.DataFrame(columns=["players", "n_games", "note"])
    for column in ("p_value", "advantage"):
        if column not in table:
            table[column] = np.nan
    # one family: every player count and mirrored strategy together (Holm)
    table["p_adjusted"] = adjust(table["p_value"]).to_numpy()
    table["significant"] = table["p_adjusted"] < current_alpha()
    family = int(table["p_value"].notna().sum())
    if "fair" in table:
        table["mde"] = [
            mde_rate(fair, int(n), family=family) if n else np.nan
            for fair, n in zip(table["fair"], table["n_games"], strict=True)
        ]
    table["note"] = table["note"].fillna("")
    return table


def _first_seat_row(players: int, strategy: str, share: pd.Series) -> dict:
    values = share.to_numpy(dtype=float)
    n, fair = len(values), 1.0 / players
    low, high = wilson(values.sum(), n)
    if n >= 2 and values.std(ddof=1) > 0:
        test = sps.ttest_1samp(values - fair, 0.0)
        ci = test.confidence_interval(0.95)
        adv_low, adv_high, p = float(ci.low), float(ci.high), float(test.pvalue)
    else:
        adv_low = adv_high = p = np.nan
    return {
        "players": players,
        "strategy": strategy,
        "n_games": n,
        "rate": float(values.mean()),
        "ci_low": float(low),
        "ci_high": float(high),
        "fair": fair,
        "advantage": float(values.mean() - fair),
        "adv_ci_low": adv_low,
        "adv_ci_high": adv_high,
        "p_value": p,
        "mde": mde_rate(fair, n),
        "note": "",
    }


# ------------------------------------------------------------------ margins and tie-breaks
def game_outcomes(seats: pd.DataFrame) -> pd.DataFrame:
    """One row per game: the winner's score minus the runner-up's (0 when the top score is
    shared), how many seats share the top score, and what decided the game (R22): ``score``,
    ``destinations reached``, ``big cities`` or ``shared`` (a tie still standing)."""
    frame = seats[[*GAME, "players", "seat", "score", "reached", "n_big_cities"]]
    frame = frame.sort_values([*GAME, "score"], ascending=[True, True, False])
    grouped = frame.groupby(GAME, sort=False)
    place = grouped.cumcount().to_numpy()
    at_top = frame["score"].eq(grouped["score"].transform("max"))
    at_reached = _best_among(frame, at_top, "reached")
    at_big = _best_among(frame, at_reached, "n_big_cities")
    counts = pd.DataFrame(
        {"top": at_top, "reached": at_reached, "big": at_big}, index=frame.index
    ).groupby([frame[c] for c in GAME], sort=False)
    n_top = counts["top"].sum()
    decided = np.select(
        [
            n_top.to_numpy() == 1,
            counts["reached"].sum().to_numpy() == 1,
            counts["big"].sum().to_numpy() == 1,
        ],
        ["score", "destinations reached", "big cities"],
        "shared",
    )
    first = frame[place == 0].set_index(GAME)
    second = frame[place == 1].set_index(GAME)["score"]
    out = first[["players"]].copy()
    out["top_score"] = first["score"]
    out["margin"] = first["score"] - second.reindex(first.index)
    out["n_top"] = n_top.reindex(first.index).to_numpy()
    out["decided_by"] = pd.Series(decided, index=n_top.index).reindex(first.index).to_numpy()
    return out.reset_index()


def _best_among(frame: pd.DataFrame, among: pd.Series, column: str) -> pd.Series:
    """Seats in ``among`` holding the game's highest ``column`` among them."""
    values = frame[column].where(among)
    best = values.groupby([frame[c] for c in GAME], sort=False).transform("max")
    return among & frame[column].eq(best)


def median_ci(values) -> tuple[float, float, float]:
    """(median, low, high): the distribution-free order-statistic interval of the median
    (scipy.stats.quantile_test(...).confidence_interval, at least 95% coverage)."""
    values = np.asarray(values, dtype=float)
    median = float(np.median(values))
    if len(values) < 6:  # too few for a 95% order-statistic interval
        return median, np.nan, np.nan
    ci = sps.quantile_test(values, q=median, p=0.5).confidence_interval(0.95)
    return median, float(ci.low), float(ci.high)


def score_margins(seats: pd.DataFrame, outcomes: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per player count, one margin per game (winner minus runner-up): mean (Student t),
    median (order-statistic interval); how often the top score is shared so that R22's
    tie-break decides (``tie_rate``, Wilson over games), and how it was decided.
    ``outcomes``: the seats' ``game_outcomes``, if already found."""
    outcomes = game_outcomes(seats) if outcomes is None else outcomes
    rows = []
    for players, group in outcomes.groupby("players", sort=True):
        margin = group["margin"].to_numpy(dtype=float)
        n = len(margin)
        mean = float(margin.mean())
        if n >= 2 and margin.std(ddof=1) > 0:
            low, high = sps.t.interval(0.95, n - 1, loc=mean, scale=sps.sem(margin))
        else:
            low = high = mean if n >= 2 else np.nan
        median, med_low, med_high = median_ci(margin)
        tied = int((group["n_top"] >= 2).sum())
        shared = int((group["decided_by"] == "shared").sum())
        tie_low, tie_high = wilson(tied, n)
        shared_low, shared_high = wilson(shared, n)
        rows.append(
            {
                "players": int(players),
                "n_games": n,
                "mean_margin": mean,
                "ci_low": float(low),
                "ci_high": float(high),
                "median_margin": median,
                "median_ci_low": med_low,
                "median_ci_high": med_high,
                "tied_top": tied,
                "tie_rate": tied / n,
                "tie_ci_low": float(tie_low),
                "tie_ci_high": float(tie_high),
                "by_reached": int((group["decided_by"] == "destinations reached").sum()),
                "by_big_cities": int((group["decided_by"] == "big cities").sum()),
                "shared": shared,
                "shared_rate": shared / n,
                "shared_ci_low": float(shared_low),
                "shared_ci_high": float(shared_high),
            }
        )
    return pd.DataFrame(rows)


def margin_distribution(seats: pd.DataFrame, outcomes: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per player count and margin (points): games and their share, for the histogram."""
    outcomes = game_outcomes(seats) if outcomes is None else outcomes
    table = outcomes.groupby(["players", "margin"]).size().rename("n_games").reset_index()
    table["share"] = table["n_games"] / table.groupby("players")["n_games"].transform("sum")
    return table


# ------------------------------------------------------------------ destination cards
def newcombe(x1: float, n1: int, x2: float, n2: int) -> tuple[float, float, float]:
    """(p1 - p2, low, high): Newcombe's hybrid score interval for the difference of two
    independent proportions (Newcombe 1998, method 10), from the two Wilson intervals;
    fractional successes (shared wins) allowed."""
    p1, p2 = x1 / n1, x2 / n2
    (l1, u1), (l2, u2) = wilson(x1, n1), wilson(x2, n2)
    diff = p1 - p2
    low = diff - np.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = diff + np.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return float(diff), float(low), float(high)


def pooled_z(x1: float, n1: int, x2: float, n2: int) -> float:
    """Two-sided p of the pooled two-proportion z-test (Pearson's chi-square for 2x2)."""
    pooled = (x1 + x2) / (n1 + n2)
    if pooled <= 0 or pooled >= 1:
        return 1.0
    z = (x1 / n1 - x2 / n2) / np.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    return float(2 * sps.norm.sf(abs(z)))


def card_contribution_of(sums: pd.DataFrame, min_each: int = MIN_EACH) -> pd.DataFrame:
    """Per player count and card, among the seats that kept it: win rate of the seats that
    completed it minus the seats that kept and failed it (from offer sums, reports/offers.py,
    the variants pooled).

    There is one copy of each card, so it is kept at most once per game: its rows are one
    per game, two independent samples of games. Interval: Newcombe's hybrid score; test:
    the pooled two-proportion z-test; tested when at least ``min_each`` seats did each, Holm
    over the cards tested at a player count. A correlation, not a cause: weak seats fail
    cards and lose games for the same reasons."""
    from .destinations import card_label
    from .offers import pooled

    sums = pooled(sums, ["players", "destination_id"])
    sums = sums[sums["kept"] > 0].rename(
        columns={
            "kept_games": "n_games",
            "kept": "n_kept",
            "reached": "n_done",
            "won_reached": "won_done",
        }
    )
    sums = sums.assign(n_failed=sums["n_kept"] - sums["n_done"])
    rows = []
    for r in sums.itertuples(index=False):
        n_done, n_failed = int(r.n_done), int(r.n_failed)
        won_done, won_failed = float(r.won_done), float(r.won_failed)
        tested = n_done >= min_each and n_failed >= min_each
        diff = low = high = p = np.nan
        if tested:
            diff, low, high = newcombe(won_done, n_done, won_failed, n_failed)
            p = pooled_z(won_done, n_done, won_failed, n_failed)
        rows.append(
            {
                "players": int(r.players),
                "destination_id": int(r.destination_id),
                "label": card_label(int(r.destination_id)),
                "points": int(r.points),
                "cards": int(r.cards),
                "n_games": int(r.n_games),
                "n_kept": int(r.n_kept),
                "n_completed": n_done,
                "n_failed": n_failed,
                "win_completed": won_done / n_done if n_done else np.nan,
                "win_failed": won_failed / n_failed if n_failed else np.nan,
                "difference": diff,
                "ci_low": low,
                "ci_high": high,
                "p_value": p,
                "tested": tested,
            }
        )
    table = pd.DataFrame(rows)
    if table.empty:
        return table
    table["p_adjusted"] = table.groupby("players")["p_value"].transform(adjust)
    table["significant"] = table["p_adjusted"] < current_alpha()
    return table.sort_values(["players", "difference"], ascending=[True, False]).reset_index(
        drop=True
    )


def top_and_bottom(table: pd.DataFrame, k: int = 5) -> pd.DataFrame:
    """The ``k`` tested cards with the largest and the smallest difference per player count."""
    if table.empty:
        return table
    tested = table[table["tested"]]
    parts = []
    for _, group in tested.groupby("players", sort=True):
        ordered = group.sort_values("difference", ascending=False)
        parts.append(pd.concat([ordered.head(k), ordered.tail(k)]).drop_duplicates())
    return pd.concat(parts, ignore_index=True) if parts else tested


# ------------------------------------------------------------------ non-transitivity
def find_cycles(edges: list[tuple[str, str]], limit: int = 1000) -> list[list[str]]:
    """Every simple directed cycle of the graph (each once, starting at its smallest node),
    shortest first; at most ``limit``."""
    graph: dict[str, list[str]] = {}
    for a, b in edges:
        graph.setdefault(a, []).append(b)
        graph.setdefault(b, [])
    nodes = sorted(graph)
    order = {node: i for i, node in enumerate(nodes)}
    found: list[list[str]] = []

    def walk(start: str, path: list[str]) -> None:
        for nxt in sorted(graph[path[-1]]):
            if len(found) >= limit:
                return
            if nxt == start and len(path) >= 2:
                found.append(list(path))
            elif order[nxt] > order[start] and nxt not in path:
                walk(start, [*path, nxt])

    for start in nodes:
        walk(start, [start])
    return sorted(found, key=lambda c: (len(c), c))


def non_transitivity(head_to_head: pd.DataFrame) -> pd.DataFrame:
    """Per player count: cycles A>B>C>A of the head-to-head matrix in which every link is
    significant (the ``p_adjusted`` of wins.head_to_head: Holm over the pairs of the player
    count), with the weakest link's adjusted p. "no significant cycle" otherwise."""
    rows = []
    for players, group in head_to_head.groupby("players", sort=True):
        links = group[(group["rate"] > 0.5) & group["significant"]]
        edges = list(zip(links["strategy"], links["opponent"], strict=True))
        cycles = find_cycles(edges)
        p_of = links.set_index(["strategy", "opponent"])["p_adjusted"].to_dict()
        weakest = [max(p_of[(c[i], c[(i + 1) % len(c)])] for i in range(len(c))) for c in cycles]
        strategies = sorted(set(group["strategy"]) | set(group["opponent"]))
        rows.append(
            {
                "players": int(players),
                "n_strategies": len(strategies),
                "n_pairs": len(strategies) * (len(strategies) - 1) // 2,
                "n_links_significant": len(edges),
                "n_cycles": len(cycles),
                "cycles": "; ".join(" > ".join([*c, c[0]]) for c in cycles[:10])
                or "no significant cycle",
                "weakest_link_p": float(min(weakest)) if weakest else np.nan,
                "correction": "Holm over the pairs at the player count",
            }
        )
    return pd.DataFrame(rows)


# ------------------------------------------------------------------ 2-player meta-game
def nash_mix(payoff: np.ndarray) -> tuple[np.ndarray, float]:
    """A maximin mix of the row player of a zero-sum game (``payoff`` to the row player) and
    its value, by linear programming (scipy.optimize.linprog, HiGHS): maximise v subject to
    x'A >= v for every column, x >= 0, sum x = 1. For a symmetric game (A = -A') this is a
    symmetric Nash equilibrium and v = 0."""
    from scipy.optimize import linprog

    payoff = np.asarray(payoff, dtype=float)
    k = payoff.shape[0]
    cost = np.zeros(k + 1)
    cost[-1] = -1.0  # maximise v
    upper = np.hstack([-payoff.T, np.ones((payoff.shape[1], 1))])  # v - x'A_j <= 0
    equal = np.hstack([np.ones((1, k)), np.zeros((1, 1))])
    bounds = [(0, None)] * k + [(None, None)]
    fit = linprog(
        cost, A_ub=upper, b_ub=np.zeros(payoff.shape[1]), A_eq=equal, b_eq=[1.0], bounds=bounds
    )
    mix = np.clip(fit.x[:k], 0, None)
    return mix / mix.sum(), float(fit.x[-1])


def shared_nash_mix(payoff: np.ndarray) -> tuple[np.ndarray, float]:
    """``nash_mix`` with the weight of strategies that cannot be told apart shared equally.

    Two strategies whose payoff rows are identical (to ``SAME_PAYOFF``: a share and its
    complement differ in the last bits) (a clone and its twin under the paired
    design: the same record against everyone, exactly even against each other) are one
    strategy of the meta-game: any split of their weight is an equilibrium, and the linear
    program would hand all of it to one of them. The game is solved with one of each such
    class, and its weight split evenly among the class."""
    payoff = np.asarray(payoff, dtype=float)
    k = payoff.shape[0]
    first: list[int] = []  # the class's first strategy, per strategy
    for i in range(k):
        same = [
            j
            for j in range(i)
            if first[j] == j and np.allclose(payoff[i], payoff[j], rtol=0, atol=SAME_PAYOFF)
        ]
        first.append(same[0] if same else i)
    keep = sorted(set(first))
    if len(keep) == k:
        return nash_mix(payoff)
    weights, value = nash_mix(payoff[np.ix_(keep, keep)])
    mix = np.zeros(k)
    for pos, i in enumerate(keep):
        members = [j for j in range(k) if first[j] == i]
        mix[members] = weights[pos] / len(members)
    return mix, value


def duels(seats: pd.DataFrame) -> pd.DataFrame:
    """One row per 2-player game between two different strategies: ``a`` < ``b`` by name and
    ``a_ahead`` = 1 if a finished ahead (R22: score, destinations reached, big cities), 0 if
    behind, 0.5 on a full tie."""
    two = seats[seats["players"] == 2]
    columns = ["strategy", "score", "reached", "n_big_cities"]
    index = [*GAME, "seed"] if "seed" in two else GAME  # the seed: the game's deal
    wide = two.pivot_table(index=index, columns="seat", values=columns, aggfunc="first")
    if wide.empty or 1 not in wide["score"].columns:
        return pd.DataFrame(columns=[*index, "a", "b", "a_ahead"])
    wide = wide[wide[("strategy", 0)] != wide[("strategy", 1)]]
    ahead = np.full(len(wide), 0.5)
    decided = np.zeros(len(wide), dtype=bool)
    for key in columns[1:]:
        zero, one = wide[(key, 0)].to_numpy(float), wide[(key, 1)].to_numpy(float)
        ahead = np.where(~decided & (zero > one), 1.0, ahead)
        ahead = np.where(~decided & (zero < one), 0.0, ahead)
        decided |= zero != one
    first = wide[("strategy", 0)].to_numpy()
    second = wide[("strategy", 1)].to_numpy()
    swap = first > second
    out = wide.index.to_frame(index=False)
    out["a"] = np.where(swap, second, first)
    out["b"] = np.where(swap, first, second)
    out["a_ahead"] = np.where(swap, 1 - ahead, ahead)
    return out


def _complete(pairs: dict[tuple[str, str], np.ndarray]) -> tuple[list[str], list[str]]:
    """Strategies whose every pair met, dropping the one missing most pairs until complete."""
    names = sorted({n for pair in pairs for n in pair})
    dropped = []
    while len(names) >= 2:
        missing = {
            n: sum((min(n, m), max(n, m)) not in pairs for m in names if m != n) for n in names
        }
        worst = max(names, key=lambda n: (missing[n], n))
        if missing[worst] == 0:
            break
        names.remove(worst)
        dropped.append(worst)
    return names, dropped


def _payoff(names: list[str], means: dict[tuple[str, str], float]) -> np.ndarray:
    """Antisymmetric payoff P(row ahead of column) - 0.5."""
    k = len(names)
    payoff = np.zeros((k, k))
    for i, j in combinations(range(k), 2):
        payoff[i, j] = means[(names[i], names[j])] - 0.5
        payoff[j, i] = -payoff[i, j]
    return payoff


def _resampled_means(values: np.ndarray, draws: int, rng: np.random.Generator) -> np.ndarray:
    """Means of ``draws`` resamples of the games, with replacement."""
    return values[rng.integers(0, len(values), (draws, len(values)))].mean(axis=1)


def _deal_resampled_means(
    games: pd.DataFrame, keys: list[tuple[str, str]], draws: int, rng: np.random.Generator
) -> dict[tuple[str, str], np.ndarray]:
    """Each pair's mean over ``draws`` resamples of the deals (one resample for every pair):
    the deals drawn with replacement, each pair's games of a drawn deal counted as often as
    it was drawn, so pairs that share deals keep what they share."""
    deal_codes, deals = pd.factorize(games["seed"])
    sums = np.zeros((len(keys), len(deals)))
    counts = np.zeros((len(keys), len(deals)))
    for row, (a, b) in enumerate(keys):
        mine = ((games["a"] == a) & (games["b"] == b)).to_numpy()
        sums[row] = np.bincount(
            deal_codes[mine], weights=games["a_ahead"].to_numpy(float)[mine], minlength=len(deals)
        )
        counts[row] = np.bincount(deal_codes[mine], minlength=len(deals))
    drawn = rng.integers(0, len(deals), (draws, len(deals)))
    times = np.stack([np.bincount(d, minlength=len(deals)) for d in drawn]).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = (times @ sums.T) / (times @ counts.T)
    whole = sums.sum(axis=1) / counts.sum(axis=1)  # a pair none of whose deals was drawn
    means = np.where(np.isnan(means), whole[None, :], means)
    return {key: means[:, row] for row, key in enumerate(keys)}


def meta_game(seats: pd.DataFrame, draws: int = BOOT_DRAWS, seed: int = BOOT_SEED) -> pd.DataFrame:
    """The equilibrium mix of the symmetric 2-player zero-sum meta-game whose payoff is
    P(A ahead of B) - 0.5, from the 2-player head-to-head (``weight``; strategies that cannot
    be told apart share their weight, ``shared_nash_mix``), and its sampling uncertainty: a
    bootstrap (``draws`` draws, numpy Generator seeded with ``seed``) of the games of each
    pair, or, where pairs share deals (a paired study), of the deals, every pair's games of
    a deal drawn together: mean weight, 95% percentile interval, and how often the strategy
    has positive weight (``share_positive``)."""
    games = duels(seats)
    pairs = {key: g["a_ahead"].to_numpy(float) for key, g in games.groupby(["a", "b"])}
    names, dropped = _complete(pairs)
    if len(names) < 2:
        return pd.DataFrame()
    keys = [(a, b) for a, b in combinations(names, 2)]
    weight, value = shared_nash_mix(_payoff(names, {k: pairs[k].mean() for k in keys}))
    rng = np.random.default_rng(seed)
    if "seed" in games and games["seed"].duplicated().any():
        boot = _deal_resampled_means(games, keys, draws, rng)
    else:
        boot = {k: _resampled_means(pairs[k], draws, rng) for k in keys}
    mixes = np.array(
        [shared_nash_mix(_payoff(names, {k: boot[k][d] for k in keys}))[0] for d in range(draws)]
    )
    n_games = {n: sum(len(pairs[k]) for k in keys if n in k) for n in names}
    table = pd.DataFrame(
        {
            "players": 2,
            "strategy": names,
            "n_games": [n_games[n] for n in names],
            "weight": weight,
            "boot_mean": mixes.mean(axis=0),
            "ci_low": np.percentile(mixes, 2.5, axis=0),
            "ci_high": np.percentile(mixes, 97.5, axis=0),
            "share_positive": (mixes > 1e-6).mean(axis=0),
            "draws": draws,
            "value": value + 0.0,  # no "-0.0"
            "left_out": ", ".join(dropped),
        }
    )
    order = ["weight", "boot_mean", "strategy"]
    return table.sort_values(order, ascending=[False, False, True]).reset_index(drop=True)
