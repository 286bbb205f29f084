# ruff: noqa: E501  (attack code: long report lines)
"""A manifest no run writes, made by a writer without the key: the seal's check raises
before it can refuse, and each command ends in a traceback (exit 1), not one line.
- a value nested 200,000 deep: ``json.loads`` raises RecursionError (``_parsed_manifest``
  catches only decoding errors);
- a mark whose ``mac`` holds a non-ASCII character: ``hmac.compare_digest`` raises TypeError
  on such strings (the sealed mark's, and an open one's).
python tracebacks18.py SEALED_FOLDER
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from common import STUDY, cardgame, copy


def deep(m: dict) -> str:
    return json.dumps(m)[:-1] + ', "x": ' + "[" * 200000 + "]" * 200000 + "}"


def sealed_mac(m: dict) -> str:
    m["seal"]["mac"] = "\u00e9"
    return json.dumps(m)


def open_mac(m: dict) -> str:
    m.pop("files")
    m["seal"] = {"state": "open", "run": "0" * 32, "mac": "\u00e9"}
    return json.dumps(m)


def main() -> None:
    for make in (deep, sealed_mac, open_mac):
        folder = copy(sys.argv[1], sys.argv[1] + "-tb")
        manifest = folder + "/manifest.json"
        text = make(json.loads(Path(manifest).read_text()))
        Path(manifest).write_text(text)
        record = folder + "/records/part-c0000-g0000000.jsonl"
        for args in (
            ["report", folder, "--format", "md", "--out", folder + ".md"],
            ["view", folder, "--playouts", "0", "-o", folder + ".html"],
            ["replay", record],
            ["simulate", *STUDY, "--out", folder, "--resume", "--no-progress"],
        ):
            done = cardgame(*args)
            last = done.stderr.strip().splitlines()[-1][:110] if done.stderr.strip() else ""
            print(
                f"{make.__name__}: cardgame {args[0]}: exit {done.returncode}, traceback: {'Traceback' in done.stderr}: {last!r}"
            )


if __name__ == "__main__":
    main()
