"""Study files: built-ins load; bad files get one line naming file and key."""

import re
import time
import tracemalloc

import pytest

from sims.errors import StudyError
from sims.runner import plan_batches
from sims.study import adhoc_name, builtin_studies, load_study, quick_study


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


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('clock = "fast"', "clock: must be a table"),
        ("clock = [1, 2]", "clock: must be a table"),
        ("variants = { x = 3 }", "variants.x: must be a table"),
        ("[variants.x]\nrounds = 3", "variants.x: rules.rounds"),
        ("description = 3", "description: must be a string"),
        ("games_per_cell = 1000000001", "games_per_cell: must be a whole number from 1 to"),
        ("strategies = 3", "strategies: must be a table"),
        ("[strategies.x]\nbase = 3", "strategies.x.base: must be a strategy name"),
    ],
)
def test_wrong_types_anywhere_are_one_line(tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text + "\n")
    with pytest.raises(StudyError, match=message) as info:
        load_study(path)
    assert "\n" not in str(info.value)


USER_MODULES = {
    "raises_on_import": 'raise RuntimeError("no\\nluck")\n',
    "syntax_error": "def broken(:\n",
    "odd_knobs": (
        "from sims.strategies.planner import Planner\n"
        "class NotDataclass(Planner):\n"
        "    class Knobs:\n"
        "        pass\n"
        "class NoDefaults(Planner):\n"
        "    import dataclasses\n"
        "    @dataclasses.dataclass(frozen=True)\n"
        "    class Knobs:\n"
        "        depth: int\n"
        "class Exits:\n"
        "    pass\n"
    ),
    "exits_on_import": "import sys\nsys.exit(4)\n",
}


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("raises_on_import:X", "RuntimeError: no luck"),
        ("syntax_error:X", "SyntaxError"),
        ("exits_on_import:X", "SystemExit: 4"),
        ("odd_knobs:NotDataclass", "Knobs must be a dataclass"),
        ("odd_knobs:NoDefaults", "give every knob a default"),
        ("odd_knobs:Exits", "is not a sims.Strategy subclass"),
        ("odd_knobs:Missing", "AttributeError"),
        (":", "expected module:Class"),
        (".mod:Class", "expected module:Class"),
        ("mod:", "expected module:Class"),
        (":Class", "expected module:Class"),
        ("a b:C", "expected module:Class"),
    ],
)
def test_user_strategies_that_cannot_load_are_one_line(tmp_path, monkeypatch, name, message):
    for module, source in USER_MODULES.items():
        (tmp_path / f"{module}.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    path = tmp_path / "s.toml"
    path.write_text(f'pool = ["planner", "{name}"]\nplayers = [2]\n')
    with pytest.raises(StudyError, match=re.escape(message)) as info:
        load_study(path)
    assert "\n" not in str(info.value)


def test_a_user_class_cannot_take_a_built_in_name():
    from sims.strategies.planner import Planner
    from sims.strategy import Strategy, StrategyNameWarning, registered

    with pytest.warns(StrategyNameWarning, match="'planner' is taken"):

        class Impostor(Strategy):
            name = "planner"

    assert registered()["planner"] is Planner
    assert registered()["planner"] is not Impostor


def test_flags_keep_the_study_name_and_folder(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text("players = [2]\n")
    study = quick_study(load_study(path), games=4, seed=3)
    assert (study.name, study.output, study.games_per_cell) == ("mine", "results/mine", 4)
    named = quick_study(load_study("variants"), games=4)
    assert (named.name, named.output) == ("variants", "results/variants")
    adhoc = quick_study(load_study("variants"), strategies=["planner", "thief"], name="adhoc-a")
    assert (adhoc.name, adhoc.output) == ("adhoc-a", "results/adhoc-a")


def test_adhoc_names_say_what_was_played():
    assert adhoc_name(["thief", "planner"], [2]) == "adhoc-planner+thief-2p"
    assert adhoc_name(["a", "b", "c", "d"], [4, 2]) == "adhoc-4-strategies-2-4p"
    assert adhoc_name(["mod:Class", "planner"], [3]) == "adhoc-mod-Class+planner-3p"


def test_rounding_up_for_seat_orders_is_said():
    study = quick_study(load_study("strategy-ladder"), games=10, players=[2, 3, 4],
                        strategies=["planner", "random", "thief", "hoarder"])  # fmt: skip
    note = study.rounding_note()
    assert note == (
        "10 games per cell rounded up to 12 (3 players) or 24 (4 players) "
        "so every seat order appears equally often"
    )
    assert quick_study(study, games=24).rounding_note() is None


def test_batches_are_planned_lazily_so_memory_stays_flat():
    study = quick_study(load_study("strategy-ladder"), games=10**8, players=[2],
                        strategies=["planner", "random"])  # fmt: skip
    tracemalloc.start()
    try:
        began = time.perf_counter()
        batches = plan_batches(study)
        first = next(iter(batches))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert first.start == 0 and time.perf_counter() - began < 1
    assert peak < 5_000_000
