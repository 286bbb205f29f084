"""What a game sees of the machine's shared files (``hp31s.look``): the root, /sys, /proc,
/dev, its cgroup's files, and the counters a game could move and another read (cgroup
usage of its own and of sibling groups, if any are visible). Reported once a game."""

from __future__ import annotations

import os

from sims.strategies.planner import Planner

from . import say


def _ls(path: str) -> str:
    try:
        return " ".join(sorted(os.listdir(path))[:40])
    except OSError as exc:
        return f"{exc.errno} {exc.strerror}"


def _read(path: str) -> str:
    try:
        with open(path, "rb") as f:
            return f.read(200).decode("ascii", "replace").replace("\n", "|")
    except OSError as exc:
        return f"{exc.errno} {exc.strerror}"


class Look(Planner):
    """Probe: lists and reads what it can of the machine's shared files."""

    def decide(self, view):
        action = super().decide(view)
        if getattr(self, "_done", False):
            return action
        self._done = True
        for path in ("/", "/sys", "/sys/fs", "/sys/fs/cgroup", "/proc", "/dev", "/dev/shm",
                     "/run", "/tmp", "/var", "/etc"):  # fmt: skip
            say("Look", f"ls {path}: {_ls(path)}")
        for path in ("/proc/self/cgroup", "/proc/self/mountinfo", "/sys/fs/cgroup/memory.current",
                     "/sys/kernel/mm/transparent_hugepage/enabled", "/etc/hostname",
                     "/dev/shm/x"):  # fmt: skip
            say("Look", f"read {path}: {_read(path)}")
        try:
            st = os.statvfs("/tmp")
            say("Look", f"statvfs /tmp: blocks {st.f_blocks} free {st.f_bfree} files {st.f_files}")
        except OSError as exc:
            say("Look", f"statvfs /tmp: {exc}")
        return action
