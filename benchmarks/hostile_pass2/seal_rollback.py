"""Roll a sealed folder back to its own open mark, then change its results unseen.

Someone who can read the results folder while its run plays (another user of a shared disk
with access to it, a backup, a sync) but never holds the seal key copies ``manifest.json``
while it is *open*. After the run seals, they raise one strategy's scores in
``seats/compact.parquet`` and put the copied open manifest back: ``check_sealed`` reads a run
that has not ended (its own, keyed mark) and ``cardgame report`` accepts it. A second case:
the library reader ``sims.results.load_results`` reads a sealed folder changed in place
(no rollback) without a word.
Usage: python seal_rollback.py [WORKDIR] (default /tmp/hp2/seal)."""

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq

work = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/hp2/seal")
shutil.rmtree(work, ignore_errors=True)
work.mkdir(parents=True)
out = work / "run"
run = subprocess.Popen(
    [
        "cardgame",
        "simulate",
        "--strategies",
        "planner,rusher",
        "--players",
        "2",
        "--games",
        "60",
        "--workers",
        "1",
        "--out",
        str(out),
        "--no-progress",
    ],
    stdout=subprocess.DEVNULL,
    stderr=subprocess.PIPE,
    text=True,
)
copied = None
while run.poll() is None:  # the onlooker: copy the manifest while the run is open
    path = out / "manifest.json"
    if copied is None and path.exists():
        try:
            manifest = json.loads(path.read_text())
        except ValueError:
            continue
        if manifest.get("seal", {}).get("state") == "open":
            copied = path.read_text()
    time.sleep(0.005)
print("run exit", run.returncode, "| open manifest copied:", copied is not None)
sealed = json.loads((out / "manifest.json").read_text())
print("after the run the folder is", sealed["seal"]["state"])


def report(folder: Path) -> str:
    done = subprocess.run(
        ["cardgame", "report", str(folder), "--out", str(work / "r.md"), "--format", "md"],
        capture_output=True,
        text=True,
    )
    text = (work / "r.md").read_text() if done.returncode == 0 else ""
    strongest = [ln for ln in text.splitlines() if "strongest" in ln.lower()][:1]
    return f"exit {done.returncode}: {(done.stderr or '').strip()[-200:]} {strongest}"


print("untouched:", report(out))
# change: planner's scores +500
path = out / "seats" / "compact.parquet"
table = pq.read_table(path)
raised = pc.if_else(
    pc.equal(table["strategy"], "rusher"), pc.add(table["score"], 500), table["score"]
)
table = table.set_column(table.column_names.index("score"), "score", raised)
pq.write_table(table, path)
print("scores changed, sealed manifest kept:", report(out))
from sims.errors import ResultsError  # noqa: E402
from sims.results import load_results  # noqa: E402


def loaded(folder: Path) -> str:
    try:
        res = load_results(folder)
    except ResultsError as exc:
        return f"refused: {exc}"
    rusher = res.seats[res.seats["strategy"] == "rusher"]["score"].mean()
    return f"read, rusher mean score {rusher} (no refusal)"


print("load_results of the changed sealed folder:", loaded(out))
(out / "manifest.json").write_text(copied)
print("scores changed, the run's own open manifest put back:", report(out))
print("load_results of it:", loaded(out))
