"""--isolate as a real sandbox (issue 35): a hostile strategy learns nothing, touches nothing,
leaves nothing behind; one protocol; every failure has an owner; sealed results folders.

Each attack is a strategy of tests/sims/hostile.py that fails its own game saying what it
found when its attack works: a clean game means it found nothing. The sandbox's tests are
skipped, with the reason, where the machine cannot build it (no unprivileged namespaces).
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from cardgame import Rules
from sims import guest, runtime, sandbox
from sims.errors import ResultsError, StudyError
from sims.match import GameSpec, play_game
from sims.plan import DEFAULT_STUDY
from sims.seeding import new_guest_key
from sims.strategy import StrategySpec

ROOT = Path(__file__).resolve().parents[2]
MISSING = sandbox.unavailable()
needs_sandbox = pytest.mark.skipif(MISSING is not None, reason=f"no guest sandbox: {MISSING}")
KEY = new_guest_key()


def _spec(name: str, seed: int, isolation: str, knobs=(), rival: str = "planner") -> GameSpec:
    base = f"tests.sims.hostile:{name}" if name[0].isupper() else name
    seats = (StrategySpec("guest", base, knobs), StrategySpec("rival", rival))
    return GameSpec("t", "c", "base", Rules(), 2, seats, seed, seed, isolation, guest_key=KEY)


def _play(name: str, seed: int = 3, isolation: str = "process", **options):
    knobs = options.pop("knobs", ())
    rival = options.pop("rival", "planner")
    spec = _spec(name, seed, isolation, knobs, rival)
    return play_game(spec, record=True, decision_seconds=options.pop("seconds", 10.0), **options)


def _same(a, b) -> bool:
    keys = ("game", "seats", "destinations", "record")
    return repr([getattr(a, k) for k in keys]) == repr([getattr(b, k) for k in keys])


def _clean(outcome) -> None:
    assert not outcome.game["failed"], outcome.game["failure_error"]


# ------------------------------------------------------------------ 2: the random stream
@needs_sandbox
def test_a_guest_cannot_find_the_game_seed_in_its_random_stream(engine):
    inside = _play("SeedHunter", 5, "none")
    assert "breach: the game's seed is 5" in inside.game["failure_error"]  # the attack works
    for seed in range(3):
        _clean(_play("SeedHunter", seed))


def test_the_guest_stream_is_keyed_and_one_way():
    from sims.match import guest_rng, seat_rng

    spec = _spec("random", 4, "process")
    other = GameSpec(**{**spec.__dict__, "guest_key": new_guest_key()})
    assert guest_rng(spec, 0).random() == guest_rng(spec, 0).random()  # reproducible
    assert guest_rng(spec, 0).random() != guest_rng(other, 0).random()  # keyed
    assert guest_rng(spec, 0).random() != seat_rng(spec, 0).random()  # not the public one


@needs_sandbox
def test_an_isolated_run_keeps_its_key_in_the_manifest_and_resumes_the_same_games(tmp_path):
    from sims.folder import read_manifest
    from sims.results import load_results
    from sims.runner import run
    from sims.study import quick_study

    def study():
        from sims.study import load_study

        base = load_study(DEFAULT_STUDY, "process")
        return quick_study(base, 4, [2], ["tests.sims.guests:Plain", "random"], 11)

    whole = run(study(), workers=1, out=tmp_path / "whole", progress=False)
    key = read_manifest(whole.folder)["guest_key"]
    written = [p.read_bytes() for p in (tmp_path / "whole").rglob("*") if p.is_file()]
    assert len(key) == 64 and sum(key.encode() in data for data in written) == 1  # manifest
    again = run(study(), workers=1, out=tmp_path / "again", progress=False)
    assert read_manifest(again.folder)["guest_key"] != key  # a new run, a new secret
    a = load_results(whole.folder).seats
    assert not load_results(whole.folder).games["failed"].any()
    assert len(a) == 8


# ------------------------------------------------------------------ 1: the sandbox
@needs_sandbox
@pytest.mark.parametrize(
    "name",
    [
        "Snooper",
        "Killer",
        "Forker",
        "Networker",
        "Writer",
        "Threads",
        "Leftover",
        "HostPipes",
        "Pid1",
        "BadOrder",
        "Memfd",
    ],
)
def test_a_hostile_guest_finds_nothing_and_leaves_nothing(name, tmp_path):
    secret = tmp_path / "results" / "manifest.json"
    secret.parent.mkdir()
    secret.write_text("the run's secret")
    knobs = (("secret", str(secret)),) if name in ("Snooper", "Writer") else ()
    for seed in range(2):  # a second game finds nothing of the first
        outcome = _play(name, seed, knobs=knobs)
        _clean(outcome)
        assert _same(outcome, _play("Plain", seed, rival="planner", knobs=()))
    assert sorted(p.name for p in secret.parent.iterdir()) == ["manifest.json"]


@needs_sandbox
def test_the_attacks_work_without_the_sandbox(tmp_path):
    """The hostile strategies are real: in the worker's process they find what they look for."""
    secret = tmp_path / "secret"
    secret.write_text("the run's secret")
    inside = _play("Snooper", 1, "none", knobs=(("secret", str(secret)),))
    assert "breach" in inside.game["failure_error"]


@needs_sandbox
def test_a_rival_guest_survives_a_killer():
    outcome = _play("Killer", 2, rival="tests.sims.guests:Plain")
    _clean(outcome)


@needs_sandbox
@pytest.mark.parametrize(("name", "error"), [("Hog", "MemoryError"), ("Crasher", "signal 11")])
def test_a_guest_past_its_limits_fails_its_own_seat(name, error):
    game = _play(name).game
    assert game["failed"] and game["failure_seat"] == 0, game
    assert error in game["failure_error"]
    _clean(_play("Plain", 4))


@needs_sandbox
def test_a_guest_past_its_cpu_time_for_the_game_fails_its_seat(monkeypatch):
    monkeypatch.setattr(sandbox, "LIMITS", sandbox.Limits(game_cpu_seconds=1))
    guest.close_hosts()
    try:
        game = _play("Burner", seconds=5.0).game
    finally:
        guest.close_hosts()
    assert game["failed"] and game["failure_seat"] == 0
    assert "over its CPU time for the game (1 s)" in game["failure_error"]


@needs_sandbox
def test_a_guest_whose_start_burns_its_cpu_time_fails_its_seat(monkeypatch):
    """A module whose import never ends is stopped by its CPU time for a start (the kernel's
    SIGXCPU, not a clock): that seat's game fails, the run goes on."""
    monkeypatch.setattr(sandbox, "LIMITS", sandbox.Limits(start_cpu_seconds=1))
    guest.close_hosts()
    try:
        game = _play("tests.sims.start_burner:StartBurner", seconds=600.0).game
    finally:
        guest.close_hosts()
    assert game["failed"] and game["failure_seat"] == 0, game
    assert "over its CPU time for its start (1 s)" in game["failure_error"]


@needs_sandbox
def test_a_guest_whose_start_sleeps_fails_its_seat_at_the_decision_limit():
    """A module whose import sleeps for ever (no CPU) is held to the decision limit (at least
    ``START_FLOOR``), as its import and constructor in each game's process are, not to the
    host's own start."""
    try:
        game = _play("tests.sims.start_sleeper:StartSleeper", seconds=guest.START_FLOOR).game
    finally:
        guest.close_hosts()
    assert game["failed"] and game["failure_seat"] == 0, game
    assert f"no answer within {guest.START_FLOOR:g} s for its start" in game["failure_error"]
    assert guest.start_seconds(0.5) == guest.START_FLOOR < guest.start_seconds(30.0) == 30.0


@needs_sandbox
@pytest.mark.parametrize("seed", [0, 1])
def test_honest_guests_play_the_same_bytes_with_and_without_the_sandbox(monkeypatch, seed):
    boxed = [_play(name, seed, rival="tests.sims.guests:Plain") for name in ("Plain", "random")]
    monkeypatch.setattr(guest, "SANDBOX", False)
    guest.close_hosts()
    try:
        bare = [_play(name, seed, rival="tests.sims.guests:Plain") for name in ("Plain", "random")]
    finally:
        guest.close_hosts()
    for a, b in zip(boxed, bare, strict=True):
        _clean(a)
        assert _same(a, b)


def test_isolate_refuses_in_one_line_where_the_sandbox_cannot_be_built(monkeypatch, tmp_path):
    from sims.study import load_study

    monkeypatch.setattr(sandbox, "unavailable", lambda: "no unprivileged user namespaces")
    with pytest.raises(StudyError, match=r"--isolate .*: no unprivileged user namespaces"):
        load_study(DEFAULT_STUDY, "process")


def test_the_version_says_whether_the_sandbox_is_available(capsys):
    from cardgame.cli import main

    with pytest.raises(SystemExit):
        main(["--version"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == ("guest sandbox: available" if MISSING is None else
                         f"guest sandbox: unavailable: {MISSING}")  # fmt: skip


@needs_sandbox
def test_a_file_is_mapped_privately_in_the_sandbox_never_shared():
    """Pass 26s's Honest26: a shared mapping of a file, even read-only, is refused in the
    sandbox (docs/strategies.md says why, and names the private mapping that works)."""
    words = {
        "none": "mapped: ACCESS_READ True, ACCESS_COPY True",
        "process": "mapped: ACCESS_READ PermissionError, ACCESS_COPY True",
    }
    for isolation, said in words.items():
        game = _play("tests.sims.guests:MapsItsCode", 2, isolation).game
        assert game["failed"] and said in game["failure_error"], game["failure_error"]


# ------------------------------------------------------------------ 3: one protocol
@needs_sandbox
@pytest.mark.parametrize("name", ["SlotAsText", "SlotAsFloat", "IdsAsList", "KeepsAMillion"])
def test_a_malformed_action_fails_its_seat_alike_in_both_modes(name, engine):
    inside = _play(name, 2, "none").game
    isolated = _play(name, 2).game
    assert inside["failed"] and isolated["failed"] and isolated["failure_seat"] == 0
    assert isolated["failure_error"] == inside["failure_error"]


@pytest.mark.parametrize(
    "answer",
    [
        {"type": "draw_face_up", "slot": "0"},
        {"type": "draw_face_up", "slot": 0.0},
        {"type": "draw_face_up", "slot": True},
        {"type": "draw_face_up", "slot": 0, "extra": 1},
        {"type": "keep_destinations", "ids": [1.0]},
        {"type": "place_three", "colours": ["red", "red", "red", "red"]},
    ],
)
def test_a_forged_answer_is_refused_not_coerced(answer):
    with pytest.raises(guest.GuestError, match="malformed action"):
        guest.canonical_action(answer)


def test_a_shape_rebuilds_only_plain_values_and_actions():
    from cardgame import actions as A

    odd = tuple.__new__(A.KeepDestinations, ([1, 2.5, "x", None, True],))
    again = guest.rebuilt(guest.shape(odd))
    assert type(again) is A.KeepDestinations and again.ids == [1, 2.5, "x", None, True]
    assert type(guest.rebuilt(guest.shape(object()))).__name__ == "object"
    for forged in (["action", "Evil", []], ["other", "no such name!"], ["int", "1"], "x"):
        with pytest.raises(guest.GuestError):
            guest.rebuilt(forged)


# ------------------------------------------------------------------ 5: owners of failures
@pytest.mark.parametrize(("name", "error"), [("Interrupts", "KeyboardInterrupt"),
                                             ("Exits", "SystemExit")])  # fmt: skip
def test_in_the_default_mode_a_base_exception_fails_its_seat(name, error, engine):
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # as in a run's worker
    try:
        game = _play(name, 2, "none").game
    finally:
        signal.signal(signal.SIGINT, previous)
    assert game["failed"] and game["failure_seat"] == 0 and error in game["failure_error"]


@needs_sandbox
def test_a_guest_killed_from_outside_is_played_again_never_blamed(monkeypatch):
    receive = guest.Host.receive
    kills = {"left": 1, "calls": 0}

    def killed_once(self, *args):
        kills["calls"] += 1
        if kills["calls"] == 6 and kills["left"]:
            kills["left"] -= 1
            self.process.kill()  # the machine (an operator, the OOM killer), not the guest
        return receive(self, *args)

    clean = _play("Plain", 5)
    monkeypatch.setattr(guest.Host, "receive", killed_once)
    again = _play("Plain", 5)
    assert kills["left"] == 0
    _clean(again)
    assert _same(again, clean)
    kills.update(left=10, calls=0)

    def killed_always(self, *args):
        kills["calls"] += 1
        if kills["calls"] % 6 == 0:
            self.process.kill()
        return receive(self, *args)

    monkeypatch.setattr(guest.Host, "receive", killed_always)
    game = _play("Plain", 5).game
    assert game["failed"] and game["failure_seat"] == -1 and "machine" in game["failure_error"]


def _leader_of(host: guest.Host) -> int | None:
    """The pid (here) of the leader of the game its host plays: pid 1 of a pid namespace
    two levels below this one, whose ancestors include the host's sandbox."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":\t", 1) for line in status.splitlines() if ":\t" in line)
        levels = fields.get("NSpid", "").split()
        if len(levels) != 3 or levels[2] != "1":
            continue
        pid = int(entry)
        while pid > 1:
            if pid == host.process.pid:
                return int(entry)
            try:
                stat = Path(f"/proc/{pid}/stat").read_text()
            except OSError:
                break
            pid = int(stat.rsplit(")", 1)[1].split()[1])
    return None


@needs_sandbox
def test_a_games_leader_killed_from_outside_is_the_machines(monkeypatch):
    """Nothing in a game can signal its leader (the host's code, pid 1 of the game's pid
    namespace), so a leader that ends without its word was ended from outside: the
    machine's, and the game is played again, never its seat's failure (hostile pass 14's
    kill14.sh leader found the seat blamed)."""
    receive = guest.Host.receive
    kills = {"left": 1, "calls": 0, "done": 0}

    def leader_killed_once(self, *args):
        kills["calls"] += 1
        if kills["calls"] == 6 and kills["left"]:
            kills["left"] -= 1
            leader = _leader_of(self)
            assert leader is not None
            os.kill(leader, signal.SIGKILL)
            kills["done"] += 1
        return receive(self, *args)

    clean = _play("Plain", 5)
    monkeypatch.setattr(guest.Host, "receive", leader_killed_once)
    again = _play("Plain", 5)
    assert kills["done"] == 1
    _clean(again)
    assert _same(again, clean)


@needs_sandbox
def test_a_sandbox_killed_from_outside_while_it_starts_is_the_machines(monkeypatch):
    """The outside kill landing while a host starts: bwrap killed as it builds the sandbox
    (its child may then outlive it, hung in its set-up or serving on), or the host killed
    before its load is answered. Either is the machine's: the game is played again, then
    recorded as the machine's, never blamed on the seat."""
    send = guest.Host.send

    def killed_at_load(self, message):
        if message.get("op") == "load":
            self.process.kill()  # at once, while bwrap may still be building the sandbox
        send(self, message)

    guest.close_hosts()
    monkeypatch.setattr(guest.Host, "send", killed_at_load)
    try:
        game = _play("Plain", 5).game
    finally:
        guest.close_hosts()
    assert game["failed"] and game["failure_seat"] == -1, game
    assert "ended from outside" in game["failure_error"] and "machine" in game["failure_error"]


@needs_sandbox
@pytest.mark.parametrize(
    ("name", "error"),
    [
        ("Voider", "an answer without an action"),
        ("AlarmDeath", "ended (signal 14)"),
        ("TimerDeath", "ended (signal 26)"),
        ("PipeDeath", "PermissionError"),  # a pipe of its own is refused (the filter)
    ],
)
def test_a_guest_cannot_void_its_game_it_fails_its_own_seat(name, error):
    """Neither a forged report nor a death by a signal of its own voids a game: whatever
    ends a game's process is its seat's failure, never the machine's."""
    game = _play(name, 2).game
    assert game["failed"] and game["failure_seat"] == 0, game
    assert error in game["failure_error"] and "machine" not in game["failure_error"]


@needs_sandbox
def test_a_host_refuses_a_malformed_order_or_report_in_one_line():
    """Bad lines on the control pipes end in one line, never in a host's traceback: the host
    answers a bad order with its refusal and serves on; the worker refuses a bad report."""
    host = guest.Host("tests.sims.hostile:Plain", 10.0)
    try:
        for line in (b"not json\n", b"[1]\n", b'"load"\n'):
            os.write(host.orders, line)
            assert "refused a malformed order" in host.report(10.0)["exit"]
        assert host.process.poll() is None
        host.reports = b"not json\n"
        with pytest.raises(guest.GuestError, match='malformed report: "not json"$'):
            host.report(1.0)
    finally:
        host.close()


@needs_sandbox
def test_two_seats_of_one_class_each_play_in_a_host_of_their_own():
    """A game may seat one module:Class twice: each seat has its own host (one plays one
    game's child at a time), so neither's start is lost and the game is played alike again."""
    base = "tests.sims.hostile:Plain"
    seats = (StrategySpec("one", base), StrategySpec("two", base))
    spec = GameSpec("t", "c", "base", Rules(), 2, seats, 6, 6, "process", guest_key=KEY)
    guest.close_hosts()
    first = play_game(spec, record=True, decision_seconds=10.0)
    _clean(first)
    assert sorted(guest._hosts) == [base, base + "#1"]
    assert _same(first, play_game(spec, record=True, decision_seconds=10.0))
    assert sorted(guest._hosts) == [base, base + "#1"]  # the same two hosts served again


@needs_sandbox
def test_a_guest_cannot_stall_the_end_of_its_game():
    """Its game's process is killed by its host at the game's end: one that never exits
    ends all the same, at once, and its host serves the next game."""
    target = "tests.sims.hostile:EndStall"
    guest.close_hosts()
    outcome = _play("EndStall", 3)
    host = guest._hosts[target]
    _clean(outcome)
    assert _same(outcome, _play("Plain", 3))
    _clean(_play("EndStall", 4))
    assert guest._hosts[target] is host  # its end was clean: never waited out, never dropped


@needs_sandbox
@pytest.mark.parametrize(
    ("name", "seconds", "failure", "line"),
    [
        ("SayRaise", 10.0, "a strategy's own error", "a line before the failure"),
        ("SaySlow", 0.5, "took over 0.5 s", "a line before its time ran out"),
    ],
)
def test_a_failing_guests_stderr_is_shown(capfd, name, seconds, failure, line):
    """Whatever failed it: its own error, or its limit (hostile pass 31s's Slow), where its
    host had been killed before it showed the game's stderr."""
    capfd.readouterr()
    outcome = _play(name, 3, seconds=seconds)
    assert failure in outcome.game["failure_error"], outcome.game["failure_error"]
    err = capfd.readouterr().err
    assert f"[guest tests.sims.hostile:{name}] {name}: {line}" in err, err


@needs_sandbox
def test_a_guests_stderr_is_bounded_and_marked_as_its_own(capfd):
    capfd.readouterr()
    outcome = _play("FakeOutput", 3)
    _clean(outcome)
    err = capfd.readouterr().err
    mark = "[guest tests.sims.hostile:FakeOutput] "
    lines = err.splitlines()
    assert lines and all(line.startswith(mark) for line in lines), lines[:3]
    assert "\x1b" not in err and "\r" not in err  # a terminal's escapes, written out
    assert "\\x1b[2K\\rrun finished" in err
    assert len(err) < guest.STDERR_KEEP + 40 * len(mark) + 200  # one game: its first 4 KiB
    assert "more bytes of its stderr not shown" in lines[-1]


# ------------------------------------------------------------------ 4: sealed folders
def _small_run(folder: Path):
    from sims.runner import run
    from sims.study import from_dict

    study = from_dict(
        {"name": "seal", "players": [2], "pool": ["planner", "random"], "games_per_cell": 4,
         "batch_size": 2},
        "test",
    )  # fmt: skip
    return run(study, workers=1, out=folder, progress=False, records=True)


def test_a_folder_changed_after_its_run_is_refused_by_every_reader(tmp_path, capsys):
    from cardgame.cli import main
    from sims.folder import check_sealed, read_manifest
    from sims.results import load_results

    folder = tmp_path / "r"
    _small_run(folder)
    manifest = read_manifest(folder)
    assert "manifest.json" in manifest["files"] and any(
        name.startswith("games/") for name in manifest["files"]
    )
    check_sealed(folder)  # untouched: accepted
    games = next(p for p in sorted(folder.rglob("*.parquet")) if "games" in p.parts)
    games.write_bytes(games.read_bytes() + b"\0")
    name = games.relative_to(folder).as_posix()
    with pytest.raises(ResultsError, match=f"{name} changed since its run ended"):
        check_sealed(folder)
    check_sealed(folder, accept_changes=True)
    with pytest.raises(ResultsError, match=f"{name} changed since its run ended"):
        load_results(folder)  # the library's reader too
    with pytest.raises(ResultsError, match="corrupt Parquet"):  # read anyway, as it is
        load_results(folder, accept_changes=True)
    record = next(folder.glob("records/*.jsonl"))
    for argv in (
        ["report", str(folder), "--out", str(tmp_path / "r.html")],
        ["view", str(folder), "--out", str(tmp_path / "v.html"), "--playouts", "0"],
        ["replay", str(record)],
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and f"{name} changed" in err[0], err
    assert main(["replay", str(record), "--accept-changes"]) == 0


def test_a_record_flipped_after_the_check_is_refused_as_the_seals(tmp_path, capsys, monkeypatch):
    """Hostile pass 16's timed16.py on a record file: flipped (same size, its strategies'
    names swapped) through a shared mapping right after the seal's check, which moves no
    change mark; only the record's own digest, which a writer can make again, caught it. The
    record is now read once through the check: refused as the seal's, naming the file."""
    import mmap

    import sims.folder as folders
    from cardgame.cli import main

    folder = tmp_path / "r"
    _small_run(folder)
    record = next(folder.glob("records/*.jsonl"))
    name = record.relative_to(folder).as_posix()
    data = record.read_bytes()
    forged = data.replace(b'"planner","random"', b'"random","planner"')
    assert forged != data and len(forged) == len(data)
    with record.open("r+b") as file, mmap.mmap(file.fileno(), 0) as mapping:
        mapping[:] = data  # the one store that moves its time stamps: before any check
        check_source = folders.check_source

        def checked_then_flipped(*args, **kwargs):
            check = check_source(*args, **kwargs)
            mapping[:] = forged
            return check

        monkeypatch.setattr(folders, "check_source", checked_then_flipped)
        for argv in (
            ["replay", str(record)],
            ["view", str(folder), "--out", str(tmp_path / "v.html"), "--playouts", "0"],
        ):
            mapping[:] = data
            assert main(argv) == 2
            err = capsys.readouterr().err.strip().splitlines()
            assert len(err) == 1 and f"{name} changed while it was read" in err[-1], err


def test_resume_refuses_a_changed_folder_and_accepts_it_when_asked(tmp_path):
    from sims.folder import read_manifest
    from sims.runner import run
    from sims.study import from_dict

    folder = tmp_path / "r"
    _small_run(folder)
    (folder / "planted.txt").write_text("x")
    study = from_dict(
        {"name": "seal", "players": [2], "pool": ["planner", "random"], "games_per_cell": 4,
         "batch_size": 2},
        "test",
    )  # fmt: skip
    with pytest.raises(ResultsError, match="planted.txt was added since its run ended"):
        run(study, workers=1, out=folder, resume=True, progress=False, records=True)
    run(study, workers=1, out=folder, resume=True, progress=False, records=True,
        accept_changes=True)  # fmt: skip
    assert "planted.txt" in read_manifest(folder)["files"]  # sealed again, as it now is


def _raise_a_score(folder: Path) -> None:
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    path = next(p for p in sorted(folder.rglob("*.parquet")) if "seats" in p.parts)
    table = pq.read_table(path)
    table = table.set_column(table.column_names.index("score"), "score",
                             pc.add(table["score"], 500))  # fmt: skip
    pq.write_table(table, path)


def _edit_manifest(folder: Path, change) -> None:
    import json

    path = folder / "manifest.json"
    manifest = json.loads(path.read_text())
    change(manifest)
    path.write_text(json.dumps(manifest))


def test_the_seal_is_keyed_and_its_removal_is_refused(tmp_path, monkeypatch):
    """Changing the results and then removing the seal, or sealing again without the user's
    key (with the project's own function, under another key), is refused in one line."""
    from sims import folder as folders

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "mine"))
    original = tmp_path / "r"
    _small_run(original)
    key = tmp_path / "mine" / "cardgame" / "seal.key"
    assert key.stat().st_mode & 0o777 == 0o600 and len(key.read_text().strip()) == 64
    assert key.read_text().strip() not in (original / "manifest.json").read_text()
    folders.check_sealed(original)

    def tampered(name: str) -> Path:
        import shutil

        copy = tmp_path / name
        shutil.copytree(original, copy)
        _raise_a_score(copy)
        return copy

    stripped = tampered("stripped")
    _edit_manifest(stripped, lambda m: (m.pop("files"), m.pop("seal")))
    with pytest.raises(ResultsError, match="it is not sealed: made before seals, or its seal "
                       "was removed"):  # fmt: skip
        folders.check_sealed(stripped)
    no_digests = tampered("no_digests")
    _edit_manifest(no_digests, lambda m: m.pop("files"))
    with pytest.raises(ResultsError, match="its digests were removed"):
        folders.check_sealed(no_digests)
    opened = tampered("opened")  # made to look like a run killed mid-way
    _edit_manifest(opened, lambda m: (m.pop("files"), m["seal"].update(state="open")))
    with pytest.raises(ResultsError, match="manifest.json changed"):
        folders.check_sealed(opened)
    resealed = tampered("resealed")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "theirs"))
    folders.seal(resealed)  # sealed again, as it now is, by someone without the user's key
    folders.check_sealed(resealed)  # their own key takes it
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "mine"))
    with pytest.raises(ResultsError, match="its seal is not this user's"):
        folders.check_sealed(resealed)
    folders.check_sealed(resealed, accept_changes=True)


def test_a_run_that_did_not_end_reads_as_open_with_its_own_mark(tmp_path, monkeypatch):
    from sims import folder as folders

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "mine"))
    folder = tmp_path / "r"
    _small_run(folder)
    folders.unseal(folder)  # as a resumed run leaves it while it plays
    folders.check_sealed(folder)  # a run killed mid-way is read (and resumed) as before
    _edit_manifest(folder, lambda m: m["study"].update(name="other"))
    with pytest.raises(ResultsError, match="manifest.json changed"):
        folders.check_sealed(folder)


def test_an_open_manifest_put_back_after_its_run_was_sealed_is_refused(tmp_path, monkeypatch):
    """Someone without the key copies the manifest while the run plays (open), changes the
    results after the seal and puts the copy back: its run id is among the sealed runs."""
    from sims import folder as folders
    from sims.results import load_results

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "mine"))
    folder = tmp_path / "r"
    _small_run(folder)
    folders.unseal(folder)  # as a resumed run leaves it while it plays
    copied = (folder / "manifest.json").read_text()
    folders.check_sealed(folder)  # open, its own mark: read while it plays
    folders.seal(folder)  # the run ends
    _raise_a_score(folder)
    (folder / "manifest.json").write_text(copied)
    refused = "its manifest.json is a copy made while its run played, put back after that run"
    with pytest.raises(ResultsError, match=refused):
        folders.check_sealed(folder)
    with pytest.raises(ResultsError, match=refused):
        load_results(folder)
    folders.check_sealed(folder, accept_changes=True)
    run_id = json.loads(copied)["seal"]["run"]
    assert run_id in (tmp_path / "mine" / "cardgame" / "ended-runs").read_text().split()
    # a run killed (never sealed), then resumed: its open manifest is refused as well
    folders.unseal(folder)
    killed = (folder / "manifest.json").read_text()
    folders.unseal(folder)  # the resume opens it under a new id
    folders.check_sealed(folder)
    (folder / "manifest.json").write_text(killed)
    with pytest.raises(ResultsError, match=refused):
        folders.check_sealed(folder)


def test_python_and_code_under_the_hosts_tmp_show_through_the_private_tmp():
    """A virtual environment made under /tmp (CI's clone) is bound after the private /tmp is
    mounted, else the sandbox finds no Python in it."""
    if sandbox.bwrap() is None:
        pytest.skip("bubblewrap is not installed")
    line = sandbox.command(runtime.View([("/tmp", "/tmp")], []))
    tmpfs = line.index("--tmpfs")
    binds = [i for i, arg in enumerate(line) if arg == "--ro-bind" and line[i + 1] == "/tmp"]
    assert binds and all(i > tmpfs for i in binds)
