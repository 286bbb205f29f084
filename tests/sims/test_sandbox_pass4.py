"""The fourth hostile pass's attack classes under --isolate (benchmarks/hostile_pass4): each
game's process is pid 2 of a pid namespace of its own (its leader, the host's code, is pid
1), and it has no /proc, so nothing an earlier game did to the pid counter shows.

Each attack is a strategy of tests/sims/hostile4.py that fails its own game saying what it
found when its attack works: a clean game means it found nothing. Skipped, with the reason,
where the machine cannot build the sandbox (no unprivileged namespaces).
"""

from __future__ import annotations

import ctypes
import mmap
import os
import re
import select
import sys
import threading
from pathlib import Path

import pytest

from cardgame import Rules
from sims import guest, sandbox
from sims.errors import UnknownStrategyError
from sims.match import GameSpec, play_game
from sims.seeding import new_guest_key
from sims.strategy import StrategySpec

MISSING = sandbox.unavailable()
needs_sandbox = pytest.mark.skipif(MISSING is not None, reason=f"no guest sandbox: {MISSING}")
KEY = new_guest_key()


def _play(names: list[str], seed: int = 3, engine: str = "auto", isolation: str = "process"):
    seats = tuple(
        StrategySpec(f"s{i}", f"tests.sims.hostile4:{n}" if n[0].isupper() else n)
        for i, n in enumerate(names)
    )
    rules = Rules()
    spec = GameSpec("t", "c", "base", rules, len(seats), seats, seed, seed, isolation,
                    guest_key=KEY)  # fmt: skip
    return play_game(spec, record=False, decision_seconds=10.0, engine=engine)


def _clean(outcome) -> None:
    assert not outcome.game["failed"], outcome.game["failure_error"]


@pytest.fixture(autouse=True)
def _fresh_hosts():
    guest.close_hosts()
    yield
    guest.close_hosts()


# ------------------------------------------------------------------ 1: memory across games
@needs_sandbox
def test_consecutive_games_of_a_host_see_the_same_pids_whatever_the_first_did(engine):
    """Each game moves the pid counter by a number of its own; the next game of the same
    host still starts as pid 2 with thread id 3, and sees no /proc to list pids in."""
    for seed in range(3):
        _clean(_play(["PidMemo", "planner"], seed, engine))


def test_the_pid_attack_works_without_a_pid_namespace_per_game(monkeypatch):
    """The attack is real: games forked by one host in one pid namespace (the host without
    the sandbox) see the counter the game before moved."""
    monkeypatch.setattr(guest, "SANDBOX", False)
    seen = []
    for seed in range(2):
        game = _play(["PidReader", "planner"], seed).game
        found = re.search(r"pid and thread id \((\d+), (\d+)\)", game["failure_error"] or "")
        assert found, game
        seen.append((int(found[1]), int(found[2])))
    # the first game's threads moved the counter (machine-wide here: it may wrap past
    # pid_max to 300 between the games)
    pid_max = int(Path("/proc/sys/kernel/pid_max").read_text())
    assert (seen[1][0] - seen[0][1]) % (pid_max - 300) > 20, seen


# ------------------------------------------------------------------ 2: the machine's tasks
@needs_sandbox
def test_a_game_starting_threads_without_end_gets_its_bound_and_plays_on(engine):
    """Threads past sandbox.Limits.tasks are refused (the strategy sees "can't start new
    thread"), its game goes on and counts, and nothing of its sandbox is left after."""
    for seed in range(2):
        _clean(_play(["Tasks", "planner"], seed, engine))
    guest.close_hosts()
    if sandbox.task_bound_kind() == "cgroup":
        for controller in ("pids", "memory"):
            root = sandbox._hierarchy(controller)
            assert root is not None or controller == "memory"
            mine = (
                [] if root is None else list(root.glob(f"{sandbox.CGROUP_PREFIX}{os.getpid()}-*"))
            )
            assert mine == [], mine  # every sandbox's groups emptied and removed


def test_isolate_refuses_where_no_bound_on_tasks_can_be_made(monkeypatch):
    """Root without a writable pids cgroup: RLIMIT_NPROC would bound nothing, so no
    sandbox (never a weaker one), in one line that names what is missing."""
    monkeypatch.setattr(sandbox, "_hierarchy", lambda controller: None)
    monkeypatch.setattr(os, "getuid", lambda: 0)
    sandbox.unavailable.cache_clear()
    try:
        reason = sandbox.unavailable()
    finally:
        sandbox.unavailable.cache_clear()
    if sandbox.bwrap() is None or not sys.platform.startswith("linux"):
        return  # refused earlier, for what is missing first
    assert reason is not None and "bound on a game's threads" in reason and "\n" not in reason


# ------------------------------------------------------------------ 3: no namespace of its own
@needs_sandbox
def test_the_sandbox_may_make_no_user_namespace():
    """bwrap's --disable-userns (a nested user namespace, under which a game could mount no
    /proc of its own) is replaced by the sandbox's count of user namespaces set to none."""
    _clean(_play(["UserNs", "planner"]))


# ------------------------------------------------------------------ 5, 6: machine counters
@needs_sandbox
@pytest.mark.parametrize("engine", ["auto", "python"])
def test_no_machine_wide_counter_is_in_a_games_reach(engine):
    """The fifth, sixth and seventh passes' channels between sandboxes: /proc/stat's count
    of processes, pipe inode numbers, eventfd ids, sysinfo, a thread's pidfd, the inode
    numbers of /proc/self's entries. All refused, and the game plays on."""
    _clean(_play(["MachineCounters", "planner"], engine=engine))


# ------------------------------------------------------------------ 7: the page cache
@needs_sandbox
def test_a_game_sees_only_what_python_needs_and_can_still_use_it():
    """Hostile pass 7's CacheHand set bits in cold pages of rarely read files under /usr:
    a game now sees the interpreter, its libraries, the standard library without its test
    suite, the project, numpy and its own code, and the standard modules and numpy work."""
    _clean(_play(["ViewProbe", "planner"]))


@needs_sandbox
def test_every_file_a_game_can_read_is_in_memory_once_its_host_started():
    """A page already cached cannot be set by reading it, and no game may evict one: so once
    a host has started, every page of every file its sandbox shows is resident (waited for:
    the kernel's read-ahead runs on its own)."""
    host = guest.Host("tests.sims.hostile4:ViewProbe", 10.0)
    try:
        files = host.view.files()
        assert len(files) > 100
        cold = _cold_pages(files)
        deadline = 600  # polls of 0.1 s: the event is the last page arriving
        while cold and deadline:
            deadline -= 1
            threading.Event().wait(0.1)
            cold = _cold_pages([path for path, _ in cold])
        assert not cold, cold[:5]
    finally:
        host.close()


def _cold_pages(files: list[str]) -> list[tuple[str, int]]:
    """(file, pages not in the page cache) for each file with any: mincore, from outside."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_long)  # fmt: skip
    libc.munmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t)
    libc.mincore.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p)
    page = mmap.PAGESIZE
    out = []
    for path in files:
        size = os.path.getsize(path)
        if not size:
            continue
        fd = os.open(path, os.O_RDONLY)
        try:
            address = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_PRIVATE, fd, 0)
            assert address not in (None, ctypes.c_void_p(-1).value), path
            try:
                vector = (ctypes.c_ubyte * ((size + page - 1) // page))()
                assert libc.mincore(address, size, vector) == 0, path
            finally:
                libc.munmap(address, size)
        finally:
            os.close(fd)
        missing = sum(1 for v in vector if not v & 1)
        if missing:
            out.append((path, missing))
    return out


@needs_sandbox
def test_no_timer_charges_the_machines_count_of_pending_signals():
    """Hostile pass 8: POSIX timers moved a count every sandbox shares. Refused, while
    resource.getrlimit (an honest strategy's) still reads its own limits."""
    _clean(_play(["SignalCount", "planner"]))


@needs_sandbox
def test_every_folder_a_game_can_look_up_names_in_is_a_tmpfs():
    """Hostile pass 8's negative-dentry channel: names looked up and not found on a disk's
    filesystem are cached for every sandbox; a tmpfs caches none."""
    _clean(_play(["FolderProbe", "planner"]))


@needs_sandbox
@pytest.mark.parametrize("engine", ["auto", "python"])
def test_no_kernel_state_of_a_shared_file_is_in_a_games_reach(engine):
    """Hostile pass 9's HugeHand (huge pages made of the shared copy's file pages) and
    FutexColluder (a futex keyed by a file every sandbox maps), KSM, and pass 26s's names
    for mappings (kernel memory no limit counts): refused; private futexes, which every lock
    uses, work."""
    _clean(_play(["SharedKernelState", "planner"], engine=engine))


@needs_sandbox
def test_a_strategy_too_large_to_copy_is_refused_in_one_line(tmp_path, monkeypatch):
    """A strategy's own files are copied into the tmpfs every sandbox shares: a package of
    70 MB (hostile pass 9's HugeMemo carried a 160 MB file) does not load."""
    package = tmp_path / "bigguest"
    package.mkdir()
    (package / "__init__.py").write_text(
        "from sims.strategies.planner import Planner\n\nclass Big(Planner):\n    pass\n"
    )
    with open(package / "blob.bin", "wb") as blob:
        blob.truncate(70 << 20)  # sparse: nothing written, 70 MB to copy
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(UnknownStrategyError, match="70 MiB, over the 64 MiB the sandbox copies"):
        guest.check_guest(StrategySpec("big", "bigguest:Big"), "study")
    guest.close_hosts()


@needs_sandbox
def test_nothing_a_game_writes_reaches_the_next_game_through_its_hosts_memory():
    """Hostile pass 11's HeapNote: each game's process is forked from its host, so nothing a
    game can steer may pass through the host's heap (its stderr is written from a mapping,
    its CPU time judged by its leader)."""
    for seed in (3, 4, 5):  # one host: the second and third games look for the notes
        _clean(_play(["HeapNote", "planner"], seed))


@needs_sandbox
def test_no_game_inherits_what_its_host_did_for_an_earlier_game():
    """Passes 11 to 13 each found a note in the host's memory, which every game's process
    inherited by fork; the exit status of a game that ended itself stayed there too. Games
    are forked from a zygote made before the first, which never hears of a game: even a
    thread the host started for an earlier game (``HostHistory``) is no later game's."""
    for seed in (3, 4, 5):  # one host
        _clean(_play(["HostHistory", "planner"], seed))


def test_the_zygote_forks_and_reaps_without_a_python_object_of_a_pid():
    """The zygote is every later game's memory: the pid of a leader it forks (moved by
    every earlier game's tasks) and its status are never made Python objects there, which
    would stay in freed memory. Its fork and wait go around Python's. Checked in a process
    of one thread, as the zygote is: a fork from libc in a process with other threads (a
    test worker's) may leave the child waiting for a lock one of them held."""
    import subprocess

    script = (
        "import os\n"
        "from sims import sandbox\n"
        "def refused(*args, **kwargs):\n"
        '    raise AssertionError("Python\'s own fork or wait, whose answer is a Python int")\n'
        "for name in ('fork', 'waitpid', 'wait', 'wait4', 'waitid'):\n"
        "    setattr(os, name, refused)\n"
        "for _ in range(3):\n"
        "    if sandbox.fork_leader(None):\n"
        "        os._exit(0)\n"
        "    sandbox.reap_child()\n"
        "print('reaped 3')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and done.stdout.strip() == "reaped 3", done.stderr[-2000:]


def test_a_view_a_game_left_unread_is_discarded_without_reading_it():
    """Hostile pass 12's ViewNote answered its last turn ahead, so that the worker's next view
    to it stayed unread in the pipe; its host drained that into its own heap at the next
    game's start, and the next game, a fork of the host (paired by seatings: its rival held
    what it held), found its hidden destinations there. The host now has the kernel discard
    it (benchmarks/hostile_pass12: the rerun finds no view). Checked here on a pipe: drained
    whole, and never through a read into this process's memory."""
    left, writer = os.pipe()
    os.write(writer, b'{"view": "an unread view"}\n' * 2000)

    def refused(*args):
        raise AssertionError("read into the host's memory")

    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(os, "read", refused)
            patch.setattr(os, "readv", refused)
            guest._forget(left)
        assert not select.select([left], [], [], 0)[0]
    finally:
        os.close(left)
        os.close(writer)


@needs_sandbox
def test_a_game_can_make_no_machine_code_of_its_own():
    """Hostile pass 14's CacheTalk flushed and timed cache lines of the view every sandbox
    maps, from machine code in executable memory of its own (Flush+Reload between two games
    at once: its rival's hand, 63 of 63 bits). No memory a game can write is executable."""
    _clean(_play(["ExecMemory", "planner"]))


@needs_sandbox
def test_a_game_cannot_schedule_itself_above_its_rivals():
    _clean(_play(["Priority", "planner"]))


@needs_sandbox
def test_threads_and_numpy_fit_a_games_memory():
    _clean(_play(["Arenas", "planner"]))


@needs_sandbox
def test_a_game_can_make_no_named_pipe():
    _clean(_play(["FifoProbe", "planner"]))


@needs_sandbox
def test_calls_newer_than_the_filters_library_are_refused_by_number():
    _clean(_play(["NewerCalls", "planner"]))


@needs_sandbox
def test_a_game_cannot_dump_its_memory_or_count_huge_pages():
    _clean(_play(["DumpProbe", "planner"]))


@needs_sandbox
def test_a_game_has_no_terminal_to_leave_a_note_on():
    """Hostile pass 13's PtyNote wrote to a pty so that its times, on the /dev/pts every game
    of a host shares, told the next game its paired rival's count of a colour."""
    _clean(_play(["PtyProbe", "planner"]))


@needs_sandbox
def test_a_strategy_whose_folder_holds_a_named_pipe_is_refused_as_its_own(tmp_path):
    """Hostile pass 19's fifopkg.sh: a named pipe in a strategy's package failed the copy of
    its files, which the run blamed on the machine. It is the strategy's: refused as one
    that does not load."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    os.mkfifo(package / "pipe")
    with pytest.raises(sandbox.CodeRefused, match="pipe.*not a file or folder"):
        sandbox.view([str(package)])


@needs_sandbox
@pytest.mark.skipif(
    sandbox.unavailable() is not None
    or sandbox.task_bound_kind() != "cgroup"
    or sandbox._hierarchy("memory") is None,
    reason="a sandbox's memory group needs a run as root with a writable cgroup v1 memory "
    "hierarchy (elsewhere page tables are bounded by vm.max_map_count: docs/strategies.md)",
)
def test_page_tables_count_against_the_sandboxs_memory():
    """Hostile pass 23's PageTables and MemoryAll: page tables (0.5 GiB for 64,000 mappings
    1 GiB apart) count against no resource limit, but against the sandbox's memory group:
    the kernel kills the game's process, its seat's failure, saying why."""
    outcome = _play(["PageTables", "planner"])
    game = outcome.game
    assert game["failed"] and game["failure_seat"] == 0, game["failure_error"]
    assert "out of its sandbox's memory" in game["failure_error"], game["failure_error"]


@needs_sandbox
def test_copies_that_keep_times_and_the_home_folder_work():
    """Hostile pass 23's Honest23: shutil.copy2, copytree (utime, now pretended as chmod
    is) and Path.home() (no HOME, no passwd entry) failed honest code."""
    _clean(_play(["CopyAndHome", "planner"]))


def test_a_failures_words_reach_no_terminal_as_escapes():
    """Hostile pass 23's ForgedError: a guest's failure words, printed in the run's
    summary, cleared the screen and posed as another seat's failure."""
    from sims.match import StrategyFailure

    failure = StrategyFailure(0, "x", "boom\x1b[2J\x1b[1G\x1b[2K seat 1 (planner): forged\r")
    assert "\x1b" not in failure.error and "\r" not in failure.error
    assert "\\x1b[2J" in failure.error


@pytest.mark.parametrize("pad", ["\u2800", "a"])
def test_a_failures_words_padded_to_the_terminals_edge_start_no_row_of_their_own(pad):
    """Hostile pass 24's PadForged: words padded (with a blank that counts as printable, or
    any letter) to the edge of an 80-column terminal wrapped into a row of their own that
    read as the rival's failure. On a terminal each row after the first is marked, and
    every row is ASCII, one column a character."""
    from cardgame.errors import terminal_rows

    forged = "base/2p/planner+x game 0: seat 0 (planner): decision took over 10 s"
    line = "base/2p/x+planner game 0: seat 1 (x): GuestError: " + pad * 300 + forged
    for lead, more in (("  ", "    | "), ("[guest x] ", "[guest x] ")):
        rows = terminal_rows(line, lead, more, 80)
        assert all(len(row) <= 80 and row.isascii() for row in rows), rows
        assert rows[0].startswith(lead) and all(row.startswith(more) for row in rows[1:])
    assert terminal_rows("a\x1b[2Jb", "  ", "    | ", None) == ["  a\\x1b[2Jb"]


def test_a_wide_mark_and_a_commands_error_keep_every_row_marked(tmp_path, monkeypatch, capsys):
    """Hostile pass 25's wide mark (a strategy named with 30 ideographs, two columns each,
    pushed every row of its stderr past the terminal's edge) and ReportForged (padded words
    in a command's one-line error started a row of their own)."""
    import cardgame.cli
    from cardgame.cli import main
    from cardgame.errors import terminal_rows

    mark = "[guest hp25s.s" + "\u6226\u7565" * 15 + ":W] "
    for width in (40, 80, 120):
        rows = terminal_rows("1 game(s) failed: " + "x" * 300, mark, mark, width)
        assert all(len(row) <= width and row.isascii() for row in rows), rows
        assert all(row.startswith("[guest hp25s.s") for row in rows), rows
    monkeypatch.setattr(cardgame.cli, "terminal_width", lambda stream: 80)
    forged = tmp_path / ("\u2800" * 100 + "seat 1 (planner) cheated")
    assert main(["replay", str(forged)]) == 2
    rows = capsys.readouterr().err.splitlines()
    assert len(rows) > 1 and all(len(row) <= 80 and row.isascii() for row in rows), rows
    assert rows[0].startswith("cardgame replay: error: ")
    assert all(row.startswith("  | ") for row in rows[1:]), rows
