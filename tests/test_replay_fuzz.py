"""Fuzzing `cardgame replay`: whatever the file holds, one line per game and exit 0, 1 or 2.

Random JSON values, random mutations of a real record (a field deleted, replaced, renamed or
given another type at a random path) and random bytes all go through ``main(["replay", path])``.
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
from cardgame.randomplay import play_random
from cardgame.record import to_record

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
