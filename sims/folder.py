"""The results folder as a whole: whether results can go there, its manifest (the study,
the schema version and the fingerprint of what made them), and what a run left in it: the
batches done, the temporary files of killed writers.

Layout (docs/data.md): ``manifest.json``, written atomically when the first batch lands, then
one folder per table (``games/``, ``seats/``, ``destinations/``, and ``quality/`` where the
study asks for it) holding the batches' parts (sims/parts.py) until the compaction
(sims/compaction.py) merges them, and ``records/`` with --records.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
import stat
import tempfile
from collections.abc import Callable
from functools import cache
from importlib import metadata, resources
from pathlib import Path
from typing import Any

from cardgame.errors import one_line
from cardgame.record import read_record_file

from .compaction import compacted_batches
from .errors import ResultsError, ResultsWriteError, unique_keys
from .files import discard, temp_files, write_atomic
from .parts import PARTS, part_files, record_files, tables_besides_games
from .plan import Plan
from .reading import (
    ACCEPT_HINT,
    MANIFEST,
    FileSeal,
    Reading,
    Sealed,
    checked_bytes,
    file_seal,
    open_unsealed,
    read_once,
    run_reading,
)
from .schema import READABLE_VERSIONS, SCHEMA_VERSION, WRITE_ORDER

PACKAGE = "ttr-cardgame"
RUN_MARK_PREFIX = ".dask-run-"  # the mark a Dask run places in its folder (sims/cluster.py)


def check_output_folder(folder: Path) -> None:
    """Fail before any game if results cannot go to ``folder`` (a file, unwritable, /proc).

    Nothing is created: a folder that does not exist is probed with a temporary sibling,
    and the names it would make are held to what the file system takes.
    """
    if "\0" in str(folder):
        raise ResultsError(f"{str(folder)!a}: a folder's name cannot hold a NUL character")
    try:
        if folder.exists() and not folder.is_dir():
            raise ResultsError(f"{folder}: is a file, not a results folder")
        parent, missing = folder, []
        while not parent.exists():
            missing.append(parent.name)
            parent = parent.parent
        if not parent.is_dir():
            raise ResultsError(f"{folder}: {parent} is a file, not a folder")
        probe = tempfile.mkdtemp(prefix=".probe-", dir=parent)
        os.rmdir(probe)
        longest = max(missing, key=lambda name: len(os.fsencode(name)), default="")
        limit = _name_limit(parent)
        if len(os.fsencode(longest)) > limit:
            raise ResultsError(
                f"{folder}: a name in it is {len(os.fsencode(longest))} bytes long; "
                f"{parent} takes names of at most {limit}"
            )
    except OSError as exc:
        raise ResultsError(
            f"{folder}: cannot write results there ({exc.strerror or exc})"
        ) from None


def _name_limit(folder: Path) -> int:
    """The longest file name ``folder``'s file system takes, in bytes (255 where unsaid)."""
    try:
        return os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError):
        return 255


def is_empty_folder(folder: Path) -> bool:
    try:
        return not folder.exists() or not any(folder.iterdir())
    except OSError as exc:
        raise ResultsError(f"{folder}: cannot read ({exc.strerror or exc})") from None


def write_manifest(
    folder: Path,
    study: dict[str, Any],
    fingerprint: dict[str, str],
    plan: dict[str, Any],
    guest_key: str = "",
) -> None:
    """Write the manifest atomically (temp file, then rename): a manifest is whole or absent.
    It keeps the study as given (what a resume must match), the plan it resolved to
    (what the reports read) and, for isolated guests, the run's secret key of their random
    streams (what a resume needs to play the same games)."""
    manifest: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "study": study,
        "plan": plan,
        "fingerprint": fingerprint,
        **({"guest_key": guest_key} if guest_key else {}),
    }
    manifest[MARK] = _open_mark(manifest, _opened(folder, _new_run()))
    target = folder / MANIFEST
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write_atomic(target, (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode())
    except OSError as exc:
        raise ResultsWriteError(f"{target}: cannot write ({exc.strerror or exc})") from None


def manifest_plan(manifest: dict[str, Any], path: Path) -> Plan:
    """The plan a manifest holds; one written before plans (schema 1 to 4) has it resolved
    from its study, as its run resolved it, loading no strategy."""
    if "plan" in manifest:
        return Plan.from_dict(manifest["plan"], f"{path}: plan")
    from .study import legacy_plan  # the study parser: only for such old folders

    return legacy_plan(manifest["study"], str(path))


def read_manifest(folder: Path) -> dict[str, Any] | None:
    """The folder's manifest, or None where it has none; read checked while a reading of a
    sealed folder covers it (sims/reading.py)."""
    path = folder / MANIFEST
    if not path.exists():
        return None
    try:
        data = checked_bytes(path)
        return _parsed_manifest(path, read_once(path, MAX_MANIFEST)[0] if data is None else data)
    except OSError as exc:
        raise ResultsError(f"{path}: unreadable manifest ({exc})") from None


def _parsed_manifest(path: Path, data: bytes) -> dict[str, Any]:
    values = data.count(b",") + data.count(b"[") + data.count(b"{")  # at least so many
    if values > MAX_MANIFEST_VALUES:  # refused before it is parsed
        raise ResultsError(f"{path}: over {MAX_MANIFEST_VALUES:,} values, past any a run writes")
    try:  # a key twice: sealed by what it parses to, another reader may keep the other one
        manifest = json.loads(data.decode(), object_pairs_hook=unique_keys)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:  # an integer too long too
        raise ResultsError(f"{path}: unreadable manifest ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("schema_version") not in READABLE_VERSIONS:
        version = manifest.get("schema_version") if isinstance(manifest, dict) else None
        readable = " and ".join(map(str, READABLE_VERSIONS))
        raise ResultsError(
            f"{path}: results schema version {version!r}; this version reads {readable}"
        )
    study = manifest.get("study")
    if not isinstance(study, dict):
        raise ResultsError(f"{path}: the manifest names no study")
    for key, kind in STUDY_KEYS.items():  # what reports read of it, read with changes too
        if key in study and not isinstance(study[key], kind):
            raise ResultsError(f"{path}: the manifest's study.{key} is not a {kind.__name__}")
    return manifest


# the study's keys the reports read, by type (hostile pass 28r's odd28.py: a number for its
# variants, read with --accept-changes, ended a report in a TypeError)
STUDY_KEYS: dict[str, type] = {
    "variants": dict, "strategies": dict, "sweeps": dict, "players": list, "name": str,
    "description": str, "pairing": str, "rotation": str,
}  # fmt: skip


FINGERPRINT_PARTS = {
    "card_data": "the card data (cardgame/data)",
    "rules": "the rules (defaults or the study's variants)",
    "package": "the package version",
    "source": "the source code of cardgame/ or sims/",
}


def fingerprint(variants: dict[str, Any]) -> dict[str, str]:
    """What, besides the study, fixes the results: resume refuses a folder made otherwise."""
    from cardgame import Rules

    rules = {"defaults": Rules().to_dict(), "variants": variants}
    return {
        "card_data": _card_data_hash(),
        "rules": _digest(json.dumps(rules, sort_keys=True).encode()),
        "package": _package_version(),
        "source": _source_hash(),
    }


def fingerprint_change(stored: Any, current: dict[str, str]) -> str | None:
    """What changed between a stored fingerprint and now (a phrase ending in "changed")."""
    if not isinstance(stored, dict):
        return "the simulator changed (these results predate fingerprints)"
    for key, what in FINGERPRINT_PARTS.items():
        if stored.get(key) != current[key]:
            if key == "package":
                return f"{what} changed ({stored.get(key)} -> {current[key]})"
            return f"{what} changed"
    return None


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


@cache
def _card_data_hash() -> str:
    folder = resources.files("cardgame") / "data"
    files = sorted(p.name for p in folder.iterdir() if p.name.endswith(".csv"))
    return _digest(b"".join(f.encode() + b"\0" + (folder / f).read_bytes() for f in files))


@cache
def _source_hash() -> str:
    import cardgame
    import sims

    parts = []
    for package in (cardgame, sims):
        root = Path(str(package.__file__)).parent
        # the native core's sources too: the results are meant to be the same on it, but a
        # change there is a change of the simulator all the same
        sources = [p for pattern in ("*.py", "*.pyx", "*.pxd") for p in root.rglob(pattern)]
        for path in sorted(sources):
            parts.append(str(path.relative_to(root.parent)).encode() + b"\0" + path.read_bytes())
    return _digest(b"\0".join(parts))


def _package_version() -> str:
    try:
        return metadata.version(PACKAGE)
    except metadata.PackageNotFoundError:
        return "unknown"


def remove_temp_files(folder: Path, batch_id: str = "", compaction: bool = True) -> None:
    """Remove the temporary files of killed writers (all, or one batch's): never results;
    ``compaction=False`` keeps those of a compaction (one still writing)."""
    patterns = [f".part-{batch_id}*.tmp", f"part-{batch_id}*.tmp"]  # and older names
    if not batch_id and compaction:
        patterns.append(".compact*.parquet.*.tmp")  # a compaction's
    subs = [*WRITE_ORDER, *(f"{table}/{PARTS}" for table in WRITE_ORDER), "records"]
    for sub in subs:
        where = folder / sub
        if not where.is_dir():
            continue
        for pattern in patterns:
            with contextlib.suppress(OSError):
                for path in list(where.glob(pattern)):
                    discard(path)
    if not batch_id:  # and a manifest's half-written copy, the mark a killed Dask client left
        with contextlib.suppress(OSError):
            for path in temp_files(folder / MANIFEST):
                discard(path)
        with contextlib.suppress(OSError):
            for path in list(folder.glob(f"{RUN_MARK_PREFIX}*")):
                discard(path)


def done_batches(folder: Path) -> set[str]:
    """The batches that landed: named by the compact games file, or a games part each and a
    part in every other table (one removed by hand is played again, not lost)."""
    done = set(part_files(folder / "games"))
    for table in tables_besides_games(folder):
        done &= set(part_files(folder / table))
    return done | compacted_batches(folder / "games")


# ------------------------------------------------------------------ the folder's seal
# A folder's manifest always carries a mark, keyed with the user's seal key (``seal_key``):
# ``open`` from the run's first landing until its end (a run killed mid-way leaves it), then
# ``sealed`` over the digest of every file. Without the key no one can make either, so a
# folder changed, or stripped of its mark, is refused. Each run's open mark names a run id of
# its own, and a run's end (its seal, or a resume that opens the folder under a new id) adds
# that id to the user's list of ended runs, kept beside the key (``ENDED_RUNS``): so an open
# manifest copied while a run played and put back after it ended is refused too.
# docs/strategies.md says what this protects against and what not.
DIGESTS = "files"  # the manifest's digest of every file, written when a run ends
MARK = "seal"  # the keyed mark: {"state": "open" | "sealed", "mac": ...}
SIZES = "sizes"  # each file's size as sealed: a reader refuses a file resized unread
KEY_FILE = "seal.key"
ENDED_RUNS = "ended-runs"  # beside the key: the ids of runs sealed or resumed, one a line


def seal_key_path() -> Path:
    """Where the user's seal key lives: outside every results folder, the user's only."""
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(config) / "cardgame" / KEY_FILE


def seal_key() -> bytes:
    """The user's seal key, made (random, mode 0600) the first time a run needs it."""
    path = seal_key_path()
    try:
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            with contextlib.suppress(FileExistsError):  # another run made it meanwhile
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "w") as file:
                    file.write(secrets.token_hex(32) + "\n")
        key = path.read_text().strip()
    except OSError as exc:
        raise ResultsError(
            f"{path}: cannot read or make the seal key ({exc.strerror or exc})"
        ) from None
    if len(key) < 32:
        raise ResultsError(f"{path}: not a seal key (remove it and a new one is made)")
    return key.encode()


def _mac(*parts: str) -> str:
    return hmac.new(seal_key(), "\0".join(parts).encode(), hashlib.sha256).hexdigest()


def _new_run() -> str:
    return secrets.token_hex(16)


# the run ids this process opened, by folder: a run's seal ends them whatever another writer
# left in its manifest's place (hostile pass 26r's unseal26.py removed the manifest, or put
# one naming another run there, so the seal ended no id, or the wrong one, and the run's own
# open manifest, put back, read as a run not ended: forged, then sealed by a resume)
_OPENED: dict[str, list[str]] = {}


def _opened(folder: Path, run: str) -> str:
    """``run``, noted as opened by this process in ``folder`` (the last one its current)."""
    _OPENED.setdefault(os.path.abspath(folder), []).append(run)
    return run


def _end_opened(folder: Path, also: str | None = None) -> None:
    """End every run id this process opened in ``folder``, and ``also`` (the id a manifest
    found there names)."""
    runs = _OPENED.pop(os.path.abspath(folder), [])
    for run in sorted({*runs, *([also] if also is not None else [])}):
        _add_ended_run(run)


def _open_mark(manifest: dict[str, Any], run: str) -> dict[str, str]:
    """The mark of a run not ended: keyed over the manifest and the run's own id."""
    return {"state": "open", "run": run, "mac": _mac("open", run, _manifest_digest(manifest))}


def ended_runs_path() -> Path:
    return seal_key_path().parent / ENDED_RUNS


def _ended_runs() -> set[str]:
    path = ended_runs_path()
    try:
        return set(path.read_text().split()) if path.exists() else set()
    except (OSError, UnicodeDecodeError) as exc:
        raise ResultsError(f"{path}: cannot read the list of ended runs ({exc})") from None


def _open_run(manifest: dict[str, Any]) -> str | None:
    """The run id of the manifest's open mark, if it has one."""
    mark = manifest.get(MARK)
    if isinstance(mark, dict) and mark.get("state") == "open":
        run = mark.get("run")
        return run if isinstance(run, str) else None
    return None


def _add_ended_run(run: str) -> None:
    """Add ``run`` to the ended runs (one short appended line: whole even when two runs end
    at once)."""
    path = ended_runs_path()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, f"{run}\n".encode())
        finally:
            os.close(fd)
    except OSError as exc:
        raise ResultsWriteError(f"{path}: cannot write ({exc.strerror or exc})") from None


def _sealed_mark(digests: dict[str, str]) -> dict[str, str]:
    return {"state": "sealed", "mac": _mac("sealed", json.dumps(digests, sort_keys=True))}


def folder_seals(folder: Path) -> dict[str, FileSeal]:
    """The digest and identity of every file of ``folder`` but its manifest, by path relative
    to it; what killed writers leave (temporary files, a run's mark) is no result and not
    counted."""
    return {name: file_seal(folder / name) for name in _result_files(folder)}


def _result_files(folder: Path) -> list[str]:
    """The files ``folder_seals`` hashes, by path relative to the folder, in order."""
    return [
        path.relative_to(folder).as_posix()
        for path in _entries(folder)
        if path.is_file() and path != folder / MANIFEST and not _left_by_a_writer(path)
    ]


# the deepest a run writes: checks/NAME/TABLE/_parts/FILE, with room to spare
MAX_DEPTH = 8
# far past any manifest a run writes (some 535 bytes a batch kept as parts, 690 with records:
# some 480,000 batches), and short of one grown in place to fill a reader's memory (hostile
# pass 24r's sparse24.py: 8 TiB of holes, a MemoryError)
MAX_MANIFEST = 256 << 20
# JSON values (each some 70 bytes parsed) a manifest may hold, counted before it is parsed:
# a run's take over 16 bytes each (some 45), so a reader holds at most about a GiB of one, as
# much as of a run's at the bound on bytes (hostile pass 30r's amp30.py: 250 MiB of ``[],``
# took some 8 GB)
MAX_MANIFEST_VALUES = MAX_MANIFEST // 16


def _entries(folder: Path) -> list[Path]:
    """Every entry below ``folder``, sorted, links never followed; listed without recursion
    and refused past ``MAX_DEPTH`` levels (hostile pass 23's deep23.py: a tree 1,100 deep
    made ``rglob`` raise RecursionError in every reader, and failed a run's seal)."""
    found: list[Path] = []
    stack = [(folder, 0)]
    while stack:
        where, depth = stack.pop()
        try:
            with os.scandir(where) as listing:
                inside = [(Path(e.path), e.is_dir(follow_symlinks=False)) for e in listing]
        except (FileNotFoundError, NotADirectoryError):  # removed meanwhile
            continue
        for path, is_folder in inside:
            found.append(path)
            if is_folder:
                if depth + 1 >= MAX_DEPTH:
                    name = path.relative_to(folder).as_posix()
                    raise ResultsError(
                        f"{folder}: {name[:120]!a} lies deeper than any run writes "
                        f"({MAX_DEPTH} folders) ({ACCEPT_HINT})"
                    )
                stack.append((path, depth + 1))
    return sorted(found)


def _left_by_a_writer(path: Path) -> bool:
    """A temporary file of a killed writer or the mark of a killed Dask client: never read as
    results, and removed by the next run (``remove_temp_files``)."""
    return path.name.endswith(".tmp") or path.name.startswith(RUN_MARK_PREFIX)


def _manifest_digest(manifest: dict[str, Any]) -> str:
    rest = {key: value for key, value in manifest.items() if key not in (DIGESTS, MARK)}
    return hashlib.sha256(json.dumps(rest, sort_keys=True).encode()).hexdigest()


def _rewrite_manifest(folder: Path, manifest: dict[str, Any]) -> None:
    target = folder / MANIFEST
    try:
        write_atomic(target, (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode())
    except OSError as exc:
        raise ResultsWriteError(f"{target}: cannot write ({exc.strerror or exc})") from None


def seal(
    folder: Path, kept: Reading | None = None, progress: Callable[[], object] | None = None
) -> list[str]:
    """Record the digest of every file in the manifest, keyed (a run's last act):
    ``check_sealed`` then refuses a folder changed since. A resumed run gives its reading
    of the seal it found (``kept``): a file is sealed as the run wrote it, or as the run
    found it (``Reading.accounted``), so that one another writer changed, added or removed
    while the run played reads as changed since. Returns what they did, each a phrase ("X
    was added"). ``progress`` is called after each file hashed (a stopped run's watchdog
    then waits for a seal that moves: an honest big folder takes seconds a GiB)."""

    def hashed(path: Path) -> FileSeal:
        try:
            found = file_seal(path)
        except FileNotFoundError:  # gone since it was listed: another writer's doing
            return GONE
        if progress is not None:
            progress()
        return found

    try:
        opened = os.path.abspath(folder) in _OPENED
        manifest = read_manifest(folder)
        # first: a seal cut short (a stall, then the watchdog's exit) leaves the folder
        # refused, never open (pass 24r's stall24)
        _end_opened(folder, _open_run(manifest) if manifest is not None else None)
        if manifest is None:
            return [f"{MANIFEST} was removed"] if opened else []
        for key in (DIGESTS, MARK, SIZES):
            manifest.pop(key, None)
        names = _result_files(folder)
        manifest[SIZES] = {n: _size(folder / n) for n in names}  # before hashing
        kept = kept or run_reading(folder)  # a run's folder, or its check's: the run's account
        if kept is not None:
            within = kept.sealed.name_of(folder) or "."
            within = "" if within == "." else within + "/"
            known = {*kept.written, *kept.sealed.files, *kept.removed}
            # a file neither the run's nor found is named, never hashed (it may be huge:
            # hostile pass 23's sparse23.py added 8 TiB of holes while a run played)
            added = [within + name for name in names if within + name not in known]
            now = {
                within + n: _seal_unless_resized(folder / n, kept, within + n, hashed)
                for n in names
                if within + n in known
            }
            found_digests, changed = kept.accounted(now, within)
            changed += [f"{name} was added" for name in added]
            digests = {name[len(within) :]: d for name, d in found_digests.items()}
        else:
            digests, changed = {n: hashed(folder / n)[0] for n in names}, []
        digests[MANIFEST] = _manifest_digest(manifest)
        manifest[DIGESTS] = digests
        manifest[MARK] = _sealed_mark(digests)
        _rewrite_manifest(folder, manifest)
    except BaseException:
        _end_open_mark(folder)
        raise
    return changed


# a file listed, then gone before the seal reached it (hostile pass 28r's vanish28.py renamed
# one away and back: the run ended in a traceback): no digest, so it reads as changed
GONE: FileSeal = ("", 0, 0, 0)


def _size(path: Path) -> int:
    """A file's size, or -1 (no file's) where it is gone since it was listed."""
    try:
        return os.lstat(path).st_size
    except FileNotFoundError:
        return -1


def _seal_unless_resized(
    path: Path, kept: Reading, name: str, hashed: Callable[[Path], FileSeal]
) -> FileSeal:
    """``path``'s seal, or where its size is not the one the run knows (as it wrote or found
    it) its identity with no digest: changed, and never hashed (it may be huge)."""
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        return GONE
    if kept.other_size(name, found.st_size):
        return "", found.st_dev, found.st_ino, found.st_ctime_ns
    return hashed(path)


def _end_open_mark(folder: Path) -> None:
    """A run whose seal failed ends its open mark all the same (its id among the ended
    runs), so that its folder is refused, never read or resumed as a run not ended: hostile
    pass 23's sealfail23.py failed a run's seal, forged the folder, and the resume the run
    asked for sealed the forgery. The ids this process opened there (``_OPENED``), and the
    one the manifest's bytes as they are name, read without waiting (a named pipe there)."""
    found = None
    with contextlib.suppress(Exception):  # never waiting, never a link (a named pipe there)
        path = folder / MANIFEST
        found = _open_run(_parsed_manifest(path, read_once(path, MAX_MANIFEST)[0]))
    with contextlib.suppress(Exception):
        _end_opened(folder, found)


def replace_plan(folder: Path, plan: dict[str, Any]) -> None:
    """The manifest's plan replaced while its run plays (a study played until settled
    moving to its next look), with the keyed mark of a run not ended made again for it."""
    manifest = read_manifest(folder)
    if manifest is None:
        raise ResultsError(f"{folder}: its manifest is gone")
    manifest["plan"] = plan
    manifest.pop(DIGESTS, None)
    manifest.pop(SIZES, None)
    opened = _OPENED.get(os.path.abspath(folder))
    run = opened[-1] if opened else _opened(folder, _new_run())  # the id this process opened
    manifest[MARK] = _open_mark(manifest, run)
    _rewrite_manifest(folder, manifest)


def unseal(folder: Path) -> None:
    """Open the folder again while a resumed run writes (one killed then leaves no stale
    seal, and its folder reads as a run that did not end), under a new run id: the open
    manifests of its earlier runs, a killed one's too, are refused from here on."""
    manifest = read_manifest(folder)
    if manifest is not None:
        earlier = _open_run(manifest)
        manifest.pop(DIGESTS, None)
        manifest.pop(SIZES, None)
        manifest[MARK] = _open_mark(manifest, _opened(folder, _new_run()))
        _rewrite_manifest(folder, manifest)
        if earlier is not None:
            _add_ended_run(earlier)


def seal_problem(folder: Path) -> str | None:
    """What is wrong with the folder's seal, as a phrase ending where "since its run ended"
    may follow, or None when the folder is as its run left it: sealed, or open (its run has
    not ended: killed, or still running) with its own mark."""
    return _seal_found(folder)[0]


def _seal_found(folder: Path) -> tuple[str | None, Sealed | None]:
    """``seal_problem``'s answer, and for a sealed folder found as its run left it, each
    file's digest and identity as hashed (its manifest's bytes read once, then parsed)."""
    path = folder / MANIFEST
    if not _has_manifest(folder):
        if any((folder / name).is_dir() for name in ("games", "records")):
            return "it is not a results folder: its manifest.json is missing", None
        return None, None
    if not path.is_file():
        return "it is not a results folder: its manifest.json is not a file", None
    try:
        data, identity = read_once(path, MAX_MANIFEST)
    except OSError as exc:
        raise ResultsError(f"{path}: unreadable manifest ({exc})") from None
    manifest = _parsed_manifest(path, data)
    mark = manifest.get(MARK)
    stored = manifest.get(DIGESTS)
    if not isinstance(mark, dict) or mark.get("state") not in ("open", "sealed"):
        return "it is not sealed: made before seals, or its seal was removed", None
    if mark["state"] == "open":
        return _open_problem(manifest, mark, stored), None
    if not isinstance(stored, dict):
        return f"{MANIFEST} changed (its digests were removed)", None
    listed = _result_files(folder)
    names = {*listed, MANIFEST}
    # names first: an added file is never hashed (it may be huge)
    problems = [
        f"{name} was {'removed' if name not in names else 'added'}"
        for name in sorted(set(stored) ^ names)
    ]
    # the keyed digests, then the manifest they cover (its files' sizes), then each file's
    # size, all before a byte of a file is read: a file put in a sealed one's place may be
    # huge (8 TiB of holes kept a reader hashing for hours)
    if not _same_mac(mark.get("mac"), _sealed_mark(stored)["mac"]):
        return _together(problems) or (
            f"its seal is not this user's ({seal_key_path()}): sealed with another key, "
            "or sealed again after a change"
        ), None
    if stored.get(MANIFEST) != _manifest_digest(manifest):
        return _together([*problems, f"{MANIFEST} changed"]), None
    kept = [name for name in listed if name in stored]
    sizes = _sizes(folder, kept, manifest.get(SIZES))
    resized = [name for name in kept if sizes[name] is None]
    files = {name: file_seal(folder / name, sizes[name]) for name in kept if name not in resized}
    changed = sorted([*resized, *(n for n in files if stored[n] != files[n][0])])
    # every change, named after whatever the writer chose to put first (hostile pass 27r's
    # decoy27: an added .nfs file named alone, the forged table behind it unsaid)
    problem = _together([*problems, *(f"{name} changed" for name in changed)])
    if problem is not None:
        return problem, None
    files[MANIFEST] = (hashlib.sha256(data).hexdigest(), *identity)
    found_sizes = {name: size for name, size in sizes.items() if size is not None}
    return None, Sealed(folder, files, {**found_sizes, MANIFEST: len(data)})


ALSO = " (also: "  # what follows a folder's first problem: the others


def _together(problems: list[str]) -> str | None:
    """The first problem, and how many more and which (at most three named), or None."""
    if not problems:
        return None
    first, rest = problems[0], problems[1:]
    if not rest:
        return first
    named = ", ".join(rest[:3]) + (f" and {len(rest) - 3} more" if len(rest) > 3 else "")
    return f"{first}{ALSO}{named})"


def _sizes(folder: Path, names: list[str], sealed: object) -> dict[str, int | None]:
    """Each of ``names``'s size as found, None where it is not the one sealed (a folder
    sealed before sizes were has none to compare)."""
    known = sealed if isinstance(sealed, dict) else {}
    out: dict[str, int | None] = {}
    for name in names:
        found = os.lstat(folder / name).st_size
        size = known.get(name)
        out[name] = None if type(size) is int and found != size else found
    return out


def _same_mac(found: object, mac: str) -> bool:
    """Whether a manifest's mark holds ``mac`` (compared in constant time; anything but its
    hex text, such as text the comparison refuses, is not)."""
    return isinstance(found, str) and found.isascii() and hmac.compare_digest(found, mac)


def _open_problem(manifest: dict[str, Any], mark: dict[str, Any], stored: Any) -> str | None:
    """What is wrong with the open mark of a run not ended, or None."""
    run = mark.get("run")
    if "run" not in mark:  # its copy could be put back after a seal: nothing tells
        return (
            f"{MANIFEST} changed (its mark of a run not ended names no run: made "
            "before run ids, or not by this user)"
        )
    mac = _open_mark(manifest, run)["mac"] if isinstance(run, str) else ""
    if isinstance(stored, dict) or not mac or not _same_mac(mark.get("mac"), mac):
        return f"{MANIFEST} changed (its mark of a run not ended is not this user's)"
    if run in _ended_runs():
        return (
            f"its run ended without sealing it, or its {MANIFEST} is a copy made while its "
            "run played, put back after that run was sealed or resumed"
        )
    return None


class SealCheck:
    """What ``check_sealed`` found in a folder, for what reads it after.

    Called, it refuses a folder whose entries' identity or change marks moved since (a file
    renamed, added, removed, or written to): readers call it once they have read. While
    ``reading``, every results reader of this process takes the files the check hashed as
    those bytes or not at all (sims/reading.py); ``read`` is one such read, for a reader of
    a file by name (a record file).
    """

    def __init__(
        self,
        folder: Path,
        before: dict[str, tuple[int, ...]] | None = None,
        sealed: Sealed | None = None,
    ) -> None:
        self.folder = folder
        self.before = before  # None: nothing checked (changes accepted)
        self.sealed = sealed  # None: not sealed (its run has not ended), or not checked
        self.unsealed = False  # checked, and its run has not ended: its files are not sealed
        self.loose: Path | None = None  # a run's records/ without its folder: not sealed
        self.accepted: str | None = None  # what --accept-changes took as it is

    def __call__(self) -> None:
        if self.before is None:
            return
        before, after = self.before, folder_state(self.folder)
        if after != before:  # a file named first, before the folder that holds it
            changed = [n for n in set(before) | set(after) if before.get(n) != after.get(n)]
            name = min(changed, key=lambda n: ((before.get(n) or after[n])[0] == _DIR, n))
            raise ResultsError(
                f"{self.folder}: {name or 'its folder'} changed while it was read ({ACCEPT_HINT})"
            )

    @property
    def note(self) -> str | None:
        """The warning a reader of a folder whose run has not ended, or of a run's records
        without its folder, shows; or None."""
        if self.accepted is not None:
            return f"{self.accepted}: read as it is (--accept-changes)"
        if self.unsealed:
            return f"{self.folder}: {UNSEALED_NOTE}"
        return f"{self.loose}: {LOOSE_NOTE}" if self.loose is not None else None

    def reading(self) -> Reading | contextlib.nullcontext[None]:
        """Every results reader of this process reads the sealed files checked meanwhile
        (nothing changes for a folder not sealed, or one read with changes accepted)."""
        return contextlib.nullcontext() if self.sealed is None else Reading(self.sealed)

    def read(self, path: str | Path) -> bytes:
        """A file's bytes: refused, for a file of the sealed folder, unless they are those
        the check hashed."""
        if self.sealed is not None and self.sealed.name_of(path) is not None:
            return self.sealed.read(path)
        if self.loose is not None or Path(path) != self.folder:  # a folder's file: a run's
            with open_unsealed(path) as file:
                return read_record_file(path, file)
        return read_record_file(path)  # bounded: a record file grown to 8 TiB


def check_sealed(folder: Path, accept_changes: bool = False) -> SealCheck:
    """Refuse, in one line naming the file, a results folder changed since its run ended;
    and hand back the check of what is read after (``SealCheck``): hostile pass 14's
    race14.py swapped a table between this check and the read by path, and pass 16's stores
    through a shared mapping moved no change mark. A link or special file is refused: its
    target may lie outside the folder, and change there unseen."""
    if accept_changes:  # read as it is, saying what it accepts (pass 27r's decoy27 read a
        # forgery with no word, behind an added file the refusal had named alone)
        accepted = SealCheck(folder)
        try:
            _checked(folder)
        except (ResultsError, OSError) as exc:
            accepted.accepted = one_line(str(exc).removesuffix(f" ({ACCEPT_HINT})"))
        return accepted
    try:
        return _checked(folder)
    except OSError as exc:  # a name past the system's limits, a file unreadable
        name = f" {str(exc.filename)[:120]!a}" if exc.filename else ""
        raise ResultsError(f"{folder}: cannot read{name}: {exc.strerror or exc}") from None


def _checked(folder: Path) -> SealCheck:
    before = folder_state(folder)
    odd = sorted(name for name, (kind, *_) in before.items() if kind not in _KINDS)
    if odd:
        raise ResultsError(
            f"{folder}: {odd[0]} is a link or a special file, which no run writes ({ACCEPT_HINT})"
        )
    problem, sealed = _seal_found(folder)
    if problem is not None:
        if problem.startswith("it"):
            raise ResultsError(f"{folder}: {problem} ({ACCEPT_HINT})")
        first, also, rest = problem.partition(ALSO)
        raise ResultsError(f"{folder}: {first} since its run ended{also}{rest} ({ACCEPT_HINT})")
    check = SealCheck(folder, before, sealed)
    check.unsealed = sealed is None and (folder / MANIFEST).is_file()
    check()  # what the seal's check hashed is what the folder holds
    return check


_DIR = stat.S_IFDIR
_KINDS = (stat.S_IFREG, stat.S_IFDIR)  # what a run writes: files and folders, never a link


def folder_state(folder: Path) -> dict[str, tuple[int, ...]]:
    """Each entry's (kind, device, inode, size, modification and change times), by path
    relative to ``folder`` ("" for itself, followed if it is a link): what any write,
    rename, link or removal in it moves. The kernel sets a change time to the clock: no
    user can set one back. A link is its own entry, never followed."""
    out: dict[str, tuple[int, ...]] = {}
    for path in [folder, *_entries(folder)]:
        try:
            found = path.stat() if path == folder else path.lstat()
        except FileNotFoundError:  # removed meanwhile: the other state holds it
            continue
        name = "" if path == folder else path.relative_to(folder).as_posix()
        marks = (found.st_size, found.st_mtime_ns, found.st_ctime_ns)
        out[name] = (stat.S_IFMT(found.st_mode), found.st_dev, found.st_ino, *marks)
    return out


def results_folder_of(path: Path) -> Path | None:
    """The results folder ``path`` is or lies in (the folder, or its ``records/`` and what
    lies there), or None: one with a ``manifest.json`` of any kind, or a table's folder
    (``games/``, ``seats/``, ...), so that a folder whose manifest was removed is refused,
    never read as loose records. A name the system cannot take is no results folder."""
    candidates = [path, *(a.parent for a in [path, *path.parents] if a.name == "records")]
    for candidate in candidates:
        try:
            if candidate.is_dir() and (
                _has_manifest(candidate) or any((candidate / t).is_dir() for t in WRITE_ORDER)
            ):
                return candidate
        except OSError:  # a name past the system's limits
            continue
    return None


def holds_results(folder: Path) -> bool:
    """Whether ``folder`` is a results folder a run wrote (its manifest and its games)."""
    try:
        return (folder / MANIFEST).is_file() and (folder / "games").is_dir()
    except OSError:
        return False


def _has_manifest(folder: Path) -> bool:
    return os.path.lexists(folder / MANIFEST)


UNSEALED_NOTE = (
    "its run has not ended (it was killed, or it still runs): its files are not sealed, so a "
    "change to them would not be seen; cardgame simulate ... --resume seals them"
)


LOOSE_NOTE = (
    "holds no manifest.json: its records are loose files, not sealed by a run, so a change "
    "to them would not be seen"
)


def check_source(path: str | Path, accept_changes: bool = False) -> SealCheck:
    """``check_sealed`` for what a command reads: a results folder or a record file in one
    (``cardgame view``, ``cardgame replay``); the check to read it through and to call once
    it is read. A run's ``records/`` with nothing else of its folder is read as loose
    records, with a warning (``note``): hostile pass 23's loose23.py stripped a folder to
    its records and put another run's in, shown as if they were the run's."""
    folder = results_folder_of(Path(path))
    if folder is not None:
        return check_sealed(folder, accept_changes)
    check = SealCheck(Path(path))
    check.loose = _records_folder_of(Path(path))
    return check


def _records_folder_of(path: Path) -> Path | None:
    """The folder holding ``path`` as its ``records/`` of a run's record files, or None."""
    for records in (path / "records", path, path.parent):
        try:
            if records.name == "records" and record_files(records):
                return records.parent
        except OSError:
            continue
    return None
