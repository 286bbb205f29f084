"""Train the learned win-chance model (sims/standing.py) and measure its calibration.

``train``: plays ``--games`` games of ``--mix`` (2, 3 and 4 players in turn; "pool": each
seat drawn from random, planner, thief, hoarder, rusher, ticket_hunter, big_city and
planner-human, and in a fifth of the games one seat the search player, ismcts-16 or ismcts-64,
as the skill study configures them; "scripted": the pool without search seats), and beside
them ``--skill-games`` of the skill study's line-ups, ``--search-games`` of its line-ups with
a search seat and ``--pool-games`` of the pool, each set on its own seed stream; notes every
seat's standing at every position (on the native core, or by replaying the record of a game
with a seat that has no native twin), and fits the conditional logit with its strategy terms
(``--terms``: pooled, per player count, the match-up term, or both; numpy Newton,
``sims.standing.conditional_logit``) on ``--positions`` positions drawn per game (the
winning seat the 1; shared wins left out), then writes ``--out`` (``sims/data/standing.json``).
``--cache DIR`` keeps every played game there (100 a file) and reads them back: a refit, or
a calibration of another model, plays nothing again.

``calibrate``: on ``--games`` other games (seeds from another stream: never trained on;
``--mix skill``: the skill study's line-ups instead; ``--mix search``: its line-ups with a
search seat, half of them with ismcts-64), every position but the last (the
result is known there) scored by the model: Brier score (beside the uninformed 1/players),
the ten-bin reliability curve and the expected calibration error, with 95% intervals by a
bootstrap over games (sims/calibration.py, the oracle's benchmark's code), overall, per
player count, and per strategy (each strategy's mean chance beside its win share, Brier and
ECE, and the ECE's noise floor and debiased value: ``by_group``, ``noise``); ``--before
FILE`` measures another model file on the same games (the model of format 2, one strength
per strategy: ``git show de832b3:sims/data/standing.json``). ``--write`` stores the figures
in the model file (``calibration``, ``calibration_skill``, ``calibration_search``).

``compare``: the model against the play-out oracle (sims/winchance.py) at ``--positions``
positions drawn from each of ``--games`` other games (recorded, replayed): mean absolute
difference and correlation of the two chances, and each one's Brier score and ECE on the same
positions (the oracle with ``--playouts`` play-outs).

    python benchmarks/standing.py train --mix scripted --games 6000 --skill-games 1000 \
        --search-games 600 --pool-games 2000 --workers 2 --cache /tmp/games
    python benchmarks/standing.py calibrate --games 4000 --before OLD --write --cache /tmp/games
    python benchmarks/standing.py calibrate --games 1000 --mix skill --before OLD --write
    python benchmarks/standing.py calibrate --games 600 --mix search --before OLD --write
    python benchmarks/standing.py compare --games 300 --positions 4 --playouts 32
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import tomllib
from concurrent.futures import ProcessPoolExecutor
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
    study's line-ups drawn at random; "search": one of its line-ups with a search seat, in
    half the games one with ismcts-64 (4 of its 25 search line-ups: too few games of it
    otherwise for a per-strategy figure); "scripted": the pool without search seats (a
    search game costs a second, a scripted one a hundredth)."""
    rng = random.Random(f"{stream}:{index}")
    if mix in ("skill", "search"):  # one of the skill study's line-ups, seats in a random order
        lineups = skill_lineups()
        if mix == "search":  # its line-ups with a search seat, half of them with ismcts-64
            deep = rng.random() < 0.5
            lineups = [seats for seats in lineups if any(s in SEARCH for s in seats)]
            lineups = [seats for seats in lineups if ("ismcts-64" in seats) == deep]
        names = list(rng.choice(lineups))
        rng.shuffle(names)
        players = len(names)
    else:
        players = 2 + index % 3
        names = [rng.choice(SCRIPTED) for _ in range(players)]
        if mix == "pool" and rng.random() < SEARCH_SHARE:
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


Game = tuple[int, np.ndarray, tuple[int, ...], tuple[StrategySpec, ...]]


def _one(job: tuple[int, str, str]) -> tuple[int, np.ndarray, tuple[int, ...], list[str]]:
    players, standings, winners, seats = game(*job)
    return players, standings, winners, [s.label for s in seats]


CHUNK = 100  # games per cache file: an interrupted run keeps what it played


def _save(path: Path, games: list[Game]) -> None:
    np.savez_compressed(
        path,
        players=np.array([g[0] for g in games]),
        positions=np.array([len(g[1]) for g in games]),
        rows=np.concatenate([g[1].reshape(-1, len(FEATURES)) for g in games]),
        winners=np.array([list(g[2]) + [-1] * (4 - len(g[2])) for g in games]),
        labels=np.array([[s.label for s in g[3]] + [""] * (4 - g[0]) for g in games]),
    )


def _load(path: Path) -> list[Game]:
    data = np.load(path)
    cuts = np.cumsum(data["positions"] * data["players"])[:-1]
    blocks = np.split(data["rows"], cuts)
    return [
        (
            int(n),
            block.reshape(-1, int(n), len(FEATURES)),
            tuple(int(w) for w in won if w >= 0),
            tuple(seat_spec(str(label)) for label in names[:n]),
        )
        for n, block, won, names in zip(
            data["players"], blocks, data["winners"], data["labels"], strict=True
        )
    ]


def played(count: int, stream: str, mix: str, workers: int, cache: str | None) -> list[Game]:
    """``count`` games of ``game(index, stream, mix)``, in index order whatever the number
    of workers; with ``cache`` (a folder) kept there in files of ``CHUNK`` games and read
    back on the next run (a larger count plays only the games it lacks)."""
    games: list[Game] = []
    pool = ProcessPoolExecutor(workers) if workers > 1 else None
    try:
        for first in range(0, count, CHUNK):
            last = min(first + CHUNK, count)
            path = Path(cache) / f"{stream}-{mix}-{first}-{last}.npz" if cache else None
            if path is not None and path.exists():
                games.extend(_load(path))
                continue
            jobs = [(index, stream, mix) for index in range(first, last)]
            done = list(pool.map(_one, jobs, chunksize=2)) if pool else list(map(_one, jobs))
            part = [(n, x, won, tuple(map(seat_spec, names))) for n, x, won, names in done]
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                _save(path, part)
            games.extend(part)
    finally:
        if pool is not None:
            pool.shutdown()
    return games


def train(args: argparse.Namespace) -> None:
    start = time.perf_counter()
    rows, keys, labels, groups = [], [], [], []
    group = 0
    shared = 0
    games_of: dict[str, int] = {}
    sets = [
        (TRAIN_STREAM, args.mix, args.games),
        (f"{TRAIN_STREAM}-skill", "skill", args.skill_games),
        (f"{TRAIN_STREAM}-search", "search", args.search_games),
        (f"{TRAIN_STREAM}-pool", "pool", args.pool_games),
    ]
    every = [
        (stream, index, g)
        for stream, mix, count in sets
        if count
        for index, g in enumerate(played(count, stream, mix, args.workers, args.cache))
    ]
    playing = time.perf_counter() - start
    for stream, index, (players, standings, winners, seats) in every:
        if len(winners) > 1:
            shared += 1
            continue
        for seat in seats:
            games_of[strategy_key(seat)] = games_of.get(strategy_key(seat), 0) + 1
        rng = random.Random(f"{stream}:positions:{index}")
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
            "games": len(every),
            "games_by_mix": {
                args.mix: args.games,
                "skill": args.skill_games,
                "search": args.search_games,
                "pool_beside": args.pool_games,
            },
            "shared_wins_left_out": shared,
            "positions_per_game": args.positions,
            "groups": group,
            "seed_stream": TRAIN_STREAM,
            "pool": list(SCRIPTED),
            "search": list(SEARCH),
            "search_share": SEARCH_SHARE,
            "seats_by_strategy": dict(sorted(games_of.items())),
            "reference": REFERENCE,
            "terms": args.terms,
            "shrink": args.shrink,
            "fitted_by": "sims.standing.conditional_logit (numpy Newton)",
        }
    }
    fitting = time.perf_counter()
    model, standard_errors = fit_model(
        rows,
        keys,
        labels,
        groups,
        REFERENCE,
        meta,
        by_players=args.terms in ("by-players", "both"),
        rivals=args.terms in ("rivals", "both"),
        shrink=args.shrink,
    )
    fitting = time.perf_counter() - fitting
    meta["trained_on"]["standard_errors"] = standard_errors
    model.aliases = {label: strategy_key(s) for label, s in SKILL.items()}
    seconds = time.perf_counter() - start
    Path(args.out).parent.mkdir(exist_ok=True)
    Path(args.out).write_text(json.dumps(model.to_dict(), indent=1) + "\n")
    print(
        f"{len(every)} games, {group} positions, {shared} shared wins left out, {seconds:.0f} s "
        f"({playing:.0f} s to play or read, {fitting:.0f} s to fit)"
    )
    for name, w in zip(FEATURES, model.weights, strict=True):
        print(f"  {name:<24} {w:+.4f} ({standard_errors.get(name, 0.0):.4f})")
    for key, (a, b) in sorted(model.strengths.items()):
        counts = "  ".join(
            f"{n}p {x:+.2f}/{y:+.2f}" for n, (x, y) in sorted(model.by_players.get(key, {}).items())
        )
        match = f", rivals {model.rivals[key]:+.3f}" if key in model.rivals else ""
        print(f"  {key:<24} strength {a:+.3f}, late {b:+.3f}{match}  {counts}")
    print(f"-> {args.out}")


def held_out(count: int, mix: str, workers: int = 1, cache: str | None = None) -> list[Game]:
    """The calibration games: seeds from a stream never trained on."""
    stream = HELD_OUT_STREAM if mix == "pool" else f"{HELD_OUT_STREAM}-{mix}"
    return played(count, stream, mix, workers, cache)


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
        f"[{figures['ece_ci'][0]:.4f}, {figures['ece_ci'][1]:.4f}] (noise "
        f"{figures['ece_noise']:.4f}, debiased {figures['ece_debiased']:.4f})"
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
        print(
            f"    {'strategy':<14} games  chance    won  Brier [95%]            ECE [95%]"
            "                 noise  debiased"
        )
        for label, g in part["by_strategy"].items():
            print(
                f"    {label:<14} {g['games']:>5}  {g['mean_estimate']:.3f}  {g['won']:.3f}  "
                f"{g['brier']:.4f} [{g['brier_ci'][0]:.4f}, {g['brier_ci'][1]:.4f}]  "
                f"{g['ece']:.4f} [{g['ece_ci'][0]:.4f}, {g['ece_ci'][1]:.4f}]  "
                f"{g['ece_noise']:.4f}  {g['ece_debiased']:.4f}"
            )
        print(f"    worst per-strategy ECE ({count}): {worst:.4f}")


def calibrate(args: argparse.Namespace) -> None:
    model = StandingModel.from_dict(json.loads(Path(args.model).read_text()))
    start = time.perf_counter()
    games = held_out(args.games, args.mix, args.workers, args.cache)
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
    if args.write:
        path = Path(args.model)
        data = json.loads(path.read_text())
        name = "calibration" if args.mix == "pool" else f"calibration_{args.mix}"
        data[name] = {k: v for k, v in figures.items() if k != "bins"}
        data[name]["bins"] = figures["bins"]
        data[name]["seed_stream"] = (
            HELD_OUT_STREAM if args.mix == "pool" else (f"{HELD_OUT_STREAM}-{args.mix}")
        )
        path.write_text(json.dumps(data, indent=1) + "\n")


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
    parser.add_argument("--workers", type=int, default=1, help="processes playing the games")
    parser.add_argument("--cache", metavar="DIR", help="keep the played games there, reuse them")
    parser.add_argument(
        "--skill-games", type=int, default=0, help="train: games of the skill study's line-ups"
    )
    parser.add_argument(
        "--search-games", type=int, default=0, help="train: games of its search line-ups"
    )
    parser.add_argument(
        "--pool-games", type=int, default=0, help="train: games of the pool mix beside --mix's"
    )
    parser.add_argument(
        "--terms",
        choices=("pooled", "by-players", "rivals", "both"),
        default="both",
        help="train: strategy terms pooled, per player count, with the match-up term, or both",
    )
    parser.add_argument("--shrink", type=float, default=4.0, help="train: per-count ridge")
    parser.add_argument("--out", default=str(MODEL_PATH), help="train: the model file written")
    parser.add_argument("--write", action="store_true", help="calibrate: store the figures")
    parser.add_argument("--model", default=str(MODEL_PATH), help="calibrate: the model file")
    parser.add_argument(
        "--mix",
        choices=("pool", "scripted", "skill", "search"),
        default="pool",
        help="the games: seats drawn from the training pool (train: with --skill-games and "
        "--search-games beside), the pool without search seats, the skill study's line-ups, "
        "or its search line-ups (calibrate --write stores each under its own key)",
    )
    parser.add_argument(
        "--before", metavar="FILE", help="calibrate: a model to measure on the same games too"
    )
    args = parser.parse_args()
    {"train": train, "calibrate": calibrate, "compare": compare}[args.command](args)


if __name__ == "__main__":
    main()
