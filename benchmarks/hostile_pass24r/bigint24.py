# ruff: noqa: E501  (attack code: long report lines)
"""A manifest holding an integer of more than 4,300 digits: Python's ``json.loads`` raises
a plain ``ValueError`` ("Exceeds the limit (4300 digits) for integer string conversion"),
which ``_parsed_manifest`` does not catch (it catches ``JSONDecodeError``, a subclass, and
``RecursionError``); every reader of the folder ends in a traceback, exit 1.

The writer adds one key, ``"x": 111...1`` (5,000 digits), to a sealed ``--records``
folder's manifest (any 4,301-digit number anywhere in it does the same).

python bigint24.py
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from common import ROOT, cardgame, study_file


def tail(out: str) -> str:
    lines = out.strip().splitlines()
    return (
        f"traceback: {'Traceback' in out}, last line: {lines[-1][:150]!r}" if lines else "no output"
    )


def main() -> None:
    path = study_file("bigint", 8, 1)
    folder = os.path.join(ROOT, "bigint")
    shutil.rmtree(folder, ignore_errors=True)
    run = ["simulate", path, "--workers", "1", "--no-progress", "--records"]
    done = cardgame(*run)
    print(f"  sealed run (--records): exit {done.returncode}")
    manifest = Path(folder, "manifest.json")
    text = manifest.read_text()
    manifest.write_text(text.replace("{", '{"x": ' + "1" * 5000 + ",", 1))
    record = str(sorted(Path(folder, "records").glob("*.jsonl"))[0])
    commands = {
        "report": ["report", folder, "--format", "md", "--out", folder + ".md"],
        "view FOLDER": ["view", folder, "--out", folder + ".html", "--playouts", "0"],
        "view RECORD": ["view", record, "--out", folder + "-r.html", "--playouts", "0"],
        "replay RECORD": ["replay", record],
        "--resume": [*run, "--resume"],
    }
    for what, command in commands.items():
        for extra in ([], ["--accept-changes"]):
            done = cardgame(*command, *extra)
            print(
                f"  {what} {' '.join(extra)}: exit {done.returncode}; {tail(done.stdout + done.stderr)}"
            )


if __name__ == "__main__":
    main()
