"""Whether a study's answers hold for other players (reports/robustness.py): the same verdict
holds whatever its sizes, two settled verdicts that disagree differ, an unsettled side is not
yet known, and what a check cannot answer is said to be unchecked."""

from __future__ import annotations

from reports.answers import AMBER, GREEN, OVERTURNED, RED, Answer, Cell
from reports.robustness import (
    DIFFERS,
    HOLDS,
    KINDS,
    SHOWN,
    UNCHECKED,
    UNKNOWN,
    compare,
    comparisons,
    robustness_section,
    summary_rows,
)


def _answer(label: str, **cells: Cell) -> Answer:
    answer = Answer(label, "x")
    answer.cells = {f"{k[1:]} players": cell for k, cell in cells.items()}
    return answer


def test_a_verdict_is_the_answer_without_its_sizes():
    assert Cell("yes: +3.1 points", RED).verdict == Cell("yes: +4.0 points", RED).verdict
    assert Cell("yes: +3.1 points", RED).verdict != Cell("yes: -3.1 points", RED).verdict
    assert Cell("#3, #17", RED, key="#17, #3").verdict == "#17, #3"  # the ids are the verdict


def test_each_answer_holds_differs_is_unknown_unchecked_or_shown():
    study = [
        _answer("First-seat edge", p2=Cell("yes: +3.1 points", RED), p3=Cell("no (±2)", GREEN)),
        _answer("Strongest strategy", p2=Cell("planner", GREEN)),
        _answer("Cards out of line", p2=Cell("none found", GREEN), p3=Cell("#4", RED, key="#4")),
        _answer("Turns per player", p2=Cell("41")),
        _answer("Memory's edge", p2=Cell("+3.0 pts", GREEN)),
    ]
    check = [
        _answer("First-seat edge", p2=Cell("yes: +5.0 points", RED), p3=Cell("yes: +4", RED)),
        _answer("Strongest strategy", p2=Cell("thief", GREEN)),
        _answer("Cards out of line", p2=Cell("too few games", AMBER), p3=Cell("#4", RED, key="#4")),
        _answer("Turns per player", p2=Cell("45")),
        _answer("Memory's edge", p2=Cell("none found; would flag 2.7")),
    ]
    table = compare(study, check, KINDS["search"])
    found = {(row.answer, row.players): row.holds for row in table.itertuples()}
    assert found == {
        ("First-seat edge", "2 players"): HOLDS,
        ("First-seat edge", "3 players"): DIFFERS,
        ("Strongest strategy", "2 players"): UNCHECKED,  # every seat searches
        ("Cards out of line", "2 players"): UNKNOWN,
        ("Cards out of line", "3 players"): HOLDS,
        ("Turns per player", "2 players"): SHOWN,
        ("Memory's edge", "2 players"): UNKNOWN,  # absence of evidence settles nothing
    }
    knobs = compare(study, check, KINDS["knobs"])
    assert (
        knobs.set_index(["answer", "players"]).loc[("Strongest strategy", "2 players"), "holds"]
        == DIFFERS
    )
    assert compare(study, [], KINDS["knobs"])["holds"].eq(UNCHECKED).all()


def test_a_report_of_a_checked_study_says_which_answers_hold(tmp_path):
    from reports.analysis import analyse
    from reports.sections import build
    from sims.results import load_results
    from sims.runner import run
    from sims.study import from_dict

    study = {
        "name": "checked", "seed": 9, "players": [2], "lineups": [["planner", "thief"]],
        "games_per_cell": 6, "pairing": "deals",
        "variants": {"base": {}, "chicago": {"big_cities": {"Chicago": 30}}},
        "check": {"search": 4, "iterations": 4},
    }  # fmt: skip
    run(from_dict(study, "checked.toml"), workers=1, out=tmp_path / "r", progress=False)
    analysis = analyse(load_results(tmp_path / "r", destinations=False))
    assert set(analysis.checks) == {"search"} and len(analysis.checks["search"].games) == 8
    rows = summary_rows(comparisons(analysis))
    assert [row.label for row in rows] == ["Holds for players who search"]
    assert set(rows[0].cells) == {"2 players"}
    section = robustness_section(analysis, comparisons(analysis))
    assert section is not None and "8 games: the search player" in section.intro
    assert "chicago: score" in set(section.tables[0].frame["answer"])
    report = build(analysis)
    assert report.summary.answers[-1].label == "Holds for players who search"
    overturned = any(cell.light == RED for cell in rows[0].cells.values())
    assert (report.summary.lights[RED] == OVERTURNED) == overturned  # the legend says why red
    assert "checks" in [s.key for s in report.sections]
