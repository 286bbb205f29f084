"""Fuzzing `cardgame replay`: whatever the file holds, one line per game and exit 0, 1 or 2.

Random JSON values, random mutations of a real record (a field deleted, replaced, renamed or
given another type at a random path) and random bytes all go through ``main(["replay", path])``.
A record that was changed in any way never replays as good: every field is checked, by the
replay or, for what it cannot re-derive, by the digest.
"""

import contextlib
import copy
import io
import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardgame import Game
from cardgame.cli import main
from cardgame.errors import RecordError
from cardgame.randomplay import play_random
from cardgame.record import digest_of, replay, to_record

pytestmark = pytest.mark.usefixtures("engine")  # every test on both engines

RECORD = json.loads(json.dumps(to_record(play_random(Game(2, 11), record=True), ["a", "b"])))

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(["red", "locomotive", "draw_deck", "face_up", "deck", 0, 1, 5, -1, 99])
)
JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
FUZZ = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)


def _paths(value, prefix=()):
    """Every path into ``value`` (keys and indexes), the root excluded."""
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return
    for key, child in items:
        yield (*prefix, key)
        yield from _paths(child, (*prefix, key))


PATHS = list(_paths(RECORD))


def _replay(data: bytes) -> tuple[int, list[str]]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fuzz.json"
        path.write_bytes(data)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["replay", str(path)])
    lines = out.getvalue().splitlines() + err.getvalue().splitlines()
    assert code in (0, 1, 2)
    assert all("Traceback" not in line for line in lines)
    return code, lines


@FUZZ
@given(JSON)
def test_random_json_is_never_a_traceback(value):
    code, lines = _replay(json.dumps(value).encode())
    assert code == 2 and len(lines) == 1
    assert lines[0].startswith("cardgame replay: error: ")


@settings(FUZZ, max_examples=150)
@given(
    st.sampled_from(range(len(PATHS))),
    st.sampled_from(["delete", "replace", "retype", "rename"]),
    JSON,
)
def test_a_mutated_record_is_never_a_traceback(index, how, value):
    record = copy.deepcopy(RECORD)
    *parents, last = PATHS[index]
    target = record
    for key in parents:
        target = target[key]
    if how == "delete":
        del target[last]
    elif how == "rename" and isinstance(target, dict):
        target[str(value)[:20]] = target.pop(last)
    elif how == "replace":
        target[last] = value
    else:
        old = target[last]
        target[last] = str(old) if not isinstance(old, str) else [old]
    code, lines = _replay(json.dumps(record).encode())
    assert len(lines) == 1
    if code == 0:
        assert record == RECORD  # a mutation that changed nothing (a key renamed to itself)
        assert "replays to the same result" in lines[0]
    elif code == 1:
        assert lines[0].startswith("game: DIVERGES at ")
    else:
        assert lines[0].startswith("cardgame replay: error: ")


@FUZZ
@given(st.binary(max_size=200))
def test_random_bytes_are_never_a_traceback(data):
    code, lines = _replay(data)
    assert code == 2
    games = max(1, sum(1 for line in data.split(b"\n") if line.strip()))
    assert 1 <= len(lines) <= games


@FUZZ
@given(st.lists(st.sampled_from(["good", "bad", "value"]), min_size=2, max_size=4), JSON)
def test_json_lines_give_one_line_per_game(kinds, value):
    texts = {"good": json.dumps(RECORD), "bad": "{oops", "value": json.dumps(value)}
    data = "\n".join(texts[k] for k in kinds).encode()
    code, lines = _replay(data)
    if "good" in kinds:
        assert len(lines) == len(kinds)
        assert code == (0 if set(kinds) == {"good"} else 2)
    else:
        assert code == 2 and len(lines) >= 1


def _pattern(path: tuple) -> str:
    """A field's name with its indexes left out: ``turns[*].picks[*].slot``."""
    return "".join(f"[{k}]" if k == "*" or isinstance(k, int) else f".{k}" for k in path)[1:]


def _changed(value):
    """Another value of the same type and kind: the hardest edit to notice."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str):
        if value.startswith("sha256:"):
            return value[:-1] + ("0" if value[-1] != "0" else "1")
        names = ["purple", "white", "blue", "yellow", "orange", "black", "red", "green"]
        return names[(names.index(value) + 1) % 8] if value in names else value + "x"
    if value is None:
        return "red"
    if isinstance(value, list):
        return value[:-1] if value else ["red"]
    return {} if value else {"x": 1}


_FIELDS: dict[str, tuple] = {}
for _path in PATHS:
    _FIELDS.setdefault(_pattern(tuple("*" if isinstance(k, int) else k for k in _path)), _path)
_LAST = len(RECORD["turns"]) - 1
_FIELDS.update(
    {f"strategies[{seat}]": ("strategies", seat) for seat in range(RECORD["players"])}
    | {_pattern(("last turn", *p[2:])): p for p in PATHS if p[:2] == ("turns", _LAST)}
)
# what replay cannot re-derive, so only the digest covers it: the names, and here a rule that
# left no trace in this game (every seat kept 2 or more destinations)
DIGEST_ONLY = ("strategies[", "rules.destinations_min_keep", "digest")


def _edited(path: tuple) -> dict:
    record = copy.deepcopy(RECORD)
    *parents, last = path
    target = record
    for key in parents:
        target = target[key]
    target[last] = _changed(target[last])
    assert record != RECORD
    return record


def _detected(record: dict) -> bool:
    try:
        return not replay(record).ok
    except RecordError:
        return True


@pytest.mark.parametrize("field", list(_FIELDS))
def test_an_edit_of_any_field_is_detected(field):
    assert _detected(_edited(_FIELDS[field]))


@pytest.mark.parametrize("field", [f for f in _FIELDS if not f.startswith(DIGEST_ONLY)])
def test_an_edit_is_detected_by_the_replay_even_with_the_digest_made_to_fit(field):
    record = _edited(_FIELDS[field])
    record["digest"] = digest_of(record)
    assert _detected(record)
