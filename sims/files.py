"""Files written whole or not at all, the one way every writer of sims/ and reports/ does it:
the bytes go to a hidden temporary file beside the target, which is then renamed over it, so
a reader, or a run killed mid-write, finds the old file, the new one or none, never half of
one. Nothing is fsynced: this guards against a killed process, not a power cut."""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
from pathlib import Path

from .reading import note_written


def temp_path(target: Path, per_process: bool = False, unique: bool = False) -> Path:
    """Where ``target`` is written before its rename: hidden (readers of a table folder skip
    dot files), in the same folder (the rename is atomic). ``per_process`` where processes
    may write the same target at once, so that no two share one: ``.NAME.PID.tmp`` (a results
    folder's parts and compact files, which a resume tidies by that name), else ``.NAME.tmp``;
    ``unique`` adds a random tag before ``.tmp``, a name no one can take in advance."""
    tag = f".{os.getpid()}" if per_process else ""
    tag += f".{secrets.token_hex(6)}" if unique else ""
    return target.parent / f".{target.name}{tag}.tmp"


def temp_files(target: Path) -> list[Path]:
    """Every ``temp_path`` of ``target`` there is: what writers of it killed mid-write left."""
    return list(target.parent.glob(f".{target.name}*.tmp"))


def write_atomic(target: Path, data: bytes | str, per_process: bool = False) -> None:
    """Write ``data`` (text as UTF-8) to ``target`` through a ``temp_path`` of a random
    name, made new (another writer of the folder who made a folder or file at a fixed name
    made a run's every manifest write fail: hostile pass 23's sealfail23.py). The folder
    must exist; an OSError (a full disk) leaves no temporary file and is raised for the
    caller to put in its own words."""
    for _ in range(8):
        temp = temp_path(target, per_process, unique=True)
        try:
            _write_file(temp, data)
        except FileExistsError:  # a name taken already: never ours to remove
            continue
        except OSError:
            discard(temp)
            raise
        break
    else:
        raise FileExistsError(errno.EEXIST, "no temporary name left", str(target))
    try:
        os.replace(temp, target)
    except OSError:
        discard(temp)
        raise
    note_written(target, data.encode() if isinstance(data, str) else data)


def _write_file(path: Path, data: bytes | str) -> None:
    """Write ``data`` to ``path``, a file made new (one seam for tests that fill the disk)."""
    with open(path, "xb") as out:
        out.write(data.encode() if isinstance(data, str) else data)


def discard(path: Path) -> None:
    """Remove a file if it is there, quietly: a temporary file that failed to be written, or
    one a killed writer left."""
    with contextlib.suppress(OSError):
        path.unlink()
