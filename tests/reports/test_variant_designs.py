"""The variants' section says what each variant changes: its rule settings and its card edits
against base, from the plan the run played (a card edit as a variant is not invisible)."""

import pytest

from reports.variant_sections import variant_designs
from sims.study import from_dict

STUDY = {
    "name": "designs", "seed": 3, "players": [2, 3], "pool": ["planner", "thief"],
    "games_per_cell": 6, "pairing": "deals",
    "variants": {
        "base": {"deck": {"red": 12}},
        "ticket4": {"deck": {"red": 12}, "destinations": {"4": {"points": 8}}},
        "wipe": {"deck": {"red": 12}, "three_locomotive_wipe": True, "rounds": {"4": 1}},
    },
    "sweeps": {"x": {"parameter": "face_up", "values": [4, 5]}},
}  # fmt: skip


@pytest.fixture(scope="module")
def designs():
    return variant_designs(from_dict(STUDY, "designs.toml").plan).set_index("variant")


def test_each_variant_says_its_rules_and_card_edits_against_base(designs):
    assert designs.loc["ticket4", "cards"] == "#4 points 8"  # base's red 12 is no change
    assert designs.loc["ticket4", "rules"] == "as base"
    assert (
        designs.loc["wipe", "rules"] == "rounds 2p: 1, 3p: 1, 4p: 2 -> 2p: 1, 3p: 1, 4p: 1; "
        "three_locomotive_wipe off -> on"
    )
    assert designs.loc["wipe", "cards"] == "as base"


def test_sweep_values_are_left_to_the_sweeps_section(designs):
    assert list(designs.index) == ["ticket4", "wipe"]


def test_the_report_shows_the_table(tmp_path):
    from reports.analysis import analyse
    from reports.markdown import summary
    from reports.sections import build
    from sims.results import load_results
    from sims.runner import run

    small = {**STUDY, "players": [2], "games_per_cell": 2}
    small.pop("sweeps")
    run(from_dict(small, "designs.toml"), workers=1, out=tmp_path / "r", progress=False)
    text = summary(build(analyse(load_results(tmp_path / "r"))))
    assert "What each variant changes" in text
    assert "| ticket4 | 2 | as base | #4 points 8 |" in text
