"""Special entries put in a sealed folder (links to folders, dangling links, named pipes,
folders of a record's name, names the seal leaves out) and read by ``report``, ``view``,
``replay`` and ``--resume``: each should be refused in one line naming it, or be harmless
(nothing read, exit 0); never a hang, a traceback, or a foreign table read.

python special29.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from common29 import ROOT, cardgame, show, study_file


def mutations(base: str) -> dict[str, object]:
    foreign = os.path.join(ROOT, "special29-foreign")

    def link_table(copy: str) -> None:  # quality: a link to a folder holding a table
        shutil.rmtree(foreign, ignore_errors=True)
        shutil.copytree(os.path.join(base, "seats"), foreign)
        os.symlink(foreign, os.path.join(copy, "quality"))

    def link_seats(copy: str) -> None:  # seats moved out, a link to it in its place (same bytes)
        moved = foreign + "-seats"
        shutil.rmtree(moved, ignore_errors=True)
        shutil.move(os.path.join(copy, "seats"), moved)
        os.symlink(moved, os.path.join(copy, "seats"))

    def link_records(copy: str) -> None:
        moved = foreign + "-records"
        shutil.rmtree(moved, ignore_errors=True)
        shutil.move(os.path.join(copy, "records"), moved)
        os.symlink(moved, os.path.join(copy, "records"))

    def fifo(rel: str):
        return lambda copy: os.mkfifo(os.path.join(copy, rel))

    def dangling(rel: str):
        return lambda copy: os.symlink("/nonexistent/x", os.path.join(copy, rel))

    def link_to(rel: str, target: str):
        return lambda copy: os.symlink(target, os.path.join(copy, rel))

    def folder(rel: str):
        return lambda copy: os.makedirs(os.path.join(copy, rel))

    def left_out_with_parts(copy: str) -> None:  # a .tmp folder holding a table's files
        shutil.copytree(os.path.join(copy, "seats"), os.path.join(copy, "quality.tmp"))
        shutil.copytree(os.path.join(copy, "seats"), os.path.join(copy, ".dask-run-x"))

    def tmp_dir_in_table(copy: str) -> None:  # games/_parts.tmp holding parts
        os.makedirs(os.path.join(copy, "games", "x.tmp"))
        shutil.copy(
            os.path.join(copy, "games", "compact.parquet"),
            os.path.join(copy, "games", "x.tmp", "part-zz.arrows.lz4"),
        )

    return {
        "quality -> a folder outside holding seats' compact file": link_table,
        "seats moved out, seats -> it (same bytes)": link_seats,
        "records moved out, records -> it (same bytes)": link_records,
        "fifo games/zz": fifo("games/zz"),
        "fifo records/part-zz.jsonl": fifo("records/part-zz.jsonl"),
        "fifo quality": fifo("quality"),
        "fifo zz.tmp": fifo("zz.tmp"),
        "dangling link records/part-zz.jsonl": dangling("records/part-zz.jsonl"),
        "dangling link quality": dangling("quality"),
        "link zz.tmp -> /etc/passwd": link_to("zz.tmp", "/etc/passwd"),
        "link .dask-run-x -> /": link_to(".dask-run-x", "/"),
        "link quality -> / ": link_to("quality", "/"),
        "link checks -> /tmp": link_to("checks", "/tmp"),
        "folder records/part-zz.jsonl": folder("records/part-zz.jsonl"),
        "folder seats/_parts (empty)": folder("seats/_parts"),
        "quality.tmp/ and .dask-run-x/ holding seats' files": left_out_with_parts,
        "games/x.tmp/ holding a part": tmp_dir_in_table,
    }


def main() -> None:
    path = study_file("special29", 4, 2)
    base = os.path.join(ROOT, "special29")
    shutil.rmtree(base, ignore_errors=True)
    made = cardgame("simulate", path, "--workers", "1", "--no-progress", "--records", "--out", base)
    print(f"  the run: exit {made.returncode}", flush=True)
    copy = os.path.join(ROOT, "special29-copy")
    record = sorted(p.name for p in Path(base, "records").iterdir())[0]
    for what, apply in mutations(base).items():
        shutil.rmtree(copy, ignore_errors=True)
        subprocess.run(["cp", "-a", base, copy], check=True)
        apply(copy)
        print(f"  {what}", flush=True)
        try:
            show(
                "report",
                cardgame(
                    "report",
                    copy,
                    "--format",
                    "md",
                    "--out",
                    os.path.join(ROOT, "special29.md"),
                    timeout=60,
                ),
            )
            show(
                "view",
                cardgame(
                    "view",
                    copy,
                    "--playouts",
                    "0",
                    "--out",
                    os.path.join(ROOT, "special29.html"),
                    timeout=60,
                ),
            )
            show("replay", cardgame("replay", os.path.join(copy, "records", record), timeout=60))
            show(
                "--resume",
                cardgame(
                    "simulate",
                    path,
                    "--workers",
                    "1",
                    "--no-progress",
                    "--records",
                    "--out",
                    copy,
                    "--resume",
                    timeout=120,
                ),
            )
        except subprocess.TimeoutExpired as exc:
            print(f"    HANG: {exc.cmd[1]} past {exc.timeout} s", flush=True)


if __name__ == "__main__":
    main()
