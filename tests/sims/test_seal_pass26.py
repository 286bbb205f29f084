"""The results seal against hostile pass 26's writer (benchmarks/hostile_pass26r): a run's
seal ends the run it opened whatever another writer left in its manifest's place, so the
run's own open manifest, put back after it ended, reads as a run that ended unsealed."""

import json
import os

import pytest

from sims.errors import ResultsError
from sims.folder import MANIFEST, check_sealed
from sims.runner import run
from sims.study import from_dict
from tests.sims.sealed import small_study

STUDY = small_study("pass26")


@pytest.mark.timeout(120)  # the named pipe: a read of it by path waited for good
@pytest.mark.parametrize("how", ["removed", "another run's", "a named pipe"])
def test_a_runs_seal_ends_its_run_whatever_is_in_its_manifests_place(tmp_path, monkeypatch, how):
    """unseal26.py: the writer copied the run's open manifest while it played and, before
    its seal, removed it, put one naming another run in its place, or a named pipe. The
    seal took the run id from what it found, so it ended none, or the wrong one; the copy
    put back read as a run not ended, and a plain resume sealed a forgery."""
    import sims.runner as runner_module

    folder = tmp_path / "r"
    seal = runner_module.seal
    kept: list[bytes] = []

    def swapped_then_sealed(where, *args):
        if where == folder and not kept:
            manifest = folder / MANIFEST
            kept.append(manifest.read_bytes())
            manifest.unlink()
            if how == "a named pipe":
                os.mkfifo(manifest)
            elif how == "another run's":
                other = json.loads(kept[0])
                other["seal"]["run"] = "0" * 32
                manifest.write_text(json.dumps(other))
        return seal(where, *args)

    monkeypatch.setattr(runner_module, "seal", swapped_then_sealed)
    with pytest.raises(ResultsError, match=MANIFEST):
        run(from_dict(STUDY, "test"), workers=1, out=folder, progress=False)
    assert json.loads(kept[0])["seal"]["state"] == "open"
    (folder / MANIFEST).unlink(missing_ok=True)
    (folder / MANIFEST).write_bytes(kept[0])  # the run's own open manifest, put back
    with pytest.raises(ResultsError, match="its run ended without sealing it"):
        check_sealed(folder)
    with pytest.raises(ResultsError, match="its run ended without sealing it"):
        run(from_dict(STUDY, "test"), workers=1, out=folder, progress=False, resume=True)
