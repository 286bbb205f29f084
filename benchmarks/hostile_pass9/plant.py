"""A copy of the view planted before a run by someone else (simulated: made here, then given
to uid 65534 with a line added to the copy's json package): run it from a neutral folder with
the venv's python3 (the interpreter the `cardgame` script names, which is in the digest),
then any `--isolate` run of this install; its stderr shows "HOSTILE Planted" from the host.
`python3 plant.py` prints the folder it made (nothing if one is there already)."""

import json
import os
import subprocess

from sims import runtime

view = runtime.python_view()
files = view.files()
folder = f"/dev/shm/{runtime.COPY_PREFIX}{runtime._digest(view, files)}"
if not os.path.exists(folder):
    runtime._make_copy(view, files, folder)
    with open(folder + json.__file__, "a", encoding="utf-8") as planted:
        planted.write(
            "\nimport sys as _hp9s\n"
            '_hp9s.stderr.write("HOSTILE Planted: this json is a planted copy (uid 65534)\\n")\n'
        )
    subprocess.run(["chown", "-R", "65534:65534", folder], check=True)
    print(folder)
