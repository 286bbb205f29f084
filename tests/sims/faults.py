"""Helpers for tests that stop, kill and starve runs: child processes with a known signal
disposition, a gate that holds a run until the test opens it, /proc queries, and a Dask
scheduler and workers as processes of their own.

A test waits for an event (a file, a landed part, a log line), never for time to pass: the
limits below only turn a hang into a failure, and allow for a heavily loaded machine.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from sims.parts import part_files
from tests.sims.broken import GATE

T = TypeVar("T")
ROOT = Path(__file__).resolve().parents[2]
READY_SECONDS = 180  # for an event that comes in a second on an idle machine
EXIT_SECONDS = 60  # for a process told to stop

# Starts a new Python with SIGINT and SIGTERM set as asked, whatever this process inherited:
# a background job, `nohup` and some CI runners start the tests with SIGINT ignored, and a
# child inherits that (a signal test then waits for an exit that never comes).
_LAUNCH = (
    "import os, signal, sys\n"
    "signal.signal(signal.SIGINT, getattr(signal, sys.argv[1]))\n"
    "signal.signal(signal.SIGTERM, signal.SIG_DFL)\n"
    "os.execv(sys.executable, [sys.executable, *sys.argv[2:]])\n"
)


def python(*args: str, sigint: str = "SIG_DFL") -> list[str]:
    """A command running ``python *args`` with SIGINT's disposition ``sigint``."""
    return [sys.executable, "-c", _LAUNCH, sigint, *args]


def cardgame(*args: str, sigint: str = "SIG_DFL") -> list[str]:
    """A `cardgame` command line, as from a terminal (SIGINT at its default)."""
    return python("-m", "cardgame.cli", *args, sigint=sigint)


class Gate:
    """The gate of ``tests.sims.broken:Gated``: shut until ``open``."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / "gate"

    @property
    def env(self) -> dict[str, str]:
        return {**os.environ, GATE: str(self.path), "PYTHONPATH": str(ROOT)}

    def waiting(self) -> bool:
        """A Gated game is waiting (so the run cannot end before the gate opens)."""
        return Path(f"{self.path}.waiting").exists()

    def waiting_pid(self) -> int | None:
        """The process id of a worker whose Gated game is waiting, if one is."""
        try:
            text = Path(f"{self.path}.waiting").read_text()
        except OSError:
            return None
        return int(text) if text.isdigit() else None

    def open(self) -> None:
        self.path.touch()


def gated_study(folder: Path, name: str = "gated", plain: int = 8, gated: int = 8) -> Path:
    """A study file of two cells in batches of 2: planner+random, which plays at once, then
    planner+Gated, whose games wait for the gate (no decision limit: they wait as long as it
    takes)."""
    study = folder / f"{name}.toml"
    study.write_text(
        f'name = "{name}"\nseed = 5\nplayers = [2]\nbatch_size = 2\n'
        'lineups = [{ seats = ["planner", "random"], games = ' + str(plain) + " }, "
        '{ seats = ["planner", "tests.sims.broken:Gated"], games = ' + str(gated) + " }]\n"
        "[limits]\ndecision_seconds = 0\n"
    )
    return study


def wait_until(condition: Callable[[], T], what: str, seconds: float = READY_SECONDS) -> T:
    """The condition's first true value."""
    deadline = time.monotonic() + seconds
    while not (value := condition()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)
    return value


def parts(out: Path) -> int:
    """Batches landed in a results folder."""
    return len(part_files(out / "games"))


def wait_ready(out: Path, gate: Gate, landed: int = 4) -> None:
    """The plain cell has landed and a Gated game waits: the run is held, mid-way."""
    wait_until(lambda: parts(out) >= landed and gate.waiting(), "a held run")


def result_files(folder: Path) -> dict[str, bytes]:
    """Every results file but the manifest (its fingerprint names the code), by path."""
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != "manifest.json"
    }


class Processes:
    """Child processes in process groups of their own, all killed when the test ends."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.started: list[subprocess.Popen[bytes]] = []

    def start(
        self,
        command: list[str],
        name: str,
        env: dict[str, str] | None = None,
        cwd: Path = ROOT,
    ) -> subprocess.Popen[bytes]:
        # output to files, not pipes: orphaned workers would hold a pipe open
        out, err = self.folder / f"{name}.out", self.folder / f"{name}.err"
        with open(out, "w") as stdout, open(err, "w") as stderr:
            process = subprocess.Popen(
                command,
                cwd=cwd,
                stdout=stdout,
                stderr=stderr,
                env=env,
                start_new_session=True,
            )
        process.out_path, process.err_path = out, err  # type: ignore[attr-defined]
        self.started.append(process)
        return process

    def close(self) -> None:
        for process in self.started:
            kill_group(process)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=EXIT_SECONDS)


def finish(process: subprocess.Popen[bytes], seconds: float = EXIT_SECONDS) -> str:
    """Wait for the process to exit; its stderr."""
    process.wait(timeout=seconds)
    return Path(process.err_path).read_text()  # type: ignore[attr-defined]


def output(process: subprocess.Popen[bytes]) -> str:
    return Path(process.out_path).read_text()  # type: ignore[attr-defined]


def kill_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


# /proc --------------------------------------------------------------------------------------
def _stat(pid: int | str) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text.rsplit(")", 1)[1].split()  # fields after the command name: state, ppid, ...


def children(pid: int) -> list[int]:
    """PIDs whose parent is ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat(entry.name)
            if fields and fields[1] == str(pid):
                found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    fields = _stat(pid)
    return fields is not None and fields[0] not in ("Z", "X")  # a zombie has ended


def wait_for_workers(process: subprocess.Popen[bytes], count: int) -> list[int]:
    wait_until(lambda: len(children(process.pid)) >= count, "worker processes")
    return children(process.pid)


def assert_all_gone(pids: list[int], seconds: float = EXIT_SECONDS) -> None:
    wait_until(lambda: not any(alive(p) for p in pids), f"the end of {pids}", seconds)


def sigint_disposition(pid: int) -> str:
    """SIGINT's disposition in process ``pid``: ignored, caught or default (/proc)."""
    status = Path(f"/proc/{pid}/status").read_text()
    masks = dict(line.split(":\t", 1) for line in status.splitlines() if ":\t" in line)
    bit = 1 << (signal.SIGINT - 1)
    if int(masks["SigIgn"], 16) & bit:
        return "ignored"
    return "caught" if int(masks["SigCgt"], 16) & bit else "default"


# Dask ---------------------------------------------------------------------------------------
def start_scheduler(procs: Processes, env: dict[str, str], name: str) -> tuple[str, Path]:
    """A Dask scheduler process: its address, and its log (which names each worker that
    registers)."""
    info = procs.folder / f"{name}.json"
    env = {**env, "DASK_LOGGING__DISTRIBUTED": "info"}  # its log says when workers register
    procs.start(
        python("-m", "distributed.cli.dask_scheduler", "--scheduler-file", str(info),
               "--host", "127.0.0.1", "--port", "0", "--no-dashboard"),
        name, env,
    )  # fmt: skip

    def address() -> str | None:
        try:
            return str(json.loads(info.read_text())["address"])
        except (OSError, ValueError, KeyError):
            return None

    wait_until(lambda: address() is not None, "the Dask scheduler")
    return str(address()), procs.folder / f"{name}.err"


def start_worker(
    procs: Processes, env: dict[str, str], address: str, log: Path, name: str
) -> subprocess.Popen[bytes]:
    """One Dask worker process with one thread, registered with the scheduler on return."""
    registered = log.read_text().count("Register worker")
    worker = procs.start(
        python("-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
               "--no-nanny", "--no-dashboard"),
        name, env,
    )  # fmt: skip
    wait_until(lambda: log.read_text().count("Register worker") > registered, "a Dask worker")
    return worker
