"""Odd manifests read with ``--accept-changes`` (the user's choice to read a changed
folder: still hostile input, which must be one line, exit 2, never a traceback), and a
few without it. Each mutation of a sealed folder's manifest, then ``report`` (and
``--resume``) of it.

python odd24.py
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from common import ROOT, cardgame, study_file


def tail(out: str) -> str:
    lines = out.strip().splitlines()
    return (
        f"traceback: {'Traceback' in out}, last line: {lines[-1][:140]!r}" if lines else "no output"
    )


def mutations(m: dict) -> dict[str, dict]:
    out = {}

    def put(name: str, change) -> None:
        c = json.loads(json.dumps(m))
        change(c)
        out[name] = c

    put("study.metrics a list", lambda c: c["study"].__setitem__("metrics", []))
    put("study.report a list", lambda c: c["study"].__setitem__("report", [1]))
    put("study.margins a list", lambda c: c["study"].__setitem__("margins", [1]))
    put("plan a string", lambda c: c.__setitem__("plan", "x"))
    put("plan.cells[0].games huge", lambda c: c["plan"]["cells"][0].__setitem__("games", 10**30))
    put("plan.seed a string", lambda c: c["plan"].__setitem__("seed", "x"))
    put("plan.players empty", lambda c: c["plan"].__setitem__("players", []))
    put("plan.margins a list", lambda c: c["plan"].__setitem__("margins", [1]))
    put("plan.check a list", lambda c: c["plan"].__setitem__("check", [1]))
    put("schema_version true", lambda c: c.__setitem__("schema_version", True))
    put("fingerprint a list", lambda c: c.__setitem__("fingerprint", [1]))
    put("seal a list", lambda c: c.__setitem__("seal", [1]))
    put("files a list", lambda c: c.__setitem__("files", [1]))
    put("seal.mac an int", lambda c: c["seal"].__setitem__("mac", 1))
    return out


def main() -> None:
    path = study_file("odd24", 8, 1)
    folder = os.path.join(ROOT, "odd24")
    shutil.rmtree(folder, ignore_errors=True)
    run = ["simulate", path, "--workers", "1", "--no-progress"]
    print(f"  sealed run: exit {cardgame(*run).returncode}")
    manifest = Path(folder, "manifest.json")
    original = manifest.read_text()
    found = 0
    for name, changed in mutations(json.loads(original)).items():
        manifest.write_text(json.dumps(changed))
        for label, command in (
            (
                "report --accept-changes",
                ["report", folder, "--format", "md", "--out", folder + ".md", "--accept-changes"],
            ),
            ("report", ["report", folder, "--format", "md", "--out", folder + ".md"]),
            ("--resume --accept-changes", [*run, "--resume", "--accept-changes"]),
        ):
            done = cardgame(*command)
            if done.returncode not in (0, 2) or "Traceback" in done.stderr:
                found += 1
                print(
                    f"  {name}: {label}: exit {done.returncode}; {tail(done.stdout + done.stderr)}"
                )
            manifest.write_text(json.dumps(changed))  # a resume may have rewritten it
    manifest.write_text(original)
    print(f"  tracebacks or other exits: {found}")


if __name__ == "__main__":
    main()
