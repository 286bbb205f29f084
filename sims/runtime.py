"""The files a sandboxed guest can read: what Python, the project and numpy need, nothing
else of the machine, copied once into a tmpfs that every sandbox binds read-only.

Why a copy in a tmpfs: every folder and file a game can look up is shared with every other
sandbox through the kernel's caches, and their state is a bit a game sets and another reads
back by timing. A page of a disk file is cached or not (hostile pass 7 carried a paired
game's hand, 126 bits of 126, through cold pages of rarely read files under /usr); a name
looked up and not found leaves a negative dentry in a disk filesystem's folder, which makes
the next lookup of it from any sandbox twice as fast (pass 8: every hand exact, across runs
too, and 145 MB of kernel memory in 4 s of lookups). A tmpfs keeps every page in memory (no
swap here to push one out) and no negative dentry (its lookups never cache a name that is
not there), so neither state exists to set.

The view: the interpreter and its shared libraries (each ELF file's needs, resolved as the
dynamic loader does), the standard library without its tests, IDLE, Tk, installers and
build files, the distributions of ``GUEST_DISTRIBUTIONS`` (found through their installed
file lists), the project's own packages, ``ldconfig`` and its cache (ctypes finds
libseccomp with them). About 210 MB, copied once a machine while any process uses it
(``held_copy``: named by a digest of every file's path, size and time, removed by the last
process to let it go).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import mmap
import os
import select
import shutil
import stat
import struct
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from functools import cache
from importlib import metadata
from importlib import util as import_util
from pathlib import Path

# the distributions a guest's Python sees besides the standard library: the project's own
# (its files, or an editable install's finder), numpy for strategies, and the seccomp
# binding the host loads before a game is confined
GUEST_DISTRIBUTIONS = ("ttr-cardgame", "numpy", "pyseccomp")
# parts of the standard library no strategy needs, with most of its bytes (the test suite
# alone is 120 MB): not copied
STDLIB_HIDDEN = (
    "test",
    "idlelib",
    "tkinter",
    "turtledemo",
    "ensurepip",
    "lib2to3",
    "site-packages",
    "dist-packages",
)  # and config-*: the static library and build files
LDCONFIG = "/sbin/ldconfig"  # the path ctypes.util.find_library runs
LD_CACHE = "/etc/ld.so.cache"
DEFAULT_LIBRARY_DIRS = (
    "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
    "/lib", "/usr/lib", "/usr/local/lib",
)  # fmt: skip


class View:
    """Read-only binds (source, destination) and hidden folders of a guest's sandbox."""

    def __init__(self, binds: list[tuple[str, str]], hidden: list[str]) -> None:
        self.binds = binds
        self.hidden = hidden

    def arguments(self) -> list[str]:
        """bwrap's arguments: each bind. Only a copy reaches bwrap (``held_copy``), and a
        copy leaves its hidden folders out."""
        if self.hidden:
            raise ValueError("a view with hidden folders is bound only as its copy")
        out: list[str] = []
        for source, target in self.binds:
            out += ["--ro-bind", source, target]
        return out

    def files(self) -> list[str]:
        """Every regular file the view shows (hidden folders left out)."""
        found: list[str] = []
        hidden = tuple(folder + "/" for folder in self.hidden)
        for source, target in self.binds:
            if not os.path.isdir(source):
                found.append(source)
                continue
            for folder, names, files in os.walk(source):
                shown = target + folder[len(source) :] + "/"
                if shown.startswith(hidden):
                    names[:] = []
                    continue
                names[:] = [n for n in names if not (shown + n + "/").startswith(hidden)]
                found += [os.path.join(folder, name) for name in files]
        return found


# ------------------------------------------------------------------ the copy in a tmpfs
TMPFS_FOLDERS = ("/dev/shm", "/run/shm")  # where the copy can live, the first tmpfs found
COPY_PREFIX = "cardgame-view-"  # then the user's id and a digest of the view
COPY_FORMAT = 1
DONE = ".complete"  # written last: a copy without it is being made or removed
LOCK = ".lock"  # each process using the copy holds a shared flock on it


class CopyUnavailable(RuntimeError):
    """The machine has no tmpfs with room for the copy: the sandbox is not built."""


def tmpfs_folder() -> str:
    """The first folder of ``TMPFS_FOLDERS`` that is a writable tmpfs mount point."""
    mounts = {}
    with contextlib.suppress(OSError), open("/proc/self/mounts", encoding="utf-8") as lines:
        for line in lines:
            fields = line.split()
            if len(fields) > 2:
                mounts[fields[1]] = fields[2]
    for folder in TMPFS_FOLDERS:
        if mounts.get(folder) == "tmpfs" and os.access(folder, os.W_OK | os.X_OK):
            return folder
    raise CopyUnavailable(
        f"the guest sandbox needs a writable tmpfs at {' or '.join(TMPFS_FOLDERS)} "
        "for its read-only copy of Python"
    )


# digest -> (its lock's descriptor, its folder, the process that took the lock): a process
# forked from this one (a pool's worker) shares the descriptor's lock, so it must take one
# of its own, and never treat the inherited one as its own to upgrade and remove the copy
_held: dict[str, tuple[int, str, int]] = {}


def held_python_copy() -> View:
    """``held_copy`` of ``python_view``, whose files are taken as fixed for the process,
    as the view itself is: named once a process, not at every host's start (43 ms)."""
    view = python_view()
    digest = _python_digest.get(os.getpid())
    if digest is None:
        digest = _python_digest[os.getpid()] = _digest(view, view.files())
    return _hold(view, digest)


_python_digest: dict[int, str] = {}  # process -> the digest of its python_view


def held_copy(view: View) -> View:
    """The view as binds of its copy in a tmpfs (made here if no live process made it),
    which this process holds until it ends (``release_copies``)."""
    return _hold(view, _digest(view, view.files()))


def _hold(view: View, digest: str) -> View:
    """``held_copy`` of a view already named by its digest."""
    if digest in _held and _held[digest][2] == os.getpid():
        return _copied_view(view, _held[digest][1])
    root = tmpfs_folder()
    folder = os.path.join(root, f"{COPY_PREFIX}{os.geteuid()}-{digest}")
    for _ in range(20):  # a copy being removed by its last user as this one arrives
        try:
            fd = os.open(os.path.join(folder, LOCK), os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:
            _make_copy(view, view.files(), folder)
            continue
        fcntl.flock(fd, fcntl.LOCK_SH)
        if os.path.exists(os.path.join(folder, DONE)):
            if not _trusted(folder):
                os.close(fd)
                raise CopyUnavailable(
                    f"{folder} is not this user's own copy (another owner, or writable by "
                    "others): the guest sandbox does not use it; remove it"
                )
            _forget_inherited(digest)
            _held[digest] = (fd, folder, os.getpid())
            _sweep_copies(root, keep=folder)
            return _copied_view(view, folder)
        os.close(fd)
        _remove_if_unused(folder)
    raise CopyUnavailable(f"the guest sandbox's copy of Python in {root} could not be made")


def release_copies() -> None:
    """Let this process's copies go; remove each that no other process holds."""
    for digest, (fd, folder, owner) in list(_held.items()):
        if owner != os.getpid():
            _forget_inherited(digest)
            continue
        del _held[digest]
        _remove_unless_held(fd, folder)  # another process holding it removes it


def _forget_inherited(digest: str) -> None:
    """Drop a hold this process inherited from the one that forked it: closing its copy of
    the descriptor leaves the parent's lock as it is."""
    found = _held.get(digest)
    if found is not None and found[2] != os.getpid():
        del _held[digest]
        with contextlib.suppress(OSError):
            os.close(found[0])


def _copied_view(view: View, folder: str) -> View:
    return View([(folder + target, target) for _, target in view.binds], [])


def _digest(view: View, files: list[str]) -> str:
    """Names the copy: every bind, and every file's path, size and modification time."""
    digest = hashlib.sha256(f"{COPY_FORMAT} {sys.version} {view.binds} {view.hidden}".encode())
    for path in files:
        with contextlib.suppress(OSError):
            info = os.stat(path)
            digest.update(f"\0{path}\0{info.st_size}\0{info.st_mtime_ns}".encode())
    return digest.hexdigest()[:24]


def _make_copy(view: View, files: list[str], folder: str) -> None:
    """Copy the view under a folder of its own, then rename it into place (the first of two
    processes making it at once wins; the other's is removed)."""
    needed = sum(os.path.getsize(f) for f in files if os.path.isfile(f))
    root = os.path.dirname(folder)
    free = os.statvfs(root)
    if free.f_bavail * free.f_frsize < needed + (64 << 20):
        raise CopyUnavailable(
            f"the guest sandbox needs {needed / 1e6 + 64:,.0f} MB free in {root} for its "
            f"read-only copy of Python ({free.f_bavail * free.f_frsize / 1e6:,.0f} MB free)"
        )
    hidden = tuple(h + "/" for h in view.hidden)
    staging = tempfile.mkdtemp(prefix=f"{COPY_PREFIX}{os.geteuid()}-stage-{os.getpid()}-", dir=root)
    try:
        for source, target in view.binds:
            place = staging + target
            os.makedirs(os.path.dirname(place), exist_ok=True)
            if os.path.isdir(source):

                def skipped(folder: str, names: list[str], _s=source, _t=target) -> set[str]:
                    shown = _t + folder[len(_s) :] + "/"
                    return {n for n in names if (shown + n + "/").startswith(hidden)}

                shutil.copytree(source, place, symlinks=True, ignore=skipped)
            else:
                shutil.copy2(source, place)
        os.close(os.open(os.path.join(staging, LOCK), os.O_WRONLY | os.O_CREAT, 0o644))
        os.close(os.open(os.path.join(staging, DONE), os.O_WRONLY | os.O_CREAT, 0o644))
        os.chmod(staging, 0o755)
        _no_other_writers(staging)
        os.rename(staging, folder)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        if not os.path.isdir(folder):  # not another's copy in place first: a real failure
            raise CopyUnavailable(
                f"the guest sandbox's copy of Python could not be made in {root} ({exc})"
            ) from None


def _entries(folder: str) -> Iterator[str]:
    yield folder
    for place, names, files in os.walk(folder):
        for name in names + files:
            yield os.path.join(place, name)


def _no_other_writers(folder: str) -> None:
    """No file or folder of a copy writable by anyone but its maker (the sources' modes are
    copied with them)."""
    for path in _entries(folder):
        mode = os.lstat(path).st_mode
        if mode & 0o022 and not stat.S_ISLNK(mode):
            os.chmod(path, stat.S_IMODE(mode) & ~0o022)


def _trusted(folder: str) -> bool:
    """Whether every entry of a copy is this user's and writable by no one else: /dev/shm
    is everyone's, and a copy planted under this user's name by another (hostile pass 9's
    plant.py) would decide what every guest runs."""
    me = os.geteuid()
    for path in _entries(folder):
        info = os.lstat(path)
        if info.st_uid != me or (info.st_mode & 0o022 and not stat.S_ISLNK(info.st_mode)):
            return False
    return True


def _remove_if_unused(folder: str) -> None:
    """Remove a copy that is incomplete (a process died making or removing it) when no
    process holds it."""
    try:
        fd = os.open(os.path.join(folder, LOCK), os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        shutil.rmtree(folder, ignore_errors=True)
        return
    _remove_unless_held(fd, folder)


def _remove_unless_held(fd: int, folder: str) -> None:
    """Remove a copy (its mark of completion first) unless another descriptor holds a lock
    on it; ``fd``, a descriptor of its lock file, is closed either way."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return
    with contextlib.suppress(OSError):
        os.unlink(os.path.join(folder, DONE))
    shutil.rmtree(folder, ignore_errors=True)
    os.close(fd)


def _sweep_copies(root: str, keep: str) -> None:
    """Remove other copies no process holds (an older view, or one left by a process killed
    outright), and staging folders whose process is gone."""
    mine = f"{COPY_PREFIX}{os.geteuid()}-"
    for entry in Path(root).glob(f"{mine}*"):
        if str(entry) == keep or entry.stat().st_uid != os.geteuid():
            continue
        rest = entry.name[len(mine) :]
        if rest.startswith("stage-"):  # named by its maker's pid
            maker = rest.split("-")[1]
            if maker.isdigit() and not os.path.exists(f"/proc/{maker}"):
                shutil.rmtree(entry, ignore_errors=True)
            continue
        _remove_if_unused(str(entry))


@cache
def python_view() -> View:
    """What Python, the project and numpy need (computed once a process)."""
    binds: dict[str, str] = {}
    hidden: list[str] = []

    def bind(path: str) -> None:
        if os.path.lexists(path):
            binds.setdefault(_real_folder(path), path)

    executable = sys.executable
    bind(executable)  # the environment's name of it (a link), and the file itself
    bind(os.path.realpath(executable))
    config = Path(sys.prefix) / "pyvenv.cfg"
    bind(str(config))
    stdlib = os.path.dirname(os.__file__)  # the base installation's, in a venv too
    bind(stdlib)
    hidden += [_real_folder(os.path.join(stdlib, name)) for name in sorted(os.listdir(stdlib))
               if (name in STDLIB_HIDDEN or name.startswith("config-"))
               and os.path.isdir(os.path.join(stdlib, name))]  # fmt: skip
    dynload = os.path.dirname(getattr(select, "__file__", "") or stdlib)  # lib-dynload
    if dynload != stdlib:
        bind(dynload)
    for entry in _distribution_entries(GUEST_DISTRIBUTIONS):
        bind(entry)
    for package in ("cardgame", "sims"):  # an editable install: the packages' own folders
        found = import_util.find_spec(package)
        if found is not None and found.submodule_search_locations:
            bind(str(Path(next(iter(found.submodule_search_locations))).resolve()))
    for path in (LDCONFIG, LD_CACHE):
        bind(path)
    ordinary = View([(source, target) for target, source in binds.items()], hidden)
    elves = [f for f in ordinary.files() if ".so" in os.path.basename(f) or f.endswith("/python")
             or os.path.basename(f).startswith("python")]  # fmt: skip
    for library in shared_libraries(elves):
        bind(library)
    # a folder inside another bind is shown by it already
    targets = sorted(binds)
    kept = [(binds[t], t) for t in targets if not _inside(t, targets)]
    return View(kept, sorted(hidden))


def _real_folder(path: str) -> str:
    """Where a path is, with its folders' links resolved (not the file's own: a library
    named by its soname link is bound at that name)."""
    return os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))


def _inside(path: str, folders: list[str]) -> bool:
    return any(path.startswith(folder + "/") for folder in folders)


def _distribution_entries(names: tuple[str, ...]) -> list[str]:
    """The top-level entries (folders, modules, .pth files, the finder of an editable
    install, dist-info) that the distributions ``names`` installed in the environment's
    site-packages, as their installed file lists (RECORD) say."""
    site_dirs = [p for p in sys.path if os.path.basename(p) in ("site-packages", "dist-packages")]
    wanted = {_normal(name) for name in names}
    out: set[str] = set()
    for found in metadata.distributions(path=site_dirs):
        if _normal(found.metadata["Name"] or "") not in wanted:
            continue
        base = Path(str(found.locate_file(""))).resolve()
        for line in (found.read_text("RECORD") or "").splitlines():
            top = line.split(",")[0].split("/")[0]
            entry = base / top
            if top and top not in (".", "..") and entry.exists():
                out.add(str(entry))
    return sorted(out)


def _normal(name: str) -> str:
    return name.lower().replace("-", "_").replace(".", "_")


# ------------------------------------------------------------------ shared libraries
def shared_libraries(files: list[str]) -> list[str]:
    """Every shared library the ELF files among ``files`` load, their own needs included,
    and the dynamic loader: the paths the loader would open (its cache, then the usual
    folders), plus libc and libseccomp, which ctypes loads by name."""
    cache_map = _loader_cache()
    todo = [f for f in files if (".so" in os.path.basename(f) or os.access(f, os.X_OK))
            and _is_elf(f)]  # fmt: skip
    for name in ("libc.so.6", "libseccomp.so.2"):
        todo += cache_map.get(name, [])
    found: set[str] = set()
    done: set[str] = set()
    while todo:
        path = todo.pop()
        if path in done:
            continue
        done.add(path)
        parsed = _elf_needs(path)
        if parsed is None:
            continue
        interpreter, needed, search = parsed
        if interpreter:
            found.add(interpreter)
            todo.append(interpreter)
        origin = os.path.dirname(os.path.realpath(path))
        folders = [d.replace("$ORIGIN", origin).replace("${ORIGIN}", origin) for d in search]
        for name in needed:
            paths = [
                os.path.join(d, name) for d in folders if os.path.exists(os.path.join(d, name))
            ]
            paths = paths[:1] or cache_map.get(name, []) or [
                os.path.join(d, name) for d in DEFAULT_LIBRARY_DIRS
                if os.path.exists(os.path.join(d, name))
            ][:1]  # fmt: skip
            for library in paths:
                found.add(library)
                todo.append(library)
    for name in ("libc.so.6", "libseccomp.so.2"):
        found.update(cache_map.get(name, []))
    return sorted(found)


@cache
def _loader_cache() -> dict[str, list[str]]:
    """soname -> paths, from the dynamic loader's cache (``ldconfig -p``): every entry of
    this machine's word size, hardware-capability variants included."""
    try:
        text = subprocess.run(
            [LDCONFIG, "-p"], capture_output=True, text=True, timeout=30, env={"LC_ALL": "C"}
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    wide = sys.maxsize > 2**32
    out: dict[str, list[str]] = {}
    for line in text.splitlines()[1:]:
        name, _, rest = line.strip().partition(" (")
        kind, _, path = rest.partition(") => ")
        if path and (("64" in kind) == wide):
            out.setdefault(name, []).append(path)
    return out


def _is_elf(path: str) -> bool:
    try:
        with open(path, "rb") as file:
            return file.read(4) == b"\x7fELF"
    except OSError:
        return False


PT_LOAD, PT_DYNAMIC, PT_INTERP = 1, 2, 3
DT_NEEDED, DT_STRTAB, DT_RPATH, DT_RUNPATH = 1, 5, 15, 29


def _elf_needs(path: str) -> tuple[str, list[str], list[str]] | None:
    """A 64-bit little-endian ELF file's interpreter, DT_NEEDED names and library search
    folders (RUNPATH, else RPATH); None for any other file."""
    try:
        with open(path, "rb") as file, mmap.mmap(file.fileno(), 0, prot=mmap.PROT_READ) as data:
            return _parse_elf(data)
    except (OSError, ValueError, struct.error, IndexError, UnicodeDecodeError):
        return None


def _parse_elf(data: mmap.mmap) -> tuple[str, list[str], list[str]] | None:
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return None
    (phoff,) = struct.unpack_from("<Q", data, 32)
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    loads, dynamic, interpreter = [], None, ""
    for i in range(phnum):
        kind, _, offset, vaddr, _, filesz, _, _ = struct.unpack_from(
            "<IIQQQQQQ", data, phoff + i * phentsize
        )
        if kind == PT_LOAD:
            loads.append((vaddr, offset, filesz))
        elif kind == PT_DYNAMIC:
            dynamic = (offset, filesz)
        elif kind == PT_INTERP:
            interpreter = bytes(data[offset : offset + filesz]).rstrip(b"\0").decode()
    if dynamic is None:
        return interpreter, [], []
    entries = []
    for at in range(dynamic[0], dynamic[0] + dynamic[1], 16):
        tag, value = struct.unpack_from("<qQ", data, at)
        if tag == 0:
            break
        entries.append((tag, value))
    strtab = next((v for t, v in entries if t == DT_STRTAB), None)
    if strtab is None:
        return interpreter, [], []
    base = next((o + strtab - v for v, o, n in loads if v <= strtab < v + n), None)
    if base is None:
        return interpreter, [], []

    def text(offset: int) -> str:
        end = data.find(b"\0", base + offset)
        return bytes(data[base + offset : end]).decode("utf-8", "replace")

    needed = [text(v) for t, v in entries if t == DT_NEEDED]
    runpath = [text(v) for t, v in entries if t == DT_RUNPATH]
    rpath = [text(v) for t, v in entries if t == DT_RPATH]
    search = [d for item in (runpath or rpath) for d in item.split(":") if d]
    return interpreter, needed, search
