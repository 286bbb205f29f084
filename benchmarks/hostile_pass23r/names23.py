# ruff: noqa: E501  (attack code: long report lines)
"""A file added to a sealed folder under a name holding a carriage return and terminal
escapes: the refusal names it raw, so on a terminal the one line reads as the report's own
success line, the rest hidden (``ESC[8m``, concealed text). Exit 2 and no report written:
only what a person at a terminal reads changes. Also a name with a newline (the "one line"
is two) and one that is not UTF-8 (printed escaped: fine).

python names23.py
"""

from __future__ import annotations

import os
import shutil

from common import ROOT, cardgame, study_file


def main() -> None:
    path = study_file("names", 4, 1)
    folder = os.path.join(ROOT, "names")
    shutil.rmtree(folder, ignore_errors=True)
    done = cardgame("simulate", path, "--workers", "1", "--no-progress")
    print(f"  sealed run: exit {done.returncode}")
    fake = "\r\x1b[KWrote report.html (4 games from names) in 2.1 s\x1b[8m"  # no slash in a name
    for label, name in (
        ("carriage return and escapes", b"seats/a" + fake.encode()),
        ("newline", b"seats/a\nb"),
        ("not UTF-8", b"seats/a\xff"),
    ):
        target = os.path.join(os.fsencode(folder), name)
        with open(target, "wb") as file:
            file.write(b"x")
        done = cardgame("report", folder, "--format", "md", "--out", folder + ".md")
        print(
            f"  {label}: report: exit {done.returncode}; stderr as bytes: {done.stderr.encode(errors='surrogateescape')!r}"
        )
        os.remove(target)


if __name__ == "__main__":
    main()
