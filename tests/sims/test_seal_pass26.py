"""The results seal against hostile pass 26's writer (benchmarks/hostile_pass26r): a run's
seal ends the run it opened whatever another writer left in its manifest's place, so the
run's own open manifest, put back after it ended, reads as a run that ended unsealed; a
record file no seal covers, grown to 8 TiB, is one line."""

import json
import os

import pytest

from sims.errors import ResultsError
from sims.folder import MANIFEST, check_sealed
from sims.runner import run
from sims.study import from_dict
from tests.sims.sealed import small_study

STUDY = small_study("pass26")


@pytest.mark.timeout(120)  # the named pipe: a read of it by path waited for good
@pytest.mark.parametrize("how", ["removed", "another run's", "a named pipe"])
def test_a_runs_seal_ends_its_run_whatever_is_in_its_manifests_place(tmp_path, monkeypatch, how):
    """unseal26.py: the writer copied the run's open manifest while it played and, before
    its seal, removed it, put one naming another run in its place, or a named pipe. The
    seal took the run id from what it found, so it ended none, or the wrong one; the copy
    put back read as a run not ended, and a plain resume sealed a forgery."""
    import sims.runner as runner_module

    folder = tmp_path / "r"
    seal = runner_module.seal
    kept: list[bytes] = []

    def swapped_then_sealed(where, *args, **kwargs):
        if where == folder and not kept:
            manifest = folder / MANIFEST
            kept.append(manifest.read_bytes())
            manifest.unlink()
            if how == "a named pipe":
                os.mkfifo(manifest)
            elif how == "another run's":
                other = json.loads(kept[0])
                other["seal"]["run"] = "0" * 32
                manifest.write_text(json.dumps(other))
        return seal(where, *args, **kwargs)

    monkeypatch.setattr(runner_module, "seal", swapped_then_sealed)
    with pytest.raises(ResultsError, match=MANIFEST):
        run(from_dict(STUDY, "test"), workers=1, out=folder, progress=False)
    assert json.loads(kept[0])["seal"]["state"] == "open"
    (folder / MANIFEST).unlink(missing_ok=True)
    (folder / MANIFEST).write_bytes(kept[0])  # the run's own open manifest, put back
    with pytest.raises(ResultsError, match="its run ended without sealing it"):
        check_sealed(folder)
    with pytest.raises(ResultsError, match="its run ended without sealing it"):
        run(from_dict(STUDY, "test"), workers=1, out=folder, progress=False, resume=True)


@pytest.mark.parametrize("where", ["loose", "open"])
def test_a_record_file_no_seal_covers_grown_to_8_tib_is_one_line(tmp_path, capsys, where):
    """odd26.py: loose records, or those of a folder whose run has not ended, are read
    with a warning; one grown to 8 TiB of holes made `view` and `replay` fail with a
    MemoryError."""
    import shutil

    from cardgame.cli import main
    from sims.folder import unseal

    folder = tmp_path / "r"
    run(from_dict(STUDY, "test"), workers=1, out=folder, progress=False, records=True)
    if where == "loose":  # a run's records/ alone
        shutil.copytree(folder / "records", tmp_path / "loose" / "records")
        folder = tmp_path / "loose"
    else:
        unseal(folder)  # as a run killed while it played leaves it
    record = sorted((folder / "records").iterdir())[0]
    os.truncate(record, 8 << 40)
    for argv in (
        ["view", str(folder), "--out", str(tmp_path / "v.html"), "--playouts", "0"],
        ["replay", str(record)],
    ):
        assert main(argv) == 2, argv
        err = [line for line in capsys.readouterr().err.splitlines() if "error" in line]
        assert len(err) == 1 and "more than the 1 GiB a record file may hold" in err[0], err


def test_a_stopped_runs_seal_postpones_the_watchdog_while_it_hashes(tmp_path, monkeypatch):
    """Pass 26r (read in the code): after a Ctrl-C the CLI's watchdog ends the process 10 s
    on, and a seal hashing an honest big folder (some seconds a GiB) was cut short, leaving
    it refused. The seal tells the flag after each file it hashes; the flag's watchdog then
    waits from there."""
    import signal

    import sims.folder as folders
    from sims.cli import _Signals

    class Flag:
        signal = None
        postponed = 0

        def __bool__(self):
            return False

        def postpone(self):
            self.postponed += 1

    hashed = []
    file_seal = folders.file_seal
    monkeypatch.setattr(folders, "file_seal", lambda path: hashed.append(path) or file_seal(path))
    flag = Flag()
    run(from_dict(STUDY, "test"), workers=1, out=tmp_path / "r", progress=False, stop=flag)
    assert hashed and flag.postponed == len(hashed)

    stop = _Signals()
    stop.postpone()  # no stop yet: nothing to wait for
    assert stop.since == 0.0
    stop.handler(signal.SIGINT, None)
    stop.since = 0.0  # as if the signal came long ago
    stop.postpone()
    assert stop.since > 0.0


def test_a_resume_of_a_folder_whose_run_did_not_end_says_it_seals_it_as_found(tmp_path, capsys):
    """Pass 26r (read in the code): `cardgame report` given no folder resumes the default
    study's folder, and a resume seals the files of a run killed as it finds them: a change
    made to them meanwhile was sealed without a word. A resume now says so."""
    from sims.folder import unseal
    from sims.runner import RESUMED_OPEN_NOTE

    folder = tmp_path / "r"
    run(from_dict(STUDY, "test"), workers=1, out=folder, progress=False)
    run(from_dict(STUDY, "test"), workers=1, out=folder, progress=False, resume=True)
    assert "warning" not in capsys.readouterr().err
    unseal(folder)  # as a run killed while it played leaves it
    run(from_dict(STUDY, "test"), workers=1, out=folder, progress=False, resume=True)
    assert f"warning: {folder}: {RESUMED_OPEN_NOTE}" in capsys.readouterr().err
