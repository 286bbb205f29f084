"""Errors of the simulation layer: one line each, shown by the CLI with exit code 2."""

from __future__ import annotations

from cardgame import CardgameError


class SimsError(CardgameError):
    """Base class of sims errors (a CardgameError, so the CLI shows it as one line)."""


class UnknownStrategyError(SimsError):
    """A strategy name that is not registered (the message lists close matches)."""


class StudyError(SimsError):
    """A study file or option that cannot be used (names the file and key)."""


class ResultsError(SimsError):
    """A results folder that cannot be resumed or read."""
