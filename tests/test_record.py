"""Game records: saved, loaded, replayed without the engine's RNG."""

import json

import pytest

from cardgame import Game, RecordError
from cardgame.randomplay import play_random
from cardgame.record import load, replay, save, to_record

pytestmark = pytest.mark.usefixtures("engine")  # every test on both engines


@pytest.fixture(scope="module", params=[2, 3, 4])
def record(request, engine):
    return to_record(play_random(Game(request.param, 21), record=True), ["random"] * request.param)


def test_record_holds_everything_needed_to_replay(record):
    for key in (
        "rules",
        "seed",
        "players",
        "strategies",
        "shuffles",
        "rounds",
        "setup",
        "turns",
        "resolutions",
        "result",
    ):
        assert key in record
    kinds = [s["kind"] for s in record["shuffles"]]
    assert kinds[:3] == ["train_setup", "destination_setup", "destination_reshuffle"]
    assert len(record["rounds"]) == (2 if record["players"] == 4 else 1)
    turn = record["turns"][0]
    assert {"turn", "seat", "round", "step1", "action", "final_round"} <= set(turn)
    score = record["result"]["scores"][0]
    assert {"destination_points", "penalties", "big_city_bonuses", "total"} <= set(score)


def test_save_load_replay_round_trip(record, tmp_path):
    path = tmp_path / "game.json"
    save(record, path)
    (loaded,) = load(path)
    assert loaded == json.loads(json.dumps(record))
    assert replay(loaded).ok


def test_json_lines_hold_many_games(tmp_path):
    path = tmp_path / "games.jsonl"
    lines = [json.dumps(to_record(play_random(Game(2, s), record=True))) for s in range(3)]
    path.write_text("\n".join(lines) + "\n")
    records = load(path)
    assert [r["seed"] for r in records] == [0, 1, 2]
    assert all(replay(r).ok for r in records)


def test_replay_checks_the_seed_against_the_recorded_shuffles(record):
    # The game replays from the recorded shuffles; the seed must be the one that gave them.
    result = replay(dict(record, seed=record["seed"] + 1))
    assert not result.ok
    assert result.divergence.startswith("shuffles[0].order")
    assert f"not those of seed {record['seed'] + 1}" in result.divergence


def test_replay_names_the_first_turn_that_diverges(record):
    tampered = json.loads(json.dumps(record))
    target = next(t for t in tampered["turns"] if t["action"]["type"] == "draw_deck")
    target["picks"][0]["card"] = "purple" if target["picks"][0]["card"] != "purple" else "red"
    result = replay(tampered)
    assert not result.ok
    assert result.divergence.startswith(f"turn {target['turn']} (seat {target['seat']})")


def test_replay_refuses_a_tampered_shuffle(record):
    tampered = json.loads(json.dumps(record))
    order = tampered["shuffles"][0]["order"]
    order[0] = "purple" if order[0] != "purple" else "red"  # one card changed: 11 of a colour
    with pytest.raises(RecordError, match="does not hold the cards"):
        replay(tampered)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "holds no game record"),
        ("{not json", "line 1: not valid JSON"),
        ('{"format": "other"}', "not a ttr-cardgame-record"),
    ],
)
def test_bad_records_give_one_clear_error(tmp_path, text, message):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(RecordError, match=message):
        for r in load(path):
            replay(r)


def test_record_version_is_checked(record):
    with pytest.raises(RecordError, match="record version 99"):
        replay(dict(record, version=99))


def test_a_record_file_past_its_limit_is_one_line_never_read(tmp_path, monkeypatch):
    """Hostile pass 26r's odd26.py: a record file grown to 8 TiB of holes made `replay` and
    `view` fail with a MemoryError. A file past the limit is refused before a byte of it
    is read; a pipe is never read past it."""
    import os
    from pathlib import Path

    import cardgame.record as rec

    path = tmp_path / "huge.jsonl"
    with open(path, "wb") as file:
        file.truncate(8 << 40)
    with pytest.raises(RecordError, match="8,796,093,022,208 bytes, more than the 1 GiB"):
        rec.read_entries(path)
    monkeypatch.setattr(rec, "MAX_RECORD_FILE", 10)
    reader, writer = os.pipe()
    os.write(writer, b"{}" * 6)
    os.close(writer)
    with pytest.raises(RecordError, match=r"fd/\d+: more than the 0 GiB"):
        rec.read_entries(Path(f"/dev/fd/{reader}"))
    os.close(reader)


def test_a_small_record_file_is_read_under_a_tight_memory_limit(tmp_path):
    """Hostile pass 31r's aslimit31.sh: every record file was read with one read of the whole
    1 GiB bound, which reserves it at once: `replay` of an 18 kB record under a memory limit
    ended in a MemoryError. A file is read at its size, a pipe in pieces."""
    import subprocess
    import sys

    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps(to_record(play_random(Game(2, 1), record=True))) + "\n")
    code = f"""
import os, resource
from cardgame.record import read_record_file
with open("/proc/self/statm") as statm:
    held = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
resource.setrlimit(resource.RLIMIT_AS, (held + (512 << 20),) * 2)  # half a GiB to spare
assert len(read_record_file({str(path)!r})) == {path.stat().st_size}
reader, writer = os.pipe()
os.write(writer, b"{{}}\\n")
os.close(writer)
assert read_record_file(f"/dev/fd/{{reader}}") == b"{{}}\\n"
print("read")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "read", done.stderr[-800:]
