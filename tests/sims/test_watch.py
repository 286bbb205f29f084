"""`cardgame watch`: one narrated game between scripted strategies."""

import pytest

from cardgame.cli import main


def test_watch_narrates_a_game_between_strategies_and_saves_a_replayable_record(tmp_path, capsys):
    path = tmp_path / "w.json"
    assert (
        main(
            ["watch", "--strategies", "planner,thief,big_city", "--seed", "4", "--save", str(path)]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "Seats: 0 (planner), 1 (thief), 2 (big_city)" in out
    assert "Final scores" in out and "Simulated table time" in out
    assert main(["replay", str(path)]) == 0
    assert "replays to the same result" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("strategies", "message"),
    [("planner", "name 2 to 4 strategies"), ("planer,thief", "did you mean planner")],
)
def test_watch_bad_input_is_one_line_exit_2(capsys, strategies, message):
    assert main(["watch", "--strategies", strategies]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
