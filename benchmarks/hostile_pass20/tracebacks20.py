# ruff: noqa: E501  (attack code: long report lines)
"""A traceback, not one line: a path with a name past the file system's limit (300
characters; ext4 takes 255) given to ``replay``, ``view`` or ``report``, or as their
``--out``. ``results_folder_of`` (and the ``--out`` check through it) calls
``Path.is_dir``, which raises ``OSError`` (ENAMETOOLONG) rather than answering False.

python tracebacks20.py SEALED_FOLDER_WITH_RECORDS
"""

from __future__ import annotations

import os
import sys

from common import cardgame, last_line


def main() -> None:
    sealed = sys.argv[1]
    long = "d" * 300
    tries = {
        "replay FOLDER/records/LONG.jsonl": (
            "replay",
            os.path.join(sealed, "records", long + ".jsonl"),
        ),
        "replay /tmp/LONG.jsonl": ("replay", f"/tmp/{long}.jsonl"),
        "view FOLDER/records/LONG.jsonl": (
            "view",
            os.path.join(sealed, "records", long + ".jsonl"),
        ),
        "report /tmp/LONG": ("report", f"/tmp/{long}"),
        "report FOLDER --out /tmp/LONG/r.html": ("report", sealed, "--out", f"/tmp/{long}/r.html"),
        "view FOLDER --out /tmp/LONG/p.html": ("view", sealed, "--out", f"/tmp/{long}/p.html"),
    }
    for what, args in tries.items():
        done = cardgame(*args)
        text = done.stdout + done.stderr
        print(
            f"{what}: exit {done.returncode}, traceback: {'Traceback' in text}: {last_line(done)[:90]!r}"
        )


if __name__ == "__main__":
    main()
