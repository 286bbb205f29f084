"""The PettingZoo environment (sims.rl): API conformance, masks, observations, rewards."""

from __future__ import annotations

import itertools
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pettingzoo")

import numpy as np
from pettingzoo.test import api_test, seed_test

from cardgame import Game
from cardgame.cards import LOCO
from cardgame.state import CARD_KINDS
from sims.rl.env import TTRCardGameEnv, env, raw_env

ROOT = Path(__file__).parents[2]
# Dict observations are PettingZoo's convention for action masks; its checker still notes them.
DICT_OBS = [
    "ignore:Observation space for each agent probably should be:UserWarning",
    "ignore:Observation is not a NumPy array:UserWarning",
]


def random_steps(e: TTRCardGameEnv, steps: int, rng: random.Random) -> None:
    """Take ``steps`` random legal actions (fewer if the game ends)."""
    for _ in range(steps):
        if e.game_state.is_over:
            return
        mask = e.observe(e.agent_selection)["action_mask"]
        e.step(rng.choice(np.flatnonzero(mask).tolist()))


@pytest.mark.filterwarnings(*DICT_OBS)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_pettingzoo_api_test_passes(players):
    api_test(env(players=players), num_cycles=200)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_pettingzoo_seed_test_passes(players):
    seed_test(lambda: env(players=players), num_cycles=200)


@pytest.mark.filterwarnings(*DICT_OBS)
def test_a_rule_variant_changes_the_spaces_and_still_passes_the_api_test():
    rules = {"face_up": 6, "destinations_dealt": 4, "destinations_drawn": 3}
    e = raw_env(players=3, rules=rules)
    blocks = e.action_table.blocks
    assert blocks["draw_face_up"][1] - blocks["draw_face_up"][0] == 6
    assert blocks["keep_destinations"][1] - blocks["keep_destinations"][0] == 2**4
    assert e.action_table.size < raw_env(players=3).action_table.size
    api_test(env(players=3, rules=rules), num_cycles=200)


def test_the_mask_is_exactly_the_engine_legal_actions_at_every_step():
    for game in range(6):
        players = 2 + game % 3
        e = raw_env(players=players)
        e.reset(seed=game)
        rng = random.Random(game)
        table = e.action_table
        while not e.game_state.is_over:
            state = e.game_state
            legal = state.legal_actions()
            offer = state.offers[state.seat]
            for agent in e.agents:
                mask = e.observe(agent)["action_mask"]
                if agent != e.agent_selection:
                    assert not mask.any()
                    continue
                chosen = np.flatnonzero(mask).tolist()
                assert sorted(chosen) == sorted(table.index(a, offer) for a in legal)
                assert [table.action(i, offer) for i in chosen] == sorted(
                    legal, key=lambda a: table.index(a, offer)
                )
            e.step(rng.choice(chosen))


def test_a_reset_plays_the_engine_game_of_that_seed():
    e = raw_env(players=3)
    e.reset(seed=12)
    fresh = Game(3, 12).new_state()
    assert e.game_state.hands == fresh.hands and e.game_state.deck == fresh.deck
    assert e.agent_selection == "player_0"


def test_reset_without_a_seed_follows_the_last_seed_given():
    a, b = raw_env(players=2), raw_env(players=2)
    a.reset(seed=5)
    b.reset(seed=5)
    a.reset()
    b.reset()
    assert a.game_seed == b.game_seed and a.game_state.deck == b.game_state.deck


def test_states_differing_only_in_hidden_information_give_equal_observations():
    for case in range(8):
        players = 2 + case % 3
        e = raw_env(players=players)
        e.reset(seed=case)
        random_steps(e, 10 + 9 * case, random.Random(case))
        state = e.game_state
        observer = case % players
        agent = f"player_{observer}"
        before = e.observe(agent)
        rival = (observer + 1) % players
        known = e._trackers[observer].knowledge(state).known_cards[rival]
        hand = state.hands[rival]
        unknown = [c for c in range(CARD_KINDS) if hand[c] > known[c]]
        if unknown and state.deck:  # swap an unknown rival card with a deck card
            c = unknown[0]
            hand[c] -= 1
            hand[state.deck[0]] += 1
            state.deck[0] = c
        random.Random(case).shuffle(state.deck)
        if state.held[rival] and len(state.dest_deck) > 5:
            state.held[rival][0], state.dest_deck[-1] = state.dest_deck[-1], state.held[rival][0]
        after = e.observe(agent)
        assert np.array_equal(before["observation"], after["observation"])
        assert np.array_equal(before["action_mask"], after["action_mask"])
        state.hands[observer][LOCO] += 1  # the seat's own hand is not hidden from it
        assert not np.array_equal(before["observation"], e.observe(agent)["observation"])


def test_observations_stay_in_bounds_and_the_layout_tiles_the_vector():
    e = raw_env(players=4)
    slices = sorted(e.encoder.layout.values(), key=lambda s: s.start)
    assert slices[0].start == 0 and slices[-1].stop == e.encoder.size
    assert all(a.stop == b.start for a, b in itertools.pairwise(slices))
    for game in range(3):
        e.reset(seed=game)
        rng = random.Random(game)
        while not e.game_state.is_over:
            for agent in e.agents:
                assert e.observation_space(agent).contains(e.observe(agent))
            random_steps(e, 1, rng)


def test_an_observation_shows_the_own_hand_in_its_slice():
    e = raw_env(players=2)
    e.reset(seed=3)
    hand = e.encoder.layout["hand"]
    vector = e.observe("player_1")["observation"]
    assert vector[hand.start : hand.stop].tolist() == e.game_state.hands[1]


def test_seats_are_relative_to_the_observer_and_padded_to_four_slots():
    e = raw_env(players=3)
    e.reset(seed=5)
    random_steps(e, 3, random.Random(5))  # the setup keeps: player_0 to move
    state = e.game_state
    slot = next(i for i, c in enumerate(state.face_up) if c not in (-1, LOCO))
    card = state.face_up[slot]
    e.step(e.action_table.blocks["draw_face_up"][0] + slot)  # player_0 takes it
    layout = e.encoder.layout
    vector = e.observe("player_2")["observation"]
    sizes = layout["hand_sizes"]
    assert vector[sizes.start : sizes.stop].tolist() == [
        *(sum(state.hands[s]) for s in (2, 0, 1)),
        0,
    ]
    known = layout["known_cards"].start + CARD_KINDS  # slot 1 of player_2 is seat 0
    assert vector[known + card] == 1  # a wagon card: none of that kind was known before
    own = layout["own_seat"]
    assert vector[own.start : own.stop].tolist() == [0, 0, 1, 0]
    seats = layout["seats"]
    assert vector[seats.start : seats.stop].tolist() == [1, 1, 1, 0]


def test_an_illegal_action_is_refused_with_one_line_and_changes_nothing():
    e = raw_env(players=2)
    e.reset(seed=1)
    agent = e.agent_selection
    before = e.observe(agent)
    illegal = int(np.flatnonzero(before["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match=r"illegal now \(masked out\)") as info:
        e.step(illegal)
    assert "\n" not in str(info.value) and agent in str(info.value)
    for bad, message in [(10**6, "outside the space"), ("0", "integer index"), (True, "integer")]:
        with pytest.raises(ValueError, match=message):
            e.step(bad)
    after = e.observe(agent)
    assert e.agent_selection == agent
    assert np.array_equal(before["observation"], after["observation"])


def test_win_rewards_split_among_winners_and_score_rewards_are_the_totals():
    for kind in ("win", "score"):
        e = raw_env(players=3, reward=kind)
        e.reset(seed=4)
        random_steps(e, 10**6, random.Random(4))
        state = e.game_state
        got = {a: e._cumulative_rewards[a] for a in e.agents}
        if kind == "win":
            assert sum(got.values()) == pytest.approx(1.0)
            for seat in state.winners:
                assert got[f"player_{seat}"] == pytest.approx(1 / len(state.winners))
        else:
            assert got == {f"player_{s.seat}": float(s.total) for s in state.scores}
        assert all(e.terminations.values())
        assert e.infos["player_0"]["winners"] == list(state.winners)


def test_rewards_come_only_at_the_end():
    e = raw_env(players=2)
    e.reset(seed=8)
    rng = random.Random(8)
    while not e.game_state.is_over:
        assert not any(e.rewards.values())
        random_steps(e, 1, rng)


def test_max_moves_truncates_the_game_without_reward():
    e = env(players=2, max_moves=15)
    e.reset(seed=2)
    moves = 0
    for _agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        if terminated or truncated:
            assert truncated and reward == 0 and not obs["action_mask"].any()
            e.step(None)
            continue
        e.step(int(np.flatnonzero(obs["action_mask"])[0]))
        moves += 1
    assert moves == 15 and not e.agents


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"players": 5}, "players must be 2, 3 or 4"),
        ({"reward": "points"}, "reward must be one of"),
        ({"rules": {"face_ups": 3}}, "rules.face_ups: unknown setting"),
        ({"max_moves": 0}, "max_moves must be"),
        ({"render_mode": "human"}, "render_mode must be"),
    ],
)
def test_bad_settings_are_refused_with_one_line(kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)) as info:
        raw_env(**kwargs)
    assert "\n" not in str(info.value)


def test_render_shows_the_public_table_only():
    e = raw_env(players=3, render_mode="ansi")
    e.reset(seed=6)
    text = e.render()
    assert "player_0 to move" in text and "deck" in text
    assert "player_2: 8 cards" in text  # hand sizes, never the cards
    with pytest.warns(UserWarning, match="render_mode"):
        assert raw_env(players=2).render() is None


def test_docs_describe_every_observation_slice_and_action_block():
    text = (ROOT / "docs" / "rl.md").read_text()
    e = raw_env(players=2)
    for name in [*e.encoder.layout, *e.action_table.blocks]:
        assert f"`{name}`" in text, name


def test_sims_imports_without_pettingzoo_and_sims_rl_says_what_to_install():
    code = (
        "import sys; sys.modules['pettingzoo'] = None\n"
        "import sims, sims.cli, sims.study, sims.rl\n"
        "sims.rl.ObservationEncoder  # numpy only\n"
        "try:\n"
        "    sims.rl.TTRCardGameEnv\n"
        "except ModuleNotFoundError as exc:\n"
        "    print(exc)\n"
        "try:\n"
        "    from sims.rl.env import env\n"
        "except ModuleNotFoundError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    lines = out.stdout.splitlines()
    assert lines == ["sims.rl needs pettingzoo: install the extra with pip install -e '.[rl]'"] * 2


def test_the_random_agents_example_refuses_a_bad_game_count_in_one_line():
    run = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "rl_random_agents.py"), "many"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2 and run.stderr.count("\n") == 1 and "GAMES" in run.stderr


def test_the_random_agents_example_runs_and_prints_win_shares():
    out = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "rl_random_agents.py"), "4"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    assert out.count("win share") == 2 + 3 + 4
    shares = [float(x) for x in re.findall(r"win share (\d\.\d\d)", out)]
    assert sum(shares) == pytest.approx(3.0, abs=0.05)
