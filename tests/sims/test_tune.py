"""The tuner: edits files, objectives by hand, racing, hold-out, resume."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from cardgame.edits import CardEdits
from sims.study import from_dict
from sims.sweep import set_value
from sims.tune import (
    BASE,
    Context,
    Design,
    DestinationsObjective,
    Mix,
    Sample,
    TuneError,
    Tuner,
    expected_values,
    margins,
    parse_bands,
    parse_edits,
    parse_objective,
    per_deal,
    robust_scales,
    to_toml,
    tune,
)
from sims.tune.prices import cost_class, price_list
from sims.tune.tuner import _crossing

TINY = {
    "name": "tiny",
    "seed": 5,
    "players": [2],
    "lineups": [["planner", "thief"]],
    "games_per_cell": 10,
}
EDITS = {"face_up": {"values": [3, 7]}, "starting_hand": {"within": 1}}
QUIET = {"progress": False, "log": lambda line: None}


def tiny(**changes):
    return from_dict({**TINY, **changes}, "tiny.toml")


def run_tiny(out, workers=1, **options):
    settings = {"edits": EDITS, "budget": 1600, "holdout": 200, "workers": workers, **QUIET}
    settings.update(options)
    return tune(tiny(), "seat", out=out, **settings)


# edits files ------------------------------------------------------------------------------


def names(parameters):
    return [p.name for p in parameters]


def test_an_edits_file_names_parameters_ranges_and_steps():
    study = tiny()
    data = {
        "face_up": {"min": 3, "max": 7, "step": 2},
        "destinations": {"24": {"points": {"within": 2}}},  # a dotted key, unquoted
        "big_cities.Chicago": {"values": [10, 14]},
        "three_locomotive_wipe": {"values": [True]},
        "destinations_drawn": [3, 5],  # a bare list: the values
    }
    parameters = {p.name: p for p in parse_edits(data, study, {})}
    assert list(parameters) == [
        "face_up",
        "destinations.24.points",
        "big_cities.Chicago",
        "three_locomotive_wipe",
        "destinations_drawn",
    ]
    assert parameters["face_up"].grid(5) == [3, 7]
    assert parameters["destinations.24.points"].grid(12) == [10, 11, 13, 14]
    assert parameters["big_cities.Chicago"].grid(12) == [10, 14]
    assert parameters["three_locomotive_wipe"].grid(False) == [True]
    assert parameters["destinations_drawn"].grid(4) == [3, 5]


def test_wildcards_expand_and_ranges_stay_on_the_cards():
    parameters = parse_edits(
        {"destinations.*.points": {"within": 6}, "big_cities.*": {"within": 4}}, tiny(), {}
    )
    assert len(parameters) == 46 + 6
    one = next(p for p in parameters if p.name == "destinations.1.points")
    assert one.grid(5) == [1, 2, 3, 4, 6, 7, 8, 9, 10, 11]  # never below 1
    assert next(p for p in parameters if p.name == "big_cities.Seattle").grid(8) == [
        4,
        5,
        6,
        7,
        9,
        10,
        11,
        12,
    ]


def test_the_seat_objective_s_default_levers_are_the_seat_levers():
    study = tiny(players=[2, 3], lineups=[["planner", "thief"], ["planner", "thief", "random"]])
    tuner = Tuner(study, "seat", out="unused", **QUIET)
    start = Design(tuner.base_table)
    assert tuner.space.candidates(start, list(tuner.allowed)) == [
        ("seat_extra_cards.1", 1),
        ("seat_extra_cards.1", 2),
        ("seat_extra_locomotives.1", 1),
        ("seat_extra_cards.2", 1),
        ("seat_extra_cards.2", 2),
        ("seat_extra_locomotives.2", 1),
        ("first_turn", "one_card"),
    ]
    table = start.with_edit("seat_extra_cards.1", 2).with_edit("first_turn", "one_card")
    assert table.variant_table() == {"seat_extra_cards": {"1": 2}, "first_turn": "one_card"}


def test_a_choice_takes_its_names():
    (parameter,) = parse_edits({"first_turn": {"values": ["one_card"]}}, tiny(), {})
    assert parameter.grid("full") == ["one_card"]
    with pytest.raises(TuneError, match="first_turn.values: first_turn takes names"):
        parse_edits({"first_turn": {"values": [1]}}, tiny(), {}, "e.toml")
    with pytest.raises(TuneError, match="first_turn = fast: rules.first_turn"):
        parse_edits({"first_turn": {"values": ["fast"]}}, tiny(), {}, "e.toml")


def test_a_deck_edit_and_a_rule_of_another_player_count():
    edits = {"deck.locomotive": {"values": [14]}, "rounds.4": {"values": [1]}}
    tuner = Tuner(tiny(), "seat", edits=edits, out="unused", **QUIET)
    start = Design(tuner.base_table)
    # the deck changes every game; one round at 4 players changes nothing at 2
    assert tuner.space.candidates(start, list(tuner.allowed)) == [("deck.locomotive", 14)]
    assert start.with_edit("deck.locomotive", 14).variant_table() == {"deck": {"locomotive": 14}}


def test_edits_are_written_as_a_study_file_writes_them():
    table = {"face_up": 4, "seat_extra_cards": [0, 1]}
    set_value(table, "destinations.24.points", 12)
    set_value(table, "big_cities.Los Angeles", 10)
    set_value(table, "rounds.4", 1)
    set_value(table, "seat_extra_cards.2", 1)  # an array becomes a table by seat
    set_value(table, "face_up", 6)
    assert table == {
        "face_up": 6,
        "seat_extra_cards": {"0": 0, "1": 1, "2": 1},
        "destinations": {"24": {"points": 12}},
        "big_cities": {"Los Angeles": 10},
        "rounds": {"4": 1},
    }


def test_the_current_value_counts_from_the_study_s_base_variant():
    study = tiny(variants={"base": {"face_up": 6}})
    tuner = Tuner(study, "seat", edits={"face_up": {"within": 1}}, out="unused", **QUIET)
    assert tuner.space.current(Design(tuner.base_table), "face_up") == 6
    assert tuner.space.candidates(Design(tuner.base_table), ["face_up"]) == [
        ("face_up", 5),
        ("face_up", 7),
    ]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"colour": {"within": 1}}, "e.toml: unknown parameter 'colour'"),
        (
            {"destinations.47.points": {"within": 1}},
            "e.toml: destinations.47.points: unknown destination id",
        ),
        ({"big_cities.Boston": {"within": 1}}, "unknown big city"),
        ({"face_up": {"within": 0}}, "e.toml: face_up: within: must be at least 1"),
        ({"face_up": {"min": 7, "max": 3}}, "needs min <= max"),
        ({"face_up": {"values": [3], "step": 2}}, "give values, or within/min/max/step"),
        ({"face_up": {"values": []}}, "must be a non-empty list"),
        ({"face_up": {"values": [3.5]}}, "3.5 is not a whole number"),
        ({"face_up": {"values": [3, 3]}}, "listed twice"),
        ({"face_up": {"speed": 1}}, "e.toml: face_up.speed: unknown key"),
        ({"face_up": {"within": "two"}}, "within: must be a whole number"),
        ({"face_up": {"values": [40]}}, "e.toml: face_up = 40: rules.face_up"),
        ({"destinations.24.points": {"min": 0, "max": 20}}, "min must be within 1-99"),
        ({"destinations_min_keep": {"values": [9]}}, "destinations_min_keep = 9"),
        ({"face_up": {"values": [5]}}, "allows no value other than the current 5"),
        ({"face_up": 3}, "give a table such as"),
        ({}, "names nothing to change"),
        (
            {"destinations.24.points": {"within": 1}, "destinations": {"24": {"within": 2}}},
            "e.toml: destinations.24.points: named twice",
        ),
    ],
)
def test_a_bad_edits_file_is_one_line_naming_the_key(data, message):
    with pytest.raises(TuneError) as info:
        parse_edits(data, tiny(), {}, "e.toml")
    text = str(info.value)
    assert "\n" not in text
    assert message in text


@pytest.mark.parametrize(
    ("objective", "message"),
    [
        ("speed", "unknown objective 'speed'"),
        ("seat=x", "weight of seat must be a number"),
        ("seat=0", "must be above 0"),
        ("seat,seat", "seat given twice"),
        ("", "give one of"),
    ],
)
def test_a_bad_objective_is_one_line(objective, message):
    with pytest.raises(TuneError, match=message):
        parse_objective(objective)


def test_objectives_weights_and_bands():
    assert parse_objective("seat") == {"seat": 1.0}
    assert parse_objective("seat=1,destinations=0.5") == {"seat": 1.0, "destinations": 0.5}
    bands = parse_bands("seat=2,destinations=3")
    assert bands["seat"] == pytest.approx(0.02) and bands["destinations"] == 3.0
    with pytest.raises(TuneError, match="bands: unknown objective"):
        parse_bands("speed=1")


def test_bad_settings_are_refused_before_anything_is_written(tmp_path):
    out = tmp_path / "t"
    for kwargs, message in (
        ({"max_edits": 0}, "max-edits: must be at least 1"),
        ({"budget": 0}, "budget: must be at least 1"),
        ({"holdout": -1}, "holdout: must be at least 0"),
        (
            {"objective": "strategies", "study": tiny(lineups=[["planner", "planner"]])},
            "no line-up seats two different strategies",
        ),
        ({"cards": str(tmp_path / "nowhere")}, "cards"),
        ({"players": [3]}, "no line-up of [3] players"),
    ):
        study = kwargs.pop("study", tiny())
        objective = kwargs.pop("objective", "seat")
        with pytest.raises(TuneError, match=message.replace("[", r"\[").replace("]", r"\]")):
            Tuner(study, objective, edits=EDITS, out=out, **kwargs, **QUIET)
    assert not out.exists()


# objectives against values computed by hand -----------------------------------------------


def context(**changes):
    base = {
        "players": (2, 3),
        "random_labels": frozenset({"random"}),
        "labels": ("planner", "random", "thief"),
        "card_ids": (1, 2),
        "card_cities": {1: ("Chicago", "New York"), 2: ("New York", "Chicago")},
        "city_names": ("Chicago", "New York"),
        "bands": {"seat": 0.015, "destinations": 2.5, "strategies": 0.05},
    }
    base.update(changes)
    return Context(**base)


def frames():
    """Two 2-player deals (one game each) and one 3-player deal (one game)."""
    games = pd.DataFrame(
        {
            "variant": "base",
            "players": [2, 2, 3],
            "cell": [
                "base/2p/planner+thief",
                "base/2p/planner+thief",
                "base/3p/planner+random+thief",
            ],
            "game_index": [0, 1, 0],
            "seed": [11, 12, 13],
        }
    )
    seats = pd.DataFrame(
        {
            "variant": "base",
            "players": [2, 2, 2, 2, 3, 3, 3],
            "cell": [games["cell"][0]] * 4 + [games["cell"][2]] * 3,
            "game_index": [0, 0, 1, 1, 0, 0, 0],
            "seed": [11, 11, 12, 12, 13, 13, 13],
            "seat": [0, 1, 0, 1, 0, 1, 2],
            "strategy": ["planner", "thief", "thief", "planner", "random", "planner", "thief"],
            "score": [30, 20, 25, 25, 10, 40, 20],
            "win_share": [1.0, 0.0, 0.5, 0.5, 0.0, 1.0, 0.0],
        }
    )
    dests = pd.DataFrame(
        {
            "cell": [games["cell"][0]] * 3 + [games["cell"][1]] * 1,
            "game_index": [0, 0, 0, 1],
            "seat": [0, 1, 1, 0],
            "destination_id": [1, 1, 2, 2],
            "kept": [True, False, True, True],
        }
    )
    return games, seats, dests


def test_seat_objective_by_hand():
    games, seats, dests = frames()
    mix = Mix({"seat": 1.0}, context())
    sums = per_deal(games, seats, dests, mix, BASE).sum().to_numpy()
    values = mix.values(sums)[0]
    # 2 players: seat 0 won 1 + 0.5 of 2 games; 3 players: seat 1 won the only game
    expected = [0.75 - 0.5, 0.25 - 0.5, 0 - 1 / 3, 1 - 1 / 3, 0 - 1 / 3]
    assert values == pytest.approx(expected)
    assert float(mix.loss(sums)) == pytest.approx(np.mean((np.array(expected) / 0.015) ** 2))


def test_seat_objective_with_a_player_count_not_yet_dealt():
    # the mix counts 4 players but the sample holds none yet: seat 3 has no column at all
    games, seats, dests = frames()
    mix = Mix({"seat": 1.0}, context(players=(2, 3, 4)))
    sums = per_deal(games, seats, dests, mix, BASE).sum()
    assert sums["seat:4:3"] == 0.0 and sums["games:4"] == 0.0
    assert sums["seat:2:0"] == pytest.approx(1.5)


def test_strategies_objective_by_hand():
    games, seats, dests = frames()
    mix = Mix({"strategies": 1.0}, context())
    sums = per_deal(games, seats, dests, mix, BASE).sum().to_numpy()
    values = mix.values(sums)[0]
    # items: (2, planner), (2, thief), (3, planner), (3, thief)
    # 2 players: planner won 1 and 0.5 of 2 games, the field 0.5 each: +0.25; thief -0.25
    # 3 players: random won nothing, so the field is 1 / 2 for each of planner and thief
    assert values == pytest.approx([0.25, -0.25, 0.5, -0.5])
    assert float(mix.loss(sums)) == pytest.approx(
        np.mean([(0.25 / 0.05) ** 2, 0, (0.5 / 0.05) ** 2, 0])
    )


def test_margins_are_score_minus_the_best_other():
    _, seats, _ = frames()
    assert margins(seats).tolist() == [10, -10, 0, 0, -30, 20, -20]


def test_destinations_objective_by_hand():
    games, seats, dests = frames()
    ctx = context()
    mix = Mix({"destinations": 1.0}, ctx)
    table = per_deal(games, seats, dests, mix, BASE)
    sums = table.sum().to_numpy()
    # the 2-player seats' means over the two games (the reference design's, per seat):
    # margin: seat 0 (10 + 0) / 2 = 5, seat 1 (-10 + 0) / 2 = -5; win share 0.75, 0.25
    # card 1: offered twice, kept once by seat 0 of game 0 (margin 10 - 5, win 1 - 0.75)
    # card 2: kept by seat 1 of game 0 (-10 + 5, 0 - 0.25) and seat 0 of game 1 (0 - 5, 0.5 - 0.75)
    assert sums.tolist() == pytest.approx([2, 1, 5, 0.25, 2, 2, -10, -0.5])
    objective = mix.objectives[0]
    assert isinstance(objective, DestinationsObjective)
    raw = objective.raw(sums)
    logit = lambda k, n: np.log((k + 0.5) / (n + 1) / (1 - (k + 0.5) / (n + 1)))  # noqa: E731
    np.testing.assert_allclose(raw, [[logit(1, 2), 5, 0.25], [logit(2, 2), -5, -0.25]])
    ctx.scales = (0.5, 2.0, 0.1)
    centre = raw.mean(axis=0)  # the median of two
    d = ((raw - centre) / np.array(ctx.scales)).mean(axis=1)
    assert mix.values(sums)[0] == pytest.approx(d)
    assert float(mix.loss(sums)) == pytest.approx(np.mean((d / 2.5) ** 2))
    # with expected values for each ticket's cost, the residuals are centred instead
    ctx.expected = np.array([[0.1, 4.0, 0.2], [0.3, -1.0, 0.0]])
    resid = raw - ctx.expected
    d = ((resid - resid.mean(axis=0)) / np.array(ctx.scales)).mean(axis=1)
    assert mix.values(sums)[0] == pytest.approx(d)


def test_a_tickets_expected_value_follows_its_cost_not_its_points():
    """The Huber fit on circles and named bonus points recovers an exact line through the
    fairly priced tickets and leaves the overpaid one as the only outlier."""
    rng = np.random.default_rng(3)
    circles = rng.integers(1, 6, 40).astype(float)
    bonus = rng.choice([0.0, 8.0, 12.0, 20.0, 27.0], 40)
    part = 0.2 + 0.5 * circles + 0.05 * bonus  # a deal value wholly explained by cost
    raw = np.stack([part, 2 * part, part / 10], axis=1)
    raw[7] += [2.0, 4.0, 0.2]  # one ticket overpaid
    expected = expected_values(raw, np.column_stack([circles, bonus]))
    fair = np.delete(np.arange(40), 7)
    np.testing.assert_allclose(expected[fair], raw[fair], atol=1e-6)
    np.testing.assert_allclose(expected[7], raw[7] - [2.0, 4.0, 0.2], atol=1e-6)
    # by the deck alone the cheapest and dearest tickets stand out; by cost only #7 does
    by_deck = raw - np.median(raw, axis=0)
    assert int(np.argmax(np.abs(by_deck[:, 0]))) != 7
    residual = raw - expected
    assert np.flatnonzero(np.abs(residual).max(axis=1) > 1e-6).tolist() == [7]
    assert robust_scales(np.stack([np.arange(9.0)] * 3, axis=1)) == pytest.approx((2.9652,) * 3)


def test_a_cost_the_deck_does_not_vary_is_left_out_of_the_fit():
    circles = np.arange(20.0) % 5 + 1
    raw = np.stack([circles, circles + 1, 2 * circles], axis=1)
    raw[3] += 5.0
    costs = np.column_stack([circles, np.full(20, 12.0)])  # every ticket: bonus 12
    expected = expected_values(raw, costs)
    fair = np.delete(np.arange(20), 3)
    np.testing.assert_allclose(expected[fair], raw[fair], atol=1e-6)


# racing -----------------------------------------------------------------------------------


def synthetic_sample(shares: dict[str, float], deals: int = 400, seed: int = 1) -> Sample:
    """2-player deals of one game each: seat 1 wins with the given probability per arm,
    the arms' outcomes correlated through a common draw (common random numbers)."""
    rng = np.random.default_rng(seed)
    common = rng.random(deals)
    stats = {}
    for arm, share in shares.items():
        won = (common < share).astype(float)
        stats[arm] = np.column_stack([won, 1 - won, np.ones(deals)])
    frame = pd.DataFrame({"players": 2, "deal": range(deals), "seed": range(deals)})
    return Sample(frame, stats, seed)


def test_racing_drops_a_clearly_worse_arm_and_keeps_the_others(tmp_path):
    tuner = Tuner(tiny(), "seat", edits=EDITS, out=tmp_path / "t", **QUIET)
    design = Design(tuner.base_table)
    arms = {
        "face_up=3": ("face_up", 3),
        "face_up=7": ("face_up", 7),
        "starting_hand=8": ("starting_hand", 8),
    }
    alive = dict(arms)
    dropped: dict[str, str] = {}
    # the current design: the first seat wins 60%; face_up=3 brings it to 50%, face_up=7
    # makes it 80% (clearly worse); starting_hand=8 changes nothing
    sample = synthetic_sample(
        {BASE: 0.60, "face_up=3": 0.50, "face_up=7": 0.80, "starting_hand=8": 0.60}, deals=1000
    )
    tuner.race(1, 1, sample, alive, arms, dropped, design, len(sample.deals))
    assert "face_up=7" in dropped and "worse than face_up=3 at 99%" in dropped["face_up=7"]
    assert "face_up=3" in alive
    significant, best = tuner.significant(sample, alive, arms)
    assert significant == ["face_up"] and best["face_up"] == "face_up=3"


def test_no_arm_is_dropped_on_too_few_deals(tmp_path):
    tuner = Tuner(tiny(), "seat", edits=EDITS, out=tmp_path / "t", **QUIET)
    arms = {"face_up=7": ("face_up", 7)}
    alive, dropped = dict(arms), {}
    sample = synthetic_sample({BASE: 0.5, "face_up=7": 0.9}, deals=10)
    decided = tuner.race(1, 1, sample, alive, arms, dropped, Design(tuner.base_table), 10)
    assert not dropped and not decided


# whole tunes (small budgets) --------------------------------------------------------------


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    out = tmp_path_factory.mktemp("tune") / "t"
    return out, run_tiny(out)


def seeds(step):
    """The deals (seeds) of one evaluation step (its table: every line-up's deals)."""
    return set(pd.read_parquet(step, columns=["seed"])["seed"].tolist())


def test_a_tune_writes_its_files_and_a_study_the_simulator_accepts(finished):
    out, result = finished
    for name in (
        "tune.json",
        "edits.toml",
        "evaluations.parquet",
        "items.parquet",
        "holdout.parquet",
    ):
        assert (out / name).is_file(), name
    assert set(result.evaluations["step"]) >= {"screen", "r1-s01"}
    assert (result.evaluations["arm"] == BASE).any()
    from sims.study import load_study

    study = load_study(out / "edits.toml")
    assert study.pairing == "deals" and "base" in study.variants
    state = json.loads((out / "tune.json").read_text())
    assert state["status"] == "done" and state["games"]["search"] <= 1600


def test_the_holdout_plays_deals_the_search_never_used(finished):
    out, result = finished
    tables = sorted((out / "evaluations").glob("*.parquet"))
    searched = set().union(*(seeds(p) for p in tables if p.stem != "holdout"))
    held_out = seeds(out / "evaluations" / "holdout.parquet")
    assert searched and held_out
    assert not searched & held_out
    # and the search's own steps never replay each other's deals
    steps = [seeds(p) for p in tables if p.stem != "holdout"]
    assert sum(len(s) for s in steps) == len(searched)
    assert set(result.holdout["design_label"]) <= {"before", "after"}


def test_the_same_tune_with_two_workers_gives_the_same_result(finished, tmp_path):
    _, result = finished
    again = run_tiny(tmp_path / "t2", workers=2)
    assert again.edits == result.edits
    pd.testing.assert_frame_equal(again.evaluations, result.evaluations)
    pd.testing.assert_frame_equal(again.holdout, result.holdout)


def test_an_interrupted_tune_resumes_to_the_same_result(finished, tmp_path):
    from sims.tune import TuneInterrupted

    _, result = finished

    class StopAfterScreen:
        signal = None

        def __bool__(self):
            return self.signal is not None

    flag = StopAfterScreen()

    def log(line):
        if line.startswith("round 1"):
            flag.signal = 2  # as a Ctrl-C would, once the screen is in

    folder = tmp_path / "t3"
    with pytest.raises(TuneInterrupted):
        run_tiny(folder, stop=flag, log=log)
    assert (folder / "evaluations" / "screen.parquet").is_file()
    assert not list((folder / "evaluations").glob("r1-*"))  # the step stopped left nothing
    assert not (folder / "edits.toml").exists()
    with pytest.raises(TuneError, match="other settings"):
        run_tiny(folder, budget=1700)
    again = run_tiny(folder, resume=True)
    assert again.edits == result.edits
    pd.testing.assert_frame_equal(again.evaluations, result.evaluations)
    pd.testing.assert_frame_equal(again.holdout, result.holdout)


def test_a_folder_with_something_else_is_refused(tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "notes.txt").write_text("mine")
    with pytest.raises(TuneError, match="not empty and holds no tune"):
        run_tiny(tmp_path / "x")
    with pytest.raises(TuneError, match="holds no tune to resume"):
        run_tiny(tmp_path / "y", resume=True)


def test_the_toml_writer_round_trips_a_study():
    import tomllib

    data = {
        "name": "x",
        "players": [2],
        "lineups": [{"seats": ["a", "b"], "games": 3}],
        "variants": {
            "base": {},
            "tuned": {"destinations": {"24": {"points": 12}}, "big_cities": {"Los Angeles": 10}},
        },
    }
    assert tomllib.loads(to_toml(data, "a comment")) == data


def test_a_destinations_tune_tries_the_suspects_back_towards_the_deck(tmp_path):
    lines: list[str] = []
    result = tune(
        tiny(),
        "destinations",
        budget=2400,
        holdout=0,
        max_edits=1,
        suspects=2,
        bands={"destinations": 0.5},  # tight: the screen cannot meet it
        out=tmp_path / "t",
        workers=1,
        progress=False,
        log=lines.append,
    )
    screen = pd.read_parquet(tmp_path / "t" / "items.parquet").query("step == 'screen'")
    d = dict(zip(screen["item"].str.split().str[0], screen["estimate"], strict=True))
    cards = __import__("cardgame").default_catalogue()
    printed = {t.id: t.points for t in cards.destinations}
    prices = price_list(cards)
    # out of line: the deal value in play and the points against the price list, each once
    score = {
        k: (v + (printed[int(k[1:])] - prices[int(k[1:])].value) / prices[int(k[1:])].apart)
        / 2**0.5
        for k, v in d.items()
    }
    worst = sorted(score, key=lambda k: (-abs(score[k]), f"destinations.{k[1:]}.points"))[:2]
    suspects = [f"destinations.{w[1:]}.points" for w in worst]
    assert any(line.startswith("suspects: " + suspects[0]) for line in lines)
    raced = result.evaluations.dropna(subset=["parameter"])
    assert set(raced["parameter"]) == set(suspects)
    for _, row in raced.iterrows():
        card = int(row["parameter"].split(".")[1])
        sign = 1 if score[f"#{card}"] < 0 else -1  # a better deal than its cost: fewer points
        assert (int(row["value"]) - printed[card]) * sign > 0
    assert result.holdout.empty and (tmp_path / "t" / "edits.toml").is_file()


def test_a_tickets_edit_is_raced_on_that_ticket_not_on_the_whole_decks_noise(tmp_path):
    """Once the edited ticket is dealt the paired games diverge: every other ticket's deal
    value then differs between the arms by noise alone. The search takes those tickets from
    the current design, so the one ticket's gain is measured without that noise."""
    tuner = Tuner(tiny(), "destinations", out=tmp_path / "t", **QUIET)
    ids = tuner.context.card_ids
    deals, width = 2000, len(DestinationsObjective.PARTS)
    rng = np.random.default_rng(7)
    true_margin = rng.normal(0.0, 1.0, len(ids))  # the tickets' real spread, in both arms

    def draws(planted: float) -> np.ndarray:
        kept = (rng.random((deals, len(ids))) < 0.5).astype(float)
        margin = (true_margin + rng.normal(0.0, 3.0, (deals, len(ids)))) * kept
        margin[:, ids.index(7)] += planted * kept[:, ids.index(7)]
        win = (rng.random((deals, len(ids))) < 0.5) * kept
        parts = np.stack([np.ones_like(kept), kept, margin, win], axis=-1)
        return parts.reshape(deals, len(ids) * width)

    arm = "destinations.7.points=8"
    frame = pd.DataFrame({"players": 2, "deal": range(deals), "seed": range(deals)})
    sample = Sample(frame, {BASE: draws(12.0), arm: draws(0.0)}, 3)  # diverged games
    objective = tuner.mix.objectives[0]
    objective.fit(sample.agg(BASE)[0])
    est = tuner._estimates(sample, [BASE, arm])
    gain, se = est[arm][0] - est[BASE][0], float(np.std(est[arm][1] - est[BASE][1], ddof=1))
    whole = {
        a: (tuner.mix.loss(t), tuner.mix.loss(b)) for a in (BASE, arm) for t, b in [sample.agg(a)]
    }
    whole_se = float(np.std(whole[arm][1] - whole[BASE][1], ddof=1))
    assert gain < -3 * se  # the ticket's fix is plain
    assert se < 0.75 * whole_se  # less noisy than the whole deck's difference
    significant, best = tuner.significant(sample, {arm: ("destinations.7.points", 8)}, {})
    assert significant == ["destinations.7.points"] and best == {"destinations.7.points": arm}
    # a rule edit changes every ticket for real: nothing is borrowed
    assert tuner._borrowed_columns("face_up=7").size == 0
    chicago = [i for i, c in enumerate(ids) if "Chicago" in tuner.context.card_cities[c]]
    borrowed = tuner._borrowed_columns("big_cities.Chicago=10") // width
    assert set(borrowed).isdisjoint(chicago) and len(set(borrowed)) == len(ids) - len(chicago)


def test_the_default_range_of_a_ticket_reaches_below_the_value_a_plant_raised(tmp_path):
    """A ticket raised by 6 can be put 2 below where it was: else the search could never show
    that the plant's fair price lies below the value it was raised from."""
    planted = tiny(variants={"base": {"destinations": {"7": {"points": 14}}}})
    tuner = Tuner(planted, "destinations", out=tmp_path / "t", **QUIET)
    start = Design(tuner.base_table)
    assert tuner.space.current(start, "destinations.7.points") == 14
    grid = tuner.allowed["destinations.7.points"].grid(14)
    assert min(grid) <= 8 - 2 and 14 not in grid


def test_a_step_whose_games_fail_is_one_error_naming_the_step_and_keeps_nothing(tmp_path):
    study = tiny(lineups=[["planner", "tests.sims.broken:Raises"]])
    with pytest.raises(TuneError, match=r"screen: \d+ game\(s\) failed, e\.g\. .*boom") as info:
        tune(study, "seat", out=tmp_path / "t", edits=EDITS, budget=1600, holdout=200,
             workers=2, **QUIET)  # fmt: skip
    assert "\n" not in str(info.value)
    assert not list((tmp_path / "t").glob("evaluations/*.parquet"))


def test_a_tickets_price_comes_from_its_same_cost_mates_else_the_decks_fit_never_itself():
    """ "Same cost, same points": a ticket's price is what its same-cost mates share, else
    the deck's points fitted on cost, both from the other tickets: raising a ticket's own
    points moves neither its price nor its mates'."""
    from cardgame import default_catalogue

    printed = default_catalogue()
    classes = cost_class(printed)
    assert classes[5] == classes[6] == classes[10]  # two single circles, Chicago named
    assert classes[1] == classes[2] and classes[1] != classes[5]
    prices = price_list(printed)
    assert (prices[6].value, prices[6].source) == (8.0, "mates")  # #5 7 and #10 9
    assert (prices[22].value, prices[22].source) == (12.5, "mates")  # #24 12 and #26 13
    assert prices[8].source == "fit" and 8.5 < prices[8].value < 9.7  # no mates
    assert all(0.5 <= p.spread < 3 and 0 < p.error <= p.spread for p in prices.values())
    assert prices[6].error == pytest.approx(prices[6].spread / 2**0.5)  # two mates
    assert prices[8].error < 0.6  # a fit on 45 tickets knows its line well
    planted = CardEdits(destinations=((6, 13),)).apply(printed)
    again = price_list(planted)
    assert again[6].value == 8.0 and again[6].spread == prices[6].spread
    assert again[5].source == "fit"  # #6 at 13 and #10 at 9 share no price: the fit's


def test_the_in_play_price_is_where_the_deal_value_crosses_zero():
    xs = np.array([13.0, 12.0, 11.0, 10.0, 9.0, 8.0])
    ys = 0.5 * (xs - 9.5)
    price, se, slope = _crossing(xs, ys, np.full(6, 0.1))
    assert price == pytest.approx(9.5) and 0 < se < 0.2 and slope == pytest.approx(0.5)
    # a curve no line fits: its misfit widens the uncertainty
    bent = ys + np.array([0.6, -0.6, 0.6, -0.6, 0.6, -0.6])
    assert _crossing(xs, bent, np.full(6, 0.1))[1] > 3 * se
    assert _crossing(xs, -ys, np.full(6, 0.1))[0] is None  # no rise: nothing to read
    assert _crossing(np.array([9.0]), np.array([0.3]), np.array([0.1]))[0] is None


def test_the_expected_value_for_a_cost_knows_its_own_error_largest_where_few_tickets_are():
    """An in-play price is read against what the screen's fit expects of its cost; that
    expectation is an estimate, surest in the middle of the deck's costs."""
    from sims.tune.objectives import fit_expected

    rng = np.random.default_rng(3)
    costs = np.column_stack([rng.integers(1, 5, 40), rng.integers(0, 3, 40) * 10.0])
    costs[0] = (1, 40)  # a lone corner: one circle, many bonus points
    raw = np.column_stack([costs @ (0.5, 0.1) + rng.normal(0, 1, 40) for _ in range(3)])
    out, errors = fit_expected(raw, costs)
    assert np.allclose(out, expected_values(raw, costs))
    assert (errors > 0).all() and (errors[0] > 1.5 * np.median(errors, axis=0)).all()
