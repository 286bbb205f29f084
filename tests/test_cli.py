"""The `cardgame` command: play, replay, and one-line errors with exit code 2."""

import json
import subprocess
import sys

import pytest

from cardgame.cli import main


def test_play_narrates_a_four_player_two_round_game(capsys):
    assert main(["play", "--players", "4", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "--- Round 1" in out and "--- Round 2" in out
    assert "Round 2 resolution" in out
    assert ("Final scores" in out and "wins" in out) or "share the win" in out
    assert "final round" in out


@pytest.mark.parametrize("players", [2, 3, 4])
def test_saved_game_of_each_player_count_replays(tmp_path, capsys, players):
    path = tmp_path / f"g{players}.json"
    assert (
        main(["play", "--players", str(players), "--seed", "3", "--quiet", "--save", str(path)])
        == 0
    )
    assert main(["replay", str(path)]) == 0
    assert "replays to the same result" in capsys.readouterr().out


def test_replay_reports_divergence_with_exit_1(tmp_path, capsys):
    path = tmp_path / "g.json"
    main(["play", "--players", "2", "--seed", "3", "--quiet", "--save", str(path)])
    record = json.loads(path.read_text())
    record["turns"][4]["step1"] = ["red"] * 9
    path.write_text(json.dumps(record))
    assert main(["replay", str(path)]) == 1
    assert "DIVERGES at turn 5" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["play", "--players", "5"], "players must be 2, 3 or 4"),
        (["play", "--rules", '{"rounds": {"4": 0}}'], "rules.rounds"),
        (["play", "--rules", '{"bogus": 1}'], "rules.bogus: unknown setting"),
        (["play", "--rules", "{bad"], "bad JSON"),
        (["replay", "/no/such/file.json"], "cannot read"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_console_script_runs_without_traceback(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "cardgame.cli", "play", "--players", "9"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
