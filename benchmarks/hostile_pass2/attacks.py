# ruff: noqa: SIM115, B023  (attack code: short-lived files, probes in loops)
"""Hostile strategies of a second independent pass on ``--isolate`` (benchmarks/hostile_pass2).

Each plays like a planner and reports on stderr (``HOSTILE <name>: ...``), which reaches the
run's terminal marked as the guest's."""

from __future__ import annotations

import json
import os
import sys
import time

from sims.strategies.planner import Planner


def say(name: str, text: str) -> None:
    sys.stderr.write(f"HOSTILE {name}: {text}\n")
    sys.stderr.flush()


def _try(fn):
    try:
        return fn()
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"


def _link(path):
    return _try(lambda: os.readlink(path))


class Pid1Probe(Planner):
    """What of bwrap's pid 1 a game's process reaches: its fds (the host's control pipes)."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        out = {"self": os.getpid(), "pids": sorted(p for p in os.listdir("/proc") if p.isdigit())}
        for pid in ("1", "2"):
            out[pid] = {
                "status": _try(
                    lambda: [
                        ln
                        for ln in open(f"/proc/{pid}/status")
                        if ln.startswith(("Cap", "Name", "PPid", "Uid", "Seccomp"))
                    ]
                ),
                "fds": _try(
                    lambda: {f: _link(f"/proc/{pid}/fd/{f}") for f in os.listdir(f"/proc/{pid}/fd")}
                ),
                "mem": _try(lambda: os.open(f"/proc/{pid}/mem", os.O_RDWR)),
            }
        out["selffd"] = {f: _link(f"/proc/self/fd/{f}") for f in os.listdir("/proc/self/fd")}
        say("Pid1Probe", json.dumps(out)[:3500])


# ------------------------------------------------------------------ bwrap's pid 1
# bwrap's pid 1 (its init, in the sandbox's pid namespace) keeps its standard streams: fd 0
# is the read end of the worker's control pipe to the host, fd 1 the write end of the host's
# reports. It runs as the same (namespace) user, with no seccomp and dumpable, so a game's
# process can open /proc/1/fd/0 for writing and /proc/1/mem for reading and writing.
CONTROL_IN = "/proc/1/fd/0"


def crash_host(name: str) -> None:
    """Write a line the host cannot parse into its control pipe: its json.loads raises, the
    host dies, its pipes close, and the worker reads that as an end from outside."""
    try:
        fd = os.open(CONTROL_IN, os.O_WRONLY)
        os.write(fd, b"not json\n")
        os.close(fd)
        say(name, "wrote a bad order into the host's control pipe via /proc/1/fd/0")
    except OSError as exc:
        say(name, f"blocked: {exc}")


class HostCrash(Planner):
    """Void every game as the machine's: crash the host on its first decision."""

    def decide(self, view):
        crash_host("HostCrash")
        time.sleep(1)
        return super().decide(view)


class VoidWhenBehind(Planner):
    """Choose which games count: play on, and crash the host (the game is replayed, then
    called the machine's) only when it moves second, or when the rival's destination
    points of the rounds so far are ahead (any rule it likes works)."""

    def decide(self, view):
        # round_points: per seat, its points of each finished round
        totals = [sum(points) for points in view.round_points]
        me = totals[view.seat]
        best_rival = max(t for s, t in enumerate(totals) if s != view.seat)
        if view.seat == 1 or best_rival > me:
            say("VoidWhenBehind", f"seat {view.seat}: behind {me} to {best_rival}: voiding")
            crash_host("VoidWhenBehind")
            time.sleep(1)
        return super().decide(view)


def _pid1_scratch() -> int:
    """An address in bwrap pid 1's memory no one uses: the lowest page of its stack VMA."""
    for line in open("/proc/1/maps"):
        if line.rstrip().endswith("[stack]"):
            return int(line.split("-")[0], 16)
    raise OSError("no stack in /proc/1/maps")


MAGIC = b"HP2MEMO:"


def pid1_read() -> dict:
    fd = os.open("/proc/1/mem", os.O_RDONLY)
    try:
        data = os.pread(fd, 4096, _pid1_scratch())
    finally:
        os.close(fd)
    if data.startswith(MAGIC):
        end = data.index(b"\0", len(MAGIC))
        return json.loads(data[len(MAGIC) : end])
    return {}


def pid1_write(memo: dict) -> None:
    blob = MAGIC + json.dumps(memo).encode() + b"\0"
    if len(blob) > 4096:
        raise ValueError("memo too big")
    fd = os.open("/proc/1/mem", os.O_RDWR)
    try:
        os.pwrite(fd, blob, _pid1_scratch())
    finally:
        os.close(fd)


class Pid1Memory(Planner):
    """Memory across games in bwrap pid 1's memory (its /tmp and /dev/shm are emptied, its
    root read-only): counts games, and remembers each deal's opening hand by its face-up row;
    in a paired study (pairing = "seatings") a deal seen before from the other seat tells
    the hand the rival holds now."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        self.first = True

    def decide(self, view):
        if self.first:
            self.first = False
            try:
                memo = pid1_read()
                memo["games"] = memo.get("games", 0) + 1
                key = repr(view.face_up)
                deals = memo.setdefault("deals", {})
                if key in deals and deals[key]["seat"] != view.seat:
                    say(
                        "Pid1Memory",
                        f"seat {view.seat}: deal seen before from seat "
                        f"{deals[key]['seat']}; the rival's opening hand is {deals[key]['hand']}"
                        f" tickets {deals[key]['held']} (mine now {list(view.hand)})",
                    )
                deals.setdefault(
                    key,
                    {
                        "seat": view.seat,
                        "hand": list(view.hand),
                        "held": list(view.held_ids) + list(view.offer_ids),
                    },
                )
                while len(json.dumps(memo)) > 3500:
                    deals.pop(next(iter(deals)))
                pid1_write(memo)
                say("Pid1Memory", f"game number {memo['games']} of this host (remembered)")
            except Exception as exc:
                say("Pid1Memory", f"blocked: {type(exc).__name__}: {exc}")
        return super().decide(view)


class StealOrders(Planner):
    """Stall the run: a thread of the game's process reads the worker's orders to the host
    from /proc/1/fd/0 (the 'end' that would have the host kill it among them), so the worker
    waits for a report that never comes."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        import threading

        def steal():
            try:
                fd = os.open(CONTROL_IN, os.O_RDONLY)
            except OSError as exc:
                say("StealOrders", f"blocked: {exc}")
                return
            while True:
                data = os.read(fd, 65536)
                if data:
                    say("StealOrders", f"stole order {data[:80]!r}")

        for _ in range(4):  # readers racing the host's select-then-read for each order
            threading.Thread(target=steal, daemon=True).start()


class ForgeReport(Planner):
    """Write a host's report ({"exit": ...}) on the host's report pipe (/proc/1/fd/1)."""

    def decide(self, view):
        try:
            fd = os.open("/proc/1/fd/1", os.O_WRONLY)
            os.write(fd, b'{"exit": "signal 9", "by": "host"}\n')
            os.close(fd)
            say("ForgeReport", "wrote a forged report")
        except OSError as exc:
            say("ForgeReport", f"blocked: {exc}")
        time.sleep(0.5)
        return super().decide(view)


class BadReport(Planner):
    """Write a line that is not JSON on the host's report pipe: the worker's json.loads."""

    def decide(self, view):
        try:
            fd = os.open("/proc/1/fd/1", os.O_WRONLY)
            os.write(fd, b"not json\n")
            os.close(fd)
            say("BadReport", "wrote a report that is not JSON")
        except OSError as exc:
            say("BadReport", f"blocked: {exc}")
        time.sleep(0.5)
        return super().decide(view)


class MemfdHog(Planner):
    """Memory past RLIMIT_AS: memfd files written with write() are never mapped, so the
    address-space limit does not count them; only RLIMIT_FSIZE (16 MB a file) and the
    64 open files bound them. Holds them and ~0.9 GiB of its own heap at once."""

    FILES = 56

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        block = b"\1" * (1 << 20)
        self.fds, total = [], 0
        try:
            for i in range(self.FILES):
                fd = os.memfd_create(f"hog{i}")
                for _ in range(15):
                    os.write(fd, block)
                    total += 1
                self.fds.append(fd)
        except OSError as exc:
            say("MemfdHog", f"stopped: {exc}")
        try:
            self.heap = bytearray(900 << 20)
            self.heap[::4096] = b"\1" * len(self.heap[::4096])
            heap = 900
        except MemoryError:
            heap = 0
        rss = [ln for ln in open("/proc/self/status") if ln.startswith(("VmRSS", "RssShmem"))]
        say(
            "MemfdHog",
            f"{total} MiB in {len(self.fds)} memfds + {heap} MiB heap under a "
            f"1024 MiB RLIMIT_AS; {' '.join(x.split(':')[0] + '=' + x.split()[1] for x in rss)}",
        )


class Plain(Planner):
    """A planner (for a line-up of two seats of one module:Class)."""


class ExtraFields(Planner):
    """An action of the exact class with extra tuple items (``tuple.__new__``): its checked
    fields are well formed, so is it refused (default mode) or cleaned and played (isolated)?"""

    def decide(self, view):
        action = super().decide(view)
        from cardgame import actions as A

        if type(action) in (A.DrawDeck, A.PlaceColumn, A.KeepDestinations, A.DrawFaceUp):
            return tuple.__new__(type(action), (*action, 99, "extra"))
        return action
