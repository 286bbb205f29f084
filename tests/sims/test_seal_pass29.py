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
