"""A results folder's seal at its edges (hostile pass 18): hostile manifests and folders get
one line, never a traceback; an added file is named before any file is hashed; a resume of
a folder of many files under a low limit of open files works."""

import json
import os
import resource
import subprocess
import sys

import pytest

import sims.folder as folders
from sims.errors import ResultsError
from sims.folder import MANIFEST, check_sealed
from sims.runner import run
from sims.study import from_dict
from tests.sims.sealed import copy_of, sealed_folder, small_study

STUDY = small_study("edges", games_per_cell=80, batch_size=1)  # a part a game, kept


@pytest.fixture(scope="module")
def sealed(tmp_path_factory):
    return sealed_folder(tmp_path_factory, STUDY, keep_parts=True)


def test_a_manifest_nested_too_deep_is_one_line(sealed, tmp_path):
    folder = copy_of(sealed, tmp_path)
    (folder / MANIFEST).write_text("[" * 200_000 + "]" * 200_000)
    with pytest.raises(ResultsError, match="unreadable manifest"):
        check_sealed(folder)


@pytest.mark.parametrize("state", ["sealed", "open"])
def test_a_mark_of_text_the_comparison_refuses_is_not_this_users(sealed, tmp_path, state):
    folder = copy_of(sealed, tmp_path)
    manifest = json.loads((folder / MANIFEST).read_text())
    manifest["seal"]["mac"] = "é"
    if state == "open":
        manifest["seal"] = {"state": "open", "run": "x" * 32, "mac": "é"}
        manifest.pop("files")
    (folder / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(ResultsError, match="not this user's"):
        check_sealed(folder)


def test_a_path_past_the_systems_limits_is_one_line(sealed, tmp_path):
    import os

    folder = copy_of(sealed, tmp_path)
    fd = os.open(folder, os.O_RDONLY)
    for _ in range(25):  # 5,000 characters: past PATH_MAX, made one folder at a time
        os.mkdir("d" * 200, dir_fd=fd)
        inner = os.open("d" * 200, os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    os.close(fd)
    with pytest.raises(ResultsError, match="cannot read|was added|changed|deeper than any run"):
        check_sealed(folder)


def test_an_added_file_is_named_never_hashed(sealed, tmp_path, monkeypatch):
    """An added file may be huge: it is named, and never read (the sealed files, of their
    sealed sizes, are hashed for the rest of the answer: pass 27r's decoy27)."""
    folder = copy_of(sealed, tmp_path)
    with open(folder / "records.bin", "wb") as file:
        file.truncate(1 << 40)  # a sparse terabyte: hashing it would take an hour
    hashed = []
    file_seal = folders.file_seal
    monkeypatch.setattr(
        folders, "file_seal", lambda path, *a: hashed.append(path) or file_seal(path, *a)
    )
    with pytest.raises(ResultsError, match="records.bin was added since its run ended"):
        check_sealed(folder)
    assert hashed and folder / "records.bin" not in hashed


def test_a_huge_file_in_a_sealed_files_place_is_refused_unread(sealed, tmp_path, monkeypatch):
    """A file of a sealed name grown to a sparse terabyte kept a reader's check hashing it
    for an hour before it said "changed". The seal keeps each file's size, under its key:
    a file of another size is changed, known without a byte of it read; a manifest whose
    sizes were taken out or rewritten is changed before any file is hashed."""
    folder = copy_of(sealed, tmp_path)
    table = next(p for p in sorted((folder / "games").rglob("*")) if p.is_file())
    name = table.relative_to(folder).as_posix()
    with open(table, "r+b") as file:
        file.truncate(1 << 40)
    hashed = []
    file_seal = folders.file_seal
    monkeypatch.setattr(
        folders, "file_seal", lambda path, *a: hashed.append(path) or file_seal(path, *a)
    )
    with pytest.raises(ResultsError, match=f"{name} changed since its run ended"):
        check_sealed(folder)
    assert table not in hashed
    hashed.clear()
    manifest = json.loads((folder / MANIFEST).read_text())
    for sizes in ({}, {**manifest["sizes"], name: 1 << 40}):
        (folder / MANIFEST).write_text(json.dumps({**manifest, "sizes": sizes}))
        with pytest.raises(ResultsError, match=f"{MANIFEST} changed since its run ended"):
            check_sealed(folder)
        assert hashed == []


def test_a_resume_of_many_files_under_a_low_limit_of_open_files(sealed, tmp_path):
    """The resume holds a handle on the files it found only while room is left: a folder
    of more files than its limit of open files resumes (pass 18: "Too many open files")."""
    folder = copy_of(sealed, tmp_path)
    files = sum(1 for p in folder.rglob("*") if p.is_file())
    assert files > 200
    limit = 160  # fewer than the files: room for the run's own, not for a handle on each
    script = (
        "import resource, sys\n"
        f"resource.setrlimit(resource.RLIMIT_NOFILE, ({limit}, {limit}))\n"
        "from sims.runner import run\nfrom sims.study import from_dict\n"
        f"study = from_dict({STUDY!r}, 'test')\n"
        f"s = run(study, workers=1, out={str(folder)!r}, progress=False, resume=True,"
        " keep_parts=True)\n"
        "print(s.games_played, s.games_skipped)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["0", "80"]
    check_sealed(folder)
    assert resource.getrlimit(resource.RLIMIT_NOFILE)[0] >= 0


@pytest.mark.parametrize("how", ["replaced", "removed", "added", "replaced, compacted"])
def test_a_resume_seals_no_change_another_writer_made_while_it_played(
    sealed, tmp_path, monkeypatch, how
):
    """Hostile pass 18's resume18.py: another writer renamed a forged table over a sealed
    one or added a file while a resume played, and the resume sealed it. The run seals what
    it wrote and what it found, nothing else: it says what changed, and the folder reads as
    changed since. (A part removed is its batch played again, as ever.)"""
    import sims.runner as runner_module

    folder = copy_of(sealed, tmp_path)
    part = sorted((folder / "seats" / "_parts").iterdir())[0]
    name = part.relative_to(folder).as_posix()
    unseal = runner_module.unseal

    def changed_then_opened(where):
        if how.startswith("replaced"):
            other = part.with_name(".other")
            other.write_bytes(part.read_bytes() + b"\0")
            os.replace(other, part)
        elif how == "removed":
            part.unlink()
        else:
            (folder / "seats" / "planted.parquet").write_bytes(b"forged")
        unseal(where)

    monkeypatch.setattr(runner_module, "unseal", changed_then_opened)
    study = from_dict(STUDY, "test")
    if how == "removed":  # a batch's part gone: the batch is played again, and sealed
        summary = run(study, workers=1, out=folder, progress=False, resume=True, keep_parts=True)
        assert summary.games_played == 1
        check_sealed(folder)
        return
    what = {"replaced": f"{name} changed", "added": "seats/planted.parquet was added"}
    what["replaced, compacted"] = what["replaced"]  # pass 20's resume20.py: merged unread
    with pytest.raises(ResultsError, match=f"{what[how]} while this run wrote the folder"):
        run(study, workers=1, out=folder, progress=False, resume=True,
            keep_parts=how != "replaced, compacted")  # fmt: skip
    with pytest.raises(ResultsError, match=f"{what[how]} since its run ended"):
        check_sealed(folder)


def test_a_run_seals_no_file_another_writer_added_while_it_played(tmp_path, monkeypatch):
    """The same for a run's first play: only what it wrote is sealed."""
    import sims.runner as runner_module

    folder = tmp_path / "r"
    seal = runner_module.seal

    def added_then_sealed(where, *args, **kwargs):
        if where == folder:
            (folder / "games" / "planted.parquet").write_bytes(b"x")
        return seal(where, *args, **kwargs)

    monkeypatch.setattr(runner_module, "seal", added_then_sealed)
    with pytest.raises(ResultsError, match="games/planted.parquet was added while this run"):
        run(from_dict({**STUDY, "games_per_cell": 4}, "test"), workers=1, out=folder,
            progress=False)  # fmt: skip
    with pytest.raises(ResultsError, match="games/planted.parquet was added since its run"):
        check_sealed(folder)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("edges") / "rec"
    study = from_dict({**STUDY, "games_per_cell": 4, "batch_size": 2}, "test")
    run(study, workers=1, out=folder, progress=False, records=True)
    return folder


@pytest.mark.parametrize("how", ["removed", "a folder"])
def test_a_folder_whose_manifest_is_gone_is_refused_not_read_as_loose_records(
    recorded, tmp_path, capsys, how
):
    """Hostile pass 18's nomanifest18.py: with its manifest.json removed (or a folder of
    that name), a results folder's records were read as loose files, unchecked."""
    from cardgame.cli import main

    folder = copy_of(recorded, tmp_path)
    (folder / MANIFEST).unlink()
    if how == "a folder":
        (folder / MANIFEST).mkdir()
    record = next(folder.glob("records/*.jsonl"))
    for argv in (
        ["view", str(folder), "--out", str(tmp_path / "v.html"), "--playouts", "0"],
        ["view", str(folder / "records"), "--out", str(tmp_path / "v.html"), "--playouts", "0"],
        ["replay", str(record)],
    ):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "it is not a results folder: its manifest.json is" in err[0], err


def test_a_report_says_when_a_folders_run_has_not_ended(recorded, tmp_path, capsys):
    from cardgame.cli import main
    from sims.folder import unseal

    folder = copy_of(recorded, tmp_path)
    out = tmp_path / "r.md"
    assert main(["report", str(folder), "--format", "md", "--out", str(out)]) == 0
    assert "not sealed" not in capsys.readouterr().err
    unseal(folder)  # as a run killed while it played leaves it
    assert main(["report", str(folder), "--format", "md", "--out", str(out)]) == 0
    assert "its run has not ended" in capsys.readouterr().err


def test_a_report_is_never_written_into_a_results_folder(recorded, tmp_path, capsys):
    """Pass 18: `cardgame report .` in a results folder wrote report.html there, and the
    folder was refused from then on."""
    from cardgame.cli import main

    folder = copy_of(recorded, tmp_path)
    for out in (folder / "report.html", folder / "records" / "x.html"):
        assert main(["report", str(folder), "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert "lies in the results folder" in err, err
    check_sealed(folder)  # nothing was written there


def test_a_batch_lands_when_its_summary_is_read(tmp_path):
    """Pass 20's ctrlc20.py: a worker that landed a batch's parts whose summary the run never
    read (Ctrl-C) left files the run did not know it wrote, and the folder was refused after
    ("was added while this run wrote the folder"). Such a batch's files are removed, as the
    run's own removal: a resume plays it again."""
    from sims.parts import encode_parts, land_files
    from sims.reading import Reading, Sealed
    from sims.runner import _forget_unreported
    from sims.schema import schema

    folder = tmp_path / "r"
    folder.mkdir()
    with Reading(Sealed(folder, {}), own_writes=True) as reading:
        for batch in ("c0000-g0000000", "c0000-g0000001"):
            tables = {t: schema(t).empty_table() for t in ("seats", "destinations", "games")}
            files = encode_parts(batch, tables, records=[{"seed": 1}])
            land_files(folder, files)
        _forget_unreported(folder, {"c0000-g0000000"})
        left = sorted(p.name for p in folder.rglob("part-*"))
        assert left and all("g0000000" in name for name in left), left
        assert reading.removed and all("g0000001" in n for n in reading.removed)


def test_names_past_the_systems_limits_are_one_line(recorded, tmp_path, capsys):
    """Pass 20's tracebacks20.py: a name of 300 characters given to replay, view, report or
    their --out ended in a traceback."""
    from cardgame.cli import main

    long = tmp_path / ("d" * 300)
    for argv in (
        ["replay", f"{long}.jsonl"],
        ["view", str(long), "--playouts", "0"],
        ["report", str(long)],
        ["report", str(recorded), "--out", str(long / "r.html")],
    ):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "error:" in err[0], err


def test_a_folder_with_games_of_its_own_takes_a_report(recorded, tmp_path, capsys):
    """Pass 20's misc20.py: any folder holding a games/ folder (Debian's /usr/local/games,
    a home folder) was taken for a results folder, and no report could go under it."""
    from cardgame.cli import main

    home = tmp_path / "home"
    (home / "games").mkdir(parents=True)
    (home / "web").mkdir()
    (home / "web" / MANIFEST).write_text("{}")  # a web app's
    for out in (home / "r.md", home / "web" / "r.md"):
        assert main(["report", str(recorded), "--format", "md", "--out", str(out)]) == 0
        assert out.is_file()
    capsys.readouterr()


@pytest.mark.parametrize("forge", [False, True])
def test_a_big_runs_compaction_reads_parts_as_the_run_wrote_them(tmp_path, monkeypatch, forge):
    """Pass 20's forked20.py: a run of 64 batches or more compacts in a forked child, which
    read each part unchecked: forged parts renamed over landed ones were merged and sealed.
    The child now notes each batch's digests before it reads it."""
    import sims.compaction as compaction_module

    folder = tmp_path / "r"
    landed = compaction_module.ForkedCompaction.batch_landed
    forged = []

    def forged_then_landed(self, batch_id, written=None):
        part = folder / "seats" / "_parts" / f"part-{batch_id}.arrows.lz4"
        if forge and not forged and part.is_file():
            other = part.with_name(".forged")
            other.write_bytes(part.read_bytes())  # the same bytes, another file: not the run's
            os.replace(other, part)
            with part.open("ab") as file:
                file.write(b"\0")
            forged.append(part.relative_to(folder).as_posix())
        return landed(self, batch_id, written)

    monkeypatch.setattr(compaction_module.ForkedCompaction, "batch_landed", forged_then_landed)
    study = from_dict(STUDY, "test")
    if not forge:
        run(study, workers=1, out=folder, progress=False)
        check_sealed(folder)
        assert not list(folder.glob("*/_parts/*"))  # compacted, in the child
        return
    with pytest.raises(ResultsError, match="changed while this run wrote the folder"):
        run(study, workers=1, out=folder, progress=False)
    with pytest.raises(ResultsError, match="since its run ended|not sealed"):
        check_sealed(folder)


def test_a_compact_file_put_in_place_of_the_runs_is_refused(tmp_path, monkeypatch):
    """Pass 20's temp20.py: the compaction hashed its temporary file by name just before it
    landed it, so a forged file renamed over it then was sealed as the run's own. The writer
    now hashes the file it made through its own handle, and refuses another in its place."""
    import sims.compaction as compaction_module

    folder = tmp_path / "r"
    land = compaction_module._CompactWriter.land

    def swapped_then_landed(self):
        if self.path.parent.name == "seats":
            forged = self.temp.with_name(".forged")
            forged.write_bytes(self.temp.read_bytes())
            os.replace(forged, self.temp)
        return land(self)

    monkeypatch.setattr(compaction_module._CompactWriter, "land", swapped_then_landed)
    refused = r"seats/compact\.parquet:? (changed|was added) while this run wrote"
    with pytest.raises(ResultsError, match=refused):
        run(from_dict({**STUDY, "games_per_cell": 4}, "test"), workers=1, out=folder,
            progress=False)  # fmt: skip
    with pytest.raises(ResultsError, match=r"seats/compact\.parquet was added since"):
        check_sealed(folder)  # the forgery is not sealed as the run's


def test_a_compact_file_written_into_before_it_lands_is_refused(tmp_path, monkeypatch):
    """Pass 22's inplace22.py: another writer opened the compaction's temporary file by name
    and wrote a forged table into it before it landed; the writer read it back to hash it,
    and sealed the forgery as its own. The digest is now of the bytes as they were written."""
    import sims.compaction as compaction_module

    folder = tmp_path / "r"
    land = compaction_module._CompactWriter.land

    def written_into_then_landed(self):
        if self.path.parent.name == "seats":
            with open(self.temp, "r+b") as file:  # the same file, written in place
                file.seek(8)
                file.write(b"\0\0\0\0")
        return land(self)

    monkeypatch.setattr(compaction_module._CompactWriter, "land", written_into_then_landed)
    with pytest.raises(ResultsError, match=r"seats/compact\.parquet changed while this run"):
        run(from_dict({**STUDY, "games_per_cell": 4}, "test"), workers=1, out=folder,
            progress=False)  # fmt: skip
    with pytest.raises(ResultsError, match=r"seats/compact\.parquet changed since"):
        check_sealed(folder)
