"""Show a file as an N-column terminal draws it: wide (East Asian W/F) characters take two
columns, a row that does not fit wraps (``python render.py FILE [WIDTH]``). Carriage
returns of a pseudo-terminal's record are dropped."""

import sys
import unicodedata


def cells(ch: str) -> int:
    return 2 if unicodedata.east_asian_width(ch) in "WF" else 1


width = int(sys.argv[2]) if len(sys.argv) > 2 else 80
with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
    for line in f.read().replace("\r", "").splitlines():
        row, used = "", 0
        for ch in line:
            if used + cells(ch) > width:
                print("|" + row + " " * (width - used) + "|")
                row, used = "", 0
            row, used = row + ch, used + cells(ch)
        print("|" + row + " " * (width - used) + "|")
