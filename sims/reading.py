"""Reading a sealed results folder as its seal's check found it: each file read once, and its
bytes hashed and parsed, so that what a command shows is what the check hashed.

Comparing change marks before and after a read is not enough: stores through a shared
writable mapping of a file change its bytes but, once its page is dirty, no size, inode or
time stamp (hostile pass 16 flipped a sealed table that way between the seal's check and
the report's read, and a resumed run then sealed the flipped table again).

``Sealed`` is what ``check_sealed`` (sims/folder.py) found: each file's digest and
identity. While a ``Reading`` of it is in force, every results reader of this process, its
threads and forked children too, takes that folder's files through ``checked_bytes``.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import io
import os
import resource
import stat
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from cardgame.record import read_in_pieces

from .errors import ResultsError

ACCEPT_HINT = "--accept-changes reads it anyway"
MANIFEST = "manifest.json"  # a results folder's manifest (sims/folder.py): sealed by its content

FileSeal = tuple[str, int, int, int]  # SHA-256 of the bytes, device, inode, change time
Identity = tuple[int, int, int]  # device, inode, change time (ns)


@dataclass(frozen=True, eq=False)
class Sealed:
    """A sealed folder's files as its check hashed them, by path relative to it (its own
    manifest by the digest of its bytes)."""

    folder: Path
    files: Mapping[str, FileSeal]
    # each file's size as hashed: one grown in place after the check (its inode the same) is
    # refused before it is read (hostile pass 27r's grow27.py: a MemoryError at 8 TiB)
    sizes: Mapping[str, int] = field(default_factory=dict)

    def name_of(self, path: str | Path) -> str | None:
        """``path`` relative to the folder, or None when it lies outside."""
        name = os.path.relpath(os.path.abspath(path), os.path.abspath(self.folder))
        if name == os.pardir or name.startswith(os.pardir + os.sep):
            return None
        return Path(name).as_posix()

    def read(self, path: str | Path) -> bytes:
        """``path``'s bytes, refused unless they are those the check hashed (a file of the
        folder it did not hash, added or put in another's place, too)."""
        return Reading(self).read(path)


class Reading:
    """A sealed folder read as its check hashed it (``Sealed``), while it lasts.

    Where the reader writes the folder itself (``own_writes``: a run), a file it wrote is
    read as it wrote it (``note``), and any other file but those the check hashed is
    refused; a file the check hashed is known as *the same file* while the reading lasts by
    an open handle on it, for no file the run writes in its place can then take its inode
    number (file systems hand freed numbers out again).
    A file that cannot be held so (past the limit of open files) is the same file while its
    device, inode and change time are."""

    def __init__(self, sealed: Sealed, own_writes: bool = False) -> None:
        self.sealed = sealed
        self.own_writes = own_writes
        self.held: dict[str, int] = {}  # name: an O_PATH handle on the file hashed
        # what the run wrote itself (the digest of the bytes, None where only their name is
        # known) and removed, by name: the seal takes those files as the run's
        self.written: dict[str, str | None] = {}
        self.removed: set[str] = set()
        # each file's size where known (as the run wrote it, or as the check found it): a
        # file of another size is changed, known so without hashing it (hostile pass 24r's
        # stall24.py grew a record file the run wrote to 8 TiB, and the seal hashed it)
        self.sizes: dict[str, int] = {}

    def __enter__(self) -> Reading:
        if self.own_writes:
            try:
                self._hold()
            except BaseException:
                self._let_go()
                raise
        with _LOCK:
            _ACTIVE.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        with _LOCK:
            _ACTIVE[:] = [r for r in _ACTIVE if r is not self]
        self._let_go()

    def _let_go(self) -> None:
        for handle in self.held.values():
            os.close(handle)
        self.held.clear()

    def _hold(self) -> None:
        room = _room_for(len(self.sealed.files))
        # the names a run writes again first (its manifests, compact files), where a freed
        # inode number could come back under the same name; the rest while room is left
        names = sorted(self.sealed.files, key=lambda n: not _written_again(n))
        for name in names[:room]:
            identity = self.sealed.files[name][1:]
            try:
                handle = os.open(self.sealed.folder / name, _HOLD | os.O_CLOEXEC)
            except OSError:  # gone, or no handle left: known by its marks then
                continue
            found = os.fstat(handle)
            self.sizes[name] = found.st_size
            if (found.st_dev, found.st_ino) != tuple(identity[:2]):
                os.close(handle)  # another file in its place since the check
                raise ResultsError(
                    f"{self.sealed.folder}: {name} changed while it was read ({ACCEPT_HINT})"
                )
            self.held[name] = handle

    def same_file(self, name: str, identity: Identity) -> bool:
        """Whether ``identity`` is that of the file the check hashed as ``name``."""
        seal = self.sealed.files.get(name)
        if seal is None:
            return False
        if self.own_writes and name not in self.held:
            return seal[1:] == identity
        return seal[1:3] == identity[:2]

    def read(self, path: str | Path) -> bytes:
        """``path``'s bytes, refused unless they are those the check hashed; a file of the
        folder it did not hash too (added, or put in another's place), unless it is the
        reader's own (a file the run wrote with other bytes is refused too)."""
        name = self.sealed.name_of(path)
        with _open_file(path) as file:
            found = os.fstat(file.fileno())
            identity = (found.st_dev, found.st_ino, found.st_ctime_ns)
            ours = self.own_writes and name in self.written
            if name is not None and not ours and not self.same_file(name, identity):
                # neither the run's nor what it found: refused before a byte is read (a
                # huge file put in its place would be read whole first)
                what = "was added" if name not in self.sealed.files else "changed"
                if self.own_writes:
                    raise ResultsError(
                        f"{self.sealed.folder}: {name} {what} while this run wrote the "
                        "folder (not by the run)"
                    )
                raise ResultsError(
                    f"{self.sealed.folder}: {name} {what} while it was read ({ACCEPT_HINT})"
                )
            if name is None:
                return _read_as_found(file, found.st_size)
            # of the size the check found, or the run wrote, where known
            size = self.sizes.get(name) if ours else self.sealed.sizes.get(name)
            if size is not None and found.st_size != size:
                raise self._changed(name, ours)
            data = _read_as_found(file, found.st_size)
        if len(data) != found.st_size:
            raise self._changed(name, ours)
        if ours:
            wrote = self.written[name]
            if wrote is not None and hashlib.sha256(data).hexdigest() != wrote:
                raise self._changed(name, ours)
            return data
        if hashlib.sha256(data).hexdigest() != self.sealed.files[name][0]:
            raise self._changed(name, ours)
        return data

    def _changed(self, name: str, ours: bool) -> ResultsError:
        if ours:
            return ResultsError(
                f"{self.sealed.folder}: {name} changed while this run wrote the folder "
                "(not by the run)"
            )
        return ResultsError(
            f"{self.sealed.folder}: {name} changed while it was read ({ACCEPT_HINT})"
        )

    def note(
        self, name: str, digest: str | None, removed: bool = False, size: int | None = None
    ) -> None:
        """The run wrote (or removed) the file ``name`` (``size`` bytes, where known)."""
        self.sizes.pop(name, None)
        if removed:
            self.written.pop(name, None)
            self.removed.add(name)
        else:
            self.removed.discard(name)
            self.written[name] = digest
            if size is not None:
                self.sizes[name] = size

    def other_size(self, name: str, size: int) -> bool:
        """Whether ``name`` is known to have had another size than ``size`` bytes."""
        known = self.sizes.get(name)
        return known is not None and known != size

    def accounted(
        self, now: Mapping[str, FileSeal], within: str = ""
    ) -> tuple[dict[str, str], list[str]]:
        """The digests to seal ``now`` (what the folder holds, hashed) with, and what in it
        is neither the run's own nor as the check found it, each a phrase ("X was added").
        A file the run wrote is sealed as it wrote it, one of the seal it found as it was
        found; one changed, put in another's place or removed by another writer keeps that
        digest, and one another writer added is left out: the folder then reads as changed
        since, naming it. ``within``: the folder sealed is this one's subfolder of that name
        (a check's, ``checks/NAME/``), and ``now`` names its files as this folder does."""
        digests: dict[str, str] = {}
        problems: list[str] = []
        for name, (digest, dev, ino, ctime) in now.items():
            found = self.sealed.files.get(name)
            if name in self.removed:  # the run removed it: another put it back (pass 22)
                problems.append(f"{name} was added")
            elif name in self.written:
                wrote = self.written[name]
                digests[name] = wrote if wrote is not None else digest
                if (wrote is not None and wrote != digest) or not digest:  # "": gone, resized
                    problems.append(f"{name} changed")
            elif found is not None:
                digests[name] = found[0]
                if found[0] != digest or not self.same_file(name, (dev, ino, ctime)):
                    problems.append(f"{name} changed")
            else:
                problems.append(f"{name} was added")
        manifest = within + MANIFEST  # sealed by its content, apart
        for name, found in self.sealed.files.items():
            if not name.startswith(within) or name == manifest:
                continue
            if name not in now and name not in self.removed:
                digests[name] = self.written.get(name) or found[0]
                problems.append(f"{name} was removed")
        for name, wrote in self.written.items():
            if not name.startswith(within) or name == manifest:
                continue
            if name not in now and name not in self.sealed.files:
                if wrote is not None:
                    digests[name] = wrote
                problems.append(f"{name} was removed")
        return digests, problems


RESERVE = 256  # open files left to the run itself (its workers' pipes, its own reads)


def _room_for(handles: int) -> int:
    """How many of ``handles`` more files this process may hold open and keep ``RESERVE``
    free, its limit of open files raised for them where its hard limit allows."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return handles
    wanted = soft + handles if hard == resource.RLIM_INFINITY else min(soft + handles, hard)
    if wanted > soft:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
    try:
        held = len(os.listdir("/proc/self/fd"))
    except OSError:
        held = 64
    return max(0, min(handles, soft - held - RESERVE))


def _written_again(name: str) -> bool:
    """Whether a run may write a file of this name again (its manifests, compact files)."""
    base = name.rsplit("/", 1)[-1]
    return base == MANIFEST or base.startswith("compact")


def read_once(path: str | Path, limit: int | None = None) -> tuple[bytes, Identity]:
    """A file's bytes and the identity (device, inode, change time) of what they were read
    from; refused past ``limit`` bytes, before any is read."""
    with _open_file(path) as file:
        found = os.fstat(file.fileno())
        if limit is not None and found.st_size > limit:
            raise ResultsError(f"{path}: {found.st_size:,} bytes, past any a run writes")
        data = _read_as_found(file, found.st_size)
        if len(data) != found.st_size:
            raise ResultsError(f"{path}: changed while it was read")
        return data, (found.st_dev, found.st_ino, found.st_ctime_ns)


def _read_as_found(file: io.BufferedReader, size: int) -> bytes:
    """At most one byte more than the ``size`` the file was found to have: a plain
    ``read()`` sizes its buffer by a second look, and a file grown in place between the two
    (8 TiB of holes) ended its reader in a MemoryError (hostile pass 30r's grow30.py). A
    file of other bytes than those found is refused by its digest or length after."""
    return file.read(size + 1)


def file_seal(path: str | Path, size: int | None = None) -> FileSeal:
    """The digest and identity of a file, its bytes read once; no digest ("") without a
    byte read where the file opened is not of ``size`` (one put in place of a file whose
    size was compared, just before it was hashed: hostile pass 27r's hugerace27.py)."""
    with _open_file(path) as file:
        found = os.fstat(file.fileno())
        if size is not None and found.st_size != size:
            return "", found.st_dev, found.st_ino, found.st_ctime_ns
        # at most one byte past the size found: grown in place after this look (8 TiB of
        # holes: pass 30r's grow30.py), it is hashed as changed, never for hours
        digest = hashlib.sha256()
        for piece in read_in_pieces(file, found.st_size + 1):
            digest.update(piece)
    return digest.hexdigest(), found.st_dev, found.st_ino, found.st_ctime_ns


def _open_file(path: str | Path, follow: bool = False) -> io.BufferedReader:
    """A regular file opened to read, never through a link (but where ``follow``), never
    waiting: a named pipe put in a file's place after the seal's check would block its
    reader for good (hostile pass 23's fifo23.py), a link to a device (``/dev/zero``) feed
    it without end. Its kind is that of the file opened, never of a look by name before."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow:  # a link put in a file's place (24r)
            raise ResultsError(f"{path}: a link, which no run writes") from None
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ResultsError(f"{path}: not a regular file, which no run writes")
        return io.BufferedReader(io.FileIO(fd, "rb"))
    except BaseException:
        os.close(fd)
        raise


def open_unsealed(path: str | Path) -> io.BufferedReader:
    """A file read with no seal in force (changes accepted, loose records, an open folder),
    opened once, a link followed, and refused unless what was opened is a regular file: a
    named pipe held its reader for good (hostile pass 29r's accept29.py), and one flipped
    into the file's place between a look by name and the open did too (pass 30r's
    flip30.py). Read from what this opened, never by name again."""
    return _open_file(path, follow=True)


def reopened(file: io.BufferedReader) -> str:
    """A name that opens the very file ``file`` holds, whatever was put at its path since
    (Linux's /proc, else the /dev/fd of the BSDs): for a reader that takes names only."""
    fd = file.fileno()
    return f"/proc/self/fd/{fd}" if os.path.isdir("/proc/self/fd") else f"/dev/fd/{fd}"


_HOLD = getattr(os, "O_PATH", os.O_RDONLY)  # a handle that holds a file, reading nothing
_ACTIVE: list[Reading] = []
_LOCK = threading.Lock()


def checked_bytes(path: str | Path) -> bytes | None:
    """``path``'s bytes, checked, when a reading in force covers it (the latest begun
    first); None when none does, for the caller to read it by path."""
    with _LOCK:
        active = list(_ACTIVE)
    for found in reversed(active):
        if found.sealed.name_of(path) is not None:
            return found.read(path)
    return None


def _covering(path: str | Path) -> list[tuple[Reading, str]]:
    with _LOCK:
        active = [r for r in _ACTIVE if r.own_writes]
    out = []
    for found in active:
        name = found.sealed.name_of(path)
        if name is not None:
            out.append((found, name))
    return out


def note_written(
    path: str | Path,
    data: bytes | None = None,
    digest: str | None = None,
    size: int | None = None,
) -> None:
    """A run wrote ``path`` (``data``, or ``size`` bytes of that ``digest``, where known):
    the readings of a run in force that cover it take it as the run's own
    (``Reading.accounted``)."""
    covering = _covering(path)
    if covering:
        if data is not None:
            digest, size = hashlib.sha256(data).hexdigest(), len(data)
        for found, name in covering:
            found.note(name, digest, size=size)


def note_removed(path: str | Path) -> None:
    for found, name in _covering(path):
        found.note(name, None, removed=True)


Entry = tuple[str, str | None, bool, int | None]  # a path, its digest, removed, its size


def ledger() -> list[Entry]:
    """What this process's runs in force wrote and removed, by absolute path (a forked
    compaction sends it to its parent, whose readings then note it: ``note_ledger``)."""
    with _LOCK:
        active = [r for r in _ACTIVE if r.own_writes]
    out: list[Entry] = []
    for found in active:
        root = os.path.abspath(found.sealed.folder)
        for n, d in found.written.items():
            out.append((os.path.join(root, n), d, False, found.sizes.get(n)))
        out += [(os.path.join(root, n), None, True, None) for n in found.removed]
    return out


def note_ledger(entries: list[Entry]) -> None:
    for path, digest, removed, size in entries:
        for found, name in _covering(path):
            found.note(name, digest, removed, size)


def run_reading(path: str | Path) -> Reading | None:
    """The reading of the run in force whose folder holds ``path`` (its checks' folders
    too), or None."""
    covering = _covering(path)
    return covering[-1][0] if covering else None
