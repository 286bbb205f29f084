"""The results seal against hostile pass 24's writer (benchmarks/hostile_pass24r): a file
the run wrote grown in place is never hashed by its seal, a seal cut short leaves its folder
refused, a check that fails leaves no folder open, an empty records/ is no records, and odd
manifests (a link, a huge file, a huge integer, metrics of the wrong type) are one line."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import sims.folder as folders
from sims.errors import ResultsError
from sims.folder import MANIFEST, check_sealed
from sims.reading import read_once
from sims.results import load_results
from sims.runner import run
from sims.study import from_dict
from tests.sims.sealed import copy_of, sealed_folder, small_study

STUDY = small_study("pass24")


@pytest.fixture(scope="module")
def sealed(tmp_path_factory):
    return sealed_folder(tmp_path_factory, STUDY)


def test_a_file_the_run_wrote_grown_in_place_is_never_hashed_by_its_seal(tmp_path, monkeypatch):
    """stall24.py: a record file the run wrote, grown in place to 8 TiB of holes, kept the
    run's seal hashing for hours. A file of another size than the run wrote is changed,
    known so without a byte of it read."""
    import sims.runner as runner_module

    folder = tmp_path / "r"
    seal = runner_module.seal
    hashed: list[str] = []
    file_seal = folders.file_seal

    def counted(path):
        hashed.append(Path(path).name)
        return file_seal(path)

    def grown_then_sealed(where, *args, **kwargs):
        if where == folder:
            record = sorted((folder / "records").iterdir())[0]
            os.truncate(record, 1 << 40)  # holes: nothing on disk
            grown.append(record.name)
        return seal(where, *args, **kwargs)

    grown: list[str] = []
    monkeypatch.setattr(runner_module, "seal", grown_then_sealed)
    monkeypatch.setattr(folders, "file_seal", counted)
    with pytest.raises(ResultsError, match=f"records/{(grown and grown[0]) or ''}.*changed while"):
        run(from_dict(STUDY, "test"), workers=1, out=folder, progress=False, records=True)
    assert grown and hashed and grown[0] not in hashed, (grown, hashed)
    os.truncate(folder / "records" / grown[0], 0)


CUT_SHORT = """
import os, sys
import sims.folder as folders
from sims.runner import run
from sims.study import from_dict

def cut_short(path):  # the watchdog's os._exit while the seal hashes
    os._exit(3)

folders.file_seal = cut_short
run(from_dict({"name": "cut", "players": [2], "pool": ["planner", "random"],
               "games_per_cell": 4, "batch_size": 2}, "test"),
    workers=1, out=sys.argv[1], progress=False)
"""


def test_a_seal_cut_short_leaves_its_folder_refused_not_open(tmp_path):
    """stall24.py's end: the process left at once while its seal hashed (the CLI's watchdog
    after a Ctrl-C or a SIGTERM), its folder open, and the resume a reader was told to run
    sealed a forgery. The run's mark ends before its seal begins."""
    folder = tmp_path / "r"
    done = subprocess.run([sys.executable, "-c", CUT_SHORT, str(folder)], check=False)
    assert done.returncode == 3
    assert json.loads((folder / MANIFEST).read_text())["seal"]["state"] == "open"
    with pytest.raises(ResultsError, match="its run ended without sealing it"):
        check_sealed(folder)


def test_a_check_that_fails_leaves_no_folder_open(tmp_path, monkeypatch):
    """checkopen24.py: a run that failed in its check sealed the study's folder, but left
    the check's with the open mark of a run that never ends: a forgery there was read with
    a warning only."""
    import sims.runner as runner_module

    study = {**STUDY, "lineups": [["planner", "random"]], "pairing": "deals"}
    study.pop("pool")
    study["check"] = {"search": 2, "iterations": 4}
    play = runner_module._run_games

    def fails_after_the_check(plan, out, *args, **kwargs):
        found = play(plan, out, *args, **kwargs)
        if out.name == "search":
            raise ResultsError("the check failed")
        return found

    monkeypatch.setattr(runner_module, "_run_games", fails_after_the_check)
    folder = tmp_path / "r"
    with pytest.raises(ResultsError, match="the check failed"):
        run(from_dict(study, "test"), workers=1, out=folder, progress=False)
    check = folder / "checks" / "search"
    assert json.loads((check / MANIFEST).read_text())["seal"]["state"] == "sealed"
    assert not check_sealed(check).unsealed


def test_an_empty_records_folder_added_is_no_records(sealed, tmp_path):
    """records24.py: an empty records/ made a resume refuse ("made with game records"), and
    the resume done as told sealed records of some batches only."""
    folder = copy_of(sealed, tmp_path)
    (folder / "records").mkdir()
    run(from_dict(STUDY, "test"), workers=1, out=folder, progress=False, resume=True)


def test_odd_manifests_are_one_line(sealed, tmp_path):
    """link24.py, bigint24.py, sparse24.py, odd24.py: tracebacks (exit 1)."""
    folder = copy_of(sealed, tmp_path)
    manifest = folder / MANIFEST
    text = manifest.read_text()
    manifest.write_text(text[:-2] + ', "x": ' + "1" * 5_000 + "}\n")
    with pytest.raises(ResultsError, match="unreadable manifest"):
        check_sealed(folder)
    os.truncate(manifest, 300 << 20)  # holes: past any manifest a run writes
    with pytest.raises(ResultsError, match="past any a run writes"):
        check_sealed(folder)
    data = json.loads(text)
    data["study"]["metrics"] = ["quality"]
    manifest.write_text(json.dumps(data))
    with pytest.raises(ResultsError, match="metrics are not a table"):
        load_results(folder, accept_changes=True)
    target = tmp_path / "elsewhere"
    target.write_text("{}")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    with pytest.raises(ResultsError, match="a link, which no run writes"):
        read_once(link)


def test_a_records_folder_emptied_or_a_folder_of_a_records_name_misleads_nothing(tmp_path):
    """Hostile pass 25r's shape25.py: a sealed --records folder whose records/ was emptied
    made a resume say it was made without records (then, done as told, refused); odd25.py:
    a folder named like a record file made view refuse."""
    import shutil

    from cardgame.cli import main

    folder = tmp_path / "r"
    study = from_dict(STUDY, "test")
    run(study, workers=1, out=folder, progress=False, records=True)
    copy = tmp_path / "c"
    shutil.copytree(folder, copy)
    (folder / "records" / "a.jsonl").mkdir()
    out = str(tmp_path / "v.html")
    assert main(["view", str(folder), "--out", out, "--playouts", "0", "--accept-changes"]) == 0
    for record in (copy / "records").iterdir():
        record.unlink()
    with pytest.raises(ResultsError, match="was removed since its run ended"):
        run(study, workers=1, out=copy, progress=False, resume=True, records=True)
