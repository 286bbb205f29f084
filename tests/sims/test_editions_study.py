"""A study of an edition of one's own (issue 36): the study file names the edition relative
to itself; the manifest carries its name, content digest and cards, never an absolute path;
the tuner's study file names it relative to itself."""

from __future__ import annotations

import json
import os
from pathlib import Path

from cardgame import load_catalogue
from cardgame.edition import synthetic, write_edition
from sims.plan import Plan
from sims.study import load_study


def _edition(folder: Path) -> None:
    write_edition(folder, synthetic(50, 7, seed=3, name="x"), "synthetic")


def test_a_study_file_names_its_edition_relative_to_itself(tmp_path, monkeypatch):
    _edition(tmp_path / "editions" / "seven")
    studies = tmp_path / "studies"
    studies.mkdir()
    (studies / "s.toml").write_text(
        'name = "s"\ncards = "../editions/seven"\nplayers = [3]\ngames_per_cell = 10\n'
        'pool = ["planner", "hoarder"]\n'
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    study = load_study(studies / "s.toml")
    assert not Path(study.cards).is_absolute()
    assert Path(study.cards).resolve() == (tmp_path / "editions" / "seven").resolve()
    cards = study.to_dict()["cards"]
    edition = load_catalogue(tmp_path / "editions" / "seven")
    assert cards == {"folder": study.cards, "digest": edition.digest, "name": "seven"}
    plan = study.plan
    data = json.loads(json.dumps(plan.to_dict()))
    assert data["cards"]["name"] == "seven" and data["cards"]["digest"] == edition.digest
    assert not any(os.path.isabs(str(v)) for v in data["cards"].values() if isinstance(v, str))
    # the plan rebuilds the edition from the manifest alone, without the folder
    (tmp_path / "editions" / "seven" / "destinations.csv").unlink()
    again = Plan.from_dict(data).catalogue()
    assert again == edition and again.name == "seven"


def test_an_absolute_cards_option_is_held_relative(tmp_path, monkeypatch):
    _edition(tmp_path / "seven")
    monkeypatch.chdir(tmp_path)
    study = load_study("strategy-ladder", cards=str(tmp_path / "seven"))
    assert study.cards == "seven"


def test_the_tuners_study_file_names_the_edition_relative_to_itself(tmp_path, monkeypatch):
    import tomllib

    from sims.tune.space import Design
    from sims.tune.study_file import write_study_file
    from sims.tune.tuner import Tuner

    _edition(tmp_path / "seven")
    monkeypatch.chdir(tmp_path)
    study = load_study("strategy-ladder", cards="seven")
    tuner = Tuner(study, "seat", out="out/tune", progress=False, log=lambda line: None)
    path = tmp_path / "out" / "tune" / "edits.toml"
    path.parent.mkdir(parents=True)
    write_study_file(path, tuner, Design(()))
    data = tomllib.loads(path.read_text())
    assert data["cards"] == "../../seven"
    lines = [line for line in path.read_text().splitlines() if not line.startswith("#")]
    assert not any(str(tmp_path) in line for line in lines)
    monkeypatch.chdir(path.parent)  # the file is read from anywhere: relative to itself
    assert Path(load_study(path).cards).resolve() == (tmp_path / "seven").resolve()


def test_a_records_positions_and_viewer_page_use_its_own_cards():
    from cardgame import Game
    from cardgame.randomplay import play_random
    from cardgame.record import to_record
    from reports.viewer import page_data
    from sims.winchance import positions

    edition = synthetic(60, 8, seed=2, name="sixty")
    record = to_record(play_random(Game(3, 5, catalogue=edition), record=True), ["random"] * 3)
    found = list(positions(record))
    assert found and all(p.state.game.catalogue == edition for p in found)
    page = page_data(record)
    cities = {city for info in page["destinations"].values() for city in info[1:3]}
    assert any(str(city).startswith("Big ") for city in cities), page["destinations"]


def test_the_destinations_objective_reads_the_editions_own_tickets(tmp_path, monkeypatch):
    from sims.tune.tuner import Tuner

    _edition(tmp_path / "seven")
    monkeypatch.chdir(tmp_path)
    study = load_study("strategy-ladder", cards="seven")
    tuner = Tuner(study, "destinations", out="out", progress=False, log=lambda line: None)
    context = tuner._context()
    edition = load_catalogue(tmp_path / "seven")
    assert context.card_ids == tuple(d.id for d in edition.destinations)  # 50, not 46
    assert context.city_names == edition.big_city_names  # seven big cities
    assert set(context.card_costs) == set(context.card_ids)
