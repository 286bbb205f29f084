"""The engine's error types: each carries a one-line message fit to show a user."""

from __future__ import annotations

import os
from typing import TextIO


class CardgameError(Exception):
    """Base class: any error the command line turns into one line and exit code 2."""


class DataError(CardgameError):
    """A card data file is missing or malformed (names the file, line and problem)."""


class RulesError(CardgameError):
    """A rule variant asks for an unknown or impossible setting."""


class IllegalActionError(CardgameError):
    """An action that the rules forbid in the current state (names seat, action, ruling)."""

    def __init__(self, seat: int, action: object, ruling: str, reason: str) -> None:
        self.seat = seat
        self.action = action
        self.ruling = ruling  # "" for an object that is not a well-formed action at all
        self.reason = reason
        if ruling:
            text = f"seat {seat}: illegal action {action}: {reason} ({ruling})"
        else:  # a malformed action: its __str__ may fail, and the reason says it all
            text = f"seat {seat}: illegal action: {reason}"
        super().__init__(text)


class RecordError(CardgameError):
    """A game record is malformed or does not replay."""


def one_line(text: object) -> str:
    """``text`` with line breaks and other control characters escaped (``\\n``), so that
    every message stays on one line whatever a bad file holds."""
    text = str(text)
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def terminal_width(stream: TextIO) -> int | None:
    """The columns of the terminal ``stream`` writes to, or None when it is no terminal."""
    try:
        if not stream.isatty():
            return None
        return os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        return None


def terminal_rows(text: str, lead: str, more: str, width: int | None) -> list[str]:
    """``text`` after ``lead``, as rows a terminal of ``width`` columns shows one to a row,
    every row after the first led by ``more``: in ASCII (every other character escaped, so
    each takes one column), so that no text of someone else's, wrapped by the terminal,
    starts a row of its own (hostile pass 24's PadForged padded a failure's words to the
    terminal's edge to print a forged failure of the rival's on the next row; pass 25's
    ReportForged did so through a command's one-line error, and a mark of wide characters
    pushed rows past the edge). Without a width (no terminal) one row, its control
    characters escaped."""
    if width is None:
        return [lead + one_line(text)]
    lead, more = _fitted(_ascii(lead), width), _fitted(_ascii(more), width)
    shown = _ascii(text)
    rows: list[str] = []
    while True:
        prefix = more if rows else lead
        room = max(1, width - len(prefix))
        rows.append(prefix + shown[:room])
        shown = shown[room:]
        if not shown:
            return rows


def _ascii(text: str) -> str:
    """``text`` with every character but printable ASCII escaped: one column each."""
    return "".join(ch if " " <= ch <= "~" else ascii(ch)[1:-1] for ch in text)


def _fitted(prefix: str, width: int) -> str:
    """A row's mark, cut to half the width at most, so that every row of text fits beside
    it (a strategy's name in the mark may be long: hostile pass 25's 30 wide ideographs)."""
    most = max(4, width // 2)
    return prefix if len(prefix) <= most else prefix[: most - 4] + "... "
