"""The engine's error types: each carries a one-line message fit to show a user."""

from __future__ import annotations


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
