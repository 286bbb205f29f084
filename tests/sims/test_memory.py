"""The memory model of a seat's own circulation pile (sims/memory.py) and its knobs."""

import hashlib
import json
import random
from typing import ClassVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cardgame import Rules
from cardgame.cli import main
from sims.errors import StudyError, UnknownStrategyError
from sims.match import GameSpec, play_game
from sims.memory import Belief, Memory
from sims.strategies.planner import Planner
from sims.strategy import MemoryKnobs, StrategySpec, make_knobs, registered, spec
from sims.study import load_study
from tests.helpers import counts, quick_spec, started

piles = st.lists(st.integers(0, 3), min_size=9, max_size=9)
BUILT_INS = [name for name, cls in registered().items() if issubclass(cls.Knobs, MemoryKnobs)]


def _play(seats, seed, index=0):
    return play_game(
        GameSpec("golden", "cell", "base", Rules(), len(seats), tuple(seats), index, seed),
        None,
        record=True,
    )


def _human(name, recall=0.7, capacity=0, label=None, guess="scaled"):
    knobs = {"memory": "human", "recall": recall, "capacity": capacity, "guess": guess}
    return quick_spec(name, label, **knobs)


# what a record says of the play itself (the format's later additions, a digest and the final
# table, are left out: they restate the same game)
PLAY = tuple("seed players strategies shuffles rounds setup turns resolutions result".split())


def _digest(outcome):
    record = {key: outcome.record[key] for key in PLAY}
    # the destination rows in the table's key order, whatever order a version lists them in
    destinations = sorted(
        outcome.destinations, key=lambda r: (r["seat"], r["offered_turn"], r["destination_id"])
    )
    blob = json.dumps(
        [outcome.game, outcome.seats, destinations, record],
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


# ------------------------------------------------------------------ perfect is today's play
# the play of perfect memory (Python engine): the games of the code before the memory model
# existed (6d9fb9e), as the strategies play since they value big cities by the game's bonuses
# (sims/strategies/common.py city_value); planner against random at seed 3 is unchanged
GOLDEN = {
    (("planner", "random"), 1): "3a7b8a25c7bfbc6f",
    (("planner", "random"), 3): "809f02b2c371066a",
    (("thief", "hoarder", "rusher"), 2): "08c911d03bb27b58",
    (("ticket_hunter", "big_city", "planner", "random"), 1): "be7fcebdf29ba509",
    (("ticket_hunter", "big_city", "planner", "random"), 3): "2d33e3398dd25889",
    (("planner", "planner", "planner", "planner"), 2): "42f2734a099a7545",
}


@pytest.mark.parametrize(("lineup", "seed"), list(GOLDEN))
def test_perfect_memory_plays_byte_identical_games_to_before(lineup, seed):
    assert _digest(_play([spec(s) for s in lineup], seed)) == GOLDEN[lineup, seed]
    explicit = [StrategySpec(s, s, (("memory", "perfect"),)) for s in lineup]
    assert _digest(_play(explicit, seed)) == GOLDEN[lineup, seed]


@pytest.mark.parametrize("name", BUILT_INS)
def test_human_memory_that_recalls_everything_decides_as_perfect_memory(name):
    for seed in range(4):
        players = 2 + seed % 3
        rivals = [spec("planner")] * (players - 1)
        perfect = _play([quick_spec(name), *rivals], seed)
        human = _play([_human(name, recall=1.0, label=name), *rivals], seed)
        assert human.record == perfect.record


def test_every_built_in_has_the_memory_knobs():
    assert set(BUILT_INS) >= {"planner", "thief", "hoarder", "rusher", "ticket_hunter"}
    assert {"big_city", "random"} <= set(BUILT_INS)


# ------------------------------------------------------------------ the model on its own
def _view(pile, round_number=1, seat=0):
    state = started(4 if round_number > 1 else 2, seed=1)
    state.circulation[seat] = list(pile)
    state.round = round_number
    return state.view(seat)


class Scripted(random.Random):
    """An RNG whose draws a test chooses."""

    def __init__(self, draws):
        super().__init__(0)
        self.draws = list(draws)

    def random(self):
        return self.draws.pop(0)


def test_recall_zero_remembers_no_card_but_counts_them_all():
    memory = Memory(random.Random(1), recall=0.0)
    assert memory.belief(_view(counts(red=3, loco=1))) == Belief((0,) * 9, 4)
    assert memory.belief(_view(counts(red=3, blue=2, loco=1))) == Belief((0,) * 9, 6)


def test_recall_one_remembers_the_pile():
    memory = Memory(random.Random(1), recall=1.0)
    pile = counts(red=3, loco=1)
    assert memory.belief(_view(pile)) == Belief(tuple(pile), 0)


def test_each_arrival_is_drawn_once_asking_again_draws_nothing():
    rng = Scripted([0.1, 0.9, 0.2])  # red remembered, red forgotten, loco remembered
    memory = Memory(rng, recall=0.5)
    view = _view(counts(red=2, loco=1))
    first = memory.belief(view)
    assert first == Belief(tuple(counts(red=1, loco=1)), 1)
    assert memory.belief(view) == first and memory.recall(view) is memory.recall(view)
    assert rng.draws == []


def test_the_scaled_guess_spreads_the_forgotten_cards_in_the_recalled_mix():
    belief = Belief(tuple(counts(red=2, blue=1)), 3)
    assert belief.estimate("none") == tuple(counts(red=2, blue=1))
    assert belief.estimate() == tuple(counts(red=4, blue=2))
    # 7 cards from 2 reds and 1 blue: 4.67 reds, 2.33 blues; the larger remainder rounds up
    assert Belief(tuple(counts(red=2, blue=1)), 4).estimate() == tuple(counts(red=5, blue=2))
    # equal remainders: the lower kind first (blue is kind 2, red kind 6)
    assert Belief(tuple(counts(red=1, blue=1)), 1).estimate() == tuple(counts(red=1, blue=2))
    assert Belief((0,) * 9, 5).estimate() == (0,) * 9  # nothing to scale


@given(recalled=piles, forgotten=st.integers(0, 30))
def test_the_scaled_guess_has_the_pile_size_and_only_recalled_kinds(recalled, forgotten):
    belief = Belief(tuple(recalled), forgotten)
    estimate = belief.estimate()
    assert sum(estimate) == (belief.size if sum(recalled) else 0)
    assert all((e > 0) <= (r > 0) and e >= r for e, r in zip(estimate, recalled, strict=True))


def test_the_scaled_guess_never_names_more_cards_than_can_be_left():
    possible = tuple(counts(red=7, blue=10, loco=16))
    belief = Belief(tuple(counts(red=6, blue=2)), 8, possible)
    # unbounded: 12 reds and 4 blues; reds are capped at 7, the rest goes to blue
    assert Belief(belief.recalled, 8).estimate() == tuple(counts(red=12, blue=4))
    assert belief.estimate() == tuple(counts(red=7, blue=9))
    full = Belief(tuple(counts(red=6, blue=2)), 8, tuple(counts(red=7, blue=3)))
    assert full.estimate() == tuple(counts(red=7, blue=3))  # 6 forgotten stay unplanned


@given(
    recalled=piles,
    forgotten=st.integers(0, 30),
    spare=st.lists(st.integers(0, 4), min_size=9, max_size=9),
)
def test_the_bounded_guess_keeps_within_the_bound(recalled, forgotten, spare):
    possible = tuple(r + s for r, s in zip(recalled, spare, strict=True))
    estimate = Belief(tuple(recalled), forgotten, possible).estimate()
    assert all(r <= e <= most for r, e, most in zip(recalled, estimate, possible, strict=True))
    placeable = sum(most for r, most in zip(recalled, possible, strict=True) if r)
    assert sum(estimate) == min(sum(recalled) + forgotten, placeable)


def test_recall_replaces_only_the_own_pile_of_the_view():
    state = started(3, seed=2)
    state.circulation[0] = counts(red=2, green=1)
    state.circulation[1] = counts(blue=4)
    view = state.view(0)
    memory = Memory(Scripted([0.1, 0.9, 0.1]), recall=0.5, guess="none")
    seen = memory.recall(view)
    assert seen.circulation() == tuple(counts(red=1, green=1))
    assert seen.circulation(1) == view.circulation(1)  # R9: the rivals' piles stay public
    assert len(seen) == len(view)
    assert [f for i, f in enumerate(seen) if i != 15] == [f for i, f in enumerate(view) if i != 15]
    assert memory.recall(seen) is seen  # a view it made passes through, draws nothing
    assert memory.belief(seen) == Belief(tuple(counts(red=1, green=1)), 1)


def test_a_new_round_is_a_new_pile_even_when_it_looks_the_same():
    rng = Scripted([0.9, 0.9, 0.1, 0.1])
    memory = Memory(rng, recall=0.5)
    assert memory.belief(_view(counts(red=2))) == Belief((0,) * 9, 2)
    # R19: round 2 starts from an empty pile; the two reds now are new cards, drawn again
    assert memory.belief(_view(counts(red=2), round_number=2)) == Belief(tuple(counts(red=2)), 0)


def test_a_pile_that_shrank_starts_afresh():
    memory = Memory(Scripted([0.1, 0.1, 0.1, 0.9]), recall=0.5)
    memory.belief(_view(counts(red=3)))
    assert memory.belief(_view(counts(blue=1))) == Belief((0,) * 9, 1)


def test_capacity_forgets_the_oldest_first():
    memory = Memory(random.Random(0), recall=1.0, capacity=2)
    memory.belief(_view(counts(red=1)))
    memory.belief(_view(counts(red=1, blue=1)))
    assert memory.belief(_view(counts(red=1, blue=1, loco=1))) == Belief(
        tuple(counts(blue=1, loco=1)), 1
    )


@given(
    steps=st.lists(st.tuples(piles, st.booleans()), min_size=1, max_size=12),
    recall=st.floats(0.0, 1.0),
    capacity=st.integers(0, 5),
    seed=st.integers(0, 2**32),
)
def test_the_belief_holds_only_cards_that_are_in_the_pile(steps, recall, capacity, seed):
    memory = Memory(random.Random(seed), recall=recall, capacity=capacity)
    pile = [0] * 9
    round_number = 1
    for added, new_round in steps:
        if new_round:
            round_number, pile = round_number + 1, [0] * 9
        pile = [p + a for p, a in zip(pile, added, strict=True)]
        belief = memory.belief(_view(pile, round_number))
        assert all(0 <= r <= p for r, p in zip(belief.recalled, pile, strict=True))
        assert belief.size == sum(pile) and belief.forgotten >= 0
        if capacity:
            assert sum(belief.recalled) <= capacity


# ------------------------------------------------------------------ in real games
class Probe(Planner):
    """A human planner that checks, at each decision, what it plans with."""

    name = ""  # not registered
    checks: ClassVar[list] = []

    def decide(self, view):
        belief = self.memory.belief(view)
        pile = view.circulation()
        assert all(r <= p for r, p in zip(belief.recalled, pile, strict=True))
        assert belief.size == sum(pile)
        # the bound holds the true pile, and the guess never passes it
        assert all(p <= most for p, most in zip(pile, belief.possible, strict=True))
        estimate = belief.estimate(self.knobs.guess)
        assert all(e <= most for e, most in zip(estimate, belief.possible, strict=True))
        self.checks.append((view.round, belief, pile))
        self._belief = belief
        return super().decide(view)

    def pick(self, situation, first):
        # the first pick's Situation is reused by the second: both plan with the belief
        assert situation.view.circulation() == self._belief.estimate(self.knobs.guess)
        return super().pick(situation, first)


def _probe(recall, guess="scaled"):
    knobs = (("guess", guess), ("memory", "human"), ("recall", recall))
    return StrategySpec("probe", "tests.sims.test_memory:Probe", knobs)


@pytest.mark.parametrize("guess", ["scaled", "none"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_seat_plans_with_its_belief_at_every_decision(players, guess):
    Probe.checks = []
    for seed in range(6):
        outcome = _play([_probe(0.5, guess)] + [spec("planner")] * (players - 1), seed)
        assert not outcome.game["failed"], outcome.game["failure_error"]
    assert Probe.checks
    if players == 4:  # R19: the first decision of round 2 sees an empty pile, believes nothing
        rounds = [c for c in Probe.checks if c[0] == 2]
        assert rounds and rounds[0][1] == Belief((0,) * 9, 0)


def test_recall_zero_in_a_game_forgets_the_whole_pile():
    Probe.checks = []
    _play([_probe(0.0), spec("planner")], 3)
    assert any(sum(pile) for _, _, pile in Probe.checks)
    for _, belief, pile in Probe.checks:
        assert belief == Belief((0,) * 9, sum(pile))


def test_forgetting_changes_decisions_for_some_seeds():
    differ = 0
    for seed in range(10):
        perfect = _play([spec("planner"), spec("planner")], seed)
        human = _play([_human("planner", 0.5, label="planner"), spec("planner")], seed)
        differ += human.record["turns"] != perfect.record["turns"]
    assert differ >= 3


@pytest.mark.parametrize("players", [2, 3, 4])
def test_human_memory_plays_to_the_end_over_many_seeds(players):
    names = BUILT_INS
    for seed in range(40):
        seats = [
            _human(
                names[(seed + k) % len(names)],
                recall=(seed % 5) / 4,
                capacity=seed % 3 * 4,
                guess=("scaled", "none")[seed // 5 % 2],
            )
            for k in range(players)
        ]
        seats = [StrategySpec(f"{s.label}{k}", s.base, s.knobs) for k, s in enumerate(seats)]
        outcome = _play(seats, seed)
        assert not outcome.game["failed"], outcome.game["failure_error"]


def test_same_seed_same_game_with_human_memory():
    seats = [_human("planner", 0.5), _human("thief", 0.3, capacity=6), spec("rusher")]
    assert _play(seats, 7).record == _play(seats, 7).record


# ------------------------------------------------------------------ the knobs at the boundary
@pytest.mark.parametrize(
    ("knobs", "message"),
    [
        ({"memory": "goldfish"}, "memory must be one of 'perfect', 'human', got 'goldfish'"),
        ({"memory": "human", "recall": 1.5}, "recall must be a probability between 0 and 1"),
        ({"memory": "human", "capacity": -1}, "capacity must be a whole number >= 0"),
        ({"recall": 0.5}, "recall, capacity and guess apply only with memory = 'human'"),
        ({"guess": "none"}, "recall, capacity and guess apply only with memory = 'human'"),
        ({"memory": "human", "guess": "wild"}, "guess must be one of 'scaled', 'none'"),
        ({"memory": 1}, "knob 'memory' of 'planner' must be str"),
    ],
)
def test_bad_memory_knobs_are_one_line(knobs, message):
    with pytest.raises(UnknownStrategyError, match=message) as info:
        make_knobs(registered()["planner"], knobs, "x")
    assert "\n" not in str(info.value)


def test_random_takes_the_memory_knobs_too():
    knobs = make_knobs(registered()["random"], {"memory": "human", "recall": 0}, "x")
    assert knobs.recall == 0.0


STUDY = (
    'pool = ["planner", "forgetful"]\nplayers = [2]\ngames_per_cell = 2\n'
    '[strategies.forgetful]\nbase = "planner"\nknobs = {{ memory = "{memory}" }}\n'
)


def test_an_unknown_memory_in_a_study_file_is_one_line(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(STUDY.format(memory="human"))
    assert load_study(path).strategies["forgetful"].knobs == (("memory", "human"),)
    path.write_text(STUDY.format(memory="goldfish"))
    with pytest.raises(StudyError, match="s.toml: strategy 'forgetful': knobs of 'planner'"):
        load_study(path)


def test_an_unknown_memory_on_the_command_line_is_exit_2_one_line(tmp_path, capsys):
    path = tmp_path / "s.toml"
    path.write_text(STUDY.format(memory="goldfish"))
    try:
        code = main(["simulate", str(path), "--out", str(tmp_path / "out")])
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert "memory must be one of 'perfect', 'human', got 'goldfish'" in err
