# ruff: noqa: E501  (attack code: long report lines)
"""A resume seals a table put in place (by rename) while it plays.

A resumed run reads the files of the seal it found with ``own_writes``: a file that is not
the one the check hashed (another inode) is taken as the run's own write, and its seal
keeps the old digest only for a file that is *still the same file* with other bytes. So a
writer of the folder (no key) waits for the resume's first rewrite of the manifest (the
``unseal`` after its checks), renames a forged ``seats/compact.parquet`` over the sealed one,
and the run's seal covers the forgery.
python resume18.py SEALED_FOLDER
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading

from common import IN_MOVED_TO, STUDY, Watch, copy, forged_seats, report, scores


def main() -> None:
    folder = copy(sys.argv[1], sys.argv[1] + "-resume")
    table = os.path.join(folder, "seats", "compact.parquet")
    forged = folder + "-forged.parquet"  # outside the folder, same file system
    name = forged_seats(table, forged)
    print(f"sealed scores {scores(folder)}")
    watch = Watch(folder, IN_MOVED_TO)
    swapped = threading.Event()

    def swap() -> None:
        watch.wait("manifest.json")  # the resume's unseal: its checks are done
        os.rename(forged, table)
        swapped.set()

    threading.Thread(target=swap, daemon=True).start()
    done = subprocess.run(
        ["cardgame", "simulate", *STUDY, "--out", folder, "--resume", "--no-progress"],
        capture_output=True,
        text=True,
    )
    print(
        f"resume: exit {done.returncode}; swapped during it: {swapped.is_set()}; {(done.stdout + done.stderr).strip()[-200:]!r}"
    )
    print(f"scores now {scores(folder)}")
    print("afterwards, no writer left: " + report(folder, name))


if __name__ == "__main__":
    main()
