"""Train the learned win-chance model (sims/standing.py) and measure its calibration.

``train``: plays ``--games`` games of the scripted built-ins (2, 3 and 4 players in turn, each
seat drawn from planner, thief, hoarder, rusher, ticket_hunter and big_city) on the native
core, notes every seat's standing at every position, and fits the conditional logit with
statsmodels on ``--positions`` positions drawn per game (the winning seat the 1; shared wins
left out), then writes ``sims/data/standing.json``.

``calibrate``: on ``--games`` other games (seeds from another stream: never trained on), every
position but the last (the result is known there) scored by the model: Brier score (beside
the uninformed 1/players), the ten-bin reliability curve and the expected calibration error,
with 95% intervals by a bootstrap over games (sims/calibration.py, the oracle's benchmark's
code), overall and per player count; and the scoring speed. ``--write`` stores the figures
in the model file.

``compare``: the model against the play-out oracle (sims/winchance.py) at ``--positions``
positions drawn from each of ``--games`` other games (recorded, replayed): mean absolute
difference and correlation of the two chances, and each one's Brier score and ECE on the same
positions (the oracle with ``--playouts`` play-outs).

    python benchmarks/standing.py train --games 6000
    python benchmarks/standing.py calibrate --games 2000 --write
    python benchmarks/standing.py compare --games 300 --positions 4 --playouts 32
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

# benchmarks/sims.py must not shadow the sims package
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]

import numpy as np  # noqa: E402

from cardgame import Rules  # noqa: E402
from sims.calibration import report  # noqa: E402
from sims.match import GameSpec, native_loop  # noqa: E402
from sims.standing import FEATURES, MODEL_FILE, StandingModel  # noqa: E402
from sims.strategy import spec  # noqa: E402

POOL = ("planner", "thief", "hoarder", "rusher", "ticket_hunter", "big_city")
MODEL_PATH = Path(__file__).resolve().parents[1] / "sims" / "data" / MODEL_FILE
TRAIN_STREAM, HELD_OUT_STREAM = "standing-train", "standing-held-out"


def game(index: int, stream: str) -> tuple[int, np.ndarray, tuple[int, ...]]:
    """(players, standings: positions x seats x features, winners) of one game."""
    rng = random.Random(f"{stream}:{index}")
    players = 2 + index % 3
    names = [rng.choice(POOL) for _ in range(players)]
    seed = rng.getrandbits(63)
    spec_ = GameSpec(stream, "c", "base", Rules(), players, tuple(map(spec, names)), index, seed)
    native = native_loop()
    if native is None:
        raise SystemExit("the native core is not built: pip install -e .")
    twins = [native.twin(spec_, seat) for seat in range(players)]
    positions: list = []
    played, _, _, failed = native.play_native(
        native.NativeState.new(spec_.game()), twins, None, positions
    )
    if failed is not None:
        raise RuntimeError(f"game {index} failed: {failed}")
    return players, np.asarray(positions, dtype=float), tuple(played.winners)


def train(args: argparse.Namespace) -> None:
    from statsmodels.discrete.conditional_models import ConditionalLogit

    start = time.perf_counter()
    rows, labels, groups = [], [], []
    group = 0
    shared = 0
    for index in range(args.games):
        players, standings, winners = game(index, TRAIN_STREAM)
        if len(winners) > 1:
            shared += 1
            continue
        rng = random.Random(f"{TRAIN_STREAM}:positions:{index}")
        last = len(standings) - 1  # the end is the result: not a position to learn from
        for position in rng.sample(range(last), min(args.positions, last)):
            for seat in range(players):
                rows.append(standings[position, seat])
                labels.append(1.0 if seat == winners[0] else 0.0)
                groups.append(group)
            group += 1
    x, y = np.array(rows), np.array(labels)
    fit = ConditionalLogit(y, x, groups=np.array(groups)).fit(disp=False)
    weights = np.asarray(fit.params, dtype=float)
    seconds = time.perf_counter() - start
    model = StandingModel(
        weights,
        {
            "trained_on": {
                "games": args.games,
                "shared_wins_left_out": shared,
                "positions_per_game": args.positions,
                "groups": group,
                "seed_stream": TRAIN_STREAM,
                "pool": list(POOL),
                "fitted_by": "statsmodels ConditionalLogit",
                "standard_errors": dict(zip(FEATURES, map(float, fit.bse), strict=True)),
            }
        },
    )
    MODEL_PATH.parent.mkdir(exist_ok=True)
    MODEL_PATH.write_text(json.dumps(model.to_dict(), indent=1) + "\n")
    print(f"{args.games} games, {group} positions, {shared} shared wins left out, {seconds:.0f} s")
    for name, w, se in zip(FEATURES, weights, fit.bse, strict=True):
        print(f"  {name:<15} {w:+.4f} ({se:.4f})")
    print(f"-> {MODEL_PATH}")


def calibrate(args: argparse.Namespace) -> None:
    model = StandingModel.from_dict(json.loads(MODEL_PATH.read_text()))
    games, players_of, estimates, outcomes = [], [], [], []
    scoring = 0.0
    positions = 0
    for index in range(args.games):
        players, standings, winners = game(index, HELD_OUT_STREAM)
        start = time.perf_counter()
        chances = model.chances_many(standings[:-1])
        scoring += time.perf_counter() - start
        positions += len(standings) - 1
        shares = np.array([1 / len(winners) if s in winners else 0.0 for s in range(players)])
        estimates.append(chances.ravel())
        outcomes.append(np.tile(shares, len(chances)))
        games.append(np.full(chances.size, index))
        players_of.append(np.full(chances.size, players))
    figures = report(
        np.concatenate(games),
        np.concatenate(players_of),
        np.concatenate(estimates),
        np.concatenate(outcomes),
        args.bootstrap,
        2026,
    )
    figures["positions"] = positions
    figures["scoring_us_per_position"] = 1e6 * scoring / positions
    print(
        f"{figures['games']} held-out games, {positions} positions, "
        f"{figures['estimates']} estimates (position x seat)"
    )
    low, high = figures["brier_ci"]
    print(
        f"Brier {figures['brier']:.4f} [{low:.4f}, {high:.4f}] "
        f"(uninformed: {figures['brier_uninformed']:.4f})"
    )
    print(f"ECE   {figures['ece']:.4f} [{figures['ece_ci'][0]:.4f}, {figures['ece_ci'][1]:.4f}]")
    for b in figures["bins"]:
        print(
            f"  {b['low']:.1f}-{b['high']:.1f} {b['n']:>8}  estimate {b['mean_estimate']:.3f}"
            f"  won {b['won']:.3f}"
        )
    for count, part in figures["by_players"].items():
        print(
            f"{count} players: Brier {part['brier']:.4f} (uninformed "
            f"{part['brier_uninformed']:.4f}), ECE {part['ece']:.4f} "
            f"[{part['ece_ci'][0]:.4f}, {part['ece_ci'][1]:.4f}]"
        )
    print(f"scoring: {figures['scoring_us_per_position']:.2f} us a position (numpy, per game)")
    if args.write:
        data = json.loads(MODEL_PATH.read_text())
        data["calibration"] = {k: v for k, v in figures.items() if k != "bins"}
        data["calibration"]["bins"] = figures["bins"]
        data["calibration"]["seed_stream"] = HELD_OUT_STREAM
        MODEL_PATH.write_text(json.dumps(data, indent=1) + "\n")


def compare(args: argparse.Namespace) -> None:
    from sims.calibration import bootstrap, brier, ece, interval
    from sims.match import play_game
    from sims.standing import standing
    from sims.winchance import Oracle, positions

    model = StandingModel.from_dict(json.loads(MODEL_PATH.read_text()))
    rows = []  # game, model chance, oracle chance, outcome
    start = time.perf_counter()
    for index in range(args.games):
        rng = random.Random(f"standing-compare:{index}")
        players = 2 + index % 3
        names = [rng.choice(POOL) for _ in range(players)]
        game_ = GameSpec("compare", "c", "base", Rules(), players, tuple(map(spec, names)), index,
                         rng.getrandbits(63))  # fmt: skip
        record = play_game(game_, None, True, 0).record
        winners = record["result"]["winners"]
        shares = [1 / len(winners) if s in winners else 0.0 for s in range(players)]
        chosen = set(rng.sample(range(len(record["turns"])), args.positions))
        oracle = Oracle(record, args.playouts)
        for position in positions(record):
            if position.index in chosen:
                mine = model.chances_many([standing(position.state)])[0]
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
    args = parser.parse_args()
    {"train": train, "calibrate": calibrate, "compare": compare}[args.command](args)


if __name__ == "__main__":
    main()
