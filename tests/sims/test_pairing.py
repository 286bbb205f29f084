"""Common random numbers: paired studies replay the same deals in every cell of a player
count; variants are simulated only at the player counts where they change the rules."""

from __future__ import annotations

import pytest

from cardgame import Game
from sims.batch import plan_batches
from sims.errors import ResultsError, StudyError
from sims.results import load_results
from sims.runner import run
from sims.seeding import game_seed
from sims.study import from_dict, load_study

PAIRED = {
    "name": "paired",
    "seed": 5,
    "players": [2, 3],
    "lineups": [["planner", "thief"], ["hoarder", "planner"], ["planner", "thief", "hoarder"]],
    "games_per_cell": 6,
    "batch_size": 4,
    "pairing": "deals",
    "variants": {"base": {}, "wipe": {"three_locomotive_wipe": True}},
}


def specs(document: dict) -> list:
    return [spec for batch in plan_batches(from_dict(document, "t").plan) for spec in batch.specs()]


def setup_shuffles(spec) -> list:
    """The deal: the train and destination shuffles made before any decision."""
    state = Game(spec.players, spec.seed, spec.rules).new_state(record=True)
    return [s["order"] for s in state.record["shuffles"][:2]]


def deals_by_game(document: dict, per_deal) -> dict:
    found: dict[tuple[int, int], set] = {}
    for spec in specs(document):
        found.setdefault((spec.players, per_deal(spec)), set()).add(spec.seed)
    return found


def test_paired_cells_replay_game_i_s_deal_in_every_variant_and_line_up():
    found = deals_by_game(PAIRED, lambda spec: spec.index)
    assert all(len(seeds) == 1 for seeds in found.values())
    deals = [seed for (players, _), (seed,) in found.items() if players == 2]
    assert len(set(deals)) == len(deals) == 6  # a new deal for every game of a cell


def test_seatings_pairing_replays_each_deal_in_every_seat_order():
    document = {**PAIRED, "pairing": "seatings"}
    # 2 players: 2 seat orders, so games 2k and 2k+1 play deal k once in each order
    found = deals_by_game(document, lambda s: s.index // (2 if s.players == 2 else 6))
    assert all(len(seeds) == 1 for seeds in found.values())
    deals = [seed for (players, _), (seed,) in found.items() if players == 2]
    assert len(set(deals)) == len(deals) == 3


def test_the_shuffles_are_identical_across_variants_line_ups_and_seatings():
    two = [s for s in specs({**PAIRED, "pairing": "seatings"}) if s.players == 2]
    deal0 = [s for s in two if s.index in (0, 1)]
    assert len(deal0) == 8  # 2 variants x 2 line-ups x 2 seat orders
    assert {s.seats[0].label for s in deal0} == {"planner", "thief", "hoarder"}
    shuffles = [setup_shuffles(s) for s in deal0]
    assert all(x == shuffles[0] for x in shuffles)
    other = setup_shuffles(next(s for s in two if s.index == 2))
    assert other != shuffles[0]


def test_the_games_table_shows_the_shared_seed_of_paired_games(tmp_path):
    document = {**PAIRED, "players": [2], "lineups": [["planner", "thief"]], "games_per_cell": 2}
    run(from_dict(document, "t"), workers=1, out=tmp_path, progress=False)
    games = load_results(tmp_path).games
    assert len(games) == 4 and games["seed"].nunique() == 2  # 2 variants x 2 games
    assert (games.groupby("game_index")["seed"].nunique() == 1).all()


def test_unpaired_studies_keep_their_seeds():
    study = from_dict({**PAIRED, "pairing": "none"}, "t")
    assert study.to_dict()["pairing"] == "none"
    for batch in plan_batches(study.plan):
        for spec in batch.specs():
            assert spec.seed == game_seed(5, spec.cell, spec.index)


def test_pairing_is_part_of_the_study_so_resume_refuses_a_change(tmp_path):
    document = {**PAIRED, "players": [2], "lineups": [["planner", "thief"]], "games_per_cell": 2}
    run(from_dict(document, "t"), workers=1, out=tmp_path, progress=False)
    unpaired = {k: v for k, v in document.items() if k != "pairing"}
    with pytest.raises(ResultsError, match="different study"):
        run(from_dict(unpaired, "t"), workers=1, out=tmp_path, progress=False, resume=True)


def test_a_paired_study_is_the_same_whatever_the_worker_count(tmp_path):
    document = {**PAIRED, "players": [2], "lineups": PAIRED["lineups"][:2], "batch_size": 2}
    run(from_dict(document, "t"), workers=1, out=tmp_path / "one", progress=False)
    run(from_dict(document, "t"), workers=2, out=tmp_path / "two", progress=False)
    one, two = load_results(tmp_path / "one"), load_results(tmp_path / "two")
    assert one.games.drop(columns="sim_minutes").equals(two.games.drop(columns="sim_minutes"))
    assert one.seats.equals(two.seats)


def test_bad_pairing_is_one_line():
    with pytest.raises(StudyError, match="t: pairing: must be one of none, deals, seatings"):
        from_dict({**PAIRED, "pairing": "yes"}, "t")


# ------------------------------------------------------------------ per-variant player counts
def test_the_variants_study_plays_a_four_player_variant_only_at_four_players():
    study = load_study("variants")
    assert study.pairing == "deals"
    counts = {c.players for c in study.cells() if c.variant == "four-player-one-round"}
    assert counts == {4}
    assert {c.players for c in study.cells() if c.variant == "base"} == {2, 3, 4}
    assert "same players and seeds" not in study.source["description"]


def test_a_study_that_names_no_pairing_pairs_by_seatings():
    document = {k: v for k, v in PAIRED.items() if k != "pairing"}
    assert from_dict(document, "t").pairing == "seatings"
    # the strategy studies take the default (their comparisons cluster by deal); the card
    # study rates cards over as many deals as games
    assert {
        name: load_study(name).pairing
        for name in ("strategy-ladder", "player-counts", "destinations")
    } == {"strategy-ladder": "seatings", "player-counts": "seatings", "destinations": "none"}


def test_a_manifest_written_before_the_default_was_paired_reads_as_unpaired():
    from sims.study import legacy_plan

    document = {k: v for k, v in PAIRED.items() if k != "pairing"}
    assert legacy_plan(document, "manifest").pairing == "none"


def test_a_variant_without_players_is_played_only_where_it_changes_the_rules():
    document = {**PAIRED, "players": [2, 3, 4], "variants": {"base": {}, "v": {"rounds": {4: 1}}}}
    study = from_dict(document, "t")
    assert study.players_for("v") == (4,)
    assert study.to_dict()["variants"]["v"]["players"] == [4]
    again = {k: v for k, v in study.to_dict().items() if k != "pool"}  # as the manifest reads
    assert from_dict(again, "manifest").cells() == study.cells()


def test_a_variant_listed_where_it_equals_base_is_refused():
    variants = {"base": {}, "v": {"players": [3, 4], "rounds": {4: 1}}}
    with pytest.raises(StudyError, match=r"t: variants.v.players: the rules equal base at 3"):
        from_dict({**PAIRED, "variants": variants}, "t")


def test_a_variant_identical_to_base_is_refused():
    with pytest.raises(StudyError, match="t: variants.v: the same rules as base at every"):
        from_dict({**PAIRED, "variants": {"base": {}, "v": {"face_up": 5}}}, "t")


def test_bad_variant_players_are_one_line():
    variants = {"base": {}, "v": {"players": [5], "face_up": 4}}
    with pytest.raises(StudyError, match=r"t: variants.v.players: must be a list of 2, 3 or 4"):
        from_dict({**PAIRED, "variants": variants}, "t")


def test_a_variant_outside_the_study_counts_plays_nothing():
    variants = {"base": {}, "v": {"players": [4], "rounds": {4: 1}}}
    study = from_dict({**PAIRED, "variants": variants}, "t")  # players 2 and 3
    assert not [c for c in study.cells() if c.variant == "v"]


def test_every_built_in_variant_deals_the_base_game_s_cards():
    study = load_study("variants")
    first = {}
    for batch in plan_batches(study.plan):
        if batch.start:
            continue
        spec = next(batch.specs())
        first.setdefault(spec.players, []).append(setup_shuffles(spec))
    for players, deals in first.items():
        assert len(deals) > 1 and all(deal == deals[0] for deal in deals), players


def test_a_second_round_deal_changes_only_the_counts_with_a_second_round():
    variants = {"base": {}, "v": {"round_two_deal": 6}}
    study = from_dict({**PAIRED, "players": [2, 3, 4], "lineups": None, "pool": ["planner",
                       "thief"], "variants": variants}, "t")  # fmt: skip
    assert study.players_for("v") == (4,)
