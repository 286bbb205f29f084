"""A Ctrl-C in the `cardgame` command's first moments (importing the package) is one line and
exit 130, never a traceback; a program that imports the package keeps Python's own Ctrl-C."""

from __future__ import annotations

import signal
import subprocess
import sys

SCRIPT = """
import os, signal, sys, time
sys.argv[0] = {argv0!r}
import cardgame  # the package's first import: where the command spends its first moments
os.kill(os.getpid(), signal.SIGINT)
time.sleep(30)
"""


def _run(argv0: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", SCRIPT.format(argv0=argv0)],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # whatever we inherited
    )


def test_a_ctrl_c_while_the_command_imports_is_one_line():
    done = _run("/usr/local/bin/cardgame")
    assert done.returncode == 130
    assert done.stderr == "cardgame: interrupted\n"


def test_a_library_user_keeps_keyboard_interrupt():
    done = _run("my_notebook.py")
    assert done.returncode == -signal.SIGINT and "KeyboardInterrupt" in done.stderr
