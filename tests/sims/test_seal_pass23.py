"""The results seal against hostile pass 23's writer (benchmarks/hostile_pass23r): a seal
made to fail leaves no folder open to a forgery, a deep tree and a named pipe are one line
and never a hang, an added file is never hashed by a run's seal, a folder stripped of its
manifest and games is no loose records, and empty folders named like parts or tables count
as neither."""

import json
import os
import threading
from pathlib import Path

import pytest

import sims.folder as folders
from sims.errors import ResultsError, ResultsWriteError
from sims.files import write_atomic
from sims.folder import MANIFEST, check_sealed, done_batches
from sims.parts import part_files, tables_besides_games
from sims.reading import read_once
from sims.runner import run
from sims.study import from_dict
from tests.sims.sealed import copy_of, sealed_folder, small_study

STUDY = small_study("pass23")


@pytest.fixture(scope="module")
def sealed(tmp_path_factory):
    return sealed_folder(tmp_path_factory, STUDY, records=True, keep_parts=True)


def test_a_run_whose_seal_fails_leaves_its_folder_refused_not_open(tmp_path, monkeypatch):
    """sealfail23.py: another writer made the run's seal fail, so its folder kept the mark of
    a run not ended; the writer forged a table, and the resume the run asked for sealed the
    forgery. A run whose seal fails ends its mark all the same: the folder is refused until
    a resume accepts the changes."""
    rewrite = folders._rewrite_manifest

    def refused_when_sealing(folder, manifest):
        if folders.DIGESTS in manifest:
            raise ResultsWriteError(f"{folder / MANIFEST}: cannot write (Is a directory)")
        rewrite(folder, manifest)

    monkeypatch.setattr(folders, "_rewrite_manifest", refused_when_sealing)
    folder = tmp_path / "r"
    study = from_dict(STUDY, "test")
    with pytest.raises(ResultsWriteError, match="cannot write"):
        run(study, workers=1, out=folder, progress=False)
    monkeypatch.undo()
    assert json.loads((folder / MANIFEST).read_text())["seal"]["state"] == "open"
    ended = "its run ended without sealing it"
    with pytest.raises(ResultsError, match=ended):
        check_sealed(folder)
    with pytest.raises(ResultsError, match=ended):
        run(study, workers=1, out=folder, progress=False, resume=True)
    run(study, workers=1, out=folder, progress=False, resume=True, accept_changes=True)
    check_sealed(folder)  # sealed anew by the resume that accepted what it found


def test_a_manifest_written_through_a_name_another_writer_took_first(tmp_path):
    """sealfail23.py's way in: a folder made at the manifest's fixed temporary name made
    every write of it fail. Temporary names are random now, made new."""
    target = tmp_path / MANIFEST
    (tmp_path / f".{MANIFEST}.tmp").mkdir()
    write_atomic(target, b"{}\n")
    assert target.read_bytes() == b"{}\n"


def test_a_tree_deeper_than_any_run_writes_is_one_line(sealed, tmp_path, capsys):
    """deep23.py: a tree 1,100 folders deep made every reader raise RecursionError."""
    from cardgame.cli import main

    folder = copy_of(sealed, tmp_path)
    made = [folder / "records"]
    for _ in range(1_100):  # one at a time: os.makedirs and shutil.rmtree recurse too
        made.append(made[-1] / "d")
        made[-1].mkdir()
    try:
        with pytest.raises(ResultsError, match="deeper than any run writes"):
            check_sealed(folder)
        out = tmp_path / "r.md"
        assert main(["report", str(folder), "--format", "md", "--out", str(out)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "deeper than any run writes" in err[0], err
    finally:
        for where in reversed(made[1:]):
            where.rmdir()


def test_a_named_pipe_in_a_files_place_is_refused_not_waited_on(tmp_path):
    """fifo23.py: a named pipe put in a sealed file's place after the check made the report
    wait in open() for good. A file is opened without waiting, and refused unless regular.
    (A writer that opens the pipe once a reader does stands in for the wait: what was read
    from it came back as the file's bytes.)"""
    pipe = tmp_path / "compact.parquet"
    os.mkfifo(pipe)
    writer = threading.Thread(target=lambda: os.close(os.open(pipe, os.O_WRONLY)), daemon=True)
    writer.start()
    try:
        with pytest.raises(ResultsError, match="not a regular file"):
            read_once(pipe)
    finally:
        release = os.open(pipe, os.O_RDONLY | os.O_NONBLOCK)  # the writer's open returns
        writer.join()
        os.close(release)


def test_a_runs_seal_names_an_added_file_without_hashing_it(tmp_path, monkeypatch):
    """sparse23.py: an 8 TiB sparse file added while a run played kept its seal hashing."""
    import sims.runner as runner_module

    folder = tmp_path / "r"
    seal = runner_module.seal
    hashed: list[str] = []
    file_seal = folders.file_seal

    def counted(path):
        hashed.append(Path(path).name)
        return file_seal(path)

    def added_then_sealed(where, *args, **kwargs):
        if where == folder:
            (folder / "games" / "huge.parquet").write_bytes(b"x")
        return seal(where, *args, **kwargs)

    monkeypatch.setattr(runner_module, "seal", added_then_sealed)
    monkeypatch.setattr(folders, "file_seal", counted)
    with pytest.raises(ResultsError, match="games/huge.parquet was added while this run"):
        run(from_dict(STUDY, "test"), workers=1, out=folder, progress=False)
    assert hashed and "huge.parquet" not in hashed


def test_a_folder_stripped_of_manifest_and_games_is_no_sealed_folder(sealed, tmp_path, capsys):
    """loose23.py: with manifest.json and games/ moved out, another run's records put in
    were shown by view and replay, exit 0, no warning. With a table's folder left it is
    refused; with its records alone they are read as loose files, saying they are not
    sealed."""
    import shutil

    from cardgame.cli import main

    folder = copy_of(sealed, tmp_path)
    (folder / MANIFEST).unlink()
    shutil.rmtree(folder / "games")
    record = next(folder.glob("records/*.jsonl"))
    out = str(tmp_path / "v.html")
    views = [["view", str(folder), "--out", out, "--playouts", "0"]]
    views.append(["view", str(record), "--out", out, "--playouts", "0"])
    for argv in (*views, ["replay", str(record)]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "it is not a results folder" in err[0], err
    for table in [p for p in folder.iterdir() if p.is_dir() and p.name != "records"]:
        shutil.rmtree(table)
    for argv in (*views, ["replay", str(record)]):
        assert main(argv) == 0, argv
        err = capsys.readouterr().err
        assert "its records are loose files, not sealed by a run" in err, err


def test_empty_folders_named_like_parts_or_tables_count_as_neither(sealed, tmp_path):
    """dirparts23.py: empty folders named like parts made a resume skip their batches, and
    an empty quality/ folder made every batch count as one that wrote quality rows."""
    folder = copy_of(sealed, tmp_path)
    done = done_batches(folder)
    fake = "c0000-g0000099"
    for table in ("games", "seats", "destinations"):
        (folder / table / "_parts" / f"part-{fake}.arrows.lz4").mkdir(parents=True)
    (folder / "quality").mkdir()
    assert fake not in part_files(folder / "games")
    assert "quality" not in tables_besides_games(folder)
    assert done_batches(folder) == done


def test_an_empty_table_folder_fails_no_compaction(tmp_path):
    """dirparts23.py quality: an empty quality/ folder added to a stopped --keep-parts
    folder made the resume that compacts fail ("quality/_parts/...: gone while the folder
    was compacted"), every time."""
    folder = tmp_path / "r"
    study = from_dict({**STUDY, "games_per_cell": 8}, "test")
    run(study, workers=1, out=folder, progress=False, keep_parts=True)
    (folder / "quality").mkdir()
    run(study, workers=1, out=folder, progress=False, resume=True)
    assert (folder / "games" / "compact.parquet").is_file()
    check_sealed(folder)


def test_replay_warns_of_a_folder_whose_run_has_not_ended(sealed, tmp_path, capsys):
    """pass 23's note: view and report warned of an open folder, replay did not."""
    from cardgame.cli import main

    folder = copy_of(sealed, tmp_path)
    folders.unseal(folder)  # as a run killed while it played leaves it
    record = next(folder.glob("records/*.jsonl"))
    assert main(["replay", str(record)]) == 0
    assert "its run has not ended" in capsys.readouterr().err
