"""The files a sandboxed guest can read: what Python, the project and numpy need, nothing
else of the machine, each read into memory before a host starts.

Why so few: every file a game can read is shared with every other sandbox through the page
cache, and a page's being there or not is a bit a game sets by reading it and another reads
back by timing a read (hostile pass 7 carried a paired game's opening hand, 126 bits of 126,
through cold pages of rarely read files under /usr). A file whose pages are all in memory
carries nothing: no game may evict a page (``sandbox.DENIED``: fadvise, readahead, the
evicting madvise advice), so reading one changes nothing another can see. Hence a small
view, read whole (``warm``) when a host starts, instead of all of /usr.

The view: the interpreter and its shared libraries (each ELF file's needs, resolved as the
dynamic loader does), the standard library without its tests, IDLE, Tk and installers, the
distributions of ``GUEST_DISTRIBUTIONS`` (found through their installed file lists), the
project's own packages, ``ldconfig`` and its cache (ctypes finds libseccomp with them).
"""

from __future__ import annotations

import mmap
import os
import select
import struct
import subprocess
import sys
from functools import cache
from importlib import metadata
from importlib import util as import_util
from pathlib import Path

# the distributions a guest's Python sees besides the standard library: the project's own
# (its files, or an editable install's finder), numpy for strategies, and the seccomp
# binding the host loads before a game is confined
GUEST_DISTRIBUTIONS = ("ttr-cardgame", "numpy", "pyseccomp")
# parts of the standard library no strategy needs, with most of its bytes (the test suite
# alone is 120 MB): hidden behind an empty read-only folder
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
        """bwrap's arguments: each bind, then an empty read-only tmpfs on each hidden
        folder (made read-only with the rest: ``sandbox.command`` remounts it)."""
        out: list[str] = []
        for source, target in self.binds:
            out += ["--ro-bind", source, target]
        for folder in self.hidden:
            out += ["--size", "4096", "--tmpfs", folder, "--remount-ro", folder]
        return out

    def files(self) -> list[str]:
        """Every regular file the view shows (hidden folders left out), for ``warm``."""
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


def warm(view: View) -> None:
    """Read every file of the view whole (into one reused buffer), so that all its pages are
    in the page cache: a game then finds no cold page to set. ``posix_fadvise``'s WILLNEED
    is not enough: measured, it left 1,055 of a library's 6,203 pages out. Files that
    vanish or cannot be opened are skipped (they are not shown either)."""
    buffer = bytearray(1 << 20)
    for path in view.files():
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            while os.readv(fd, [buffer]):
                pass
        except OSError:
            pass
        finally:
            os.close(fd)


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
