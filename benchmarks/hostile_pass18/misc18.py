# ruff: noqa: E501  (attack code: long report lines)
"""Smaller findings against the seal's check, each on a fresh copy of a sealed folder:
- ``longpath``: folders nested past PATH_MAX inside the results folder: ``folder_state``
  (``lstat``) and ``rglob`` raise ENAMETOOLONG, which nothing catches: a traceback;
- ``sparse``: a sparse file of 1 TiB added: the check hashes every file before it compares
  names, so the "was added" refusal waits for a terabyte of zeros to be hashed;
- ``emptydir``: an empty folder added is no file, so the seal neither covers nor refuses it;
  some names then make a command refuse for another reason than the change;
- ``selfreport``: ``cardgame report .`` inside a results folder writes its default
  ``report.html`` there, and the folder is refused from then on;
- ``manyfiles`` (no attacker): a sealed folder of 401 files (100 batches of one game, with
  --keep-parts and --records) made under a limit of 300 open files (soft = hard, as in a
  container), then resumed, reported and viewed under the same limit: the resume holds a
  handle on every file and leaves the run none.
python misc18.py SEALED_FOLDER [longpath|sparse|emptydir|selfreport|manyfiles]...
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


def manyfiles(folder: str) -> None:
    import resource
    import shutil

    shutil.rmtree(folder)
    study = folder + ".toml"
    with open(study, "w") as file:
        file.write(
            f'name = "many"\nseed = 2026\nplayers = [2]\npool = ["rusher", "random"]\ngames_per_cell = 100\nbatch_size = 1\noutput = "{folder}"\n'
        )

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (300, 300))

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["cardgame", *args], capture_output=True, text=True, preexec_fn=limit)

    made = run("simulate", study, "--workers", "1", "--keep-parts", "--records", "--no-progress")
    files = sum(len(names) for _, _, names in os.walk(folder))
    print(f"manyfiles: the run, limit 300: {last(made)}; {files} files")
    print(
        f"manyfiles: report, limit 300: {last(run('report', folder, '--format', 'md', '--out', folder + '.md'))}"
    )
    print(
        f"manyfiles: view, limit 300: {last(run('view', folder, '--playouts', '0', '-o', folder + '.html'))}"
    )
    resumed = run(
        "simulate",
        study,
        "--workers",
        "1",
        "--keep-parts",
        "--records",
        "--no-progress",
        "--resume",
    )
    first = next((x for x in resumed.stderr.splitlines() if x.startswith("OSError")), "")
    print(f"manyfiles: resume, limit 300: {last(resumed)}; first error: {first[:100]!r}")


def main() -> None:
    for name in sys.argv[2:] or ["longpath", "sparse", "emptydir", "selfreport"]:
        globals()[name](copy(sys.argv[1], sys.argv[1] + "-" + name))


if __name__ == "__main__":
    main()
