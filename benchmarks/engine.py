"""Engine speed: games per second of random legal play, one core, recording off and on,
and the Python engine and the native core side by side (CPU time beside wall time).

Run: python benchmarks/engine.py [--games N]. Not a test: figures depend on the machine.

``--edition 60,8`` measures an edition of 60 tickets and 8 big cities against the printed
cards (``--edition 60,8,9``: and a deck of 9 colours, 10 cards each and 16 locomotives),
interleaved game by game in each mode, after checking that both engines record its games
byte for byte (issue 36's goal: at least 80% of the printed game's games/s).

``--versus DIR`` measures only the native core's random play at 2 players with ``Game()``
counted (what a worker pays per game), here against DIR, another checkout (``git worktree
add``): one process each, in short alternating rounds of the same games, the estimate being
the median of the rounds' paired ratios (``--games 2000 --rounds 41``). Measured 2026-11-27
on the shared 2-core machine: 1.17x against 002000e (quartiles 1.14-1.20x; medians 9.5k
and 11.1k games/s, best rounds 10.1k and 12.9k: the machine had slowed by a third since
the session's first rounds). Later that day, after R16's new budgets, the offers' keeps
listed once and MT19937's constants folded: 1.40x against 002000e (quartiles 1.35-1.52x;
medians 11.8k and 16.9k); main's median 21.4k in a fast hour, 15.0k in a slow one.
2026-11-26, in rounds of fresh processes:
957dfb4 5,685 games/s, with ``Game()``'s facts kept and the printed rules shared 10,148.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from cardgame import Game, _native, resolution
from cardgame.randomplay import play_random


def rates(players: int, games: int) -> tuple[float, float, float]:
    """Games/s unchecked, checked and recorded. The three are interleaved game by game (the
    same game each way), so drifting machine speed cannot pass for a difference."""
    spent = [0.0, 0.0, 0.0]
    settings = ((False, False), (False, True), (True, False))  # (record, checked)
    for seed in range(games):
        for i, (record, checked) in enumerate(settings):
            start = time.perf_counter()
            play_random(Game(players, seed), record=record, checked=checked)
            spent[i] += time.perf_counter() - start
    return games / spent[0], games / spent[1], games / spent[2]


# the Python engine (R16 in Python, or in the native kernel), and the whole game in C
MODES = ["python", "python+R16"] + (["native"] if _native.BUILT else [])


def _play(mode: str, game: Game) -> None:
    if mode == "native":
        from cardgame._native._core import play_random as native_random

        native_random(game)
        return
    with resolution.engine_in_use("python" if mode == "python" else "native"):
        play_random(game, checked=False)


def engine_rates(players: int, games: int) -> dict[str, tuple[float, float]]:
    """Games/s (by CPU time, by wall time) of unchecked random play in each mode built
    here, interleaved game by game: the same game in each mode in turn (the same games:
    tests/test_native_core.py)."""
    cpu = dict.fromkeys(MODES, 0.0)
    wall = dict.fromkeys(MODES, 0.0)
    for seed in range(games):
        game = Game(players, seed)
        for mode in MODES:
            start_cpu, start_wall = time.process_time(), time.perf_counter()
            _play(mode, game)
            cpu[mode] += time.process_time() - start_cpu
            wall[mode] += time.perf_counter() - start_wall
    return {mode: (games / cpu[mode], games / wall[mode]) for mode in MODES}


def print_engines(games: int) -> None:
    print(f"\nengines side by side ({_native.describe()}); games/s by CPU time (wall time)")
    print("  python+R16: the Python engine with the native R16 kernel; native: the game in C")
    print(f"{'players':>7} " + " ".join(f"{m:>20}" for m in MODES) + "   native/python")
    for players in (2, 3, 4):
        got = engine_rates(players, games)
        line = f"{players:>7} " + " ".join(
            f"{cpu:>10.0f} ({wall:>6.0f})/s" for cpu, wall in got.values()
        )
        if "native" in got:
            line += f" {got['native'][0] / got['python'][0]:>14.1f}x"
        print(line)


def native_alone(players: int, games: int, catalogue: Any = None) -> float:
    """Games/s by CPU time of the native core's random play run back to back: interleaved
    with Python games (above) its caches start cold each game, which costs it about 30%."""
    return native_turns(players, games, catalogue)[0]


def native_turns(players: int, games: int, catalogue: Any = None) -> tuple[float, float]:
    """``native_alone``'s games/s and its turns/s: an edition of a larger deck plays longer
    games, turn for turn as fast."""
    from cardgame._native._core import play_random as native_random

    from cardgame import default_catalogue

    cards = catalogue or default_catalogue()
    todo = [Game(players, seed, catalogue=cards) for seed in range(games)]
    start = time.process_time()
    turns = 0
    for game in todo:
        turns += native_random(game).turn
    spent = time.process_time() - start
    return games / spent, turns / spent


RANDOM_PLAYER = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
import cardgame
from cardgame import Game
from cardgame._native._core import play_random
assert cardgame.__file__.startswith(sys.argv[1]), cardgame.__file__
for seed in range(3000):  # warm
    play_random(Game(2, seed))
first = 3000
for line in sys.stdin:  # a round: this many games, their rate by CPU time
    games = int(line)
    start = time.process_time()
    for seed in range(first, first + games):
        play_random(Game(2, seed))
    first += games
    print(json.dumps(games / (time.process_time() - start)), flush=True)
"""


def random_versus(before: Path, games: int, rounds: int) -> None:
    """Native random play at 2 players, ``Game()`` counted, games/s by CPU time: this
    checkout against ``before``, one process each, in short alternating rounds of the same
    games. The estimate is the median of the rounds' paired ratios: a machine whose speed
    drifts from second to second (a shared one) slows both sides of a pair alike."""
    here = Path(__file__).resolve().parents[1]
    sources = [before, here]
    env = {**os.environ, "CARDGAME_ENGINE": "native"}
    players = [
        subprocess.Popen(
            [sys.executable, "-c", RANDOM_PLAYER, str(source)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        for source in sources
    ]
    rates: list[list[float]] = [[], []]
    for round_ in range(rounds):
        for i in (0, 1) if round_ % 2 == 0 else (1, 0):  # each side first in turn
            stdin, stdout = players[i].stdin, players[i].stdout
            assert stdin is not None and stdout is not None
            stdin.write(f"{games}\n")
            stdin.flush()
            rates[i].append(json.loads(stdout.readline()))
    for player in players:
        assert player.stdin is not None
        player.stdin.close()
        player.wait()
    for source, got in zip(sources, rates, strict=True):
        print(
            f"  {source}: median {statistics.median(got):,.0f} games/s, "
            f"best {max(got):,.0f} ({rounds} rounds of {games})"
        )
    ratios = [after / first for first, after in zip(*rates, strict=True)]
    low, _, high = statistics.quantiles(ratios, n=4)
    print(
        f"  here/before: median paired ratio {statistics.median(ratios):.3f}x "
        f"(quartiles {low:.3f}-{high:.3f})"
    )


def edition_rates(
    players: int,
    games: int,
    tickets: int,
    bigs: int,
    colours: int | None = None,
    deck: tuple[int, ...] | None = None,
) -> dict[str, tuple[float, float]]:
    """Games/s by CPU time of unchecked random play, the printed cards and a synthetic
    edition of ``tickets`` tickets and ``bigs`` big cities (cardgame.edition.synthetic)
    interleaved game by game, in each mode; before timing, the first games' records are
    checked byte for byte between the Python engine and the native core."""
    from cardgame import default_catalogue
    from cardgame.edition import synthetic
    from cardgame.record import to_record

    edition = synthetic(tickets, bigs, seed=tickets, colours=colours, deck=deck)
    cards = {"printed": default_catalogue(), "edition": edition}
    if _native.BUILT:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' harness
        from tests.native_engine import engine_in_use

        for seed in range(min(games, 50)):
            game = Game(players, seed, catalogue=edition)
            texts = []
            for engine in ("python", "native"):
                with engine_in_use(engine):
                    state = play_random(game, record=True)
                texts.append(json.dumps(to_record(state), sort_keys=True))
            assert texts[0] == texts[1], f"the engines differ on seed {seed}"
    spent = {(mode, name): 0.0 for mode in MODES for name in cards}
    for seed in range(games):
        for name, catalogue in cards.items():
            game = Game(players, seed, catalogue=catalogue)
            for mode in MODES:
                start = time.process_time()
                _play(mode, game)
                spent[mode, name] += time.process_time() - start
    return {
        mode: (games / spent[mode, "printed"], games / spent[mode, "edition"]) for mode in MODES
    }


def print_editions(
    games: int,
    tickets: int,
    bigs: int,
    colours: int | None = None,
    deck: tuple[int, ...] | None = None,
) -> None:
    shown = "" if colours is None else f" and {colours} colours"
    shown += (
        ""
        if deck is None
        else f" (a deck of {sum(deck)}: {deck[0]} a colour, {deck[-1]} locomotives)"
    )
    print(
        f"\nan edition of {tickets} tickets, {bigs} big cities{shown} against the printed 46, 6 "
        f"and 8 (records identical on both engines); games/s by CPU time, {games} games a cell"
    )
    print(f"{'players':>7} " + " ".join(f"{m:>24}" for m in MODES))
    for players in (2, 3, 4):
        got = edition_rates(players, games, tickets, bigs, colours, deck)
        print(
            f"{players:>7} "
            + " ".join(
                f"{printed:>8.0f} {edition:>6.0f} {edition / printed:>6.0%}"
                for printed, edition in got.values()
            )
        )
    if _native.BUILT:
        from cardgame.edition import synthetic

        edition = synthetic(tickets, bigs, seed=tickets, colours=colours, deck=deck)
        count = 10 * games
        print(
            f"native core alone, {count} games back to back (games/s printed, edition, "
            "ratio; turns/s ratio):"
        )
        for players in (2, 3, 4):
            for _ in range(2):  # the second round: warm caches on both sides
                printed, printed_turns = native_turns(players, count)
                other, other_turns = native_turns(players, count, edition)
            print(
                f"{players:>7} {printed:>8.0f} {other:>6.0f} {other / printed:>6.0%}"
                f" {other_turns / printed_turns:>6.0%}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--versus", type=Path, help="a checkout to compare random play with")
    parser.add_argument("--rounds", type=int, default=41, help="rounds of --versus")
    parser.add_argument(
        "--edition",
        metavar="TICKETS,BIGS[,COLOURS[,CARDS,LOCOS]]",
        help="only an edition of this shape against the printed cards (e.g. 60,8 or 60,8,9; "
        "60,8,9,9,15: a deck of 9 cards a colour and 15 locomotives, the printed deck's 96)",
    )
    args = parser.parse_args()
    if args.edition is not None:
        shape = [int(x) for x in args.edition.split(",")]
        colours = shape[2] if len(shape) > 2 else None
        deck = None
        if colours is not None and len(shape) == 5:
            deck = (shape[3],) * colours + (shape[4],)
        print_editions(args.games, shape[0], shape[1], colours, deck)
        return
    if args.versus is not None:
        print(f"native random play, 2 players, Game() counted, {args.games} games, one core:")
        random_versus(args.versus.resolve(), args.games, args.rounds)
        return
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}; one core; {args.games} games per cell"
    )
    print(f"{'players':>7} {'unchecked':>10} {'checked':>9} {'recorded':>9} {'record cost':>12}")
    for players in (2, 3, 4):
        fast, checked, recorded = rates(players, args.games)
        print(
            f"{players:>7} {fast:>8.0f}/s {checked:>7.0f}/s {recorded:>7.0f}/s "
            f"{fast / recorded:>11.2f}x"
        )
    print_engines(args.games)
    if _native.BUILT:
        count = 10 * args.games
        alone = ", ".join(f"{p} players {native_alone(p, count):,.0f}/s" for p in (2, 3, 4))
        print(f"native core alone, {count} games back to back, by CPU time: {alone}")


if __name__ == "__main__":
    main()
