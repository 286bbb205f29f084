"""Plackett-Luce ratings: each strategy's strength per player count from every table's
final ranking, the test of pooling the player counts, every pair of strategies compared
(rating differences and win shares paired by game, each with its verdict against a practical
margin, Bonferroni per player count and method) and the strategies at the top. Method and
references: docs/statistics.md.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as sps

from .intervals import (
    GAME,
    Z95,
    cluster_codes,
    deal_codes,
    deal_one_sample,
    game_deals,
    game_table,
    repeated,
)
from .level import current_alpha
from .margins import DEFAULT_MARGINS, judge
from .wins import BASELINES, per_game_shares

SCALE = "log-odds; 0 = mean of the non-random strategies rated"


def rank_matrix(seats: pd.DataFrame, labels: list[str]) -> np.ndarray:
    """One row per game: strategy indices in finishing order (R22; ties left after it are
    ordered by seat), padded with -1. A strategy may appear more than once in a row. Rows
    come in (cell, game_index) order."""
    codes, found = pd.factorize(seats["strategy"])
    strategy = np.array([labels.index(s) if s in labels else -1 for s in found], int)[codes]
    score, reached, big, seat = (
        seats[name].to_numpy(np.int64) for name in ("score", "reached", "n_big_cities", "seat")
    )
    # the finishing order as one number, higher first: score, reached, bonuses won, then
    # the lower seat (never negative: an empty place of the table below is -1)
    strength = score - score.min(initial=0)
    for value in (reached, big, seat.max(initial=0) - seat):
        strength = strength * (int(value.max(initial=0)) + 1) + value
    if not len(seats):
        return np.full((0, 0), -1, dtype=int)
    game, place, order = game_table(seats)
    table = np.full((int(game[-1]) + 1, int(place.max()) + 1), -1, dtype=np.int64)
    table[game, place] = strength[order]
    # each seat's finishing place: how many seats of its game finished ahead of it
    finish = (table[:, None, :] > table[:, :, None]).sum(axis=2)
    out = np.full(table.shape, -1, dtype=int)
    out[game, finish[game, place]] = strategy[order]
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


def _pl_scores(theta: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """Each ranking's score (gradient of its log-likelihood) at ``theta``: one row per
    ranking, one column per strategy (the rows of ``_pl_terms``' gradient, unsummed)."""
    k = len(theta)
    idx = np.where(ranks < 0, k, ranks)
    th = np.append(theta, -np.inf)[idx]
    scores = np.zeros((len(ranks), k + 1))
    for place in range(ranks.shape[1] - 1):
        rows = np.flatnonzero(ranks[:, place] >= 0)
        sub, ids = th[rows, place:], idx[rows, place:]
        e = np.exp(sub - sub.max(axis=1, keepdims=True))
        p = e / e.sum(axis=1, keepdims=True)
        # each row once per step: indexed addition, not np.add.at, adds the same
        scores[rows, ids[:, 0]] += 1.0
        for m in range(ids.shape[1]):
            scores[rows, ids[:, m]] -= p[:, m]
    return scores[:, :k]


def _deal_sandwich(
    theta: np.ndarray, info: np.ndarray, ranks: np.ndarray, deals: np.ndarray
) -> tuple[np.ndarray, int]:
    """The covariance of the strengths clustered by deal: H^-1 (sum over deals of the deal's
    score total times its transpose) H^-1, with G/(G-1) (the CR1 sandwich of Liang and Zeger
    1986 for a likelihood; Cameron and Miller 2015), and its G - 1 degrees of freedom."""
    codes = cluster_codes(deals)
    g = int(codes.max()) + 1
    scores = _pl_scores(theta, ranks)
    totals = np.column_stack(
        [np.bincount(codes, weights=scores[:, j], minlength=g) for j in range(len(theta))]
    )
    bread = np.linalg.pinv(info)
    return g / max(g - 1, 1) * bread @ (totals.T @ totals) @ bread, g - 1


def exchangeable(ranks: np.ndarray, deals: np.ndarray, a: int, b: int) -> bool:
    """Whether swapping strategies ``a`` and ``b`` leaves every deal's rankings as they were:
    the two cannot be told apart by these games (a clone and its twin under the default
    design, each playing the other's games). Never so where every deal is one game, unless
    neither ever played."""
    touched = ((ranks == a) | (ranks == b)).any(axis=1)
    if not touched.any():  # the swap changes nothing: neither played
        return True
    # a row without a or b is its own swap: the (deal, ranking) rows with either decide
    ranks, deals = ranks[touched], np.asarray(deals)[touched]
    swapped = np.where(ranks == a, b, np.where(ranks == b, a, ranks))
    return _same_rows(np.column_stack([deals, ranks]), np.column_stack([deals, swapped]))


def _exchangeable_pairs(ranks: np.ndarray, deals: np.ndarray, k: int) -> list[tuple[int, int]]:
    """The pairs (a, b), a < b < k, that are ``exchangeable``. Only a pair whose strategies
    hold the same places of the same deals equally often can be: that count, taken once per
    strategy, sets the others aside without comparing rows."""
    deals = cluster_codes(deals).astype(np.int64)  # the same deals, numbered 0..G-1
    width = ranks.shape[1]
    where = deals[:, None] * width + np.arange(width)[None, :]
    places = [np.sort(where[ranks == i]) for i in range(k)]
    return [
        (a, b)
        for a in range(k)
        for b in range(a + 1, k)
        if np.array_equal(places[a], places[b]) and exchangeable(ranks, deals, a, b)
    ]


def _same_rows(rows: np.ndarray, other: np.ndarray) -> bool:
    """Whether two integer matrices (non-negative first column, the rest -1 and up) hold the
    same rows as many times each, in any order: each row read as one number where they fit
    in 62 bits, else rows sorted lexicographically."""
    width = rows.shape[1]
    base = int(max(rows[:, 1:].max(initial=0), other[:, 1:].max(initial=0))) + 2
    deals = int(max(rows[:, 0].max(initial=0), other[:, 0].max(initial=0))) + 1
    if deals * base ** (width - 1) < 2**62:
        keys = []
        for matrix in (rows, other):
            key = matrix[:, 0].astype(np.int64)
            for place in range(1, width):
                key = key * base + (matrix[:, place] + 1)
            keys.append(np.sort(key))
        return bool(np.array_equal(keys[0], keys[1]))
    order = np.lexsort(rows.T[::-1])
    other_order = np.lexsort(other.T[::-1])
    return bool(np.array_equal(rows[order], other[other_order]))


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
    """Identical rankings counted once, with their count as weight, in the rankings' order
    (as ``np.unique(ranks, axis=0)`` gives them): each ranking read as one number whose
    digits are its places, so a count, not a sort of rows, finds them."""
    base = int(ranks.max(initial=-1)) + 2
    width = ranks.shape[1]
    if base**width > 2**24:  # too many possible rankings to count: sort the rows
        unique, counts = np.unique(ranks, axis=0, return_counts=True)
        return unique, counts.astype(float)
    code = np.zeros(len(ranks), np.int64)
    for place in range(width):
        code = code * base + (ranks[:, place] + 1)
    counts = np.bincount(code, minlength=base**width)
    seen = np.flatnonzero(counts)
    digits = (seen[:, None] // base ** np.arange(width - 1, -1, -1)[None, :]) % base
    return digits.astype(ranks.dtype) - 1, counts[seen].astype(float)


def pl_fit(ranks: np.ndarray, labels: list[str], deals: np.ndarray | None = None) -> dict:
    """Plackett-Luce strengths with their covariance, anchored on the non-baseline mean.

    A strategy whose seats never finished behind (or never ahead of) another rated strategy
    has no finite strength: it is left out, with a note, and the rest refitted (repeatedly).
    If the remaining comparisons still do not link every strategy both ways, none is rated.

    ``deals`` (one per ranking): where some deal holds several games (a paired study), the
    covariance is the sandwich clustered by deal (``df`` deals - 1) instead of the inverse
    information, which takes every game for independent; strategies that cannot be told
    apart (``exchangeable``) get one strength and are ``tied``.
    """
    from scipy.sparse.csgraph import connected_components

    k = len(labels)
    present = [i for i in range(k) if (ranks == i).any()]
    tables = {i: int((ranks == i).any(axis=1).sum()) for i in present}
    seats = {i: int((ranks == i).sum()) for i in present}
    notes: dict[int, str] = {}
    active = list(present)
    rounds = 0
    while len(active) >= 2:
        among = "" if rounds == 0 else " left once the separated ones were set aside"
        rounds += 1
        beats = _beats(*_compact(_restrict(ranks, active)), len(active))
        won, lost = beats.sum(axis=1), beats.sum(axis=0)
        out = []
        for pos, i in enumerate(active):
            if lost[pos] == 0:
                notes[i] = (
                    f"finished ahead of every other strategy{among} at all {tables[i]} of "
                    "its tables: no finite strength"
                )
                out.append(i)
            elif won[pos] == 0:
                notes[i] = (
                    f"finished behind every other strategy{among} at all {tables[i]} of "
                    "its tables: no finite strength"
                )
                out.append(i)
        if not out:
            break
        active = [i for i in active if i not in out]
    theta = np.full(k, np.nan)
    cov = np.full((k, k), np.nan)
    loglik = np.nan
    clustered = deals is not None and repeated(deals)
    df = np.inf
    tied: set[frozenset[int]] = set()
    if len(active) >= 2:
        ranks_a, weights = _compact(_restrict(ranks, active))
        beats = _beats(ranks_a, weights, len(active))
        if connected_components(beats > 0, directed=True, connection="strong")[0] > 1:
            for i in active:
                notes[i] = "its comparisons do not link it both ways to every strategy: no strength"
        else:
            point, loglik, info = _pl_mle(ranks_a, weights, len(active))
            covariance = np.linalg.pinv(info)
            if clustered:
                assert deals is not None
                restricted = _restrict(ranks, active)
                for pos, b_pos in _exchangeable_pairs(restricted, deals, len(active)):
                    tied.add(frozenset((active[pos], active[b_pos])))
                for pos, a in enumerate(active):  # one strength for each class of ties
                    twins = [p for p, b in enumerate(active) if frozenset((a, b)) in tied]
                    if twins and pos < min(twins):
                        point[[pos, *twins]] = point[[pos, *twins]].mean()
                covariance, df = _deal_sandwich(point, info, restricted, deals)
            anchor = np.array([labels[i] not in BASELINES for i in active], dtype=float)
            anchor = anchor if anchor.sum() else np.ones(len(active))
            centre = np.eye(len(active)) - np.outer(np.ones(len(active)), anchor / anchor.sum())
            theta[active] = centre @ point
            cov[np.ix_(active, active)] = centre @ covariance @ centre.T
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
        "n_deals": len(pd.unique(deals)) if clustered and deals is not None else None,
        "df": float(df),
        "tied": tied,
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
        var = fit["cov"][i, i]
        se = float(np.sqrt(max(var, 0.0))) if np.isfinite(var) else np.nan
        strength = float(fit["theta"][i])
        df = fit.get("df", np.inf)
        q = Z95 if np.isinf(df) else float(sps.t.ppf(0.975, df))
        rows.append(
            {
                "players": players,
                "strategy": fit["labels"][i],
                "n_tables": fit["tables"][i],
                "n_seats": fit["seats"][i],
                "strength": strength,
                "se": se,
                "ci_low": strength - q * se,
                "ci_high": strength + q * se,
                "anchor": SCALE,
                "note": fit["notes"].get(i, ""),
            }
        )
    return rows


def rating_fits(seats: pd.DataFrame) -> dict:
    """The Plackett-Luce fit of each player count (computed once, shared by ``ratings``,
    ``pooling_test`` and ``pairwise``)."""
    labels = sorted(seats["strategy"].unique())
    return {
        int(players): pl_fit(rank_matrix(group, labels), labels, game_deals(group))
        for players, group in seats.groupby("players")
    }


def ratings(seats: pd.DataFrame, fits: dict | None = None) -> pd.DataFrame:
    """Plackett-Luce strengths per player count, fitted by maximum likelihood over every
    table's final ranking, a strategy sitting twice at a table counting as two seats of the
    same strength. Wald 95% intervals from the observed information.

    Scale: log-odds; exp(a - b) is the odds that a seat of a finishes ahead of a seat of b.
    Anchor: the mean of the non-random strategies is 0. ``rank`` orders the rated strategies
    per player count, strongest first; unrated ones (a ``note`` says why) have no rank.
    """
    rows = [
        row
        for players, fit in (fits if fits is not None else rating_fits(seats)).items()
        for row in _rating_rows(fit, players)
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


def pooling_test(seats: pd.DataFrame, fits: dict | None = None) -> pd.DataFrame:
    """Likelihood-ratio test that one set of strengths fits every player count (no strategy x
    player-count interaction): Plackett-Luce per count against one pooled fit, over the
    strategies rated at every count; df = sum over counts of (k_p - 1) minus (k - 1)."""
    columns = ["players", "strategies", "lr", "df", "p_value", "pooling_justified"]
    fits = fits if fits is not None else rating_fits(seats)
    if len(fits) < 2:
        return pd.DataFrame(columns=columns)
    labels = sorted(seats["strategy"].unique())
    rated = [set(np.flatnonzero(np.isfinite(f["theta"]))) for f in fits.values()]
    common = sorted(int(i) for i in set.intersection(*rated))
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
                "pooling_justified": p >= current_alpha(),
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


def pooled_fit(seats: pd.DataFrame) -> dict:
    """One Plackett-Luce fit over every player count's tables (clustered by deal where the
    study is paired: a deal is one player count's)."""
    labels = sorted(seats["strategy"].unique())
    deals = [game_deals(group) for _, group in seats.groupby("players")]
    offsets = np.cumsum([0] + [int(d.max(initial=-1)) + 1 for d in deals[:-1]])
    shifted = [d + o for d, o in zip(deals, offsets, strict=True)]
    return pl_fit(_pooled_ranks(seats, labels), labels, np.concatenate(shifted))


def pooled_ratings(seats: pd.DataFrame, fit: dict | None = None) -> pd.DataFrame:
    """One Plackett-Luce fit over all player counts (``players`` = "pooled"): shown only
    beside ``pooling_test``, which says whether one strength per strategy fits every count."""
    if seats.empty:
        return pd.DataFrame(columns=RATING_COLUMNS)
    fit = fit if fit is not None else pooled_fit(seats)
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
    "df",
    "test",
]
RATING_METHOD = "rating difference (Plackett-Luce, Wald)"
WIN_METHOD = "win share per seat, paired by game (t)"


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
                df = fit.get("df", np.inf)
                if frozenset((a, b)) in fit.get("tied", ()):  # they cannot be told apart
                    diff, se, p = 0.0, 0.0, 1.0
                elif se > 0:
                    tail = sps.norm.sf(diff / se) if np.isinf(df) else sps.t.sf(diff / se, df)
                    p = float(2 * tail)
                else:
                    p = np.nan
                half = (Z95 if np.isinf(df) else float(sps.t.ppf(0.975, df))) * se
                rows.append(
                    {
                        "players": players,
                        "strategy": fit["labels"][hi],
                        "opponent": fit["labels"][lo],
                        "n_games": fit["n_tables"],
                        "difference": diff,
                        "ci_low": diff - half,
                        "ci_high": diff + half,
                        "p_value": p,
                        "method": RATING_METHOD,
                        "df": df,
                        "test": "Wald z" if np.isinf(df) else "Wald t, clustered by deal",
                    }
                )
    return rows


def _games_by_strategy(
    group: pd.DataFrame, index: list[str]
) -> tuple[np.ndarray, list[str], np.ndarray]:
    """The rows of one game and strategy (``per_game_shares``) as a games x strategies table
    of ``per_seat``, NaN where a strategy did not play: the games sorted by ``index`` (a
    category by its categories' order), the strategies by name, as
    ``pivot_table(index=index, columns="strategy")`` lays them out; with the names and each
    game's first row."""
    keys = []
    for name in index:
        column = group[name]
        if isinstance(column.dtype, pd.CategoricalDtype):
            keys.append(column.cat.codes.to_numpy(np.int64))
        else:
            keys.append(pd.factorize(column, sort=True)[0].astype(np.int64))
    order = np.lexsort(keys[::-1])
    change = np.zeros(len(order), bool)
    change[:1] = True
    for key in keys:
        ordered = key[order]
        change[1:] |= ordered[1:] != ordered[:-1]
    game = np.empty(len(order), np.int64)
    game[order] = np.cumsum(change) - 1
    codes, names = pd.factorize(group["strategy"], sort=True)
    values = np.full((int(change.sum()), len(names)), np.nan)
    values[game, codes] = group["per_seat"].to_numpy(float)
    return values, [str(name) for name in names], order[change]


def _win_pairs(seats: pd.DataFrame, unit: pd.DataFrame | None = None) -> list[dict]:
    """Per pair at the same tables: the difference of their win share per seat, paired by
    game (t interval over the games both played; clustered by deal where games share one).
    ``unit``: ``per_game_shares(seats)`` where the caller has it (left as it is)."""
    unit = (per_game_shares(seats) if unit is None else unit).copy(deep=False)
    unit["per_seat"] = unit["win"] / unit["seats"]
    index = [*GAME, "seed"] if "seed" in unit else GAME
    rows = []
    for players, group in unit.groupby("players"):
        values, names, first = _games_by_strategy(group, index)
        deal_of = (
            deal_codes(pd.DataFrame({"players": players, "seed": group["seed"].to_numpy()[first]}))
            if "seed" in group
            else np.arange(len(first))
        )
        present = ~np.isnan(values)
        for pos, a in enumerate(names):
            for b_pos in range(pos + 1, len(names)):
                b = names[b_pos]
                met = present[:, pos] & present[:, b_pos]
                if met.sum() < 2:
                    continue
                deals = deal_of[met]
                mine, theirs = values[met, pos], values[met, b_pos]
                hi, lo = (a, b) if mine.mean() >= theirs.mean() else (b, a)
                delta = mine - theirs if hi == a else theirs - mine
                diff, low, high, p, df = deal_one_sample(delta, deals)
                test = "paired t" if not repeated(deals) else "paired t, clustered by deal"
                if np.isnan(p) and np.isfinite(low):  # every game (deal) the same difference
                    units = len(pd.unique(deals))
                    p = float(sps.binomtest(units, units).pvalue)
                    test = "exact sign test (every game the same difference)"
                rows.append(
                    {
                        "players": players,
                        "strategy": hi,
                        "opponent": lo,
                        "n_games": int(met.sum()),
                        "difference": diff,
                        "ci_low": low,
                        "ci_high": high,
                        "p_value": p,
                        "method": WIN_METHOD,
                        "df": df,
                        "test": test,
                    }
                )
    return rows


def pooled_pairwise(
    seats: pd.DataFrame, margins: dict[str, float] | None = None, fit: dict | None = None
) -> pd.DataFrame:
    """The pooled fit's rating differences (every player count in one Plackett-Luce fit),
    stronger first, with their verdicts: the test behind any pooled ranking (Bonferroni over
    the pairs)."""
    margins = margins or DEFAULT_MARGINS
    if seats.empty:
        return judge(pd.DataFrame(columns=PAIRWISE_COLUMNS), 0.0, [])
    fit = fit if fit is not None else pooled_fit(seats)
    columns = [c for c in PAIRWISE_COLUMNS if c not in ("p_adjusted", "significant")]
    table = pd.DataFrame(_rating_pairs({"pooled": fit}), columns=columns)
    table = judge(
        table,
        margins["log_odds"],
        ["players"],
        df="df",
        family_name="the pairs of strategies, player counts pooled",
    )
    table["significant"] = table["p_adjusted"] < current_alpha()
    return table.sort_values("difference", ascending=False).reset_index(drop=True)


LEADER_COLUMNS = """
    players leaders verdict basis runner_up difference family_low family_high p_adjusted
    p_equivalence_adjusted margin needed family_size n_games
""".split()


SWAP_BASIS = "line-up swaps (same opponents, seats and deals)"


def swap_contrasts(swaps: pd.DataFrame | None) -> pd.DataFrame:
    """The win-share line-up swaps as contrasts of both orders (a - b and b - a), in the
    columns of a pairwise table, ``n_games`` the pairs of games compared."""
    if swaps is None or swaps.empty:
        return pd.DataFrame(columns=["players", "strategy", "opponent", *LEADER_COLUMNS[5:]])
    win = swaps[swaps["metric"] == "win_share"].copy()
    win["n_games"] = win["n_pairs"]
    mirror = win.copy()
    mirror["strategy"], mirror["opponent"] = win["opponent"], win["strategy"]
    for column in ("difference", "family_low", "family_high"):
        mirror[column] = -win[column]
    mirror["family_low"], mirror["family_high"] = -win["family_high"], -win["family_low"]
    return pd.concat([win, mirror], ignore_index=True)


def _top_contrast(
    ratings: pd.DataFrame, swaps: pd.DataFrame, other: str
) -> tuple[pd.Series | None, str]:
    """The top's contrast with ``other`` that decides: its line-up swap where there is one,
    else its rating difference; and which it is."""
    swap = swaps[swaps["opponent"] == other]
    if len(swap):
        return swap.iloc[0], SWAP_BASIS
    row = ratings[ratings["opponent"] == other]
    return (row.iloc[0] if len(row) else None), "rating difference"


def leaders(
    ratings: pd.DataFrame, pairs: pd.DataFrame, swaps: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Per player count (or "pooled"): the strongest strategy only when it is separated from
    every other one, else every strategy not separated from the top, tied: ``verdict``
    *practically equal* when each of them is practically equal to the top, else *not yet
    known*. A strategy that finished ahead of every other at all its tables (no finite
    rating) leads by separation. The row also holds the top-versus-runner-up contrast the
    sentences quote.

    The top is the highest rating. Where the study is paired and the top and another
    strategy swap in line-ups with the same opponents (``swaps``: reports/swaps.py, win share,
    the deal as unit), that deal-paired comparison decides whether they are separated (the
    ``basis``): it compares them on the same deals, seats and opponents, so a clone and its
    twin differ by exactly 0. It separates the top only when the top is ahead; a swap that
    puts the other ahead leaves both at the top, not yet known. Pairs without a swap are
    judged by their rating difference."""
    from .margins import DIFFERENT, EQUAL, UNKNOWN

    contrasts = pairs[pairs["method"] == RATING_METHOD] if len(pairs) else pairs
    swapped = swap_contrasts(swaps)
    rows = []
    for players, group in ratings.groupby("players", sort=False):
        ahead = group[group["note"].str.startswith("finished ahead of every other strategy at")]
        if len(ahead):
            rows.append(
                {
                    "players": players,
                    "leaders": ahead.iloc[0]["strategy"],
                    "verdict": DIFFERENT,
                    "basis": "separation",
                }
            )
            continue
        rated = group.dropna(subset=["strength"]).sort_values("strength", ascending=False)
        if len(rated) < 2:
            continue
        top = rated.iloc[0]["strategy"]
        here = contrasts[(contrasts["players"] == players) & (contrasts["strategy"] == top)]
        swap_here = swapped[(swapped["players"] == players) & (swapped["strategy"] == top)]
        tied, verdicts = [top], []
        for other in rated["strategy"].iloc[1:]:
            row, basis = _top_contrast(here, swap_here, other)
            if row is None:
                v = UNKNOWN
            elif basis == SWAP_BASIS and row["verdict"] == DIFFERENT and row["difference"] < 0:
                v = UNKNOWN  # the swap puts the other ahead: no leader
            else:
                v = row["verdict"]
            if v != DIFFERENT:
                tied.append(other)
                verdicts.append(v)
        runner, basis = _top_contrast(here, swap_here, rated.iloc[1]["strategy"])
        c = runner if runner is not None else pd.Series(dtype=object)
        verdict = (
            DIFFERENT
            if len(tied) == 1
            else (EQUAL if all(v == EQUAL for v in verdicts) else UNKNOWN)
        )
        rows.append(
            {
                "players": players,
                "leaders": ", ".join(tied),
                "verdict": verdict,
                "basis": basis,  # of the contrast quoted, top against runner-up
                "runner_up": rated.iloc[1]["strategy"],
                **{k: c.get(k, np.nan) for k in LEADER_COLUMNS[5:]},
            }
        )
    return pd.DataFrame(rows, columns=LEADER_COLUMNS)


def pairwise(
    seats: pd.DataFrame,
    margins: dict[str, float] | None = None,
    fits: dict | None = None,
    unit: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Every pair of strategies per player count, stronger first: the rating difference
    (variance Var a + Var b - 2 Cov ab from the fitted covariance) and the paired win-share
    difference; each family (player count x method) corrected with Bonferroni, so that each
    pair's verdict against the practical margin (reports/margins.py: 0.1 log-odds, 2 points
    of win share) is read off its family interval. ``unit``: ``per_game_shares(seats)``
    where the caller has it."""
    margins = margins or DEFAULT_MARGINS
    fits = fits if fits is not None else rating_fits(seats)
    rows = _rating_pairs(fits) + _win_pairs(seats, unit)
    base = [c for c in PAIRWISE_COLUMNS if c not in ("p_adjusted", "significant")]
    table = pd.DataFrame(rows, columns=base)
    if table.empty:
        return judge(pd.DataFrame(columns=PAIRWISE_COLUMNS), 0.0, [])
    parts = []
    methods = ((RATING_METHOD, margins["log_odds"]), (WIN_METHOD, margins["win_share"]))
    for method, margin in methods:
        part = table[table["method"] == method]
        if not part.empty:
            parts.append(
                judge(
                    part,
                    margin,
                    ["players"],
                    df="df",
                    family_name="the pairs of strategies at one player count",
                )
            )
    table = pd.concat(parts)
    table["significant"] = table["p_adjusted"] < current_alpha()
    columns = PAIRWISE_COLUMNS + [c for c in table.columns if c not in PAIRWISE_COLUMNS]
    return (
        table[columns]
        .sort_values(["method", "players", "difference"], ascending=[True, True, False])
        .reset_index(drop=True)
    )
