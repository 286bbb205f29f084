"""Study files: built-ins load; bad files get one line naming file and key."""

import pytest

from sims.errors import StudyError
from sims.study import builtin_studies, load_study, quick_study


def test_builtin_studies_load_and_expand():
    assert {"strategy-ladder", "player-counts", "destinations", "variants"} <= set(
        builtin_studies()
    )
    ladder = load_study("strategy-ladder")
    cells = ladder.cells()
    assert {c.players for c in cells} == {2, 3, 4}
    assert len({s for c in cells for s in c.lineup}) >= 7
    for cell in cells:  # every seat order equally often
        assert cell.games % len(cell.seatings()) == 0
    variants = load_study("variants")
    assert "base" in variants.variants and len(variants.variants) >= 3


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("seed = 'x'", "seed: must be a whole number"),
        ("players = [5]", "players: must be a list of 2, 3 or 4"),
        ("pool = ['planer']", "did you mean planner"),
        ("rotation = 'sideways'", "rotation: must be one of"),
        ("bogus = 1", "bogus: unknown key"),
        ("[variants.x]\nrounds = { 4 = 0 }", "variants.x: rules.rounds"),
        ("pool = 'planner'", "pool: must be a list of strategy names"),
        ("[clock]\nplace = -1", "clock.place: must be a number >= 0"),
        ("lineups = [['planner', 'random', 'thief']]\nplayers = [2]", "lineups: line-up"),
        ("seed = ", "not valid TOML"),
    ],
)
def test_bad_study_file_names_file_and_key(tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text + "\n")
    with pytest.raises(StudyError, match=message) as info:
        load_study(path)
    assert "bad.toml" in str(info.value) and "\n" not in str(info.value)


def test_configured_strategy_variants_in_a_study(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(
        'pool = ["planner", "cautious"]\nplayers = [2]\n'
        '[strategies.cautious]\nbase = "planner"\nknobs = { ticket_turns = 50 }\n'
    )
    study = load_study(path)
    assert study.strategies["cautious"].knobs == (("ticket_turns", 50),)
    path.write_text(
        'pool = ["planner", "cautious"]\n[strategies.cautious]\nbase = "planner"\n'
        "knobs = { nope = 1 }\n"
    )
    with pytest.raises(
        StudyError, match="s.toml: strategy 'cautious': strategy 'planner' has no knob 'nope'"
    ):
        load_study(path)


def test_unknown_study_name_lists_builtins():
    with pytest.raises(StudyError, match="built-in: destinations"):
        load_study("nope")


def test_quick_overrides_are_validated():
    study = quick_study(load_study("strategy-ladder"), games=2, players=[2],
                        strategies=["planner", "random"])  # fmt: skip
    assert [c.lineup for c in study.cells()] == [("planner", "random")]
    with pytest.raises(StudyError, match="command line: players"):
        quick_study(study, players=[7])
