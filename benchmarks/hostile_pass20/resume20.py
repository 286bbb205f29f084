"""A resume that compacts takes a part put in place of a sealed one (by rename) as its own,
merges it, removes it, and seals the merge.

A resumed run reads the files of the seal it found through a ``Reading`` with
``own_writes``: a file that is not the one the check hashed (another inode) is returned
unchecked as the run's own write (``Reading.read``). Its seal then keeps the found digest
of a file it finds changed, but the compaction removes the parts it merged (noted as the
run's removals), so nothing is left to compare. The writer (no key) waits for the
resume's first rewrite of ``manifest.json`` (its ``unseal``, after both seal checks) and
renames a forged seats part over the sealed one. Shapes: a sealed ``--keep-parts`` run
resumed without it (``compact``), and a run stopped by Ctrl-C (SIGINT: sealed, its parts
kept) resumed (``Compaction``).

``plant``: the run stopped by Ctrl-C again; at its ``unseal`` the writer adds the parts of
a batch it has not played (games, seats, destinations; seats forged), made beforehand from
a ``--keep-parts`` run of the same study elsewhere: ``done_batches`` counts that batch as
done, and the compaction takes its parts as the run's own.

python resume20.py keep|ctrlc|plant
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from common import (
    IN_MOVED_TO,
    ROOT,
    Watch,
    cardgame,
    copy,
    forge_part,
    last_line,
    report,
    scores,
    study_file,
)


def sealed_base(shape: str) -> tuple[list[str], str]:
    """The command and a sealed folder with parts: kept, or left by a run stopped by Ctrl-C."""
    if shape == "keep":
        study = study_file("resume-keep", 8, 8)
        run = ["cardgame", "simulate", study, "--workers", "1", "--no-progress"]
        base = os.path.join(ROOT, "resume-keep-base")
        if not os.path.isdir(base):
            subprocess.run([*run, "--keep-parts", "--out", base], capture_output=True)
        return run, base
    study = study_file("resume-ctrlc", 60, 1)
    run = ["cardgame", "simulate", study, "--workers", "1", "--no-progress"]
    base = os.path.join(ROOT, "resume-ctrlc-base")
    for _ in range(6):  # a Ctrl-C may leave a folder refused, untouched (ctrlc20.py): again
        readable = cardgame("report", base, "--out", base + ".html").returncode == 0
        if os.path.isdir(base) and readable:
            break
        shutil.rmtree(base, ignore_errors=True)
        process = subprocess.Popen(
            [*run, "--out", base], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        parts = Path(base, "seats", "_parts")
        while len(list(parts.glob("part-*"))) < 10 if parts.is_dir() else True:
            time.sleep(0.01)
        process.send_signal(signal.SIGINT)  # Ctrl-C: the run stops and seals what landed
        process.wait()
    return run, base


def main() -> None:
    shape = sys.argv[1] if len(sys.argv) > 1 else "keep"
    run, base = sealed_base("ctrlc" if shape == "plant" else shape)
    folder = copy(base, base.replace("-base", f"-{shape}"))
    part = sorted(Path(folder, "seats", "_parts").glob("part-*"))[0]
    print(f"{shape}: {report(folder)}")
    spare = folder + "-spare"
    moves = [(spare, str(part))]
    if shape == "plant":  # the last batch's parts, from the same study elsewhere
        pre = os.path.join(ROOT, "resume-ctrlc-pre")
        if not os.path.isdir(pre):
            subprocess.run([*run, "--keep-parts", "--out", pre], capture_output=True)
        name = "part-c0000-g0000059.arrows.lz4"
        moves = []
        for table in ("games", "seats", "destinations"):
            staged = f"{folder}-{table}-{name}"
            shutil.copy(os.path.join(pre, table, "_parts", name), staged)
            if table == "seats":
                forge_part(Path(staged), staged + ".w")
            moves.append((staged, os.path.join(folder, table, "_parts", name)))
    else:
        forge_part(part, spare, put=False)
    watch = Watch(folder, IN_MOVED_TO)
    swapped: list[str] = []

    def swap() -> None:
        for event in watch.events():
            if event == "manifest.json":  # the resume's unseal: its checks are done
                for source, target in moves:
                    os.rename(source, target)
                    swapped.append(os.path.relpath(target, folder))
                return

    threading.Thread(target=swap, daemon=True).start()
    done = subprocess.run([*run, "--out", folder, "--resume"], capture_output=True, text=True)
    print(f"  resume exit {done.returncode}: {last_line(done)!r}; swapped during it: {swapped}")
    print(f"  {[line for line in done.stdout.splitlines() if 'played now' in line]!r}")
    if os.path.exists(os.path.join(folder, "seats", "compact.parquet")):
        s = scores(folder)
        print(f"  scores now: {len(s)} seats, over 400: {sum(x > 400 for x in s)}")
    print(f"  afterwards, no writer left: {report(folder)}")


if __name__ == "__main__":
    main()
