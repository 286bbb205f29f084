"""Study files: built-ins load; bad files get one line naming file and key."""

import dataclasses
import json
import re
import time
import tracemalloc

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from cardgame import Rules
from sims.batch import plan_batches
from sims.clock import ThinkTimes
from sims.errors import StudyError, UnknownStrategyError
from sims.strategy import registered
from sims.study import (
    ROTATIONS,
    STUDY_KEYS,
    adhoc_name,
    builtin_studies,
    from_dict,
    load_study,
    quick_study,
)


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
        ("[clock]\nplace = -1", "clock.place: must be a number from 0 to 86400"),
        # a NaN time made every game's minutes NaN, their sign bit the engine's doing; huge
        # ones made them inf or NaN, and a huge spread 0 or subnormal
        ("[clock]\nsigma = nan", "clock.sigma: must be a number from 0 to 3, got nan"),
        ("[clock]\nplace = inf", "clock.place: must be a number from 0 to 86400, got inf"),
        ("[clock]\nresolution = 1e400", "clock.resolution: must be a number from 0 to 86400"),
        ("[clock]\nplace = 1e308", r"clock.place: must be a number from 0 to 86400, got 1e\+308"),
        ("[clock]\nsigma = 40", "clock.sigma: must be a number from 0 to 3, got 40"),
        ("lineups = [['planner', 'random', 'thief']]\nplayers = [2]", "lineups: line-up"),
        ("seed = ", "not valid TOML"),
        ("engine = 'fast'", "engine: must be one of auto, python, native"),
        # one cell twice: its games played and counted twice
        (
            "lineups = [['planner', 'thief'], ['thief', 'planner']]\nplayers = [2]",
            r"lineups: line-up \['thief', 'planner'\] is line-up \['planner', 'thief'\] again",
        ),
        # the results join names with + and |, and split a cell's name at its first /
        (
            "pool = ['planner', 'a|b']\n[strategies.'a|b']\nbase = 'planner'",
            r"strategy 'a\|b': must be a name without \+ \| / or control characters",
        ),
        ("lineups = [['planner', 'x+y']]\nplayers = [2]", r"strategy 'x\+y': must be a name"),
        ('pool = ["planner", "a\\nb"]', r"strategy 'a\\nb': must be a name"),
        ("[variants.'x/y']\nface_up = 4", "variants.x/y: must be a name without / or control"),
        # a digit to str.isdigit() but not to int()
        ("[variants.x]\nseat_extra_cards = { '\u00b2' = 1 }", "cards.\u00b2: not a seat"),
        (
            "pairing = 'deals'\n[sweeps.s]\nparameter = 'destinations.\u00b2.points'\nvalues = [3]",
            "sweeps.s: destinations.\u00b2.points: unknown destination id",
        ),
    ],
)
def test_bad_study_file_names_file_and_key(tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text + "\n")
    with pytest.raises(StudyError, match=message) as info:
        load_study(path)
    assert "bad.toml" in str(info.value) and "\n" not in str(info.value)


def test_the_engine_is_the_study_s_choice_but_not_part_of_its_results(tmp_path, monkeypatch):
    from cardgame import _native

    path = tmp_path / "s.toml"
    path.write_text("pool = ['planner', 'random']\nplayers = [2]\nengine = 'python'\n")
    forced = load_study(path)
    assert forced.engine == "python"
    assert all(b.engine == "python" for b in plan_batches(forced.plan))
    path.write_text("pool = ['planner', 'random']\nplayers = [2]\n")
    auto = load_study(path)
    assert auto.engine == "auto"
    assert auto.to_dict() == forced.to_dict()  # a run may resume on the other engine
    monkeypatch.setattr(_native, "BUILT", False)
    path.write_text("pool = ['planner', 'random']\nplayers = [2]\nengine = 'native'\n")
    with pytest.raises(StudyError, match="engine: native asked, but the core is not built"):
        load_study(path)


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
    study = quick_study(
        load_study("strategy-ladder"), games=2, players=[2], strategies=["planner", "random"]
    )
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
    study = quick_study(
        load_study("strategy-ladder"),
        games=10,
        players=[2, 3, 4],
        strategies=["planner", "random", "thief", "hoarder"],
    )
    note = study.rounding_note()
    assert note == (
        "10 games per cell rounded up to 12 (3 players) or 24 (4 players) "
        "so every seat order appears equally often"
    )
    assert quick_study(study, games=24).rounding_note() is None


def test_batches_are_planned_lazily_so_memory_stays_flat():
    study = quick_study(
        load_study("strategy-ladder"), games=10**8, players=[2], strategies=["planner", "random"]
    )
    tracemalloc.start()
    try:
        began = time.perf_counter()
        batches = plan_batches(study.plan)
        first = next(iter(batches))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert first.start == 0 and time.perf_counter() - began < 1
    assert peak < 5_000_000


# fuzz: random study documents ------------------------------------------------------------
VOCABULARY = sorted(
    STUDY_KEYS
    | {"base", "knobs", "rounds", "ticket_turns", "x", "2", "4"}
    | set(Rules._fields)
    | {f.name for f in dataclasses.fields(ThinkTimes)}
)
NAMES = [*registered(), *ROTATIONS, "", ":", ".mod:Class", "mod:", "nope:X", "planer"]
keys = st.one_of(st.sampled_from(VOCABULARY), st.text(max_size=6))
scalars = st.one_of(
    st.integers(-(2**63), 2**63 - 1),
    st.integers(-3, 30),
    st.floats(),
    st.booleans(),
    st.text(st.characters(exclude_characters=":"), max_size=8),  # no module:Class imports
    st.sampled_from(NAMES),
    st.datetimes(),
    st.dates(),
    st.times(),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=12,
)
documents = st.dictionaries(
    st.one_of(st.sampled_from(sorted(STUDY_KEYS)), keys), values, max_size=8
)


def check_document(document):
    try:
        study = from_dict(document, "fuzz.toml")
    except (StudyError, UnknownStrategyError) as exc:
        assert "\n" not in str(exc) and str(exc).startswith("fuzz.toml")
        return
    event("valid study")
    json.dumps(study.to_dict())  # what the manifest stores
    assert study.total_games >= 0
    study.rounding_note()


@settings(max_examples=300, deadline=None)
@given(documents)
def test_random_study_documents_give_only_study_errors(document):
    check_document(document)


@settings(max_examples=200, deadline=None)
@given(
    st.fixed_dictionaries(
        {},
        optional={
            "players": st.one_of(values, st.lists(st.integers(1, 5), max_size=3)),
            "pool": st.one_of(values, st.lists(st.sampled_from(NAMES), max_size=4)),
            "lineups": st.lists(st.lists(st.sampled_from(NAMES), max_size=5), max_size=3),
            "games_per_cell": st.one_of(values, st.integers(-1, 10**10)),
            "strategies": st.dictionaries(
                st.sampled_from(NAMES),
                st.fixed_dictionaries(
                    {}, optional={"base": values | st.sampled_from(NAMES), "knobs": values}
                ),
                max_size=3,
            ),
            "variants": st.dictionaries(keys, values, max_size=3),
            "clock": values,
            "rotation": values,
        },
    )
)
def test_nearly_valid_study_documents_give_only_study_errors(document):
    check_document(document)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=60) | st.text(max_size=60).map(str.encode))
def test_random_study_files_give_only_study_errors(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("fuzz") / "fuzz.toml"
    path.write_bytes(data)
    try:
        load_study(path)
    except (StudyError, UnknownStrategyError) as exc:
        assert "\n" not in str(exc)


VALID = {
    "players": [2, 3],
    "pool": ["planner", "cautious"],
    "strategies": {"cautious": {"base": "planner", "knobs": {"ticket_turns": 5}}},
    "variants": {"base": {}, "v": {"rounds": {"4": 1}}},
    "clock": {"place": 3.0},
}
PLACES = [
    (),
    ("clock",),
    ("variants", "v"),
    ("variants", "v", "rounds"),
    ("strategies", "cautious"),
    ("strategies", "cautious", "knobs"),
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(PLACES), keys, values), min_size=1, max_size=3))
def test_a_valid_study_with_random_changes_gives_only_study_errors(changes):
    document = json.loads(json.dumps(VALID))
    for place, key, value in changes:
        table = document
        for step in place:
            if not isinstance(table.get(step), dict):
                table[step] = {}
            table = table[step]
        table[key] = value
    check_document(document)


def test_report_margins_are_checked_at_load_and_named_like_the_reports():
    from reports.margins import DEFAULT_MARGINS
    from sims.plan import REPORT_MARGINS

    assert set(REPORT_MARGINS) == set(DEFAULT_MARGINS)
    base = {"name": "m", "players": [2], "pool": ["planner", "random"]}
    study = from_dict({**base, "report": {"margins": {"win_share": 0.03}}}, "m.toml")
    assert study.to_dict()["report"] == {"margins": {"win_share": 0.03}}
    for report, message in [
        ({"margins": {"speed": 1}}, "m.toml: report.margins.speed: unknown metric"),
        ({"margins": {"score": -1}}, "m.toml: report.margins.score: must be a positive number"),
        # every verdict "practically equal", or one no study decides
        ({"margins": {"win_share": float("inf")}}, "win_share: must be from 0.0002 to 1, got inf"),
        ({"margins": {"score": 1e308}}, r"score: must be from 0.01 to 1000, got 1e\+308"),
        ({"margins": {"turns": 5e-324}}, "turns: must be from 0.01 to 2000, got 5e-324"),
        ({"colours": {}}, "m.toml: report.colours: unknown key"),
    ]:
        with pytest.raises(StudyError, match=message):
            from_dict({**base, "report": report}, "m.toml")


def test_a_line_up_study_rebuilds_from_its_manifest():
    study = from_dict({"name": "l", "players": [2], "lineups": [["planner", "thief"]]}, "l.toml")
    again = from_dict(study.to_dict(), "manifest")
    assert [c.key for c in again.cells()] == [c.key for c in study.cells()]


def test_a_study_that_names_no_batch_size_gets_few_parts_for_big_cells():
    from sims.study import default_batch_size

    small = from_dict({"name": "s", "pool": ["random", "planner"], "games_per_cell": 400}, "t")
    assert small.batch_size == 50  # as always for a small study
    big = quick_study(small, games=80_000)
    assert big.batch_size == 1000 and default_batch_size(4_000) == 500
    named = from_dict({"pool": ["random"], "games_per_cell": 80_000, "batch_size": 7}, "t")
    assert named.batch_size == 7  # a study's own batch size is kept


def test_a_broken_base_variant_of_a_sweep_study_is_one_problem_not_two():
    """The sweeps are read against the base variant: when its table is wrong the sweeps are
    left out and the variant's own check names the problem, once."""
    from sims.errors import StudyProblems
    from sims.study import from_dict

    study = {
        "players": [2],
        "pool": ["planner"],
        "seed": -1,
        "variants": {"base": {"face_up": -1}},
        "sweeps": {"s": {"parameter": "destinations_drawn", "values": [2, 3]}},
    }
    with pytest.raises(StudyProblems) as e:
        from_dict(study, "s.toml")
    problems = list(e.value.problems)
    assert len(problems) == len(set(problems)) == 2, problems
    assert sum("variants.base" in p for p in problems) == 1
