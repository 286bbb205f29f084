"""Replay checks every field of a record, not only the turns."""

import copy
import json

import pytest

from cardgame import Game, RecordError
from cardgame.randomplay import play_random
from cardgame.record import replay, to_record

pytestmark = pytest.mark.usefixtures("engine")  # every test on both engines


@pytest.fixture(scope="module")
def played(engine):
    """A 3-player game with at least one steal, so every result field is non-trivial."""
    for seed in range(40):
        record = to_record(play_random(Game(3, seed), record=True), ["random"] * 3)
        if any(record["result"]["steals"]) and any(
            record["result"]["scores"][0]["big_city_bonuses"]
        ):
            return json.loads(json.dumps(record))
    raise AssertionError("no game with a steal and a big-city bonus")


def _bump(path):
    def tamper(record):
        *parents, last = path
        target = record
        for key in parents:
            target = target[key]
        target[last] += 1

    return tamper


def _set(path, value):
    def tamper(record):
        *parents, last = path
        target = record
        for key in parents:
            target = target[key]
        target[last] = value(target[last]) if callable(value) else value

    return tamper


def _other_seat(winners):
    return [next(s for s in range(3) if s not in winners)]


DIVERGING = {
    "score total": (_bump(["result", "scores", 0, "total"]), "result.scores[0].total"),
    "score destination points": (
        _bump(["result", "scores", 0, "destination_points"]),
        "result.scores[0].destination_points",
    ),
    "score penalties": (_bump(["result", "scores", 1, "penalties"]), "result.scores[1].penalties"),
    "score bonus points": (
        _bump(["result", "scores", 0, "bonus_points"]),
        "result.scores[0].bonus_points",
    ),
    "score big cities": (
        _set(["result", "scores", 0, "big_city_bonuses"], lambda b: [*b, "Atlantis"]),
        "result.scores[0].big_city_bonuses",
    ),
    "score reached": (_bump(["result", "scores", 2, "reached"]), "result.scores[2].reached"),
    "round points": (_bump(["result", "round_points", 1, 0]), "result.round_points[1][0]"),
    "winners": (_set(["result", "winners"], _other_seat), "result.winners"),
    "turn count": (_bump(["result", "turns"]), "result.turns"),
    "steals": (_bump(["result", "steals", 0]), "result.steals[0]"),
    "stolen from": (_bump(["result", "stolen_from", 2]), "result.stolen_from[2]"),
    "dealt destinations": (
        _set(["setup", "dealt", 0, 0], lambda d: d % 46 + 1),
        "setup.dealt[0][0]",
    ),
    "round hands: 20 locomotives": (
        _set(["rounds", 0, "hands", 0], ["locomotive"] * 20),
        "rounds[0].hands[0]",
    ),
    "round face-up row": (
        _set(["rounds", 0, "face_up", 0], lambda c: "red" if c != "red" else "blue"),
        "rounds[0].face_up[0]",
    ),
    "round deck size": (_bump(["rounds", 0, "deck_size"]), "rounds[0].deck_size"),
    "resolutions": (
        _set(["resolutions", 0, "seats", 0, "unreached"], lambda u: [*u, 999]),
        "resolutions[0].seats[0].unreached",
    ),
    "seed": (_bump(["seed"]), "shuffles[0].order"),
    "an extra shuffle": (
        _set(["shuffles"], lambda s: [*s, s[-1]]),
        "shuffles: expected 3 entries",
    ),
    "rules: rounds": (
        lambda r: r["rules"].update(rounds={"3": 2}, round_two_deal=4),
        "turns: the record ends",
    ),
}


@pytest.mark.parametrize("name", list(DIVERGING))
def test_a_record_tampered_outside_the_turns_diverges(played, name):
    tamper, path = DIVERGING[name]
    record = copy.deepcopy(played)
    tamper(record)
    result = replay(record)
    assert not result.ok
    assert path in result.divergence, result.divergence
    assert result.divergence.startswith(path.split(":")[0])


def test_a_tampered_winners_list_shows_the_real_difference(played):
    record = copy.deepcopy(played)
    real = record["result"]["winners"]
    record["result"]["winners"] = _other_seat(real)
    message = replay(record).divergence
    assert message == (
        f"result.winners[0]: expected {real[0]}, recorded {record['result']['winners'][0]}"
    ) or message.startswith(f"result.winners: expected {len(real)} entries")


REFUSED = {
    "unknown top-level key": (lambda r: r.update(comment="hi"), "comment: unknown key"),
    "unknown result key": (lambda r: r["result"].update(bonus=3), "result.bonus: unknown key"),
    "unknown turn key": (lambda r: r["turns"][2].update(x=1), "turns[2].x: unknown key"),
    "unknown score key": (
        lambda r: r["result"]["scores"][0].update(extra=1),
        "result.scores[0].extra: unknown key",
    ),
    "unknown rules key": (lambda r: r["rules"].update(bogus=1), "rules.bogus: unknown setting"),
    "missing key": (lambda r: r.pop("resolutions"), "resolutions: missing"),
    "format": (lambda r: r.update(format="chess"), "not a ttr-cardgame-record"),
    "version": (lambda r: r.update(version=3), "record version 3"),
    "version as text": (lambda r: r.update(version="1"), "record version a string"),
    "seed as text": (lambda r: r.update(seed="7"), "seed: expected a whole number"),
    "seed as float": (lambda r: r.update(seed=7.0), "seed: expected a whole number"),
    "strategy names: too few": (
        lambda r: r.update(strategies=["random"]),
        "strategies: expected one name per seat",
    ),
    "strategy names: not strings": (
        lambda r: r.update(strategies=[1, 2, 3]),
        "strategies[0]: expected a non-empty string",
    ),
    "players vs strategies": (lambda r: r.update(players=2), "one name per seat"),
    "a card name": (
        lambda r: r["rounds"][0]["hands"][0].append("joker"),
        "rounds[0].hands[0][",
    ),
    "an action that is a string": (
        lambda r: r["turns"][0].update(action="draw_deck"),
        "turns[0].action: expected an object, got a string",
    ),
    "an action that is null": (
        lambda r: r["turns"][0].update(action=None),
        "turns[0].action: expected an object, got null",
    ),
    "a bool as a number": (lambda r: r["result"].update(turns=True), "result.turns"),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_a_malformed_record_is_refused_with_the_field_named(played, name):
    tamper, message = REFUSED[name]
    record = copy.deepcopy(played)
    tamper(record)
    with pytest.raises(RecordError, match="^") as error:
        replay(record)
    assert message in str(error.value)


def test_a_four_player_round_one_resolution_lists_only_what_was_held_then():
    """Derived from the record alone: a round's resolution covers exactly the destinations
    each seat held when the round ended (kept at setup or drawn since, not yet reached)."""
    record = to_record(play_random(Game(4, 1), record=True))
    reached_before: list[set[int]] = [set() for _ in range(4)]
    for resolution in record["resolutions"]:
        end = resolution["round"]
        for seat in resolution["seats"]:
            s = seat["seat"]
            held = list(record["setup"]["kept"][s])
            for turn in record["turns"]:
                if turn["seat"] == s and turn["round"] <= end and "destinations" in turn:
                    held.extend(turn["destinations"]["kept"])
            expected = sorted(set(held) - reached_before[s])
            assert sorted(seat["reached"] + seat["unreached"]) == expected, (end, s)
            reached_before[s] |= set(seat["reached"])
