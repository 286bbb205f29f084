# ruff: noqa: E501  (attack code: long report lines)
"""No attacker: honest uses that must not be refused.

- copies of a sealed folder (``cp -a``, ``cp -r`` without preserving anything, ``tar``,
  ``shutil.copytree``) reported and resumed;
- runs stopped by the user's Ctrl-C (SIGINT to the script's own run, by pid) at several
  points, with two workers, then resumed (and one resume stopped too, resumed again);
  each resume and its report must exit 0;
- a sealed folder whose manifest was rewritten with the same content (``jq .``-style) is
  read: the seal covers the content, not the bytes (a change that goes unseen, but shows
  nothing other).

python honest23.py
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

from common import ROOT, cardgame, last_line, report, study_file


def copies() -> None:
    path = study_file("honest", 12, 1)
    folder = os.path.join(ROOT, "honest")
    shutil.rmtree(folder, ignore_errors=True)
    done = cardgame("simulate", path, "--workers", "1", "--no-progress", "--records")
    print(f"  sealed run (--records): exit {done.returncode}")
    ways = {
        "cp -a": lambda to: subprocess.run(["cp", "-a", folder, to], check=True),
        "cp -r": lambda to: subprocess.run(["cp", "-r", folder, to], check=True),
        "tar": lambda to: subprocess.run(
            f"mkdir {to} && tar -C {folder} -cf - . | tar -C {to} -xf -", shell=True, check=True
        ),
        "copytree": lambda to: shutil.copytree(folder, to),
    }
    for way, make in ways.items():
        to = os.path.join(ROOT, "copy-" + way.replace(" ", ""))
        shutil.rmtree(to, ignore_errors=True)
        time.sleep(0.01)
        make(to)
        resumed = cardgame(
            "simulate",
            path,
            "--out",
            to,
            "--workers",
            "1",
            "--no-progress",
            "--records",
            "--resume",
        )
        record = sorted(Path(to, "records").glob("*.jsonl"))[0]
        replay = cardgame("replay", str(record))
        print(
            f"  {way}: {report(to)}; resume: exit {resumed.returncode}; replay: exit {replay.returncode}"
        )


def landed(folder: str) -> int:
    parts = os.path.join(folder, "games", "_parts")
    return len(os.listdir(parts)) if os.path.isdir(parts) else 0


def ctrlc(tries: list[tuple[str, float]]) -> None:
    path = study_file("stop", 40, 1)
    refused = 0
    for at, (what, when) in enumerate(tries):
        folder = os.path.join(ROOT, f"stop-{at}")
        shutil.rmtree(folder, ignore_errors=True)
        args = [
            "cardgame",
            "simulate",
            path,
            "--out",
            folder,
            "--workers",
            "2",
            "--no-progress",
            "--records",
        ]
        run = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        start = time.monotonic()
        if what == "parts":  # once this many batches landed
            while landed(folder) < when and run.poll() is None:
                time.sleep(0.002)
        else:  # after this many seconds (the landing and the seal fall late)
            while time.monotonic() - start < when and run.poll() is None:
                time.sleep(0.002)
        run.send_signal(signal.SIGINT)  # the user's Ctrl-C, to the script's own run
        run.communicate(timeout=300)
        first = f"{what} {when}: run exit {run.returncode}"
        resumed = subprocess.Popen(
            [*args, "--resume"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        time.sleep(1.5)  # stop the resume too, then resume again
        resumed.send_signal(signal.SIGINT)
        resumed.communicate(timeout=300)
        again = cardgame(*args[1:], "--resume")
        said = report(folder)
        bad = again.returncode != 0 or "exit 0" not in said
        refused += bad
        print(
            f"  {first}; stopped resume: exit {resumed.returncode}; resume: exit {again.returncode} {last_line(again)[:90]!r}; {said[:60]}"
        )
    print(f"  honest folders refused: {refused} of {len(tries)}")


def manifest_bytes() -> None:
    folder = os.path.join(ROOT, "honest")
    manifest = Path(folder, "manifest.json")
    text = manifest.read_text()
    content = json.loads(text)
    # the same content, other bytes; a duplicate "study" key first, as a person reading it sees
    fake = json.dumps({**content["study"], "name": "not-what-it-was"})
    manifest.write_text('{"study": ' + fake + ", " + json.dumps(content, indent=3)[1:])
    print(f"  manifest rewritten (a duplicate key first, other spacing): {report(folder)}")
    manifest.write_text(text)


# a script started in the background by a non-interactive shell has SIGINT ignored, and its
# runs would inherit that (the CLI leaves an ignored SIGINT ignored): the user's Ctrl-C must
# reach them, so it is handled here and its runs start with the default
signal.signal(signal.SIGINT, signal.default_int_handler)


def main() -> None:
    copies()
    ctrlc(
        [
            ("parts", 3),
            ("parts", 12),
            ("seconds", 0.8),
            ("parts", 30),
            ("parts", 39),
            ("seconds", 9.0),
        ]
    )
    manifest_bytes()


if __name__ == "__main__":
    main()
