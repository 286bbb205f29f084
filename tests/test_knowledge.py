"""Knowledge (what a seat with perfect recall may know) and determinisation (sample_world)."""

from __future__ import annotations

import random

import pytest

from cardgame import Game
from cardgame.actions import DrawFaceUp
from cardgame.knowledge import KnowledgeTracker, sample_world, unseen_cards
from cardgame.state import CARD_KINDS, NO_CARD, GameState

pytestmark = pytest.mark.usefixtures("engine")  # every test on both engines


def play(players: int, seed: int, steps: int) -> tuple[GameState, list[KnowledgeTracker]]:
    """A random game ``steps`` actions in (or over), every seat's tracker following it."""
    state = Game(players, seed).new_state()
    trackers = [KnowledgeTracker(state, s) for s in range(players)]
    rng = random.Random(f"knowledge-test:{seed}")
    for _ in range(steps):
        if state.is_over:
            break
        actions = state.legal_actions()
        action = actions[rng.randrange(len(actions))]
        for t in trackers:
            t.before(state, action)
        state.apply(action)
    return state, trackers


def test_known_cards_are_always_a_lower_bound_on_the_rival_hand():
    for seed in range(6):
        state = Game(2 + seed % 3, seed).new_state()
        trackers = [KnowledgeTracker(state, s) for s in range(state.players)]
        rng = random.Random(seed)
        while not state.is_over:
            actions = state.legal_actions()
            action = actions[rng.randrange(len(actions))]
            for t in trackers:
                t.before(state, action)
            state.apply(action)
            for t in trackers:
                known = t.knowledge(state).known_cards
                for r in range(state.players):
                    assert all(known[r][c] <= state.hands[r][c] for c in range(CARD_KINDS))


def test_a_face_up_pick_becomes_known_and_starting_locomotives_are_known():
    state, trackers = play(2, 3, 2)  # both setup keeps done: seat 0 to move
    assert trackers[1].knowledge(state).known_cards[0][8] == state.rules.starting_locomotives
    slot = next(i for i, c in enumerate(state.face_up) if c not in (NO_CARD, 8))
    card = state.face_up[slot]
    before = trackers[1].knowledge(state).known_cards[0][card]
    action = DrawFaceUp(slot)
    for t in trackers:
        t.before(state, action)
    state.apply(action)
    assert trackers[1].knowledge(state).known_cards[0][card] == before + 1
    assert trackers[0].knowledge(state).known_cards[0] == (0,) * CARD_KINDS


def test_states_differing_only_in_hidden_information_give_equal_knowledge():
    for seed in range(8):
        state, trackers = play(2 + seed % 3, seed, 10 + 7 * seed)
        observer = seed % state.players
        rival = (observer + 1) % state.players
        k = trackers[observer].knowledge(state)
        hand, known = state.hands[rival], k.known_cards[rival]
        unknown = [c for c in range(CARD_KINDS) if hand[c] > known[c]]
        if unknown and state.deck:  # swap an unknown rival card with a deck card
            c = unknown[0]
            hand[c] -= 1
            hand[state.deck[0]] += 1
            state.deck[0] = c
        random.Random(seed).shuffle(state.deck)
        if state.held[rival] and len(state.dest_deck) > 5:
            state.held[rival][0], state.dest_deck[-1] = state.dest_deck[-1], state.held[rival][0]
        assert trackers[observer].knowledge(state) == k
        state.hands[observer][0] += 1  # the seat's own hand is not hidden from it
        assert trackers[observer].knowledge(state) != k


def _assert_consistent(world: GameState, state: GameState, tracker: KnowledgeTracker) -> None:
    k = tracker.knowledge(state)
    assert tracker.knowledge(world) == k
    assert world.card_total() == 96
    places = [*world.dest_deck]
    for seat in range(world.players):
        places += world.held[seat] + world.offers[seat] + world.reached[seat]
        assert all(k.known_cards[seat][c] <= world.hands[seat][c] for c in range(CARD_KINDS))
    assert sorted(places) == sorted(d.id for d in state.game.catalogue.destinations)
    for pos, dest in k.bottom:
        assert world.dest_deck[pos] == dest


def test_sampled_worlds_are_consistent_with_the_knowledge():
    rng = random.Random(1)
    for case in range(60):
        players = 2 + case % 3
        state, trackers = play(players, case, rng.randrange(0, 160))
        observer = rng.randrange(players)
        world = sample_world(trackers[observer].knowledge(state), random.Random(case))
        _assert_consistent(world, state, trackers[observer])
        if not world.is_over and world.seat == observer:
            assert world.legal_actions() == state.legal_actions()
        moves = random.Random(case)
        for _ in range(30):  # the sampled world plays on under the rules
            if world.is_over:
                break
            actions = world.legal_actions()
            world.apply(actions[moves.randrange(len(actions))])
            assert world.card_total() == 96


def test_own_returned_destinations_stay_at_the_known_bottom_positions():
    for seed in range(40):
        state, trackers = play(2, seed, 120)
        for t in trackers:
            k = t.knowledge(state)
            for pos, dest in k.bottom:
                assert state.dest_deck[pos] == dest


def test_sampling_is_a_pure_function_of_the_rng():
    state, trackers = play(3, 5, 40)
    k = trackers[1].knowledge(state)
    a, b = sample_world(k, random.Random(9)), sample_world(k, random.Random(9))
    assert (a.hands, a.deck, a.held, a.dest_deck) == (b.hands, b.deck, b.held, b.dest_deck)


def test_unseen_cards_and_destinations_are_dealt_uniformly():
    state, trackers = play(2, 11, 2)  # after setup, seat 0 observes seat 1
    k = trackers[0].knowledge(state)
    pool = unseen_cards(k)
    unknown = k.view.hand_sizes[1] - sum(k.known_cards[1])
    held = k.view.held_counts[1]
    rng = random.Random(2)
    n = 3000
    cards = [0] * CARD_KINDS
    dests: dict[int, int] = {}
    for _ in range(n):
        world = sample_world(k, rng)
        for c in range(CARD_KINDS):
            cards[c] += world.hands[1][c] - k.known_cards[1][c]
        for d in world.held[1]:
            dests[d] = dests.get(d, 0) + 1
    chi = 0.0
    for c in range(CARD_KINDS):
        expected = n * unknown * pool.count(c) / len(pool)
        if expected:
            chi += (cards[c] - expected) ** 2 / expected
    assert chi < 40  # 8 degrees of freedom: 40 is far beyond the 99.99th percentile
    unseen = len(state.game.catalogue.destinations) - len(k.view.held_ids)
    expected = n * held / unseen
    chi = sum(
        (dests.get(d.id, 0) - expected) ** 2 / expected
        for d in state.game.catalogue.destinations
        if d.id not in k.view.held_ids
    )
    assert chi < unseen + 6 * (2 * unseen) ** 0.5  # generous: mean dof, six sds


def test_a_seat_that_forgot_part_of_its_own_pile_gets_it_sampled_from_the_unseen_cards():
    """own_unknown: the pile keeps its size and the recalled cards; the rest is drawn."""
    import dataclasses

    from cardgame.observation import SeatView

    for seed in range(20):
        state, trackers = play(2, seed, 60)
        seat = state.seat
        pile = state.circulation[seat]
        if state.is_over or sum(pile) < 2:
            continue
        k = trackers[seat].knowledge(state)
        recalled = list(pile)
        first = next(c for c in range(CARD_KINDS) if recalled[c])
        recalled[first] -= 1  # the seat forgot one card of its pile
        piles = list(k.view.circulations)
        piles[seat] = tuple(recalled)
        view = SeatView((*k.view[:15], tuple(piles), *k.view[16:]))
        believed = dataclasses.replace(k, view=view)
        kinds = set()
        for draw in range(30):
            world = sample_world(believed, random.Random(draw), own_unknown=1)
            assert world.card_total() == 96
            got = world.circulation[seat]
            assert sum(got) == sum(pile)
            assert all(got[c] >= recalled[c] for c in range(CARD_KINDS))
            kinds.add(next(c for c in range(CARD_KINDS) if got[c] > recalled[c]))
        assert len(kinds) > 1  # the forgotten card's kind is not known, so it varies
        return
    raise AssertionError("no game reached a pile of two cards")


def test_knowledge_leads_nowhere_near_the_state():
    """A strategy given Knowledge (ismcts) can reach no GameState and none of its lists."""
    from tests.test_view import reachable

    state, trackers = play(3, 4, 40)
    found = reachable(trackers[state.seat].knowledge(state))
    live = {id(state), id(state.deck), id(state.dest_deck), *map(id, state.hands)}
    live |= {id(state.held), *map(id, state.held), id(state.circulation)}
    assert not [path for key, (obj, path) in found.items() if key in live]
    assert not [path for obj, path in found.values() if isinstance(obj, GameState)]


def test_a_position_is_the_states_fields_on_containers_of_its_own():
    from cardgame.shuffling import SeededShuffles
    from cardgame.state import POSITION_FIELDS

    state = Game(3, seed=21).new_state()
    for _ in range(25):
        state.apply(state.legal_actions()[0])
    copy = state.position(SeededShuffles(4))
    for name in POSITION_FIELDS:
        assert getattr(copy, name) == getattr(state, name), name
    copy.hands[0][0] += 1
    copy.deck.pop()
    assert copy.hands[0] != state.hands[0] and len(copy.deck) == len(state.deck) - 1
    fields = {name: getattr(state, name) for name in POSITION_FIELDS}
    del fields["steals"]
    with pytest.raises(TypeError, match="steals"):
        GameState.at(state.game, SeededShuffles(4), **fields)
