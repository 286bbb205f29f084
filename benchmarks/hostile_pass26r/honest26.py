# ruff: noqa: E501  (attack code: long report lines)
"""No attacker: honest uses of a folder that must not be refused.

- a run with a search check (``--check-search``) stopped by Ctrl-C while its check plays,
  then resumed with the same options;
- a check added to a sealed folder (``--resume --check-search``);
- a ``--keep-parts`` run, then a plain ``--resume`` of it (nothing left to play);
- a copy made with ``cp -a``, read through a link to it and from inside it (``report .``).

Each folder is then read by ``report`` (and ``view`` where it holds records).

python honest26.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

from common import ROOT, cardgame, last_line, study_file

SIM = ["--workers", "1", "--no-progress"]


def show(what: str, done: subprocess.CompletedProcess[str]) -> bool:
    tb = " TRACEBACK" if "Traceback" in done.stderr else ""
    print(f"  {what}: exit {done.returncode}{tb}: {last_line(done)[:150]!r}")
    return done.returncode == 0


def report(folder: str, cwd: str | None = None) -> subprocess.CompletedProcess[str]:
    out = os.path.join(ROOT, "honest26-report.md")
    return subprocess.run(
        ["cardgame", "report", folder, "--format", "md", "--out", out],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
    )


def stopped_in_check() -> list[bool]:
    path = study_file("honest26-check", 6, 2)
    folder = os.path.join(ROOT, "honest26-check")
    shutil.rmtree(folder, ignore_errors=True)
    args = ["cardgame", "simulate", path, *SIM, "--check-search", "30"]
    run = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    check = Path(folder, "checks", "search", "manifest.json")
    while run.poll() is None and not check.exists():
        time.sleep(0.01)
    time.sleep(1.0)
    playing = run.poll() is None
    run.send_signal(2)
    out, _ = run.communicate(timeout=300)
    print(
        f"  Ctrl-C while the check plays (still running: {playing}): exit {run.returncode}: {out.strip().splitlines()[-1][:150]!r}"
    )
    ok = [show("report", report(folder))]
    ok.append(
        show(
            "--resume --check-search 30",
            cardgame("simulate", path, *SIM, "--resume", "--check-search", "30"),
        )
    )
    ok.append(show("report", report(folder)))
    return ok


def check_added() -> list[bool]:
    path = study_file("honest26-added", 6, 2)
    folder = os.path.join(ROOT, "honest26-added")
    shutil.rmtree(folder, ignore_errors=True)
    ok = [show("run", cardgame("simulate", path, *SIM, "--records"))]
    ok.append(
        show(
            "--resume --records --check-search 4",
            cardgame("simulate", path, *SIM, "--resume", "--records", "--check-search", "4"),
        )
    )
    ok.append(show("report", report(folder)))
    ok.append(show("view", cardgame("view", folder, "--out", os.path.join(ROOT, "honest26.html"))))
    return ok


def kept_parts() -> list[bool]:
    path = study_file("honest26-kept", 8, 1)
    folder = os.path.join(ROOT, "honest26-kept")
    shutil.rmtree(folder, ignore_errors=True)
    ok = [show("--keep-parts run", cardgame("simulate", path, *SIM, "--keep-parts"))]
    ok.append(show("report", report(folder)))
    ok.append(show("plain --resume", cardgame("simulate", path, *SIM, "--resume")))
    ok.append(show("report", report(folder)))
    copy = os.path.join(ROOT, "honest26-kept-cp-a")
    shutil.rmtree(copy, ignore_errors=True)
    subprocess.run(["cp", "-a", folder, copy], check=True)
    ok.append(show("report of a cp -a copy", report(copy)))
    link = os.path.join(ROOT, "honest26-link")
    if os.path.lexists(link):
        os.remove(link)
    os.symlink(copy, link)
    ok.append(show("report through a link to it", report(link)))
    ok.append(show("report . from inside it", report(".", cwd=copy)))
    ok.append(
        show("--resume --out the link", cardgame("simulate", path, *SIM, "--resume", "--out", link))
    )
    return ok


def main() -> None:
    ok: list[bool] = []
    for label, step in (
        ("a search check stopped by Ctrl-C, resumed", stopped_in_check),
        ("a check added to a sealed folder", check_added),
        ("--keep-parts, a plain resume, cp -a, a link, report .", kept_parts),
    ):
        print(f"{label}:")
        ok += step()
    print(f"honest commands refused (exit not 0): {ok.count(False)} of {len(ok)}")


if __name__ == "__main__":
    main()
