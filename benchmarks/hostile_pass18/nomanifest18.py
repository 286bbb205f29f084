# ruff: noqa: E501  (attack code: long report lines)
"""``cardgame view`` and ``cardgame replay`` of a sealed folder whose ``manifest.json`` is
removed (or made a folder): the commands find no results folder (``results_folder_of`` asks
for a manifest *file*) and read the records as loose files, unchecked. A forged record (its
seats' strategy names swapped, its own unkeyed digest made again) is shown and replays.
A third shape with the manifest in place: ``cardgame view FOLDER/records`` (the records
folder itself given) is no results folder either; a forged ``records/records/`` added there
is shown (the folder's own check would name it as added).
python nomanifest18.py SEALED_FOLDER
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from common import cardgame, copy

from cardgame.record import digest_of


def forge(records: Path) -> Path:
    """Every record of the first file with its strategies swapped, digest made again."""
    path = sorted(records.glob("*.jsonl"))[0]
    lines = []
    for line in path.read_bytes().splitlines():
        record = json.loads(line)
        record["strategies"] = record["strategies"][::-1]
        record["digest"] = digest_of(record)
        lines.append(json.dumps(record, separators=(",", ":")))
    path.write_text("\n".join(lines) + "\n")
    return path


def nested(sealed: str) -> None:
    folder = Path(copy(sealed, sealed + "-nested"))
    spare = Path(copy(sealed, sealed + "-nested-spare"))
    (folder / "records" / "records").mkdir()
    forge(spare / "records").rename(folder / "records" / "records" / "part-c0000-g0000000.jsonl")
    view = cardgame("view", str(folder / "records"), "--playouts", "0", "-o", str(folder) + ".html")
    page = Path(str(folder) + ".html")
    shown = page.exists() and '"strategies":["rusher","planner"]' in page.read_text()
    print(
        f"records/records/ added, manifest in place: view {folder.name}/records: exit {view.returncode}: {view.stdout.strip()[:90]!r}; the swapped names in the page: {shown}"
    )
    done = cardgame("report", str(folder), "--format", "md", "--out", str(folder) + ".md")
    print(f"  report {folder.name}: exit {done.returncode}: {done.stderr.strip()[-110:]!r}")


def main() -> None:
    for how in ("removed", "a folder"):
        folder = Path(copy(sys.argv[1], sys.argv[1] + "-nomanifest"))
        record = forge(folder / "records")
        sealed = cardgame("view", str(folder), "--playouts", "0", "-o", str(folder) + ".html")
        print(
            f"the forged record, manifest in place: view exit {sealed.returncode}: {sealed.stderr.strip()[-150:]!r}"
        )
        os.remove(folder / "manifest.json")
        if how == "a folder":
            os.mkdir(folder / "manifest.json")
        print(f"manifest.json {how}:")
        view = cardgame("view", str(folder), "--playouts", "0", "-o", str(folder) + ".html")
        page = Path(str(folder) + ".html")
        shown = page.exists() and '"strategies":["rusher","planner"]' in page.read_text()
        print(
            f"  view {folder}: exit {view.returncode}: {(view.stdout + view.stderr).strip()[-160:]!r}; the swapped names in the page: {shown}"
        )
        replay = cardgame("replay", str(record))
        print(
            f"  replay {record.relative_to(folder.parent)}: exit {replay.returncode}: {replay.stdout.strip().splitlines()[0][-150:]!r}"
        )
        if page.exists():
            page.unlink()
    nested(sys.argv[1])


if __name__ == "__main__":
    main()
