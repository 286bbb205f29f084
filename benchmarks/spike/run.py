"""Cython vs numba spike: the same kernel (kernel.py) as plain CPython, numba and Cython,
beside the pure-Python engine, in one run, by CPU time (time.process_time).

Run: python benchmarks/spike/build.py && python benchmarks/spike/run.py
     [--games 20000] [--engine-games 600] [--py-games 40]
Needs numba and cython in the venv (spike only: not project dependencies).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import random
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
BUILD = HERE / "build"
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

import cardgame.state  # noqa: E402
from cardgame import Game, default_catalogue  # noqa: E402
from cardgame.randomplay import play_random  # noqa: E402
from cardgame.resolution import resolve  # noqa: E402

CATALOGUE = default_catalogue()
BIG = frozenset(CATALOGUE.big_city_names)
DESTS = [CATALOGUE.destination(i) for i in range(1, 47)]
NEEDS = np.array([d.need for d in DESTS], np.int64)
VALUES = np.array(
    [d.points * 8192 + 128 + (d.city_a in BIG) + (d.city_b in BIG) for d in DESTS], np.int64
)
POINTS = np.array([d.points for d in DESTS], np.int64)
IDS = np.arange(1, 47, dtype=np.int64)


def load(name: str) -> ModuleType:
    """A fresh copy of kernel.py under ``name`` (plain CPython)."""
    spec = importlib.util.spec_from_file_location(name, HERE / "kernel.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def numba_kernel(cache: bool = False) -> ModuleType:
    """kernel.py with ``@numba.njit`` put on every top-level function, written to build/ as
    an importable module (numba's on-disk cache needs one); the functions call each other
    through the module globals, so they compile as one native call tree."""
    name = "kernel_nbc" if cache else "kernel_nb"
    source = (HERE / "kernel.py").read_text()
    decorated = source.replace("\nimport cython\n", "\nimport cython\nimport numba\n").replace(
        "\n@cython.cfunc\n", f"\n@numba.njit(cache={cache})\n@cython.cfunc\n"
    )
    decorated = decorated.replace(
        "\ndef play_games(", f"\n@numba.njit(cache={cache})\ndef play_games("
    )
    decorated = decorated.replace(
        "\ndef resolve_many(", f"\n@numba.njit(cache={cache})\ndef resolve_many("
    )
    BUILD.mkdir(exist_ok=True)
    target = BUILD / f"{name}.py"
    if not target.exists() or target.read_text() != decorated:
        target.write_text(decorated)
    if str(BUILD) not in sys.path:
        sys.path.insert(0, str(BUILD))
    return importlib.import_module(name)


def cython_kernel() -> ModuleType:
    if str(BUILD) not in sys.path:
        sys.path.insert(0, str(BUILD))
    import kernel_cy  # type: ignore[import-not-found]

    return kernel_cy


def cpu(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.process_time()
    result = fn()
    return time.process_time() - start, result


def holdings(games: int) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Resolutions of random-play games (2-4 players), then 40 random all-46 holdings."""
    seen = []

    def spy(circulation, destinations, big):  # type: ignore[no-untyped-def]
        seen.append((tuple(circulation), tuple(d.id for d in destinations)))
        return resolve(circulation, destinations, big)

    cardgame.state.resolve = spy  # type: ignore[assignment]
    for players in (2, 3, 4):
        for seed in range(games):
            play_random(Game(players, seed), checked=False)
    cardgame.state.resolve = resolve  # type: ignore[assignment]
    rng = random.Random(46)
    deck = [c for c in range(8) for _ in range(10)] + [8] * 16
    for _ in range(40):
        pile = [0] * 9
        for card in rng.sample(deck, rng.randint(15, 60)):
            pile[card] += 1
        seen.append((tuple(pile), tuple(range(1, 47))))
    return seen


def as_arrays(hs: list[tuple[tuple[int, ...], tuple[int, ...]]]) -> tuple[np.ndarray, ...]:
    piles = np.array([p for p, _ in hs], np.int64)
    held = np.zeros((len(hs), 46), np.int64)
    counts = np.array([len(ids) for _, ids in hs], np.int64)
    for h, (_, ids) in enumerate(hs):
        held[h, : len(ids)] = ids
    return piles, held, counts


def fresh_process_first_call(kind: str) -> float:
    """CPU seconds, in a new interpreter, from start to the end of the first game."""
    make = "run.cython_kernel()" if kind == "cython" else f"run.numba_kernel({kind == 'cached'})"
    code = (
        f"import sys, time; sys.path.insert(0, {str(HERE)!r}); import run; k = {make}; "
        "s = run.np.zeros(2, run.np.int64); "
        "k.play_games(0, 1, 2, run.NEEDS, run.VALUES, run.POINTS, run.IDS, s); "
        "print(time.process_time())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=20000, help="kernel games (compiled)")
    parser.add_argument("--py-games", type=int, default=40, help="kernel games, plain CPython")
    parser.add_argument("--engine-games", type=int, default=600, help="engine games")
    parser.add_argument("--holding-games", type=int, default=200, help="games per size")
    args = parser.parse_args()
    import numba

    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, numba {numba.__version__}, numpy {np.__version__}"
    )
    # --- warm-up / compile costs
    t_nb_fresh = fresh_process_first_call("numba")
    for stale in BUILD.glob("__pycache__/kernel_nbc*.nb[ic]"):  # start from a cold cache
        stale.unlink()
    t_nb_cached = fresh_process_first_call("cached")
    t_nb_cached = fresh_process_first_call("cached")  # the second run reads the cache
    t_cy_fresh = fresh_process_first_call("cython")
    t_none = float(
        subprocess.run(
            [sys.executable, "-c", "import numpy, time; print(time.process_time())"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    print(
        f"new process to first game (CPU s): numba JIT {t_nb_fresh:.2f}, numba with "
        f"cache=True (cache warm) {t_nb_cached:.2f}, cython {t_cy_fresh:.2f}, "
        f"bare python+numpy {t_none:.2f}"
    )
    kernels = {"numba": numba_kernel(), "cython": cython_kernel(), "kernel-py": load("kpy")}
    stats = np.zeros(2, np.int64)
    jit_s, _ = cpu(lambda: kernels["numba"].play_games(0, 1, 2, NEEDS, VALUES, POINTS, IDS, stats))
    print(f"numba first call in this process (compile): {jit_s:.2f} s CPU")

    # --- games
    print(f"{'2-player random games':<26} {'games':>7} {'CPU s':>7} {'games/s':>9} {'checksum':>9}")
    sums = {}
    for name, kernel in kernels.items():
        games = args.py_games if name == "kernel-py" else args.games
        stats[:] = 0
        spent, total = cpu(
            lambda k=kernel, g=games: k.play_games(0, g, 2, NEEDS, VALUES, POINTS, IDS, stats)
        )
        sums[name] = (games, total)
        print(f"{name:<26} {games:>7} {spent:>7.2f} {games / spent:>9.0f} {total:>9}")
    if sums["numba"] != sums["cython"]:
        sys.exit("spike: numba and cython played different games")
    same = kernels["numba"].play_games(0, args.py_games, 2, NEEDS, VALUES, POINTS, IDS, stats)
    if same != sums["kernel-py"][1]:
        sys.exit("spike: numba and plain CPython played different games")
    spent, _ = cpu(
        lambda: [play_random(Game(2, s), checked=False) for s in range(args.engine_games)]
    )
    rate = args.engine_games / spent
    print(f"{'engine (full rules)':<26} {args.engine_games:>7} {spent:>7.2f} {rate:>9.0f}")

    # --- resolutions
    hs = holdings(args.holding_games)
    piles, held, counts = as_arrays(hs)
    spent_engine, expected = cpu(
        lambda: [resolve(p, [CATALOGUE.destination(i) for i in ids], BIG) for p, ids in hs]
    )
    print(
        f"{'R16 resolutions':<26} {'count':>7} {'CPU s':>7} {'per s':>9} "
        f"{'max ms':>7}  ({len(hs) - 40} from play + 40 all-46)"
    )
    print(f"{'engine':<26} {len(hs):>7} {spent_engine:>7.2f} {len(hs) / spent_engine:>9.0f}")
    for name in ("numba", "cython"):
        kernel = kernels[name]
        out = np.zeros((len(hs), 46), np.int64)
        kernel.resolve_many(piles[:1], held[:1], counts[:1], NEEDS, VALUES, IDS, out, stats)
        spent, _ = cpu(
            lambda k=kernel, o=out: k.resolve_many(
                piles, held, counts, NEEDS, VALUES, IDS, o, stats
            )
        )
        worst = 0.0
        one_out = np.zeros((1, 46), np.int64)
        for h in range(len(hs) - 40, len(hs)):  # each all-46 holding alone, for the max
            one, _ = cpu(
                lambda k=kernel, h=h, o=one_out: k.resolve_many(
                    piles[h : h + 1], held[h : h + 1], counts[h : h + 1],
                    NEEDS, VALUES, IDS, o, stats,
                )
            )  # fmt: skip
            worst = max(worst, one)
        got = [
            tuple(sorted(int(held[h, j]) for j in range(counts[h]) if out[h, j]))
            for h in range(len(hs))
        ]
        if got != expected:
            sys.exit(f"spike: {name} resolved differently from the engine")
        print(f"{name:<26} {len(hs):>7} {spent:>7.2f} {len(hs) / spent:>9.0f} {worst * 1e3:>7.2f}")
    print("all kernels agree with the engine's resolutions; numba and cython on every game")


if __name__ == "__main__":
    main()
