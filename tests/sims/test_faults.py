"""Faults of the run are not games: a full disk stops the run in one line that says how to
resume, leaving no temporary file; results where an older version wrote such faults as failed
games are refused in one line."""

import errno
import os
import shlex

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import sims.files as files
from cardgame.cli import main
from sims.compaction import COMPACT
from sims.errors import ResultsError
from sims.folder import unseal
from sims.parts import part_files, read_part
from sims.results import load_results
from sims.schema import schema
from tests.sims.faults import result_files

STUDY = 'name = "disk"\nseed = 2\nplayers = [2]\npool = ["planner", "random"]\n'
STUDY += "games_per_cell = 16\nbatch_size = 2\n"


def simulate(study, out, *extra):
    return main(
        ["simulate", str(study), "--workers", "2", "--no-progress", "--out", str(out), *extra]
    )


@pytest.mark.parametrize("part", ["g0000000", "g0000010"])  # the parent's write, a worker's
def test_a_full_disk_is_one_line_with_the_resume_command_and_leaves_no_temporary_file(
    tmp_path, monkeypatch, capsys, part
):
    study = tmp_path / "disk.toml"
    study.write_text(STUDY)
    real = files._write_file

    def fills_up(path, data):  # half the games part of one batch, then no space left
        if path.parent.parent.name == "games" and part in path.name:
            real(path, data[: len(data) // 2])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(path, data)

    monkeypatch.setattr(files, "_write_file", fills_up)
    out = tmp_path / "out"
    assert simulate(study, out) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "Traceback" not in err
    assert err.startswith("cardgame simulate: error: ") and "No space left on device" in err
    assert not [p for p in out.rglob("*") if p.name.startswith(".")]  # no temporary file
    monkeypatch.undo()  # space freed
    command = shlex.split(err.split("; continue with: ", 1)[1])
    assert command[:2] == ["cardgame", "simulate"] and command[-1] == "--resume"
    assert main(command[1:]) == 0
    assert simulate(study, tmp_path / "whole") == 0
    assert result_files(out) == result_files(tmp_path / "whole")
    assert not load_results(out).games["failed"].any()


def test_a_full_disk_while_compacting_is_one_line_and_keeps_every_part(
    tmp_path, monkeypatch, capsys
):
    """The folder is compacted while the games are played: a compact file that cannot be
    written stops the run in one line, with no temporary file, and every part still there
    for the resume, which compacts to a whole run's bytes."""
    study = tmp_path / "disk.toml"
    study.write_text(STUDY)

    class NoSpace(pq.ParquetWriter):  # what the compaction writes with (parts are Arrow IPC)
        def write_table(self, table, *args, **kwargs):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(pq, "ParquetWriter", NoSpace)
    out = tmp_path / "out"
    assert simulate(study, out) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "Traceback" not in err and "No space left on device" in err, err
    assert not [p for p in out.rglob("*") if p.name.startswith(".")]  # no temporary file
    assert not list(out.rglob(COMPACT))
    assert len(part_files(out / "games")) == 8  # every batch's part
    monkeypatch.undo()  # space freed
    assert simulate(study, out, "--resume") == 0
    assert simulate(study, tmp_path / "whole") == 0
    assert result_files(out) == result_files(tmp_path / "whole")


def test_results_with_faults_of_the_run_written_as_failed_games_are_refused(tmp_path, capsys):
    study = tmp_path / "old.toml"
    study.write_text(STUDY)
    assert simulate(study, tmp_path / "old", "--keep-parts") == 0  # as older versions left it
    games = tmp_path / "old" / "games"
    batch, part = list(part_files(games).items())[-1]
    rows = read_part(part).to_pylist()
    part.unlink()  # older versions wrote Parquet parts beside the compact files
    part = games / f"part-{batch}.parquet"
    for row in rows:  # as older versions wrote the batches in flight when the scheduler went
        row.update(
            failed=True,
            failure_seat=-1,
            failure_strategy="",
            failure_error=(
                "worker error: FutureCancelledError: land_batch-4f1 cancelled for reason: "
                "scheduler-connection-lost. Client lost the connection to the scheduler."
            ),
        )
    pq.write_table(pa.Table.from_pylist(rows, schema=schema("games")), part)
    unseal(tmp_path / "old")  # older versions sealed no folder (sims/folder.py)
    with pytest.raises(ResultsError, match="2 game\\(s\\) recorded as failed for a fault of"):
        load_results(tmp_path / "old")
    capsys.readouterr()
    assert main(["report", str(tmp_path / "old"), "--out", str(tmp_path / "r.md")]) == 2
    err = capsys.readouterr().err
    line = err.strip().splitlines()[-1]  # after the report's progress lines, if any
    assert line.startswith("cardgame report: error: ") and "as older versions did" in line, err
    assert "Traceback" not in err
