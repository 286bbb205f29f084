"""The native core's state and rules (cardgame/_native/_core.pyx) against the Python engine:
the same RNG, the same legal actions, the same games bit for bit."""

from __future__ import annotations

import os
import random
from operator import itemgetter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardgame import Game, Rules, default_catalogue, layout
from cardgame import actions as A
from cardgame.actions import KeepDestinations
from cardgame.catalogue import Catalogue
from cardgame.cli import main
from cardgame.errors import IllegalActionError
from cardgame.observation import SeatView
from cardgame.randomplay import play_random
from cardgame.record import decisions, dumps, replay, shuffle_orders, to_record
from cardgame.scoring import final_scores, winners
from cardgame.shuffling import RecordedShuffles, SeededShuffles
from cardgame.state import GameState

from .test_native import needs_native

try:
    from cardgame._native import _core
except ImportError as exc:  # not built: every test here is skipped (CI requires it built)
    _core = None
    WHY = str(exc)

pytestmark = [needs_native, pytest.mark.skipif(_core is None, reason="no native core")]


def test_the_native_core_module_is_built_where_required():
    if os.environ.get("REQUIRE_NATIVE") == "1":
        assert _core is not None, WHY


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


@pytest.mark.parametrize("seed", SEEDS)
def test_two_seeded_together_equal_random_random(seed):
    """Two generators seeded at once (their chains interleaved) are each CPython's, whatever
    the other's key length; a seed C leaves to CPython falls back for both."""
    for other in (3, "random-player:9", 2**40 + 3, "x" * 300, 2**3000, 1.5):
        first, second = _core.NativeRandom.two(seed, other)
        assert first.getstate() == random.Random(seed).getstate()
        assert second.getstate() == random.Random(other).getstate()


@pytest.mark.parametrize("draws", [0, 1, 226, 227, 228, 396, 397, 622, 623, 624, 625, 1249])
def test_state_mid_block_equals_random_random(draws):
    """A block is twisted word by word as drawn: its state at any word is CPython's."""
    python, native = random.Random(5), _core.NativeRandom(5)
    for _ in range(draws):
        assert native.randrange(2**31 - 1) == python.randrange(2**31 - 1)
    assert native.getstate() == python.getstate()
    loaded = _core.NativeRandom(native)  # and a state loaded mid-block draws on the same
    assert [loaded.randrange(2**31 - 1) for _ in range(700)] == [
        python.randrange(2**31 - 1) for _ in range(700)
    ]


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


@pytest.mark.parametrize("seed", [0, 5, -5, 2**32, 2**64 + 1, 2**3000 + 7, "", "é", b"raw"])
def test_seeding_in_c_equals_random_random(seed):
    assert _core.NativeRandom(seed).getstate() == random.Random(seed).getstate()


# --- whole games: native play_random is Python's play_random, record for record

VARIANTS = [
    Rules(),
    Rules(three_locomotive_wipe=True),
    Rules(rounds={2: 2, 3: 3, 4: 3}),
    Rules(rounds={2: 3, 3: 2, 4: 1}, three_locomotive_wipe=True),
    Rules(destinations_min_keep=0, destinations_drawn=6),
    Rules(starting_hand=12, face_up=3, round_two_deal=0),
    Rules(starting_hand=0, starting_locomotives=4, face_up=10, round_two_deal=9),
    Rules(destinations_dealt=10, destinations_min_keep=10, rounds={2: 2}),
    # the levers against a seat edge (docs/rules.md), each on
    Rules(seat_extra_cards=(0, 2, 1, 3), seat_extra_locomotives=(1, 0, 2, 0)),
    Rules(first_turn="one_card", three_locomotive_wipe=True, face_up=6, rounds={3: 2}),
]


def _same_game(game: Game) -> tuple[Any, Any]:
    python = play_random(game, record=True)
    native = _core.play_random(game, record=True)
    assert native.record == python.record
    assert dumps(to_record(native)) == dumps(to_record(python))
    assert native.scores == python.scores
    assert native.winners == python.winners
    return python, native


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("rules", VARIANTS, ids=range(len(VARIANTS)))
def test_native_play_random_equals_python(players, rules):
    for seed in range(25):
        _same_game(Game(players, seed, rules))


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("rules", VARIANTS, ids=range(len(VARIANTS)))
def test_native_play_random_equals_python_many_seeds(players, rules):
    """Also cross-replayed, every other game: the Python record on the native core, the
    native record on the Python engine (1,440 games each way, with the tests below)."""
    for seed in range(1000, 1120):
        game = Game(players, seed, rules)
        python, native = _same_game(game)
        if seed % 2:
            continue
        replayed = _replayed_on_native(game, to_record(python))
        python._shuffles = replayed._shuffles  # the one thing a replay has of its own
        _assert_same_state(replayed, python)
        result = replay(to_record(native, ["random"] * players))
        assert result.ok, result.divergence


def test_native_play_random_without_record_plays_the_same_game():
    for players in (2, 3, 4):
        for seed in range(40):
            game = Game(players, seed)
            python, native = play_random(game), _core.play_random(game)
            assert native.record is None
            assert (native.scores, native.winners, native.turn) == (
                python.scores,
                python.winners,
                python.turn,
            )
            _assert_same_state(native.to_state(), python)


# --- the state, slot by slot

# slots set from the game by the constructor (identical objects or copies of them)
_FROM_GAME = {"game", "rules", "players", "_big", "_view_rules", "_view_table", "_rounds_total"}


def _shuffle_state(state: GameState) -> object:
    source = state._shuffles
    return source._rng.getstate() if isinstance(source, SeededShuffles) else source


def _assert_same_state(got: GameState, expected: GameState) -> None:
    for slot in GameState.__slots__:
        if slot == "_shuffles":
            assert _shuffle_state(got) == _shuffle_state(expected), slot
        elif slot not in _FROM_GAME:
            assert getattr(got, slot) == getattr(expected, slot), slot
            assert type(getattr(got, slot)) is type(getattr(expected, slot)), slot
    assert got.game == expected.game


def _random_moves(state, rng: random.Random, count: int) -> list:
    """Play ``count`` random legal moves (fewer if the game ends); the actions taken."""
    taken = []
    while len(taken) < count and not state.is_over:
        actions = state.legal_actions()
        action = actions[rng.randrange(len(actions))]
        state.apply(action)
        taken.append(action)
    return taken


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("rules", VARIANTS[:4], ids=range(4))
def test_from_state_continues_the_python_game(players, rules):
    for seed in range(8):
        game = Game(players, seed, rules)
        rng = random.Random(seed)
        reference = game.new_state(record=True)
        moves = _random_moves(reference, rng, 10**6)
        stop = rng.randrange(len(moves) + 1)
        python = game.new_state(record=True)
        for action in moves[:stop]:
            python.apply(action)
        native = _core.NativeState.from_state(python)
        _assert_same_state(native.to_state(), python)
        for action in moves[stop:]:
            assert native.legal_actions() == native.to_state().legal_actions()
            native.apply(action)
        _assert_same_state(native.to_state(), reference)
        assert native.record is python.record  # the record was continued, not copied


@pytest.mark.parametrize("players", [2, 3, 4])
def test_write_to_at_random_points_gives_the_python_state_and_it_plays_on(players):
    for seed in range(10):
        game = Game(players, seed, Rules(three_locomotive_wipe=seed % 2 == 0))
        rng = random.Random(seed)
        python = game.new_state()
        native = _core.NativeState.new(game)
        _assert_same_state(native.to_state(), python)
        while not python.is_over:
            for action in _random_moves(python, rng, rng.randrange(1, 30)):
                native.apply(action)
            target = game.new_state()
            native.write_to(target)
            _assert_same_state(target, python)
            assert [native.view(s) for s in range(players)] == [
                python.view(s) for s in range(players)
            ]
            assert native.legal_actions() == python.legal_actions()
        # the state written back plays on in Python exactly as the original would have
        assert native.is_over and python.is_over


def test_a_python_state_written_back_continues_in_python():
    game = Game(3, 11)
    rng = random.Random(3)
    python = game.new_state(record=True)
    _random_moves(python, rng, 40)
    native = _core.NativeState.from_state(python)
    copy = native.to_state()
    rng_a, rng_b = random.Random(9), random.Random(9)
    _random_moves(copy, rng_a, 10**6)
    # the copy shares the record dicts: play the original in a fresh copy of the record
    fresh = Game(3, 11).new_state(record=True)
    _random_moves(fresh, random.Random(3), 40)
    _random_moves(fresh, rng_b, 10**6)
    _assert_same_state(copy, fresh)


def test_seeded_shuffles_given_explicitly_get_their_rng_state_back():
    game = Game(2, 4)
    source = SeededShuffles(4)
    native = _core.NativeState.new(game, shuffles=source)
    python = game.new_state()
    rng = random.Random(1)
    for action in _random_moves(python, rng, 10**6):
        native.apply(action)
    assert native._shuffles is source
    assert source._rng.getstate() == python._shuffles._rng.getstate()


# --- replays across engines


def _python_record(game: Game) -> dict:
    return to_record(play_random(game, record=True), ["random"] * game.players)


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("rules", VARIANTS, ids=range(len(VARIANTS)))
def test_python_records_replay_on_the_native_state(players, rules):
    for seed in range(6):
        game = Game(players, seed, rules)
        python = play_random(game, record=True)
        replayed = _replayed_on_native(game, to_record(python))
        python._shuffles = replayed._shuffles  # the one thing a replay has of its own
        _assert_same_state(replayed, python)


def _replayed_on_native(game: Game, record: dict) -> Any:
    """The recorded game replayed on the native core (its shuffles from the record), as a
    GameState whose shuffle source is the record's."""
    shuffles = RecordedShuffles(shuffle_orders(record))
    native = _core.NativeState.new(game, record=True, shuffles=shuffles)
    for kept in record["setup"]["kept"]:
        native.apply(KeepDestinations(tuple(kept)))
    for turn in record["turns"]:
        for action in decisions(turn):
            native.apply(action)
    assert native.is_over
    assert dumps(to_record(native)) == dumps(record)
    state = native.to_state()
    assert state._shuffles is shuffles
    return state


@pytest.mark.parametrize("players", [2, 3, 4])
def test_native_records_pass_replay(players):
    for rules in VARIANTS:
        for seed in range(4):
            native = _core.play_random(Game(players, seed, rules), record=True)
            result = replay(to_record(native, ["random"] * players))
            assert result.ok, result.divergence
            assert result.scores == tuple(s.total for s in native.scores)


def test_native_records_pass_the_replay_command(tmp_path, capsys):
    path = tmp_path / "games.jsonl"
    lines = [
        dumps(to_record(_core.play_random(Game(p, s), record=True), ["random"] * p))
        for p, s in [(2, 1), (3, 2), (4, 3)]
    ]
    path.write_text("\n".join(lines) + "\n")
    assert main(["replay", str(path)]) == 0
    assert "replays to the same result" in capsys.readouterr().out


# --- checked actions: the Python engine's rulings, word for word

_ODD_ACTIONS = [
    A.DRAW_DECK,
    A.DRAW_DESTINATIONS,
    A.PASS,
    *A.DRAW_FACE_UP,
    A.DrawFaceUp(12),
    A.PlaceColumn(0, 1, 0),
    A.PlaceColumn(2, 3, 1),
    A.PlaceColumn(7, 0, 5),
    A.PlaceColumn(9, 1, 1),
    A.PlaceThree((0, 1, 2)),
    A.PlaceThree((5, 6, 7)),
    A.PlaceThree((1, 1, 2)),
    A.KeepDestinations(()),
    A.KeepDestinations((99,)),
    A.KeepDestinations((1, 1)),
    "draw",
    None,
    3,
]


def _ruling(state, action) -> str | None:
    try:
        state.apply(action)
    except IllegalActionError as exc:
        return str(exc)
    return None


def test_illegal_actions_raise_the_python_rulings():
    for players, seed in [(2, 1), (3, 2), (4, 3)]:
        game = Game(players, seed)
        python = game.new_state()
        rng = random.Random(seed)
        while not python.is_over:
            native = _core.NativeState.from_state(python)
            legal = python.legal_actions()
            for action in _ODD_ACTIONS + legal[:3] + legal[-2:]:
                if python.is_legal(action):
                    assert native.is_legal(action)
                    continue
                expected = _ruling(python, action)
                assert expected is not None
                assert _ruling(native, action) == expected
                assert not native.is_legal(action)
            _random_moves(python, rng, 1)
        with pytest.raises(IllegalActionError, match="game is over"):
            _core.NativeState.from_state(python).apply(A.PASS)


# --- scores in C


@settings(max_examples=200)
@given(
    players=st.integers(2, 4),
    where=st.lists(st.integers(0, 12), min_size=46, max_size=46),
)
def test_scores_and_winners_in_c_equal_the_python_scoring(players, where):
    # each destination is reached by a seat, held by a seat, or neither (mostly neither)
    state = Game(players, 0).new_state()
    state.reached = [[d for d in range(1, 47) if where[d - 1] == s] for s in range(players)]
    state.held = [[d for d in range(1, 47) if where[d - 1] == 4 + s] for s in range(players)]
    state.phase = A.Phase.OVER
    native = _core.NativeState.from_state(state)
    expected = final_scores(state.reached, state.held, state.game.catalogue)
    assert native.scores == expected
    assert native.winners == winners(expected)


def test_a_copy_plays_on_alone():
    native = _core.NativeState.new(Game(3, 4), record=True)
    rng = random.Random(2)
    _random_moves(native, rng, 50)
    before = native.to_state()
    twin = native.copy()
    _random_moves(twin, random.Random(5), 10**6)
    assert twin.is_over and not native.is_over
    _assert_same_state(native.to_state(), before)
    # and the copy is the game the original would have played
    _random_moves(native, random.Random(5), 10**6)
    _assert_same_state(native.to_state(), twin.to_state())


def test_every_offers_keeps_are_listed_as_the_python_engine_lists_them():
    for offer in range(layout.MAX_OFFER + 1):
        for minimum in range(-1, offer + 2):
            expected = [
                sum(1 << i for i in keep.ids)
                for keep in A.keep_subsets(range(offer), max(minimum, 0))
            ]
            assert _core.keep_masks(offer, minimum) == expected, (offer, minimum)
    with pytest.raises(ValueError, match="an offer of 0 to"):
        _core.keep_masks(layout.MAX_OFFER + 1, 0)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_fill_view_holds_what_the_seat_view_holds(players):
    for seed in range(3):
        game = Game(players, seed, Rules(face_up=4 + seed))
        native = _core.NativeState.new(game)
        rng = random.Random(seed)
        while not native.is_over:
            for seat in range(players):
                view = native.to_state().view(seat)
                fields, legal = _core.c_view(native, seat)
                expected = {k: getattr(view, k) for k in fields if k != "min_keep"}
                assert {k: v for k, v in fields.items() if k != "min_keep"} == expected
                assert fields["min_keep"] == game.rules.destinations_min_keep
                assert legal == view.legal_actions()
            _random_moves(native, rng, 1)


def test_resolution_outside_the_kernels_arrays_falls_back_to_python():
    # no real table holds 70 locomotives in one pile: the C kernel refuses it (counts up to
    # 63), and the native state must then resolve as the Python engine does
    game = Game(2, 6)
    python = game.new_state()
    _random_moves(python, random.Random(6), 30)
    seat = python.seat
    python.circulation[seat][8] = 70
    python.held[seat].extend(d for d in python.dest_deck[:5])
    python.final_turns_left = 1
    native = _core.NativeState.from_state(python)
    while not python.is_over:
        action = python.legal_actions()[0]
        python.apply(action)
        native.apply(action)
    assert native.is_over
    assert not python.held[seat]  # 70 locomotives reach everything
    _assert_same_state(native.to_state(), python)


def test_unchecked_actions_never_reach_outside_the_arrays():
    native = _core.NativeState.new(Game(2, 1))
    native.apply(A.KeepDestinations(tuple(native.offers[0])))
    native.apply(A.KeepDestinations(tuple(native.offers[1])))
    for action in [A.DRAW_FACE_UP[9], A.DrawFaceUp(-1)]:
        with pytest.raises(ValueError, match="outside the native core's arrays"):
            native.apply_unchecked(action)
    state = native.to_state()
    state.deck = []
    empty = _core.NativeState.from_state(state)
    with pytest.raises(ValueError, match="outside the native core's arrays"):
        empty.apply_unchecked(A.DRAW_DECK)
    native.apply_unchecked(A.DRAW_DECK)  # a legal one goes through
    assert native.phase == A.Phase.SECOND_PICK


def test_another_catalogue_order_and_points_play_the_same():
    # the setup shuffle takes the ids in the catalogue's order; points feed R16 and R20-R22
    base = default_catalogue()
    shuffled = list(base.destinations)
    random.Random(1).shuffle(shuffled)
    edited = [d._replace(points=d.points + (d.id % 3)) for d in shuffled]
    bonuses = tuple(b._replace(points=b.points * 2) for b in reversed(base.big_cities))
    catalogue = Catalogue(tuple(edited), bonuses)
    for players in (2, 3, 4):
        for seed in range(15):
            _same_game(Game(players, seed, catalogue=catalogue))
    _same_game(Game(2, 99))  # and the default one again (the catalogue cache switches back)


# decks a study may give (R1: the deck is card data): bigger, smaller, a colour missing,
# no locomotives, the largest the arrays hold
DECKS = [
    (12, 10, 8, 10, 14, 10, 10, 10, 20),
    (6, 6, 6, 6, 6, 6, 6, 6, 8),
    (0, 10, 10, 20, 10, 10, 10, 10, 16),
    (10, 10, 10, 10, 10, 10, 10, 10, 0),
    (20, 20, 20, 20, 20, 20, 20, 20, 40),
]
LEVERS = [
    Rules(),
    Rules(seat_extra_cards=(0, 1, 1, 2), first_turn="one_card"),
    Rules(seat_extra_locomotives=(0, 1, 0, 1), rounds={2: 2, 3: 2}, three_locomotive_wipe=True),
]


@pytest.mark.parametrize("deck", DECKS, ids=range(len(DECKS)))
def test_edited_decks_and_levers_play_the_same(deck):
    """Both engines build the train deck from the catalogue's counts (R1, R3) and apply the
    levers alike: the same records, scores and winners, and the records replay."""
    base = default_catalogue()
    catalogue = Catalogue(base.destinations, base.big_cities, deck)
    played = 0
    for index, rules in enumerate(LEVERS):
        if not deck[-1]:
            rules = rules._replace(starting_locomotives=0, seat_extra_locomotives=(0,) * 4)
        for players in (2, 3, 4):
            if rules.deal_problem(players, deck) is not None:
                continue
            for seed in range(6):
                python, native = _same_game(Game(players, seed, rules, catalogue))
                assert native.card_total() == python.card_total() == sum(deck)
                played += 1
                if seed == index:
                    result = replay(to_record(native, ["random"] * players))
                    assert result.ok, result.divergence
    assert played >= 36
    _same_game(Game(2, 99))  # and the printed deck again (the catalogue cache switches back)


def test_the_largest_hand_the_arrays_hold_has_the_same_legal_actions():
    """Every card of the largest deck in one hand: 20 of each colour and 40 locomotives give
    the most columns there can be (MAX_ACTIONS holds them)."""
    base = default_catalogue()
    deck = (20,) * 8 + (40,)
    game = Game(2, 3, catalogue=Catalogue(base.destinations, base.big_cities, deck))
    python = game.new_state()
    python.apply(A.KeepDestinations(tuple(python.offers[0])))
    python.apply(A.KeepDestinations(tuple(python.offers[1])))
    python.hands[0] = list(deck)
    python.hands[1] = [0] * 9
    python.deck, python.face_up, python.discard = [], [A.NO_CARD] * 5, [0] * 9
    native = _core.NativeState.from_state(python)
    legal = python.legal_actions()
    # every column (a lone wagon is none), every three, the destination draw; no train card
    assert len(legal) == 8 * (20 * 41 - 1) + 56 + 1
    assert native.legal_actions() == legal
    assert native.view(0).legal_actions() == legal
    assert _core.view_legal_actions(python.view(0)) == legal
