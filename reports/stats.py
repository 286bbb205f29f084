"""Statistics as functions: tidy DataFrame in, tidy DataFrame out, no plotting.

The game is the unit (docs/statistics.md): the seats of one game are not independent, so
every interval and test on seat rows either works on one value per game or clusters by game
(cluster-robust CR1 errors). Counts say what they count: ``n_games``, ``n_seats``,
``n_tables``, ``n_pairs``. Comparisons between strategies are tests of the contrast itself,
Holm-corrected over each family of pairs (``p_adjusted``); intervals are 95%.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as sps

Z95 = 1.959963984540054
MIN_OFF_TREND = 2.0  # points: a smaller gap from the trend is not worth a designer's time
ALPHA = 0.05
GAME = ["cell", "game_index"]
BASELINES = frozenset({"random"})  # reference players: never part of the "field" or the anchor
CORRECTION = "Holm"
SCALE = "log-odds; 0 = mean of the non-random strategies rated"


# ------------------------------------------------------------------ intervals
def wilson(successes: float | np.ndarray, n: float | np.ndarray, z: float = Z95):
    """Wilson score interval (Wilson 1927); fractional successes (shared wins) allowed."""
    successes = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = successes / n
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # rounding removes float dust (1e-18 where the bound is exactly 0 or 1)
    return np.clip(np.round(centre - half, 12), 0, 1), np.clip(np.round(centre + half, 12), 0, 1)


def mean_ci(values: pd.Series) -> tuple[int, float, float, float]:
    """(n, mean, ci_low, ci_high): Student t 95% interval for the mean of independent values."""
    values = pd.Series(values, dtype=float).dropna()
    n = len(values)
    if n == 0:
        return 0, np.nan, np.nan, np.nan
    mean = float(values.mean())
    if n < 2:
        return n, mean, np.nan, np.nan
    half = float(sps.t.ppf(0.975, n - 1) * values.std(ddof=1) / np.sqrt(n))
    return n, mean, mean - half, mean + half


def one_sample(values) -> tuple[float, float, float, float]:
    """(mean, ci_low, ci_high, p): Student t interval and t-test of mean 0 over independent
    values (numpy, as scipy.stats.ttest_1samp computes it, without its per-call overhead).

    Values that never vary give no test: p is 1 when they are all 0, else NaN (a
    separation the caller must say in words)."""
    values = np.asarray(values, dtype=float)
    values = values[~np.isnan(values)]
    n = len(values)
    if n == 0:
        return np.nan, np.nan, np.nan, np.nan
    mean = float(values.mean())
    if n < 2:
        return mean, np.nan, np.nan, np.nan
    sd = float(values.std(ddof=1))
    if sd == 0:
        return mean, mean, mean, 1.0 if mean == 0 else np.nan
    se = sd / np.sqrt(n)
    half = float(sps.t.ppf(0.975, n - 1) * se)
    p = float(2 * sps.t.sf(abs(mean / se), n - 1))
    return mean, mean - half, mean + half, p


def game_ids(frame: pd.DataFrame) -> np.ndarray:
    """An integer per game (cell, game_index): the cluster of every seat row."""
    return frame.groupby(GAME, sort=False).ngroup().to_numpy()


def _cluster_fit(y: np.ndarray, x: np.ndarray, groups: np.ndarray):
    """OLS with cluster-robust (CR1) covariance by game and t with G-1 degrees of freedom."""
    import statsmodels.api as sm

    return sm.OLS(y, x).fit(cov_type="cluster", cov_kwds={"groups": groups}, use_t=True)


def cluster_mean(values, groups) -> tuple[float, float, float]:
    """(mean, ci_low, ci_high) of seat rows, the interval clustered by game (statsmodels OLS on
    a constant, cov_type="cluster"). A column that never varies gets its value as interval."""
    y = np.asarray(values, dtype=float)
    groups = np.asarray(groups)
    if len(y) == 0:
        return np.nan, np.nan, np.nan
    mean = float(y.mean())
    if len(np.unique(groups)) < 2:
        return mean, np.nan, np.nan
    if np.ptp(y) == 0:
        return mean, mean, mean
    low, high = _cluster_fit(y, np.ones((len(y), 1)), groups).conf_int()[0]
    return mean, float(low), float(high)


def cluster_difference(values, flag, groups) -> tuple[float, float, float, float]:
    """(difference, ci_low, ci_high, p): mean of the flagged rows minus the others, from OLS
    of the values on a constant and the flag with errors clustered by game."""
    y = np.asarray(values, dtype=float)
    x = np.asarray(flag, dtype=float)
    groups = np.asarray(groups)
    if x.sum() < 2 or (1 - x).sum() < 2 or len(np.unique(groups)) < 2:
        return np.nan, np.nan, np.nan, np.nan
    diff = float(y[x == 1].mean() - y[x == 0].mean())
    if np.ptp(y) == 0:
        return diff, diff, diff, 1.0
    fit = _cluster_fit(y, np.column_stack([np.ones_like(x), x]), groups)
    low, high = fit.conf_int()[1]
    return float(fit.params[1]), float(low), float(high), float(fit.pvalues[1])


def adjust(p_values: pd.Series) -> pd.Series:
    """Holm's step-down correction (statsmodels multipletests); NaN p-values stay NaN."""
    from statsmodels.stats.multitest import multipletests

    p_values = pd.Series(p_values, dtype=float)
    out = pd.Series(np.nan, index=p_values.index)
    known = p_values.dropna()
    if len(known) == 1:  # Holm over one test is the test itself (and multipletests is slow)
        out[known.index] = known
    elif len(known):
        out[known.index] = multipletests(known.to_numpy(), method="holm")[1]
    return out


def _mean_table(frame: pd.DataFrame, by: list[str], column: str) -> pd.DataFrame:
    """Means of one row per game (independent rows): Student t intervals, ``n_games``."""
    rows = []
    for key, group in frame.groupby(by, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        n, mean, low, high = mean_ci(group[column])
        rows.append(
            {
                **dict(zip(by, key, strict=True)),
                "n_games": n,
                "mean": mean,
                "ci_low": low,
                "ci_high": high,
            }
        )
    return pd.DataFrame(rows)


def _cluster_mean_table(frame: pd.DataFrame, by: list[str], column: str) -> pd.DataFrame:
    """Means of seat rows: intervals clustered by game, ``n_games`` and ``n_seats``."""
    rows = []
    for key, group in frame.groupby(by, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        values = group[column].astype(float)
        ids = game_ids(group)
        mean, low, high = cluster_mean(values, ids)
        rows.append(
            {
                **dict(zip(by, key, strict=True)),
                "n_games": len(np.unique(ids)),
                "n_seats": len(values),
                "mean": mean,
                "ci_low": low,
                "ci_high": high,
            }
        )
    return pd.DataFrame(rows)


# ------------------------------------------------------------------ strategies
def per_game_shares(seats: pd.DataFrame) -> pd.DataFrame:
    """One row per game and strategy: its seats, ``win`` (its seats' win shares summed), the
    ``fair`` share (seats / players) and the ``field`` share: what it would win if every
    non-baseline seat at that table were equally strong (the baseline keeps what it won)."""
    unit = (
        seats.groupby(["players", *GAME, "strategy"], sort=True)
        .agg(seats=("win_share", "size"), win=("win_share", "sum"))
        .reset_index()
    )
    baseline = seats[seats["strategy"].isin(BASELINES)]
    base = baseline.groupby(GAME).agg(
        base_seats=("win_share", "size"), base_win=("win_share", "sum")
    )
    unit = unit.join(base, on=GAME)
    unit[["base_seats", "base_win"]] = unit[["base_seats", "base_win"]].fillna(0.0)
    unit["fair"] = unit["seats"] / unit["players"]
    field_seats = unit["players"] - unit["base_seats"]
    field = unit["seats"] * (1 - unit["base_win"]) / field_seats.where(field_seats > 0)
    unit["field"] = field.where(~unit["strategy"].isin(BASELINES))
    return unit


def _record_note(wins: float, n_games: int, fair: float) -> str:
    if fair >= 1:
        return "the only strategy at its tables: nothing to compare"
    if wins >= n_games:
        return f"won every game, n={n_games}"
    if wins <= 0:
        return f"won no game, n={n_games}"
    return ""


def win_rates(seats: pd.DataFrame) -> pd.DataFrame:
    """Win rate per strategy and player count, the game as unit: ``rate`` is the share of its
    games it won (its seats' win shares summed per game; a k-way shared win counts 1/k), with
    a Wilson interval over ``n_games``.

    ``fair`` is its seats / players (a strategy no better than its table); ``field`` is the
    share it would win if all non-random seats were equally strong, and ``vs_field`` its
    excess over that, paired per game (t interval over games), tested against 0 with Holm's
    correction over the strategies of each player count (``p_adjusted``, ``significant``).

    Games in which a strategy held every seat tell nothing about it: they are left out
    (``n_alone`` counts them) unless it never met another strategy.
    """
    unit = per_game_shares(seats)
    rows = []
    for (players, strategy), every in unit.groupby(["players", "strategy"], sort=True):
        alone = every["fair"] >= 1
        group = every if alone.all() else every[~alone]
        n_games, wins = len(group), float(group["win"].sum())
        low, high = wilson(wins, n_games)
        excess, ex_low, ex_high, p = one_sample(group["win"] - group["field"])
        rows.append(
            {
                "players": players,
                "strategy": strategy,
                "n_games": n_games,
                "n_seats": int(group["seats"].sum()),
                "n_alone": int(alone.sum()) if not alone.all() else 0,
                "wins": wins,
                "rate": wins / n_games,
                "ci_low": float(low),
                "ci_high": float(high),
                "fair": float(group["fair"].mean()),
                "field": float(group["field"].mean()),
                "vs_field": excess,
                "vs_field_ci_low": ex_low,
                "vs_field_ci_high": ex_high,
                "p_value": p,
                "note": _record_note(wins, n_games, float(group["fair"].min())),
            }
        )
    table = pd.DataFrame(rows)
    if table.empty:
        return table
    table["p_adjusted"] = table.groupby("players")["p_value"].transform(adjust)
    table["significant"] = table["p_adjusted"] < ALPHA
    table["correction"] = f"{CORRECTION} over the strategies at each player count"
    return table.sort_values(["players", "rate"], ascending=[True, False]).reset_index(drop=True)


def _ahead(pairs: pd.DataFrame) -> np.ndarray:
    """1 where the seat finished ahead of the other (score, then reached, then big cities:
    R22), 0 where behind, 0.5 on a full tie."""
    ahead = np.full(len(pairs), 0.5)
    decided = np.zeros(len(pairs), dtype=bool)
    for key in ("score", "reached", "n_big_cities"):
        mine, theirs = pairs[key].to_numpy(), pairs[f"{key}_other"].to_numpy()
        ahead = np.where(~decided & (mine > theirs), 1.0, ahead)
        ahead = np.where(~decided & (mine < theirs), 0.0, ahead)
        decided |= mine != theirs
    return ahead


def head_to_head(seats: pd.DataFrame) -> pd.DataFrame:
    """Per player count and ordered pair of strategies at the same table: the share of their
    games in which the first finished ahead of the second.

    The game is the unit: within a game the value is the share of its seat pairs won (a tie
    counts one half); ``rate`` averages it over ``n_games``, with a Wilson interval over games
    and the score test of 0.5 (its inversion; conservative when ties or repeated seats make a
    game's value fractional). ``p_adjusted``: Holm over the pairs of each player count.
    """
    left = seats[[*GAME, "players", "strategy", "seat", "score", "reached", "n_big_cities"]]
    pairs = left.merge(left, on=[*GAME, "players"], suffixes=("", "_other"))
    pairs = pairs[pairs["strategy"] != pairs["strategy_other"]]
    pairs = pairs.assign(ahead=_ahead(pairs)).rename(columns={"strategy_other": "opponent"})
    per_game = (
        pairs.groupby(["players", "strategy", "opponent", *GAME])["ahead"]
        .agg(["mean", "size"])
        .reset_index()
    )
    table = (
        per_game.groupby(["players", "strategy", "opponent"])
        .agg(n_games=("mean", "size"), n_pairs=("size", "sum"), successes=("mean", "sum"))
        .reset_index()
    )
    table["rate"] = table["successes"] / table["n_games"]
    table["ci_low"], table["ci_high"] = wilson(table["successes"], table["n_games"])
    z = (table["rate"] - 0.5) / np.sqrt(0.25 / table["n_games"])
    table["p_value"] = 2 * sps.norm.sf(np.abs(z))
    # one test per unordered pair: (a, b) and (b, a) share it
    names = table[["strategy", "opponent"]]
    pair = names.min(axis=1) + "|" + names.max(axis=1)
    once = table.assign(pair=pair).drop_duplicates(["players", "pair"])
    adjusted = once.groupby("players")["p_value"].transform(adjust)
    lookup = pd.Series(
        adjusted.to_numpy(), index=pd.MultiIndex.from_frame(once[["players", "pair"]])
    )
    where = pd.MultiIndex.from_arrays([table["players"], pair])
    table["p_adjusted"] = lookup.reindex(where).to_numpy()
    table["significant"] = table["p_adjusted"] < ALPHA
    return table


# ------------------------------------------------------------------ Plackett-Luce ratings
def rank_matrix(seats: pd.DataFrame, labels: list[str]) -> np.ndarray:
    """One row per game: strategy indices in finishing order (R22; ties left after it are
    ordered by seat), padded with -1. A strategy may appear more than once in a row."""
    index = {label: i for i, label in enumerate(labels)}
    ordered = seats.sort_values(
        [*GAME, "score", "reached", "n_big_cities", "seat"],
        ascending=[True, True, False, False, False, True],
    )
    grouped = ordered.groupby(GAME, sort=False)
    game, place = grouped.ngroup().to_numpy(), grouped.cumcount().to_numpy()
    out = np.full((game.max() + 1, place.max() + 1), -1, dtype=int)
    out[game, place] = ordered["strategy"].map(index).to_numpy()
    return out


def _pl_terms(theta: np.ndarray, ranks: np.ndarray, weights: np.ndarray, hessian: bool):
    """Log-likelihood, gradient and observed information of Plackett-Luce over rankings that
    may repeat a strategy: the product over places of exp(theta_i) / sum of exp(theta) over
    the seats still in the race. -1 entries are absent seats."""
    k = len(theta)
    idx = np.where(ranks < 0, k, ranks)
    th = np.append(theta, -np.inf)[idx]
    loglik, grad, info = 0.0, np.zeros(k + 1), np.zeros((k + 1, k + 1))
    eye = np.eye(k + 1)
    for place in range(ranks.shape[1] - 1):
        valid = ranks[:, place] >= 0
        sub, ids, w = th[valid, place:], idx[valid, place:], weights[valid]
        top = sub.max(axis=1, keepdims=True)
        e = np.exp(sub - top)
        total = e.sum(axis=1, keepdims=True)
        p = e / total
        loglik += float(np.sum(w * (sub[:, 0] - top[:, 0] - np.log(total[:, 0]))))
        onehot = eye[ids]  # seats x places left x strategies
        probs = np.einsum("rm,rmk->rk", p, onehot)  # chance each strategy is placed next
        grad += w @ onehot[:, 0, :] - w @ probs
        if hessian:
            weighted = w[:, None] * probs
            info += np.diag(weighted.sum(axis=0)) - probs.T @ weighted
    return loglik, grad[:k], info[:k, :k]


def _pl_mle(ranks: np.ndarray, weights: np.ndarray, k: int):
    """Maximum likelihood by scipy's trust-region Newton (exact Hessian); the likelihood
    ignores a common shift, so a penalty (sum theta)^2 / 2 fixes the sum at 0."""
    from scipy.optimize import minimize

    def objective(theta):
        loglik, grad, _ = _pl_terms(theta, ranks, weights, hessian=False)
        return -loglik + 0.5 * theta.sum() ** 2, -grad + theta.sum()

    def hess(theta):
        return _pl_terms(theta, ranks, weights, hessian=True)[2] + 1.0

    fit = minimize(objective, np.zeros(k), jac=True, hess=hess, method="trust-exact")
    loglik, _, info = _pl_terms(fit.x, ranks, weights, hessian=True)
    return fit.x, loglik, info


def _beats(ranks: np.ndarray, weights: np.ndarray, k: int) -> np.ndarray:
    """beats[i, j]: how often a seat of strategy i finished ahead of a seat of strategy j."""
    idx = np.where(ranks < 0, k, ranks)
    beats = np.zeros((k + 1, k + 1))
    for a in range(ranks.shape[1]):
        for b in range(a + 1, ranks.shape[1]):
            np.add.at(beats, (idx[:, a], idx[:, b]), weights)
    np.fill_diagonal(beats, 0)
    return beats[:k, :k]


def _restrict(ranks: np.ndarray, keep: list[int]) -> np.ndarray:
    """The rankings of the strategies in ``keep`` only, renumbered 0..len(keep)-1. Removing
    items from a Plackett-Luce ranking leaves a Plackett-Luce ranking of the rest."""
    mapping = np.full(ranks.max(initial=0) + 2, -1)
    mapping[keep] = np.arange(len(keep))
    return np.where(ranks < 0, -1, mapping[np.where(ranks < 0, -1, ranks)])


def _compact(ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Identical rankings counted once, with their count as weight."""
    unique, counts = np.unique(ranks, axis=0, return_counts=True)
    return unique, counts.astype(float)


def pl_fit(ranks: np.ndarray, labels: list[str]) -> dict:
    """Plackett-Luce strengths with their covariance, anchored on the non-baseline mean.

    A strategy whose seats never finished behind (or never ahead of) another rated strategy
    has no finite strength: it is left out, with a note, and the rest refitted (repeatedly).
    If the remaining comparisons still do not link every strategy both ways, none is rated.
    """
    from scipy.sparse.csgraph import connected_components

    k = len(labels)
    present = [i for i in range(k) if (ranks == i).any()]
    tables = {i: int((ranks == i).any(axis=1).sum()) for i in present}
    seats = {i: int((ranks == i).sum()) for i in present}
    notes: dict[int, str] = {}
    active = list(present)
    while len(active) >= 2:
        beats = _beats(*_compact(_restrict(ranks, active)), len(active))
        won, lost = beats.sum(axis=1), beats.sum(axis=0)
        out = []
        for pos, i in enumerate(active):
            if lost[pos] == 0:
                notes[i] = (
                    f"finished ahead of every other strategy at all {tables[i]} of its "
                    "tables: no finite strength"
                )
                out.append(i)
            elif won[pos] == 0:
                notes[i] = (
                    f"finished behind every other strategy at all {tables[i]} of its "
                    "tables: no finite strength"
                )
                out.append(i)
        if not out:
            break
        active = [i for i in active if i not in out]
    theta = np.full(k, np.nan)
    cov = np.full((k, k), np.nan)
    loglik = np.nan
    if len(active) >= 2:
        ranks_a, weights = _compact(_restrict(ranks, active))
        beats = _beats(ranks_a, weights, len(active))
        if connected_components(beats > 0, directed=True, connection="strong")[0] > 1:
            for i in active:
                notes[i] = "its comparisons do not link it both ways to every strategy: no strength"
        else:
            point, loglik, info = _pl_mle(ranks_a, weights, len(active))
            anchor = np.array([labels[i] not in BASELINES for i in active], dtype=float)
            anchor = anchor if anchor.sum() else np.ones(len(active))
            centre = np.eye(len(active)) - np.outer(np.ones(len(active)), anchor / anchor.sum())
            theta[active] = centre @ point
            cov[np.ix_(active, active)] = centre @ np.linalg.pinv(info) @ centre.T
    elif len(active) == 1 and not notes:
        notes[active[0]] = "the only strategy at its tables: nothing to compare"
    return {
        "labels": labels,
        "present": present,
        "theta": theta,
        "cov": cov,
        "loglik": loglik,
        "notes": notes,
        "tables": tables,
        "seats": seats,
        "n_tables": int((ranks >= 0).any(axis=1).sum()),
    }


RATING_COLUMNS = [
    "players",
    "strategy",
    "n_tables",
    "n_seats",
    "strength",
    "se",
    "ci_low",
    "ci_high",
    "rank",
    "anchor",
    "note",
]


def _rating_rows(fit: dict, players) -> list[dict]:
    rows = []
    for i in fit["present"]:
        se = float(np.sqrt(fit["cov"][i, i])) if np.isfinite(fit["cov"][i, i]) else np.nan
        strength = float(fit["theta"][i])
        rows.append(
            {
                "players": players,
                "strategy": fit["labels"][i],
                "n_tables": fit["tables"][i],
                "n_seats": fit["seats"][i],
                "strength": strength,
                "se": se,
                "ci_low": strength - Z95 * se,
                "ci_high": strength + Z95 * se,
                "anchor": SCALE,
                "note": fit["notes"].get(i, ""),
            }
        )
    return rows


def _rating_fits(seats: pd.DataFrame) -> dict:
    labels = sorted(seats["strategy"].unique())
    return {
        int(players): pl_fit(rank_matrix(group, labels), labels)
        for players, group in seats.groupby("players")
    }


def ratings(seats: pd.DataFrame) -> pd.DataFrame:
    """Plackett-Luce strengths per player count, fitted by maximum likelihood over every
    table's final ranking, a strategy sitting twice at a table counting as two seats of the
    same strength. Wald 95% intervals from the observed information.

    Scale: log-odds; exp(a - b) is the odds that a seat of a finishes ahead of a seat of b.
    Anchor: the mean of the non-random strategies is 0. ``rank`` orders the rated strategies
    per player count, strongest first; unrated ones (a ``note`` says why) have no rank.
    """
    rows = [
        row for players, fit in _rating_fits(seats).items() for row in _rating_rows(fit, players)
    ]
    return _ranked(pd.DataFrame(rows, columns=[c for c in RATING_COLUMNS if c != "rank"]))


def _ranked(table: pd.DataFrame) -> pd.DataFrame:
    table = table.sort_values(["players", "strength"], ascending=[True, False], na_position="last")
    table = table.reset_index(drop=True)
    rank = table.groupby("players")["strength"].rank(ascending=False, method="first")
    table.insert(8, "rank", rank.astype("Int64"))
    return table


def _pooled_ranks(seats: pd.DataFrame, labels: list[str]) -> np.ndarray:
    """Every player count's rankings in one matrix (shorter ones padded with -1)."""
    parts = [rank_matrix(group, labels) for _, group in seats.groupby("players")]
    width = max(part.shape[1] for part in parts)
    return np.vstack(
        [np.pad(p, ((0, 0), (0, width - p.shape[1])), constant_values=-1) for p in parts]
    )


def pooling_test(seats: pd.DataFrame) -> pd.DataFrame:
    """Likelihood-ratio test that one set of strengths fits every player count (no strategy x
    player-count interaction): Plackett-Luce per count against one pooled fit, over the
    strategies rated at every count; df = sum over counts of (k_p - 1) minus (k - 1)."""
    columns = ["players", "strategies", "lr", "df", "p_value", "pooling_justified"]
    fits = _rating_fits(seats)
    if len(fits) < 2:
        return pd.DataFrame(columns=columns)
    labels = sorted(seats["strategy"].unique())
    rated = [set(np.flatnonzero(np.isfinite(f["theta"]))) for f in fits.values()]
    common = sorted(set.intersection(*rated))
    if len(common) < 2:
        return pd.DataFrame(columns=columns)
    blocks = [_restrict(rank_matrix(g, labels), common) for _, g in seats.groupby("players")]
    lr, df, p = pooling_lr(blocks, len(common))
    return pd.DataFrame(
        [
            {
                "players": ", ".join(str(count) for count in fits),
                "strategies": ", ".join(labels[i] for i in common),
                "lr": lr,
                "df": df,
                "p_value": p,
                "pooling_justified": p >= ALPHA,
            }
        ]
    )


def pooling_lr(blocks: list[np.ndarray], k: int) -> tuple[float, int, float]:
    """(LR statistic, df, p): Plackett-Luce fitted per block (player count) against one fit
    over all blocks, for ``k`` strategies present in every block."""
    separate = sum(_pl_mle(*_compact(block), k)[1] for block in blocks)
    width = max(block.shape[1] for block in blocks)
    stacked = np.vstack(
        [np.pad(b, ((0, 0), (0, width - b.shape[1])), constant_values=-1) for b in blocks]
    )
    pooled = _pl_mle(*_compact(stacked), k)[1]
    lr = max(2 * (separate - pooled), 0.0)
    df = (k - 1) * (len(blocks) - 1)
    return lr, df, float(sps.chi2.sf(lr, df))


def pooled_ratings(seats: pd.DataFrame) -> pd.DataFrame:
    """One Plackett-Luce fit over all player counts (``players`` = "pooled"): shown only
    beside ``pooling_test``, which says whether one strength per strategy fits every count."""
    labels = sorted(seats["strategy"].unique())
    if seats.empty:
        return pd.DataFrame(columns=RATING_COLUMNS)
    fit = pl_fit(_pooled_ranks(seats, labels), labels)
    return _ranked(
        pd.DataFrame(
            _rating_rows(fit, "pooled"), columns=[c for c in RATING_COLUMNS if c != "rank"]
        )
    )


PAIRWISE_COLUMNS = [
    "players",
    "strategy",
    "opponent",
    "n_games",
    "difference",
    "ci_low",
    "ci_high",
    "p_value",
    "p_adjusted",
    "significant",
    "method",
]


def _rating_pairs(fits: dict) -> list[dict]:
    rows = []
    for players, fit in fits.items():
        rated = [i for i in fit["present"] if np.isfinite(fit["theta"][i])]
        for pos, a in enumerate(rated):
            for b in rated[pos + 1 :]:
                hi, lo = (a, b) if fit["theta"][a] >= fit["theta"][b] else (b, a)  # stronger first
                diff = float(fit["theta"][hi] - fit["theta"][lo])
                cov = fit["cov"]
                se = float(np.sqrt(max(cov[hi, hi] + cov[lo, lo] - 2 * cov[hi, lo], 0.0)))
                p = float(2 * sps.norm.sf(diff / se)) if se > 0 else np.nan
                rows.append(
                    {
                        "players": players,
                        "strategy": fit["labels"][hi],
                        "opponent": fit["labels"][lo],
                        "n_games": fit["n_tables"],
                        "difference": diff,
                        "ci_low": diff - Z95 * se,
                        "ci_high": diff + Z95 * se,
                        "p_value": p,
                        "method": "rating difference (Plackett-Luce, Wald)",
                    }
                )
    return rows


def _win_pairs(seats: pd.DataFrame) -> list[dict]:
    """Per pair at the same tables: the difference of their win share per seat, paired by
    game (t interval over the games both played)."""
    unit = per_game_shares(seats)
    unit["per_seat"] = unit["win"] / unit["seats"]
    rows = []
    for players, group in unit.groupby("players"):
        wide = group.pivot_table(index=GAME, columns="strategy", values="per_seat")
        names = list(wide.columns)
        for pos, a in enumerate(names):
            for b in names[pos + 1 :]:
                both = wide[[a, b]].dropna()
                if len(both) < 2:
                    continue
                hi, lo = (a, b) if both[a].mean() >= both[b].mean() else (b, a)
                diff, low, high, p = one_sample(both[hi] - both[lo])
                rows.append(
                    {
                        "players": players,
                        "strategy": hi,
                        "opponent": lo,
                        "n_games": len(both),
                        "difference": diff,
                        "ci_low": low,
                        "ci_high": high,
                        "p_value": p,
                        "method": "win share per seat, paired by game (t)",
                    }
                )
    return rows


def pairwise(seats: pd.DataFrame) -> pd.DataFrame:
    """Every pair of strategies per player count, stronger first: the rating difference
    (variance Var a + Var b - 2 Cov ab from the fitted covariance) and the paired win-share
    difference, each family (player count x method) Holm-corrected."""
    rows = _rating_pairs(_rating_fits(seats)) + _win_pairs(seats)
    table = pd.DataFrame(
        rows, columns=[c for c in PAIRWISE_COLUMNS if c not in ("p_adjusted", "significant")]
    )
    if table.empty:
        return pd.DataFrame(columns=PAIRWISE_COLUMNS)
    table["p_adjusted"] = table.groupby(["players", "method"])["p_value"].transform(adjust)
    table["significant"] = table["p_adjusted"] < ALPHA
    return (
        table[PAIRWISE_COLUMNS]
        .sort_values(["method", "players", "difference"], ascending=[True, True, False])
        .reset_index(drop=True)
    )


def score_parts(seats: pd.DataFrame) -> pd.DataFrame:
    """Mean score parts per strategy and player count; intervals clustered by game."""
    parts = []
    for part in ("score", "destination_points", "penalties", "bonus_points"):
        table = _cluster_mean_table(seats, ["players", "strategy"], part)
        table.insert(2, "part", part)
        parts.append(table)
    return pd.concat(parts, ignore_index=True)


# ------------------------------------------------------------------ seats
def _score_test(group: pd.DataFrame) -> tuple[str, float, float]:
    """Scores by seat blocked by game: Friedman's rank test within games (3+ seats), the exact
    sign test at 2 seats (Friedman's test for two seats is the sign test)."""
    wide = group.pivot_table(index=GAME, columns="seat", values="score").dropna()
    if len(wide) < 2:
        return "", np.nan, np.nan
    if wide.shape[1] >= 3:
        result = sps.friedmanchisquare(*(wide[c].to_numpy() for c in wide.columns))
        return "Friedman", float(result.statistic), float(result.pvalue)
    diff = wide.iloc[:, 0] - wide.iloc[:, 1]
    ahead, behind = int((diff > 0).sum()), int((diff < 0).sum())
    if ahead + behind == 0:
        return "sign test", np.nan, 1.0
    return "sign test", float(ahead), float(sps.binomtest(ahead, ahead + behind).pvalue)


def seat_advantage(seats: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Win rate and mean score by seat per player count, and tests of equality across seats.

    Each game has one row per seat, so a seat's rate is over independent games (Wilson). The
    wins test is the chi-square of the winning seat's counts, one count per game (with one
    winner per game this is exactly Cochran's Q over the games' winner indicators); the score
    test is blocked by game (Friedman, or the sign test at 2 players)."""
    wins = (
        seats.groupby(["players", "seat"])["win_share"]
        .agg(successes="sum", n_games="size")
        .reset_index()
    )
    wins["rate"] = wins["successes"] / wins["n_games"]
    wins["ci_low"], wins["ci_high"] = wilson(wins["successes"], wins["n_games"])
    scores = _mean_table(seats, ["players", "seat"], "score").rename(
        columns={"mean": "mean_score", "ci_low": "score_ci_low", "ci_high": "score_ci_high"}
    )
    table = wins.merge(scores.drop(columns="n_games"), on=["players", "seat"])
    table["fair"] = 1.0 / table["players"]
    tests = []
    for players, group in seats.groupby("players"):
        by_seat = group.groupby("seat")["win_share"].sum()
        chi2 = sps.chisquare(by_seat.to_numpy()) if by_seat.sum() > 0 else None
        method, statistic, p = _score_test(group)
        tests.append(
            {
                "players": players,
                "n_games": int(group[GAME].drop_duplicates().shape[0]),
                "wins_chi2": float(chi2.statistic) if chi2 else np.nan,
                "wins_p": float(chi2.pvalue) if chi2 else np.nan,
                "score_test": method,
                "score_statistic": statistic,
                "score_p": p,
            }
        )
    tests = pd.DataFrame(tests)
    tests["wins_significant"] = tests["wins_p"] < ALPHA
    tests["score_significant"] = tests["score_p"] < ALPHA
    return table, tests


# ------------------------------------------------------------------ destinations
def destination_balance(destinations: pd.DataFrame, min_kept: int = 20) -> pd.DataFrame:
    """Per player count and destination card: keep rate, completion, net points, and a flag
    only where a card is out of line with cards of its printed points and trains beyond the
    card-to-card spread (see reports/destinations.py and docs/statistics.md)."""
    from .destinations import card_balance

    return card_balance(destinations, min_kept)


# ------------------------------------------------------------------ big cities
def big_cities(seats: pd.DataFrame, cities: list[str]) -> pd.DataFrame:
    """Per big city and player count: how often its bonus is won, how often shared, and the
    win-rate lift of winning it: win share of the seats that won it minus the others, with a
    95% interval and p-value clustered by game (OLS on the holder flag, CR1 errors)."""
    rows = []
    for players, group in seats.groupby("players"):
        ids = game_ids(group)
        games = len(np.unique(ids))
        split = group["big_cities"].fillna("").str.split("|")
        for city in cities:
            holders = split.apply(lambda xs, c=city: c in xs).to_numpy()
            per_game = pd.Series(holders).groupby(ids).sum()
            awarded = int((per_game >= 1).sum())
            shared = int((per_game >= 2).sum())
            lift, low, high, p = cluster_difference(group["win_share"], holders, ids)
            award_low, award_high = wilson(awarded, games)
            share_low, share_high = wilson(shared, max(awarded, 1))
            rows.append(
                {
                    "players": players,
                    "city": city,
                    "n_games": games,
                    "awarded": awarded,
                    "award_rate": awarded / games,
                    "award_ci_low": float(award_low),
                    "award_ci_high": float(award_high),
                    "shared": shared,
                    "shared_rate": shared / awarded if awarded else np.nan,
                    "shared_ci_low": float(share_low),
                    "shared_ci_high": float(share_high),
                    "n_seats_with": int(holders.sum()),
                    "n_seats_without": int((~holders).sum()),
                    "win_lift": lift,
                    "lift_ci_low": low,
                    "lift_ci_high": high,
                    "lift_p": p,
                }
            )
    return pd.DataFrame(rows)


def _difference(a: pd.Series, b: pd.Series) -> tuple[float, float, float]:
    """Difference of means of two independent samples with a Welch 95% interval."""
    if len(a) < 2 or len(b) < 2:
        return np.nan, np.nan, np.nan
    diff = float(a.mean() - b.mean())
    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    se = float(np.sqrt(va + vb))
    if se == 0:
        return diff, diff, diff
    dof = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
    half = float(sps.t.ppf(0.975, dof) * se)
    return diff, diff - half, diff + half


# ------------------------------------------------------------------ game length
def game_length(games: pd.DataFrame) -> pd.DataFrame:
    """Steals per game, turns and simulated minutes per player count (t intervals, one value
    per game)."""
    ok = games[~games["failed"]]
    tables = []
    for metric in ("steals", "turns", "sim_minutes"):
        table = _mean_table(ok, ["players"], metric)
        table.insert(1, "metric", metric)
        tables.append(table)
    return pd.concat(tables, ignore_index=True)


def round_shares(seats: pd.DataFrame) -> pd.DataFrame:
    """For games of two rounds: the share of destination points reached in each round (one
    value per game)."""
    two = seats[seats["round2_points"].notna()]
    if two.empty:
        return pd.DataFrame(columns=["players", "round", "n_games", "mean", "ci_low", "ci_high"])
    per_game = two.groupby(["players", *GAME])[["round1_points", "round2_points"]].sum()
    total = per_game.sum(axis=1)
    per_game = per_game[total > 0]
    share = per_game["round1_points"] / per_game.sum(axis=1)
    rows = []
    for players, values in share.groupby(level="players"):
        n, mean, low, high = mean_ci(values)
        rows.append(
            {
                "players": players,
                "round": 1,
                "n_games": n,
                "mean": mean,
                "ci_low": low,
                "ci_high": high,
            }
        )
        rows.append(
            {
                "players": players,
                "round": 2,
                "n_games": n,
                "mean": 1 - mean,
                "ci_low": 1 - high,
                "ci_high": 1 - low,
            }
        )
    return pd.DataFrame(rows)


# ------------------------------------------------------------------ variants
POWER = 0.8  # the power at which the smallest detectable effect is stated
VARIANT_COLUMNS = [
    "variant", "players", "metric", "method", "n_games", "n_games_base", "n_pairs", "n_deals",
    "base",
    "value", "difference", "ci_low", "ci_high", "sd_difference", "p_value", "q_value",
    "significant", "detectable", "correction",
]  # fmt: skip
VARIANT_CORRECTION = "Benjamini-Hochberg"


def detectable_effect(se: float, dof: float, power: float = POWER) -> float:
    """The smallest true difference a two-sided 5% t-test finds with ``power``:
    (t_{0.975,dof} + t_{power,dof}) * se (the normal formula with t quantiles)."""
    if not np.isfinite(se) or not np.isfinite(dof) or dof < 1:
        return np.nan
    return float((sps.t.ppf(1 - ALPHA / 2, dof) + sps.t.ppf(power, dof)) * se)


def paired_difference(differences) -> dict[str, float]:
    """Mean of per-pair differences with its t 95% interval, t-test of 0 and the smallest
    effect detectable at 80% power (the pair, not the seat, is the unit)."""
    values = np.asarray(differences, dtype=float)
    values = values[~np.isnan(values)]
    n = len(values)
    mean, low, high, p = one_sample(values)
    sd = float(values.std(ddof=1)) if n > 1 else np.nan
    se = sd / np.sqrt(n) if n > 1 else np.nan
    return {
        "n_pairs": n, "difference": mean, "ci_low": low, "ci_high": high, "p_value": p,
        "sd_difference": sd, "detectable": detectable_effect(se, n - 1),
    }  # fmt: skip


def welch_difference(a, b) -> dict[str, float]:
    """Difference of means of two independent samples: Welch 95% interval and test, and the
    smallest effect detectable at 80% power with these sample sizes."""
    a = pd.Series(a, dtype=float).dropna()
    b = pd.Series(b, dtype=float).dropna()
    diff, low, high = _difference(a, b)
    out = {"n_pairs": 0, "difference": diff, "ci_low": low, "ci_high": high,
           "p_value": np.nan, "sd_difference": np.nan, "detectable": np.nan}  # fmt: skip
    if len(a) < 2 or len(b) < 2:
        return out
    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    if va + vb > 0:
        dof = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
        out["p_value"] = float(sps.ttest_ind(a, b, equal_var=False).pvalue)
        out["detectable"] = detectable_effect(float(np.sqrt(va + vb)), float(dof))
    elif diff == 0:
        out["p_value"] = 1.0
    return out


def _per_game_mean(seats: pd.DataFrame, column: str) -> pd.DataFrame:
    """The seats of a game averaged: the game, not the seat, is the unit of a comparison."""
    return seats.groupby(["variant", "players", *GAME], as_index=False)[column].mean()


def _variant_metrics(games: pd.DataFrame, seats: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """One value per finished game for each metric: columns variant, players, value, and
    (when the tables have them) cell, game_index, seed and ``match`` (the line-up part of
    the cell key, which a variant game shares with its base game)."""
    ok = games[~games["failed"]]
    ids = [c for c in (*GAME, "seed") if c in ok]
    if set(GAME) <= set(ok):
        seats = seats.merge(ok[GAME], on=GAME)  # seats of finished games only
    frames = {
        metric: ok[["variant", "players", *ids, metric]]
        for metric in ("turns", "sim_minutes", "steals")
    }
    frames["mean_score"] = _per_game_mean(seats, "score")
    frames["first_seat_win_share"] = seats[seats["seat"] == 0][
        ["variant", "players", *GAME, "win_share"]
    ]
    frames["unreached_per_seat"] = _per_game_mean(seats, "unreached")
    out = {}
    for metric, frame in frames.items():
        frame = frame.rename(columns={frame.columns[-1]: "value"})
        if "seed" in ok and "seed" not in frame and set(GAME) <= set(ok):
            frame = frame.merge(ok[[*GAME, "seed"]], on=GAME)
        frame = frame.assign(value=frame["value"].astype(float))
        if "cell" in frame:
            frame = frame.assign(match=frame["cell"].str.split("/", n=1).str[1])
        out[metric] = frame
    return out


def _pairs(here: pd.DataFrame, there: pd.DataFrame) -> pd.DataFrame | None:
    """Variant and base games matched by (line-up, game index) when every match shares its
    seed (a paired study: same deal, same seating); None when the games are independent."""
    if not {"seed", "match", "game_index"} <= set(here):
        return None
    joined = here.merge(there, on=["match", "game_index"], suffixes=("", "_base"))
    if joined.empty or not (joined["seed"] == joined["seed_base"]).all():
        return None
    return joined


def _same_as_base(rules: dict | None, variant: str, base: str, players: int) -> bool:
    """Whether the study's rules (the manifest's ``variants``) make ``variant`` the base game
    at ``players``: results made before variants were limited to their counts hold such
    games, and their differences are noise."""
    from cardgame import Rules
    from sims.study import same_rules_at

    if not rules or variant not in rules or base not in rules:
        return False
    try:
        mine, theirs = ({k: v for k, v in rules[x].items() if k != "players"}
                        for x in (variant, base))  # fmt: skip
        return same_rules_at(Rules.from_dict(mine), Rules.from_dict(theirs), players)
    except Exception:  # rules this version cannot read: keep the rows
        return False


def variant_effects(
    games: pd.DataFrame, seats: pd.DataFrame, base: str = "base", rules: dict | None = None
) -> pd.DataFrame:
    """Each variant's difference from the base game per player count and metric (turns,
    simulated minutes, steals, mean score, seat 1's win share, destinations left unreached
    per seat), only at player counts where the variant was played.

    Paired studies (docs/data.md) compare game i of the variant with game i of the base
    game (same deal, line-up and seating). Line-ups of a player count replay the same deals,
    so the pair differences are averaged per deal (``seed``) and the deal is the unit: mean
    difference with a t interval and paired t-test over ``n_deals`` (``method`` "paired t";
    ``n_pairs`` counts the game pairs). Otherwise the games are independent samples:
    Welch interval and test ("Welch t"). Seat metrics are averaged per game first. Many
    differences are tested at once, so ``significant`` is Benjamini-Hochberg q < 0.05 over
    the whole table (``q_value``). ``detectable`` is the smallest difference the test finds
    with 80% power at the 5% level, so "no significant difference" comes with its size.
    ``rules`` (the manifest's variants) drops counts where a variant equals base."""
    if base not in set(games["variant"]) or games["variant"].nunique() < 2:
        return pd.DataFrame(columns=VARIANT_COLUMNS)
    metrics = _variant_metrics(games, seats)
    rows = []
    for variant in sorted(set(games["variant"]) - {base}):
        for players in sorted(set(games["players"])):
            for metric, frame in metrics.items():
                at = frame[frame["players"] == players]
                here, there = at[at["variant"] == variant], at[at["variant"] == base]
                if here.empty or there.empty or _same_as_base(rules, variant, base, players):
                    continue  # the variant is not played (or changes nothing) at this count
                pairs = _pairs(here, there)
                if pairs is not None:
                    # line-ups of a player count share their deals: the deal is the unit
                    per_deal = (pairs["value"] - pairs["value_base"]).groupby(pairs["seed"])
                    result = paired_difference(per_deal.mean())
                    result["n_deals"], result["n_pairs"] = result["n_pairs"], len(pairs)
                    method = "paired t"
                else:
                    result = {**welch_difference(here["value"], there["value"]), "n_deals": 0}
                    method = "Welch t"
                rows.append(
                    {
                        "variant": variant, "players": players, "metric": metric,
                        "method": method, "n_games": len(here), "n_games_base": len(there),
                        "base": float(there["value"].mean()),
                        "value": float(here["value"].mean()), **result,
                    }
                )  # fmt: skip
    if not rows:
        return pd.DataFrame(columns=VARIANT_COLUMNS)
    table = pd.DataFrame(rows)
    # a metric that never varies gives no p-value: it counts as no evidence (p = 1)
    p_values = table["p_value"].fillna(1.0).to_numpy()
    table["q_value"] = sps.false_discovery_control(p_values, method="bh")
    table["significant"] = table["q_value"] < ALPHA
    table["correction"] = VARIANT_CORRECTION
    return table[VARIANT_COLUMNS]
