"""A results folder's seal at its edges (hostile pass 18): hostile manifests and folders get
one line, never a traceback; an added file is named before any file is hashed; a resume of
a folder of many files under a low limit of open files works."""

import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest

import sims.folder as folders
from sims.errors import ResultsError
from sims.folder import MANIFEST, check_sealed
from sims.runner import run
from sims.study import from_dict

STUDY = {
    "name": "edges",
    "players": [2],
    "pool": ["planner", "random"],
    "games_per_cell": 80,
    "batch_size": 1,
}  # fmt: skip: a part a game, kept


@pytest.fixture(scope="module")
def sealed(tmp_path_factory):
    folder = tmp_path_factory.mktemp("edges") / "r"
    run(from_dict(STUDY, "test"), workers=1, out=folder, progress=False, keep_parts=True)
    return folder


def _copy(sealed, tmp_path) -> Path:
    import shutil

    folder = tmp_path / "r"
    shutil.copytree(sealed, folder)
    return folder


def test_a_manifest_nested_too_deep_is_one_line(sealed, tmp_path):
    folder = _copy(sealed, tmp_path)
    (folder / MANIFEST).write_text("[" * 200_000 + "]" * 200_000)
    with pytest.raises(ResultsError, match="unreadable manifest"):
        check_sealed(folder)


@pytest.mark.parametrize("state", ["sealed", "open"])
def test_a_mark_of_text_the_comparison_refuses_is_not_this_users(sealed, tmp_path, state):
    folder = _copy(sealed, tmp_path)
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

    folder = _copy(sealed, tmp_path)
    fd = os.open(folder, os.O_RDONLY)
    for _ in range(25):  # 5,000 characters: past PATH_MAX, made one folder at a time
        os.mkdir("d" * 200, dir_fd=fd)
        inner = os.open("d" * 200, os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    os.close(fd)
    with pytest.raises(ResultsError, match="cannot read|was added|changed"):
        check_sealed(folder)


def test_an_added_file_is_named_before_any_file_is_hashed(sealed, tmp_path, monkeypatch):
    folder = _copy(sealed, tmp_path)
    with open(folder / "records.bin", "wb") as file:
        file.truncate(1 << 40)  # a sparse terabyte: hashing it would take an hour
    hashed = []
    monkeypatch.setattr(folders, "file_seal", lambda path: hashed.append(path))
    with pytest.raises(ResultsError, match="records.bin was added since its run ended"):
        check_sealed(folder)
    assert hashed == []


def test_a_resume_of_many_files_under_a_low_limit_of_open_files(sealed, tmp_path):
    """The resume holds a handle on the files it found only while room is left: a folder
    of more files than its limit of open files resumes (pass 18: "Too many open files")."""
    folder = _copy(sealed, tmp_path)
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
