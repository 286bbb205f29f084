"""Changes a sealed results folder after its run, three ways, and asks ``cardgame report``
each time: (a) a score raised; (b) the same and the manifest's digests removed (the folder
then reads as 'never sealed'); (c) the same and the folder sealed again with the project's
own function. Usage: python seal_attack.py FOLDER (a finished run's folder; copied)."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq

from sims.folder import seal

source = Path(sys.argv[1])


def tampered(name: str) -> Path:
    out = Path(f"/tmp/hostile/seal-{name}")
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(source, out)
    path = out / "seats" / "compact.parquet"
    table = pq.read_table(path)
    i = table.column_names.index("score")
    table = table.set_column(i, "score", pc.add(table["score"], 500))
    pq.write_table(table, path)
    return out


def report(folder: Path) -> str:
    done = subprocess.run(
        ["cardgame", "report", str(folder), "--out", str(folder / "r.html")],
        capture_output=True,
        text=True,
    )
    return f"exit {done.returncode}: {(done.stderr or done.stdout).strip()[-200:]}"


a = tampered("a")
print("(a) score +500:", report(a))
b = tampered("b")
manifest = json.loads((b / "manifest.json").read_text())
manifest.pop("files")
(b / "manifest.json").write_text(json.dumps(manifest))
print("(b) score +500, digests dropped:", report(b))
c = tampered("c")
seal(c)
print("(c) score +500, sealed again:", report(c))
