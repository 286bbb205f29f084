"""A sealed folder's manifest padded with JSON whitespace past 64 MiB, the stand-in for an
honest run's manifest past the bound (bigman31.py: some 125,000 batches kept as parts). It
parses to what was sealed (the seal's manifest digest is of what it parses to), so the only
refusal is the bound: which command, with which flag, can still read such a folder?"""

from __future__ import annotations

import shutil
import subprocess

from common31 import ROOT, cardgame, show, study_file


def main() -> None:
    path = study_file("pad", 20, 5)
    shutil.rmtree(f"{ROOT}/pad", ignore_errors=True)
    show("simulate", cardgame("simulate", path, "--workers", "1", "--no-progress"))
    copy = f"{ROOT}/pad-copy"
    for size in (60 << 20, 65 << 20):
        shutil.rmtree(copy, ignore_errors=True)
        subprocess.run(["cp", "-a", f"{ROOT}/pad", copy], check=True)
        with open(f"{copy}/manifest.json", "r+b") as file:
            data = file.read()
            file.seek(0)
            file.write(data.rstrip(b"\n") + b" " * (size - len(data)) + b"\n")
        print(f"  manifest padded to {size:,} bytes:")
        show("report", cardgame("report", copy, "--out", f"{ROOT}/pad-report"))
        show(
            "report --accept-changes",
            cardgame("report", copy, "--accept-changes", "--out", f"{ROOT}/pad-report"),
        )
        show(
            "simulate --resume",
            cardgame(
                "simulate", path, "--out", copy, "--resume", "--workers", "1", "--no-progress"
            ),
        )
        show(
            "simulate --resume --accept-changes",
            cardgame(
                "simulate",
                path,
                "--out",
                copy,
                "--resume",
                "--accept-changes",
                "--workers",
                "1",
                "--no-progress",
            ),
        )


if __name__ == "__main__":
    main()
