"""Calibration of the play-out oracle (sims/winchance.py) on held-out games.

Plays ``--games`` fresh games (seeds drawn from ``--seed``, never used to build or tune the
oracle) between the scripted built-ins, 2, 3 and 4 players in turn, each seat drawn from
planner, thief, hoarder, rusher, ticket_hunter and big_city. At ``--positions`` positions of
each game (drawn at random, the end excluded: it is known) the oracle estimates every
seat's chance with ``--playouts`` play-outs; each estimate is paired with the seat's share
of the real win (1, 0, or 1/k of a shared win). Prints the Brier score (and the Brier score
of the uninformed guess 1/players), the reliability curve in ten bins and the expected
calibration error (ECE: the bins' gaps weighted by their share of the estimates), with 95%
intervals from a bootstrap over games (the positions of one game are not independent).

    python benchmarks/winchance.py --games 2000 --workers 2
    python benchmarks/winchance.py --games 2000 --policy planner  # planner plays every seat
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

# benchmarks/sims.py must not shadow the sims package
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]

import numpy as np  # noqa: E402

from cardgame import Rules  # noqa: E402
from sims.calibration import report  # noqa: E402
from sims.match import GameSpec, play_game  # noqa: E402
from sims.strategy import spec  # noqa: E402
from sims.winchance import Oracle, positions  # noqa: E402

POOL = ("planner", "thief", "hoarder", "rusher", "ticket_hunter", "big_city")


Row = tuple[int, int, int, float, float]


def one_game(args: tuple[int, int, int, int, str | None]) -> list[Row]:
    """(game, players, position, estimate, outcome) for every seat at the chosen positions."""
    game_index, root, picked, playouts, policy = args
    rng = random.Random(f"{root}:calibration:{game_index}")
    players = 2 + game_index % 3
    names = [rng.choice(POOL) for _ in range(players)]
    seed = rng.getrandbits(63)
    game = GameSpec("calibration", "c", "base", Rules(), players, tuple(map(spec, names)), 0, seed)
    outcome = play_game(game, None, True, 0)
    record = outcome.record
    if record is None:
        raise RuntimeError(f"game {game_index} failed: {outcome.game['failure_error']}")
    winners = record["result"]["winners"]
    shares = [1 / len(winners) if s in winners else 0.0 for s in range(players)]
    last = len(record["turns"])
    chosen = set(rng.sample(range(last), min(picked, last)))
    oracle = Oracle(record, playouts, policy)
    rows = []
    for position in positions(record):
        if position.index not in chosen:
            continue
        chance = oracle.at(position).chance
        for seat in range(players):
            rows.append((game_index, players, position.index, chance[seat], shares[seat]))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--positions", type=int, default=8, help="positions per game")
    parser.add_argument("--playouts", type=int, default=64)
    parser.add_argument("--policy", help="one play-out strategy for every seat")
    parser.add_argument("--seed", type=int, default=20180418, help="root of the games' seeds")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--out", help="also write the figures as JSON")
    args = parser.parse_args()
    start = time.perf_counter()
    jobs = [(g, args.seed, args.positions, args.playouts, args.policy) for g in range(args.games)]
    rows: list[Row] = []
    with ProcessPoolExecutor(args.workers) as pool:
        for part in pool.map(one_game, jobs, chunksize=8):
            rows.extend(part)
    table = np.array(rows, dtype=float)
    figures = report(table[:, 0], table[:, 1], table[:, 3], table[:, 4], args.bootstrap, args.seed)
    figures["playouts"] = args.playouts
    figures["policy"] = args.policy or "record"
    figures["seconds"] = time.perf_counter() - start
    print(
        f"{figures['games']} games, {figures['estimates']} estimates (game x position x seat), "
        f"K = {args.playouts} play-outs, policy {figures['policy']}, "
        f"{figures['seconds']:.0f} s"
    )
    print(
        f"Brier {figures['brier']:.4f} [{figures['brier_ci'][0]:.4f}, "
        f"{figures['brier_ci'][1]:.4f}]  (uninformed 1/players: "
        f"{figures['brier_uninformed']:.4f})"
    )
    print(f"ECE   {figures['ece']:.4f} [{figures['ece_ci'][0]:.4f}, {figures['ece_ci'][1]:.4f}]")
    print("bin          n   mean estimate   won")
    for b in figures["bins"]:
        print(
            f"{b['low']:.1f}-{b['high']:.1f} {b['n']:>7}   {b['mean_estimate']:>13.3f}"
            f"   {b['won']:.3f}"
        )
    for players, part in figures["by_players"].items():
        print(
            f"{players} players: {part['games']} games, Brier {part['brier']:.4f} "
            f"(uninformed {part['brier_uninformed']:.4f}), ECE {part['ece']:.4f}"
        )
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=1) + "\n")


if __name__ == "__main__":
    main()
