"""Train the learned win-chance model (sims/standing.py) and measure its calibration.

``train``: plays ``--games`` games (2, 3 and 4 players in turn, each seat drawn from random,
planner, thief, hoarder, rusher, ticket_hunter, big_city and planner-human, and in a fifth of
the games one seat the search player, ismcts-16 or ismcts-64, as the skill study configures
them), notes every seat's standing at every position (on the native core, or by replaying
the record of a game with a seat that has no native twin), and fits the conditional logit
with its strategy terms with statsmodels on ``--positions`` positions drawn per game (the
winning seat the 1; shared wins left out), then writes ``sims/data/standing.json``.

``calibrate``: on ``--games`` other games (seeds from another stream: never trained on;
``--mix skill``: the skill study's line-ups instead), every position but the last (the
result is known there) scored by the model: Brier score (beside the uninformed 1/players),
the ten-bin reliability curve and the expected calibration error, with 95% intervals by a
bootstrap over games (sims/calibration.py, the oracle's benchmark's code), overall, per
player count, and per strategy (each strategy's mean chance beside its win share, Brier and
ECE: ``by_group``); ``--before FILE`` measures another model file on the same games (the
model before strategy terms: ``git show 99f9ddc:sims/data/standing.json``). ``--write``
stores the figures in the model file.

``compare``: the model against the play-out oracle (sims/winchance.py) at ``--positions``
positions drawn from each of ``--games`` other games (recorded, replayed): mean absolute
difference and correlation of the two chances, and each one's Brier score and ECE on the same
positions (the oracle with ``--playouts`` play-outs).

    python benchmarks/standing.py train --games 8000
    python benchmarks/standing.py calibrate --games 6000 --bootstrap 500 --before OLD --write
    python benchmarks/standing.py calibrate --games 3000 --mix skill --before OLD
    python benchmarks/standing.py compare --games 300 --positions 4 --playouts 32
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

# benchmarks/sims.py must not shadow the sims package
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]

import numpy as np  # noqa: E402

from cardgame import Rules  # noqa: E402
from sims.calibration import by_group, report  # noqa: E402
from sims.match import GameSpec, native_loop, play_game  # noqa: E402
from sims.standing import (  # noqa: E402
    FEATURES,
    MODEL_FILE,
    StandingModel,
    fit_model,
    standing,
    strategy_key,
)
from sims.strategy import StrategySpec, spec  # noqa: E402
from sims.winchance import positions  # noqa: E402

SCRIPTED = (
    "planner",
    "thief",
    "hoarder",
    "rusher",
    "ticket_hunter",
    "big_city",
    "random",
    "planner-human",
)
SEARCH = ("ismcts-16", "ismcts-64")  # the skill study's search players (few of their games)
SEARCH_SHARE = 0.2  # the share of games with one search seat
SKILL = {  # the skill study's configured strategies (sims/studies/skill.toml)
    "planner-human": StrategySpec("planner-human", "planner", (("memory", "human"),)),
    "ismcts-16": StrategySpec("ismcts-16", "ismcts", (("iterations", 16),)),
    "ismcts-64": StrategySpec("ismcts-64", "ismcts", (("iterations", 64),)),
}
REFERENCE = "planner"  # the strategy term fixed at 0 in the fit (then all are centred)
MODEL_PATH = Path(__file__).resolve().parents[1] / "sims" / "data" / MODEL_FILE
TRAIN_STREAM, HELD_OUT_STREAM = "standing-train", "standing-held-out"


def seat_spec(label: str) -> StrategySpec:
    return SKILL.get(label) or spec(label)


def skill_lineups() -> list[list[str]]:
    """The line-ups of the skill study (sims/studies/skill.toml)."""
    text = (MODEL_PATH.parents[1] / "studies" / "skill.toml").read_text()
    return [
        entry["seats"] if isinstance(entry, dict) else entry
        for entry in tomllib.loads(text)["lineups"]
    ]


def game(
    index: int, stream: str, mix: str = "pool"
) -> tuple[int, np.ndarray, tuple[int, ...], tuple[StrategySpec, ...]]:
    """(players, standings: positions x seats x features, winners, seats) of one game:
    2, 3 and 4 players in turn, each seat drawn from ``SCRIPTED``, and in ``SEARCH_SHARE``
    of the games one seat a search player. Played on the native core when every seat has
    a twin; else on the Python engine, recorded, its positions read by replaying the record
    (what ``sims.winchance.chance_table`` does). ``mix`` "skill": instead, one of the skill
    study's line-ups drawn at random."""
    rng = random.Random(f"{stream}:{index}")
    if mix == "skill":  # one of the skill study's line-ups, its seats in a random order
        names = list(rng.choice(skill_lineups()))
        rng.shuffle(names)
        players = len(names)
    else:
        players = 2 + index % 3
        names = [rng.choice(SCRIPTED) for _ in range(players)]
        if rng.random() < SEARCH_SHARE:
            names[rng.randrange(players)] = rng.choice(SEARCH)
    seats = tuple(map(seat_spec, names))
    seed = rng.getrandbits(63)
    spec_ = GameSpec(stream, "c", "base", Rules(), players, seats, index, seed)
    native = native_loop()
    if native is None:
        raise SystemExit("the native core is not built: pip install -e .")
    twins = [native.twin(spec_, seat) for seat in range(players)]
    if any(t is None for t in twins):
        record = play_game(spec_, None, True, 0).record
        if record is None:
            raise RuntimeError(f"game {index} failed")
        standings = [standing(p.state) for p in positions(record, checked=True)]
        return players, np.asarray(standings), tuple(record["result"]["winners"]), seats
    noted: list = []
    played, _, _, failed = native.play_native(
        native.NativeState.new(spec_.game()), twins, None, noted
    )
    if failed is not None:
        raise RuntimeError(f"game {index} failed: {failed}")
    return players, np.asarray(noted, dtype=float), tuple(played.winners), seats


def train(args: argparse.Namespace) -> None:
    start = time.perf_counter()
    rows, keys, labels, groups = [], [], [], []
    group = 0
    shared = 0
    games_of: dict[str, int] = {}
    for index in range(args.games):
        players, standings, winners, seats = game(index, TRAIN_STREAM)
        if len(winners) > 1:
            shared += 1
            continue
        for seat in seats:
            games_of[strategy_key(seat)] = games_of.get(strategy_key(seat), 0) + 1
        rng = random.Random(f"{TRAIN_STREAM}:positions:{index}")
        last = len(standings) - 1  # the end is the result: not a position to learn from
        for position in rng.sample(range(last), min(args.positions, last)):
            for seat in range(players):
                rows.append(standings[position, seat])
                keys.append(strategy_key(seats[seat]))
                labels.append(1.0 if seat == winners[0] else 0.0)
                groups.append(group)
            group += 1
    meta = {
        "trained_on": {
            "games": args.games,
            "shared_wins_left_out": shared,
            "positions_per_game": args.positions,
            "groups": group,
            "seed_stream": TRAIN_STREAM,
            "pool": list(SCRIPTED),
            "search": list(SEARCH),
            "search_share": SEARCH_SHARE,
            "seats_by_strategy": dict(sorted(games_of.items())),
            "reference": REFERENCE,
            "fitted_by": "statsmodels ConditionalLogit",
        }
    }
    model, standard_errors = fit_model(rows, keys, labels, groups, REFERENCE, meta)
    meta["trained_on"]["standard_errors"] = standard_errors
    model.aliases = {label: strategy_key(s) for label, s in SKILL.items()}
    seconds = time.perf_counter() - start
    MODEL_PATH.parent.mkdir(exist_ok=True)
    MODEL_PATH.write_text(json.dumps(model.to_dict(), indent=1) + "\n")
    print(f"{args.games} games, {group} positions, {shared} shared wins left out, {seconds:.0f} s")
    for name, w in zip(FEATURES, model.weights, strict=True):
        print(f"  {name:<24} {w:+.4f} ({standard_errors.get(name, 0.0):.4f})")
    for key, (a, b) in sorted(model.strengths.items()):
        print(f"  {key:<24} strength {a:+.3f}, late {b:+.3f}")
    print(f"-> {MODEL_PATH}")


def held_out(count: int, mix: str) -> list[tuple[int, np.ndarray, tuple[int, ...], tuple]]:
    """The calibration games: seeds from a stream never trained on."""
    stream = HELD_OUT_STREAM if mix == "pool" else f"{HELD_OUT_STREAM}-{mix}"
    return [game(index, stream, mix) for index in range(count)]


def scored(model: StandingModel, games: list, neutral: bool = False) -> dict[str, np.ndarray]:
    """Every estimate of ``games`` (each position but the last, each seat) with its game,
    player count, seat's strategy label and outcome; ``neutral``: no strategy terms."""
    columns: dict[str, list] = {k: [] for k in ("game", "players", "label", "p", "y")}
    for index, (players, standings, winners, seats) in enumerate(games):
        terms = None if neutral else model.terms(seats)
        chances = model.chances_many(standings[:-1], terms)
        shares = np.array([1 / len(winners) if s in winners else 0.0 for s in range(players)])
        columns["p"].append(chances.ravel())
        columns["y"].append(np.tile(shares, len(chances)))
        columns["game"].append(np.full(chances.size, index))
        columns["players"].append(np.full(chances.size, players))
        columns["label"].append(np.tile([s.label for s in seats], len(chances)))
    return {k: np.concatenate(v) for k, v in columns.items()}


def calibration(est: dict[str, np.ndarray], draws: int) -> dict[str, Any]:
    """``report`` overall and per player count, and ``by_group`` per strategy, overall and
    per player count."""
    figures = report(est["game"], est["players"], est["p"], est["y"], draws, 2026)
    figures["by_strategy"] = by_group(est["game"], est["label"], est["p"], est["y"], draws, 2026)
    for count, part in figures["by_players"].items():
        at = est["players"] == count
        part["by_strategy"] = by_group(
            est["game"][at], est["label"][at], est["p"][at], est["y"][at], draws, 2026
        )
    return figures


def show(name: str, figures: dict[str, Any]) -> None:
    low, high = figures["brier_ci"]
    print(
        f"{name}: Brier {figures['brier']:.4f} [{low:.4f}, {high:.4f}] "
        f"(uninformed {figures['brier_uninformed']:.4f}), ECE {figures['ece']:.4f} "
        f"[{figures['ece_ci'][0]:.4f}, {figures['ece_ci'][1]:.4f}]"
    )
    parts = [("all", figures), *figures["by_players"].items()]
    for count, part in parts:
        if count != "all":
            print(
                f"  {count} players: Brier {part['brier']:.4f} (uninformed "
                f"{part['brier_uninformed']:.4f}), ECE {part['ece']:.4f} "
                f"[{part['ece_ci'][0]:.4f}, {part['ece_ci'][1]:.4f}]"
            )
        worst = max(g["ece"] for g in part["by_strategy"].values())
        print(f"    {'strategy':<14} games  chance    won  Brier [95%]            ECE [95%]")
        for label, g in part["by_strategy"].items():
            print(
                f"    {label:<14} {g['games']:>5}  {g['mean_estimate']:.3f}  {g['won']:.3f}  "
                f"{g['brier']:.4f} [{g['brier_ci'][0]:.4f}, {g['brier_ci'][1]:.4f}]  "
                f"{g['ece']:.4f} [{g['ece_ci'][0]:.4f}, {g['ece_ci'][1]:.4f}]"
            )
        print(f"    worst per-strategy ECE ({count}): {worst:.4f}")


def calibrate(args: argparse.Namespace) -> None:
    model = StandingModel.from_dict(json.loads(Path(args.model).read_text()))
    start = time.perf_counter()
    games = held_out(args.games, args.mix)
    played = time.perf_counter() - start
    start = time.perf_counter()
    est = scored(model, games)
    positions_ = sum(len(g[1]) - 1 for g in games)
    scoring = time.perf_counter() - start
    figures = calibration(est, args.bootstrap)
    figures["positions"] = positions_
    figures["scoring_us_per_position"] = 1e6 * scoring / positions_
    print(
        f"{figures['games']} held-out games ({played:.0f} s to play), {positions_} positions, "
        f"{figures['estimates']} estimates (position x seat)"
    )
    if args.before:
        before = StandingModel.from_dict(json.loads(Path(args.before).read_text()))
        show(f"before ({args.before})", calibration(scored(before, games), args.bootstrap))
    if model.strengths:
        show("this model, strategy terms left out", calibration(scored(model, games, True), 100))
    show(f"this model ({args.model})", figures)
    for b in figures["bins"]:
        print(
            f"  {b['low']:.1f}-{b['high']:.1f} {b['n']:>8}  estimate {b['mean_estimate']:.3f}"
            f"  won {b['won']:.3f}"
        )
    print(f"scoring: {figures['scoring_us_per_position']:.2f} us a position (numpy, per game)")
    if args.write and args.mix == "pool":
        data = json.loads(MODEL_PATH.read_text())
        data["calibration"] = {k: v for k, v in figures.items() if k != "bins"}
        data["calibration"]["bins"] = figures["bins"]
        data["calibration"]["seed_stream"] = HELD_OUT_STREAM
        MODEL_PATH.write_text(json.dumps(data, indent=1) + "\n")


def compare(args: argparse.Namespace) -> None:
    from sims.calibration import bootstrap, brier, ece, interval
    from sims.match import play_game
    from sims.winchance import Oracle

    model = StandingModel.from_dict(json.loads(MODEL_PATH.read_text()))
    rows = []  # game, model chance, oracle chance, outcome
    start = time.perf_counter()
    for index in range(args.games):
        rng = random.Random(f"standing-compare:{index}")
        players = 2 + index % 3
        seats = tuple(seat_spec(rng.choice(SCRIPTED)) for _ in range(players))
        game_ = GameSpec("compare", "c", "base", Rules(), players, seats, index,
                         rng.getrandbits(63))  # fmt: skip
        record = play_game(game_, None, True, 0).record
        winners = record["result"]["winners"]
        shares = [1 / len(winners) if s in winners else 0.0 for s in range(players)]
        chosen = set(rng.sample(range(len(record["turns"])), args.positions))
        oracle = Oracle(record, args.playouts)
        for position in positions(record):
            if position.index in chosen:
                mine = model.chances_many([standing(position.state)], model.terms(seats))[0]
                theirs = oracle.at(position).chance
                rows.extend((index, mine[s], theirs[s], shares[s]) for s in range(players))
    table = np.array(rows)
    game_of, mine, theirs, won = table.T
    seconds = time.perf_counter() - start
    print(
        f"{args.games} games x {args.positions} positions, {len(table)} estimates, oracle "
        f"{args.playouts} play-outs, {seconds:.0f} s"
    )
    print(
        f"model - oracle: mean |difference| {np.abs(mine - theirs).mean():.3f}, "
        f"correlation {np.corrcoef(mine, theirs)[0, 1]:.3f}"
    )
    for name, p in (("model", mine), ("oracle", theirs)):
        briers, eces = bootstrap(game_of, p, won, args.bootstrap, 2026)
        print(
            f"{name:<6}: Brier {brier(p, won):.4f} {interval(briers)}, ECE {ece(p, won):.4f} "
            f"{interval(eces)}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("train", "calibrate", "compare"))
    parser.add_argument("--playouts", type=int, default=32, help="compare: the oracle's")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--positions", type=int, default=12, help="positions per game (train)")
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--write", action="store_true", help="calibrate: store the figures")
    parser.add_argument("--model", default=str(MODEL_PATH), help="calibrate: the model file")
    parser.add_argument(
        "--mix",
        choices=("pool", "skill"),
        default="pool",
        help="calibrate: seats drawn from the training pool, or the skill study's line-ups "
        "(not stored by --write)",
    )
    parser.add_argument(
        "--before", metavar="FILE", help="calibrate: a model to measure on the same games too"
    )
    args = parser.parse_args()
    {"train": train, "calibrate": calibrate, "compare": compare}[args.command](args)


if __name__ == "__main__":
    main()
