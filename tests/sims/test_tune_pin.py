"""The tune's outputs pinned: small tunes of each objective, with and without adapted players,
give the decisions, tables and files they gave when each step was a results folder per
line-up (digests taken then). A change that moves any of them is a change of the games or
of the statistics, not of how they are played."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pandas as pd
import pytest

from sims.study import from_dict
from sims.tune import tune

QUIET = {"progress": False, "log": lambda line: None}
TINY = {
    "name": "tiny",
    "seed": 5,
    "players": [2],
    "lineups": [["planner", "thief"]],
    "games_per_cell": 10,
}
TRIO = {
    "name": "trio",
    "seed": 11,
    "players": [2, 3],
    "lineups": [["planner", "thief"], ["thief", "hoarder"], ["planner", "thief", "hoarder"]],
    "games_per_cell": 10,
}
SEAT_EDITS = {"face_up": {"values": [3, 7]}, "starting_hand": {"within": 1}}
CASES = {
    "seat": (TINY, "seat", {"edits": SEAT_EDITS, "budget": 1600, "holdout": 200}),
    "strategies": (TRIO, "strategies", {"edits": {"face_up": {"values": [4, 6]}},
                                        "budget": 2400, "holdout": 300}),
    "destinations": (TINY, "destinations", {"budget": 2000, "holdout": 200, "max_edits": 1,
                                            "suspects": 1}),
    "adapt": (TINY, "seat", {"edits": {"face_up": {"values": [7]}}, "budget": 800,
                             "holdout": 100, "adapt": 1400}),
}  # fmt: skip
# taken from the code before the warm pool (b26cd39); tune.json's since its summary answers
# first in a designer's words (the decisions, edits and tables unchanged)
PINNED = {
    "adapt": {
        "adapted/21f323842183027f.json": "e827f38f1f99e01d",
        "adapted/e27f42182ea806bd.json": "edda67675a4a644e",
        "edits.toml": "690246f21f3fd651",
        "evaluations.parquet": "e15294d07d97b202",
        "holdout.parquet": "923bccf9c6a438d6",
        "items.parquet": "abcea560b13c8dda",
        "tune.json": "4f260e1554ffc8aa",
    },
    "destinations": {
        "edits.toml": "052b34e954189e94",
        "evaluations.parquet": "a5b3da6d49006de8",
        "holdout.parquet": "3d2735a13851b0b7",
        "items.parquet": "afd8f84a1b637efb",
        "tune.json": "160f2d7f3639e79b",
    },
    "seat": {
        "edits.toml": "9dbc54fa580cefc7",
        "evaluations.parquet": "f852c5a7674f38bd",
        "holdout.parquet": "d2550c41c0b55ec2",
        "items.parquet": "9c8342ce0830c785",
        "tune.json": "cb352653f306a496",
    },
    "strategies": {
        "edits.toml": "ff30b085cbd9cd5f",
        "evaluations.parquet": "afea0f1620c7d46d",
        "holdout.parquet": "b8a1b963a88c6130",
        "items.parquet": "f8c0f51696c67ec1",
        "tune.json": "6e309f881c54d2ce",
    },
}


def frame_digest(path: Path) -> str:
    frame = pd.read_parquet(path)
    hashed = pd.util.hash_pandas_object(frame, index=True).to_numpy().tobytes()
    head = json.dumps([list(frame.columns), [str(t) for t in frame.dtypes]]).encode()
    return hashlib.sha256(head + hashed).hexdigest()[:16]


def digests(out: Path) -> dict[str, str]:
    """Every file the tune decides by or writes for the designer, but the page (plotly's ids)
    and the games under evaluations/ (how they are kept is not the tune's answer)."""
    found = {}
    for path in sorted(out.rglob("*")):
        name = path.relative_to(out).as_posix()
        if not path.is_file() or name.startswith("evaluations/") or name == "tune.html":
            continue
        if path.suffix == ".parquet":
            found[name] = frame_digest(path)
        else:
            text = path.read_text(encoding="utf-8").replace(str(out), "OUT")
            found[name] = hashlib.sha256(text.encode()).hexdigest()[:16]
    return found


def played(case: str, out: Path, workers: int) -> dict[str, str]:
    data, objective, options = CASES[case]
    tune(from_dict(data, f"{data['name']}.toml"), objective, out=out, workers=workers,
         **options, **QUIET)  # fmt: skip
    return digests(out)


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_small_tune_s_outputs_are_what_they_were(case, tmp_path):
    assert played(case, tmp_path / "t", 2) == PINNED[case]


if __name__ == "__main__":  # the digests of this code, for PINNED
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as where:
        pins = {case: played(case, Path(where) / case, 1) for case in sorted(CASES)}
    json.dump(pins, sys.stdout, indent=4, sort_keys=True)
