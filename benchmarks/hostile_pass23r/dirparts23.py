# ruff: noqa: E501  (attack code: long report lines)
"""Empty folders named like a batch's parts, added to a sealed folder of a stopped
``--keep-parts`` run: folders are not sealed (``_result_files`` lists files), so the resume's
check passes; ``done_batches`` (``part_files``: a glob, folders too) counts the batch as
landed, and the resume skips it, exits 0 ("... from before") and seals. Every report after
refuses the folder (the folder read as a part), and every resume skips the batch again. ``quality``: an empty ``quality/`` folder added instead
(``tables_besides_games`` takes any table folder there as one every batch wrote): the resume
plays every batch again and fails "quality/_parts/...: gone while the folder was compacted
(another run in it?)", exit 2, every time.

python dirparts23.py [quality]
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time

from common import ROOT, cardgame, last_line, report, study_file

# a script started in the background by a non-interactive shell has SIGINT ignored, and its
# runs would inherit that (the CLI leaves an ignored SIGINT ignored): the user's Ctrl-C must
# reach them, so it is handled here and its runs start with the default
signal.signal(signal.SIGINT, signal.default_int_handler)


def main(quality: bool) -> None:
    name = "dirparts-quality" if quality else "dirparts"
    path = study_file(name, 60, 1)
    folder = os.path.join(ROOT, name)
    shutil.rmtree(folder, ignore_errors=True)
    args = ["cardgame", "simulate", path, "--workers", "1", "--no-progress", "--keep-parts"]
    run = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    parts = os.path.join(folder, "games", "_parts")
    while (not os.path.isdir(parts) or len(os.listdir(parts)) < 6) and run.poll() is None:
        time.sleep(0.002)
    run.send_signal(signal.SIGINT)  # the user's Ctrl-C, to the script's own run
    run.communicate(timeout=300)
    landed = len(os.listdir(parts))
    print(
        f"  --keep-parts run stopped by Ctrl-C: exit {run.returncode}; {landed} batches landed; {report(folder)[:70]}"
    )
    if quality:
        os.makedirs(os.path.join(folder, "quality"))
        print("  the writer: an empty quality/ folder")
        for _ in range(2):
            done = cardgame(*args[1:], "--resume")
            print(f"  --resume --keep-parts: exit {done.returncode}: {last_line(done)[:160]!r}")
        args.remove("--keep-parts")
        done = cardgame(*args[1:], "--resume")
        print(f"  --resume: exit {done.returncode}: {last_line(done)[:160]!r}")
        return
    added = []
    names = set(os.listdir(parts))
    late = [b for b in range(56, 60) if f"part-c0000-g{b:07d}.arrows.lz4" not in names]
    for batch in late:
        for table in ("games", "seats", "destinations"):
            name = os.path.join(folder, table, "_parts", f"part-c0000-g{batch:07d}.arrows.lz4")
            os.makedirs(name)
            added.append(name)
    print(f"  the writer: {len(added)} empty folders named like the parts of batches {late}")
    done = cardgame(*args[1:], "--resume")
    print(f"  --resume --keep-parts: exit {done.returncode}: {last_line(done)[:160]!r}")
    print(f"  then: {report(folder)[:200]}")
    done = cardgame(*args[1:], "--resume")
    print(f"  a second --resume: exit {done.returncode}: {last_line(done)[:160]!r}")


if __name__ == "__main__":
    main(sys.argv[1:] == ["quality"])
