"""The tuner's goals: a planted imbalance found and undone, the printed game's first
seat at 2 players, and the cost of a whole tune (games, wall time). Not a test.

    python benchmarks/tune.py planted [--cards-to-plant N] [--workers W] [--budget GAMES]
    python benchmarks/tune.py seat [--workers W] [--budget GAMES] [--holdout GAMES]
    python benchmarks/tune.py twins
    python benchmarks/tune.py speed [--workers W] [--budget GAMES] [--holdout GAMES]
    python benchmarks/tune.py adapt [--adapt GAMES]

``planted``: for N tickets of 12 points or fewer (a seeded draw), a copy of the card folder
with that ticket's points raised by 6 (by 5 for every second one) is tuned with the
``destinations`` objective (``--cards``). Goal: the first edit the tune applies is that ticket
(named first), to a value within 1 point of the fair price of its cost, for at least 9 of 10
tickets, at least three of them tickets with same-cost mates. The fair price (one per cost):
the price its same-cost tickets share (a price within 1 of every one's printed points, the
middle of those), else (no mates, or no shared price) the price the objective's cost model
fits on the printed deck (a Huber fit of the printed points on a ticket's circles and the
bonus points of the big cities it names, the objective's own regressors and norm). Each row
prints the planted ticket, the screen's worst deal values, the tuner's own suspects (by deal
value and price list together) and its sentence pricing the ticket it edits, the applied
edit, the fair price and where it comes from, and whether both parts of the goal hold. The
fair price reads the printed deck; the tuner never does (its price list is the planted
edition's other tickets). ``--adapt GAMES`` tunes with players adapted to each design.

``twins``: the printed tickets that cost the same in play (circles, repeats, big cities named),
whether one price lies within 1 of all their printed points, and each one's fair price: an
objective that judges a ticket by what it does in play gives such tickets one fair price, so
the printed value is no yardstick where the class prints several.

``seat``: the printed game at 2 players on the default ladder (strategy-ladder), objective
``seat`` with its default edits: at most 2 edits that bring the first seat within 1.5 points
of 50% at 95% on the held-out games, or the statement that the allowed edits cannot.

``speed``: the seat tune against a plain simulate of the same line-ups (strategy-ladder at 2
players, as many games as the tune played), each timed by the wall clock and by CPU time
(this process and its workers: ``getrusage`` of self and children). Goal: the tune at least
0.8x the simulate's games per CPU second, and the default seat tune (about 260,000 games)
within 60 s on 2 cores.

``adapt``: one adaptation search (planner against thief at 2 players, ``--adapt`` games,
default 4,000), in a process that has searched once already (a warm worker), against a plain
simulate of the same line-up, games per CPU second each. Goal: the engine's pace.

Every tune prints its games (search and hold-out), its wall time and its CPU time.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

# benchmarks/sims.py is named like the package: keep this folder off the import path
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]

import pandas as pd  # noqa: E402

from cardgame import _native  # noqa: E402
from cardgame.catalogue import default_catalogue  # noqa: E402
from sims.study import load_study  # noqa: E402
from sims.tune import tune  # noqa: E402
from sims.tune.space import ticket_costs  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "cardgame" / "data"


def planted_folder(card: int, raise_by: int, folder: Path) -> int:
    """A copy of the card data with ``card``'s points raised; returns the printed points."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("big_cities.csv", "destinations.csv"):
        shutil.copy(DATA / name, folder / name)
    with open(folder / "destinations.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    printed = 0
    for row in rows:
        if int(row["id"]) == card:
            printed = int(row["points"])
            row["points"] = str(printed + raise_by)
    with open(folder / "destinations.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return printed


def same_cost() -> dict[int, list[tuple[int, int]]]:
    """Each printed ticket's class of tickets that cost the same in play: the same circles
    (counted with their repeats) and the same big cities named, as (id, printed points). The
    colours themselves are left out: the deck holds 10 of each, and the tickets ask for each
    colour 16 to 18 times."""
    catalogue = default_catalogue()
    big = set(catalogue.big_city_names)
    classes: dict[tuple, list[tuple[int, int]]] = {}
    for ticket in catalogue.destinations:
        repeats = tuple(sorted((n for n in ticket.need if n), reverse=True))
        names = tuple(sorted(c for c in (ticket.city_a, ticket.city_b) if c in big))
        classes.setdefault((repeats, names), []).append((ticket.id, ticket.points))
    return {card: members for members in classes.values() for card, _ in members}


def fair_window(members: list[tuple[int, int]]) -> str:
    """The prices within 1 of every member's printed points, in words ("none" if none)."""
    low = max(points for _, points in members) - 1
    high = min(points for _, points in members) + 1
    if low > high:
        return "none"
    return str(low) if low == high else f"{low} to {high}"


def fitted_prices() -> dict[int, float]:
    """The price the objective's cost model fits on the printed deck: a robust (Huber) fit
    of the printed points on [1, circles, named bonus points] across the deck, the same
    regressors and norm as the destinations objective's fit of deal value."""
    import numpy as np
    import statsmodels.api as sm

    catalogue = default_catalogue()
    costs = ticket_costs(catalogue)
    ids = [d.id for d in catalogue.destinations]
    points = np.array([d.points for d in catalogue.destinations], dtype=float)
    design = np.column_stack([np.ones(len(ids)), [costs[i] for i in ids]])
    params = sm.RLM(points, design, M=sm.robust.norms.HuberT()).fit().params
    return {i: float(x) for i, x in zip(ids, design @ params, strict=True)}


def fair_price(card: int, classes: dict[int, list[tuple[int, int]]] | None = None,
               fitted: dict[int, float] | None = None) -> tuple[float, str]:  # fmt: skip
    """The fair price of a ticket's cost, one per cost, and where it comes from: the price its
    class of same-cost tickets shares (the middle of the prices within 1 of every member's
    printed points), else (no mates, or no such price) the objective's fit on the deck."""
    classes = same_cost() if classes is None else classes
    members = classes[card]
    low = max(points for _, points in members) - 1
    high = min(points for _, points in members) + 1
    if len(members) > 1 and low <= high:
        return (low + high) / 2, "shared"
    fitted = fitted_prices() if fitted is None else fitted
    return fitted[card], "fit"


def twins() -> int:
    """What the planted goal asks of an objective that prices a ticket by what it does in
    play: one price per class; and each ticket's fair price."""
    classes = same_cost()
    fitted = fitted_prices()
    shown_classes = {tuple(m) for m in classes.values() if len(m) > 1}
    for members in sorted(shown_classes):
        shown = ", ".join(f"#{c} {p}" for c, p in members)
        prices = ", ".join(
            "#{} {:.1f} ({})".format(c, *fair_price(c, classes, fitted)) for c, _ in members
        )
        print(
            f"  {shown}: a price within 1 of every one: {fair_window(list(members))}; "
            f"fair prices {prices}"
        )
    return 0


def eligible_cards() -> list[int]:
    with open(DATA / "destinations.csv", newline="", encoding="utf-8") as handle:
        return [int(r["id"]) for r in csv.DictReader(handle) if int(r["points"]) <= 12]


def cpu_seconds() -> float:
    """CPU time (user and system) of this process and of its children reaped so far: a tune's
    or a run's workers are reaped when it ends."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timed(label: str, **kwargs) -> tuple[object, float, dict]:
    start, cpu = time.perf_counter(), cpu_seconds()
    result = tune(**kwargs)
    seconds, cpu = time.perf_counter() - start, cpu_seconds() - cpu
    state = json.loads((Path(kwargs["out"]) / "tune.json").read_text())
    games = state["games"]
    played = games["search"] + games["holdout"]
    print(
        f"  [{label}] {games['search']:,} search + {games['holdout']:,} hold-out games = "
        f"{played:,} games in {seconds:.1f} s, {cpu:.1f} CPU s "
        f"({played / seconds:,.0f} games/s, {played / cpu:,.0f} games/CPU s)",
        flush=True,
    )
    state["seconds"], state["cpu"] = seconds, cpu
    return result, seconds, state


def speed(args: argparse.Namespace, root: Path) -> int:
    """The seat tune and a plain simulate of its line-ups, games per CPU second each."""
    from sims.runner import run
    from sims.study import from_dict

    _, _, state = timed(
        "seat tune, 2 players",
        study=load_study("strategy-ladder"),
        objective="seat",
        max_edits=args.max_edits,
        budget=args.budget,
        holdout=args.holdout,
        workers=args.workers,
        out=root / "tune-seat",
        players=[2],
        progress=False,
    )
    played = state["games"]["search"] + state["games"]["holdout"]
    ladder = load_study("strategy-ladder")
    cells = 21  # line-ups of 2 of the 7 strategies, each a cell of the printed game
    data = {**ladder.source, "players": [2], "games_per_cell": max(2, played // cells // 2 * 2)}
    study = from_dict(data, "strategy-ladder at 2 players")
    start, cpu = time.perf_counter(), cpu_seconds()
    summary = run(study, workers=args.workers, out=root / "simulate", progress=False)
    seconds, cpu = time.perf_counter() - start, cpu_seconds() - cpu
    games = summary.games_played
    print(
        f"  [simulate, the same line-ups] {games:,} games in {seconds:.1f} s, {cpu:.1f} CPU s "
        f"({games / seconds:,.0f} games/s, {games / cpu:,.0f} games/CPU s)",
        flush=True,
    )
    ratio = (played / state["cpu"]) / (games / cpu)
    print(f"  the tune's games per CPU second: {ratio:.2f}x the simulate's (goal: at least 0.8x)")
    return 0


def planted(args: argparse.Namespace, root: Path) -> int:
    cards = eligible_cards()
    order = random.Random(args.seed).sample(cards, len(cards))[: args.cards_to_plant]
    missing = sorted(set(args.only or ()) - set(order))
    if missing:
        print(f"--only: not among the drawn tickets ({', '.join(map(str, order))}): {missing}")
        return 2
    classes = same_cost()
    fitted = fitted_prices()
    rows = []
    for number, card in enumerate(order):
        if args.only and card not in args.only:
            continue
        raise_by = 6 if number % 2 == 0 else 5
        folder = root / f"cards-{card}"
        printed = planted_folder(card, raise_by, folder)
        print(f"#{card}: printed {printed}, planted {printed + raise_by}", flush=True)
        lines: list[str] = []
        _, seconds, state = timed(
            f"#{card}",
            study=load_study(args.study),
            objective="destinations",
            cards=str(folder),
            max_edits=args.max_edits,
            budget=args.budget,
            holdout=args.holdout,
            workers=args.workers,
            out=root / f"tune-{card}",
            players=args.players,
            bands=args.bands,
            **({"adapt": args.adapt} if args.adapt else {}),
            progress=False,
            log=lines.append,
        )
        items = pd.read_parquet(root / f"tune-{card}" / "items.parquet")
        screen = items[items["step"] == "screen"].assign(size=lambda f: f["estimate"].abs())
        top = screen.sort_values("size", ascending=False).head(3)
        suspects = ", ".join(
            f"{r['item'].split()[0]} ({r['estimate']:+.2f})" for _, r in top.iterrows()
        )
        planted_d = float(screen[screen["item"].str.startswith(f"#{card} ")]["estimate"].iloc[0])
        members = classes[card]
        first = state["edits"][0] if state["edits"] else None
        named = first is not None and first["parameter"] == f"destinations.{card}.points"
        fair, source = fair_price(card, classes, fitted)
        close = named and abs(first["to"] - fair) <= 1
        edit = f"{first['parameter']} {first['from']} -> {first['to']}" if first else "no edit"
        print(
            f"  screen: planted ticket {planted_d:+.2f}; worst {suspects}; first edit: {edit}; "
            f"named first: {named}; fair price {fair:.1f} ({source}); within 1 of it: {close}",
            flush=True,
        )
        listed = next((x for x in lines if x.startswith("suspects: ")), "suspects: none")
        print(f"  the tuner's {listed} (play and price list)", flush=True)
        for note in state.get("notes", []):
            print(f"  {note}", flush=True)
        rows.append(
            {
                "card": card,
                "printed": printed,
                "planted": printed + raise_by,
                "deal_value": planted_d,
                "first_edit": edit,
                "named_first": named,
                "within_1": close,
                "same_cost": " ".join(f"#{c}:{p}" for c, p in members if c != card) or "-",
                "fair_price": round(fair, 1),
                "from": source,
                "games": state["games"]["search"] + state["games"]["holdout"],
                "seconds": round(seconds),
            }
        )
    frame = pd.DataFrame(rows)
    print()
    print(frame.to_string(index=False))
    hit = frame["named_first"] & frame["within_1"]
    mated = frame["same_cost"] != "-"
    print(
        f"\nGoal (>= 9 of 10, here scaled to {len(frame)}, at least three with same-cost "
        f"mates): named first and within 1 of the fair price for {int(hit.sum())} of "
        f"{len(frame)} planted tickets ({int((hit & mated).sum())} of the {int(mated.sum())} "
        f"with same-cost mates); named first for {int(frame['named_first'].sum())}."
    )
    return 0


def seat(args: argparse.Namespace, root: Path) -> int:
    result, _, _ = timed(
        "seat, 2 players",
        study=load_study("strategy-ladder"),
        objective="seat",
        max_edits=args.max_edits,
        budget=args.budget,
        holdout=args.holdout,
        workers=args.workers,
        out=root / "tune-seat",
        players=[2],
        progress=False,
    )
    for line in result.summary:
        print(f"  {line}")
    holdout = result.holdout
    first = holdout[holdout["item"] == "2 players, seat 1"]
    for _, row in first.iterrows():
        print(
            f"  first seat, {row['design_label']}: {50 + 100 * row['estimate']:.1f}% "
            f"({50 + 100 * row['low']:.1f} to {50 + 100 * row['high']:.1f}, 95%)"
        )
    return 0


def adapt(args: argparse.Namespace, root: Path) -> int:
    """An adaptation search's games per CPU second against a plain simulate's."""
    from sims.adapt import adapt_one
    from sims.runner import run
    from sims.study import from_dict

    budget = args.adapt or 4_000
    data = {"name": "pace", "seed": 5, "players": [2], "lineups": [["planner", "thief"]],
            "games_per_cell": budget, "adapt": {"budget": budget}}  # fmt: skip
    study = from_dict(data, "pace")
    adapt_one(study.plan, "base", "thief")  # the imports and the twins, as a warm worker has
    start = time.process_time()
    found = adapt_one(study.plan, "base", "planner")
    cpu = time.process_time() - start
    assert found is not None
    print(
        f"  [adaptation, planner against thief] {found.games:,} games in {cpu:.2f} CPU s "
        f"({found.games / cpu:,.0f} games/CPU s)",
        flush=True,
    )
    start, cpu = time.perf_counter(), cpu_seconds()
    plain = from_dict({k: v for k, v in data.items() if k != "adapt"}, "pace")
    summary = run(plain, workers=1, out=root / "simulate", progress=False)
    cpu = cpu_seconds() - cpu
    games = summary.games_played
    print(
        f"  [simulate, the same line-up, 1 worker] {games:,} games in {cpu:.2f} CPU s "
        f"({games / cpu:,.0f} games/CPU s)",
        flush=True,
    )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("goal", choices=("planted", "seat", "twins", "speed", "adapt"))
    parser.add_argument("--cards-to-plant", type=int, default=10)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--budget", type=int, default=None)
    parser.add_argument("--holdout", type=int, default=None)
    parser.add_argument("--max-edits", type=int, default=None)
    parser.add_argument("--study", default="destinations", help="planted: the study tuned")
    parser.add_argument("--players", type=lambda t: [int(x) for x in t.split(",")], default=None)
    parser.add_argument("--seed", type=int, default=15, help="planted: which tickets")
    parser.add_argument("--bands", default=None, help="as tune's --bands, e.g. destinations=2")
    parser.add_argument(
        "--adapt", type=int, default=None, metavar="GAMES", help="planted: adapted players"
    )
    parser.add_argument(
        "--only",
        type=lambda t: [int(x) for x in t.split(",")],
        default=None,
        help="planted: just these of the drawn tickets",
    )
    parser.add_argument("--keep", metavar="DIR", help="keep the tunes' folders here")
    args = parser.parse_args()
    if args.goal == "twins":
        return twins()
    defaults = {"planted": (120_000, 0, 1), "seat": (240_000, 20_000, 2)}
    defaults = defaults.get(args.goal, defaults["seat"])
    args.budget = args.budget or defaults[0]
    args.holdout = defaults[1] if args.holdout is None else args.holdout
    args.max_edits = args.max_edits or defaults[2]
    print(f"{_native.describe()}; {args.workers or 'all'} worker(s)", flush=True)
    goal = {"planted": planted, "seat": seat, "speed": speed, "adapt": adapt}[args.goal]
    if args.keep:
        root = Path(args.keep)
        root.mkdir(parents=True, exist_ok=True)
        return goal(args, root)
    with tempfile.TemporaryDirectory() as folder:
        return goal(args, Path(folder))


if __name__ == "__main__":
    sys.exit(main())
