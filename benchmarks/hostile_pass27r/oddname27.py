# ruff: noqa: E501  (attack code: long report lines)
"""Odd names and honest copies of a sealed ``--records`` folder.

Odd names (the writer): a file whose name is not UTF-8 (``b"\\xff"``), one holding a newline,
added to a sealed folder, and the same added while a ``--resume`` plays (the run's seal
then keeps its size under that name). Each read by ``report``, ``view``, ``replay`` and a
``--resume``: one line and exit 2 expected, never a traceback.

Honest copies (no writer): ``tar`` (out and back in), ``cp -al`` (a copy of hard links, as
snapshot tools make), then a ``--resume --check-search`` of the hard-link copy, and the
original read after it: nothing may be refused.

python oddname27.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time

from common27 import ROOT, cardgame, last_line, study_file


def show(what: str, done: subprocess.CompletedProcess[str]) -> None:
    tb = "Traceback" in done.stderr
    print(
        f"    {what}: exit {done.returncode}{' TRACEBACK' if tb else ''}: {last_line(done)[:170]!r}"
    )


def readers(folder: str, path: str, extra: list[str] | None = None) -> None:
    record = sorted(os.listdir(os.path.join(folder, "records")))[0]
    out = os.path.join(ROOT, "odd27.md")
    show("report", cardgame("report", folder, "--format", "md", "--out", out))
    show("view", cardgame("view", folder, "--out", os.path.join(ROOT, "odd27.html")))
    show("replay", cardgame("replay", os.path.join(folder, "records", record)))
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
            folder,
            "--resume",
            *(extra or []),
        ),
    )


def main() -> None:
    base = os.path.join(ROOT, "odd27")
    shutil.rmtree(base, ignore_errors=True)
    path = study_file("odd27", 4, 2)
    made = cardgame("simulate", path, "--workers", "1", "--no-progress", "--records")
    print(f"  the run: exit {made.returncode}: {last_line(made)!r}")
    for label, name in (("a name not UTF-8", b"\xff"), ("a name with a newline", b"a\nb")):
        copy = os.path.join(ROOT, "odd27-copy")
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(base, copy)
        with open(os.path.join(os.fsencode(copy), b"records", name), "wb") as f:
            f.write(b"x")
        print(f"  {label} added to records/ of a sealed copy:")
        readers(copy, path)
    # added while a resume plays: the run's seal names it
    for label, name in (("a name not UTF-8", b"\xff"), ("a name with a newline", b"a\nb")):
        copy = os.path.join(ROOT, "odd27-run")
        shutil.rmtree(copy, ignore_errors=True)
        runpath = study_file("odd27-run", 4, 1)
        shutil.rmtree(copy, ignore_errors=True)
        run = subprocess.Popen(
            ["cardgame", "simulate", runpath, "--workers", "1", "--no-progress", "--records"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        manifest = os.path.join(copy, "manifest.json")
        while run.poll() is None and not os.path.exists(manifest):
            time.sleep(0.01)
        with open(os.path.join(os.fsencode(copy), name), "wb") as f:
            f.write(b"x")
        out, _ = run.communicate(timeout=300)
        tb = "Traceback" in out
        print(
            f"  {label} added to the folder while the run plays: the run exit {run.returncode}{' TRACEBACK' if tb else ''}: {out.strip().splitlines()[-1][:170]!r}"
        )
        readers(copy, runpath)
    # honest copies
    print("  honest copies:")
    tarred = os.path.join(ROOT, "odd27-tar")
    shutil.rmtree(tarred, ignore_errors=True)
    os.makedirs(tarred)
    subprocess.run(f"tar -C {base} -cf - . | tar -C {tarred} -xf -", shell=True, check=True)
    show(
        "tar copy: report",
        cardgame("report", tarred, "--format", "md", "--out", os.path.join(ROOT, "t.md")),
    )
    show(
        "tar copy: --resume --records",
        cardgame(
            "simulate",
            path,
            "--workers",
            "1",
            "--no-progress",
            "--records",
            "--out",
            tarred,
            "--resume",
        ),
    )
    linked = os.path.join(ROOT, "odd27-links")
    shutil.rmtree(linked, ignore_errors=True)
    subprocess.run(["cp", "-al", base, linked], check=True)
    show(
        "cp -al copy: report",
        cardgame("report", linked, "--format", "md", "--out", os.path.join(ROOT, "l.md")),
    )
    show(
        "cp -al copy: --resume --records --check-search 4",
        cardgame(
            "simulate",
            path,
            "--workers",
            "1",
            "--no-progress",
            "--records",
            "--out",
            linked,
            "--resume",
            "--check-search",
            "4",
        ),
    )
    show(
        "the original after: report",
        cardgame("report", base, "--format", "md", "--out", os.path.join(ROOT, "o.md")),
    )
    show(
        "the original after: --resume --records",
        cardgame(
            "simulate",
            path,
            "--workers",
            "1",
            "--no-progress",
            "--records",
            "--out",
            base,
            "--resume",
        ),
    )


if __name__ == "__main__":
    main()
