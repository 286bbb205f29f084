"""A tune's verdict in words: first in a designer's words (what was tried, what each lever
did, the answer), then the search's evidence round by round (the best candidate, where the
arms still racing left the objective, what was dropped), each of those lines starting with
``METHOD`` so that a page can put them under its method."""

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

METHOD = "Search"  # the first word of the search's evidence lines
TARGETS = {  # an objective's target, {band} in its unit
    "seat": "every seat's win share within ±{band} points of its fair share",
    "destinations": "every ticket within ±{band} robust z of what a ticket of its cost earns",
    "strategies": "no non-random strategy more than {band} points above the field",
}


def verdict(
    tuner: Tuner,
    start: Design,
    design: Design,
    target_met: bool | None,
    holdout: pd.DataFrame,
    met_in_search: bool | None,
) -> list[str]:
    """The tune's summary lines: what was tried, what each lever did and the answer (read
    off the hold-out deals where they were played), then the search's evidence."""
    lines = [_tried(tuner, start), *_levers(tuner.item_rows)]
    lines.append(_answer(tuner, start, design, target_met, holdout, met_in_search))
    search = [x for x in evidence(tuner.rows, tuner.item_rows) if " at its end " not in x]
    return lines + [f"{METHOD} {x[0].lower()}{x[1:]}" for x in search]  # said above in words


def _target(tuner: Tuner) -> str:
    parts = []
    for name in tuner.weights:
        band = tuner.bands[name] * (1 if name == "destinations" else 100)
        parts.append(TARGETS[name].format(band=f"{band:g}"))
    return " and ".join(parts)


def _tried(tuner: Tuner, start: Design) -> str:
    """What was tried: each lever, from its starting value to the values tried."""
    frame = pd.DataFrame(tuner.rows)
    players = ", ".join(map(str, tuner.players))
    aim = f"the target: {_target(tuner)}, at {players} players"
    if frame.empty or not ((frame["round"] > 0) & (frame["arm"] != BASE)).any():
        return f"Tried no edit ({aim})."
    tried = frame[(frame["round"] > 0) & (frame["arm"] != BASE)].drop_duplicates("arm")
    levers = []
    for parameter, part in tried.groupby("parameter", sort=False):
        values = " or ".join(show_value(v) for v in dict.fromkeys(part["value"]))
        levers.append(
            f"{parameter} {show_value(tuner.space.current(start, parameter))} -> {values}"
        )
    return (
        f"Tried {len(tried)} single edit(s) of {len(levers)} lever(s) ({'; '.join(levers)}) on "
        f"{tuner.spent:,} games; {aim}."
    )


def _levers(item_rows: list[dict[str, Any]]) -> list[str]:
    """Per round, where each edit left the objective on the search's deals, against the
    design it started from: the ticket it edits, else the item furthest from its band."""
    items = pd.DataFrame(item_rows)
    if items.empty:
        return []
    lines = []
    for step, end in items[items["step"].str.endswith("-end")].groupby("step", sort=False):
        shown = [(str(a), m.loc[shown_item(str(a), m)]) for a, m in end.groupby("arm", sort=False)]
        start = [f"{r['item']} {_fmt(r)}" for a, r in shown if a == BASE]
        others = sorted(((a, r) for a, r in shown if a != BASE), key=lambda x: (_size(x[1]), x[0]))
        said = "; ".join(
            f"{a.replace('=', ' = ')}: {r['item']} {_fmt(r)}, {_where(r)}"
            for a, r in others[:EVIDENCE_ARMS]
        )
        more = (
            f"; {len(others) - EVIDENCE_ARMS} more on the page"
            if len(others) > EVIDENCE_ARMS
            else ""
        )
        round_ = str(step).removesuffix("-end").removeprefix("r")
        lines.append(
            f"What each edit did (round {round_}, the search's own deals; before it, "
            f"{start[0] if start else 'the design it started from'}): {said}{more}."
        )
    return lines


def _where(row: pd.Series) -> str:
    """An item's interval against its band, in words."""
    if row["objective"] == "strategies":
        return (
            "within the band"
            if row["high"] <= row["band"]
            else ("above the band" if row["low"] > row["band"] else "cannot tell yet")
        )
    if -row["band"] <= row["low"] and row["high"] <= row["band"]:
        return "within the band"
    if row["low"] > row["band"] or row["high"] < -row["band"]:
        return "outside the band"
    return "not yet known whether within the band"  # fmt: skip


def _size(row: pd.Series) -> float:
    return float(_excess(row.to_frame().T).iloc[0])


def _answer(
    tuner: Tuner,
    start: Design,
    design: Design,
    target_met: bool | None,
    holdout: pd.DataFrame,
    met_in_search: bool | None,
) -> str:
    """The answer, from the hold-out deals where they were played."""
    edits = ", ".join(
        f"{p} {show_value(tuner.space.current(start, p))} -> {show_value(v)}"
        for p, v in design.edits
    )
    if holdout.empty:
        found = f"the edits found, {edits}," if edits else "no edit"
        known = "meets" if met_in_search else "was not shown to meet"
        return (
            f"Answer (search deals only, no hold-out): {found} {known} the target; play the "
            "hold-out (--holdout) before trusting it."
        )
    designs = 2 if design.edits else 1
    held = f"{int(tuner.trace[-1]['games']) // designs:,} held-out games per design"
    worst = _worst(holdout)
    row = _worst_row(holdout)
    where = _where(row) if row is not None else ""
    said = {
        "within the band": "within its band",
        "outside the band": "outside its band",
    }.get(where, "not yet shown within its band (more held-out games would tell)")
    if design.edits and target_met:
        return f"Answer: yes. {edits} meets the target: on {held} the worst item is {worst}."
    if design.edits:
        return (
            f"Answer: not yet. {edits} helps on the search's deals, but on {held} the worst "
            f"item, {worst}, is {said}."
        )
    if target_met:
        return (
            f"Answer: no edit needed. On {held} the starting design meets the target "
            f"(worst: {worst})."
        )
    return (
        f"Answer: no. No set of at most {tuner.max_edits} allowed edit(s) was shown to reach "
        f"the target in this search ({tuner.spent:,} games: a larger --budget tells edits "
        f"apart more finely); on {held} the starting design's worst item, {worst}, is {said}."
    )


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


def _worst_row(holdout: pd.DataFrame) -> pd.Series | None:
    label = "after" if (holdout["design_label"] == "after").any() else "before"
    part = holdout[holdout["design_label"] == label]
    return None if part.empty else part.loc[_excess(part).idxmax()]


def _worst(holdout: pd.DataFrame) -> str:
    row = _worst_row(holdout)
    return "" if row is None else f"{row['item']} {_fmt(row)}"


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
    low, estimate, high = (round(100 * row[k], 1) or 0.0 for k in ("low", "estimate", "high"))
    return f"{estimate:+.1f} points ({low:+.1f} to {high:+.1f}, band ±{row['band'] * 100:g})"
