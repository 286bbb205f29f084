"""The results seal against hostile pass 27's writer (benchmarks/hostile_pass27r): a sealed
study's checks are those its seal lists, never those the disk holds when a report asks."""

import os

import pytest

from sims.errors import ResultsError
from sims.results import load_results
from tests.sims.sealed import copy_of, sealed_folder, small_study

STUDY = {**small_study("pass27"), "lineups": [["planner", "random"]], "pairing": "deals"}
STUDY.pop("pool")
STUDY["check"] = {"search": 2, "iterations": 4}


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    return sealed_folder(tmp_path_factory, STUDY)


@pytest.mark.parametrize("how", ["moved away", "moved away and back"])
def test_a_check_moved_away_while_a_report_reads_is_refused(checked, tmp_path, how):
    """checkhide27.py: once a report had read the study's own tables, the writer renamed
    checks/search out of the folder and put it back after: the report, exit 0, said
    nothing of the search check."""
    folder = copy_of(checked, tmp_path)
    results = load_results(folder)
    assert set(load_results(folder).checks()) == {"search"}
    os.rename(folder / "checks" / "search", tmp_path / "away")
    if how == "moved away and back":
        os.rename(tmp_path / "away", folder / "checks" / "search")
    with pytest.raises(ResultsError, match=r"checks\S* (changed|was removed) while it was read"):
        results.checks()
