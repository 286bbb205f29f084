"""The decision loop in C (sims/_native/_match.play_native) plays the game sims/match.py
plays: same game, seat and destination rows, records, clock minutes and failures.
Skipped where the extension is not built (CI requires it: tests/sims/test_native_strategies)."""

from __future__ import annotations

import math
import random
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardgame import Game, KeepDestinations, Rules
from cardgame import actions as A
from sims import _native
from sims.clock import ThinkTimes, play_on_clock
from sims.match import (
    MAX_TURNS,
    GameOutcome,
    GameSpec,
    _play_native,
    play_game,
    seat_rng,
    seat_seed,
)
from sims.seeding import stream_seed
from sims.strategy import StrategySpec, spec
from tests.sims.test_native_strategies import NAMES, VARIANTS, needs_native

pytestmark = needs_native

# odd knobs: a seat that never lets the game end, and one that answers an illegal column
STUCK = StrategySpec(
    "stuck",
    "ticket_hunter",
    (
        ("slack", 10**6),
        ("ticket_turns", -(10**6)),
        ("ticket_pause", -10),
        ("future_cards", -1e6),
        ("min_useful", 10**6),
    ),
)
BAD = StrategySpec("bad", "planner", (("min_column", 0), ("extra_cards", -5), ("min_useful", 0)))


def native_outcome(spec: GameSpec, times: ThinkTimes | None, record: bool) -> GameOutcome:
    """``play_game``'s native path (what the runner takes for built-in line-ups): it must
    take it here, every seat having a twin."""
    outcome = _play_native(spec, times, record)
    assert outcome is not None, "the native path refused a line-up of built-ins"
    return outcome


def assert_same(python: GameOutcome, native: GameOutcome) -> None:
    game_py, game_c = dict(python.game), dict(native.game)
    minutes_py, minutes_c = game_py.pop("sim_minutes"), game_c.pop("sim_minutes")
    assert game_c == game_py
    assert minutes_c == minutes_py or (math.isnan(minutes_c) and math.isnan(minutes_py))
    assert native.seats == python.seats
    assert native.destinations == python.destinations
    assert native.record == python.record


def python_game(spec: GameSpec, times: ThinkTimes | None, record: bool) -> GameOutcome:
    """``play_game`` on the Python engine and strategies (a study's ``engine = "python"``)."""
    return play_game(spec, times, record=record, decision_seconds=0, engine="python")


def both(spec: GameSpec, times: ThinkTimes | None, record: bool) -> GameOutcome:
    python = python_game(spec, times, record)
    assert_same(python, native_outcome(spec, times, record))
    return python


def test_the_native_loop_stops_where_play_game_does():
    from sims._native._match import TURN_LIMIT

    assert TURN_LIMIT == MAX_TURNS


@pytest.mark.parametrize("players", [2, 3, 4])
def test_games_rows_records_and_minutes_match(players):
    rng = random.Random(players * 7)
    for index in range(40):
        seats = tuple(spec(rng.choice(NAMES)) for _ in range(players))
        game = GameSpec("s", "c", "base", Rules(), players, seats, index, 5000 + index)
        times = ThinkTimes(sigma=0.3 * (index % 4)) if index % 2 else None
        outcome = both(game, times, record=index % 3 == 0)
        assert not outcome.game["failed"], outcome.game["failure_error"]


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_rule_variants_match(variant):
    rng = random.Random(variant)
    for index in range(8):
        players = 2 + index % 3
        seats = tuple(spec(rng.choice(NAMES)) for _ in range(players))
        game = GameSpec("s", "c", variant, VARIANTS[variant], players, seats, index, index)
        both(game, ThinkTimes() if index % 2 else None, record=index % 4 == 0)


def test_think_times_of_zero_draw_nothing_and_match():
    seats = (spec("planner"), spec("random"), spec("rusher"))
    zero = ThinkTimes(**{name: 0.0 for name in ThinkTimes().to_dict()})
    some = ThinkTimes(place=0.0, draw_second=0.0, resolution=0.0, sigma=1.5)
    for index, times in enumerate((zero, some)):
        both(GameSpec("s", "c", "v", Rules(), 3, seats, index, 99 + index), times, record=False)


@pytest.mark.parametrize(
    ("seats", "error"),
    [
        ((STUCK, STUCK), "no end in sight: over 2000 turns"),
        ((BAD, spec("random")), "seat 0: illegal action place 1 "),
        ((spec("random"), BAD, STUCK), "seat 1: illegal action place 1 "),
        ((STUCK, spec("thief")), ""),  # the thief draws: the game ends
    ],
)
def test_failures_match_turn_limit_and_illegal_actions(seats, error):
    for times in (None, ThinkTimes()):
        game = GameSpec("s", "c", "v", Rules(), len(seats), seats, 0, 77)
        outcome = both(game, times, record=True)
        assert outcome.game["failed"] == bool(error)
        assert outcome.game["failure_error"].startswith(error)


def test_the_clock_rng_is_left_as_play_on_clock_leaves_it():
    from cardgame._native._core import NativeState
    from sims._native._match import play_native

    lineup = [spec("planner"), spec("big_city")]
    for seed in range(3):
        game = Game(2, seed, Rules())
        strategies = [s.build(random.Random(seed + i)) for i, s in enumerate(lineup)]
        twins = [_native.native_twin(s) for s in strategies]
        state = game.new_state()

        def step(state=state, strategies=strategies):
            phase, seat = state.phase, state.seat
            action = strategies[seat].decide(state.view(seat))
            state.apply(action)
            return phase, action

        python_rng, native_rng = random.Random(seed), random.Random(seed)
        minutes = play_on_clock(state, step, ThinkTimes(), python_rng)
        _, _, native_minutes, failure = play_native(
            NativeState.new(game), twins, (ThinkTimes(), native_rng)
        )
        assert failure is None and native_minutes == minutes
        assert native_rng.getstate() == python_rng.getstate()


def test_bad_arguments_are_refused():
    from cardgame._native._core import NativeState
    from sims._native._match import play_native

    state = NativeState.new(Game(2, 1, Rules()))
    twin = _native.native_twin(spec("planner").build(random.Random(1)))
    with pytest.raises(ValueError, match="1 twins for 2 seats"):
        play_native(state, [twin])
    with pytest.raises(TypeError, match="not a NativeStrategy"):
        play_native(state, [twin, object()])


def prefix(view: dict) -> dict:
    """The CView's meaningful entries (arrays past their counts hold nothing to compare)."""
    n = view["players"]
    out = dict(view)
    for key, count in (("held", "held_n"), ("offer", "offer_n"), ("face_up", "face_up_n")):
        out[key] = view[key][: view[count]]
    out["circulation"] = view["circulation"][:n]
    out["hand_sizes"] = view["hand_sizes"][:n]
    return out


def test_the_loop_views_are_the_views_python_strategies_get():
    from cardgame._native._core import NativeState
    from sims._native._match import native_view_dict
    from sims._native._scripted import cview_dict

    for seed, variant in enumerate(VARIANTS):
        players = 2 + seed % 3
        game = Game(players, seed, VARIANTS[variant])
        native = NativeState.new(game)
        strategies = [spec(NAMES[(seed + i) % 7]).build(random.Random(i)) for i in range(players)]
        steps = 0
        while not native.is_over and steps < 150:
            state = native.to_state()
            for seat in range(players):
                expected = prefix(cview_dict(state.view(seat)))
                assert prefix(native_view_dict(native, seat)) == expected, (variant, steps, seat)
            native.apply(strategies[state.seat].decide(state.view(state.seat)))
            steps += 1


@st.composite
def knobbed_spec(draw, label: str) -> StrategySpec:
    from tests.sims.test_native_strategies import FAMILIES, knob_values

    name = draw(st.sampled_from(NAMES))
    values = draw(knob_values(FAMILIES[name].Knobs)) if name != "random" else {}
    picked = draw(st.lists(st.sampled_from(sorted(values)), unique=True)) if values else []
    return StrategySpec(label, name, tuple((k, values[k]) for k in picked))


@settings(max_examples=40)
@given(
    data=st.data(),
    seed=st.integers(0, 2**40),
    players=st.sampled_from([2, 3, 4]),
    variant=st.sampled_from(list(VARIANTS)),
    clock=st.booleans(),
)
def test_any_knobs_any_variant_the_same_outcome(data, seed, players, variant, clock):
    seats = tuple(data.draw(knobbed_spec(f"s{i}")) for i in range(players))
    game = GameSpec("s", "c", variant, VARIANTS[variant], players, seats, 0, seed)
    both(game, ThinkTimes() if clock else None, record=True)


def every_action(view) -> list:
    out = [A.DRAW_DECK, A.DRAW_DESTINATIONS, A.PASS, *A.DRAW_FACE_UP, *A.THREES.values()]
    out += [a for colour in A.COLUMNS for row in colour for a in row]
    offer = view.offer_ids
    for size in range(len(offer) + 1):
        out += [KeepDestinations(ids) for ids in combinations(offer, size)]
    return out


def test_the_loop_legality_test_is_the_engines():
    from cardgame._native._core import NativeState
    from sims._native._match import loop_finds_legal

    checked = 0
    for seed, variant in enumerate(VARIANTS):
        players = 2 + seed % 3
        native = NativeState.new(Game(players, seed, VARIANTS[variant]))
        rng = random.Random(seed)
        steps = 0
        while not native.is_over and steps < 300:
            if steps % 11 == 0 or int(native.phase) != 1:  # every keep, some turns
                state = native.to_state()
                view = state.view(state.seat)
                actions = every_action(view)  # the legal ones, and a sample of all the others
                sample = state.legal_actions() + rng.sample(actions, min(len(actions), 300))
                for action in sample:
                    expected = A.problem(action, *view._legality_fields()) is None
                    assert loop_finds_legal(view, action) == expected, (variant, action)
                    checked += 1
            legal = native.legal_actions()
            native.apply(legal[rng.randrange(len(legal))])
            steps += 1
    assert checked > 50_000


def test_a_clock_seed_seeds_the_clock_in_c_as_random_random_would():
    from cardgame._native._core import NativeState
    from sims._native._match import play_native

    for seed in range(6):
        game = Game(2 + seed % 3, seed, Rules())
        clock_seed = stream_seed(seed, "clock") if seed % 2 else 10**12 + seed
        minutes = []
        for clock_rng in (random.Random(clock_seed), clock_seed):
            twins = [
                _native.native_twin(spec("planner").build(random.Random(i)))
                for i in range(game.players)
            ]
            played = play_native(NativeState.new(game), twins, (ThinkTimes(), clock_rng))
            minutes.append(played[2])
        assert minutes[0] == minutes[1] and minutes[0] > 0


def test_a_clock_seeded_with_its_deal_is_the_clock_seeded_alone():
    """``new_timed`` seeds the deal's and the clock's generators together: the same deal
    as ``NativeState.new``, the same clock as its seed, and the clock is left as it was."""
    from cardgame._native._core import NativeState
    from sims._native._match import new_timed, play_native

    for seed in range(6):
        game = Game(2 + seed % 3, seed, Rules())
        clock_seed = stream_seed(seed, "clock") if seed % 2 else 10**12 + seed
        start, clock = new_timed(game, clock_seed)
        alone, again = NativeState.new(game), start.copy()
        assert start.deck == alone.deck and start.hands == alone.hands
        minutes = []
        for state, clock_rng in ((start, clock), (alone, clock_seed), (again, clock)):
            twins = [
                _native.native_twin(spec("thief").build(random.Random(i)))
                for i in range(game.players)
            ]
            minutes.append(play_native(state, twins, (ThinkTimes(), clock_rng))[2])
        assert minutes[0] == minutes[1] == minutes[2] and minutes[0] > 0


@pytest.mark.parametrize("records", [True, False])
def test_a_study_gives_the_same_bytes_on_either_engine(tmp_path, records):
    """``engine = "auto"`` (built-in line-ups on the native loop) and ``engine = "python"``
    write the same result files, byte for byte: records (their games' rows from the rebuilt
    state) or none (rows straight from the C state), a rule variant, the clock, and a
    line-up with a seat that has no twin (ismcts: that game stays on the Python path)."""
    from sims.runner import run
    from sims.study import from_dict
    from tests.sims.test_runner import result_files

    study = {
        "name": "engines",
        "seed": 11,
        "players": [2, 3],
        "lineups": [
            ["planner", "random"],
            ["hoarder", "rusher", "thief"],
            ["big_city", "ticket_hunter"],
            ["planner", "quick-search"],
        ],
        "strategies": {"quick-search": {"base": "ismcts", "knobs": {"iterations": 4}}},
        "variants": {
            "base": {},
            "wipe": {"three_locomotive_wipe": True, "players": [2]},
            # an edited deck and the levers against a seat edge
            "levers": {
                "deck": {"red": 14, "locomotive": 20},
                "players": [3],
                "seat_extra_cards": [0, 1, 1],
                "first_turn": "one_card",
            },
        },
        "games_per_cell": 4,
        "batch_size": 3,
        "metrics": {"quality": True},
    }
    folders = {}
    for engine in ("python", "auto"):
        folders[engine] = tmp_path / engine
        summary = run(
            from_dict({**study, "engine": engine}, "test"),
            workers=1,
            out=folders[engine],
            progress=False,
            records=records,
        )
        assert summary.games_played == summary.games_total == 36
    python, native = result_files(folders["python"]), result_files(folders["auto"])
    assert (len([name for name in python if name.startswith("records/")]) > 0) == records
    assert len([name for name in python if name.startswith("quality/")]) > 0
    assert python == native


def test_a_fresh_copy_of_a_twin_plays_as_a_twin_of_a_newly_built_strategy():
    """The loop makes each spec's twin once and copies it fresh per game
    (``NativeStrategy.fresh``): the games are those of twins of strategies built per game,
    a random seat's RNG seeded as ``seat_rng`` seeds its strategy's."""
    from cardgame._native._core import NativeState
    from sims._native._match import play_native

    rng = random.Random(5)
    prototypes = {name: _native.native_twin(spec(name).build(random.Random(0))) for name in NAMES}
    for index in range(30):
        players = 2 + index % 3
        seats = tuple(spec(rng.choice(NAMES)) for _ in range(players))
        game = GameSpec("s", "c", "v", Rules(), players, seats, index, 600 + index)
        built = [_native.native_twin(s.build(seat_rng(game, i))) for i, s in enumerate(seats)]
        copied = [
            prototypes[s.base].fresh(seat_seed(game, i) if s.base == "random" else None)
            for i, s in enumerate(seats)
        ]
        results = []
        for twins in (built, copied):
            played, offers, _, failure = play_native(NativeState.new(game.game()), twins)
            results.append((played.winners, played.scores, played.turn, offers, failure))
        assert results[0] == results[1]
    with pytest.raises(ValueError, match="seed"):
        prototypes["random"].fresh()


@pytest.mark.parametrize("order", [("valid", "invalid"), ("invalid", "valid", "invalid")])
def test_a_knob_of_the_wrong_type_fails_its_game_whatever_was_played_before(order):
    """The loop keeps one twin per seat spec; ``True == 1`` (and hashes alike), yet only 1
    is a valid int knob: a spec with ``True`` is a failed game however many games with 1
    came before, as on the Python engine."""
    specs = {
        "valid": StrategySpec("p", "planner", (("min_column", 1),)),
        "invalid": StrategySpec("p", "planner", (("min_column", True),)),
    }
    for name in order:
        seats = (specs[name], spec("random"))
        game = GameSpec("s", "c", "v", Rules(), 2, seats, 0, 123)
        outcome = play_game(game, None)
        reference = play_game(game, None, engine="python")
        timeless = [
            {k: v for k, v in o.game.items() if k != "sim_minutes"}  # NaN: no clock
            for o in (outcome, reference)
        ]
        assert timeless[0] == timeless[1]
        assert outcome.game["failed"] == (name == "invalid")
