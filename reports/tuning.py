"""`cardgame tune`: search the allowed edits for a design that meets a balance target.

The search is sims/tune/; this module registers the command and writes ``tune.html``: the
verdict, the edits, the before/after intervals from the held-out deals, the search's trace
(every candidate's effect on the objective, when it was dropped) and the method. One
self-contained page: plotly.js inlined, the tables downloadable as CSV, readable offline.

Before the package is reinstalled (which registers the entry point), the same command runs as
``python -m reports.tuning STUDY --objective ... --out DIR``.
"""

from __future__ import annotations

import argparse
import html
import json
import shlex
import sys
import urllib.parse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sims.files import write_atomic

EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130


def _int_list(text: str) -> list[int]:
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected numbers like 2,3,4, got {text!r}") from None


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "tune",
        help="search the allowed edits for a design that meets a balance target",
        description="Tune a study's design: try single edits (a ticket's points, a big city's "
        "bonus, a rule setting) on common deals, race them, combine the significant ones "
        "greedily, and confirm the result on held-out deals. Writes DIR/edits.toml (a study "
        "file with the tuned design as a variant), DIR/tune.html and each evaluation step's "
        "per-deal sums as Parquet under DIR/evaluations. Rerunning the same command (or "
        "--resume) continues an interrupted tune.",
        epilog="Objectives: seat (every seat's win share within --bands seat=1.5 points of its "
        "fair share), destinations (every ticket as good a deal as the deck, band 2.5 robust "
        "z), strategies (no non-random strategy above the field by more than 5 points), or a "
        "weighted sum such as seat=1,destinations=0.5. See docs/design-loop.md.",
    )
    parser.add_argument("study", help="study file or built-in study name")
    parser.add_argument(
        "--objective",
        required=True,
        help="seat, destinations, strategies or a weighted sum: seat=1,destinations=0.5",
    )
    parser.add_argument("--out", required=True, metavar="DIR", help="the tune's folder")
    parser.add_argument("--edits", metavar="FILE", help="TOML: what may change, its range, step")
    parser.add_argument("--max-edits", type=int, default=2, metavar="K", help="default 2")
    parser.add_argument(
        "--budget",
        type=int,
        metavar="GAMES",
        help="games of the search (default 240,000, at most 1,000,000,000)",
    )
    parser.add_argument(
        "--holdout",
        type=int,
        metavar="GAMES",
        help="held-out games per design (default 20,000, at most 100,000,000; 0: none)",
    )
    parser.add_argument("--cards", metavar="FOLDER", help="a card folder (an edition) to tune")
    parser.add_argument("--players", type=_int_list, help="player counts, e.g. 2 or 2,3")
    parser.add_argument("--seed", type=int, help="the root seed (default: the study's)")
    parser.add_argument(
        "--bands",
        help="bands: seat=1.5,strategies=5 (points, 0.1 to 50), destinations=2.5 (z, 0.1 to 10)",
    )
    parser.add_argument(
        "--suspects", type=int, default=3, help="destinations: tickets tried per round (default 3)"
    )
    parser.add_argument(
        "--adapt",
        type=int,
        metavar="GAMES",
        help="play every design with each scripted strategy's knobs adapted to it first, with "
        "this many games a strategy and design (kept by design in DIR/adapted)",
    )
    parser.add_argument("--workers", type=int, help="processes (default: all cores)")
    parser.add_argument("--resume", action="store_true", help="continue a stopped tune")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.set_defaults(run=main)


def main(args: argparse.Namespace) -> int:
    from sims.tune import DEFAULT_BUDGET, DEFAULT_HOLDOUT, TuneInterrupted, Tuner

    tuner = Tuner(
        args.study,
        objective=args.objective,
        edits=args.edits,
        max_edits=args.max_edits,
        budget=DEFAULT_BUDGET if args.budget is None else args.budget,
        holdout=DEFAULT_HOLDOUT if args.holdout is None else args.holdout,
        cards=args.cards,
        workers=args.workers,
        out=args.out,
        players=args.players,
        seed=args.seed,
        bands=args.bands,
        suspects=args.suspects,
        progress=not args.no_progress,
        adapt=args.adapt,
    )  # every bad option or file is one line here, before anything is written
    try:
        result = tuner.run(resume=args.resume)
    except TuneInterrupted:
        print(f"Interrupted. Continue with: {resume_command(args)}", file=sys.stderr)
        return EXIT_INTERRUPTED
    page_path = Path(args.out) / "tune.html"
    write_page(Path(args.out), page_path)
    for line in result.summary:
        print(line)
    print(
        f"Wrote {result.study_file} (simulate it: cardgame simulate {result.study_file}), "
        f"{page_path} and the evaluations under {Path(args.out) / 'evaluations'}"
    )
    return 0


def resume_command(args: argparse.Namespace) -> str:
    argv = ["cardgame", "tune", args.study, "--objective", args.objective, "--out", args.out]
    options = {
        "--edits": args.edits,
        "--max-edits": args.max_edits if args.max_edits != 2 else None,
        "--budget": args.budget,
        "--holdout": args.holdout,
        "--cards": args.cards,
        "--players": ",".join(map(str, args.players)) if args.players else None,
        "--seed": args.seed,
        "--bands": args.bands,
        "--suspects": args.suspects if args.suspects != 3 else None,
        "--adapt": getattr(args, "adapt", None),
        "--workers": args.workers,
    }
    for option, value in options.items():
        if value is not None:
            argv += [option, str(value)]
    return shlex.join([*argv, "--resume"])


# the page ---------------------------------------------------------------------------------

STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1100px;
margin:0 auto;padding:1em 2em;color:#222;line-height:1.45}
h1{margin-bottom:.2em}h2{border-bottom:2px solid #ddd;padding-bottom:.2em;margin-top:2em}
.verdict{background:#f5f8ff;border-left:4px solid #3b6fd8;padding:.6em 1.2em}
.verdict.fail{background:#fff6f0;border-left-color:#d8733b}
.caption{color:#555;font-size:.92em;margin:.2em 0 1.2em}
table.data{border-collapse:collapse;font-size:.85em;margin:.5em 0}
table.data td,table.data th{border:1px solid #ddd;padding:2px 6px;text-align:right}
details{margin:.4em 0 1.2em}summary{cursor:pointer;color:#3b6fd8}
code{background:#f4f4f4;padding:0 .2em}
#page-errors{display:none;background:#fee;border:1px solid #c00;padding:.5em;color:#900}
"""
ERROR_HOOK = """
window.addEventListener('error', function (e) {
  var box = document.getElementById('page-errors');
  box.style.display = 'block';
  box.textContent += 'A figure could not be drawn: ' + e.message + '\\n';
});
"""
STATUS_COLOURS = {
    "applied": "#2ca02c",
    "significant": "#1f77b4",
    "racing": "#7f7f7f",
    "dropped": "#d62728",
    "current": "#000000",
}


def write_page(folder: Path, path: Path) -> None:
    """tune.html from a finished tune's folder (atomically)."""
    write_atomic(path, page(folder))


def _load(folder: Path) -> dict[str, Any]:
    import pandas as pd

    state = json.loads((folder / "tune.json").read_text(encoding="utf-8"))
    frames = {}
    for name in ("evaluations", "items", "holdout"):
        path = folder / f"{name}.parquet"
        frames[name] = pd.read_parquet(path) if path.is_file() else pd.DataFrame()
    return {"state": state, **frames}


def page(folder: Path) -> str:
    from plotly.offline import get_plotlyjs

    data = _load(folder)
    state = data["state"]
    settings = state["settings"]
    study = settings["study"]
    objective = ", ".join(f"{k} (weight {v:g})" for k, v in settings["objective"].items())
    met = state.get("target_met")
    verdict_class = "verdict" if met else "verdict fail"
    lead, search = _split(state.get("summary", []))
    answer = "".join(f"<li>{_lead_html(line)}</li>" for line in lead)
    games = state.get("games", {})
    body = [
        f"<h1>Tune of {html.escape(study['name'])}: {html.escape(objective)}</h1>",
        "<div id='page-errors'></div>",
        f"<div class='{verdict_class}'><h3>Verdict</h3><ul>{answer}</ul></div>",
        "<h2>The edits</h2>" + _edits_table(data),
        "<p class='caption'>"
        + html.escape(
            f"Study {study['name']} at {', '.join(map(str, study['players']))} players"
            f"{' on the cards in ' + study['cards']['folder'] if study.get('cards') else ''}; "
            f"search {games.get('search', 0):,} games of a budget of {settings['budget']:,}, "
            f"hold-out {games.get('holdout', 0):,} games (deals never used by the search). "
            "The tuned design is [variants.tuned] of edits.toml: cardgame simulate "
            "edits.toml, then cardgame report on its results. " + _players_text(state)
        )
        + "</p>",
    ]
    figures = []
    holdout = data["holdout"]
    if not holdout.empty:
        body.append("<h2>Before and after, on the held-out deals</h2>")
        body.append(
            "<p>Each item of the objective for the starting design (before) and the tuned "
            "design (after), played on the same held-out deals; the grey band is the target. "
            "Intervals are 95%, simultaneous over the items of an objective (Bonferroni), "
            "from a bootstrap over deals.</p>"
        )
        for objective_name in holdout["objective"].unique():
            figures.append(
                (
                    _holdout_figure(holdout, objective_name),
                    _holdout_caption(holdout, objective_name, state),
                )
            )
    evaluations = data["evaluations"]
    items = data["items"]
    if not evaluations.empty:
        trace_figure = _trace_figure(evaluations)
        if trace_figure is not None:
            figures.append((trace_figure, _trace_caption(evaluations)))
        evidence = _evidence_figure(items)
        if evidence is not None:
            figures.append(
                (
                    evidence,
                    "Where each candidate still racing at the end of a round leaves the "
                    "objective's worst item (95%, simultaneous over the items), beside the "
                    "current design's; the grey band is the target. These are the search's own "
                    "deals: the hold-out above is the confirmation.",
                )
            )
        figures.append(
            (
                _budget_figure(state),
                "Games played per evaluation step (bars) and "
                "candidates still racing (line). Each step's arms are paired by deals; its "
                "per-deal sums are evaluations/STEP.parquet.",
            )
        )
    if not items.empty and (items["step"] == "screen").any():
        screen = items[items["step"] == "screen"]
        figures.append(
            (
                _screen_figure(screen),
                "The starting design on the screen's deals "
                "(the search's first evaluation): each item with its interval; the "
                "grey band is the target.",
            )
        )
    for number, (figure, caption) in enumerate(figures, start=1):
        body.append(
            figure.to_html(
                full_html=False,
                include_plotlyjs=False,
                div_id=f"figure-{number}",
                config={"displaylogo": False},
            )
        )
        body.append(f"<p class='caption'>{html.escape(caption)}</p>")
    body.append("<h2>Method</h2>" + _method(settings))
    if search:
        body.append(
            "<h3>The search, round by round</h3><ul class='caption'>"
            + "".join(f"<li>{html.escape(line)}</li>" for line in search)
            + "</ul>"
        )
    for note in state.get("notes", []):
        body.append(f"<p class='caption'>Note: {html.escape(note)}</p>")
    body.append("<h2>Data</h2>")
    for name, frame in (("holdout", holdout), ("evaluations", evaluations), ("items", items)):
        if not frame.empty:
            body.append(_table(name, frame))
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>Tune of {html.escape(study['name'])}</title><style>{STYLE}</style>"
        f"<script>{ERROR_HOOK}</script>"
        f"<script type='text/javascript'>{get_plotlyjs()}</script></head><body>"
        + "".join(body)
        + "</body></html>"
    )


def _lead_html(line: str) -> str:
    """A verdict line with its opening words in bold ("Answer: no.", "Tried", ...)."""
    for head in ("Answer:", "What each edit did", "Tried"):
        if line.startswith(head):
            words, _, rest = (
                line.partition(". ") if head == "Answer:" else (head, "", line[len(head) :])
            )
            if head == "Answer:":
                return f"<strong>{html.escape(words)}.</strong> {html.escape(rest)}"
            return f"<strong>{html.escape(words)}</strong>{html.escape(rest)}"
    return html.escape(line)


def _split(summary: list[str]) -> tuple[list[str], list[str]]:
    """The verdict's lines in a designer's words, and the search's own evidence (its lines
    start with ``METHOD``), which the page puts under its method."""
    from sims.tune.verdict import METHOD

    search = [line for line in summary if line.startswith(METHOD + " ")]
    return [line for line in summary if line not in search], search


def _edits_table(data: dict[str, Any]) -> str:
    """Every edit tried: its lever, from and to, its effect, and what became of it. The
    effect of an applied edit is the tuned design's change on the held-out deals (the
    edits together, after minus before, 95%); of another edit, where it left the ticket it
    edits (else the objective's worst item) on the search's deals, beside the design it
    started from."""
    state, evaluations, items = data["state"], data["evaluations"], data["items"]
    applied = {e["parameter"]: e for e in state.get("edits", [])}
    rows = []
    held = _held_out_effect(data["holdout"]) if applied else ""
    for parameter, edit in applied.items():
        rows.append((parameter, _v(edit["from"]), _v(edit["to"]), held, "applied"))
    race = (
        evaluations[(evaluations["round"] > 0) & (evaluations["arm"] != "base")]
        if not evaluations.empty
        else evaluations
    )
    if not race.empty:
        last = race.sort_values("increment").groupby("arm", sort=False).tail(1)
        for _, row in last.iterrows():
            if row["status"] == "applied":
                continue
            before = _start_value(state, evaluations, row)
            rows.append(
                (
                    str(row["parameter"]),
                    html.escape(before),
                    _v(row["value"]),
                    html.escape(_search_effect(items, row)),
                    html.escape(_became(str(row["status"]))),
                )
            )
    if not rows:
        return "<p>No edit was tried: the starting design met the target on the screen.</p>"
    cells = "".join(
        f"<tr><td><code>{html.escape(p)}</code></td><td>{a}</td><td>{b}</td>"
        f"<td style='text-align:left'>{effect}</td><td style='text-align:left'>{status}</td></tr>"
        for p, a, b, effect, status in rows
    )
    return (
        "<table class='data'><tr><th>lever</th><th>from</th><th>to</th><th>effect</th>"
        f"<th>what became of it</th></tr>{cells}</table>"
    )


def _start_value(state: dict[str, Any], evaluations: Any, row: Any) -> str:
    """The value a lever had in the design its round started from: an edit applied in an
    earlier round, else the study's base rules, else "as printed" (a card's number)."""
    part = evaluations[(evaluations["round"] == row["round"]) & (evaluations["arm"] == "base")]
    design = str(part["design"].iloc[0]) if not part.empty else ""
    for edit in design.split(", "):
        name, _, value = edit.partition(" = ")
        if name == row["parameter"]:
            return value
    found: Any = state["settings"]["study"].get("variants", {}).get("base", {})
    for key in str(row["parameter"]).split("."):
        if isinstance(found, dict) and key in found:
            found = found[key]
        elif isinstance(found, list) and key.isdigit() and int(key) < len(found):
            found = found[int(key)]
        else:
            return "as printed"
    return str(found).lower() if isinstance(found, bool) else str(found)


BECAME = {  # what became of an edit, in words, by its status in the search
    "applied": "applied",
    "significant": "better than the start, not applied (another edit was better)",
    "racing": "no clear gain over the design it started from",
}


def _became(status: str) -> str:
    head, _, why = status.partition(": ")
    if head == "dropped":
        return f"left out: {why}" if why else "left out"
    return BECAME.get(head, status)


def _search_effect(items: Any, row: Any) -> str:
    """Where an edit left its item at the end of its round, beside the starting point."""
    from sims.tune import shown_item

    if items.empty:
        return ""
    end = items[items["step"] == f"r{int(row['round'])}-end"]
    mine, base = end[end["arm"] == row["arm"]], end[end["arm"] == "base"]
    if mine.empty:
        return "dropped before the round's end (search deals)"
    item = mine.loc[shown_item(str(row["arm"]), mine)]
    scale, unit = _scale(str(item["objective"]))
    there = base[base["item"] == item["item"]]
    was = f" (from {there['estimate'].iloc[0] * scale:+.1f})" if not there.empty else ""
    return (
        f"{item['item']}: {item['estimate'] * scale:+.1f}{was} {unit}, "
        f"{item['low'] * scale:+.1f} to {item['high'] * scale:+.1f} (search deals)"
    )


def _held_out_effect(holdout: Any) -> str:
    """The applied edits' change of the worst-moved item on the held-out deals."""
    if holdout.empty or "difference" not in holdout:
        return "not confirmed (no hold-out)"
    after = holdout[holdout["design_label"] == "after"]
    if after.empty:
        return ""
    row = after.loc[after["difference"].abs().idxmax()]
    scale, unit = _scale(str(row["objective"]))
    before = holdout[(holdout["design_label"] == "before") & (holdout["item"] == row["item"])]
    was = before["estimate"].iloc[0] * scale if not before.empty else float("nan")
    return html.escape(
        f"{row['item']}: {was:+.1f} -> {row['estimate'] * scale:+.1f} {unit} "
        f"(change {row['difference'] * scale:+.1f}, {row['difference_low'] * scale:+.1f} to "
        f"{row['difference_high'] * scale:+.1f}; held-out deals, all applied edits together)"
    )


def _players_text(state: dict[str, Any]) -> str:
    """Who played the designs: the study's knobs, or players adapted to each design."""
    adapt = state.get("adapt")
    if not adapt:
        return (
            "Every design was played with the study's strategy knobs (not adapted to it: "
            "--adapt GAMES adapts them)."
        )
    every = [a for found in adapt["designs"].values() for a in found]
    used = sum(1 for a in every if a["used"])
    return (
        f"Every design was played by players adapted to it (--adapt {adapt['budget']:,} games "
        f"a strategy and design, {adapt['games']:,} games in all, outside the budget): "
        f"{len(adapt['designs'])} design(s); the adapted knobs beat the study's on held-out "
        f"deals and were used in {used} of {len(every)} searches, elsewhere the study's "
        "knobs stayed."
    )


def _v(value: Any) -> str:
    return html.escape(str(value).lower() if isinstance(value, bool) else str(value))


def _scale(objective: str) -> tuple[float, str]:
    return (1.0, "robust z") if objective == "destinations" else (100.0, "points")


def _holdout_figure(holdout: Any, objective: str) -> Any:
    import plotly.graph_objects as go

    part = holdout[holdout["objective"] == objective]
    scale, unit = _scale(objective)
    band = float(part["band"].iloc[0]) * scale
    before = part[part["design_label"] == "before"].reset_index(drop=True)
    after = part[part["design_label"] == "after"].reset_index(drop=True)
    order = (
        before.sort_values("estimate")["item"].tolist()
        if objective == "destinations"
        else before["item"].tolist()
    )
    fig = go.Figure()
    for label, frame, colour, offset in (
        ("before", before, "#888", -0.15),
        ("after", after, "#1f77b4", 0.15),
    ):
        if frame.empty:
            continue
        frame = frame.set_index("item").loc[order].reset_index()
        positions = [i + offset for i in range(len(order))]
        fig.add_scatter(
            x=positions,
            y=frame["estimate"] * scale,
            mode="markers",
            name=label,
            marker={"color": colour, "size": 7},
            error_y={
                "type": "data",
                "symmetric": False,
                "array": (frame["high"] - frame["estimate"]) * scale,
                "arrayminus": (frame["estimate"] - frame["low"]) * scale,
            },
            customdata=frame[["item"]],
            hovertemplate="%{customdata[0]}: %{y:.2f}<extra>" + label + "</extra>",
        )
    low = -band if objective != "strategies" else min(-band, float(part["low"].min() * scale))
    fig.add_hrect(
        y0=-band if objective != "strategies" else low,
        y1=band,
        fillcolor="#ddd",
        opacity=0.5,
        line_width=0,
        layer="below",
    )
    fig.add_hline(y=0, line_color="black", line_width=1)
    what = {
        "seat": "win share minus the fair share",
        "strategies": "win rate minus what the field would win",
        "destinations": "deal value against tickets of its cost",
    }[objective]
    when = "before and after" if not after.empty else "the starting design (no edit)"
    fig.update_layout(
        title=f"{objective}: {what} ({unit}), {when}, held-out deals",
        template="plotly_white",
        height=420 if objective != "destinations" else 520,
        xaxis={
            "tickvals": list(range(len(order))),
            "ticktext": order,
            "tickangle": -60 if len(order) > 8 else 0,
            "range": [-0.5, len(order) - 0.5],
        },
        yaxis={"title": unit},
        margin={"b": 160 if len(order) > 8 else 60},
    )
    return fig


def _holdout_caption(holdout: Any, objective: str, state: dict[str, Any]) -> str:
    part = holdout[holdout["objective"] == objective]
    scale, unit = _scale(objective)
    after = part[part["design_label"] == "after"]
    shown = after if not after.empty else part[part["design_label"] == "before"]
    inside = int(shown["within"].sum())
    text = (
        f"{inside} of {len(shown)} items within the band (±{part['band'].iloc[0] * scale:g} "
        f"{unit}) at 95% for the {'tuned' if not after.empty else 'starting'} design."
    )
    if "difference" in part:
        moved = after.assign(abs_diff=after["difference"].abs()).sort_values("abs_diff").tail(3)
        parts = [
            f"{r['item']} {r['difference'] * scale:+.2f} ({r['difference_low'] * scale:+.2f} to "
            f"{r['difference_high'] * scale:+.2f})"
            for _, r in moved.iloc[::-1].iterrows()
        ]
        text += " Largest paired changes (after minus before, 95%): " + "; ".join(parts) + "."
    loss = state.get("holdout_loss") or {}
    if "after" in loss:
        text += (
            f" Objective loss {loss['before']:.3g} before, {loss['after']:.3g} after "
            f"(paired difference {loss['after'] - loss['before']:+.3g} ± "
            f"{1.96 * loss['difference_se']:.2g})."
        )
    return text


def _trace_figure(evaluations: Any) -> Any:
    """Every candidate's loss difference from the current design at its last evaluation of
    each round, with its 95% interval; colour: what became of it."""
    from plotly.subplots import make_subplots

    race = evaluations[(evaluations["round"] > 0) & (evaluations["arm"] != "base")]
    if race.empty:
        return None
    last = race.sort_values("increment").groupby(["round", "arm"]).tail(1)
    rounds = sorted(last["round"].unique())
    titles = [f"Round {r}: from {_from(evaluations, r)}" for r in rounds]
    fig = make_subplots(rows=len(rounds), cols=1, subplot_titles=titles)
    shown: set[str] = set()
    for row, number in enumerate(rounds, start=1):
        part = last[last["round"] == number].sort_values("difference")
        status = part["status"].str.split(":").str[0]
        for name in STATUS_COLOURS:
            mine = part[status == name]
            if mine.empty:
                continue
            fig.add_scatter(
                row=row,
                col=1,
                x=mine["arm"],
                y=mine["difference"],
                mode="markers",
                name=name,
                legendgroup=name,
                showlegend=name not in shown,
                marker={"color": STATUS_COLOURS[name], "size": 8},
                error_y={"type": "data", "array": 1.96 * mine["difference_se"]},
                customdata=mine[["status", "deals"]],
                hovertemplate="%{x}: %{y:.3g} (%{customdata[1]} deals; %{customdata[0]})"
                "<extra></extra>",
            )
            shown.add(name)
        fig.add_hline(y=0, line_color="black", line_width=1, row=row, col=1)
    fig.update_layout(
        title="The search: each candidate's change of the objective's loss from the current "
        "design (negative is better), same deals, 95%",
        template="plotly_white",
        height=380 * len(rounds) + 120,
    )
    fig.update_xaxes(tickangle=-45)
    return fig


def _evidence_figure(items: Any) -> Any:
    """Per round end: each surviving arm's worst item, with its interval."""
    import plotly.graph_objects as go

    if items.empty:
        return None
    ends = items[items["step"].str.endswith("-end")]
    if ends.empty:
        return None
    fig = go.Figure()
    from sims.tune import shown_item

    rows = [shown_item(str(arm), part) for (_, arm), part in ends.groupby(["step", "arm"])]
    worst = ends.loc[rows].sort_values(["step", "estimate"])
    for objective, part in worst.groupby("objective"):
        scale, unit = _scale(str(objective))
        labels = [
            f"{s.removesuffix('-end')}: {'current design' if a == 'base' else a}"
            for s, a in zip(part["step"], part["arm"], strict=True)
        ]
        fig.add_scatter(
            x=labels,
            y=part["estimate"] * scale,
            mode="markers",
            name=f"{objective} ({unit})",
            marker={"size": 9},
            error_y={
                "type": "data",
                "symmetric": False,
                "array": (part["high"] - part["estimate"]) * scale,
                "arrayminus": (part["estimate"] - part["low"]) * scale,
            },
            customdata=part[["item"]],
            hovertemplate="%{x}: %{customdata[0]} %{y:.2f}<extra></extra>",
        )
        band = float(part["band"].iloc[0]) * scale
        fig.add_hrect(y0=-band, y1=band, fillcolor="#ddd", opacity=0.5, line_width=0, layer="below")
    fig.add_hline(y=0, line_color="black", line_width=1)
    fig.update_layout(
        title="Each candidate at the end of its round: the ticket it edits, else the "
        "objective's worst item",
        template="plotly_white",
        height=440,
        margin={"b": 160},
    )
    fig.update_xaxes(tickangle=-35)
    return fig


def _from(evaluations: Any, number: int) -> str:
    part = evaluations[(evaluations["round"] == number) & (evaluations["arm"] == "base")]
    return str(part["design"].iloc[0]) if not part.empty else "the current design"


def _trace_caption(evaluations: Any) -> str:
    race = evaluations[(evaluations["round"] > 0) & (evaluations["arm"] != "base")]
    dropped = race["status"].str.startswith("dropped").sum()
    applied = race[race["status"] == "applied"]["arm"].tolist()
    return (
        f"{race['arm'].nunique()} candidate edits raced; {int(dropped)} dropped (worse than "
        "the best arm at 99%, or unable to gain the indifference margin "
        "at 99%). " + (f"Applied: {', '.join(applied)}." if applied else "None applied.")
    )


def _budget_figure(state: dict[str, Any]) -> Any:
    import plotly.graph_objects as go

    trace = [t for t in state.get("trace", [])]
    steps = [t["step"] for t in trace]
    fig = go.Figure()
    fig.add_bar(x=steps, y=[t["games"] for t in trace], name="games", marker_color="#9ecae1")
    fig.add_scatter(
        x=steps,
        y=[t.get("arms", 0) for t in trace],
        name="candidates racing",
        yaxis="y2",
        mode="lines+markers",
        line={"color": "#d62728"},
    )
    fig.update_layout(
        title="Games spent per step",
        template="plotly_white",
        height=360,
        yaxis={"title": "games"},
        yaxis2={"title": "candidates", "overlaying": "y", "side": "right"},
    )
    return fig


def _screen_figure(screen: Any) -> Any:
    from plotly.subplots import make_subplots

    names = list(screen["objective"].unique())
    fig = make_subplots(rows=len(names), cols=1, subplot_titles=names)
    for row, name in enumerate(names, start=1):
        part = screen[screen["objective"] == name]
        if name == "destinations":
            part = part.sort_values("estimate")
        scale, unit = _scale(name)
        fig.add_scatter(
            row=row,
            col=1,
            x=part["item"],
            y=part["estimate"] * scale,
            mode="markers",
            showlegend=False,
            marker={"color": "#555"},
            error_y={
                "type": "data",
                "symmetric": False,
                "array": (part["high"] - part["estimate"]) * scale,
                "arrayminus": (part["estimate"] - part["low"]) * scale,
            },
        )
        band = float(part["band"].iloc[0]) * scale
        fig.add_hrect(
            y0=-band,
            y1=band,
            fillcolor="#ddd",
            opacity=0.5,
            line_width=0,
            layer="below",
            row=row,
            col=1,
        )
        fig.update_yaxes(title_text=unit, row=row, col=1)
    fig.update_layout(
        title="The starting design on the screen", template="plotly_white", height=420 * len(names)
    )
    fig.update_xaxes(tickangle=-60)
    return fig


def _method(settings: dict[str, Any]) -> str:
    bands = settings.get("bands", {})
    band_text = ", ".join(
        f"{k} ±{v * 100:g} points" if k != "destinations" else f"{k} ±{v:g} z"
        for k, v in bands.items()
    )
    return (
        "<p><strong>Objective.</strong> Each objective is a list of items with a band "
        f"({html.escape(band_text)}); its loss is the mean over its items of (deviation / "
        "band)², and a weighted sum of objectives adds their losses. <em>seat</em>: each "
        "seat's win share minus 1/players, per player count. <em>strategies</em>: each "
        "non-random strategy's win rate minus what it would win if every non-random seat were "
        "equally strong (only an excess counts). <em>destinations</em>: each ticket's deal "
        "value against what a ticket of its cost gets in this deck: for how often it is kept "
        "when offered (logit), and its holders' winning margin and win share (each minus the "
        "mean of the same line-up and seat), the ticket's residual from a robust (Huber) fit "
        "across the deck on its circles and the bonus points of the big cities it names, "
        "made on the screen; the item is the mean of the three residuals in robust z units "
        "(1.4826 MAD), less the deck's median.</p>"
        "<p><strong>Search.</strong> A screen plays the starting design alone (10% of the "
        "budget); then each round races single edits from the current design in increments: "
        "per increment and line-up one study whose variants are the current design and the "
        "candidates, paired by deals (common random numbers; for <em>seat</em> each deal in "
        "both seat orders), each line-up on deals of its own; statistics per deal, standard "
        "errors from a bootstrap over deals. A candidate is dropped once it is worse than the "
        "best arm (the current design included) at 99%, or cannot gain the indifference margin "
        "(2% of the current loss) at 99%. At the end of a round the surviving candidates that "
        "beat the current design at 95% (one-sided, Bonferroni over the survivors) are "
        "significant; the best is applied and the other significant parameters are tried again "
        "from the new design (greedy combination). For <em>destinations</em> the candidates "
        "are the tickets (and cities) furthest from what their cost earns (the suspects), "
        "tried in the direction that brings them back, each edit compared on its own ticket "
        "(the city's tickets), the others taken from the current design: once the edited "
        "ticket is dealt the games diverge, and the other tickets' noise would drown the gain; "
        "the hold-out compares every ticket. The search stops at the maximum number of "
        "edits, when the target is met, when nothing significant is left, or when its budget "
        "is spent.</p>"
        "<p><strong>Confirmation.</strong> The starting and the tuned design are then played "
        "on held-out deals (a root seed the search never used); the verdict and the before/"
        "after intervals come only from those deals. The target is met when every item's "
        "interval lies inside its band (95%, Bonferroni over the free items: p-1 seats per "
        "player count).</p>"
    )


def _table(name: str, frame: Any) -> str:
    from .numbers import plain

    data = urllib.parse.quote(frame.to_csv(index=False))
    shown = frame.head(40).to_html(
        index=False, classes="data", float_format=plain, na_rep="", border=0
    )
    more = f" (first 40 of {len(frame)} rows)" if len(frame) > 40 else ""
    return (
        f"<details><summary>Table {html.escape(name)}{more}: <a download='{name}.csv' "
        f"href='data:text/csv;charset=utf-8,{data}'>download {name}.csv</a></summary>"
        f"{shown}</details>"
    )


# run before the package is reinstalled: python -m reports.tuning ... ---------------------


def run_command(argv: Sequence[str] | None = None) -> int:
    from cardgame import CardgameError
    from cardgame.cli import Parser, one_line

    parser = Parser(prog="cardgame", description="cardgame tune")
    sub = parser.add_subparsers(dest="command", required=True)
    register(sub)
    args = parser.parse_args(["tune", *(sys.argv[1:] if argv is None else argv)])
    try:
        return int(args.run(args) or 0)
    except CardgameError as exc:
        print(f"cardgame tune: error: {one_line(exc)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("cardgame tune: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(run_command())
