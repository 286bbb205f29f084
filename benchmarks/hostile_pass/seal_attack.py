"""Changes a sealed results folder after its run, several ways, and asks ``cardgame report``
each time: (a) a score raised; (b) the same and the manifest's digests removed; (b2) the same
and the whole seal removed (digests and mark: a folder 'never sealed'); (b3) the same and the
mark set to 'open' (a run killed mid-way); (c) the same and the folder sealed again with the
project's own function by someone without the user's key (their own $XDG_CONFIG_HOME); (d)
the same, sealed again by the user's own account (with the key: not protected, documented).
Usage: python seal_attack.py FOLDER (a finished run's folder; copied)."""

import json
import os
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


def edited(name: str, change) -> Path:
    out = tampered(name)
    manifest = json.loads((out / "manifest.json").read_text())
    change(manifest)
    (out / "manifest.json").write_text(json.dumps(manifest))
    return out


b = edited("b", lambda m: m.pop("files"))
print("(b) score +500, digests dropped:", report(b))
b2 = edited("b2", lambda m: (m.pop("files"), m.pop("seal", None)))
print("(b2) score +500, digests and mark dropped:", report(b2))
b3 = edited("b3", lambda m: (m.pop("files"), m.setdefault("seal", {}).update(state="open")))
print("(b3) score +500, marked open:", report(b3))
c = tampered("c")
mine = os.environ.get("XDG_CONFIG_HOME")
os.environ["XDG_CONFIG_HOME"] = "/tmp/hostile/another-user-config"
seal(c)
if mine is None:
    del os.environ["XDG_CONFIG_HOME"]
else:
    os.environ["XDG_CONFIG_HOME"] = mine
print("(c) score +500, sealed again without the user's key:", report(c))
d = tampered("d")
seal(d)
print("(d) score +500, sealed again with the user's key:", report(d))
