"""A manifest within the 256 MiB bound whose JSON grows some twenty-fold when parsed: a key
``x`` holding ``[[],[],...]`` (3 bytes a list in the file, 64 in memory). Every reader parses
the manifest before it compares anything with the seal (``_parsed_manifest``), so a copy of
a sealed folder with such a manifest costs each ``report`` / ``view`` / ``replay`` /
``--resume`` memory and time before its one-line refusal, and a reader short of memory ends
in ``MemoryError``. Measured: 50 MiB with no limit (peak memory, time); 250 MiB under a 6 GB
address-space limit of our own process (``ulimit -v``), standing for a smaller machine.

python amp30.py   (after flip30.py, which makes the sealed folder)
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import time

from common30 import ROOT


def padded(copy: str, mib: int) -> int:
    path = os.path.join(copy, "manifest.json")
    with open(path) as f:
        manifest = json.load(f)
    manifest["x"] = None
    count = (mib << 20) // 3
    text = json.dumps(manifest).replace('"x": null', '"x": [' + "[]," * (count - 1) + "[]]")
    with open(path, "w") as f:
        f.write(text)
    return os.path.getsize(path)


def limited(gb: float):
    def apply() -> None:
        limit = int(gb * 1e9)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return apply


def main() -> None:
    base = os.path.join(ROOT, "flip30")
    for mib, gb in ((50, None), (250, 6.0)):
        copy = os.path.join(ROOT, f"amp30-{mib}")
        shutil.rmtree(copy, ignore_errors=True)
        subprocess.run(["cp", "-a", base, copy], check=True)
        size = padded(copy, mib)
        args = ["report", copy, "--format", "md", "--out", os.path.join(ROOT, "amp30.md")]
        start = time.monotonic()
        done = subprocess.run(
            ["/usr/bin/time", "-f", "peak %M kB", "cardgame", *args],
            capture_output=True,
            text=True,
            preexec_fn=limited(gb) if gb else None,
            timeout=600,
        )
        took = time.monotonic() - start
        lines = done.stderr.strip().splitlines()
        peak = next((ln for ln in lines if ln.startswith("peak")), "")
        said = [ln for ln in lines if "error" in ln or ln.startswith("MemoryError")]
        tb = " TRACEBACK" if "Traceback" in done.stderr else ""
        where = f"under a {gb} GB limit" if gb else "no limit"
        print(
            f"  manifest of {size:,} bytes, {where}: report exit {done.returncode}{tb} "
            f"in {took:.0f} s, {peak}: {said[-1][:160] if said else ''!r}",
            flush=True,
        )

    # the same in a loose record (no manifest: read as found, bounded at 1 GiB on disk)
    loose = os.path.join(ROOT, "amp30-loose", "records")
    shutil.rmtree(os.path.dirname(loose), ignore_errors=True)
    os.makedirs(loose)
    record = os.path.join(loose, "part-c0000-g0000000.jsonl")
    count = (50 << 20) // 3
    with open(record, "w") as f:
        f.write("[" + "[]," * (count - 1) + "[]]\n")
    start = time.monotonic()
    done = subprocess.run(
        ["/usr/bin/time", "-f", "peak %M kB", "cardgame", "replay", record],
        capture_output=True,
        text=True,
        timeout=600,
    )
    lines = done.stderr.strip().splitlines()
    peak = next((ln for ln in lines if ln.startswith("peak")), "")
    said = [ln for ln in lines if "error" in ln]
    print(
        f"  a loose record of {os.path.getsize(record):,} bytes: replay exit {done.returncode} "
        f"in {time.monotonic() - start:.0f} s, {peak}: {said[-1][:160] if said else ''!r}",
        flush=True,
    )


if __name__ == "__main__":
    main()
