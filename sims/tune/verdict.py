"""A tune's verdict in words: the edits found, the search's evidence round by round (the best
candidate, where the arms still racing left the objective, what was dropped), and what the
hold-out deals say of the target."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd

from ..study import BASE
from ..sweep import show_value
from .sample import normal_z
from .settings import EVIDENCE_ARMS
from .space import Design

if TYPE_CHECKING:
    from .tuner import Tuner


def verdict(
    tuner: Tuner,
    start: Design,
    design: Design,
    target_met: bool | None,
    holdout: pd.DataFrame,
    met_in_search: bool | None,
) -> list[str]:
    """The tune's summary lines: the edits found (or why none), the search's evidence, then
    whether the hold-out deals confirm the target (``holdout`` empty: none were played)."""
    lines = []
    edits = ", ".join(
        f"{p} {show_value(tuner.space.current(start, p))} -> {show_value(v)}"
        for p, v in design.edits
    )
    if design.edits:
        lines.append(f"Edits found: {edits}.")
    elif met_in_search:
        lines.append("No edit needed: the starting design meets the target on the screen.")
    else:
        lines.append("No edit within the allowed set improves the objective significantly.")
    lines += evidence(tuner.rows, tuner.item_rows)
    if holdout.empty:
        lines.append("No hold-out confirmation (holdout = 0).")
        return lines
    designs = 2 if design.edits else 1
    games = int(tuner.trace[-1]["games"])
    deals = int(tuner.trace[-1]["deals"])
    held = f"{games // designs:,} held-out games per design ({deals:,} deals)"
    worst = _worst(holdout)
    if target_met:
        lines.append(
            f"Confirmed on {held}: every item of the tuned design within its band at 95%"
            + (f" (worst: {worst})." if worst else ".")
        )
    else:
        what = "the tuned design" if design.edits else "the starting design"
        lines.append(
            f"On {held} {what} does NOT meet the target at 95%"
            + (f" (worst: {worst})" if worst else "")
            + f": no set of at most {tuner.max_edits} allowed edit(s) reached it in this search."
        )
    return lines


def evidence(rows: list[dict[str, Any]], item_rows: list[dict[str, Any]]) -> list[str]:
    """Per round: the best candidate and how sure the search was of it, and where each
    arm still racing at the end left the objective's worst item."""
    lines: list[str] = []
    frame = pd.DataFrame(rows)
    if frame.empty:
        return lines
    race = frame[(frame["round"] > 0) & (frame["arm"] != BASE)]
    items = pd.DataFrame(item_rows)
    for number, part in race.groupby("round"):
        last = part.sort_values("increment").groupby("arm").tail(1)
        best = last.loc[last["difference"].idxmin()]
        dropped = last[last["status"].str.startswith("dropped")]
        z = normal_z(0.975)
        lines.append(
            f"Round {number}: {len(last)} candidate(s), {len(dropped)} dropped; best "
            f"{best['arm']}: loss {best['difference']:+.3g} from the current design "
            f"({best['difference'] - z * best['difference_se']:+.3g} to "
            f"{best['difference'] + z * best['difference_se']:+.3g}, 95%, "
            f"{int(best['deals']):,} deals): {best['status']}."
        )
        end = items[items["step"] == f"r{number}-end"] if not items.empty else items
        if not end.empty:
            shown = []
            for arm, mine in end.groupby("arm", sort=False):
                row = mine.loc[shown_item(str(arm), mine)]
                shown.append((str(arm), row, float(_excess(row.to_frame().T).iloc[0])))
            current = [x for x in shown if x[0] == BASE]
            others = sorted((x for x in shown if x[0] != BASE), key=lambda x: (x[2], x[0]))
            listed = current + others[:EVIDENCE_ARMS]
            more = len(others) - EVIDENCE_ARMS
            lines.append(
                f"Round {number} at its end (the edited ticket, else the worst item; "
                "closest to the target first): "
                + "; ".join(
                    f"{'current design' if a == BASE else a}: {r['item']} {_fmt(r)}"
                    for a, r, _ in listed
                )
                + (f"; and {more} more (evaluations.parquet, items.parquet)" if more > 0 else "")
                + "."
            )
        if not dropped.empty:
            lines.append(
                f"Round {number}, dropped: "
                + "; ".join(f"{r['arm']} ({r['status'].removeprefix('dropped: ')})"
                            for _, r in dropped.iterrows())
                + "."
            )  # fmt: skip
    return lines


def _worst(holdout: pd.DataFrame) -> str:
    label = "after" if (holdout["design_label"] == "after").any() else "before"
    part = holdout[holdout["design_label"] == label]
    if part.empty:
        return ""
    row = part.loc[_excess(part).idxmax()]
    return f"{row['item']} {_fmt(row)}"


def shown_item(arm: str, items: pd.DataFrame) -> Any:
    """The item that says most about an arm: the ticket it edits, else its worst item."""
    if arm.startswith("destinations."):
        card = f"#{arm.split('.')[1]} "
        mine = items[items["item"].str.startswith(card)]
        if not mine.empty:
            return mine.index[0]
    return _excess(items).idxmax()


def _excess(frame: pd.DataFrame) -> pd.Series:
    """Each item's deviation in bands (for strategies only an excess counts), rounded so that
    mirror images (the two seats at 2 players) tie and the first is named."""
    size = frame["estimate"] / frame["band"]
    return size.abs().where(frame["objective"] != "strategies", size).round(9)


def _fmt(row: pd.Series) -> str:
    if row["objective"] == "destinations":
        return (
            f"{row['estimate']:+.2f} ({row['low']:+.2f} to {row['high']:+.2f}, "
            f"band ±{row['band']:g})"
        )
    scale = 100
    return (
        f"{row['estimate'] * scale:+.1f} points ({row['low'] * scale:+.1f} to "
        f"{row['high'] * scale:+.1f}, band ±{row['band'] * scale:g})"
    )
