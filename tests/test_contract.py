"""The contract between the Python engine and the native core (docs/architecture.md).

Each fact is stated once: card kinds, array bounds, phases and the SeatView field order in
``cardgame/layout.py`` (the C side compiled from the include the build writes from it); R12's
threshold in ``cards_to_beat`` (one per engine); the heuristics' constants in
``sims/strategies/common.py`` (read by the twins). These tests fail when one side drifts:
a stale build, a number typed in a ``.pyx``, a ``Rules`` field or a knob that does not reach
C, a ruling the core does not implement, a layer crossed.
"""

from __future__ import annotations

import ast
import dataclasses
import io
import random
import re
import tokenize
from pathlib import Path
from types import ModuleType

import pytest

from cardgame import (
    Game,
    Rules,
    cards,
    catalogue,
    layout,
    observation,
    resolution,
    rules,
)
from cardgame import actions as A
from cardgame.actions import KeepDestinations

from .native_engine import native_module

ROOT = Path(__file__).parents[1]
NATIVE = sorted(
    p
    for folder in ("cardgame/_native", "sims/_native")
    for p in (ROOT / folder).iterdir()
    if p.suffix in (".pyx", ".pxd", ".pxi")
)
# the include the build writes, in this checkout (``layout.PXI`` is where the imported
# cardgame keeps it: another folder when the tests run against an installed copy)
PXI = ROOT / "cardgame" / "_native" / layout.PXI.name


def _core() -> ModuleType:
    return native_module("cardgame._native._core")


def _scripted() -> ModuleType:
    return native_module("sims._native._scripted")


def _code_tokens(path: Path) -> list[tokenize.TokenInfo]:
    """The tokens of a .py/.pyx/.pxd file, comments and strings (docstrings) left out."""
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text()).readline)
    return [t for t in tokens if t.type not in (tokenize.COMMENT, tokenize.STRING)]


def _code_lines(path: Path) -> list[tuple[int, str]]:
    """(line number, line) of a file with comments blanked out."""
    return [(i, line.split("#", 1)[0]) for i, line in enumerate(path.read_text().splitlines(), 1)]


# ------------------------------------------------------------------ layout.py reaches both
def test_the_compiled_core_was_built_from_this_layout():
    compiled = _core().compiled_layout()
    assert compiled == layout.c_constants(), (
        "the native core was compiled from another cardgame/layout.py: rebuild (pip install -e .)"
    )


def test_both_resolution_searches_run_with_the_same_budgets_and_steps():
    kernel = native_module("cardgame._native._resolution")
    assert kernel.search_settings() == resolution.search_settings()


def test_the_generated_include_is_current():
    if not layout.PXI.exists():
        pytest.skip("no native build here: the include is written by setup.py")
    assert layout.PXI.read_text() == layout.pxi_text(), (
        "cardgame/_native/_layout.pxi is stale: rebuild, or run python cardgame/layout.py"
    )


def test_the_include_is_generated_not_committed():
    ignored = (ROOT / "cardgame/_native/.gitignore").read_text().split()
    assert "_layout.pxi" in ignored
    setup = (ROOT / "setup.py").read_text()
    assert "write_pxi" in setup and "_native/*.pxi" in setup  # written, and shipped


# ------------------------------------------------------------------ the schema reaches _rows.pyx
def test_the_columns_include_is_current():
    from sims import columns

    assert columns.PXI.read_text() == columns.pxi_text(), (
        "sims/_native/_columns.pxi is stale against the results schema: run"
        " python -m sims.columns, then rebuild (pip install -e .)"
    )


def test_the_compiled_rows_were_built_from_these_columns():
    from sims import columns

    rows = pytest.importorskip("sims._native._rows", reason="native rows not built")
    assert rows.compiled_columns() == columns.c_constants(), (
        "sims/_native/_rows was compiled from another _columns.pxi: rebuild (pip install -e .)"
    )
    assert columns.table_columns() == rows.COLUMNS


def test_the_columns_include_is_committed_and_shipped():
    """The schema needs pyarrow, which the build lacks: the include is not written by setup.py
    but committed, and shipped next to the .pyx that includes it."""
    ignored = (ROOT / "sims/_native/.gitignore").read_text().split()
    assert not {"_columns.pxi", "*.pxi"} & set(ignored)
    package_data = re.search(r"^sims = \[(.*)\]$", (ROOT / "pyproject.toml").read_text(), re.M)
    assert package_data and '"_native/*.pxi"' in package_data.group(1)
    assert 'include "_columns.pxi"' in (ROOT / "sims/_native/_rows.pyx").read_text()


def test_rows_name_every_column_they_write():
    """A result column is written by its generated name (``row[SEATS_SCORE]``), never by a
    typed position that a schema change would silently shift."""
    by_number = re.compile(r"\b(row|slots)\[\s*\d|\.text\(\s*\d")
    path = ROOT / "sims/_native/_rows.pyx"
    typed = [f"{number}: {line.strip()}" for number, line in _code_lines(path)]
    typed = [line for line in typed if by_number.search(line)]
    assert not typed, f"{path.name} writes columns by number: {typed}"


def test_the_python_engine_takes_its_constants_from_the_layout():
    for name in ("COLOURS", "NUM_COLOURS", "LOCO", "CARD_KINDS", "CARD_NAMES"):
        assert getattr(cards, name) is getattr(layout, name), name
    for name in ("MAX_WAGONS_PER_COLOUR", "MAX_LOCOMOTIVES", "MAX_TRAIN_CARDS"):
        assert getattr(cards, name) == getattr(layout, name), name
    # the deck's counts are card data (cardgame/data/deck.csv), bounded by the layout
    assert catalogue.MAX_DECK_COUNTS == (layout.MAX_WAGONS_PER_COLOUR,) * layout.NUM_COLOURS + (
        layout.MAX_LOCOMOTIVES,
    )
    assert all(
        n <= m for n, m in zip(catalogue.SHIPPED_DECK, catalogue.MAX_DECK_COUNTS, strict=True)
    )
    assert len(A.COLUMNS[0]) == layout.MAX_WAGONS_PER_COLOUR + 1
    assert len(A.COLUMNS[0][0]) == layout.MAX_LOCOMOTIVES + 1
    most_columns = layout.MAX_COLOURS * layout.MAX_WAGONS_PER_COLOUR * (layout.MAX_LOCOMOTIVES + 1)
    turn = most_columns + len(A.THREES) + layout.MAX_FACE_UP + 2
    assert max(turn, 2**layout.MAX_OFFER) <= layout.MAX_ACTIONS
    # a game's card kinds are its edition's colours and the locomotive, within the bound
    printed = catalogue.default_catalogue()
    assert (printed.kinds, printed.loco) == (layout.CARD_KINDS, layout.LOCO)
    assert layout.MAX_CARD_KINDS == layout.MAX_COLOURS + 1 >= layout.CARD_KINDS
    for name in ("MAX_FACE_UP", "NO_CARD", "NOBODY"):
        assert getattr(A, name) == getattr(layout, name), name
    assert (rules.MIN_PLAYERS, rules.MAX_PLAYERS) == (layout.MIN_PLAYERS, layout.MAX_PLAYERS)
    assert catalogue.PRINTED_DESTINATIONS <= layout.MAX_DESTINATIONS
    assert len(catalogue.PRINTED_BIG_CITIES) <= layout.MAX_BIG_CITIES
    assert layout.MAX_DESTINATIONS >= 200 and layout.MAX_BIG_CITIES >= 16  # issue 36's bounds
    assert max(catalogue.POINT_BANDS) == layout.MAX_CIRCLES  # 1-5 circles
    assert [(p.name, int(p)) for p in A.Phase] == [(n, i) for i, n in enumerate(layout.PHASES)]
    assert observation._FIELDS is layout.SEAT_VIEW_FIELDS


def test_seat_view_properties_read_the_layout_positions():
    for index, name in enumerate(layout.SEAT_VIEW_FIELDS):
        prop = getattr(observation.SeatView, name)
        assert isinstance(prop, property), name
        assert prop.fget(tuple(range(len(layout.SEAT_VIEW_FIELDS)))) == index, name


def test_rules_refuse_what_the_arrays_cannot_hold():
    for key, bound in (
        ("face_up", layout.MAX_FACE_UP),
        ("destinations_dealt", layout.MAX_OFFER),
        ("destinations_drawn", layout.MAX_OFFER),
    ):
        assert getattr(Rules(**{key: bound}), key) == bound
        with pytest.raises(rules.RulesError):
            Rules(**{key: bound + 1})
    Rules(rounds={4: layout.MAX_ROUNDS})
    with pytest.raises(rules.RulesError):
        Rules(rounds={4: layout.MAX_ROUNDS + 1})


def _states(count: int = 3, steps: int = 200):
    """Python states along random games (2-4 players, a rule variant each)."""
    variants = [Rules(), Rules(three_locomotive_wipe=True, face_up=6), Rules(rounds={3: 2})]
    for seed in range(count):
        game = Game(2 + seed % 3, seed, variants[seed % len(variants)])
        gs = game.new_state()
        rng = random.Random(seed)
        for step in range(steps):
            if gs.is_over:
                break
            yield step, gs
            legal = gs.legal_actions()
            gs.apply(legal[rng.randrange(len(legal))])


def test_both_engines_build_views_in_the_layout_order():
    """The core builds a view by SV_ position; the Python state by its tuple order."""
    core = _core()
    checked = 0
    for step, gs in _states():
        if step % 5:
            continue
        native = core.NativeState.from_state(gs)
        for seat in range(gs.players):
            assert tuple(native.view(seat)) == tuple(gs.view(seat))
            checked += 1
    assert checked > 50


# ------------------------------------------------------------------ no layout number typed twice
# C arrays whose size is not a layout fact: (file, array) -> why
LITERAL_ARRAYS = {
    ("cardgame/_native/_core.pxd", "key"): "MT19937's 624 words (CPython's _randommodule.c)",
    ("cardgame/_native/_core.pxd", "big_index"): "a destination's two cities",
    ("cardgame/_native/_random.pxi", "buf"): "NativeRandom.shuffle's limit of 1024 items",
    ("cardgame/_native/_core.pyx", "colours"): "R12b: three colours",
    ("sims/_native/_scripted.pyx", "ranked"): "R12b: three colours",
    ("sims/_native/_scripted.pyx", "combo"): "R12b: three colours",
    ("sims/_native/_match.pyx", "means"): "the clock's four kinds of turn (sims/clock.py)",
}
_ARRAY = re.compile(r"\b(\w+)\s*\[\s*(\d+)\s*\]")
_DECLARATION = re.compile(
    r"^\s*(cdef\s+|ctypedef\s+)?(const\s+)?(unsigned\s+)?"
    r"(int|long long|long|double|bint|char|uint32_t|uint64_t|Act|CDest|Sit|Slot|MT|CScore)\b"
)


def test_no_native_file_types_a_layout_number():
    distinct = {layout.MAX_DESTINATIONS, layout.MAX_TRAIN_CARDS, layout.MAX_ACTIONS}
    problems = []
    for path in NATIVE:
        if path == PXI:
            continue  # the one place the numbers are written (from layout.py)
        rel = str(path.relative_to(ROOT))
        for number, line in _code_lines(path):
            if _DECLARATION.match(line):
                for name, size in _ARRAY.findall(line):
                    if (rel, name) not in LITERAL_ARRAYS:
                        problems.append(f"{rel}:{number}: {name}[{size}]: name its size")
            for bound in re.findall(r"\brange\(\s*(\d+)\s*\)", line):
                if int(bound) > 3:
                    problems.append(f"{rel}:{number}: range({bound}): name the bound")
            if re.search(r"(?<![\w.])(8|9)\s*\*(?!\*)|(?<!\*)\*\s*(8|9)(?![\w.])", line):
                problems.append(f"{rel}:{number}: a stride of 8 or 9: NUM_COLOURS/CARD_KINDS")
        for token in _code_tokens(path):
            number = token.string
            if token.type == tokenize.NUMBER and number.isdigit() and int(number) in distinct:
                problems.append(f"{rel}:{token.start[0]}: {token.string}: a layout number")
    assert not problems, "\n".join(problems)


# ------------------------------------------------------------------ R12's threshold, once
def test_r12_threshold_is_asked_not_recomputed():
    assert [A.cards_to_beat(n) for n in range(4)] == [1, 2, 3, 4]  # strictly more
    recomputed = re.compile(
        r"(rival|rival_size\(c\)|rival\[c\]|yard_locos\[c\])\s*\+\s*1\b|<=\s*rival\b"
    )
    askers = {
        "cardgame/actions.py": "cards_to_beat(",
        "sims/strategies/common.py": "cards_to_beat(",
        "sims/strategies/builders.py": "cards_to_beat(",
        "cardgame/_native/_core.pyx": "cards_to_beat(",
        "sims/_native/_scripted.pyx": "cards_to_beat(",
    }
    for rel, call in askers.items():
        text = "\n".join(line for _, line in _code_lines(ROOT / rel))
        assert call in text, f"{rel} does not ask cards_to_beat"
        assert not recomputed.search(text), f"{rel} recomputes R12's threshold"
    assert "cards_to_beat" in (ROOT / "cardgame/_native/_core.pxd").read_text()
    # the native loop has no legality of its own: it asks the core's
    match = "\n".join(line for _, line in _code_lines(ROOT / "sims/_native/_match.pyx"))
    assert "act_ruling(" in match
    for field in ("yard_owner", "yard_wagons", "v.hand", "face_up["):
        assert field not in match, f"_match.pyx reads {field}: a legality check of its own?"


def _c_action(core, view, action) -> tuple[int, int, int, int]:
    kind = core.ACTION_KINDS[type(action).__name__]
    if type(action) is A.DrawFaceUp:
        return kind, action.slot, 0, 0
    if type(action) is A.PlaceColumn:
        return kind, action.colour, action.wagons, action.locos
    if type(action) is A.PlaceThree:
        return (kind, *action.colours)
    if type(action) is KeepDestinations:
        offer = list(view.offer_ids)
        return kind, sum(1 << offer.index(d) for d in action.ids), 0, 0
    return kind, 0, 0, 0


def _every_action(view) -> list:
    out = [A.DRAW_DECK, A.DRAW_DESTINATIONS, A.PASS, *A.DRAW_FACE_UP, *A.THREES.values()]
    out += [a for colour in A.COLUMNS for row in colour for a in row]
    out += [A.PlaceThree((2, 0, 1)), A.PlaceThree((1, 1, 2))]  # unsorted, repeated
    offer = view.offer_ids
    for size in range(len(offer) + 1):
        for start in range(len(offer) - size + 1):
            out.append(KeepDestinations(tuple(offer[start : start + size])))
    return out


def test_the_core_legality_names_the_python_rulings():
    """``act_ruling`` (the only legality of the native core and loop) gives, for every action
    in positions of random games, the ruling ``actions.problem`` gives."""
    core = _core()
    checked = 0
    for step, gs in _states(count=4, steps=300):
        view = gs.view(gs.seat)
        if step % 9 and int(view.phase) == int(A.Phase.TURN):
            continue
        fields = view._legality_fields()
        for action in _every_action(view):
            problem = A.problem(action, *fields)
            expected = 0 if problem is None else int(problem[0][1:] or -1)
            got = core.act_ruling_of(view, *_c_action(core, view, action))
            assert got == expected, (action, problem, got)
            checked += 1
    assert checked > 10_000


# ------------------------------------------------------------------ Rules fields reach C
def test_every_rules_field_reaches_c():
    core = _core()
    base = core.c_rules(Rules(), 4)
    expected = (set(Rules._fields) - {"rounds"}) | {"rounds_total"}
    assert set(base) == expected, f"CRules and Rules differ: {set(base) ^ expected}"
    changed = {
        "rounds": {4: 3},
        "starting_hand": 5,
        "starting_locomotives": 2,
        "face_up": 7,
        "destinations_dealt": 5,
        "destinations_min_keep": 2,
        "destinations_drawn": 3,
        "round_two_deal": 6,
        "three_locomotive_wipe": True,
        "seat_extra_cards": (0, 1, 2, 3),  # every seat's count reaches C
        "seat_extra_locomotives": (3, 2, 1, 0),
        "first_turn": "one_card",
    }
    assert set(changed) == set(Rules._fields), "a new Rules field: add it here and to CRules"
    for field, value in changed.items():
        got = core.c_rules(Rules(**{field: value}), 4)
        key = "rounds_total" if field == "rounds" else field
        want = value[4] if field == "rounds" else value
        if field == "first_turn":  # a choice reaches C as its number in FIRST_TURNS
            want = rules.FIRST_TURNS.index(value)
        if isinstance(want, tuple):  # a count per seat: a C array
            want = list(want)
        assert got[key] == want and got[key] != base[key], field


# ------------------------------------------------------------------ knobs reach C
def _families():
    return _scripted()._families()


def _python_knobs(knobs_class) -> list[dataclasses.Field]:
    from sims.strategy import MemoryKnobs

    memory = {f.name for f in dataclasses.fields(MemoryKnobs)}
    return [f for f in dataclasses.fields(knobs_class) if f.name not in memory]


def test_every_knob_of_every_family_reaches_its_twin():
    scripted = _scripted()
    from sims._native import native_twin

    families = _families()
    assert {cls.name for cls in families} == {
        "planner",
        "thief",
        "hoarder",
        "rusher",
        "ticket_hunter",
        "big_city",
        "random",
    }
    for cls, family in families.items():
        knobs = _python_knobs(cls.Knobs)
        assert {f.name for f in knobs} == set(scripted.c_knob_names(family)), cls.name
        for f in knobs:
            default = getattr(cls.Knobs(), f.name)
            value = default + (0.125 if isinstance(default, float) else 7)
            strategy = cls(random.Random(0), cls.Knobs(**{f.name: value}))
            twin = native_twin(strategy)
            assert twin is not None, (cls.name, f.name)
            held = twin.knob_values()
            assert held[f.name] == value, (cls.name, f.name, held[f.name])
            assert type(held[f.name]) is type(value), (cls.name, f.name)


def test_a_knob_c_does_not_hold_means_no_twin():
    _scripted()  # the twins themselves: without them no strategy has one
    from sims._native import native_twin
    from sims.strategies.planner import Planner, PlannerKnobs

    @dataclasses.dataclass(frozen=True)
    class Wider(PlannerKnobs):
        new_knob: float = 1.0

    assert native_twin(Planner(random.Random(0), PlannerKnobs())) is not None
    assert native_twin(Planner(random.Random(0), Wider())) is None


# ------------------------------------------------------------------ heuristics reach C
def _module_constants(path: Path) -> dict[str, object]:
    """Module-level UPPER_CASE names bound to a number literal."""
    out: dict[str, object] = {}
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and target.id.isupper():
                try:
                    value = ast.literal_eval(node.value)
                except ValueError:
                    continue
                if type(value) in (int, float):
                    out[target.id] = value
    return out


def test_every_heuristic_constant_reaches_the_twins():
    from sims.strategies import common

    constants = _module_constants(ROOT / "sims/strategies/common.py")
    assert "DRAW_RATE" in constants and "LOCO_VALUE" in constants
    held = _scripted().heuristics()
    assert set(held) == set(constants), f"twins and common.py differ: {set(held) ^ set(constants)}"
    for name, value in constants.items():
        assert held[name] == value == getattr(common, name), name
    for family in ("builders", "planner", "tickets", "random_play"):
        own = _module_constants(ROOT / f"sims/strategies/{family}.py")
        assert not own, f"sims/strategies/{family}.py: put {sorted(own)} in common.py"


def test_the_twins_type_no_heuristic_number():
    """Floats in the twin: only 0.0 and the knob limit (a heuristic number comes from
    common.py); in the Python strategies: only constants, knob defaults and 0.0."""
    allowed = {"0.0", "1e12"}
    twin = ROOT / "sims/_native/_scripted.pyx"
    floats = [
        (t.start[0], t.string)
        for t in _code_tokens(twin)
        if t.type == tokenize.NUMBER and ("." in t.string or "e" in t.string)
    ]
    assert all(s in allowed for _, s in floats), floats
    for rel in ("sims/strategies/common.py", "sims/strategies/builders.py"):
        tree = ast.parse((ROOT / rel).read_text())
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.Lambda)):
                for sub in ast.walk(node):
                    if isinstance(sub, ast.Constant) and type(sub.value) is float:
                        assert sub.value == 0.0, f"{rel}:{sub.lineno}: {sub.value}: name it"


# ------------------------------------------------------------------ every ruling in C
RULING = re.compile(r"\bR(\d+)(?:\s*-\s*R(\d+))?\b")
# rulings the native core leaves to the Python engine, and why
DELEGATED = {
    "R2": "the card data are validated in Python (cardgame/catalogue.py); the core loads "
    "the validated catalogue",
}


def _rulings(text: str) -> set[str]:
    out = set()
    for low, high in RULING.findall(text):
        out.update(f"R{n}" for n in range(int(low), int(high or low) + 1))
    return out


def _docs_rulings() -> set[str]:
    return _rulings(
        "\n".join(
            line
            for line in (ROOT / "docs/rules.md").read_text().splitlines()
            if line.startswith("- **R")
        )
    )


def test_every_ruling_the_python_engine_enforces_is_in_the_core_or_delegated():
    documented = _docs_rulings()
    assert documented == {f"R{n}" for n in range(1, 23)}
    engine = set()
    for module in ("state", "actions", "scoring", "resolution", "observation", "rules"):
        engine |= _rulings((ROOT / f"cardgame/{module}.py").read_text())
    assert engine <= documented, f"tags of no ruling: {engine - documented}"
    core = set()
    for name in ("_core.pyx", "_core.pxd", "_resolution.pyx"):
        core |= _rulings((ROOT / "cardgame/_native" / name).read_text())
    missing = documented - core - set(DELEGATED)
    assert not missing, f"rulings the native core neither implements nor delegates: {missing}"


_DEFINITION = r"^(\s*)(?:cdef|cpdef|def|class|ctypedef)\b[^#(=]*?\b{name}\s*[(:]"


def _definition(path: Path, dotted: str) -> str | None:
    """The source of a function, method, class or struct of a .py/.pyx/.pxd file, or None."""
    lines = path.read_text().splitlines()
    start, indent = 0, -1
    for part in dotted.split("."):
        pattern = re.compile(_DEFINITION.format(name=re.escape(part)))
        for i in range(start, len(lines)):
            found = pattern.match(lines[i])
            if found and len(found.group(1)) > indent:
                start, indent = i, len(found.group(1))
                break
        else:
            return None
    body = [lines[start]]
    for line in lines[start + 1 :]:
        if line.strip() and len(line) - len(line.lstrip()) <= indent and line.strip()[0] != ")":
            break
        body.append(line)
    return "\n".join(body)


def _architecture_rows() -> dict[str, tuple[str, str]]:
    rows = {}
    for line in (ROOT / "docs/architecture.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and re.fullmatch(r"R\d+", cells[0]):
            rows[cells[0]] = (cells[1], cells[2])
    return rows


def test_the_architecture_page_names_where_each_rule_lives():
    rows = _architecture_rows()
    assert set(rows) == _docs_rulings(), "docs/architecture.md: a row per ruling of docs/rules.md"
    for ruling, (python, native) in rows.items():
        for cell, engine in ((python, "python"), (native, "native")):
            refs = re.findall(r"`([\w/.]+?\.(?:py|pyx|pxd))(?::([\w.]+))?`", cell)
            assert refs, (ruling, engine)
            tagged = False
            for rel, name in refs:
                path = ROOT / rel
                assert path.exists(), (ruling, rel)
                if not name:
                    continue
                source = _definition(path, name)
                assert source is not None, f"{ruling}: {rel}:{name} does not exist"
                tagged |= ruling in _rulings(source)
            if engine == "native" and not cell.startswith("delegated"):
                assert tagged, f"{ruling}: no native function named for it carries its tag"
            if cell.startswith("delegated"):
                assert ruling in DELEGATED, ruling


# ------------------------------------------------------------------ layering of native files
_IMPORT = re.compile(r"^\s*(?:from\s+([\w.]+)\s+c?import|c?import\s+([\w.]+))")


def _native_imports(folder: str):
    for path in NATIVE:
        if not str(path.relative_to(ROOT)).startswith(folder):
            continue
        for number, line in _code_lines(path):
            found = _IMPORT.match(line)
            if found:
                module = found.group(1) or found.group(2)
                yield f"{path.relative_to(ROOT)}:{number}", module.split(".")[0]
        text = path.read_text()
        for module in re.findall(r"(?:import_module|__import__)\(\s*[\"']([\w.]+)", text):
            yield f"{path.relative_to(ROOT)}", module.split(".")[0]


def test_native_files_keep_the_layers():
    assert NATIVE, "no .pyx/.pxd found"
    bad = [(where, m) for where, m in _native_imports("cardgame") if m in ("sims", "reports")]
    assert not bad, f"cardgame/_native imports what it must not: {bad}"
    bad = [(where, m) for where, m in _native_imports("sims") if m in ("reports", "plotly")]
    assert not bad, f"sims/_native imports what it must not: {bad}"
    cimports = {m for _, m in _native_imports("sims")}
    assert "cardgame" in cimports  # the twins build on the core's C interface


def test_layout_is_standard_library_only():
    """The build loads cardgame/layout.py by its path, before anything is installed."""
    tree = ast.parse((ROOT / "cardgame/layout.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            assert node.level == 0 and node.module in ("__future__", "pathlib", "sys"), node.module
        elif isinstance(node, ast.Import):
            assert all(a.name in ("sys", "pathlib") for a in node.names)
