import pytest

from sims.runner import run
from sims.study import from_dict

STUDY = {
    "name": "report-test",
    "seed": 11,
    "players": [2, 4],
    "lineups": [["planner", "random"], ["planner", "thief", "hoarder", "random"]],
    "games_per_cell": 24,
    "batch_size": 24,
    "variants": {"base": {}, "one-round": {"rounds": {"4": 1}}},
    # the unpaired design: its 24 four-player games are 24 deals (paired by seatings, the
    # default, they would be one deal in its 24 seat orders); the default design's report is
    # read end to end in test_verdicts.py (clones) and tests/sims/test_clones.py
    "pairing": "none",
}


@pytest.fixture(scope="session")
def results_folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("results") / "r"
    run(from_dict(STUDY, "test"), workers=1, out=folder, progress=False)
    return folder


@pytest.fixture(scope="session")
def analysis(results_folder):
    from reports.analysis import analyse
    from sims.results import load_results

    return analyse(load_results(results_folder))
