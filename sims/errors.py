"""Errors of the simulation layer: one line each, shown by the CLI with exit code 2."""

from __future__ import annotations

from typing import Any

from cardgame import CardgameError


class SimsError(CardgameError):
    """Base class of sims errors (a CardgameError, so the CLI shows it as one line)."""


class UnknownStrategyError(SimsError):
    """A strategy name that is not registered (the message lists close matches)."""


class StudyError(SimsError):
    """A study file or option that cannot be used (names the file and key)."""


class StudyProblems(StudyError):
    """Several problems of one study file, found in one pass: the CLI shows one line each."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


class ResultsError(SimsError):
    """A results folder that cannot be resumed or read."""


class RunStopped(SimsError):
    """A run stopped part way by a fault outside its games (a full disk, a lost Dask
    scheduler, no Dask workers): the batches that landed are kept and no game is written as
    failed for it, so ``--resume`` plays the rest and the folder equals an uninterrupted run.
    The CLI adds the command that resumes."""


class ResultsWriteError(ResultsError, RunStopped):
    """A results file that could not be written (a full disk, a lost mount): nothing is left
    half written, and the run can be resumed once the cause is fixed."""


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose every key is written once (``object_pairs_hook``), else a
    ValueError naming the key: a parser keeps the last of two, a person or another reader
    may take the first (a forged study put before the real one in a manifest, hostile pass
    28r's dupkey28.py; a host's message)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {key!r} twice")
        out[key] = value
    return out


def describe_error(exc: BaseException) -> str:
    """``Type: message`` of any exception, on one line, even one whose ``str`` raises (a
    strategy's exception may be hostile)."""
    try:
        detail = " ".join(str(exc).split())
    except Exception:
        detail = "<unprintable>"
    return f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__


def brief_repr(value: object) -> str:
    """A short repr that cannot raise (a strategy's object may have a hostile __repr__)."""
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__}>"
    return text if len(text) <= 80 else text[:77] + "..."


class TuneError(SimsError):
    """A tune that cannot run: a bad option, objective, edits file or output folder."""


class TuneInterrupted(SimsError):
    """Stopped by Ctrl-C or SIGTERM: the evaluations that finished are kept; the same tune
    continues from them."""
