"""R9: a strategy's view is a copy that cannot cheat."""

from __future__ import annotations

import random
import types
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardgame import Game, GameState, Phase, Rules
from cardgame import actions as A
from cardgame.cards import LOCO, NUM_COLOURS
from cardgame.shuffling import RecordedShuffles, SeededShuffles
from sims.match import GameSpec, play_game
from sims.strategies.planner import Planner
from sims.strategy import StrategySpec

from .helpers import started

pytestmark = pytest.mark.usefixtures("engine")  # every test on both engines

seeds = st.integers(min_value=0, max_value=2**32 - 1)
players = st.integers(min_value=2, max_value=4)
variants = st.sampled_from(
    [Rules(), Rules(three_locomotive_wipe=True), Rules(rounds={2: 2, 3: 2}), Rules(face_up=7)]
)


def random_state(seed: int, n: int, rules: Rules, steps: int) -> GameState:
    """A state reached by ``steps`` random legal actions (fewer if the game ends)."""
    state = Game(n, seed, rules).new_state()
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_over:
            break
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
    return state


# ------------------------------------------------------------------ cannot be changed
def test_assigning_any_attribute_of_a_view_raises():
    view = started(2).view(0)
    for name in ("seat", "hand", "held", "phase", "_state", "anything"):
        with pytest.raises(AttributeError):
            setattr(view, name, 1)
    with pytest.raises((AttributeError, TypeError)):
        object.__setattr__(view, "seat", 1)  # not even past the class's own __setattr__
    assert view.seat == 0
    assert not hasattr(view, "__dict__")


class SwitchesSeat(Planner):
    """The cheat: look at the rival's hand by relabelling the view."""

    def turn(self, view):
        view.seat = 1 - view.seat
        return super().turn(view)


def test_a_strategy_that_sets_view_seat_fails_its_game():
    seats = (
        StrategySpec("cheat", "tests.test_view:SwitchesSeat"),
        StrategySpec("planner", "planner"),
    )
    outcome = play_game(GameSpec("t", "c", "base", Rules(), 2, seats, 0, 11))
    game = outcome.game
    assert game["failed"] and game["failure_seat"] == 0
    assert game["failure_error"].startswith("AttributeError")


# ------------------------------------------------------------------ leads nowhere
_ATOMS = (str, bytes, int, float, bool, complex, type(None), range, type(Ellipsis))
_BOUND = (
    types.MethodType,
    types.BuiltinMethodType,
    types.MethodWrapperType,
    types.WrapperDescriptorType,
    types.MethodDescriptorType,
)


def _children(obj: object) -> list[tuple[str, object]]:
    """Everything reachable from ``obj`` by plain attribute access, one step, with names."""
    out: list[tuple[str, object]] = []
    if isinstance(obj, (tuple, list, set, frozenset)):
        out.extend((f"[{i}]", item) for i, item in enumerate(obj))
    if isinstance(obj, dict):
        out.extend((f"key {k!r}", k) for k in obj)
        out.extend((f"[{k!r}]", v) for k, v in obj.items())
    if isinstance(obj, _BOUND):  # a bound method leads to its object, nothing else
        return [(n, getattr(obj, n, None)) for n in ("__self__", "__func__")]
    if isinstance(obj, types.FunctionType):  # code: only the data it closes over
        out.extend(("closure", c.cell_contents) for c in obj.__closure__ or ())
        out.extend(("default", d) for d in obj.__defaults__ or ())
        out.extend(("kwdefault", d) for d in (obj.__kwdefaults__ or {}).values())
        out.extend(obj.__dict__.items())
        return out
    slots = [s for k in type(obj).__mro__ for s in getattr(k, "__slots__", ())]
    names = set(dir(obj)) | set(slots) | set(getattr(obj, "__dict__", {}))
    for name in sorted(names):
        if name in ("__class__", "__globals__", "__builtins__", "__module__", "__slotnames__"):
            continue  # classes, modules and pickle's per-class cache are not game data
        try:
            out.append((name, getattr(obj, name)))
        except Exception:  # a property that needs other state
            continue
    return out


def reachable(root: object, limit: int = 200_000) -> dict[int, tuple[object, str]]:
    """id -> (object, the attribute path from ``root`` that reaches it)."""
    seen: dict[int, tuple[object, str]] = {}
    stack: list[tuple[object, str]] = [(root, "view")]
    while stack:
        obj, path = stack.pop()
        if id(obj) in seen or isinstance(obj, _ATOMS):
            continue
        seen[id(obj)] = (obj, path)
        assert len(seen) < limit, "walk did not end"
        if isinstance(obj, (type, types.ModuleType)):
            continue
        for name, child in _children(obj):
            stack.append((child, f"{path}.{name}"))
    return seen


def state_objects(state: GameState) -> dict[int, object]:
    """The state, its game (seed), its shuffles (RNG) and every mutable container it holds.

    The catalogue, its cards and the rules are shared with views on purpose: they are truly
    immutable (``test_everything_a_view_reaches_is_immutable``)."""
    out: dict[int, object] = {id(state): state, id(state.game): state.game}
    out[id(state._shuffles)] = state._shuffles
    for name in GameState.__slots__:
        value = getattr(state, name, None)
        if isinstance(value, (list, dict)):
            out[id(value)] = value
            inner = value.values() if isinstance(value, dict) else value
            for item in inner:
                if isinstance(item, (list, dict)):
                    out[id(item)] = item
    return out


def _settable(obj: object) -> list[str]:
    """The fields of ``obj`` that ``object.__setattr__`` can change (a frozen dataclass's)."""
    names = [s for k in type(obj).__mro__ for s in getattr(k, "__slots__", ())]
    names += list(getattr(obj, "__dict__", {}))
    names += list(getattr(type(obj), "_fields", ()))
    changed = []
    for name in names:
        try:
            before = getattr(obj, name)
        except AttributeError:
            continue
        try:
            object.__setattr__(obj, name, before)  # the same value: harmless if it works
        except (AttributeError, TypeError):
            continue
        changed.append(name)
    return changed


@pytest.mark.parametrize("n", [2, 4])
def test_everything_a_view_reaches_is_immutable(n):
    state = random_state(7, n, Rules(face_up=6), 30)
    found = reachable(state.view(state.seat))
    mutable = (list, dict, set, bytearray)
    # class metadata reached through an instance is code, like a class: not game data
    metadata = ("._field_defaults", ".__annotations__")
    leaks = [
        path
        for obj, path in found.values()
        if isinstance(obj, mutable) and not path.endswith(metadata)
    ]
    assert not leaks, f"the view reaches mutable containers: {leaks}"
    for obj, path in found.values():
        if isinstance(obj, (type, types.ModuleType, *_BOUND, types.FunctionType)):
            continue
        assert not _settable(obj), f"{path} ({type(obj).__name__}) yields to object.__setattr__"


def test_shared_values_refuse_object_setattr():
    from cardgame import default_catalogue

    catalogue = default_catalogue()
    shared = [
        catalogue,
        catalogue.destinations[0],
        catalogue.big_cities[0],
        Rules(),
        A.DRAW_DECK,
        A.PASS,
        A.DRAW_DESTINATIONS,
        A.DRAW_FACE_UP[2],
        A.COLUMNS[1][2][0],
        next(iter(A.THREES.values())),
        A.KeepDestinations((1, 2)),
    ]
    for value in shared:
        assert not _settable(value), type(value).__name__
    with pytest.raises(AttributeError):
        object.__setattr__(catalogue.destinations[0], "points", 99)
    assert catalogue.destination(catalogue.destinations[0].id).points < 99


@pytest.mark.parametrize("n", [2, 4])
def test_nothing_reachable_from_a_view_leads_to_the_state(n):
    state = random_state(5, n, Rules(), 40)
    state_record = Game(n, 5).new_state(record=True)  # a recording state has more to hide
    for st_, seat in ((state, state.seat), (state, (state.seat + 1) % n), (state_record, 0)):
        view = st_.view(seat)
        found = reachable(view)
        forbidden = state_objects(st_)
        leaks = [found[k][1] for k in forbidden if k in found]
        assert not leaks, f"the view reaches the state's objects: {leaks}"
        kinds = (GameState, Game, random.Random, SeededShuffles, RecordedShuffles, list)
        leaks = [path for obj, path in found.values() if isinstance(obj, kinds)]
        assert not leaks, f"the view reaches mutable objects: {leaks}"


def test_the_view_does_not_change_when_the_game_moves_on():
    state = random_state(3, 3, Rules(), 10)
    view = state.view(state.seat)
    before = (tuple(view), view.held, view.offer, view.legal_actions(), view.circulation())
    rng = random.Random(1)
    while not state.is_over:
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
    assert (tuple(view), view.held, view.offer, view.legal_actions(), view.circulation()) == before


def test_a_view_shows_only_its_own_seat():
    state = random_state(8, 3, Rules(), 12)
    for seat in range(3):
        view = state.view(seat)
        assert view.hand == tuple(state.hands[seat])
        assert view.held_ids == tuple(state.held[seat])
        assert [d.id for d in view.held] == state.held[seat]
        assert view.circulation() == tuple(state.circulation[seat])
        assert view.circulation((seat + 1) % 3) == tuple(state.circulation[(seat + 1) % 3])
        assert view.hand_sizes == tuple(sum(h) for h in state.hands)
        assert view.deck_size == len(state.deck)


# ------------------------------------------------------------------ legality from the copy
def every_candidate(state: GameState) -> list[object]:
    if state.phase in (Phase.SETUP_KEEP, Phase.KEEP_DRAWN):
        offer = state.offers[state.seat]
        return [
            A.KeepDestinations(c) for k in range(len(offer) + 1) for c in combinations(offer, k)
        ]
    out: list[object] = [A.DRAW_DECK, A.DRAW_DESTINATIONS, A.PASS]
    out += [A.DRAW_FACE_UP[s] for s in range(A.MAX_FACE_UP)]
    deck = state.game.catalogue.deck  # columns up to the game's deck (R1)
    out += [
        A.COLUMNS[c][w][lo]
        for c in range(NUM_COLOURS)
        for w in range(max(deck[:NUM_COLOURS]) + 1)
        for lo in range(deck[LOCO] + 1)
    ]
    return out + list(A.THREES.values())


@settings(max_examples=60, deadline=None)
@given(seed=seeds, n=players, rules=variants, steps=st.integers(0, 300))
def test_view_legal_actions_equal_the_states(seed, n, rules, steps):
    state = random_state(seed, n, rules, steps)
    view = state.view(state.seat)
    assert view.legal_actions() == state.legal_actions()
    for seat in range(n):
        if seat != state.seat:
            assert state.view(seat).legal_actions() == []
    if steps % 5 == 0:  # the full candidate cross-check is slower: sample it
        for action in every_candidate(state):
            assert view.is_legal(action) == (state._problem(action) is None)
    assert view.hand == tuple(state.hands[state.seat])
