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
        self.ruling = ruling
        self.reason = reason
        super().__init__(f"seat {seat}: illegal action {action}: {reason} ({ruling})")


class RecordError(CardgameError):
    """A game record is malformed or does not replay."""
