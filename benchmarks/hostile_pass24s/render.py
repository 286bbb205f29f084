"""Show a file as an N-column terminal would wrap it (one cell a character; the output of
``cardgame simulate`` holds no control character): ``python render.py FILE [WIDTH]``."""

import sys

width = int(sys.argv[2]) if len(sys.argv) > 2 else 80
with open(sys.argv[1], encoding="utf-8") as f:
    for line in f.read().splitlines():
        for i in range(0, max(len(line), 1), width):
            row = line[i : i + width].replace("\u2800", " ")
            print("|" + row.ljust(width) + "|")
