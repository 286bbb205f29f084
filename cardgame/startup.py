"""The `cardgame` command's first moments: a Ctrl-C while the package is still importing.

Importing the engine (and then a command's layer) takes a tenth of a second or more; a Ctrl-C
in that window would print a traceback from the middle of an import. When the running program
is the `cardgame` console script, the package installs this handler before anything else, so
such a Ctrl-C ends the command with one line and exit 130; ``cli.main`` hands SIGINT back to
Python's own handler once it runs. A SIGINT ignored by whoever started the command (``nohup``,
a background job) stays ignored.
"""

from __future__ import annotations

import os
import signal
import sys
from types import FrameType

EXIT_INTERRUPTED = 130


def is_command() -> bool:
    """Whether this process is the `cardgame` console script (not a library user's program)."""
    return bool(sys.argv) and os.path.basename(sys.argv[0]) == "cardgame"


def _stop(signum: int, frame: FrameType | None) -> None:
    os.write(2, b"cardgame: interrupted\n")
    os._exit(EXIT_INTERRUPTED)


def quiet_interrupts() -> None:
    """Until ``release``: a Ctrl-C ends the command at once, with one line."""
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        signal.signal(signal.SIGINT, _stop)


def release() -> None:
    """Python's own SIGINT handling again (KeyboardInterrupt), where ``quiet_interrupts`` set
    the early one."""
    if signal.getsignal(signal.SIGINT) is _stop:
        signal.signal(signal.SIGINT, signal.default_int_handler)
