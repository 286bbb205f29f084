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


def test_a_file_of_a_name_the_seal_leaves_out_is_no_record(tmp_path, capsys):
    """leftout27.py: a forged record named like a Dask run's mark (left out of the seal, as
    a killed writer's leftovers are) was listed by `view` among the records, so `view` was
    refused, and with --accept-changes it showed the forgery. `view` lists the record files
    a run writes, as a resume does; a results folder's records/ is viewed as its folder."""
    import shutil

    from cardgame.cli import main
    from sims.runner import run
    from sims.study import from_dict

    folder = tmp_path / "r"
    run(from_dict(small_study("leftout"), "test"), workers=1, out=folder, progress=False,
        records=True)  # fmt: skip
    record = sorted((folder / "records").glob("part-*.jsonl"))[0]
    shutil.copy(record, folder / "records" / ".dask-run-x.jsonl")
    for where in (folder, folder / "records"):
        out = tmp_path / "v.html"
        argv = ["view", str(where), "--out", str(out), "--playouts", "0"]
        assert main(argv) == 0, capsys.readouterr().err
        assert ".dask-run" not in out.read_text()


def test_every_change_is_named_and_what_accept_changes_takes_is_said(tmp_path, capsys):
    """decoy27.py: the writer forged a sealed table and added an empty `.nfs...` file beside
    it; the refusal named the decoy alone, and the `--accept-changes` it suggested read (and
    a resume sealed) the forgery with no word. The refusal now names every change (the
    added file is never hashed), and reading or resuming with changes accepted says what
    it takes as it is."""
    from sims.folder import check_sealed
    from sims.runner import run
    from sims.study import from_dict

    folder = tmp_path / "r"
    study = from_dict(small_study("decoy"), "test")
    run(study, workers=1, out=folder, progress=False)
    other = tmp_path / "other"  # the forgery: another run's table, as good a file
    run(from_dict({**small_study("decoy"), "seed": 99}, "test"), workers=1, out=other,
        progress=False)  # fmt: skip
    table = sorted(p for p in (folder / "seats").rglob("*") if p.is_file())[0]
    name = table.relative_to(folder).as_posix()
    table.write_bytes((other / name).read_bytes())
    (folder / ".nfs000000000001a2b").write_bytes(b"")
    both = rf"\.nfs000000000001a2b was added since its run ended \(also: {name} changed\)"
    with pytest.raises(ResultsError, match=both):
        check_sealed(folder)
    note = check_sealed(folder, accept_changes=True).note
    assert note is not None and name in note and note.endswith("read as it is (--accept-changes)")
    run(study, workers=1, out=folder, progress=False, resume=True, accept_changes=True)
    assert f"(also: {name} changed): sealed again as it is" in capsys.readouterr().err
    assert check_sealed(folder, accept_changes=True).note is None  # sealed as it now is


def test_a_sealed_file_grown_after_its_size_was_compared_is_never_read(tmp_path, monkeypatch):
    """hugerace27.py: the writer put 8 TiB of holes in a sealed table's place after the
    check had compared its size and before it hashed it: every reader hashed for hours.
    grow27.py: a sealed table grown in place after the check (its inode the same) was read
    whole by the report: a MemoryError. Each is refused, not a byte of it read."""
    import sims.folder as folders
    from sims.folder import check_sealed
    from sims.runner import run
    from sims.study import from_dict

    folder = tmp_path / "r"
    run(from_dict(small_study("grown"), "test"), workers=1, out=folder, progress=False)
    table = sorted(p for p in (folder / "seats").rglob("*") if p.is_file())[0]
    file_seal, digests = folders.file_seal, []

    def grown_then_hashed(path, *args):
        if path == table:
            os.truncate(table, 8 << 40)
        found = file_seal(path, *args)
        if path == table:
            digests.append(found[0])
        return found

    monkeypatch.setattr(folders, "file_seal", grown_then_hashed)
    with pytest.raises(ResultsError, match="seats/.* changed since its run ended"):
        check_sealed(folder)
    assert digests == [""]  # no digest: not a byte of it read
    monkeypatch.undo()
    os.truncate(table, 0)
    run(from_dict(small_study("grown"), "test"), workers=1, out=tmp_path / "s", progress=False)
    folder = tmp_path / "s"
    table = sorted(p for p in (folder / "seats").rglob("*") if p.is_file())[0]
    check = check_sealed(folder)
    os.truncate(table, 8 << 40)  # after the check: the same inode
    with pytest.raises(ResultsError, match="seats/.* changed while it was read"):
        check.read(table)
