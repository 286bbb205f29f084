"""`cardgame play --human SEAT --strategies ...`: a person's seat at the terminal, driven
here through standard input."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from cardgame import Game
from cardgame import actions as A
from cardgame.catalogue import default_catalogue
from cardgame.cli import main
from cardgame.state import KEEP_DRAWN, SETUP_KEEP
from sims.human import public_line, seat_names
from sims.winchance import is_unfinished

CATALOGUE = default_catalogue()
COMMAND = "import sys; from cardgame.cli import main; sys.exit(main())"


def cardgame(args: list[str], stdin: str, cwd) -> subprocess.CompletedProcess:
    """The real command with ``stdin`` as the person's keyboard."""
    return subprocess.run(
        [sys.executable, "-c", COMMAND, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )


def test_a_person_plays_a_whole_game_from_stdin_and_its_record_replays(tmp_path):
    path = tmp_path / "g.json"
    args = ["play", "--players", "3", "--human", "0", "--strategies", "planner,thief"]
    # "1": keep the first destination, then always the first legal action
    done = cardgame([*args, "--seed", "3", "--save", str(path)], "1\n" * 600, tmp_path)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "you are seat 0. Seats: 0 (human), 1 (planner), 2 (thief)" in out
    assert "Destinations on offer to seat 0 (keep at least 1):" in out
    assert "Your move (seat 0):" in out and "draw from the deck (blind;" in out
    assert "--- Final scores (R20-R22)" in out and "Saved the game record to" in out
    record = json.loads(path.read_text())
    assert record["strategies"] == ["human", "planner", "thief"]
    assert main(["replay", str(path)]) == 0


def test_the_legal_actions_are_numbered_and_destinations_named(tmp_path):
    done = cardgame(["play", "--human", "1", "--seed", "5"], "1 2\n1\nq\n", tmp_path)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    offer = out.split("Destinations on offer to seat 1", 1)[1].split("Numbers to keep", 1)[0]
    lines = [line.strip() for line in offer.splitlines()[1:] if line.strip()]
    assert len(lines) == 6
    for number, line in enumerate(lines, start=1):
        # "1  #24 Miami-Boston (12) [blue orange red]": number, id, cities, points, cards
        head, _, rest = line.partition("  ")
        assert head == str(number) and rest.startswith("#") and ") [" in rest
    assert "  1  draw from the deck (blind; " in out
    assert "Your hand:" in out and "circulation pile 0 cards (face down)" in out


def test_input_that_is_no_choice_is_asked_again(tmp_path):
    # "²" is a digit to str.isdigit() but not to int(): asked again, no traceback
    stdin = "9\nx\n0\n\n\u00b2\n1 1\n" + "abc\n99\n-1\n\u00b2\n1\nq\n"  # the keep, a turn
    done = cardgame(["play", "--human", "0", "--seed", "1"], stdin, tmp_path)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Not a choice: '9'. Type numbers from 1 to 6." in out
    assert "Not a choice: 'x'." in out
    assert "Keep at least 1 (R5)." in out  # "0" keeps none, below the minimum
    assert "Not a choice: ''." in out
    assert "Not a choice: 'abc'. Type a number from 1 to" in out
    assert "Not a choice: '99'." in out and "Not a choice: '-1'." in out
    assert out.count("Not a choice: '\u00b2'.") == 2
    assert "Game stopped after" in out and done.stderr == ""


@pytest.mark.parametrize("stop", ["q\n", ""], ids=["q", "ctrl-d"])
def test_stopping_saves_the_game_so_far_and_it_opens_in_the_viewer(tmp_path, stop, capsys):
    path = tmp_path / "stopped.json"
    args = ["play", "--players", "4", "--human", "2", "--strategies", "planner"]
    done = cardgame([*args, "--seed", "8", "--save", str(path)], "1\n" * 20 + stop, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Game stopped after" in done.stdout
    assert f"see it: cardgame view {path}" in done.stdout
    record = json.loads(path.read_text())
    assert is_unfinished(record) and record["turns"]
    assert record["strategies"] == ["planner", "planner", "human", "planner"]
    page = tmp_path / "stopped.html"
    assert main(["view", str(path), "-o", str(page), "--playouts", "2"]) == 0
    assert '"unfinished":true' in page.read_text()
    assert main(["replay", str(path)]) == 2  # not a finished game's record
    assert "final: missing" in capsys.readouterr().err


def test_without_a_person_it_is_the_game_cardgame_watch_plays(tmp_path, capsys):
    played, watched = tmp_path / "p.json", tmp_path / "w.json"
    names = "planner,thief,big_city"
    assert main(["play", "--strategies", names, "--seed", "4", "--save", str(played)]) == 0
    out = capsys.readouterr().out
    assert "Seats: 0 (planner), 1 (thief), 2 (big_city)" in out and "Final scores" in out
    assert main(["watch", "--strategies", names, "--seed", "4", "--save", str(watched)]) == 0
    assert json.loads(played.read_text()) == json.loads(watched.read_text())


def test_play_without_the_new_options_still_seats_random_players(capsys):
    assert main(["play", "--seed", "7", "--quiet"]) == 0
    assert capsys.readouterr().out.startswith("seed 7, 3 players: scores")


def test_what_a_rival_drew_blind_or_kept_is_not_shown():
    deck = {
        "turn": 5,
        "seat": 1,
        "round": 1,
        "final_round": False,
        "step1": ["red"],
        "action": {"type": "draw_deck"},
        "picks": [
            {"from": "deck", "card": "purple"},
            {"from": "face_up", "slot": 2, "card": "green", "refill": "black"},
        ],
    }
    assert public_line(deck, CATALOGUE) == (
        "Turn   5 seat 1: moves 1 red to circulation; draws a card from the deck and "
        "face-up green (slot 2, refilled black)"
    )
    tickets = {
        "turn": 6,
        "seat": 2,
        "round": 1,
        "final_round": False,
        "step1": [],
        "action": {"type": "draw_destinations"},
        "destinations": {"drawn": [24, 3, 9, 11], "kept": [24]},
    }
    assert public_line(tickets, CATALOGUE) == "Turn   6 seat 2: draws 4 destinations and keeps 1"


@pytest.mark.parametrize(
    ("players", "human", "strategies", "seats"),
    [
        (None, 0, None, ["human", "planner", "planner"]),
        (3, 1, "thief", ["thief", "human", "thief"]),
        (None, 2, "thief,rusher", ["thief", "rusher", "human"]),
        (4, 0, "a,b,c", ["human", "a", "b", "c"]),
        (None, None, "a,b", ["a", "b"]),
    ],
)
def test_seat_names(players, human, strategies, seats):
    assert seat_names(players, human, strategies) == seats


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--human", "3"], "--human: seat 3 is not one of 0-2"),
        (["--human", "0", "--strategies", "a,b,c", "--players", "3"], "name the 2 other seats"),
        (["--strategies", "planner,thief", "--players", "3"], "one strategy per seat (3), got 2"),
        (["--strategies", "planner"], "--players: 2, 3 or 4 seats, got 1"),
        (["--strategies", " , "], "--strategies: name at least one strategy"),
        (["--human", "0", "--strategies", "planer"], "did you mean planner"),
        (["--human", "0", "--rules", '{"nope": 1}'], "rules.nope"),
    ],
)
def test_bad_options_are_one_line_and_exit_2(capsys, args, message):
    assert main(["play", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_one_card_first_turn_is_shown_as_a_whole_turn(tmp_path):
    rules = json.dumps({"first_turn": "one_card"})
    args = ["play", "--players", "2", "--human", "0", "--rules", rules, "--seed", "4"]
    done = cardgame(args, "1\n1\nq\n", tmp_path)
    assert done.returncode == 0, done.stderr
    first = done.stdout.split("Your first turn is one card (seat 0):", 1)
    assert len(first) == 2 and "Face-up" in first[0]
    assert "Your second card" not in first[1].split("Choose", 1)[0]


def test_the_moves_are_grouped_and_a_group_asks_which(tmp_path):
    """Placing three singles is one line of the menu, whatever the number of ways; picking
    it asks which, and ``b`` goes back to the first menu."""
    from sims.human import choices_of

    game = Game(2, 0)
    state = game.new_state()
    while state.phase in (SETUP_KEEP, KEEP_DRAWN):
        state.apply(state.legal_actions()[0])
    view = state.view(state.seat)
    actions = view.legal_actions()
    menu = choices_of(actions, view)
    assert sorted(map(repr, (a for c in menu for a in c.actions))) == sorted(map(repr, actions))
    singles = [c for c in menu if isinstance(c.actions[0], A.PlaceThree)]
    assert len(singles) <= 1 and len(menu) < len(actions)
    if singles and len(singles[0].actions) > 1:
        assert singles[0].label.startswith("place three singles (")
    for choice in menu:  # one colour's columns on one line
        colours = {a.colour for a in choice.actions if isinstance(a, A.PlaceColumn)}
        assert len(colours) <= 1


def test_a_group_of_moves_asks_which_and_b_goes_back(tmp_path):
    # seed 2: the first turn of seat 0 offers a colour with several columns
    done = cardgame(["play", "--players", "2", "--human", "0", "--seed", "2"], "1\n", tmp_path)
    first = done.stdout.split("Your move (seat 0):", 1)[1]
    menu = [line for line in first.splitlines() if line.startswith("  ")]
    group = next((n for n, line in enumerate(menu, 1) if " ways" in line), None)
    assert group is not None, first
    stdin = f"1\n{group}\nb\n{group}\n1\nq\n"
    done = cardgame(["play", "--players", "2", "--human", "0", "--seed", "2"], stdin, tmp_path)
    assert done.returncode == 0, done.stderr
    asked = done.stdout.split("Your move (seat 0):", 1)[1]
    assert asked.count("b back, ? rules, q to stop") == 2  # asked which, went back, asked again


def test_a_question_mark_prints_the_rules_primer_at_any_prompt(tmp_path):
    done = cardgame(["play", "--human", "0", "--seed", "1"], "?\n1\n?\nq\n", tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("Rules in brief") == 2
    assert "R12" in done.stdout and "circulation pile is face down" in done.stdout


def test_without_a_seed_a_person_gets_a_fresh_deal_printed_for_a_replay(tmp_path):
    seeds = set()
    for _ in range(2):
        done = cardgame(["play", "--human", "0"], "q\n", tmp_path)
        assert done.returncode == 0, done.stderr
        head = done.stdout.split("\n", 1)[0]
        assert head.startswith("A fresh deal: seed ") and "play it again with --seed" in head
        seed = int(head.split("seed ", 1)[1].split(" ", 1)[0])
        assert f"{seed}; you are seat 0" in done.stdout
        seeds.add(seed)
    assert len(seeds) == 2  # os.urandom: two games, two deals
    again = cardgame(["play", "--human", "0", "--seed", str(seed)], "q\n", tmp_path)
    assert "A fresh deal" not in again.stdout


def test_the_opening_line_is_printed_once(tmp_path):
    done = cardgame(["play", "--human", "1", "--seed", "5"], "q\n", tmp_path)
    assert done.stdout.count("you are seat 1. Seats:") == 1


def test_a_five_thousand_digit_number_is_one_line_not_a_traceback(tmp_path):
    # more digits than Python's int() reads (sys.int_info.str_digits_check_threshold)
    long = "7" * 5000
    done = cardgame(["play", "--human", "0", "--seed", "1"], f"{long}\n1\n{long}\nq\n", tmp_path)
    assert done.returncode == 0 and done.stderr == ""
    said = [line for line in done.stdout.splitlines() if "Not a choice" in line]
    assert len(said) == 2 and all("(5,000 characters)" in line for line in said)
    assert all(len(line) < 200 for line in said)


def test_the_menu_names_an_editions_own_colours():
    """A playtest of an edition with a colour of its own reads its names, never the printed
    ones by position."""
    from cardgame.edition import synthetic
    from sims.human import choices_of, describe

    cards = synthetic(30, 4, seed=30, colours=9)
    names = cards.card_names
    assert names[8] not in default_catalogue().card_names and names[-1] == "locomotive"
    state = Game(2, 1, catalogue=cards).new_state()
    while state.phase in (SETUP_KEEP, KEEP_DRAWN):
        state.apply(state.legal_actions()[0])
    view = state.view(state.seat)
    assert describe(A.PlaceThree((0, 4, 8)), view, names).endswith(f", {names[8]}")
    column = describe(A.PlaceColumn(8, 2, 1), view, names)
    assert column.startswith(f"place a column of 2 {names[8]} + 1 locomotive")
    labels = " ".join(c.label for c in choices_of(view.legal_actions(), view, names))
    shown = {names[card] for card in view.face_up if card >= 0}
    assert all(f"take face-up {name}" in labels for name in shown)
