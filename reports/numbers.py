"""How a number reads in a report: a win share or another share of games as a percentage
("51.7%"), a change of one in percentage points ("+3.1 pts"), a p-value as "< 0.001" or two
figures (never ``0.0e+00``), anything else to three significant figures without exponents.

The writers (reports/markdown.py, reports/html.py) show every table through ``shown``; the
CSV downloads keep the numbers as computed. ``shown`` also prints, beside a verdict, the
interval the verdict was read from (reports/margins.py): the family's Bonferroni interval,
or for *practically equal* the equivalence interval, and says "practically equal, though
surely not zero" where the family interval excludes zero too.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pandas as pd

from .margins import EQUAL

SURELY_NOT_ZERO = f"{EQUAL}, though surely not zero"

# a table's columns that are a share of games, and those that are a change of one
_JUDGED = ["margin", "se", "family_low", "family_high", "equiv_low", "equiv_high", "detectable"]
_CHANGE = ["difference", "ci_low", "ci_high", "sd_difference", *_JUDGED]
LEVELS: dict[str, list[str]] = {
    "win_rates": ["rate", "ci_low", "ci_high", "fair", "field"],
    "head_to_head": ["rate", "ci_low", "ci_high"],
    "seat_advantage": ["rate", "ci_low", "ci_high", "fair"],
    "seat_edge": ["rate", "fair"],
    "variant_seat_edge": ["rate", "fair"],
    "variant_strategies": ["base", "value"],
    "score_margins": ["tie_rate", "tie_ci_low", "tie_ci_high", "shared_rate", "shared_ci_low",
                      "shared_ci_high"],
    "meta_game": ["weight", "boot_mean", "ci_low", "ci_high", "share_positive"],
    "big_cities": ["award_rate", "award_ci_low", "award_ci_high", "shared_rate",
                   "shared_ci_low", "shared_ci_high"],
    "card_contribution": ["win_completed", "win_failed"],
    "card_contribution_shown": ["win_completed", "win_failed"],
    "destinations": ["keep_rate", "keep_ci_low", "keep_ci_high", "completion",
                     "completion_ci_low", "completion_ci_high", "expected_completion"],
    "margin_distribution": ["share"],
}  # fmt: skip
CHANGES: dict[str, list[str]] = {
    "win_rates": ["vs_field", "vs_field_ci_low", "vs_field_ci_high", *_JUDGED],
    "seat_edge": _CHANGE,
    "variant_seat_edge": _CHANGE,
    "variant_strategies": _CHANGE,
    "variant_edge_changes": ["base_edge", "variant_edge", "difference", "family_low",
                             "family_high"],
    "card_contribution": ["difference", "ci_low", "ci_high"],
    "card_contribution_shown": ["difference", "ci_low", "ci_high"],
    "big_cities": ["win_lift", "lift_ci_low", "lift_ci_high"],
    "first_seat": ["advantage"],
}  # fmt: skip
# tables whose rows say what they measure: (the column, its values that are win shares or
# rates); those rows' base and value are shares, their differences changes of one
SHARE_ROWS: dict[str, tuple[str, tuple[str, ...]]] = {
    "variants": ("metric", ("first_seat_win_share",)),
    "edit_effects": (
        "metric",
        ("keep_rate", "completion", "holder_win_share", "award_rate", "won_by", "seat_win_share"),
    ),
    "sweeps": ("metric", ("first_seat_edge", "keep_rate", "completion")),
    "lineup_swaps": ("metric", ("win_share",)),
    "leaders": ("basis", ("line-up swaps",)),
    "pairwise": ("method", ("win share",)),
    "pairwise_pooled": ("method", ("win share",)),
    "memory_value": ("measure", ("win_share",)),
}
SPREADS = {"margin", "se", "sd_difference", "detectable"}  # in points, without a sign
P_WORDS = ("p", "lift_p", "weakest_link_p", "wins_p", "score_p")


def percent(x: float) -> str:
    """A share as a percentage: "51.7%", "5.2%", "100%"."""
    if not np.isfinite(x):
        return ""
    value = 100 * x
    return f"{value:.0f}%" if abs(value) >= 99.95 or value == 0 else f"{value:.1f}%"


def points(x: float, unit: str = " pts") -> str:
    """A change of a share in percentage points, signed: "+3.1 pts"."""
    if not np.isfinite(x):
        return ""
    value = 100 * x
    return f"{value:+.1f}{unit}" if round(value, 1) != 0 else f"0.0{unit}"


def size(x: float, unit: str = " pts") -> str:
    """A spread or a margin of a share in percentage points, unsigned: "2.0 pts"."""
    return f"{100 * x:.1f}{unit}" if np.isfinite(x) else ""


def p_cell(p: float) -> str:
    """A p-value in a table: "< 0.001" or two figures."""
    if not np.isfinite(p):
        return ""
    return "< 0.001" if p < 0.001 else f"{p:.2g}"


def p_text(p: float) -> str:
    """A p-value in a sentence: "p < 0.001" or "p = 0.034"."""
    if not np.isfinite(p):
        return "p n/a"
    return "p < 0.001" if p < 0.001 else f"p = {p:.2g}"


def plain(x: float) -> str:
    """Three significant figures, never an exponent: 0.000062 is "0.0001", 120000 is
    "120,000"."""
    if not math.isfinite(x):
        return ""
    text = f"{x:.3g}"
    if "e" not in text:
        return text
    return f"{x:,.0f}" if abs(x) >= 1 else f"{x:.4f}"


def is_p(column: str) -> bool:
    """A column of p-values (raw or adjusted), by its name."""
    return column in P_WORDS or column.startswith("p_") or column.endswith(("_p", "_p_adjusted"))


def _share_rows(frame: pd.DataFrame, name: str) -> np.ndarray:
    """Which rows of a table measure a share (all or none, unless the table says per row)."""
    if name in SHARE_ROWS:
        column, words = SHARE_ROWS[name]
        if column not in frame:
            return np.zeros(len(frame), dtype=bool)
        text = frame[column].astype(str)
        return np.array([any(t.startswith(w) for w in words) for t in text], dtype=bool)
    return np.ones(len(frame), dtype=bool)


def shown(frame: pd.DataFrame, name: str, columns: list[str] | None = None) -> pd.DataFrame:
    """``columns`` of a table (all when None) as a reader sees them: strings, shares as
    percentages, changes of them in points, p-values as "< 0.001", counts as integers,
    each verdict beside the interval it was read from."""
    from .document import for_people

    frame = for_people(frame).reset_index(drop=True)
    columns = list(frame.columns) if columns is None else list(columns)
    frame = _verdict_intervals(frame, columns)
    rows = _share_rows(frame, name)
    if name in SHARE_ROWS:
        levels, changes = ["base", "value"], _CHANGE
        if name == "memory_value":
            levels, changes = [], ["value", "ci_low", "ci_high"]
        if name in ("lineup_swaps", "leaders", "pairwise", "pairwise_pooled"):
            levels = []
        if name == "sweeps":  # its value is the swept parameter's, its level the metric's
            levels = ["level"]
    else:
        levels, changes = LEVELS.get(name, []), CHANGES.get(name, [])
    out = pd.DataFrame(index=frame.index)
    for column in columns:
        values = frame[column].tolist()
        form: list[Callable[[float], str]]
        if is_p(column):
            form = [p_cell] * len(values)
        elif column in levels:
            form = [percent if r else plain for r in rows]
        elif column in changes:
            signed = points if column not in SPREADS else size
            form = [signed if r else plain for r in rows]
        else:
            form = [plain] * len(values)
        out[column] = [_cell(v, f) for v, f in zip(values, form, strict=True)]
    if "verdict" in frame:  # the interval beside a verdict is the one it is read from
        out = out.rename(columns=VERDICT_INTERVAL)
    return out


def _cell(value: object, form) -> str:
    """One cell: a float through ``form``, an integer as it is, anything else as text."""
    if value is None or value is pd.NA:
        return ""
    if isinstance(value, bool | np.bool_):
        return str(bool(value))
    if isinstance(value, int | np.integer):
        return str(value)
    if isinstance(value, float | np.floating):
        return form(float(value)) if math.isfinite(value) else ""
    return str(value)


def _verdict_intervals(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """Where a table has a verdict: a *practically equal* row whose family interval (else
    its one interval, as in the sweeps and edit-effects tables, which read both verdicts
    off it) excludes zero says "though surely not zero"; where the table shows its family
    interval and has an equivalence interval, a *practically equal* row shows that one
    instead, the one its verdict is read from."""
    if "verdict" not in frame:
        return frame
    low, high = ("family_low", "family_high") if "family_low" in frame else ("ci_low", "ci_high")
    if not {low, high} <= set(frame):
        return frame
    frame = frame.copy()
    equal = (frame["verdict"] == EQUAL).to_numpy()
    bounds = frame[low].astype(float), frame[high].astype(float)
    not_zero = equal & ((bounds[0] > 0) | (bounds[1] < 0)).to_numpy()
    frame["verdict"] = frame["verdict"].astype(object)
    frame.loc[not_zero, "verdict"] = SURELY_NOT_ZERO
    shows = {"family_low", "family_high"} <= set(columns)
    if shows and low == "family_low" and {"equiv_low", "equiv_high"} <= set(frame):
        frame.loc[equal, "family_low"] = frame.loc[equal, "equiv_low"]
        frame.loc[equal, "family_high"] = frame.loc[equal, "equiv_high"]
    return frame


VERDICT_INTERVAL = {"family_low": "low", "family_high": "high"}
INTERVAL_NOTE = (
    "Beside a verdict, `low` and `high` bound the interval it is read from: the family's "
    "Bonferroni interval, or for *practically equal* the equivalence interval (TOST)."
)
