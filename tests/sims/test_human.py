"""`cardgame play --human SEAT --strategies ...`: a person's seat at the terminal, driven
here through standard input."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from cardgame.catalogue import default_catalogue
from cardgame.cli import main
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
