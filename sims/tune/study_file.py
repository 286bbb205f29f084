"""The tuned design as a study file: the study with its edits, in TOML."""

from __future__ import annotations

import copy
import json
import os
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..files import write_atomic
from ..study import BASE, from_dict, relative_cards
from ..sweep import show_value
from .space import Design

if TYPE_CHECKING:
    from .tuner import Tuner


# the study file of the result -------------------------------------------------------------

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def _key(key: Any) -> str:
    text = str(key)
    return text if _BARE.match(text) else json.dumps(text)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"cannot write {value!r} as TOML")


def to_toml(data: Mapping[str, Any], comment: str = "") -> str:
    """A small TOML writer for study files: scalars and lists first, then [tables] (tables of
    tables, such as variants, as [variants.NAME]); deeper tables inline."""
    lines = [f"# {line}" if line else "#" for line in comment.splitlines()]
    tables = {k: v for k, v in data.items() if isinstance(v, Mapping)}
    for key, value in data.items():
        if key not in tables:
            lines.append(f"{_key(key)} = {_value(value)}")
    for key, table in tables.items():
        if table and all(isinstance(v, Mapping) for v in table.values()):
            for name, sub in table.items():
                lines += ["", f"[{_key(key)}.{_key(name)}]"]
                lines += [f"{_key(k)} = {_value(v)}" for k, v in sub.items()]
        else:
            lines += ["", f"[{_key(key)}]"]
            lines += [f"{_key(k)} = {_value(v)}" for k, v in table.items()]
    return "\n".join(lines) + "\n"


def study_document(tuner: Tuner, design: Design, path: Path | None = None) -> dict[str, Any]:
    """The study with the starting design as base and the tuned one as a variant; its
    edition named relative to the file at ``path`` (a study file's ``cards`` is read from
    its own folder), never by an absolute path."""
    data = copy.deepcopy(tuner.source)
    data.pop("sweeps", None)
    name = f"{tuner.study.name}-tuned"
    data["name"] = name
    data["players"] = list(tuner.players)
    data["pairing"] = "deals"
    data["output"] = f"results/{name}"
    if tuner.cards is not None:
        folder = Path(tuner.cards).resolve()
        start = (path.parent if path is not None else Path()).resolve()
        try:
            data["cards"] = Path(os.path.relpath(folder, start)).as_posix()
        except ValueError:  # another drive: no relative path exists
            data["cards"] = str(folder)
    variants = {BASE: tuner.base_table}
    if design.edits:
        variants["tuned"] = design.variant_table()
    data["variants"] = variants
    order = [
        "name",
        "description",
        "seed",
        "players",
        "games_per_cell",
        "rotation",
        "pairing",
        "batch_size",
        "engine",
        "isolation",
        "cards",
        "pool",
        "lineups",
        "output",
    ]
    ordered = {k: data[k] for k in order if k in data}
    ordered.update({k: v for k, v in data.items() if k not in ordered})
    return ordered


def write_study_file(path: Path, tuner: Tuner, design: Design) -> None:
    document = study_document(tuner, design, path)
    edits = "\n".join(f"  {p} = {show_value(v)}" for p, v in design.edits) or "  (none)"
    comment = (
        f"Written by cardgame tune ({', '.join(tuner.weights)}): the study {tuner.study.name}\n"
        "with the design it started from as [variants.base] and the tuned design as\n"
        "[variants.tuned], paired by deals. Play and report it:\n"
        f"  cardgame simulate {path}\n  cardgame report {document['output']}\n"
        f"Edits:\n{edits}"
    )
    text = to_toml(document, comment)
    # what we write must be a study the simulator accepts
    data = tomllib.loads(text)
    relative_cards(data, path.parent)
    from_dict(data, str(path))
    write_atomic(path, text)
