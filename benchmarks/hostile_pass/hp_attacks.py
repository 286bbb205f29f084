# ruff: noqa: SIM115, RUF005  (attack code: short-lived files, probe lists)
"""Hostile strategies of an independent pass on ``--isolate`` (benchmarks/hostile_pass).

Each plays like a planner and says what it found on stderr (``HOSTILE <name>: ...``), which
reaches the run's terminal: so the runner reads its findings from the run's stderr."""

from __future__ import annotations

import gc
import json
import os
import sys
import threading
import time

from sims.strategies.planner import Planner

STORE = ("/dev/shm", "/", "/var/tmp", "/tmp")


def say(name: str, text: str) -> None:
    sys.stderr.write(f"HOSTILE {name}: {text}\n")
    sys.stderr.flush()


def channel():
    """The host's protocol channel, found in this process's memory."""
    for obj in gc.get_objects():
        if type(obj).__name__ == "_Channel":
            return obj
    return None


class Probe(Planner):
    """What a game's process can see: processes, fds, mounts, env, writable places."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        out = {"pids": sorted(p for p in os.listdir("/proc") if p.isdigit())}
        out["env"] = dict(os.environ)
        out["fds"] = {f: _link(f"/proc/self/fd/{f}") for f in os.listdir("/proc/self/fd")}
        out["cmdline1"] = _read("/proc/1/cmdline")[:300]
        out["mounts"] = _read("/proc/self/mounts").count("\n")
        out["root"] = sorted(os.listdir("/"))
        out["dev"] = sorted(os.listdir("/dev"))
        writable = {}
        for d in STORE + ("/dev", "/proc/self", "/usr"):
            try:
                p = os.path.join(d, f"probe{os.getpid()}")
                with open(p, "w") as f:
                    f.write("x")
                os.unlink(p)
                writable[d] = True
            except OSError as e:
                writable[d] = e.strerror
        out["writable"] = writable
        out["uid"] = (os.getuid(), os.getgid())
        out["net"] = _read("/proc/net/dev").count("\n")
        say("Probe", json.dumps(out)[:3000])


def _link(p):
    try:
        return os.readlink(p)
    except OSError as e:
        return e.strerror


def _read(p):
    try:
        with open(p, "rb") as f:
            return f.read().decode(errors="replace")
    except OSError as e:
        return f"<{e.strerror}>"


class Persist(Planner):
    """Memory across games: a counter in each place a game's process can write; a later game
    of the same host reads it (docs say nothing a game does reaches a later game)."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        seen = {}
        for d in STORE:
            p = os.path.join(d, "hostile_counter")
            try:
                n = int(open(p).read()) if os.path.exists(p) else 0
                open(p, "w").write(str(n + 1))
                seen[d] = n
            except OSError as e:
                seen[d] = e.strerror
        say("Persist", f"games seen before this one, by place: {seen}")


class DealMemory(Planner):
    """Learns a deal across games: records its opening hand per opening (face-up row) in
    /dev/shm; when a later game opens on a face-up row seen before (a paired study replays
    a deal), it says what it remembers of that deal (the hand another seat now holds)."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        self.first = True

    def decide(self, view):
        if self.first:
            self.first = False
            key = repr(view.face_up)
            path = "/dev/shm/hostile_deals.json"
            try:
                deals = json.load(open(path))
            except (OSError, ValueError):
                deals = {}
            mine = repr(view.hand)
            if key in deals and deals[key]["seat"] != view.seat:
                say(
                    "DealMemory",
                    f"seat {view.seat}: deal seen before from seat "
                    f"{deals[key]['seat']}: that seat's opening hand was {deals[key]['hand']}"
                    f" (mine now {mine})",
                )
            deals.setdefault(key, {"seat": view.seat, "hand": mine})
            json.dump(deals, open(path, "w"))
        return super().decide(view)


class ShmHog(Planner):
    """Memory outside RLIMIT_AS: files in tmpfs places (/dev/shm, /) are host RAM."""

    MIB = 1200

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        block = b"\1" * (8 << 20)
        done = 0
        where = "/dev/shm" if os.access("/dev/shm", os.W_OK) else "/"
        try:
            while done < self.MIB:
                with open(f"{where}/hog{done}", "wb") as f:
                    f.write(block)
                done += 8
        except OSError as e:
            say("ShmHog", f"stopped at {done} MiB in {where}: {e}")
        say("ShmHog", f"wrote {done} MiB into {where} (RLIMIT_AS is 1024 MiB)")


class VoidLosses(Planner):
    """Chooses which of its games count, unblamed: voids those where it moves second (a
    stand-in for any rule of its choosing, e.g. 'I am behind') by writing the host's 'exit by
    signal 9' message on the protocol channel; the worker reads a guest killed from outside:
    replay, then 'a fault of the machine'."""

    def decide(self, view):
        if view.seat == 1 and view.turn >= 10:
            ch = channel()
            if ch is not None:
                ch.write({"exit": "signal 9"})
                time.sleep(30)
        return super().decide(view)


class VoidAll(Planner):
    """Voids every game by the same spoofed message, on its first decision."""

    def decide(self, view):
        ch = channel()
        ch.write({"exit": "signal 9"})
        time.sleep(30)
        return super().decide(view)


class AlarmDeath(Planner):
    """Dies of its own SIGALRM (alarm() is not filtered): a signal not in OWN_SIGNALS."""

    def decide(self, view):
        import signal

        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        signal.alarm(1)
        time.sleep(5)
        return super().decide(view)


class PipeDeath(Planner):
    """Dies of its own SIGPIPE: writes to a pipe whose reader it closed."""

    def decide(self, view):
        import signal

        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        r, w = os.pipe()
        os.close(r)
        os.write(w, b"x")
        return super().decide(view)


class EndStall(Planner):
    """Stalls every game's end: its process never exits (os._exit patched), so the worker
    waits for the host's 'exit' message; the game still counts."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        os._exit = lambda code: time.sleep(10**6)


class Ponder(Planner):
    """Computes between its own decisions (on the rivals' time) in threads: CPU no decision
    limit sees; reports the CPU its threads burned while it was not deciding."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        self.stop = False
        self.started = time.process_time()
        for _ in range(4):
            threading.Thread(target=self.spin, daemon=True).start()
        self.decisions = 0

    def spin(self):
        x = 0
        while not self.stop:
            x += 1

    def decide(self, view):
        self.decisions += 1
        if self.decisions % 20 == 0:
            say(
                "Ponder",
                f"CPU so far {time.process_time() - self.started:.1f} s, "
                f"{self.decisions} decisions",
            )
        return super().decide(view)


class ManyThreads(Planner):
    """How many threads (tasks of the user, pids of the machine) a game's process may make."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        threading.stack_size(32768)
        ev = threading.Event()
        n = 0
        try:
            while n < 20000:
                threading.Thread(target=ev.wait, daemon=True).start()
                n += 1
        except BaseException as e:
            say("ManyThreads", f"stopped at {n}: {type(e).__name__}: {e}")
        say("ManyThreads", f"{n} threads alive at once")
        ev.set()


class Spam(Planner):
    """Writes without limit to stderr, which is the run's own terminal or log."""

    def decide(self, view):
        sys.stderr.write("HOSTILE Spam: " + "x" * 100000 + "\n")
        return super().decide(view)


class FakeProgress(Planner):
    """Forges lines of the run's own output on its stderr."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        sys.stderr.write("\nrun finished: 0 games failed; strongest: hp_attacks:FakeProgress\n")


class Steal(Planner):
    """Answers ahead: writes a second message on the channel after its answer, so its reply
    to the next question is already there (desync: whose answer is whose?)."""

    def decide(self, view):
        action = super().decide(view)
        from cardgame import actions as A

        ch = channel()
        ch.write({"action": A.to_dict(action)})
        return action


class OddAnswer(Planner):
    """Answers with an int subclass that lies about itself, and a str as a slot."""

    def decide(self, view):
        action = super().decide(view)

        class Liar(int):
            def __eq__(self, other):
                return True

            __hash__ = int.__hash__

        try:
            return type(action)(*[Liar(v) if type(v) is int else v for v in action])
        except Exception:
            return action


class OddException(Planner):
    """Raises an exception whose str() itself raises KeyboardInterrupt, then SystemExit."""

    def decide(self, view):
        class Nasty(BaseException):
            def __str__(self):
                raise KeyboardInterrupt

            __repr__ = __str__

        raise Nasty()


class Silent(Planner):
    """Never answers (sleeps past any limit)."""

    def decide(self, view):
        time.sleep(10**6)


class Huge(Planner):
    """An answer of 2 MB on the channel, written raw."""

    def decide(self, view):
        ch = channel()
        ch.writer.write(b'{"action": "' + b"a" * (2 << 20) + b'"}\n')
        ch.writer.flush()
        time.sleep(30)


class Plain(Planner):
    """The honest baseline."""


class Walk(Planner):
    """Everything under /work and /root that its sandbox shows, and the other processes'
    memory, environment and open files (its host's, its sandbox's init)."""

    def __init__(self, rng, knobs=None):
        super().__init__(rng, knobs)
        seen = []
        for top in ("/work", "/root", "/etc"):
            for folder, dirs, files in os.walk(top):
                dirs[:] = [d for d in dirs if d not in ("site-packages", "__pycache__", "include")]
                seen += [os.path.join(folder, f) for f in files if not f.endswith((".pyc", ".so"))]
        tops = sorted({"/".join(p.split("/")[:4]) for p in seen})
        say("Walk", f"{len(seen)} files under {tops}")
        found = {}
        for pid in [p for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]:
            for what in ("environ", "mem", "maps", "fd"):
                p = f"/proc/{pid}/{what}"
                try:
                    if what == "fd":
                        found[p] = os.listdir(p)
                    else:
                        with open(p, "rb") as f:
                            found[p] = f"read {len(f.read(4096))} bytes"
                except OSError as e:
                    found[p] = e.strerror
        say("Walk", json.dumps(found))
