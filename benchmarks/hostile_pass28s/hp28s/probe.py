"""What a game's own session gives it (``hp28s.probe``): its session and group ids, the
terminals it could open (a session leader opening a terminal without ``O_NOCTTY`` would make
it its controlling one), and the devices it sees."""

from __future__ import annotations

import os

from sims.strategies.planner import Planner

from . import say


class Probe28(Planner):
    """Reports its session, its terminals and ``/dev`` once a game."""

    def decide(self, view):
        if not getattr(self, "_said", False):
            self._said = True
            say("Probe28", f"pid {os.getpid()} sid {os.getsid(0)} pgrp {os.getpgrp()}")
            say("Probe28", f"/dev: {sorted(os.listdir('/dev'))}")
            for path in ("/dev/tty", "/dev/console", "/dev/ptmx", "/dev/tty0"):
                try:
                    fd = os.open(path, os.O_RDWR)
                    say("Probe28", f"open {path}: ok, isatty {os.isatty(fd)}")
                    os.close(fd)
                except OSError as exc:
                    say("Probe28", f"open {path}: {exc.__class__.__name__} {exc.errno}")
        return super().decide(view)
