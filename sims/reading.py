"""Reading a sealed results folder as its seal's check found it: each file read once, and its
bytes hashed and parsed, so that what a command shows is what the check hashed.

Comparing change marks before and after a read is not enough: stores through a shared
writable mapping of a file change its bytes but, once its page is dirty, no size, inode or
time stamp (hostile pass 16 flipped a sealed table that way between the seal's check and
the report's read, and a resumed run then sealed the flipped table again).

``Sealed`` is what ``check_sealed`` (sims/folder.py) found: each file's digest and
identity. While a ``reading`` of it is in force, every results reader of this process, its
threads and forked children too, takes that folder's files through ``checked_bytes``.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import resource
import threading
from collections.abc import Mapping
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

from .errors import ResultsError

ACCEPT_HINT = "--accept-changes reads it anyway"

FileSeal = tuple[str, int, int, int]  # SHA-256 of the bytes, device, inode, change time
Identity = tuple[int, int, int]  # device, inode, change time (ns)


@dataclass(frozen=True, eq=False)
class Sealed:
    """A sealed folder's files as its check hashed them, by path relative to it (its own
    manifest by the digest of its bytes)."""

    folder: Path
    files: Mapping[str, FileSeal]

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

    Where the reader writes the folder itself (``own_writes``: a resumed run), a file it
    did not hash is taken as the reader's own; and a file it did is known as *the same
    file* while the reading lasts by an open handle on it, for no file the run writes in
    its place can then take its inode number (file systems hand freed numbers out again).
    A file that cannot be held so (past the limit of open files) is the same file while its
    device, inode and change time are."""

    def __init__(self, sealed: Sealed, own_writes: bool = False) -> None:
        self.sealed = sealed
        self.own_writes = own_writes
        self.held: dict[str, int] = {}  # name: an O_PATH handle on the file hashed

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
        reader's own."""
        name = self.sealed.name_of(path)
        data, identity = read_once(path)
        if name is None:
            return data
        if not self.same_file(name, identity):
            if self.own_writes:
                return data
            what = "was added" if name not in self.sealed.files else "changed"
            raise ResultsError(
                f"{self.sealed.folder}: {name} {what} while it was read ({ACCEPT_HINT})"
            )
        if hashlib.sha256(data).hexdigest() != self.sealed.files[name][0]:
            raise ResultsError(
                f"{self.sealed.folder}: {name} changed while it was read ({ACCEPT_HINT})"
            )
        return data

    def changed(self, now: Mapping[str, FileSeal]) -> dict[str, str]:
        """The files the check hashed that are the same files in ``now`` (what the folder
        holds, hashed) but hold other bytes, with the digest they had."""
        out = {}
        for name, (digest, *_) in self.sealed.files.items():
            found = now.get(name)
            if found is not None and found[0] != digest and self.same_file(name, found[1:]):
                out[name] = digest
        return out


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
    return base == "manifest.json" or base.startswith("compact")


def read_once(path: str | Path) -> tuple[bytes, Identity]:
    """A file's bytes and the identity (device, inode, change time) of what they were read
    from."""
    with open(path, "rb") as file:
        found = os.fstat(file.fileno())
        return file.read(), (found.st_dev, found.st_ino, found.st_ctime_ns)


def file_seal(path: str | Path) -> FileSeal:
    """The digest and identity of a file, its bytes read once."""
    with open(path, "rb") as file:
        found = os.fstat(file.fileno())
        digest = hashlib.file_digest(file, "sha256").hexdigest()
    return digest, found.st_dev, found.st_ino, found.st_ctime_ns


_HOLD = getattr(os, "O_PATH", os.O_RDONLY)  # a handle that holds a file, reading nothing
_ACTIVE: list[Reading] = []
_LOCK = threading.Lock()


def reading(sealed: Sealed | None, own_writes: bool = False) -> Reading | nullcontext[None]:
    """Every results reader of this process reads ``sealed``'s files checked while this
    lasts (nothing changes for None: a folder not sealed, or one read with changes
    accepted)."""
    return nullcontext() if sealed is None else Reading(sealed, own_writes)


def checked_bytes(path: str | Path) -> bytes | None:
    """``path``'s bytes, checked, when a reading in force covers it (the latest begun
    first); None when none does, for the caller to read it by path."""
    with _LOCK:
        active = list(_ACTIVE)
    for found in reversed(active):
        if found.sealed.name_of(path) is not None:
            return found.read(path)
    return None
