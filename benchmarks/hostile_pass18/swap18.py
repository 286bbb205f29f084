"""A seal names no path: a whole sealed folder of another run of the user's (here the same
strategies with another seed) moved into a folder's place reads as that folder, and the
report's verdict is that run's; nothing in the report names the seed.
python swap18.py SEALED_FOLDER OTHER_SEALED_FOLDER
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from common import cardgame, copy


def verdict(folder: str) -> str:
    out = folder.rstrip("/") + ".md"
    done = cardgame("report", folder, "--format", "md", "--out", out)
    line = (
        next((x for x in Path(out).read_text().splitlines() if "Strongest strategy" in x), "")
        if os.path.exists(out)
        else ""
    )
    return f"exit {done.returncode}: {line.strip() or (done.stdout + done.stderr).strip()[-150:]}"


def main() -> None:
    folder = copy(sys.argv[1], sys.argv[1] + "-swap")
    print(f"{folder} as sealed: {verdict(folder)}")
    shutil.rmtree(folder)
    shutil.copytree(sys.argv[2], folder)  # the writer moves the other folder in (a rename)
    print(f"{folder} after the swap: {verdict(folder)}")


if __name__ == "__main__":
    main()
