"""A study played until settled (sims/looks.py, sims/runner.py ``_run_looks``): looks of
doubling games, each read at its share of the level; the run stops at the first look its
judge leaves nothing open, or at the cap; the games are the planned study's, whatever look
it stops at; resume replays the judgments; bad settings are one line."""

from __future__ import annotations

import io
import itertools
import json
import math
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import replace

import pytest

from cardgame.cli import main
from sims.batch import plan_batches
from sims.errors import StudyError
from sims.folder import MANIFEST
from sims.looks import ALPHA, MAX_LOOKS, look_factors, look_levels, spent
from sims.plan import Plan
from sims.results import load_results
from sims.runner import run
from sims.study import from_dict

STUDY = {
    "name": "looks", "seed": 5, "players": [2], "lineups": [["planner", "random"]],
    "games_per_cell": 6, "batch_size": 4, "pairing": "deals",
    "stop": "settled", "max_games": 24,
}  # fmt: skip


def hsd(t: float, gamma: float = -4.0, alpha: float = 0.05) -> float:
    """Hwang-Shih-DeCani spending, written out again."""
    return alpha * (1 - math.exp(-gamma * t)) / (1 - math.exp(-gamma))


def test_spending_is_hwang_shih_decani_and_the_looks_spend_the_whole_level():
    assert spent(0.0) == 0 and spent(1.0) == pytest.approx(ALPHA)
    # by hand: 0.05 (e - 1) / (e^4 - 1) = 0.0016029, 0.05 (e^2 - 1) / (e^4 - 1) = 0.0059601
    assert [round(spent(t), 7) for t in (0.25, 0.5, 1.0)] == [0.0016029, 0.0059601, 0.05]
    assert spent(0.3) == pytest.approx(hsd(0.3))
    levels = look_levels((1, 2, 4))
    assert sum(levels) == pytest.approx(ALPHA) and levels[-1] == pytest.approx(0.0440399, 1e-5)
    assert all(a < b for a, b in itertools.pairwise(levels))  # spends late


def test_looks_double_then_fill_the_cap():
    assert look_factors(100, 100) == (1,)
    assert look_factors(100, 450) == (1, 2, 4)
    assert look_factors(100, 700) == (1, 2, 4, 7)
    assert len(look_factors(1, 10**12)) == MAX_LOOKS
    with pytest.raises(ValueError):
        look_factors(100, 99)


def test_a_looks_batches_are_the_next_looks_first_and_never_straddle_a_look():
    plan = from_dict(STUDY, "looks.toml").plan
    assert plan.look_factors == (1, 2, 4) and plan.total_games == 6 and plan.look == 0
    ids = [[(b.id, b.start, b.stop) for b in plan_batches(plan.at_look(k))] for k in range(3)]
    assert ids[0] == [("c0000-g0000000", 0, 4), ("c0000-g0000004", 4, 6)]
    assert ids[1][: len(ids[0])] == ids[0] and ids[2][: len(ids[1])] == ids[1]
    assert [(start, stop) for _, start, stop in ids[2]] == [
        (0, 4), (4, 6), (6, 10), (10, 12), (12, 16), (16, 20), (20, 24),
    ]  # fmt: skip
    assert plan.at_look(2).total_games == 24 and plan.at_look(2).level == look_levels((1, 2, 4))[2]


def test_the_plan_keeps_its_looks_through_the_manifest():
    plan = replace(from_dict(STUDY, "looks.toml").plan.at_look(1), judged=(("a",), ()))
    stored = json.loads(json.dumps(plan.to_dict()))
    again = Plan.from_dict(stored)
    assert again.to_dict() == plan.to_dict() and again.open_questions == ()
    assert again.until_settled and again.look_factors == (1, 2, 4) and again.look == 1
    for broken in (
        {"factors": [2, 4]},
        {"factors": [1, 1]},
        {"look": 3},
        {"judged": [[1]]},
        {"judged": [[], [], []]},
    ):
        bad = {**stored, "sequential": {**stored["sequential"], **broken}}
        with pytest.raises(Exception, match="not a plan this version reads"):
            Plan.from_dict(bad)
    checks = replace(plan, check_search=2).check_plans()["search"]
    assert not checks.until_settled and checks.judged == ()  # a check is played once


def judge_open_until(settled_at: int, calls: list[int]):
    def judge(folder, plan):
        calls.append(plan.look)
        assert len(load_results(folder).games) == plan.total_games  # exactly its look's games
        return [] if plan.look >= settled_at else ["strongest strategy at 2 players"]

    return judge


def test_the_run_stops_at_the_first_settled_look_with_the_planned_games(tmp_path):
    calls: list[int] = []
    summary = run(
        from_dict(STUDY, "looks.toml"), workers=1, out=tmp_path / "s", progress=False,
        judge=judge_open_until(1, calls),
    )  # fmt: skip
    assert calls == [0, 1] and summary.games_played == 12 and summary.games_total == 12
    assert summary.plan.look == 1 and summary.plan.open_questions == ()
    results = load_results(tmp_path / "s")
    assert results.plan.judged == (("strongest strategy at 2 players",), ())
    assert (tmp_path / "s" / "games" / "compact.parquet").exists()  # compacted once settled
    planned = {**STUDY, "games_per_cell": 12}
    del planned["stop"], planned["max_games"]
    run(from_dict(planned, "looks.toml"), workers=2, out=tmp_path / "p", progress=False)
    same = load_results(tmp_path / "p").games.drop(columns=["study"])
    assert results.games.drop(columns=["study"]).equals(same)  # the planned study's games


def test_the_cap_ends_the_run_and_a_resume_replays_the_judgments(tmp_path):
    calls: list[int] = []
    summary = run(
        from_dict(STUDY, "looks.toml"), workers=2, out=tmp_path / "c", progress=False,
        judge=judge_open_until(99, calls),
    )  # fmt: skip
    assert calls == [0, 1, 2] and summary.games_total == 24 and summary.plan.last_look
    assert summary.plan.open_questions == ("strongest strategy at 2 players",)
    again = run(
        from_dict(STUDY, "looks.toml"), workers=1, out=tmp_path / "c", progress=False,
        resume=True, judge=judge_open_until(99, calls),
    )  # fmt: skip
    assert calls == [0, 1, 2] and again.games_played == 0 and again.games_skipped == 24


def test_an_interrupted_look_is_resumed_and_judged_on_its_own_games(tmp_path):
    calls: list[int] = []

    def stop_at_second(folder, plan):
        if plan.look == 1:
            raise KeyboardInterrupt  # the judge stopped: nothing of look 2 is played
        return judge_open_until(1, calls)(folder, plan)

    with pytest.raises(KeyboardInterrupt):
        run(from_dict(STUDY, "looks.toml"), workers=1, out=tmp_path / "i", progress=False,
            judge=stop_at_second)  # fmt: skip
    stored = json.loads((tmp_path / "i" / MANIFEST).read_text())["plan"]["sequential"]
    assert stored["look"] == 1 and len(stored["judged"]) == 1
    summary = run(
        from_dict(STUDY, "looks.toml"), workers=1, out=tmp_path / "i", progress=False,
        resume=True, judge=judge_open_until(1, calls),
    )  # fmt: skip
    assert calls == [0, 1] and summary.games_played == 0 and summary.plan.open_questions == ()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"stop": "sometimes"}, "stop: must be one of planned, settled, got 'sometimes'"),
        ({"max_games": 5}, "max_games: must be at least the study's own 6 games"),
        ({"max_games": 2.5}, "max_games: must be a whole number"),
        ({"max_games": -1}, "max_games: must be from 1"),
        ({"stop": "planned"}, "max_games: caps a study played until settled"),
    ],
)
def test_bad_stop_settings_are_one_line(change, message):
    with pytest.raises(StudyError, match=message) as info:
        from_dict({**STUDY, **change}, "looks.toml")
    assert "\n" not in str(info.value)


def test_the_default_cap_is_eight_times_the_study():
    study = from_dict({k: v for k, v in STUDY.items() if k != "max_games"}, "looks.toml")
    assert study.max_games == 48 and study.plan.look_factors == (1, 2, 4, 8)


def test_until_settled_from_the_command_line_judges_with_the_report(tmp_path):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["simulate", "--strategies", "planner,random", "--players", "2",
                     "--games", "40", "--until", "settled", "--max-games", "160",
                     "--workers", "1", "--no-progress", "--out", str(tmp_path / "r")])  # fmt: skip
    assert code == 0, err.getvalue()
    text = out.getvalue()
    assert ("Settled at look" in text) or ("The cap (160 games)" in text), text
    plan = load_results(tmp_path / "r").plan
    assert plan.until_settled and plan.open_questions is not None
    err = io.StringIO()
    with redirect_stderr(err):
        code = main(["simulate", "--strategies", "planner,random", "--players", "2",
                     "--games", "40", "--until", "settled", "--max-games", "10",
                     "--out", str(tmp_path / "bad")])  # fmt: skip
    assert code == 2 and "max_games: must be at least" in err.getvalue()
    assert not (tmp_path / "bad").exists()
