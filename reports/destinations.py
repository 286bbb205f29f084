"""Destination cards: what each card is worth at each player count, and which are out of line.

Per player count and card: keep rate when offered, completion rate when kept and mean net
points when kept, each with a 95% interval in which the GAME is the unit (seats of one game
share its deal, so rows are clustered by game).

Net points when kept are +-points, so a card's value against cards of the same printed
points and trains is a question about its completion: a random-effects meta-regression of
the cards' logit completion on printed points and trains, per player count, with the
card-to-card variance tau^2 estimated from the data (DerSimonian-Laird). A card is flagged
only when its leave-one-out deviation, against tau^2 + its own sampling variance + the
prediction's variance, survives Holm's correction over every card tested in the report
(all player counts together, family-wise error 5%). Method and references:
docs/statistics.md, "Destination cards".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sps

from .intervals import holm, wilson
from .level import ALPHA, current_alpha  # noqa: F401  (ALPHA: the nominal level)
from .offers import clustered, pooled

POWER = 0.8  # of the smallest deviation a study could have found (detectable_z)
MIN_KEPT = 20  # a card kept fewer times is described but neither fitted nor tested
FLAG_OVER = "over-rewarded (earns more than cards of its points and trains)"
FLAG_UNDER = "under-rewarded (earns less than cards of its points and trains)"


# ------------------------------------------------------------------ card data
def dominated(cards: Iterable[Any]) -> pd.DataFrame:
    """Cards another card beats on paper: it needs a sub-multiset of their train colours for
    at least their points (two identical cards do not dominate each other).

    ``cards`` holds objects with ``id``, ``points`` and ``colours`` (a colour per circle);
    returns one row per dominated card: ``destination_id`` and ``dominated_by`` (a tuple).
    """
    cards = list(cards)
    needs = {c.id: Counter(c.colours) for c in cards}
    rows = []
    for card in cards:
        better = tuple(
            other.id
            for other in cards
            if other.id != card.id
            and needs[other.id] <= needs[card.id]
            and other.points >= card.points
            and (needs[other.id] != needs[card.id] or other.points > card.points)
        )
        if better:
            rows.append({"destination_id": card.id, "dominated_by": better})
    return pd.DataFrame(rows, columns=["destination_id", "dominated_by"])


def card_label(dest_id: int, catalogue: Any | None = None) -> str:
    """'#24 Miami-Boston': the card number with its cities, for tables and text."""
    if catalogue is None:
        from cardgame import default_catalogue

        catalogue = default_catalogue()
    try:
        dest = catalogue.destination(int(dest_id))
    except KeyError:
        return f"#{int(dest_id)}"
    return f"#{dest.id} {dest.city_a}-{dest.city_b}"


# ------------------------------------------------------------------ game-clustered rates
def _rate_interval(successes: pd.Series, n: pd.Series, var: pd.Series) -> tuple:
    """Wilson 95% interval on the effective sample size p(1-p)/var of the game-clustered
    variance (Kish design effect, never above the row count)."""
    p = successes / n
    n_eff = (p * (1 - p) / var).where(var > 0, n).clip(upper=n).fillna(n)
    low, high = wilson(p * n_eff, n_eff)  # statsmodels proportion_confint(method="wilson")
    return np.asarray(low), np.asarray(high)


def card_summary_of(sums: pd.DataFrame) -> pd.DataFrame:
    """Per (players, destination_id), from offer sums (reports/offers.py), the variants
    pooled: offers, keep rate, completion, mean net points when kept, each with its
    game-clustered 95% interval."""
    table = pooled(sums, ["players", "destination_id"])
    table["offered"] = table["offered"].astype(int)
    table["games"] = table["games"].astype(int)
    table["keep_rate"], keep_var = clustered(
        table["offered"],
        table["games"],
        table["kept"],
        table["kept_sq"],
        table["kept_offered"],
        table["offered_sq"],
    )
    table["kept"] = table["kept"].astype(int)
    kept = table["kept"].where(table["kept"] > 0)
    completion, done_var = clustered(
        kept,
        table["kept_games"],
        table["reached"],
        table["reached_sq"],
        table["reached_kept"],
        table["kept_sq"],
    )
    net_mean, net_var = clustered(
        kept,
        table["kept_games"],
        table["net"],
        table["net_sq"],
        table["net_kept"],
        table["kept_sq"],
    )
    table["reached"] = table["reached"].astype(int)
    table["completion"], table["completion_var"] = completion, done_var
    table["net_mean"], table["net_var"] = net_mean, net_var
    table["kept_games"] = table["kept_games"].astype(int)
    table["keep_ci_low"], table["keep_ci_high"] = _rate_interval(
        table["kept"], table["offered"], pd.Series(keep_var, index=table.index)
    )
    table["completion_ci_low"], table["completion_ci_high"] = _rate_interval(
        table["reached"], kept, table["completion_var"]
    )
    dof = (table["kept_games"] - 1).where(table["kept_games"] > 1)
    half = sps.t.ppf(1 - current_alpha() / 2, dof) * np.sqrt(table["net_var"])
    table["net_ci_low"] = table["net_mean"] - half
    table["net_ci_high"] = table["net_mean"] + half
    return table[SUMMARY_COLUMNS]


SUMMARY_COLUMNS = """
    players destination_id points cards offered games kept keep_rate reached completion
    completion_var net_mean net_var kept_games keep_ci_low keep_ci_high completion_ci_low
    completion_ci_high net_ci_low net_ci_high
""".split()


# ------------------------------------------------------------------ the model
def completion_logit(table: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Each card's empirical logit of completion, log((reached + 1/2) / (kept - reached +
    1/2)), and its sampling variance 1 / ((kept + 1) c (1 - c)) times the game-clustered
    design effect (never below 1). The +1/2 keeps a card reached every time finite."""
    kept, reached = table["kept"].to_numpy(float), table["reached"].to_numpy(float)
    c = (reached + 0.5) / (kept + 1)
    p = reached / kept
    with np.errstate(invalid="ignore", divide="ignore"):
        deff = table["completion_var"].to_numpy(float) * kept / (p * (1 - p))
    deff = np.where(np.isfinite(deff), np.maximum(deff, 1.0), 1.0)
    return np.log(c / (1 - c)), deff / ((kept + 1) * c * (1 - c))


def re_fits(
    y: np.ndarray, v: np.ndarray, x: np.ndarray, mask: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Random-effects meta-regressions of ``y`` (sampling variances ``v``) on the columns of
    ``x``, one per row of ``mask`` (which cards enter that fit): tau^2 by the
    DerSimonian-Laird method of moments as extended to meta-regression (Raudenbush 2009),
    truncated at 0; then coefficients by weighted least squares with weights
    1 / (v + tau^2) and their covariance (X'WX)^-1. Returns (tau2, beta, cov)."""
    rank = np.linalg.matrix_rank(x)
    w = mask / v[None, :]
    a_inv = np.linalg.pinv(np.einsum("mk,ki,kj->mij", w, x, x))
    beta = np.einsum("mij,mj->mi", a_inv, np.einsum("mk,ki,k->mi", w, x, y))
    q = np.sum(w * (y[None, :] - beta @ x.T) ** 2, axis=1)
    b = np.einsum("mk,ki,kj->mij", w**2, x, x)
    denom = w.sum(axis=1) - np.trace(a_inv @ b, axis1=1, axis2=2)
    df = mask.sum(axis=1) - rank
    with np.errstate(invalid="ignore", divide="ignore"):
        tau2 = np.where(denom > 0, np.maximum(0.0, (q - df) / denom), 0.0)
    w = mask / (v[None, :] + tau2[:, None])
    cov = np.linalg.pinv(np.einsum("mk,ki,kj->mij", w, x, x))
    beta = np.einsum("mij,mj->mi", cov, np.einsum("mk,ki,k->mi", w, x, y))
    return tau2, beta, cov


def leave_one_out(y: np.ndarray, v: np.ndarray, x: np.ndarray) -> dict[str, np.ndarray]:
    """Each card against the model refitted without it (so an outlier neither drags the
    line nor inflates tau^2 to hide itself): the predicted ``y``, z = (y - prediction) /
    sqrt(v + tau^2 + the prediction's variance), and its two-sided p from Student t with
    k - 1 - p degrees of freedom (tau^2 is itself estimated from k - 1 cards; with normal
    tails the false-flag rate doubles at Holm's thresholds)."""
    k = len(y)
    tau2, beta, cov = re_fits(y, v, x, 1.0 - np.eye(k))
    pred = np.einsum("ki,ki->k", x, beta)
    var = v + tau2 + np.einsum("ki,kij,kj->k", x, cov, x)
    z = (y - pred) / np.sqrt(var)
    dof = max(k - 1 - np.linalg.matrix_rank(x), 1)
    p = 2 * sps.t.sf(np.abs(z), dof)
    return {
        "pred": pred,
        "z": z,
        "p": p,
        "tau2": tau2,
        "beta": beta,
        "se": np.sqrt(var),
        "dof": dof,
    }


def detectable_z(
    dof: float, family: int, alpha: float | None = None, power: float = POWER
) -> float:
    """How far (in the test's standard errors) a card's logit completion must sit from its
    class for the leave-one-out test to flag it with ``power`` when its p must beat
    alpha / ``family`` (Holm's first step: with no card flagged, a card is flagged exactly
    when its p does): the test's critical value (Student t with ``dof`` degrees of freedom)
    plus the normal ``power`` quantile. The approximation treats z as the shift plus a
    standard normal error, the usual power calculation, and ignores the far tail; it is
    slightly conservative: a card planted that far below its class is flagged 84-88% of the
    time (tests/reports/test_destinations.py)."""
    alpha = current_alpha() if alpha is None else alpha
    crit = sps.t.ppf(1 - alpha / (2 * max(int(family), 1)), dof)
    return float(crit + sps.norm.ppf(power))


def detectable_net(
    points: np.ndarray, expected_logit: np.ndarray, se: np.ndarray, shift: float, kept: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The net points when kept by which a card would have to fall short of (``below``) or
    exceed (``above``) its class to be flagged with the power of ``shift`` (``detectable_z``):
    its logit completion moved by shift x se from its class's, net = points (2 c - 1). The
    card's own sampling variance is taken as it is now. Each is NaN where the moved logit
    lies beyond what ``kept`` cards can show (+-log(2 kept + 1): completed every time or
    never): a card its class nearly always completes cannot be found over-rewarded, and one
    kept a few times cannot be found at all."""
    points, eta, delta = (np.asarray(a, float) for a in (points, expected_logit, se))
    delta = shift * delta
    c = 1 / (1 + np.exp(-eta))
    below = 2 * points * (c - 1 / (1 + np.exp(-(eta - delta))))
    above = 2 * points * (1 / (1 + np.exp(-(eta + delta))) - c)
    ceiling = np.log(2 * np.asarray(kept, float) + 1)
    return np.where(eta - delta > -ceiling, below, np.nan), np.where(
        eta + delta < ceiling, above, np.nan
    )


def _design(table: pd.DataFrame) -> np.ndarray:
    """Intercept, printed points, trains required."""
    return np.column_stack(
        [np.ones(len(table)), table["points"].astype(float), table["cards"].astype(float)]
    )


def fair_points(expected: np.ndarray, completion: np.ndarray) -> np.ndarray:
    """The printed points at which a card, completed as often as now, would earn the net
    points expected of its class: net = points (2 completion - 1), so points = expected /
    (2 completion - 1); NaN when the card is completed at most 60% of the time (no printed
    value then makes it pay: its trains or colours must change) or expected <= 0."""
    rate = 2 * np.asarray(completion, float) - 1
    with np.errstate(invalid="ignore", divide="ignore"):
        points = np.asarray(expected, float) / rate
    return np.where((rate > 0.2) & (np.asarray(expected) > 0), points, np.nan)


def plays_like(
    observed: np.ndarray, beta: np.ndarray, trains: np.ndarray, grid: np.ndarray | None = None
) -> np.ndarray:
    """The printed points at which a typical card needing the same trains earns the card's
    observed net points: solve points * (2 expit(b0 + b1 points + b2 trains) - 1) = observed
    on a grid of 0.1 points from 1 to 40; NaN when no printed value on the grid comes within
    half a point (for example a card that loses points when kept)."""
    grid = np.arange(1.0, 40.05, 0.1) if grid is None else grid
    out = np.full(len(observed), np.nan)
    for i, (net, b, t) in enumerate(zip(observed, beta, trains, strict=True)):
        eta = b[0] + b[1] * grid + b[2] * t
        value = grid * (2 / (1 + np.exp(-eta)) - 1)
        best = int(np.argmin(np.abs(value - net)))
        if abs(value[best] - net) < 0.5:
            out[i] = grid[best]
    return out


def _fit_one_count(table: pd.DataFrame, min_kept: int) -> pd.DataFrame:
    """The model's columns for the cards of one player count: cards kept at least
    ``min_kept`` times are fitted and tested (leave-one-out); the others get the full fit's
    expected value only. Empty when fewer than 5 cards can be fitted."""
    usable = table[(table["kept"] >= min_kept) & table["net_mean"].notna()]
    if len(usable) < 5:  # too few cards to estimate a line and a spread
        return pd.DataFrame(index=table.index)
    y, v = completion_logit(usable)
    x = _design(usable)
    tau2, beta, _ = re_fits(y, v, x, np.ones((1, len(y))))
    loo = leave_one_out(y, v, x)
    pred = pd.Series(_design(table) @ beta[0], index=table.index)
    pred[usable.index] = loo["pred"]
    completion = 1 / (1 + np.exp(-pred))
    expected = table["points"] * (2 * completion - 1)
    observed = usable["net_mean"].to_numpy(float)
    return pd.DataFrame(
        {
            "tau": np.sqrt(tau2[0]),
            "tested": table.index.isin(usable.index),
            "expected_completion": completion,
            "expected": expected,
            "excess": table["net_mean"] - expected,
            "z": pd.Series(loo["z"], index=usable.index),
            "p": pd.Series(loo["p"], index=usable.index),
            "plays_like": pd.Series(plays_like(observed, loo["beta"], x[:, 2]), index=usable.index),
            "se_logit": pd.Series(loo["se"], index=usable.index),
            "dof": float(loo["dof"]),
        },
        index=table.index,
    )


def card_balance_of(
    sums: pd.DataFrame, min_kept: int = MIN_KEPT, catalogue: Any | None = None
) -> pd.DataFrame:
    """One row per (players, card): the summary of ``card_summary_of``; the completion and net
    points expected of a card of its printed points and trains (leave-one-out fit); its
    excess, z, raw and Holm-adjusted p (Holm over every card tested, all player counts
    together); the flag; for a flagged card the printed points that would make it pay what
    its class pays; the player count's card-to-card spread ``tau`` (logit of completion);
    for a tested card the net points when kept by which it would have to fall short of
    (``detectable_below``) or exceed (``detectable_above``) its class to be flagged with 80%
    power (``detectable_z``: what "none found" could have found); and the cards that
    dominate it on paper."""
    if catalogue is None:
        from cardgame import default_catalogue

        catalogue = default_catalogue()
    table = card_summary_of(sums)
    fits = [_fit_one_count(group, min_kept) for _, group in table.groupby("players", sort=True)]
    columns = ["tau", "tested", "expected_completion", "expected", "excess", "z", "p"]
    columns += ["plays_like", "se_logit", "dof"]
    fitted = pd.concat(fits) if fits else pd.DataFrame()
    table = table.join(fitted.reindex(columns=columns))
    table["tested"] = table["tested"].eq(True)  # missing (no fit at that count): not tested
    table["p_holm"] = np.nan
    tested = table["p"].notna()
    if tested.any():
        table.loc[tested, "p_holm"] = holm(table.loc[tested, "p"].to_numpy())
    table["detectable_below"] = table["detectable_above"] = np.nan
    family = int(tested.sum())
    for dof, rows in table[tested].groupby("dof"):
        shift = detectable_z(float(dof), family)
        eta = np.log(rows["expected_completion"] / (1 - rows["expected_completion"]))
        below, above = detectable_net(rows["points"], eta, rows["se_logit"], shift, rows["kept"])
        table.loc[rows.index, "detectable_below"] = below
        table.loc[rows.index, "detectable_above"] = above
    table = table.drop(columns=["se_logit", "dof"])
    out = table["p_holm"] < current_alpha()
    table["flag"] = ""
    table.loc[out & (table["excess"] > 0), "flag"] = FLAG_OVER
    table.loc[out & (table["excess"] < 0), "flag"] = FLAG_UNDER
    fair = pd.Series(fair_points(table["expected"], table["completion"]), index=table.index)
    table["suggested_points"] = fair.round().where(out).astype("Int64")
    table["plays_like_points"] = table.pop("plays_like").round().where(out).astype("Int64")
    table["label"] = table["destination_id"].map(lambda i: card_label(i, catalogue))
    beaten = dominated(catalogue.destinations).set_index("destination_id")["dominated_by"]
    table["dominated_by"] = table["destination_id"].map(
        lambda i: ", ".join(card_label(b, catalogue) for b in beaten.get(i, ()))
    )
    table = table.drop(columns=["net_var", "completion_var"])
    return table.sort_values(["players", "destination_id"]).reset_index(drop=True)
