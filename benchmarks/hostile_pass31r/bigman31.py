"""An honest run's manifest against the readers' bounds (64 MiB, 4,194,304 values): how
many bytes and values a run's seal writes a batch kept as parts (--keep-parts, --records),
and so how many batches an honest run may keep before every reader refuses its folder."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from common31 import ROOT, cardgame, show

from sims.folder import MAX_MANIFEST, MAX_MANIFEST_VALUES


def measure(name: str, games: int, batch: int, *flags: str) -> tuple[float, float]:
    from common31 import study_file

    path = study_file(name, games, batch)
    shutil.rmtree(f"{ROOT}/{name}", ignore_errors=True)
    done = cardgame("simulate", path, "--workers", "1", "--no-progress", *flags)
    show(f"simulate {name} {' '.join(flags)}", done)
    data = Path(f"{ROOT}/{name}/manifest.json").read_bytes()
    files = sum(1 for p in Path(f"{ROOT}/{name}").rglob("*") if p.is_file())
    batches = games // batch  # one cell
    values = data.count(b",") + data.count(b"[") + data.count(b"{")
    print(
        f"  {name}: {batches} batches, {files} files, manifest {len(data):,} bytes, "
        f"{values:,} values"
    )
    return len(data) / batches, values / batches


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    per_byte, per_value = measure("bigman", games, 1, "--keep-parts", "--records")
    print(f"  a batch kept with records: {per_byte:.0f} bytes, {per_value:.1f} values")
    print(
        f"  batches to pass {MAX_MANIFEST:,} bytes: {MAX_MANIFEST / per_byte:,.0f}; "
        f"to pass {MAX_MANIFEST_VALUES:,} values: {MAX_MANIFEST_VALUES / per_value:,.0f}"
    )
    per_byte, per_value = measure("bigman-nr", games, 1, "--keep-parts")
    print(f"  a batch kept without records: {per_byte:.0f} bytes, {per_value:.1f} values")
    print(
        f"  batches to pass {MAX_MANIFEST:,} bytes: {MAX_MANIFEST / per_byte:,.0f}; "
        f"to pass {MAX_MANIFEST_VALUES:,} values: {MAX_MANIFEST_VALUES / per_value:,.0f}"
    )
    per_byte, per_value = measure("bigman-600", 600, 1, "--keep-parts")
    print(
        f"  600 batches kept without records: {per_byte:.0f} bytes a batch, "
        f"{per_value:.1f} values; batches to pass {MAX_MANIFEST:,} bytes: "
        f"{MAX_MANIFEST / per_byte:,.0f}"
    )


if __name__ == "__main__":
    main()
