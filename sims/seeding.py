"""Per-game seeds from the study's root seed (numpy SeedSequence).

A game's seed depends only on (root seed, cell key, game index): never on which worker ran
it, in what order, or how many workers there were. A paired study replaces the cell key by
the player count (``deal_key``), so every variant and line-up of a player count replays the
same deals (common random numbers, docs/data.md): ``pairing = "deals"`` plays deal ``index``
as game ``index``; ``pairing = "seatings"`` also replays each deal in every seat order.
"""

from __future__ import annotations

import hashlib
import hmac
import importlib
import random
import secrets
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np


def cell_token(cell_key: str) -> int:
    """A stable 32-bit number for a cell's key (crc32: the same on every machine)."""
    return zlib.crc32(cell_key.encode("utf-8"))


def game_seed(root: int, cell_key: str, index: int) -> int:
    """The seed of game ``index`` of a cell: 63 bits from SeedSequence(root, spawn_key).

    Its hashing runs in C where the extension is built and the numbers fit 64 bits
    (sims/_native/_seeding.pyx, the same words as numpy's: tests/sims/test_seeding.py)."""
    token = cell_token(cell_key)
    words = _seed_words()
    if words is not None and 0 <= root < 2**64 and 0 <= index < 2**64:
        high, low = words(root, token, index)
    else:
        sequence = np.random.SeedSequence(root, spawn_key=(token, index))
        high, low = sequence.generate_state(2, dtype=np.uint32)
    return (int(high) << 31) ^ int(low)


def _seed_words() -> Callable[[int, int, int], tuple[int, int]] | None:
    """``_seeding.seed_words`` when built, else None (numpy hashes)."""
    return _built("sims._native._seeding", "seed_words")


_compiled: dict[tuple[str, str], Any] = {}


def _built(module: str, name: str) -> Any:
    """``name`` from the compiled ``module``, or None where it is not built; imported once
    (asked for once a game)."""
    key = (module, name)
    if key not in _compiled:
        try:
            _compiled[key] = getattr(importlib.import_module(module), name)
        except ImportError:
            _compiled[key] = None
    return _compiled[key]


def deal_key(players: int) -> str:
    """The seed key of a paired study: the player count only, never variant or line-up."""
    return f"deals/{players}p"


def deal_number(index: int, seatings: int, rotation: str, pairing: str) -> int:
    """The deal game ``index`` plays in a paired study.

    ``deals``: game ``index`` plays deal ``index`` (each deal once per cell). ``seatings``
    with the ``permutations`` rotation: games ``k*s .. k*s + s - 1`` (s seat orders) play
    deal ``k`` once in each seat order, so a cell has only games/s distinct deals. With
    ``random`` seating every game is its own deal (its seat order is drawn from the deal's
    seed, so it too is shared across cells)."""
    if pairing == "seatings" and rotation == "permutations":
        return index // seatings
    return index


def first_draw(seed: str, n: int) -> int:
    """``random.Random(seed).choice(range(n))``: the first draw below ``n`` of a generator
    seeded by ``seed`` (a game's seat order when seats are drawn). Seeded in C where the
    core is built (``NativeRandom``: the same numbers, tests/sims/test_seeding.py); a
    ``random.Random`` took about 14 us a game, most of it its seeding."""
    native = _native_random()
    if native is not None:
        return int(native(seed).randrange(n))
    return random.Random(seed).choice(range(n))


def _native_random() -> Callable[[str], Any] | None:
    """``cardgame._native._core.NativeRandom`` when built, else None."""
    return _built("cardgame._native._core", "NativeRandom")


def stream_seed(seed: int, purpose: str) -> str:
    """A string seed for a private ``random.Random`` (strategies, clock): hashed by Python
    with SHA-512, so it is the same on every machine and run."""
    return f"{seed}:{purpose}"


GUEST_KEY_BYTES = 32


def new_guest_key() -> str:
    """A run's secret for its guests' random streams (hex): kept in the results manifest,
    never sent to a guest."""
    return secrets.token_hex(GUEST_KEY_BYTES)


def keyed_game_seed(key: str, seed: int) -> int:
    """An isolated run's game seed: 63 bits of HMAC-SHA256 of the public game seed under the
    run's secret ``key`` (the guest key). The public seed follows from the root seed, which
    a guest may know or guess (an ad-hoc run's default, a small number in a study file), and
    a guest that deals candidate seeds with the engine it is given would find the one that
    deals its own hand, and with it every rival's; under the key it finds none. Games paired
    on one public deal stay paired (one public seed, one keyed seed)."""
    digest = hmac.new(bytes.fromhex(key), f"deal:{seed}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def guest_stream_seed(key: str, seed: str) -> str:
    """The seed of an isolated guest's random stream: HMAC-SHA256 of its public stream seed
    under the run's ``key``. Whatever a guest learns of its generator leads back at most to
    this digest, which names neither the key nor the game's seed (so not the deal)."""
    if not key:
        raise ValueError("an isolated guest's random stream needs the run's guest key")
    return hmac.new(bytes.fromhex(key), seed.encode(), hashlib.sha256).hexdigest()
