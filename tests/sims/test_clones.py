"""Identical strategies under two labels (clones) play identical games under the default
design (``pairing = "seatings"``): a seat's random stream knows the strategy's base,
never its label, so a clone put in the other's seat on the same deal plays the same game, on
both engines, and the reports find them tied exactly."""

from __future__ import annotations

import pandas as pd
import pytest

from sims.results import load_results
from sims.runner import run
from sims.study import from_dict

pytestmark = pytest.mark.usefixtures("engine")

# planner is deterministic; random reads its stream, so its clone tests the seeding
CLONES = {
    "name": "clones",
    "seed": 3,
    "players": [2, 3],
    "pool": ["planner", "twin", "random", "dice", "thief"],
    "games_per_cell": 12,
    "batch_size": 12,
    "strategies": {"twin": {"base": "planner"}, "dice": {"base": "random"}},
}
TWINS = {"planner": "twin", "twin": "planner", "random": "dice", "dice": "random"}


@pytest.fixture(scope="module")
def seats(engine, tmp_path_factory) -> pd.DataFrame:
    study = {**CLONES, "engine": "python" if engine == "python" else "native"}
    folder = tmp_path_factory.mktemp(f"clones-{engine}") / "r"
    run(from_dict(study, "t"), workers=1, out=folder, progress=False)
    return load_results(folder).seats


def _games(seats: pd.DataFrame) -> dict[tuple, tuple]:
    """(seed, labels in seat order) -> the seats' (score, win share)."""
    out = {}
    for (_, seed), game in seats.groupby(["cell", "seed"], sort=False):
        for _, one in game.groupby("game_index"):
            one = one.sort_values("seat")
            result = zip(one["score"], one["win_share"], strict=True)
            out[(seed, tuple(one["strategy"]))] = tuple(result)
    return out


def test_the_default_design_pairs_by_seatings():
    assert from_dict(CLONES, "t").pairing == "seatings"
    assert from_dict({**CLONES, "pairing": "none"}, "t").pairing == "none"


def test_a_clone_in_the_other_s_seat_plays_the_same_game(seats):
    games = _games(seats)
    compared = 0
    for (seed, order), result in games.items():
        swapped = tuple(TWINS.get(label, label) for label in order)
        if swapped != order and (seed, swapped) in games:
            assert games[(seed, swapped)] == result, (seed, order)
            compared += 1
    # every game with a clone has its image, except where both clones of a pair sit
    assert compared > len(games) // 2


def test_clones_have_the_same_record(seats):
    from reports.wins import head_to_head, win_rates

    rates = win_rates(seats).set_index(["players", "strategy"])
    for players in (2, 3):
        for a, b in (("planner", "twin"), ("random", "dice")):
            assert rates.loc[(players, a), "rate"] == rates.loc[(players, b), "rate"]
        # "random" is the baseline by name, its clone is not: compare planner's twin only
        assert rates.loc[(players, "planner"), "vs_field"] == pytest.approx(
            rates.loc[(players, "twin"), "vs_field"], abs=1e-12
        )
    h2h = head_to_head(seats).set_index(["players", "strategy", "opponent"])
    for players in (2, 3):
        assert h2h.loc[(players, "planner", "twin"), "rate"] == pytest.approx(0.5, abs=1e-12)
        assert not h2h.loc[(players, "planner", "twin"), "significant"]
        for other in ("random", "dice", "thief"):
            assert h2h.loc[(players, "planner", other), "rate"] == pytest.approx(
                h2h.loc[(players, "twin", other), "rate"], abs=1e-12
            )
