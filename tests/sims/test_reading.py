"""A sealed folder read as its seal's check hashed it (sims/reading.py): the bytes a reader
parses are the bytes checked, in every thread of the process, and a resumed run tells its
own files from those it found."""

import mmap
import os
import threading

import pytest

from sims.errors import ResultsError
from sims.reading import Reading, Sealed, checked_bytes, file_seal, note_removed, note_written


@pytest.fixture
def sealed(tmp_path):
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "a.bin").write_bytes(b"sealed bytes")
    return Sealed(tmp_path, {"t/a.bin": file_seal(tmp_path / "t" / "a.bin")})


def _mapped_store(path, data: bytes) -> None:
    with path.open("r+b") as file, mmap.mmap(file.fileno(), 0) as mapping:
        mapping[:] = data


def test_the_bytes_read_are_the_bytes_checked_in_every_thread(sealed, tmp_path):
    target = tmp_path / "t" / "a.bin"
    assert checked_bytes(target) is None  # no reading in force: read by name
    with Reading(sealed):
        assert checked_bytes(target) == b"sealed bytes"
        assert checked_bytes(tmp_path.parent / "elsewhere") is None  # outside the folder
        _mapped_store(target, b"forged bytes")  # same size: no size or inode moves
        found = []

        def read():
            try:
                checked_bytes(target)
            except ResultsError as exc:
                found.append(str(exc))

        thread = threading.Thread(target=read)
        thread.start()
        thread.join()
        assert found and "t/a.bin changed while it was read" in found[0]
    assert checked_bytes(target) is None  # the reading is over


def test_a_file_added_or_put_in_anothers_place_is_refused(sealed, tmp_path):
    with Reading(sealed):
        (tmp_path / "t" / "b.bin").write_bytes(b"new")
        with pytest.raises(ResultsError, match="t/b.bin was added while it was read"):
            checked_bytes(tmp_path / "t" / "b.bin")
        (tmp_path / "t" / "c.bin").write_bytes(b"sealed bytes")
        os.replace(tmp_path / "t" / "c.bin", tmp_path / "t" / "a.bin")
        with pytest.raises(ResultsError, match="t/a.bin changed while it was read"):
            checked_bytes(tmp_path / "t" / "a.bin")


def test_a_resumed_run_reads_its_own_files_and_finds_those_changed_in_place(sealed, tmp_path):
    target = tmp_path / "t" / "a.bin"
    with Reading(sealed, own_writes=True) as reading:
        (tmp_path / "t" / "b.bin").write_bytes(b"the run's")  # not through its writers
        with pytest.raises(ResultsError, match="t/b.bin was added while this run wrote"):
            checked_bytes(tmp_path / "t" / "b.bin")
        note_written(tmp_path / "t" / "b.bin", b"the run's")
        assert checked_bytes(tmp_path / "t" / "b.bin") == b"the run's"
        with target.open("r+b") as file:
            file.write(b"changed")  # in place: the file it found, its change time moved
        with pytest.raises(ResultsError, match="t/a.bin changed while it was read"):
            checked_bytes(target)
        ours = {"t/b.bin": file_seal(tmp_path / "t" / "b.bin")}
        now = {"t/a.bin": file_seal(target), **ours}
        old = {"t/a.bin": sealed.files["t/a.bin"][0], "t/b.bin": ours["t/b.bin"][0]}
        assert reading.accounted(now) == (old, ["t/a.bin changed"])  # sealed as it was found
        os.unlink(target)  # the run's own: written anew in its place
        target.write_bytes(b"the run's own")
        note_written(target, b"the run's own")
        assert checked_bytes(target) == b"the run's own"
        now = {"t/a.bin": file_seal(target), "t/b.bin": file_seal(tmp_path / "t" / "b.bin")}
        digests, problems = reading.accounted(now)
        assert problems == []
        assert digests == {n: now[n][0] for n in now}  # sealed as the run wrote them
        target.write_bytes(b"another's bytes")  # after the run wrote it
        with pytest.raises(ResultsError, match="t/a.bin changed while this run wrote"):
            checked_bytes(target)
        assert reading.accounted({"t/a.bin": file_seal(target), **ours})[1] == ["t/a.bin changed"]
        os.unlink(target)  # by another writer
        assert reading.accounted(ours)[1] == ["t/a.bin was removed"]
        note_removed(target)  # by the run
        assert reading.accounted(ours)[1] == []
    assert not reading.held  # every handle let go


def test_a_file_the_run_removed_and_another_put_back_is_added(sealed, tmp_path):
    """Pass 22's hardlink22.py: a part the resume removed, linked back by another writer,
    was sealed as found."""
    target = tmp_path / "t" / "a.bin"
    keep = tmp_path / "kept"
    os.link(target, keep)
    with Reading(sealed, own_writes=True) as reading:
        os.unlink(target)
        note_removed(target)
        os.link(keep, target)  # the same file, back under its name
        assert reading.accounted({"t/a.bin": file_seal(target)})[1] == ["t/a.bin was added"]
