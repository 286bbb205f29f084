"""The results seal against hostile pass 30's writer (benchmarks/hostile_pass30r), its races
made exact: the writer's step is taken right around each look of the reader's own code at
the file, as a writer fast enough would. A file is read from what was opened and checked,
never by name again, and never past the size it was found to have."""

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from sims import folder as folder_module
from sims.errors import ResultsError
from sims.folder import check_sealed
from sims.results import load_results
from tests.sims.sealed import copy_of, sealed_folder, small_study


@pytest.fixture(scope="module")
def sealed(tmp_path_factory):
    return sealed_folder(tmp_path_factory, small_study("pass30"))


def _ours() -> bool:
    """Whether the look was made by the project's own reading code (two frames up: past the
    wrapper)."""
    return sys._getframe(2).f_globals.get("__name__", "").startswith("sims.")


def _around(monkeypatch, name: str, target: Path, before: Callable, after: Callable) -> None:
    """``os.<name>`` with ``before`` and ``after`` steps of a writer around each of the
    reader's own looks at ``target`` (by path, or by a descriptor open on it)."""
    real = getattr(os, name)

    def look(what, *args, **kwargs):
        at = what
        if isinstance(what, int):
            try:
                at = os.readlink(f"/proc/self/fd/{what}")
            except OSError:
                at = None
        aimed = at is not None and os.path.abspath(at) == str(target) and _ours()
        if aimed:
            before()
        found = real(what, *args, **kwargs)
        if aimed:
            after()
        return found

    monkeypatch.setattr(os, name, look)


@pytest.mark.timeout(120, method="thread")  # the old code waited in C on the pipe for good
@pytest.mark.parametrize("table", ["games", "seats"])
def test_a_pipe_flipped_in_after_each_look_never_holds_a_reader(sealed, tmp_path, monkeypatch,
                                                                 table):  # fmt: skip
    """flip30.py: `report --accept-changes` looked at a table's kind by name, then Arrow opened
    it by name again; a named pipe renamed into its place between the two held it for good
    (2 to 3 of 6 tries). A table is now opened once, without waiting, and read from there."""
    folder = copy_of(sealed, tmp_path)
    target = folder / table / "compact.parquet"
    aside, pipe = tmp_path / "aside", tmp_path / "pipe"
    os.mkfifo(pipe)
    expected = load_results(folder).games if table == "games" else None

    def regular() -> None:  # the file back in its place before the reader looks
        if aside.exists():
            os.rename(target, pipe)
            os.rename(aside, target)

    def flipped() -> None:  # and the pipe right after
        os.rename(target, aside)
        os.rename(pipe, target)

    for name in ("stat", "open"):
        _around(monkeypatch, name, target, regular, flipped)
    try:
        found = load_results(folder, accept_changes=True)
    except ResultsError as exc:  # one line is as good: the pipe seen for what it is
        assert "not a regular file" in str(exc), exc
        return
    if expected is not None:
        assert found.games.equals(expected)


def _grown(target: Path, size: int) -> tuple[Callable, Callable]:
    """A writer that grows ``target`` to 8 TiB of holes right after each look and shrinks it
    back (its bytes kept) right before the next."""
    return (lambda: os.truncate(target, size)), (lambda: os.truncate(target, 8 << 40))


@pytest.mark.timeout(120)
def test_a_manifest_grown_after_its_size_was_checked_is_one_line(sealed, tmp_path, monkeypatch):
    """grow30.py: the manifest's size was checked on one look, and `read()` sized its buffer
    by another: grown to 8 TiB between the two, every reader (`report`, `replay`, `--resume`)
    ended in a MemoryError traceback."""
    folder = copy_of(sealed, tmp_path)
    target = folder / "manifest.json"
    before, after = _grown(target, target.stat().st_size)
    _around(monkeypatch, "fstat", target, before, after)
    with pytest.raises(ResultsError, match="changed while it was read"):
        check_sealed(folder)


@pytest.mark.timeout(120)
def test_a_sealed_table_grown_after_its_check_is_one_line(sealed, tmp_path, monkeypatch):
    """growsealed30.py: a sealed table grown in place right after `Reading.read`'s look at its
    size: a MemoryError traceback (3 of 25 reports, no flag). Hashing it never reads past the
    size found either."""
    folder = copy_of(sealed, tmp_path)
    target = folder / "seats" / "compact.parquet"
    before, after = _grown(target, target.stat().st_size)
    _around(monkeypatch, "fstat", target, before, after)
    with pytest.raises(ResultsError, match="seats/compact.parquet changed"):
        load_results(folder)


def test_a_manifest_of_many_small_values_is_refused_before_it_is_parsed(sealed, tmp_path):
    """amp30.py: `[[],[],...]` within the manifest's bound on disk took some twenty times its
    size once parsed (1.67 GB for 50 MiB), before any comparison with the seal."""
    folder = copy_of(sealed, tmp_path)
    manifest = folder / "manifest.json"
    data = json.loads(manifest.read_text())
    data["x"] = [[]] * (folder_module.MAX_MANIFEST_VALUES // 2 + 1)
    manifest.write_text(json.dumps(data, separators=(",", ":")))
    assert manifest.stat().st_size < folder_module.MAX_MANIFEST
    with pytest.raises(ResultsError, match="values, past any a run writes"):
        check_sealed(folder)


def test_an_honest_manifest_is_within_the_bound_on_values(tmp_path_factory):
    """The bound on values against what a run writes, one with most of its manifest its seal
    (a part and a record file a game, kept): over 16 bytes a value, so a manifest at the bound
    on bytes (64 MiB) is still under it."""
    study = small_study("kept30", games_per_cell=12, batch_size=1)
    kept = sealed_folder(tmp_path_factory, study, keep_parts=True, records=True)
    data = (kept / "manifest.json").read_bytes()
    values = data.count(b",") + data.count(b"[") + data.count(b"{")
    assert len(data) / values > 16, len(data) / values
    assert folder_module.MAX_MANIFEST / 16 <= folder_module.MAX_MANIFEST_VALUES


def test_a_manifest_as_big_as_a_big_honest_runs_is_read(sealed, tmp_path):
    """Pass 31r's pad31.py: a run keeping some 125,000 batches as parts (a long study stopped
    by Ctrl-C, or --keep-parts) writes a manifest past 64 MiB, which a bound of 64 MiB made
    unreadable for good. Its size stands in here, as whitespace (the seal covers what the
    manifest parses to)."""
    folder = copy_of(sealed, tmp_path)
    manifest = folder / "manifest.json"
    data = manifest.read_bytes()
    manifest.write_bytes(data[:-1] + b" " * (70 << 20) + data[-1:])
    check_sealed(folder)
    assert load_results(folder).games.equals(load_results(sealed).games)
