"""Names that are not UTF-8 (bytes 0xff, a lone 0x80), a newline, and one of 255 bytes,
added to a sealed folder (report, view, replay, --resume) and, by a writer racing it, into
the folder of a run while it plays (its seal then lists them in "sizes")."""

from __future__ import annotations

import os
import shutil
import subprocess
import time

from common31 import ROOT, cardgame, show, study_file

NAMES = [b"games/\xff", b"records/part-\x80.jsonl", b"seats/a\nb", b"x" * 255]


def add(folder: str) -> None:
    for name in NAMES:
        path = os.fsencode(folder) + b"/" + name
        with open(path, "wb") as file:
            file.write(b"{}")


def main() -> None:
    path = study_file("badname", 40, 2)
    shutil.rmtree(f"{ROOT}/badname", ignore_errors=True)
    show("simulate", cardgame("simulate", path, "--workers", "1", "--no-progress", "--records"))
    copy = f"{ROOT}/badname-copy"
    shutil.rmtree(copy, ignore_errors=True)
    subprocess.run(["cp", "-a", f"{ROOT}/badname", copy], check=True)
    add(copy)
    show("report", cardgame("report", copy, "--out", f"{ROOT}/badname-report"))
    show("view", cardgame("view", copy, "--playouts", "0", "--out", f"{ROOT}/bn.html"))
    rec = f"{copy}/records/part-c0000-g0000000.jsonl"
    show("replay", cardgame("replay", rec))
    show("replay --accept-changes", cardgame("replay", rec, "--accept-changes"))
    show(
        "--resume",
        cardgame(
            "simulate",
            path,
            "--out",
            copy,
            "--resume",
            "--records",
            "--workers",
            "1",
            "--no-progress",
        ),
    )
    show(
        "--resume --accept-changes",
        cardgame(
            "simulate",
            path,
            "--out",
            copy,
            "--resume",
            "--records",
            "--accept-changes",
            "--workers",
            "1",
            "--no-progress",
        ),
    )
    show("report after", cardgame("report", copy, "--out", f"{ROOT}/badname-report"))
    # during a run
    path = study_file("badname-run", 200, 2)
    folder = f"{ROOT}/badname-run"
    shutil.rmtree(folder, ignore_errors=True)
    run = subprocess.Popen(
        ["cardgame", "simulate", path, "--workers", "1", "--no-progress", "--records"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    while not os.path.isfile(f"{folder}/manifest.json"):
        time.sleep(0.05)
    time.sleep(0.5)
    add(folder)
    out, err = run.communicate(timeout=300)
    last = (out + err).strip().splitlines()[-1][:200]
    tb = " TRACEBACK" if "Traceback" in err else ""
    print(f"    a run, the names added while it played: exit {run.returncode}{tb}: {last!r}")
    show("report of it", cardgame("report", folder, "--out", f"{ROOT}/badname-report2"))


if __name__ == "__main__":
    main()
