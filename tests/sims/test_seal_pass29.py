"""The results seal against hostile pass 29's writer (benchmarks/hostile_pass29r): with
changes accepted, a table's place held by a named pipe is one line, never a reader held."""

import os

import pytest

from sims.errors import ResultsError
from sims.results import load_results
from tests.sims.sealed import copy_of, sealed_folder, small_study


@pytest.fixture(scope="module")
def sealed(tmp_path_factory):
    return sealed_folder(tmp_path_factory, small_study("pass29"))


@pytest.mark.timeout(120)  # the old code waited on the pipe for good
def test_a_named_pipe_in_a_tables_place_read_with_changes_accepted_is_one_line(sealed, tmp_path):
    """accept29.py: `report --accept-changes` of a folder whose games table was a named pipe
    opened it by name, and waited for a writer for good."""
    folder = copy_of(sealed, tmp_path)
    table = folder / "games" / "compact.parquet"
    table.unlink()
    os.mkfifo(table)
    with pytest.raises(ResultsError, match="not a regular file"):
        load_results(folder, accept_changes=True)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("how", ["loose", "accepted"])
def test_a_named_pipe_in_a_records_place_is_one_line(tmp_path, capsys, how):
    """Pass 29r, row 1b: a folder stripped to its records/ (read as loose files), one record
    a named pipe: a plain `replay` of it waited for good; and so did one read with changes
    accepted. A record file named alone may still be a pipe (a shell's `<(...)`)."""
    import shutil

    from cardgame.cli import main
    from sims.runner import run
    from sims.study import from_dict

    folder = tmp_path / "r"
    run(from_dict(small_study("pipe29"), "test"), workers=1, out=folder, progress=False,
        records=True)  # fmt: skip
    if how == "loose":
        shutil.copytree(folder / "records", tmp_path / "loose" / "records")
        folder = tmp_path / "loose"
    record = sorted((folder / "records").glob("part-*.jsonl"))[0]
    record.unlink()
    os.mkfifo(record)
    argv = ["replay", str(record), *(["--accept-changes"] if how == "accepted" else [])]
    assert main(argv) == 2
    assert "not a regular file" in capsys.readouterr().err
