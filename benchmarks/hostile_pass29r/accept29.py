"""Hostile files read with ``--accept-changes`` (the one way past the seal a user may take):
special entries (links, named pipes), tables swapped, truncated or emptied, record files of
odd JSON, odd manifest bytes. Each is given to ``report``, ``view``, ``replay`` and
``--resume`` with ``--accept-changes``; anything but exit 0 or 2 in one line (a traceback,
a hang) is reported.

python accept29.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from common29 import ROOT, cardgame, show, study_file


def mutations(base: str) -> dict[str, object]:
    def write(rel: str, data: bytes):
        return lambda copy: Path(copy, rel).write_bytes(data)

    def swap(rel: str, other: str):
        return lambda copy: shutil.copy(os.path.join(copy, other), os.path.join(copy, rel))

    def truncate(rel: str):
        def apply(copy: str) -> None:
            p = Path(copy, rel)
            p.write_bytes(p.read_bytes()[: p.stat().st_size // 2])

        return apply

    def record_lines(lines: bytes):
        def apply(copy: str) -> None:
            for p in Path(copy, "records").iterdir():
                p.write_bytes(lines)

        return apply

    def manifest_bytes(change):
        def apply(copy: str) -> None:
            p = Path(copy, "manifest.json")
            p.write_bytes(change(p.read_bytes()))

        return apply

    return {
        "link quality -> /": lambda c: os.symlink("/", os.path.join(c, "quality")),
        "fifo quality": lambda c: os.mkfifo(os.path.join(c, "quality")),
        "fifo records/part-zz.jsonl": lambda c: os.mkfifo(
            os.path.join(c, "records", "part-zz.jsonl")
        ),
        "fifo games/compact.parquet": lambda c: (
            os.remove(os.path.join(c, "games", "compact.parquet")),
            os.mkfifo(os.path.join(c, "games", "compact.parquet")),
        ),
        "link games/compact.parquet -> /dev/zero": lambda c: (
            os.remove(os.path.join(c, "games", "compact.parquet")),
            os.symlink("/dev/zero", os.path.join(c, "games", "compact.parquet")),
        ),
        "games/compact.parquet = seats' bytes": swap(
            "games/compact.parquet", "seats/compact.parquet"
        ),
        "seats/compact.parquet = games' bytes": swap(
            "seats/compact.parquet", "games/compact.parquet"
        ),
        "destinations/compact.parquet = games' bytes": swap(
            "destinations/compact.parquet", "games/compact.parquet"
        ),
        "games/compact.parquet halved": truncate("games/compact.parquet"),
        "games/compact.parquet empty": write("games/compact.parquet", b""),
        "seats/compact.parquet = 'PAR1' garbage": write(
            "seats/compact.parquet", b"PAR1" + b"\0" * 64 + b"PAR1"
        ),
        "records: invalid UTF-8": record_lines(b"\xff\xfe{}\n"),
        "records: a list": record_lines(b"[1, 2]\n"),
        "records: NaN and huge ints": record_lines(
            b'{"seed": NaN, "scores": [1e999, 99999999999999999999999999]}\n'
        ),
        "records: an empty object": record_lines(b"{}\n"),
        "records: deep": record_lines(b"[" * 100000 + b"]" * 100000 + b"\n"),
        "manifest: a BOM first": manifest_bytes(lambda b: b"\xef\xbb\xbf" + b),
        "manifest: UTF-16": manifest_bytes(lambda b: b.decode().encode("utf-16")),
        "manifest: trailing garbage": manifest_bytes(lambda b: b + b"}"),
        "manifest: NaN for schema_version": manifest_bytes(
            lambda b: b.replace(b'"schema_version": ', b'"schema_version": NaN, "x": ', 1)
        ),
        "manifest: deep": manifest_bytes(
            lambda b: b[:-2] + b', "x": ' + b"[" * 100000 + b"]" * 100000 + b"}"
        ),
        "manifest: a lone surrogate key": manifest_bytes(lambda b: b[:-2] + b', "\\ud800": 1}'),
    }


def main() -> None:
    path = study_file("accept29", 4, 2)
    base = os.path.join(ROOT, "accept29")
    shutil.rmtree(base, ignore_errors=True)
    made = cardgame("simulate", path, "--workers", "1", "--no-progress", "--records", "--out", base)
    print(f"  the run: exit {made.returncode}", flush=True)
    copy = os.path.join(ROOT, "accept29-copy")
    record = sorted(p.name for p in Path(base, "records").iterdir())[0]
    for what, apply in mutations(base).items():
        shutil.rmtree(copy, ignore_errors=True)
        subprocess.run(["cp", "-a", base, copy], check=True)
        try:
            apply(copy)
        except Exception as exc:
            print(f"  {what}: not applicable ({exc!r})")
            continue
        print(f"  {what}", flush=True)
        for name, args in (
            (
                "report",
                ["report", copy, "--format", "md", "--out", os.path.join(ROOT, "accept29.md")],
            ),
            (
                "view",
                ["view", copy, "--playouts", "0", "--out", os.path.join(ROOT, "accept29.html")],
            ),
            ("replay", ["replay", os.path.join(copy, "records", record)]),
            (
                "--resume",
                [
                    "simulate",
                    path,
                    "--workers",
                    "1",
                    "--no-progress",
                    "--records",
                    "--out",
                    copy,
                    "--resume",
                ],
            ),
        ):
            try:
                show(name, cardgame(*args, "--accept-changes", timeout=25))
            except subprocess.TimeoutExpired as exc:
                print(f"    {name}: HANG past {exc.timeout} s (killed)", flush=True)


if __name__ == "__main__":
    main()
