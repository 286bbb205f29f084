"""The `cardgame` command: play, replay, and one-line errors with exit code 2."""

import json
import re
import subprocess
import sys

import pytest

from cardgame.cli import main

pytestmark = pytest.mark.usefixtures("engine")  # every test on both engines


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


# ----------------------------------------------------------------- replay never tracebacks
@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A saved 2-player game (pretty-printed JSON, as `play --save` writes it)."""
    path = tmp_path_factory.mktemp("saved") / "g.json"
    assert main(["play", "--players", "2", "--seed", "5", "--quiet", "--save", str(path)]) == 0
    return path


def _one_error_line(capsys, message):
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("cardgame replay: error: ")
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert message in captured.err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"[1, 2, 3]", "the top level is a list, not an object"),
        (b'"text"', "the top level is a string"),
        (b"", "holds no game record"),
        (b"\n\n  \n", "holds no game record"),
        (b"\x00\xff\xfe binary \x89PNG", "not UTF-8 text"),
        ('{"format": "ttr-cardgame-record", "x": "é"}'.encode("latin-1"), "not UTF-8 text"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        (b'{"seed": Infinity}', "Infinity is not a number"),
        (b'{"seed": NaN}', "NaN is not a number"),
        (b'{"seed": -Infinity}', "-Infinity is not a number"),
        (b'{"seed": 1e400}', "too large"),
        (b'{"seed": ' + b"9" * 5000 + b"}", "not valid JSON"),
        (b'{"a": 1,\n "b": \n', "not valid JSON"),
    ],
)
def test_replay_of_what_is_not_a_record_is_one_line_and_exit_2(tmp_path, capsys, content, message):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    assert main(["replay", str(path)]) == 2
    _one_error_line(capsys, message)


@pytest.mark.parametrize(
    ("tamper", "message"),
    [
        (lambda r: r["turns"][3].update(action="draw_deck"), "turns[3].action: expected an object"),
        (lambda r: r["turns"][3].update(action=None), "turns[3].action: expected an object"),
        (lambda r: r["turns"][3]["action"].update(type=7), "turns[3].action.type"),
        (lambda r: r["turns"][3].update(picks=[{"from": "sky"}]), "turns[3].picks[0].from"),
        (lambda r: r["turns"][3].update(picks=[{"from": []}]), "turns[3].picks[0].from"),
        (lambda r: r["turns"][3]["action"].update(type={}), "turns[3].action.type"),
        (lambda r: r["shuffles"][0].update(kind=[]), "shuffles[0].kind"),
        (lambda r: r["result"].update(winners="0"), "result.winners: expected a list"),
        (lambda r: r["setup"].update(kept=[[1.5]]), "setup.kept[0][0]: expected a whole number"),
        (lambda r: r.update(rules=[]), "rules: expected an object"),
        (lambda r: r["rules"].update(face_up="5"), "rules.face_up"),
        (lambda r: r["result"].update({"a\nb": 1}), 'result["a\\nb"]: unknown key'),
        (lambda r: r.update({"x\ny": 1}), '["x\\ny"]: unknown key'),
        (lambda r: r["rules"].update({"bad\nkey": 1}), "rules.bad\\nkey: unknown setting"),
    ],
)
def test_replay_of_a_record_with_wrong_types_is_one_line_and_exit_2(
    saved, tmp_path, capsys, tamper, message
):
    record = json.loads(saved.read_text())
    tamper(record)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record))
    assert main(["replay", str(path)]) == 2
    _one_error_line(capsys, "not a valid record: " + message)


def test_replay_of_a_directory_is_one_line_and_exit_2(tmp_path, capsys):
    assert main(["replay", str(tmp_path)]) == 2
    _one_error_line(capsys, "cannot read")


def _jsonl(saved, tmp_path, lines):
    record = json.loads(saved.read_text())
    texts = [line(record) if callable(line) else line for line in lines]
    path = tmp_path / "games.jsonl"
    path.write_text("\n".join(texts) + "\n")
    return path


def _good(record):
    return json.dumps(record)


def _diverging(record):
    tampered = json.loads(json.dumps(record))
    tampered["result"]["turns"] += 1
    return json.dumps(tampered)


def test_a_bad_line_of_json_lines_is_reported_and_the_rest_checked(saved, tmp_path, capsys):
    path = _jsonl(saved, tmp_path, [_good, _good, "{not json", "[1]", _diverging, _good])
    assert main(["replay", str(path)]) == 2  # a line that is not a record wins over a divergence
    captured = capsys.readouterr()
    out = captured.out.splitlines()
    assert [line.split(":")[0] for line in out] == [
        "line 1 (seed 5)",
        "line 2 (seed 5)",
        "line 5 (seed 5)",
        "line 6 (seed 5)",
    ]
    assert "DIVERGES at result.turns: expected" in out[2]
    err = captured.err.splitlines()
    assert err[0].startswith("cardgame replay: error: line 3: not valid JSON")
    assert err[1].startswith("cardgame replay: error: line 4: not a valid record")
    assert len(err) == 2


def test_json_lines_exit_1_when_a_game_diverges_and_all_are_records(saved, tmp_path, capsys):
    path = _jsonl(saved, tmp_path, [_good, _diverging, _good])
    assert main(["replay", str(path)]) == 1
    assert capsys.readouterr().err == ""
    path = _jsonl(saved, tmp_path, [_good, _good])
    assert main(["replay", str(path)]) == 0


def test_a_tampered_winners_list_prints_the_real_difference(saved, tmp_path, capsys):
    record = json.loads(saved.read_text())
    winner = record["result"]["winners"][0]
    record["result"]["winners"] = [1 - winner]
    path = tmp_path / "w.json"
    path.write_text(json.dumps(record))
    assert main(["replay", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"DIVERGES at result.winners[0]: expected {winner}, recorded {1 - winner}" in out


# ----------------------------------------------------------------- new-user friction (item 11)
def test_play_quiet_prints_the_one_line_result(capsys):
    assert main(["play", "--players", "2", "--seed", "1", "--quiet"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1
    assert out[0].startswith("seed 1, 2 players: scores [")
    assert "winners [" in out[0] and out[0].endswith(" turns")


def test_replay_narrates_a_saved_game_after_checking_it(saved, capsys):
    assert main(["replay", str(saved), "--narrate"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "replays to the same result" in out[0]
    assert out[1].startswith("Ticket to Ride: The Card Game - 2 players, seed 5")
    assert any(line.startswith("Turn   1 seat 0") for line in out)
    assert "Final scores" in "\n".join(out)


def test_a_diverging_game_is_not_narrated(saved, tmp_path, capsys):
    record = json.loads(saved.read_text())
    record["result"]["turns"] += 1
    path = tmp_path / "d.json"
    path.write_text(json.dumps(record))
    assert main(["replay", str(path), "--narrate"]) == 1
    assert len(capsys.readouterr().out.splitlines()) == 1


def test_narration_names_the_cities_of_every_destination(capsys):
    assert main(["play", "--players", "4", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"keeps \d of 6 destinations: #\d+ [A-Z][\w .]+-[A-Z][\w .]+ \(\d+\)", out)
    draws = [line for line in out.splitlines() if "draws 4 destinations (#" in line]
    assert draws and re.search(r"\(#\d+ [A-Z][\w .]+-[A-Z][\w .]+ \(\d+\);", draws[0])
    reaches = [line for line in out.splitlines() if ": reaches " in line]
    assert reaches and all(re.search(r"reaches (none|#\d+ [A-Z])", line) for line in reaches)
    assert re.search(r"not reached: (none|#\d+ [A-Z])", reaches[0])


def test_narration_has_no_plural_errors():
    from cardgame import Game
    from cardgame.narrate import narrate
    from cardgame.randomplay import play_random
    from cardgame.record import to_record

    text = "\n".join(
        line
        for seed in range(6)
        for line in narrate(to_record(play_random(Game(4, seed), record=True)))
    )
    assert "(1 card)" in text  # a steal of a one-card column happens in these games
    words = "(?:locomotive|card|destination|point|turn)"
    assert not re.search(rf"\b1 {words}s\b", text)
    assert not re.search(rf"\b(?:0|[2-9]|\d\d+) {words}\b", text)
    assert re.search(r"\+ [2-9] locomotives", text)


def test_verbose_narration_shows_hands_yards_and_circulation(capsys):
    assert main(["play", "--players", "3", "--seed", "2", "--verbose"]) == 0
    out = capsys.readouterr().out.splitlines()
    first = next(i for i, line in enumerate(out) if line.startswith("Turn   1 "))
    tables = out[first + 1 : first + 4]
    assert [line.split(":")[0].strip() for line in tables] == ["seat 0", "seat 1", "seat 2"]
    assert all("hand " in t and "; yard " in t and "; circulation " in t for t in tables)
    assert any(line.strip().startswith("seat 0 is dealt ") for line in out[:first])


def test_verbose_tables_are_taken_at_the_end_of_each_turn():
    """After a column is placed, the table shows it in the placer's yard, before the next
    seat's step 1 moves anything, and the moved cards appear in circulation a turn later."""
    from cardgame import Game
    from cardgame.narrate import narrate
    from cardgame.randomplay import play_random
    from cardgame.record import to_record

    record = to_record(play_random(Game(2, 3), record=True))
    lines = list(narrate(record, verbose=True))
    turns = [i for i, line in enumerate(lines) if line.startswith("Turn ")]
    assert len(turns) == len(record["turns"])
    checked = 0
    for index, turn in zip(turns, record["turns"], strict=True):
        action = turn["action"]
        if action["type"] != "place_column":
            continue
        table = lines[index + 1 + turn["seat"]]
        assert table.startswith(f"      seat {turn['seat']}: hand ")
        locos = action["locos"]
        expected = f"{action['colour']} {action['wagons']}" + (
            f" + {locos} locomotive" if locos else ""
        )
        assert expected in table.split("; yard ")[1]
        checked += 1
    assert checked > 3


def test_replay_verbose_narrates_with_the_tables(saved, capsys):
    assert main(["replay", str(saved), "--verbose"]) == 0
    assert "      seat 1: hand " in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [
        ["play", "--players", "x"],
        ["play", "--bogus"],
        ["replay"],
        ["nosuchcommand"],
        [],
        ["play", "--quiet", "--verbose"],
    ],
)
def test_argparse_errors_are_one_line_and_exit_2(capsys, argv):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith("cardgame") and ": error: " in err
    assert "--help)" in err and "usage:" not in err


def test_help_lists_the_plugin_commands_without_loading_them():
    code = (
        "import sys, contextlib, io\n"
        "from cardgame.cli import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        "    try:\n"
        "        main(['--help'])\n"
        "    except SystemExit:\n"
        "        pass\n"
        "heavy = {'pandas', 'scipy', 'plotly', 'sims', 'reports'} & set(sys.modules)\n"
        "print(out.getvalue())\n"
        "print('HEAVY', sorted(heavy))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert "HEAVY []" in result.stdout
    for command in ("play", "replay", "simulate", "report", "watch"):
        assert f"    {command} " in result.stdout


QUIET_GAME = ["--players", "2", "--seed", "1", "--quiet"]


def test_play_does_not_import_the_heavy_layers():
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "cardgame.cli", "play", *QUIET_GAME],
        capture_output=True,
        text=True,
        check=True,
    )
    imported = {line.split("|")[-1].strip().split(".")[0] for line in result.stderr.splitlines()}
    assert "cardgame" in imported
    assert not {"pandas", "scipy", "plotly", "numpy", "sims", "reports"} & imported
    assert result.stdout.startswith("seed 1, 2 players: scores")


def test_a_plugin_command_still_loads_when_named(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["watch", "--help"])
    assert exit_.value.code == 0
    assert "--strategies" in capsys.readouterr().out


def test_a_plugin_that_fails_to_load_is_one_line_and_exit_2(monkeypatch, capsys):
    from importlib.metadata import EntryPoint

    import cardgame.cli as cli

    broken = EntryPoint("broken", "no_such_module_xyz:register", cli.PLUGIN_GROUP)
    monkeypatch.setattr(cli, "_plugins", lambda: {"broken": broken})
    with pytest.raises(SystemExit) as exit_:
        main(["broken"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("cardgame: error: the broken command (no_such_module_xyz:register)")
    assert main(["play", "--quiet"]) == 0  # the other commands do not load it
