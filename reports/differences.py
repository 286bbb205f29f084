"""Differences of means between two samples: paired (one difference per pair) or
independent (Welch), each with its 95% interval, its test and the smallest difference it
could detect."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as sps

from .intervals import one_sample
from .power import detectable_effect


def welch_interval(a: pd.Series, b: pd.Series) -> tuple[float, float, float]:
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
        "n_pairs": n,
        "difference": mean,
        "ci_low": low,
        "ci_high": high,
        "p_value": p,
        "sd_difference": sd,
        "detectable": detectable_effect(se, n - 1),
        "df": n - 1.0,
    }


def welch_difference(a, b) -> dict[str, float]:
    """Difference of means of two independent samples: Welch 95% interval and test, and the
    smallest effect detectable at 80% power with these sample sizes."""
    a = pd.Series(a, dtype=float).dropna()
    b = pd.Series(b, dtype=float).dropna()
    diff, low, high = welch_interval(a, b)
    out = {
        "n_pairs": 0,
        "difference": diff,
        "ci_low": low,
        "ci_high": high,
        "p_value": np.nan,
        "sd_difference": np.nan,
        "detectable": np.nan,
        "df": np.nan,
    }
    if len(a) < 2 or len(b) < 2:
        return out
    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    if va + vb > 0:
        dof = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
        out["p_value"] = float(sps.ttest_ind(a, b, equal_var=False).pvalue)
        out["detectable"] = detectable_effect(float(np.sqrt(va + vb)), float(dof))
        out["df"] = float(dof)
    elif diff == 0:
        out["p_value"] = 1.0
    return out
