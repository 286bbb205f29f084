"""Records that prove themselves: final hands and face-up row, only the rule
settings that apply, no key named twice, and a content digest, so `replay` detects any edit."""

import copy
import hashlib
import json

import pytest

from cardgame import Game, RecordError, Rules
from cardgame import actions as A
from cardgame.cli import main
from cardgame.randomplay import play_random
from cardgame.record import decisions, digest_of, load, replay, shuffle_orders, to_record
from cardgame.shuffling import RecordedShuffles

pytestmark = pytest.mark.usefixtures("engine")  # every test on both engines


def _record(players: int, seed: int, rules: Rules | None = None) -> dict:
    game = Game(players, seed, rules or Rules())
    record = to_record(play_random(game, record=True), [f"s{i}" for i in range(players)])
    return json.loads(json.dumps(record))


def _sealed(record: dict) -> dict:
    """``record`` with its digest made to match again: only the replay can catch the edit."""
    record["digest"] = digest_of(record)
    return record


def _before_last_turn(record: dict):
    """The recorded game replayed up to the start of its last turn (step 1 done)."""
    game = Game(record["players"], record["seed"], Rules.from_dict(record["rules"]))
    state = game.new_state(record=True, shuffles=RecordedShuffles(shuffle_orders(record)))
    for kept in record["setup"]["kept"]:
        state.apply(A.KeepDestinations(tuple(kept)))
    for turn in record["turns"][:-1]:
        for action in decisions(turn):
            state.apply(action)
    return state


def _cli(tmp_path, capsys, text: str) -> tuple[int, list[str]]:
    path = tmp_path / "game.json"
    path.write_text(text, encoding="utf-8")
    code = main(["replay", str(path)])
    captured = capsys.readouterr()
    return code, captured.out.splitlines() + captured.err.splitlines()


# ----------------------------------------------------------------- final hands, final row
def test_the_record_holds_the_final_table():
    state = play_random(Game(3, 5), record=True)
    record = to_record(state)
    order = ["purple", "white", "blue", "yellow", "orange", "black", "red", "green", "locomotive"]
    assert len(record["final"]["hands"]) == 3
    for seat, hand in enumerate(record["final"]["hands"]):
        assert [hand.count(name) for name in order] == list(state.hands[seat])
        assert hand == sorted(hand, key=order.index)
    assert record["final"]["face_up"] == [
        order[c] if c != A.NO_CARD else None for c in state.face_up
    ]


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("sealed", [False, True], ids=["digest stale", "digest resealed"])
def test_a_different_legal_last_placement_diverges(players, sealed):
    """The last placement of a game shows nowhere but in the final hands, which are now
    recorded: every other legal placement is detected, even with the digest made to fit."""
    record = next(
        r
        for r in (_record(players, seed) for seed in range(40))
        if r["turns"][-1]["action"]["type"] in ("place_column", "place_three")
    )
    last = record["turns"][-1]
    state = _before_last_turn(record)
    others = [
        a
        for a in state.legal_actions()
        if isinstance(a, A.PlaceColumn | A.PlaceThree) and A.to_dict(a) != last["action"]
    ]
    assert others
    quiet = 0  # placements that steal nothing: before, nothing in the record showed them
    for other in others:
        tampered = copy.deepcopy(record)
        tampered["turns"][-1]["action"] = A.to_dict(other)
        result = replay(_sealed(tampered) if sealed else tampered)
        assert not result.ok, other
        colours = [other.colour] if isinstance(other, A.PlaceColumn) else other.colours
        if all(state.yard_owner[c] == A.NOBODY for c in colours):
            quiet += 1
            assert result.divergence.startswith(f"final.hands[{last['seat']}]")
    assert quiet


@pytest.mark.parametrize(("players", "seed"), [(2, 43), (3, 11), (4, 1)])
def test_a_last_face_up_pick_from_another_slot_with_the_same_card_diverges(players, seed):
    record = _record(players, seed)
    last = record["turns"][-1]
    assert last["action"]["type"] == "draw_face_up" and len(last["picks"]) == 1
    slot = last["action"]["slot"]
    row = _before_last_turn(record).face_up
    other = next(i for i, card in enumerate(row) if card == row[slot] and i != slot)
    tampered = copy.deepcopy(record)
    tampered["turns"][-1]["action"]["slot"] = other
    tampered["turns"][-1]["picks"][0]["slot"] = other
    result = replay(_sealed(tampered))
    assert not result.ok
    assert result.divergence.startswith("final.face_up[")


# ----------------------------------------------------------------- rule settings that apply
def test_a_record_holds_only_the_rule_settings_that_apply():
    two, four = _record(2, 1), _record(4, 1)
    assert two["rules"]["rounds"] == {"2": 1}
    assert "round_two_deal" not in two["rules"]  # a game of one round deals no second round
    assert four["rules"]["rounds"] == {"4": 2} and four["rules"]["round_two_deal"] == 4
    short_row = _record(2, 1, Rules(face_up=2))
    assert "three_locomotive_wipe" not in short_row["rules"]
    assert replay(short_row).ok
    assert Rules.from_dict(four["rules"]).rounds_for(4) == 2


NOT_APPLYING = {
    "rounds of another player count": (
        2,
        lambda rules: rules["rounds"].update({"4": 3}),
        "rules.rounds.4: does not apply to a 2-player game",
    ),
    "rounds of a count that is not the game's, written another way": (
        2,
        lambda rules: rules.update(rounds={"02": 1}),
        "rules.rounds.02: does not apply to a 2-player game",
    ),
    "a second round's deal in a game of one round": (
        3,
        lambda rules: rules.update(round_two_deal=5),
        "rules.round_two_deal: does not apply to a game of one round (rules.rounds.3 is 1)",
    ),
    "the game's own rounds missing": (
        2,
        lambda rules: rules.update(rounds={}),
        "rules.rounds.2: missing",
    ),
    "a setting that applies, missing": (
        4,
        lambda rules: rules.pop("round_two_deal"),
        "rules.round_two_deal: missing",
    ),
}


@pytest.mark.parametrize("name", list(NOT_APPLYING))
def test_a_rule_setting_that_does_not_apply_is_refused(tmp_path, capsys, name):
    players, tamper, message = NOT_APPLYING[name]
    record = _record(players, 3)
    tamper(record["rules"])
    code, lines = _cli(tmp_path, capsys, json.dumps(_sealed(record)))
    assert code == 2
    assert lines == [f"cardgame replay: error: not a valid record: {message}"]


def test_a_wipe_setting_with_a_row_too_short_for_a_wipe_is_refused():
    record = _record(2, 1, Rules(face_up=2))
    record["rules"]["three_locomotive_wipe"] = True
    with pytest.raises(RecordError, match="rules.three_locomotive_wipe: does not apply to a face"):
        replay(_sealed(record))


# ----------------------------------------------------------------- keys named twice
def test_a_key_named_twice_is_refused(tmp_path, capsys):
    """json keeps the last value: the first could say anything and replay would not see it."""
    record = _record(2, 7)
    text = '{"seed": 999999, ' + json.dumps(record)[1:]
    code, lines = _cli(tmp_path, capsys, text)
    assert code == 2
    assert lines == [
        "cardgame replay: error: "
        f"{tmp_path / 'game.json'}: not a valid record: seed: the key appears twice in one object"
    ]


def test_a_nested_key_named_twice_is_refused_with_its_path(tmp_path, capsys):
    record = _record(2, 7)
    text = json.dumps(record, indent=1).replace('"type": "draw_deck"', '"type": "pass"', 1)
    text = text.replace('"type": "pass"', '"type": "pass", "type": "draw_deck"', 1)
    index = next(i for i, t in enumerate(record["turns"]) if t["action"]["type"] == "draw_deck")
    code, lines = _cli(tmp_path, capsys, text)
    assert code == 2 and len(lines) == 1
    assert lines[0].endswith(
        f"not a valid record: turns[{index}].action.type: the key appears twice in one object"
    )
    with pytest.raises(RecordError, match=r"action\.type: the key appears twice"):
        load(tmp_path / "game.json")


def test_a_json_lines_line_with_a_key_named_twice_is_refused_and_the_others_checked(
    tmp_path, capsys
):
    good = json.dumps(_record(2, 7), separators=(",", ":"))
    doubled = good.replace('"players":2', '"players":2,"players":2', 1)
    code, lines = _cli(tmp_path, capsys, f"{good}\n{doubled}\n{good}\n")
    assert code == 2
    assert sum("replays to the same result" in line for line in lines) == 2
    assert (
        "cardgame replay: error: line 2: not a valid record: players: the key appears twice "
        "in one object"
    ) in lines


# ----------------------------------------------------------------- the digest
def test_the_digest_is_sha256_of_the_canonical_content():
    record = _record(3, 2)
    content = {k: v for k, v in record.items() if k != "digest"}
    canonical = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    assert record["digest"] == "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()
    assert list(record)[-1] == "digest"


def test_the_digest_ignores_key_order_and_layout(tmp_path, capsys):
    record = _record(2, 4)
    reordered = dict(reversed(list(record.items())))
    reordered["result"] = dict(reversed(list(record["result"].items())))
    code, lines = _cli(tmp_path, capsys, json.dumps(reordered, indent=3))
    assert code == 0, lines
    assert replay(reordered).ok


@pytest.mark.parametrize("seat", [0, 1])
def test_a_renamed_strategy_is_detected(tmp_path, capsys, seat):
    """Strategy names cannot be re-derived by replay: the digest is what covers them."""
    record = _record(2, 9)
    record["strategies"][seat] = "planner"
    result = replay(record)
    assert not result.ok
    assert result.divergence.startswith("digest: expected sha256:")
    assert f"recorded {record['digest']}" in result.divergence
    code, lines = _cli(tmp_path, capsys, json.dumps(record))
    assert code == 1
    assert len(lines) == 1 and lines[0].startswith("game: DIVERGES at digest: expected sha256:")


def test_an_edited_field_is_named_before_the_digest():
    record = _record(2, 9)
    record["result"]["turns"] += 1
    assert replay(record).divergence.startswith("result.turns: expected")


@pytest.mark.parametrize(
    ("tamper", "message"),
    [
        (lambda r: r.pop("digest"), "not a valid record: digest: missing"),
        (lambda r: r.update(digest="md5:0"), 'digest: expected "sha256:" and 64 lowercase hex'),
        (lambda r: r.update(digest=r["digest"].upper()), "digest: expected"),
        (lambda r: r.update(digest=7), "digest: expected"),
        (lambda r: r.pop("final"), "not a valid record: final: missing"),
        (lambda r: r["final"].update(hands="red"), "final.hands: expected a list"),
        (lambda r: r["final"]["face_up"].append("joker"), "final.face_up[5]: expected a card"),
    ],
)
def test_a_malformed_digest_or_final_table_is_not_a_record(tmp_path, capsys, tamper, message):
    record = _record(2, 9)
    tamper(record)
    code, lines = _cli(tmp_path, capsys, json.dumps(record))
    assert code == 2 and len(lines) == 1
    assert message in lines[0]


def test_a_version_1_record_is_refused_in_one_line(tmp_path, capsys):
    record = _record(2, 9)
    del record["digest"], record["final"]
    record["version"] = 1
    code, lines = _cli(tmp_path, capsys, json.dumps(record))
    assert code == 2
    assert lines == [
        "cardgame replay: error: record version 1 predates final hands and the content digest, "
        "so it cannot be checked; this engine reads version 2 (record the game again)"
    ]
