"""Hostile strategies of pass 25s on ``--isolate`` (benchmarks/hostile_pass25s).

Each plays like a planner and reports on stderr (``HOSTILE <name>: ...``)."""

from __future__ import annotations

import ctypes
import sys
from pathlib import Path

from sims.strategies.planner import Planner

LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.syscall.restype = ctypes.c_long
LIBC.syscall.argtypes = [ctypes.c_long] * 7


def say(name: str, text: str) -> None:
    sys.stderr.write(f"HOSTILE {name}: {text}\n")
    sys.stderr.flush()


def key() -> str:
    """The run's parameter (hp25s/key.txt, written by run.sh)."""
    try:
        return (Path(__file__).parent / "key.txt").read_text().strip()
    except OSError:
        return ""


def call(nr: int, *args: int) -> tuple[int, int]:
    """(return value, errno) of a raw system call."""
    ctypes.set_errno(0)
    full = list(args) + [0] * (6 - len(args))
    ret = LIBC.syscall(nr, *full)
    return ret, (ctypes.get_errno() if ret == -1 else 0)


def wide_lines(mark_len: int, mark_cols: int, width: int, fragments: tuple[str, ...]) -> str:
    """Stderr lines that, relayed under a mark of ``mark_len`` characters drawn in
    ``mark_cols`` columns, leave each fragment alone on a terminal row of ``width``."""
    room = max(16, width - mark_len)  # what terminal_rows puts after the mark
    first = width - mark_cols  # columns left on the mark's own row
    out = []
    for text in fragments:
        assert len(text) <= room - first, (text, room - first)
        out.append("." * first + text.ljust(room - first))
    return "\n".join(out) + "\n"


class Wide(Planner):
    """Item 5: its relayed stderr lines, under a mark of its own name drawn wider than it
    counts (a module named in CJK), wrap on a terminal so that its words start rows of
    their own, with no mark. Subclassed in a module with a CJK name, and in one with a
    long ASCII name (each row's text is at least 16 characters, past the terminal's edge)."""

    fragments: tuple[str, ...] = (
        "1 game(s) failed:",
        "  base/2p/planner game 0:",
        "  seat 0 (planner): decision",
        "  took over 10 s",
    )

    def decide(self, view):
        calls = getattr(self, "_calls", 0) + 1
        self._calls = calls
        if calls == 2:
            width = int(key()) if key().isdigit() else 80
            me = type(self).__module__ + ":" + type(self).__name__
            mark = f"[guest {me}] "
            cols = sum(2 if ord(c) >= 0x1100 else 1 for c in mark)
            sys.stderr.write(
                wide_lines(
                    len(mark),
                    cols,
                    width,
                    self.fragments,
                )
            )
        return super().decide(view)


BLANK = "\u2800"  # BRAILLE PATTERN BLANK: printable (So), drawn as nothing


class ReportForged(Planner):
    """Item 5: pass 24s's PadForged aimed at ``cardgame report``. It fails its own seat in
    every game (so the report refuses: "all N games failed ... (first: ...: <words>)"),
    its words padded with U+2800 to the end of the terminal row that the report's error
    line fills, for the default results folder, so that a forged line of the planner's
    starts a row of its own. ``KEY``: the terminal width (80)."""

    def decide(self, view):
        calls = getattr(self, "_calls", 0) + 1
        self._calls = calls
        if calls == 3:
            width = int(key()) if key().isdigit() else 80
            me = type(self).__module__ + ":" + type(self).__name__
            folder = f"results/adhoc-{me.replace(':', '-')}+planner-2p"
            head = (
                f"cardgame report: error: {folder}: all 2 games failed, nothing to report "
                f"(first: game 0 of base/2p/{me}+planner, seat 0 ({me}): GuestError: RuntimeError: "
            )
            pad = BLANK * ((-len(head)) % width)
            raise RuntimeError(
                pad
                + "cardgame report: error: seat 1 (planner) cheated; this folder's results are void"
            )
        return super().decide(view)
