"""The results seal against hostile pass 28's writer (benchmarks/hostile_pass28r): a file
gone between the seal's listing and its hashing, a writer's leftover in a table's folder,
a key written twice in a manifest, odd study values read with changes accepted, and a
report's --out through a link into the folder."""

import json
import os

import pytest

import sims.folder as folders
from sims.errors import ResultsError
from sims.folder import MANIFEST, check_sealed
from sims.runner import run
from sims.study import from_dict
from tests.sims.sealed import copy_of, sealed_folder, small_study

STUDY = small_study("pass28")


@pytest.fixture(scope="module")
def sealed(tmp_path_factory):
    return sealed_folder(tmp_path_factory, STUDY)


def test_a_file_gone_while_the_run_seals_is_one_line_not_a_traceback(tmp_path, monkeypatch):
    """vanish28.py: the writer renamed a table away while the run sealed, and back: the run
    ended in a FileNotFoundError traceback (exit 1)."""
    folder = tmp_path / "r"
    file_seal, moved = folders.file_seal, []

    def vanishing(path, *args):
        if not moved and path.parent.name == "seats":
            os.rename(path, tmp_path / "away")
            moved.append(path)
            try:
                return file_seal(path, *args)
            finally:
                os.rename(tmp_path / "away", path)
        return file_seal(path, *args)

    monkeypatch.setattr(folders, "file_seal", vanishing)
    with pytest.raises(ResultsError, match="while this run wrote the folder"):
        run(from_dict(STUDY, "test"), workers=1, out=folder, progress=False)
    monkeypatch.undo()
    assert moved
    check_sealed(folder)  # put back as the run wrote it: sealed with the run's own digest


def test_a_writers_leftover_in_a_tables_folder_is_no_table(sealed, tmp_path):
    """shadow28.py: a `quality/x.tmp` added (left out of the seal, as a killed writer's
    leftovers are) made every resume fail on a quality table that never was."""
    folder = copy_of(sealed, tmp_path)
    (folder / "quality").mkdir()
    (folder / "quality" / "x.tmp").write_bytes(b"x")
    run(from_dict(STUDY, "test"), workers=1, out=folder, progress=False, resume=True)


def test_a_manifest_with_a_key_twice_is_refused(sealed, tmp_path):
    """dupkey28.py: a forged study put before the real one was sealed by what the manifest
    parses to (the last), while a person, or another reader, sees the first."""
    folder = copy_of(sealed, tmp_path)
    text = (folder / MANIFEST).read_text()
    (folder / MANIFEST).write_text('{"study": {"name": "forged"},' + text.lstrip()[1:])
    with pytest.raises(ResultsError, match="unreadable manifest .*the key 'study' twice"):
        check_sealed(folder)


def test_odd_study_values_read_with_changes_accepted_are_never_a_traceback(sealed, tmp_path):
    """odd28.py: `study.variants = 5`, read with --accept-changes, ended `report` in a
    TypeError."""
    from cardgame.cli import main

    folder = copy_of(sealed, tmp_path)
    manifest = json.loads((folder / MANIFEST).read_text())
    manifest["study"]["variants"] = 5
    (folder / MANIFEST).write_text(json.dumps(manifest))
    out = tmp_path / "r.md"
    argv = ["report", str(folder), "--accept-changes", "--format", "md", "--out", str(out)]
    assert main(argv) in (0, 2)


def test_a_report_through_a_link_into_the_folder_is_refused(sealed, tmp_path, capsys):
    """evidence-outlink28.txt: --out through a link into the folder's games/ wrote the
    report there, and the folder was refused from then on ("games/r.md was added")."""
    from cardgame.cli import main

    folder = copy_of(sealed, tmp_path)
    (tmp_path / "link").symlink_to(folder / "games")
    out = tmp_path / "link" / "r.md"
    assert main(["report", str(folder), "--format", "md", "--out", str(out)]) == 2
    assert "lies in the results folder" in capsys.readouterr().err
    assert not (folder / "games" / "r.md").exists()
