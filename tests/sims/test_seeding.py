"""Game seeds hashed in C (sims/_native/_seeding.pyx) are numpy's SeedSequence words, for
every size of root and index the C path takes, and numpy's own beyond it."""

from __future__ import annotations

import random

import numpy as np
import pytest

from sims import seeding
from sims.seeding import cell_token, game_seed


def numpy_seed(root: int, cell_key: str, index: int) -> int:
    """``game_seed`` as numpy computes it."""
    sequence = np.random.SeedSequence(root, spawn_key=(cell_token(cell_key), index))
    high, low = sequence.generate_state(2, dtype=np.uint32)
    return (int(high) << 31) ^ int(low)


def test_the_c_words_are_numpys():
    words = seeding._seed_words()
    if words is None:
        pytest.skip("sims/_native/_seeding is not built")
    rng = random.Random(3)
    for _ in range(20_000):
        root = rng.choice([0, 1, 2**32 - 1, 2**32, 2**64 - 1, rng.getrandbits(rng.randrange(65))])
        token = rng.choice([0, 2**32 - 1, rng.getrandbits(32)])
        index = rng.choice([0, 2**32, 2**64 - 1, rng.getrandbits(rng.randrange(65))])
        sequence = np.random.SeedSequence(root, spawn_key=(token, index))
        assert words(root, token, index) == tuple(map(int, sequence.generate_state(2, np.uint32)))


@pytest.mark.parametrize(
    ("root", "index"), [(0, 0), (7, 3), (2**63, 10**6), (2**64 - 1, 2**64 - 1), (2**64, 5),
                        (3, 2**64), (2**100, 2**70)],
)  # fmt: skip
def test_game_seeds_are_numpys_on_either_side_of_64_bits(root, index):
    for key in ("base/2p/a+b", "deals/3p", ""):
        assert game_seed(root, key, index) == numpy_seed(root, key, index)


@pytest.mark.parametrize("native", [True, False], ids=["in C", "random.Random"])
def test_a_first_draw_is_random_randoms_choice(native, monkeypatch):
    """A game's drawn seat order: the first draw of ``random.Random(seed)``, seeded in C
    where the core is built, for seeds of every length and any number of seat orders."""
    if native and seeding._native_random() is None:
        pytest.skip("the native core is not built")
    if not native:
        monkeypatch.setattr(seeding, "_native_random", lambda: None)
    rng = random.Random(7)
    for trial in range(3_000):
        seed = f"{rng.getrandbits(rng.randrange(1, 80))}:seating" if trial % 3 else str(trial)
        n = rng.choice([1, 2, 6, 24, rng.randrange(1, 1000), 2**31 - 1])
        assert seeding.first_draw(seed, n) == random.Random(seed).choice(range(n)), (seed, n)


def test_an_isolated_runs_game_seeds_are_keyed_by_its_secret_and_keep_its_pairs():
    from sims.seeding import keyed_game_seed, new_guest_key

    key, other = new_guest_key(), new_guest_key()
    public = [game_seed(2026, "deal-2", deal) for deal in range(50)]
    keyed = [keyed_game_seed(key, seed) for seed in public]
    assert keyed == [keyed_game_seed(key, seed) for seed in public]  # replayable
    assert len(set(keyed)) == 50 and not set(keyed) & set(public)
    assert all(0 <= seed < 2**63 for seed in keyed)
    assert not set(keyed) & {keyed_game_seed(other, seed) for seed in public}
