"""The native core's state and rules (cardgame/_native/_core.pyx) against the Python engine:
the same RNG, the same legal actions, the same games bit for bit (issue 10)."""

from __future__ import annotations

import random
from operator import itemgetter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardgame import Game, Rules
from cardgame.observation import SeatView

from .test_native import needs_native

try:
    from cardgame._native import _core
except ImportError:  # not built: every test here is skipped by needs_native
    _core = None

pytestmark = needs_native

SEEDS = [0, 1, 7, 2**40 + 3, "random-player:0", "random-player:123456", "", "x" * 300]


# --- the RNG: CPython's random.Random, word for word


@pytest.mark.parametrize("seed", SEEDS)
def test_randrange_equals_random_random(seed):
    python, native = random.Random(seed), _core.NativeRandom(seed)
    for i in range(3000):
        n = 1 + (i * 7919) % 5000 if i % 3 else 1 + i % 40
        assert native.randrange(n) == python.randrange(n)
    assert native.getstate() == python.getstate()


@pytest.mark.parametrize("seed", SEEDS)
def test_shuffle_equals_random_random(seed):
    python, native = random.Random(seed), _core.NativeRandom(seed)
    for size in [0, 1, 2, 5, 46, 96, 700]:
        a = list(range(size))
        b = list(a)
        python.shuffle(a)
        native.shuffle(b)
        assert a == b
    assert native.getstate() == python.getstate()


@pytest.mark.parametrize("seed", SEEDS)
def test_random_and_gauss_equal_random_random(seed):
    python, native = random.Random(seed), _core.NativeRandom(seed)
    for i in range(2001):
        assert native.random() == python.random()
        mu, sigma = i / 7, 1 + i % 5
        assert native.gauss(mu, sigma) == python.gauss(mu, sigma)  # odd count: one cached
    assert native.getstate() == python.getstate()


def test_state_loads_from_a_used_generator_and_round_trips():
    python = random.Random("seed")
    for _ in range(1000):  # past one regeneration of the 624 words, and a cached gauss
        python.random()
    python.gauss(0, 1)
    native = _core.NativeRandom(python)
    assert native.getstate() == python.getstate()
    assert [native.randrange(10**6) for _ in range(50)] == [
        python.randrange(10**6) for _ in range(50)
    ]


# --- legal actions from a view: actions.legal_actions, same order


def _views_of_random_games(players: int, seeds: range, rules: Rules) -> list[SeatView]:
    """Every seat's view at every decision of a few random games."""
    views = []
    for seed in seeds:
        state = Game(players, seed, rules).new_state()
        rng = random.Random(seed)
        while not state.is_over:
            views.extend(state.view(s) for s in range(players))
            actions = state.legal_actions()
            state.apply_unchecked(actions[rng.randrange(len(actions))])
    return views


@pytest.mark.parametrize(
    ("players", "rules"),
    [
        (2, Rules()),
        (3, Rules(destinations_min_keep=0, face_up=3)),
        (4, Rules(three_locomotive_wipe=True, starting_hand=10, destinations_drawn=6)),
    ],
)
def test_legal_from_view_equals_python_on_game_views(players, rules):
    for view in _views_of_random_games(players, range(6), rules):
        assert _core.view_legal_actions(view) == view.legal_actions()


def _with(view: SeatView, **fields: object) -> SeatView:
    """A copy of ``view`` with some fields replaced (by the SeatView property names)."""
    index = {
        name: prop.fget(range(len(view)))
        for name, prop in vars(SeatView).items()
        if isinstance(prop, property) and isinstance(prop.fget, itemgetter)
    }
    values = list(view)
    for name, value in fields.items():
        values[index[name]] = value
    return tuple.__new__(SeatView, values)


BASE_VIEW = Game(4, 1).new_state().view(0)
counts = st.lists(st.integers(0, 10), min_size=8, max_size=8)


@settings(max_examples=300)
@given(
    hand=counts,
    locos=st.integers(0, 16),
    owner=st.lists(st.integers(-1, 3), min_size=8, max_size=8),
    wagons=counts,
    yard_locos=st.lists(st.integers(0, 4), min_size=8, max_size=8),
    face_up=st.lists(st.integers(-1, 8), min_size=0, max_size=10),
    deck=st.integers(0, 2),
    dest=st.integers(0, 2),
    phase=st.sampled_from([1, 2, 4]),
    seat=st.integers(0, 3),
)
def test_legal_from_view_equals_python_on_any_table(
    hand, locos, owner, wagons, yard_locos, face_up, deck, dest, phase, seat
):
    view = _with(
        BASE_VIEW,
        seat=seat,
        phase=phase,
        hand=(*hand, locos),
        yard_owner=tuple(owner),
        yard_wagons=tuple(wagons),
        yard_locos=tuple(yard_locos),
        face_up=tuple(face_up),
        deck_size=deck,
        destination_deck_size=dest,
    )
    assert _core.view_legal_actions(view) == view.legal_actions()


@settings(max_examples=100)
@given(
    offer=st.lists(st.integers(1, 46), min_size=0, max_size=10, unique=True),
    min_keep=st.integers(0, 10),
    phase=st.sampled_from([0, 3]),
)
def test_legal_from_view_keeps_subsets_in_combinations_order(offer, min_keep, phase):
    view = _with(BASE_VIEW, phase=phase, offer_ids=tuple(offer), rules=_Rules(min_keep))
    assert _core.view_legal_actions(view) == view.legal_actions()


class _Rules:
    """Only what legality reads of a view's rules (min_keep beyond what Rules accepts)."""

    def __init__(self, min_keep: int) -> None:
        self.destinations_min_keep = min_keep


def test_a_seat_not_to_move_has_no_legal_actions():
    view = Game(2, 3).new_state().view(1)
    assert view.legal_actions() == _core.view_legal_actions(view) == []
