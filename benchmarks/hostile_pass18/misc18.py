# ruff: noqa: E501  (attack code: long report lines)
"""Smaller findings against the seal's check, each on a fresh copy of a sealed folder:
- ``longpath``: folders nested past PATH_MAX inside the results folder: ``folder_state``
  (``lstat``) and ``rglob`` raise ENAMETOOLONG, which nothing catches: a traceback;
- ``sparse``: a sparse file of 1 TiB added: the check hashes every file before it compares
  names, so the "was added" refusal waits for a terabyte of zeros to be hashed;
- ``emptydir``: an empty folder added is no file, so the seal neither covers nor refuses it;
  some names then make a command refuse for another reason than the change;
- ``selfreport``: ``cardgame report .`` inside a results folder writes its default
  ``report.html`` there, and the folder is refused from then on.
python misc18.py SEALED_FOLDER [longpath|sparse|emptydir|selfreport]...
"""

from __future__ import annotations

import os
import subprocess
import sys

from common import STUDY, cardgame, copy


def last(done: subprocess.CompletedProcess[str]) -> str:
    lines = (done.stdout + done.stderr).strip().splitlines() or [""]
    return f"exit {done.returncode}, traceback {'Traceback' in done.stderr}: {lines[-1][:140]!r}"


def longpath(folder: str) -> None:
    here = os.getcwd()
    os.chdir(folder)
    for _ in range(25):
        os.mkdir("d" * 200)
        os.chdir("d" * 200)
    os.chdir(here)
    print(
        f"longpath: report: {last(cardgame('report', folder, '--format', 'md', '--out', folder + '.md'))}"
    )
    print(
        f"longpath: resume: {last(cardgame('simulate', *STUDY, '--out', folder, '--resume', '--no-progress'))}"
    )


def sparse(folder: str) -> None:
    with open(os.path.join(folder, "records", "zz.jsonl"), "wb") as file:
        file.truncate(1 << 40)
    try:
        done = subprocess.run(
            ["cardgame", "report", folder, "--format", "md", "--out", folder + ".md"],
            capture_output=True,
            text=True,
            timeout=20,
        )
        print(f"sparse: report: {last(done)}")
    except subprocess.TimeoutExpired:
        print(
            "sparse: report: no answer after 20 s (hashing the added 1 TiB file before naming it)"
        )


def emptydir(folder: str) -> None:
    for name in ("quality", "games/_parts/part-c0000-g0000009.arrows.lz4"):
        target = copy(folder, folder + "-dir")
        os.makedirs(os.path.join(target, name))
        print(
            f"emptydir {name}/: report: {last(cardgame('report', target, '--format', 'md', '--out', target + '.md'))}"
        )
        print(
            f"emptydir {name}/: resume: {last(cardgame('simulate', *STUDY, '--out', target, '--resume', '--no-progress'))}"
        )


def selfreport(folder: str) -> None:
    first = subprocess.run(["cardgame", "report", "."], cwd=folder, capture_output=True, text=True)
    second = subprocess.run(["cardgame", "report", "."], cwd=folder, capture_output=True, text=True)
    print(f"selfreport: first: {last(first)}; second: {last(second)}")


def main() -> None:
    for name in sys.argv[2:] or ["longpath", "sparse", "emptydir", "selfreport"]:
        globals()[name](copy(sys.argv[1], sys.argv[1] + "-" + name))


if __name__ == "__main__":
    main()
