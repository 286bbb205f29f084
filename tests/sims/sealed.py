"""A sealed results folder made once per test module, and a fresh copy of it for each attack,
so that a test that changes a file never changes what another test reads."""

import shutil
from pathlib import Path

from sims.runner import run
from sims.study import from_dict


def small_study(name: str, games_per_cell: int = 4, batch_size: int = 2) -> dict:
    """The smallest study that still has several batches: planner against random, 2 players."""
    return {
        "name": name,
        "players": [2],
        "pool": ["planner", "random"],
        "games_per_cell": games_per_cell,
        "batch_size": batch_size,
    }


def sealed_folder(tmp_path_factory, study: dict, **options) -> Path:
    """A folder the runner made and sealed for `study` (options go to the runner)."""
    folder = tmp_path_factory.mktemp(study["name"]) / "r"
    run(from_dict(study, "test"), workers=1, out=folder, progress=False, **options)
    return folder


def copy_of(folder: Path, tmp_path: Path) -> Path:
    """A copy of a sealed folder under `tmp_path`, its seal as valid as the original's."""
    copy = tmp_path / "r"
    shutil.copytree(folder, copy)
    return copy
