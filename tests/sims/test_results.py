"""The results folder: one schema per table, compact files of a finished run, an atomic
manifest with a fingerprint, and one-line errors for an output path that cannot take
results."""

import json
import os
import shutil

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

import sims.batch as batch_module
from cardgame.cli import main
from sims.compaction import COMPACT, compact, tidy_compaction
from sims.errors import ResultsError
from sims.folder import MANIFEST, done_batches, unseal
from sims.parts import batch_of, encode_part, part_files, read_part, write_batch
from sims.results import load_results, table_chunks
from sims.rows import TableRows
from sims.runner import run
from sims.schema import TABLES, schema, wide_schema
from sims.study import from_dict


def _changed(folder, **options):
    """``load_results`` of a folder a test changed by hand to reach the reader's own checks
    (the seal refuses any such change first: tests/sims/test_sandbox.py)."""
    return load_results(folder, accept_changes=True, **options)


BAD_INIT = "tests.sims.broken:BadInit"
LINEUPS = [
    ["planner", "random"],
    ["planner", "random", "thief", "big_city"],
    ["planner", BAD_INIT],
]


def mixed_study(**changes):
    """2- and 4-player cells (one round and two) and a cell whose every game fails."""
    data = {"name": "mixed", "seed": 3, "players": [2, 4], "lineups": LINEUPS}
    return from_dict({**data, "games_per_cell": 2, "batch_size": 24, **changes}, "test")


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    folder = tmp_path_factory.mktemp("results") / "mixed"
    run(mixed_study(), workers=1, out=folder, progress=False, keep_parts=True)
    return folder


@pytest.fixture(scope="module")
def compacted(tmp_path_factory, mixed):
    """The same results as a finished run leaves them: one file per table."""
    folder = tmp_path_factory.mktemp("results") / "compacted"
    run(mixed_study(), workers=1, out=folder, progress=False)
    return folder


def parts_of(folder, table):
    return list(part_files(folder / table).values())


def as_parquet_part(part, rows):
    """Replace a part with a Parquet one where versions 1 to 3 wrote it."""
    where = part.parent.parent
    pq.write_table(rows, where / part.name.replace(".arrows.lz4", ".parquet"))
    part.unlink()


def test_every_part_of_a_table_has_the_tables_schema_even_empty_ones(mixed):
    for table in TABLES:
        parts = parts_of(mixed, table)
        assert len(parts) == 3 and all(p.parent.name == "_parts" for p in parts)
        for part in parts:
            assert read_part(part).schema.equals(schema(table)), part
    games = {p.name: read_part(p).column("failed").to_pylist() for p in parts_of(mixed, "games")}
    (failed_only,) = [name for name, failed in games.items() if all(failed)]
    empty = read_part(mixed / "seats" / "_parts" / failed_only)
    assert empty.num_rows == 0 and empty.schema.names == schema("seats").names


def table_read_whole(folder, table, kept_parts):
    """A table folder as pyarrow reads it: a finished run's compact files, or the parts a
    run kept (LZ4-compressed Arrow IPC streams, in the table's ``_parts`` folder)."""
    if kept_parts:
        return pa.concat_tables(read_part(p) for p in parts_of(folder, table))
    return ds.dataset(folder / table, format="parquet").to_table()


@pytest.mark.parametrize("folder", ["mixed", "compacted"])
def test_each_table_folder_reads_whole_with_pandas_and_pyarrow(request, folder):
    mixed = request.getfixturevalue(folder)
    kept_parts = folder == "mixed"
    seats = table_read_whole(mixed, "seats", kept_parts).to_pandas()
    assert str(seats["round2_points"].dtype) == "Int16"  # nullable int, not float
    assert seats["round2_points"].isna().any() and seats["round2_points"].notna().any()
    assert str(seats["strategy"].dtype) == "category" and str(seats["rank"].dtype) == "int8"
    destinations = table_read_whole(mixed, "destinations", kept_parts).to_pandas()
    assert str(destinations["reached_round"].dtype) == "Int8"
    games = table_read_whole(mixed, "games", kept_parts).to_pandas()
    assert games["failed"].sum() == 2 and len(games) == 2 + 24 + 2
    for table in TABLES:
        whole = table_read_whole(mixed, table, kept_parts)
        assert whole.schema.names == schema(table).names
        if not kept_parts:
            plain = pd.read_parquet(mixed / table)
            pd.testing.assert_frame_equal(plain, whole.to_pandas())
    results = load_results(mixed)  # the wide types, whatever the files hold
    assert str(results.seats["round2_points"].dtype) == "Int64"
    assert results.seats["rank"].dtype == np.int64 and results.seats["strategy"].dtype != "category"
    assert len(results.seats) == 2 * 2 + 24 * 4


def test_each_table_folder_reads_whole_with_duckdb(compacted):
    duckdb = pytest.importorskip("duckdb")
    for table in TABLES:
        query = f"select count(*) from read_parquet('{compacted}/{table}/*.parquet')"
        assert duckdb.sql(query).fetchall()[0][0] == len(pd.read_parquet(compacted / table))


def test_pandas_skips_the_parts_of_a_table_being_compacted(tmp_path, compacted):
    """A table folder that holds parts beside its compact files (a run still playing, or
    one stopped) reads as its compact files: the parts' folder is skipped."""
    folder = tmp_path / "r"
    shutil.copytree(compacted, folder)
    (folder / "games" / "_parts").mkdir()
    (folder / "games" / "_parts" / "part-x.arrows.lz4").write_bytes(
        encode_part(
            pd.read_parquet(compacted / "games").pipe(pa.Table.from_pandas, preserve_index=False)
        )
    )
    assert len(pd.read_parquet(folder / "games")) == len(pd.read_parquet(compacted / "games"))


def test_the_rows_of_a_game_match_the_schemas_exactly():
    from cardgame import Rules
    from sims.match import GameSpec, play_game
    from sims.strategy import spec

    seats = tuple(spec(n) for n in ("planner", "thief", "random", "big_city"))
    outcome = play_game(GameSpec("s", "c", "base", Rules(), 4, seats, 0, 1), None)
    assert list(outcome.game) == schema("games").names
    assert list(outcome.seats[0]) == schema("seats").names
    assert list(outcome.destinations[0]) == schema("destinations").names


def test_a_value_that_does_not_fit_is_one_clear_results_error(tmp_path, compacted):
    row = pd.read_parquet(compacted / "seats").iloc[0].to_dict()
    row = {k: (None if pd.isna(v) else v) for k, v in row.items()}
    row["score"] = 10**20
    with pytest.raises(ResultsError, match="a seats row does not fit the results schema"):
        write_batch(tmp_path, "x", {"seats": [row]})
    assert not (tmp_path / "games").exists()  # nothing half written


def test_the_manifest_is_written_atomically_with_a_fingerprint(mixed):
    manifest = json.loads((mixed / MANIFEST).read_text())
    assert set(manifest["fingerprint"]) == {"card_data", "rules", "package", "source"}
    assert not [p for p in mixed.iterdir() if p.name.endswith(".tmp")]


def test_a_run_that_fails_before_its_first_batch_leaves_no_folder(tmp_path, monkeypatch):
    def broken(*args):  # the parent fails on the first batch it gets back
        raise RuntimeError("cannot write")

    study = mixed_study(lineups=[["planner", "random"]], players=[2])
    monkeypatch.setattr(batch_module, "batch_tables", broken)
    with pytest.raises(RuntimeError):
        run(study, workers=1, out=tmp_path / "r", progress=False)
    assert not (tmp_path / "r").exists()
    monkeypatch.undo()
    run(study, workers=1, out=tmp_path / "r", progress=False)  # a plain rerun just works
    assert len(load_results(tmp_path / "r").games) == 2


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("card_data", "0" * 16, "the card data \\(cardgame/data\\) changed"),
        ("rules", "0" * 16, "the rules \\(defaults or the study's variants\\) changed"),
        ("source", "0" * 16, "the source code of cardgame/ or sims/ changed"),
        ("package", "0.0.1", "the package version changed \\(0.0.1 -> "),
        (None, None, "the simulator changed \\(these results predate fingerprints\\)"),
    ],
)
def test_resume_refuses_results_made_with_other_data_rules_or_code(tmp_path, key, value, message):
    study = mixed_study(lineups=[["planner", "random"]], players=[2], batch_size=1)
    folder = tmp_path / "r"
    run(study, workers=1, out=folder, progress=False, keep_parts=True)
    manifest = json.loads((folder / MANIFEST).read_text())
    if key is None:
        del manifest["fingerprint"]
    else:
        manifest["fingerprint"][key] = value
    (folder / MANIFEST).write_text(json.dumps(manifest))
    os.remove(parts_of(folder, "games")[0])
    with pytest.raises(ResultsError, match=f"cannot resume: {message}"):
        run(study, workers=1, out=folder, progress=False, resume=True)


def test_resume_with_the_same_fingerprint_goes_on(tmp_path):
    study = mixed_study(lineups=[["planner", "random"]], players=[2], batch_size=1)
    folder = tmp_path / "r"
    run(study, workers=1, out=folder, progress=False, keep_parts=True)
    os.remove(parts_of(folder, "games")[0])
    summary = run(study, workers=1, out=folder, progress=False, resume=True, accept_changes=True)
    assert summary.games_played == 1 and summary.games_skipped == 1


def simulate_out(tmp_path, out):
    study = tmp_path / "s.toml"
    study.write_text('pool = ["planner", "random"]\nplayers = [2]\ngames_per_cell = 2\n')
    return main(["simulate", str(study), "--out", str(out), "--no-progress", "--workers", "1"])


@pytest.mark.parametrize(
    ("where", "message"),
    [
        ("file", "is a file, not a results folder"),
        ("under-file", "is a file, not a folder"),
        ("/proc", "cannot write results there"),
        ("/proc/results", "cannot write results there"),
        # refused before any game, not when the first batch lands (names to be made)
        ("long", "a name in it is 300 bytes long;"),
        ("nul", "a folder's name cannot hold a NUL character"),
    ],
)
def test_an_output_path_that_cannot_take_results_is_one_line_exit_2(
    tmp_path, capsys, where, message
):
    (tmp_path / "file").write_text("x")
    out = {
        "file": tmp_path / "file",
        "under-file": tmp_path / "file" / "r",
        "long": tmp_path / "new" / ("y" * 300) / "r",
        "nul": tmp_path / "a\0b",
    }.get(where, where)
    assert simulate_out(tmp_path, out) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert message in err and err.count("\n") == 1, err  # one line: no header before it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "s.toml"]  # nothing made


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write to any folder")
def test_an_unwritable_output_folder_is_one_line_exit_2(tmp_path, capsys):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        assert simulate_out(tmp_path, locked / "r") == 2
    finally:
        locked.chmod(0o755)
    assert "cannot write results there" in capsys.readouterr().err


def test_old_parts_with_a_null_column_still_load(tmp_path, mixed):
    folder = tmp_path / "old"
    run(
        mixed_study(lineups=[["planner", "random"]], players=[2]),
        workers=1,
        out=folder,
        progress=False,
        keep_parts=True,
    )
    part = parts_of(folder, "seats")[0]
    legacy = read_part(part).to_pylist()
    as_parquet_part(part, pa.Table.from_pylist(legacy))  # round2_points typed null
    assert _changed(folder).seats["round2_points"].isna().all()


def test_points_beyond_int64_stop_the_run_with_one_line_and_leave_no_folder(tmp_path, monkeypatch):
    real = batch_module.batch_tables

    def huge(batch_id, tables):  # as if a game had scored 10**20 (the parent checks rows)
        rows = tables["seats"].rows()
        rows[0]["score"] = 10**20
        tables["seats"] = TableRows("seats")
        tables["seats"].extend(rows)
        return real(batch_id, tables)

    study = mixed_study(lineups=[["planner", "random"]], players=[2])
    monkeypatch.setattr(batch_module, "batch_tables", huge)
    with pytest.raises(ResultsError, match="seats row does not fit the results schema"):
        run(study, workers=1, out=tmp_path / "r", progress=False)
    assert not (tmp_path / "r").exists()


def test_resume_of_a_run_stopped_before_its_first_batch_starts_afresh(tmp_path):
    study = mixed_study(lineups=[["planner", "random"]], players=[2])
    summary = run(study, workers=1, out=tmp_path / "never", progress=False, resume=True)
    assert summary.games_played == 2 and summary.games_skipped == 0


def test_a_part_missing_a_column_or_a_manifest_without_a_study_is_one_line(tmp_path):
    folder = tmp_path / "r"
    run(
        mixed_study(lineups=[["planner", "random"]], players=[2]),
        workers=1,
        out=folder,
        progress=False,
        keep_parts=True,
    )
    part = parts_of(folder, "seats")[0]
    part.write_bytes(encode_part(read_part(part).drop_columns(["score"])))
    with pytest.raises(ResultsError, match="not a seats part: no column score"):
        _changed(folder)
    manifest = json.loads((folder / MANIFEST).read_text())
    del manifest["study"]
    (folder / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(ResultsError, match="the manifest names no study"):
        _changed(folder)


def test_a_game_that_cannot_even_be_set_up_is_still_a_row():
    from cardgame import Rules
    from sims.match import GameSpec, crashed_game
    from sims.strategy import spec

    broken = GameSpec("s", "c", "base", Rules(), 7, (spec("planner"),) * 7, 0, 1)  # 7 players
    row = crashed_game(broken, RuntimeError("x")).game
    assert row["failed"] and row["turns"] == 0 and list(row) == schema("games").names


def test_one_pass_and_part_by_part_reads_give_the_same_frames(mixed):
    from sims.results import _read_one_by_one, _read_whole, _sorted

    for table in TABLES:
        parts = parts_of(mixed, table)
        target = schema(table)
        whole = _sorted(_read_whole(target, parts).to_pandas()).reset_index(drop=True)
        one_by_one = _read_one_by_one(table, target, parts).to_pandas()
        one_by_one = _sorted(one_by_one).reset_index(drop=True)
        pd.testing.assert_frame_equal(whole, one_by_one, check_exact=True)


def test_rows_are_sorted_as_pandas_stable_sort_sorts_them_ties_in_read_order():
    from sims.results import _sorted

    rng = np.random.default_rng(5)
    n = 5000
    frame = pd.DataFrame(
        {
            "cell": pd.array(rng.choice(["b/x", "a/y", "a/x", "é/z", "B/q"], n), dtype="str"),
            "game_index": rng.integers(0, 30, n),
            "seat": rng.integers(0, 4, n),
            "row": np.arange(n),  # ties keep this order
        }
    )
    expected = frame.sort_values(["cell", "game_index", "seat"], kind="stable")
    assert _sorted(frame).index.tolist() == expected.index.tolist()
    wide = frame.assign(game_index=frame["game_index"] * 2**40, seat=frame["seat"] * 2**40)
    expected = wide.sort_values(["cell", "game_index", "seat"], kind="stable")
    assert _sorted(wide).index.tolist() == expected.index.tolist()  # numpy's lexsort


def test_rows_of_a_batch_whose_games_part_is_missing_are_left_out(tmp_path):
    folder = tmp_path / "r"
    study = mixed_study(
        lineups=[["planner", "random"]], players=[2], games_per_cell=6, batch_size=2
    )
    run(study, workers=1, out=folder, progress=False, keep_parts=True)
    whole = _changed(folder)
    lost = parts_of(folder, "games")[1]
    lost_rows = read_part(lost).select(["cell", "game_index"]).to_pydict()
    gone = set(zip(lost_rows["cell"], lost_rows["game_index"], strict=True))
    lost.unlink()
    results = _changed(folder)
    for name in ("seats", "destinations"):
        before, after = getattr(whole, name), getattr(results, name)
        keys = zip(before["cell"], before["game_index"], strict=True)
        kept = before[[key not in gone for key in keys]].reset_index(drop=True)
        pd.testing.assert_frame_equal(after, kept, check_exact=True)
        assert len(after) < len(before)


def test_a_finished_run_leaves_one_file_per_table_with_the_same_rows(mixed, compacted):
    for table in TABLES:
        assert [p.name for p in (compacted / table).iterdir()] == [COMPACT]
        found = pq.read_schema(compacted / table / COMPACT)
        assert found.remove_metadata().equals(schema(table).remove_metadata())
    assert done_batches(compacted) == done_batches(mixed) and len(done_batches(mixed)) == 3
    before, after = load_results(mixed), load_results(compacted)
    for table in TABLES:
        pd.testing.assert_frame_equal(getattr(before, table), getattr(after, table))
        # the file holds the rows in load order: plain readers see what load_results gives
        plain = pd.read_parquet(compacted / table).astype({"cell": str})
        keys = ["cell", "game_index"]
        expected = getattr(after, table)[keys].astype({"cell": str})
        pd.testing.assert_frame_equal(plain[keys].astype({"game_index": "int64"}), expected)


def test_compaction_is_the_same_bytes_whatever_the_order_parts_landed(tmp_path, mixed):
    one, two = tmp_path / "one", tmp_path / "two"
    shutil.copytree(mixed, one)
    run(mixed_study(), workers=2, out=two, progress=False)
    compact(one)
    for table in TABLES:
        assert (one / table / COMPACT).read_bytes() == (two / table / COMPACT).read_bytes()


def test_a_resume_of_a_finished_folder_plays_nothing_and_changes_nothing(tmp_path, compacted):
    folder = tmp_path / "r"
    shutil.copytree(compacted, folder)
    summary = run(mixed_study(), workers=1, out=folder, progress=False, resume=True)
    assert summary.games_played == 0 and summary.games_skipped == summary.games_total
    for table in TABLES:
        assert (folder / table / COMPACT).read_bytes() == (compacted / table / COMPACT).read_bytes()


def test_an_interrupted_compaction_loses_nothing_and_counts_nothing_twice(tmp_path, mixed):
    whole = _changed(mixed)
    # stopped after the seats file landed, before the games one: the parts still hold it all
    early = tmp_path / "early"
    shutil.copytree(mixed, early)
    compact(early)
    for table in ("games", "destinations"):
        (early / table / COMPACT).unlink()
    shutil.copytree(mixed / "games", early / "games", dirs_exist_ok=True)
    shutil.copytree(mixed / "destinations", early / "destinations", dirs_exist_ok=True)
    shutil.copytree(mixed / "seats", early / "seats", dirs_exist_ok=True)
    # stopped after the games file landed, before the parts were removed
    late = tmp_path / "late"
    shutil.copytree(mixed, late)
    compact(late)
    for table in TABLES:
        shutil.copytree(mixed / table, late / table, dirs_exist_ok=True)
    for folder in (early, late):
        results = _changed(folder)
        for table in TABLES:
            pd.testing.assert_frame_equal(getattr(results, table), getattr(whole, table))
        tidy_compaction(folder)
        results = _changed(folder)
        for table in TABLES:
            pd.testing.assert_frame_equal(getattr(results, table), getattr(whole, table))
    assert not (early / "seats" / COMPACT).exists()  # the stale file, gone
    assert [p.name for p in (late / "seats").iterdir()] == [COMPACT]  # the merged parts, gone
    summary = run(mixed_study(), workers=1, out=early, progress=False, resume=True)
    assert summary.games_played == 0
    assert [p.name for p in (early / "seats").iterdir()] == [COMPACT]  # compacted now


def test_a_corrupt_compact_file_is_one_line(tmp_path, compacted):
    folder = tmp_path / "r"
    shutil.copytree(compacted, folder)
    (folder / "games" / COMPACT).write_bytes(b"junk")
    with pytest.raises(ResultsError, match="corrupt Parquet file"):
        _changed(folder)
    with pytest.raises(ResultsError, match=f"games/{COMPACT} changed since its run ended"):
        run(mixed_study(), workers=1, out=folder, progress=False, resume=True)
    with pytest.raises(ResultsError, match="corrupt Parquet file"):
        run(mixed_study(), workers=1, out=folder, progress=False, resume=True, accept_changes=True)


def as_version(source, folder, version):
    """A copy of the results ``source`` whose manifest says schema ``version``."""
    shutil.copytree(source, folder)
    manifest = json.loads((folder / MANIFEST).read_text())
    manifest["schema_version"] = version
    (folder / MANIFEST).write_text(json.dumps(manifest))
    return folder


def assert_old_folder_loads_and_never_resumes(source, folder, version):
    before, after = load_results(source), _changed(folder)  # made old by hand
    for table in TABLES:
        pd.testing.assert_frame_equal(getattr(before, table), getattr(after, table))
    lazy = _changed(folder, destinations=False)  # read a chunk at a time, converted
    pd.testing.assert_frame_equal(lazy.destination_rows(), before.destinations)
    with pytest.raises(
        ResultsError, match=f"cannot resume: written in results schema version {version}"
    ):
        run(mixed_study(), workers=1, out=folder, progress=False, resume=True)


def test_results_of_schema_version_1_still_load_but_never_resume(tmp_path, mixed):
    folder = as_version(mixed, tmp_path / "old", 1)
    for table in TABLES:  # version 1 wrote int64 and plain strings
        old = wide_schema(table)
        for part in parts_of(folder, table):
            as_parquet_part(part, read_part(part).cast(old))
    assert_old_folder_loads_and_never_resumes(mixed, folder, 1)


def test_parquet_parts_of_schema_version_3_still_load_but_never_resume(tmp_path, mixed):
    """Version 3 wrote its parts in Parquet, beside the compact files."""
    folder = as_version(mixed, tmp_path / "v3", 3)
    for table in TABLES:
        for part in parts_of(folder, table):
            as_parquet_part(part, read_part(part))
        assert not list((folder / table / "_parts").iterdir())
    assert len(done_batches(folder)) == 3
    assert_old_folder_loads_and_never_resumes(mixed, folder, 3)


def test_results_of_schema_version_2_still_load_but_never_resume(tmp_path, compacted):
    """Version 2 wrote one compact file per table, as a small run of version 3 does."""
    assert_old_folder_loads_and_never_resumes(
        compacted, as_version(compacted, tmp_path / "v2", 2), 2
    )


def test_a_resume_removes_the_mark_a_killed_dask_client_left(tmp_path, compacted):
    folder = tmp_path / "r"
    shutil.copytree(compacted, folder)
    (folder / ".dask-run-0123").touch()  # its client killed before it could remove it
    run(mixed_study(), workers=1, out=folder, progress=False, resume=True)
    assert not list(folder.glob(".dask-run-*"))


@pytest.mark.parametrize("folder", ["mixed", "compacted"])
def test_chunks_hold_whole_games_and_every_row_once(request, folder, monkeypatch):
    import sims.results as results_module

    folder = request.getfixturevalue(folder)
    monkeypatch.setattr(results_module, "CHUNK_ROWS", 7)  # games cut by chunk ends: carried
    names = wide_schema("destinations").names
    chunks = list(results_module.table_chunks(folder, "destinations", names))
    assert len(chunks) >= 2  # a part is never cut; a compact file is, at a game's end
    games = [
        set(zip(c["cell"].to_pylist(), c["game_index"].to_pylist(), strict=True)) for c in chunks
    ]
    assert sum(len(g) for g in games) == len(set().union(*games))  # no game in two chunks
    eager = load_results(folder)
    lazy = load_results(folder, destinations=False)
    assert lazy._destinations is None
    pd.testing.assert_frame_equal(
        results_module._as_wide("destinations", chunks), eager.destinations
    )
    pd.testing.assert_frame_equal(lazy.destination_rows(), eager.destinations, check_exact=True)
    some = eager.destinations[eager.destinations["destination_id"].isin({3, 24})]
    pd.testing.assert_frame_equal(lazy.destination_rows({3, 24}), some.reset_index(drop=True))
    assert lazy.destination_rows(set()).empty
    pd.testing.assert_frame_equal(lazy.destinations, eager.destinations)


def test_a_lazy_load_leaves_out_what_an_eager_one_does(tmp_path):
    folder = tmp_path / "r"
    study = mixed_study(
        lineups=[["planner", "random"]], players=[2], games_per_cell=6, batch_size=2
    )
    run(study, workers=1, out=folder, progress=False, keep_parts=True)
    parts_of(folder, "games")[1].unlink()
    eager, lazy = _changed(folder), _changed(folder, destinations=False)
    pd.testing.assert_frame_equal(lazy.destinations, eager.destinations, check_exact=True)


def test_a_corrupt_destinations_file_is_one_line_even_when_not_read_yet(tmp_path, compacted):
    folder = tmp_path / "r"
    shutil.copytree(compacted, folder)
    (folder / "destinations" / COMPACT).write_bytes(b"junk")
    with pytest.raises(ResultsError, match="corrupt Parquet file"):
        _changed(folder, destinations=False)


def sharded_study():
    """Cells of several batches, so that a compaction of two batches a file splits cells
    between files only at their edges."""
    return mixed_study(games_per_cell=5, batch_size=2)


@pytest.fixture
def sharded(tmp_path, monkeypatch):
    import sims.compaction as compaction

    """The sharded study as parts, and compacted while it played, four batches a file (two
    cells of three batches)."""
    monkeypatch.setattr(compaction, "SHARD_BATCHES", 4)
    parts, played = tmp_path / "parts", tmp_path / "played"
    run(sharded_study(), workers=2, out=parts, progress=False, keep_parts=True)
    run(sharded_study(), workers=1, out=played, progress=False)
    return parts, played


def compact_names(where):
    return sorted(p.name for p in where.iterdir())


def test_a_big_run_is_compacted_into_several_files_the_same_bytes_either_way(sharded):
    import sims.compaction as compaction

    """Files of whole cells (each at least SHARD_BATCHES batches but the last), written side
    by side; compact() after the run and the compaction during play give the same bytes, and
    load_results the same tables as the parts."""
    parts, played = sharded
    whole = _changed(parts)
    afterwards = parts.parent / "afterwards"
    shutil.copytree(parts, afterwards)
    compact(afterwards)
    cells: dict[str, list[str]] = {}
    for batch in batch_module.plan_batches(sharded_study().plan):
        cells.setdefault(batch.cell.key, []).append(batch.id)
    shards = compaction.shards_of([cells[key] for key in sorted(cells)])
    assert len(shards) > 1 and max(len(cells) for cells in shards) > 1
    expected = [f"compact-{k:05d}.parquet" for k in range(len(shards) - 1)] + [COMPACT]
    for table in TABLES:
        assert compact_names(played / table) == sorted(expected)
        for name in expected:
            mine, theirs = (played / table / name), (afterwards / table / name)
            assert mine.read_bytes() == theirs.read_bytes(), (table, name)
    for folder in (played, afterwards):
        results = _changed(folder)
        for table in TABLES:
            pd.testing.assert_frame_equal(getattr(results, table), getattr(whole, table))
            # the files' names sort in the rows' order: a plain reader sees the load order
            plain = pd.read_parquet(folder / table).astype({"cell": str})
            keys = ["cell", "game_index"]
            expected_keys = getattr(results, table)[keys].astype({"cell": str})
            pd.testing.assert_frame_equal(
                plain[keys].astype({"game_index": "int64"}), expected_keys
            )
        chunks = pa.concat_tables(list(table_chunks(folder, "seats", ["cell", "game_index"])))
        assert chunks.num_rows == len(whole.seats)
        assert done_batches(folder) == done_batches(parts)


def test_a_sharded_compaction_stopped_while_landing_loses_nothing(sharded):
    """Stopped after the other files landed, before the games table's first (the mark):
    the parts hold every row, the landed files are set aside, and a resume compacts."""
    parts, played = sharded
    whole = load_results(parts)
    stopped = parts.parent / "stopped"
    shutil.copytree(played, stopped)
    (stopped / "games" / COMPACT).unlink()
    for table in TABLES:
        shutil.copytree(parts / table, stopped / table, dirs_exist_ok=True)
    unseal(stopped)  # a run stopped while it landed its files never sealed its folder
    results = load_results(stopped)
    for table in TABLES:
        pd.testing.assert_frame_equal(getattr(results, table), getattr(whole, table))
    summary = run(sharded_study(), workers=1, out=stopped, progress=False, resume=True)
    assert summary.games_played == 0
    for table in TABLES:
        assert compact_names(stopped / table) == compact_names(played / table)
        for name in compact_names(played / table):
            assert (stopped / table / name).read_bytes() == (played / table / name).read_bytes()


def test_a_missing_file_of_a_games_compaction_is_one_line(sharded):
    _, played = sharded
    (played / "games" / "compact-00000.parquet").unlink()
    with pytest.raises(ResultsError, match="a compact file of its compaction is missing"):
        _changed(played)
    with pytest.raises(ResultsError, match="compact-00000.parquet was removed since its run"):
        run(sharded_study(), workers=1, out=played, progress=False, resume=True)
    with pytest.raises(ResultsError, match="a compact file of its compaction is missing"):
        run(sharded_study(), workers=1, out=played, progress=False, resume=True,
            accept_changes=True)  # fmt: skip


def test_a_compact_file_is_opened_with_its_first_rows_and_written_even_without_any(tmp_path):
    """A big run's later files are not open (nor their threads alive) before their cells
    are in; a file that gets no rows is still whole, with its schema and footer."""
    from sims.compaction import _CompactWriter

    writer = _CompactWriter(tmp_path / "seats", "seats", ["c0000-g0000000"], 0, 2)
    assert not writer.temp.exists()
    writer.close()
    writer.land()
    found = pq.read_table(tmp_path / "seats" / "compact-00000.parquet")
    assert found.num_rows == 0 and found.schema.names == schema("seats").names
    assert found.schema.metadata[b"ttr_cardgame.shards"] == b"2"


def folder_bytes(folder):
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_a_part_removed_by_hand_is_named_and_a_resume_plays_its_batch_again(tmp_path, mixed):
    """A batch whose games part landed but another of its parts is gone: its rows were
    skipped without a word. Now a load names it, and --resume plays it again."""
    folder = tmp_path / "damaged"
    shutil.copytree(mixed, folder)
    gone = parts_of(folder, "seats")[0]
    gone.unlink()
    with pytest.raises(ResultsError, match=f"the part of batch {batch_of(gone)} is missing"):
        _changed(folder)
    with pytest.raises(ResultsError, match=f"{gone.name} was removed since its run ended"):
        run(mixed_study(), workers=1, out=folder, progress=False, keep_parts=True, resume=True)
    run(mixed_study(), workers=1, out=folder, progress=False, keep_parts=True, resume=True,
        accept_changes=True)  # fmt: skip
    assert folder_bytes(folder) == folder_bytes(mixed)


def resume_anyway(folder):
    """A resume that reads a folder changed by hand (``--accept-changes``)."""
    return run(mixed_study(), workers=1, out=folder, progress=False, resume=True,
               accept_changes=True)  # fmt: skip


def test_a_compact_file_removed_by_hand_is_named_not_an_empty_table(tmp_path, compacted):
    for table in ("destinations", "seats"):
        folder = tmp_path / table
        shutil.copytree(compacted, folder)
        (folder / table / "compact.parquet").unlink()
        for attempt in (
            lambda: _changed(folder),  # noqa: B023 (called at once)
            lambda: resume_anyway(folder),  # noqa: B023
        ):
            with pytest.raises(ResultsError, match=f"{table}: a compact file of its compaction"):
                attempt()


def test_a_run_killed_while_it_wrote_its_manifest_does_not_block_the_next(tmp_path, compacted):
    folder = tmp_path / "killed"
    folder.mkdir()
    (folder / ".manifest.json.tmp").write_text('{"schema_ver')
    run(mixed_study(), workers=1, out=folder, progress=False)
    assert folder_bytes(folder) == folder_bytes(compacted)
    (folder / ".manifest.json.tmp").write_text('{"schema_ver')  # beside a whole manifest
    run(mixed_study(), workers=1, out=folder, progress=False, resume=True)
    assert folder_bytes(folder) == folder_bytes(compacted)


@pytest.mark.parametrize("made_with_records", [True, False])
def test_a_resume_keeps_to_whether_the_run_wrote_game_records(tmp_path, made_with_records):
    """Otherwise a stopped run's folder held records of some batches only, without a word."""
    folder = tmp_path / "r"
    study = mixed_study(lineups=[["planner", "random"]], players=[2])
    run(study, workers=1, out=folder, progress=False, records=made_with_records, keep_parts=True)
    with pytest.raises(ResultsError, match=f"made {'with' if made_with_records else 'without'}"):
        run(study, workers=1, out=folder, progress=False, records=not made_with_records,
            keep_parts=True, resume=True)  # fmt: skip
    summary = run(study, workers=1, out=folder, progress=False, records=made_with_records,
                  keep_parts=True, resume=True)  # fmt: skip
    assert summary.games_played == 0


def test_a_compaction_in_a_process_of_its_own_writes_the_same_bytes(sharded, monkeypatch):
    """A big run compacts in a forked process (its parent then only hands out batches): the
    files are those the parent's own threads write."""
    import sims.compaction as compaction

    _, played = sharded
    forked = played.parent / "forked"
    monkeypatch.setattr(compaction, "FORKED_BATCHES", 1)
    made = []
    monkeypatch.setattr(compaction, "ForkedCompaction", _counted(compaction.ForkedCompaction, made))
    run(sharded_study(), workers=2, out=forked, progress=False)
    assert made, "the run compacted in its own threads"
    for table in TABLES:
        assert compact_names(forked / table) == compact_names(played / table)
        for name in compact_names(played / table):
            assert (forked / table / name).read_bytes() == (played / table / name).read_bytes()


def _counted(kind, made):
    def make(*args):
        made.append(kind(*args))
        return made[-1]

    return make


def test_a_compaction_process_that_dies_fails_the_run_in_one_line_and_loses_nothing(
    sharded, monkeypatch
):
    import sims.compaction as compaction

    _, played = sharded
    folder = played.parent / "died"
    with monkeypatch.context() as patched:
        patched.setattr(compaction, "FORKED_BATCHES", 1)
        patched.setattr(compaction.Compaction, "batch_landed", lambda self, batch: os._exit(3))
        with pytest.raises(ResultsError, match=r"process ended .*\(exit 3\).*--resume"):
            run(sharded_study(), workers=1, out=folder, progress=False)
    assert not list((folder / "games").glob("*.parquet"))  # the parts hold every row
    summary = run(sharded_study(), workers=1, out=folder, progress=False, resume=True)
    assert summary.games_played == 0
    for table in TABLES:
        for name in compact_names(played / table):
            assert (folder / table / name).read_bytes() == (played / table / name).read_bytes()


def test_a_table_swapped_while_it_is_read_is_refused(tmp_path, compacted, monkeypatch):
    """Hostile pass 14's race14.py: another writer swapped a table between the seal's check
    (on the bytes it hashed) and its read (by path): every score +500 read as sealed. The
    folder's state is compared before the check and after the read: refused in one line
    naming the file, whether the swap is undone after the read or not."""
    import sims.results as results_module

    folder = tmp_path / "r"
    shutil.copytree(compacted, folder)
    target = folder / "seats" / COMPACT
    forged = tmp_path / "forged.parquet"
    table = pq.read_table(target)
    pq.write_table(table.set_column(0, table.schema.field(0), table.column(0)), forged)
    read_parts = results_module._read_parts

    def swapped(table_name, parts):
        if table_name == "seats":
            original = target.with_suffix(".kept")
            os.replace(target, original)
            shutil.copyfile(forged, target)
            try:
                return read_parts(table_name, parts)
            finally:
                os.replace(original, target)  # put back: the folder looks as sealed again
        return read_parts(table_name, parts)

    monkeypatch.setattr(results_module, "_read_parts", swapped)
    with pytest.raises(ResultsError, match=r"seats/compact\.parquet changed while it was read"):
        load_results(folder)
    monkeypatch.setattr(results_module, "_read_parts", read_parts)
    assert load_results(folder).games.shape[0] > 0  # untouched since: read as sealed
    load_results(folder, accept_changes=True)


def test_a_table_made_a_link_is_refused(tmp_path, compacted):
    """Hostile pass 15's link15.py: a sealed folder's table made a link to an equal copy
    outside it, whose content it then swapped between the seal's read and the tables' (the
    link's own times never move). No run writes a link: refused before anything is read."""
    folder = tmp_path / "r"
    shutil.copytree(compacted, folder)
    target = folder / "seats" / COMPACT
    outside = tmp_path / "elsewhere.parquet"
    shutil.copyfile(target, outside)
    target.unlink()
    target.symlink_to(outside)
    with pytest.raises(ResultsError, match=r"seats/compact\.parquet is a link"):
        load_results(folder)
    load_results(folder, accept_changes=True)
    linked = tmp_path / "linked"  # a link to the folder itself is followed
    linked.symlink_to(compacted)
    assert load_results(linked).games.shape[0] > 0


class MappedWriter:
    """Another writer of a sealed folder holding a shared writable mapping of one of its
    files (hostile pass 16): it stores the file's own bytes once before anyone reads (the
    one store that moves its time stamps), then flips it to a forgery of the same size
    through the still dirty page, which moves no size, inode or time stamp."""

    def __init__(self, path):
        import mmap

        self.file = path.open("r+b")
        self.map = mmap.mmap(self.file.fileno(), 0, mmap.MAP_SHARED)
        self.map[:] = self.map[:]

    def flip(self, forged: bytes) -> None:
        assert len(forged) == len(self.map)
        self.map[:] = forged

    def close(self):
        self.map.close()
        self.file.close()


def zero_scores(path) -> bytes:
    """``path``'s seats table with every score 0, padded to its size between its data and
    its footer (the footer's offsets count from the file's start: still a valid file)."""
    table = pq.read_table(path)
    index = table.schema.get_field_index("score")
    zeros = pa.array(np.zeros(table.num_rows), type=table.schema.field(index).type)
    sink = pa.BufferOutputStream()
    zeroed = table.set_column(index, table.schema.field(index), zeros)
    pq.write_table(zeroed, sink, compression="zstd", write_statistics=False)
    data = sink.getvalue().to_pybytes()
    footer = int.from_bytes(data[-8:-4], "little") + 8
    padding = path.stat().st_size - len(data)
    assert padding >= 0
    forged = data[:-footer] + b"\0" * padding + data[-footer:]
    assert pq.read_table(pa.BufferReader(forged)).column("score").to_pylist()[0] == 0
    return forged


def _load_flipped_after_check(monkeypatch, folder, target, forged: bytes) -> None:
    """``load_results(folder)`` while ``MappedWriter`` flips ``target`` to ``forged`` right
    after the seal's check."""
    import sims.results as results_module

    writer = MappedWriter(target)
    check_sealed = results_module.check_sealed

    def checked_then_flipped(*args, **kwargs):
        check = check_sealed(*args, **kwargs)
        writer.flip(forged)
        return check

    monkeypatch.setattr(results_module, "check_sealed", checked_then_flipped)
    try:
        load_results(folder)
    finally:
        writer.close()


def test_a_table_flipped_through_a_mapping_after_the_check_is_refused(
    tmp_path, compacted, monkeypatch
):
    """Hostile pass 16's timed16.py: a table flipped through a shared mapping right after
    the seal's check hashed it; no change mark moved, so the report showed the forged
    scores. Each file's bytes are now read once, hashed and parsed: refused, naming the
    file."""
    folder = tmp_path / "r"
    shutil.copytree(compacted, folder)
    target = folder / "seats" / COMPACT
    with pytest.raises(ResultsError, match=r"seats/compact\.parquet changed while it was read"):
        _load_flipped_after_check(monkeypatch, folder, target, zero_scores(target))


def test_a_manifest_flipped_through_a_mapping_after_the_check_is_refused(
    tmp_path, compacted, monkeypatch
):
    """The same for the manifest, read again after the check: its study renamed (same
    length) was the study read."""
    folder = tmp_path / "r"
    shutil.copytree(compacted, folder)
    target = folder / MANIFEST
    text = target.read_bytes()
    assert b'"name": "mixed"' in text
    forged = text.replace(b'"name": "mixed"', b'"name": "forge"')
    with pytest.raises(ResultsError, match=r"manifest\.json changed while it was read"):
        _load_flipped_after_check(monkeypatch, folder, target, forged)


@pytest.mark.parametrize("how", ["mapped", "in place"])
def test_a_resume_never_seals_a_table_flipped_while_it_ran(tmp_path, compacted, monkeypatch, how):
    """Hostile pass 16's resume16.py: the table flipped right after a resume's check was
    sealed again by the resumed run, and every later report read it. A file of the old seal
    the run did not write itself keeps its digest: the run says so and exits with an error,
    and the folder reads as changed since. The same for a plain write in place, which moves
    the file's change time as the run's own files' are (and as a mapping's store does once
    its page was written back): the run holds every file it found, so none of its own can
    take that file's inode number."""
    import sims.runner as runner_module

    folder = tmp_path / "r"
    shutil.copytree(compacted, folder)
    target = folder / "seats" / COMPACT
    forged = zero_scores(target)
    writer = MappedWriter(target)
    unseal = runner_module.unseal

    def flipped_then_opened(where):  # once the resume's checks are done
        if how == "mapped":
            writer.flip(forged)
        else:
            with target.open("r+b") as file:
                file.write(forged)
        unseal(where)

    monkeypatch.setattr(runner_module, "unseal", flipped_then_opened)
    try:
        with pytest.raises(ResultsError, match=r"seats/compact\.parquet changed while this run"):
            run(mixed_study(), workers=1, out=folder, progress=False, resume=True)
    finally:
        writer.close()
    with pytest.raises(ResultsError, match=r"seats/compact\.parquet changed since its run ended"):
        load_results(folder)
    forged_scores = _changed(folder).seats["score"]
    assert (forged_scores == 0).all()  # what --accept-changes reads: the forgery, not sealed
