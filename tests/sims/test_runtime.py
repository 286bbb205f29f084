"""What a guest's sandbox shows (sims/runtime.py): the libraries the dynamic loader would
load, found without running it, against ldd's own answer; and a view that holds no folder of
the machine's beyond what Python needs."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy
import pytest

from sims import runtime


def _ldd(path: str) -> set[str]:
    text = subprocess.run(["ldd", path], capture_output=True, text=True, check=True).stdout
    found = {m[1] for m in re.finditer(r"=> (/\S+)", text)}
    found |= {m[1] for m in re.finditer(r"^\s*(/\S+) \(", text, re.M)}  # the loader
    return {os.path.realpath(p) for p in found}


@pytest.mark.skipif(shutil.which("ldd") is None, reason="no ldd to compare with")
@pytest.mark.parametrize(
    "elf",
    [
        os.path.realpath(sys.executable),
        next(str(p) for p in Path(numpy.__file__).parent.rglob("_multiarray_umath*.so")),
    ],
    ids=["interpreter", "numpy-core"],
)
def test_the_libraries_found_are_those_the_loader_loads(elf):
    found = {os.path.realpath(p) for p in runtime.shared_libraries([elf])}
    assert _ldd(elf) <= found


def test_the_view_shows_python_not_the_machine():
    view = runtime.python_view()
    targets = [target for _, target in view.binds]
    for folder in ("/usr", "/usr/lib", "/usr/lib/x86_64-linux-gnu", "/usr/share", "/usr/bin"):
        assert folder not in targets
    stdlib = os.path.realpath(os.path.dirname(os.__file__))
    assert os.path.join(stdlib, "test") in view.hidden
    files = view.files()
    assert not [f for f in files if f.startswith(os.path.join(stdlib, "test") + "/")]
    assert not [f for f in files if os.path.basename(os.path.dirname(f)).startswith("config-")]
    assert os.path.realpath(os.path.join(stdlib, "json", "__init__.py")) in map(
        os.path.realpath, files
    )
    assert sum(os.path.getsize(f) for f in files) < 400e6  # read whole at each host's start


def test_the_view_is_a_copy_in_a_tmpfs_shared_while_held_and_stale_copies_go(tmp_path):
    """Every bind's source is in the tmpfs copy (sims/runtime.py: no page to evict, no name
    cached that is not there); another process finds the same copy; a copy no process holds
    (left by a killed one) goes when a copy is next taken. (Never released here: this
    process's hosts, from other tests, play on it.)"""
    root = runtime.tmpfs_folder()
    view = runtime.held_copy(runtime.python_view())
    copy = os.path.commonpath([source for source, _ in view.binds])
    assert copy.startswith(os.path.join(root, runtime.COPY_PREFIX)) and not view.hidden
    assert all(source == copy + target for source, target in view.binds)
    other = subprocess.run(
        [sys.executable, "-c", "from sims import runtime; v = runtime.held_copy("
         "runtime.python_view()); print(v.binds[0][0])"],
        capture_output=True, text=True, check=True, cwd=Path(__file__).parents[2],
    ).stdout  # fmt: skip
    assert other.startswith(copy + "/")
    assert os.path.exists(os.path.join(copy, runtime.DONE))
    stale = Path(root) / f"{runtime.COPY_PREFIX}{os.geteuid()}-000000000000000000000000"
    stale.mkdir(exist_ok=True)
    (stale / runtime.LOCK).touch()
    (tmp_path / "code").mkdir()
    (tmp_path / "code" / "a.py").write_text("x = 1\n")
    small = runtime.held_copy(runtime.View([(str(tmp_path / "code"),) * 2], []))
    assert not stale.exists()
    assert Path(small.binds[0][0], "a.py").read_text() == "x = 1\n"


def test_a_copy_others_can_write_is_refused_in_one_line(tmp_path):
    """/dev/shm is everyone's: a copy under this user's name that another could have planted
    or can change (hostile pass 9's plant.py) is never used. (A copy of its own, not the
    one other tests' sandboxes play on.)"""
    code = tmp_path / "planted"
    (code / "inner").mkdir(parents=True)
    (code / "inner" / "b.py").write_text("y = 2\n")
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys; from sims import runtime; v = runtime.held_copy("
         f"runtime.View([({str(code)!r}, {str(code)!r})], [])); print(v.binds[0][0], "
         "flush=True); sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parents[2],
    )  # fmt: skip
    inner = Path(holder.stdout.readline().strip()) / "inner"
    try:
        inner.chmod(0o777)
        with pytest.raises(runtime.CopyUnavailable, match="not this user's own copy"):
            runtime.held_copy(runtime.View([(str(code), str(code))], []))
    finally:
        inner.chmod(0o755)
        holder.stdin.close()
        holder.wait()


def test_a_forked_worker_letting_go_leaves_its_parents_copy():
    """A pool's worker is forked with the parent's hold on the copy (one lock, shared): when
    it lets go at its exit it must not take that lock for its own and remove the copy that
    the parent's sandboxes play on."""
    view = runtime.held_copy(runtime.python_view())
    copy = os.path.commonpath([source for source, _ in view.binds])
    child = os.fork()
    if child == 0:  # the worker: takes a hold of its own, then lets every hold go
        try:
            runtime.held_copy(runtime.python_view())
            runtime.release_copies()
        finally:
            os._exit(0)
    assert os.waitpid(child, 0)[1] == 0
    assert os.path.exists(os.path.join(copy, runtime.DONE))
