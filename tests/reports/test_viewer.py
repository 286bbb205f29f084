"""`cardgame view`: the page of one game, its data and the command; in headless Chromium,
driven over the DevTools protocol (standard library only: real key presses and clicks,
screenshots, the page's network requests and script errors), that the keys move the turn
shown, the perspective hides what a seat cannot see and nothing is fetched."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cardgame import Game, Rules
from cardgame.cli import main
from sims.human import Person, play_seats
from sims.match import GameSpec, play_game
from sims.strategy import spec
from sims.winchance import unfinished_record

# what Input.dispatchKeyEvent needs for each key the viewer knows
KEYS = {
    "ArrowLeft": ("ArrowLeft", 37, ""),
    "ArrowRight": ("ArrowRight", 39, ""),
    "Home": ("Home", 36, ""),
    "End": ("End", 35, ""),
    "[": ("BracketLeft", 219, "["),
    "]": ("BracketRight", 221, "]"),
    "?": ("Slash", 191, "?"),
    "p": ("KeyP", 80, "p"),
    "Escape": ("Escape", 27, ""),
}


def chromium_or_skip() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    if os.environ.get("REQUIRE_BROWSER"):
        pytest.fail("REQUIRE_BROWSER is set but no Chromium was found")
    pytest.skip("no Chromium on this machine (.ci/run installs it)")


class Browser:
    """One headless Chromium with one page, closed on exit."""

    def __init__(self, binary: str, profile: Path, width: int = 1400, height: int = 1000) -> None:
        self.process = subprocess.Popen(
            [
                binary,
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--hide-scrollbars",
                f"--window-size={width},{height}",
                f"--user-data-dir={profile}",
                "--remote-debugging-port=0",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.events: list[dict[str, Any]] = []
        self.mark = 0  # where the events of the page loaded last begin
        self._id = 0
        try:
            port = self._port()
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=30) as reply:
                pages = [t for t in json.load(reply) if t["type"] == "page"]
            self.ws = _WebSocket(pages[0]["webSocketDebuggerUrl"])
            for domain in ("Page", "Runtime", "Network"):
                self.call(f"{domain}.enable")
            self.call(
                "Emulation.setDeviceMetricsOverride",
                width=width,
                height=height,
                deviceScaleFactor=1,
                mobile=False,
            )
        except BaseException:
            self.process.kill()
            self.process.wait()
            raise

    def _port(self) -> int:
        assert self.process.stderr is not None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = self.process.stderr.readline()
            found = re.search(r"DevTools listening on ws://[^:]+:(\d+)/", line)
            if found:
                return int(found.group(1))
            if not line and self.process.poll() is not None:
                break
        raise RuntimeError("Chromium did not open its DevTools port")

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        self._id += 1
        self.ws.send(json.dumps({"id": self._id, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.receive())
            if message.get("id") == self._id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def open(self, url: str) -> None:
        """Load ``url`` afresh (by way of a blank page, so that a new fragment reloads too)
        and wait for its load event; ``requests`` then lists what this load asked for."""
        for target in ("about:blank", url):
            self.mark = len(self.events)
            self.call("Page.navigate", url=target)
            self.wait_for_event("Page.loadEventFired")

    def wait_for_event(self, method: str, timeout: float = 60) -> dict[str, Any]:
        """The first ``method`` event since the last ``open`` step, waiting for it."""
        for event in self.events[self.mark :]:
            if event.get("method") == method:
                return event
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            message = json.loads(self.ws.receive())
            self.events.append(message)
            if message.get("method") == method:
                return message
        raise TimeoutError(method)

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_until(self, expression: str, timeout: float = 30) -> Any:
        """Poll a page expression until it is truthy (the page, not the clock, decides)."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(expression)
            if value or time.monotonic() > deadline:
                return value

    def press(self, key: str) -> None:
        code, vk, text = KEYS[key]
        base = {"key": key, "code": code, "windowsVirtualKeyCode": vk, "nativeVirtualKeyCode": vk}
        self.call("Input.dispatchKeyEvent", type="keyDown", text=text, **base)
        self.call("Input.dispatchKeyEvent", type="keyUp", **base)

    def click(self, selector: str) -> None:
        """A real mouse click at the centre of the first element ``selector`` finds."""
        box = self.evaluate(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
            " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
            " return [r.left + r.width / 2, r.top + r.height / 2]; })()"
        )
        for kind in ("mousePressed", "mouseReleased"):
            self.call(
                "Input.dispatchMouseEvent",
                type=kind,
                x=box[0],
                y=box[1],
                button="left",
                clickCount=1,
            )

    def screenshot(self, path: Path | None = None, full: bool = False) -> bytes:
        params: dict[str, Any] = {"format": "png"}
        if full:
            params["captureBeyondViewport"] = True
            height = self.evaluate("document.documentElement.scrollHeight")
            width = self.evaluate("document.documentElement.scrollWidth")
            params["clip"] = {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}
        data = base64.b64decode(self.call("Page.captureScreenshot", **params)["data"])
        if path is not None:
            path.write_bytes(data)
        return data

    def requests(self) -> list[str]:
        """The URLs the page loaded last asked for, itself included."""
        return [
            e["params"]["request"]["url"]
            for e in self.events[self.mark :]
            if e.get("method") == "Network.requestWillBeSent"
        ]

    def errors(self) -> list[str]:
        found = [
            json.dumps(e["params"]["exceptionDetails"])[:300]
            for e in self.events
            if e.get("method") == "Runtime.exceptionThrown"
        ]
        found += [
            json.dumps(e["params"]["args"])[:300]
            for e in self.events
            if e.get("method") == "Runtime.consoleAPICalled" and e["params"]["type"] == "error"
        ]
        return found

    def close(self) -> None:
        self.ws.close()
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _WebSocket:
    """Just enough of RFC 6455 for the DevTools protocol: masked text frames out, text
    frames in (fragmented or not), on a local socket."""

    def __init__(self, url: str) -> None:
        found = re.fullmatch(r"ws://([^:/]+):(\d+)(/.*)", url)
        assert found, url
        host, port, path = found.group(1), int(found.group(2)), found.group(3)
        self.sock = socket.create_connection((host, port), timeout=120)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            (
                f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise ConnectionError("DevTools closed the connection")
            head += chunk
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise ConnectionError(head.decode(errors="replace"))

    def send(self, text: str) -> None:
        data = text.encode()
        header = bytearray([0x81])
        if len(data) < 126:
            header.append(0x80 | len(data))
        elif len(data) < 1 << 16:
            header += bytes([0x80 | 126]) + struct.pack(">H", len(data))
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", len(data))
        mask = os.urandom(4)
        self.sock.sendall(bytes(header) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def _exact(self, n: int) -> bytes:
        out = b""
        while len(out) < n:
            chunk = self.sock.recv(n - len(out))
            if not chunk:
                raise ConnectionError("DevTools closed the connection")
            out += chunk
        return out

    def receive(self) -> str:
        parts = []
        while True:
            first, second = self._exact(2)
            length = second & 0x7F
            if length == 126:
                length = struct.unpack(">H", self._exact(2))[0]
            elif length == 127:
                length = struct.unpack(">Q", self._exact(8))[0]
            payload = self._exact(length)
            opcode = first & 0x0F
            if opcode == 0x8:
                raise ConnectionError("DevTools closed the connection")
            if opcode in (0x9, 0xA):  # ping / pong: not part of a message
                continue
            parts.append(payload)
            if first & 0x80:
                return b"".join(parts).decode()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()


# ------------------------------------------------------------------ the games and pages


def record_of(names: list[str], seed: int) -> dict[str, Any]:
    game = GameSpec("t", "t", "base", Rules(), len(names), tuple(map(spec, names)), 0, seed)
    record = play_game(game, None, True, 0).record
    assert record is not None
    return record


def page_data(page: Path) -> dict[str, Any]:
    text = page.read_text(encoding="utf-8")
    blob = text.split('<script type="application/json" id="game-data">', 1)[1]
    return json.loads(blob.split("</script>", 1)[0].replace("<\\/", "</"))


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("view")


@pytest.fixture(scope="module")
def four(folder: Path) -> Path:
    """A 4-player game of two rounds with steals (thief), saved as a record."""
    path = folder / "four.json"
    path.write_text(json.dumps(record_of(["planner", "thief", "hoarder", "rusher"], 5)))
    return path


@pytest.fixture(scope="module")
def page(four: Path, folder: Path) -> Path:
    out = folder / "four.html"
    assert main(["view", str(four), "-o", str(out), "--playouts", "8"]) == 0
    return out


@pytest.fixture(scope="module")
def browser(folder: Path) -> Iterator[Browser]:
    with Browser(chromium_or_skip(), folder / "profile") as opened:
        yield opened


# ------------------------------------------------------------------ the page itself


def test_the_page_of_a_four_player_two_round_game_is_small_and_self_contained(page):
    text = page.read_text(encoding="utf-8")
    assert len(text.encode("utf-8")) <= 1_500_000
    data = page_data(page)
    assert data["players"] == 4 and {f["round"] for f in data["frames"]} == {1, 2}
    assert len(data["chance"]["p"]) == len(data["frames"])
    # nothing to fetch: no source, link, stylesheet import or CSS url, and a policy that
    # would refuse one anyway
    for pattern in (r"<script[^>]+src=", r"<link\b", r"@import", r"url\(", r"<img\b", r"<iframe"):
        assert not re.search(pattern, text), pattern
    assert "Content-Security-Policy" in text and "default-src 'none'" in text


def test_every_turn_of_the_record_is_a_frame_with_its_narration(page, four):
    record = json.loads(four.read_text())
    frames = page_data(page)["frames"]
    assert len(frames) == len(record["turns"]) + 1
    assert frames[0]["lines"][0][0].startswith("Setup: seat 0 keeps")
    for frame, turn in zip(frames[1:], record["turns"], strict=True):
        line = next(x for x in frame["lines"] if x[1] is not None)
        assert line[0].startswith(f"Turn {turn['turn']:3d} seat {turn['seat']}:")
        assert ("steal" in frame) == ("steal" in turn)
    assert [f["res"]["round"] for f in frames if "res" in f] == [1, 2]
    assert page_data(page)["result"] == record["result"]


# ------------------------------------------------------------------ in headless Chromium


def test_keys_change_the_turn_shown_and_nothing_is_fetched(browser, page, folder):
    data = page_data(page)
    last = len(data["frames"]) - 1
    browser.open(page.as_uri())
    assert browser.wait_until("document.body.dataset.turn === '0'")
    before = browser.screenshot(folder / "turn-0.png")
    steps = [
        ("ArrowRight", 1),
        ("ArrowRight", 2),
        ("ArrowLeft", 1),
        ("End", last),
        ("Home", 0),
        ("]", 4),
        ("]", 8),
        ("[", 4),
    ]
    for key, turn in steps:
        browser.press(key)
        assert browser.wait_until(f"document.body.dataset.turn === '{turn}'"), (key, turn)
    where = browser.evaluate("document.getElementById('where').textContent")
    assert where == f"Turn 4 of {last} · round 1"
    after = browser.screenshot(folder / "turn-4.png")
    assert after != before
    browser.press("?")
    assert browser.wait_until("document.getElementById('help').classList.contains('on')")
    browser.press("Escape")
    assert browser.wait_until("!document.getElementById('help').classList.contains('on')")
    assert browser.requests() == [page.as_uri()]
    assert browser.errors() == []


def test_the_perspective_shows_only_what_the_seat_may_know(browser, page):
    data = page_data(page)
    # a turn at which seat 1 holds destinations and has cards in its hand and pile
    turn = next(
        i
        for i, f in enumerate(data["frames"])
        if f["held"][1] and sum(f["h"][1]) and sum(f["c"][1]) and sum(f["c"][0])
    )
    frame = data["frames"][turn]
    browser.open(page.as_uri() + f"#turn={turn}&view=-1")
    assert browser.wait_until(f"document.body.dataset.turn === '{turn}'")
    seat = "document.querySelector('section.seat[data-seat=\"1\"]')"
    held = [f"#{d} " for d in frame["held"][1]]
    text = browser.evaluate(f"{seat}.textContent")
    assert all(h in text for h in held)
    browser.press("p")  # seat 0's view
    assert browser.wait_until("document.body.dataset.view === '0'")
    text = browser.evaluate(f"{seat}.textContent")
    assert not any(h in text for h in held)
    assert f"{len(frame['held'][1])} destination" in text
    assert f"{sum(frame['h'][1])} card" in text and f"{sum(frame['c'][1])} card" in text
    assert browser.evaluate(f"{seat}.querySelectorAll('.card.k0, .card.k8').length") == 0
    own = "document.querySelector('section.seat[data-seat=\"0\"]')"
    # its own hand in colours, its own pile face down too (R9)
    kinds = sum(1 for n in frame["h"][0] if n)
    assert (
        browser.evaluate(f"{own}.querySelectorAll('.part .cards .card[data-kind]').length") == kinds
    )
    assert browser.evaluate(f"{own}.querySelectorAll('.card.back').length") == 1
    # a rival's blind draw is narrated without its cards
    blind = next(
        i
        for i, f in enumerate(data["frames"][1:], 1)
        if f["seat"] == 1 and "from the deck" in f["lines"][-1][0]
    )
    browser.press("Home")
    for _ in range(blind):
        browser.press("ArrowRight")
    assert browser.wait_until(f"document.body.dataset.turn === '{blind}'")
    now = browser.evaluate("document.getElementById('now').textContent")
    assert "a card from the deck" in now
    browser.press("p")
    browser.press("p")
    browser.press("p")
    browser.press("p")  # back to everything
    assert browser.wait_until("document.body.dataset.view === '-1'")
    assert "a card from the deck" not in browser.evaluate(
        "document.getElementById('now').textContent"
    )
    assert browser.errors() == []


def test_clicks_jump_to_the_turn_that_changed_what_was_clicked(browser, page):
    data = page_data(page)
    frames = data["frames"]
    last = len(frames) - 1

    # a yard column standing since an earlier turn: clicking it goes to where it appeared or
    # last grew
    def size(i: int, c: int) -> int:
        return frames[i]["yw"][c] + frames[i]["yl"][c]

    def placed_at(i: int, c: int) -> int:
        while frames[i - 1]["yo"][c] == frames[i]["yo"][c] and size(i, c) <= size(i - 1, c):
            i -= 1
        return i

    turn, colour = next(
        (i, c)
        for i in range(2, last)
        for c in range(8)
        if frames[i]["yo"][c] >= 0 and placed_at(i, c) < i
    )
    placed = placed_at(turn, colour)
    browser.open(page.as_uri() + f"#turn={turn}&view=-1")
    assert browser.wait_until(f"document.body.dataset.turn === '{turn}'")
    name = data["cards"][colour]
    browser.click(f".col[data-colour='{name}']")
    assert browser.wait_until(f"document.body.dataset.turn === '{placed}'")
    # a steal: its chip goes to the turn of the steal (the first chip: seat 0's first, or
    # the next seat's)
    stolen = min(
        (s, i)
        for i, f in enumerate(frames)
        if "steal" in f
        for s in (f["steal"]["by"], f["steal"]["victim"])
    )[1]
    browser.press("End")
    browser.click(".steal")
    assert browser.wait_until(f"document.body.dataset.turn === '{stolen}'")
    # a swing ring on the chart goes to its turn
    swings = data["chance"]["swings"]
    rings = browser.evaluate("document.querySelectorAll('#chance circle.swing').length")
    assert rings == len(swings)
    paths = browser.evaluate("document.querySelectorAll('#chance path[data-seat]').length")
    assert paths == data["players"]
    dashed = browser.evaluate("document.querySelectorAll('#chance path[data-model-seat]').length")
    assert dashed == data["players"]  # the learned model's curve beside the play-outs'
    if swings:
        browser.press("Home")
        browser.click("#chance circle.swing")
        assert browser.wait_until(f"document.body.dataset.turn === '{swings[0]['turn']}'")
    assert browser.errors() == []


def test_without_play_outs_the_chart_shows_the_learned_model_alone(browser, four, folder):
    out = folder / "four-model.html"
    assert main(["view", str(four), "-o", str(out), "--playouts", "0"]) == 0
    browser.open(out.as_uri())
    assert browser.wait_until("document.querySelector('#chance svg') !== null")
    paths = browser.evaluate("document.querySelectorAll('#chance path[data-seat]').length")
    assert paths == 4
    caption = browser.evaluate("document.querySelector('#chance .caption').textContent")
    assert "learned standing model" in caption and "--playouts 0" in caption
    assert browser.evaluate("document.querySelectorAll('#chance circle.swing').length") == 0
    assert browser.errors() == []


# ------------------------------------------------------------------ the command


def test_a_game_of_a_results_folder_by_seed_or_number(tmp_path, capsys):
    records = [record_of(["planner", "random"], seed) for seed in (21, 22, 23)]
    folder = tmp_path / "results" / "records"
    folder.mkdir(parents=True)
    (folder / "part-a.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records[:2]))
    (folder / "part-b.jsonl").write_text(json.dumps(records[2]) + "\n")
    out = tmp_path / "by-seed.html"
    args = ["view", str(tmp_path / "results"), "--playouts", "0"]
    assert main([*args, "--seed", "23", "-o", str(out)]) == 0
    assert page_data(out)["seed"] == 23 and page_data(out)["chance"] is None
    assert "records/part-b.jsonl, seed 23" in capsys.readouterr().out
    assert main([*args, "--game", "2", "-o", str(out)]) == 0
    assert page_data(out)["seed"] == 22
    assert main([*args, "-o", str(out)]) == 0
    captured = capsys.readouterr()
    assert "3 games here; showing the first" in captured.err and page_data(out)["seed"] == 21


def test_the_default_page_name_and_the_win_chances(tmp_path, monkeypatch, capsys):
    path = tmp_path / "duel.json"
    path.write_text(json.dumps(record_of(["planner", "thief"], 9)))
    monkeypatch.chdir(tmp_path)
    assert main(["view", str(path), "--playouts", "4"]) == 0
    data = page_data(tmp_path / "duel.html")
    assert data["chance"]["playouts"] == 4 and data["chance"]["policies"] == ["planner", "thief"]
    assert "win chances from 4 play-outs a turn" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.json"], "missing.json: no such file or folder"),
        (["GAME", "--game", "2"], "--game 2: choose 1 to 1"),
        (["GAME", "--seed", "999"], "--seed 999: no game of the 1 game has it"),
        (["GAME", "--playouts", "-1"], "--playouts: must be from 0 to 10,000, got -1"),
        (["EDITED"], "the record does not replay: result.scores[0].total"),
        (["EMPTY"], "holds no game records (a results folder has them only when simulated"),
        (["NOTREC"], "not a ttr-cardgame-record (format is null)"),
        (["GAME", "-o", "."], "is a folder; give a file name for the page"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys, args, message):
    record = record_of(["planner", "thief"], 2)
    (tmp_path / "game.json").write_text(json.dumps(record))
    record["result"]["scores"][0]["total"] += 5
    (tmp_path / "edited.json").write_text(json.dumps(record))
    (tmp_path / "empty").mkdir()
    (tmp_path / "other.json").write_text('{"a": 1}')
    monkeypatch.chdir(tmp_path)
    names = {"GAME": "game.json", "EDITED": "edited.json", "EMPTY": "empty", "NOTREC": "other.json"}
    assert main(["view", *[names.get(a, a) for a in args]]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--playouts", "1180591620717411303424"], "--playouts: must be from 0 to 10,000, got"),
        (["--playouts", "10001"], "--playouts: must be from 0 to 10,000, got 10001"),
        (["-o", "/proc/view.html"], "/proc/view.html: cannot write the page"),
    ],
)
def test_what_the_play_outs_would_run_into_is_refused_before_them(
    tmp_path, monkeypatch, capsys, args, message
):
    """Too many play-outs (hours, or never done) or a page that cannot be written: one line
    before any play-out."""
    import reports.viewer as viewer

    def no_play_outs(*_args: Any, **_kwargs: Any) -> None:
        raise AssertionError("the play-outs ran")

    monkeypatch.setattr(viewer, "page_data", no_play_outs)
    (tmp_path / "game.json").write_text(json.dumps(record_of(["planner", "thief"], 2)))
    assert main(["view", str(tmp_path / "game.json"), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err


def test_lines_that_hold_no_record_are_skipped_with_a_note(tmp_path, capsys):
    path = tmp_path / "mixed.jsonl"
    good = json.dumps(record_of(["planner", "thief"], 4))
    path.write_text(f"{{broken\n{good}\n[1]\n")
    out = tmp_path / "mixed.html"
    assert main(["view", str(path), "--playouts", "0", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert err == f"note: {path} line 1 and 1 more hold no record (skipped)\n"
    assert page_data(out)["seed"] == 4


def test_a_game_stopped_during_setup_has_nothing_to_show(tmp_path, capsys):
    def stop(prompt: str) -> str:
        raise EOFError

    game = Game(2, 1)
    names = ["human", "planner"]
    state, finished = play_seats(game, names, 0, Person(names, game.catalogue, stop), print)
    assert not finished
    path = tmp_path / "setup.json"
    path.write_text(json.dumps(unfinished_record(state, names)))
    assert main(["view", str(path), "-o", str(tmp_path / "setup.html")]) == 2
    err = capsys.readouterr().err
    assert "stopped before every seat kept its destinations: nothing to show" in err


def test_the_page_holds_the_learned_model_s_chances_and_names_the_seats_it_does_not_know():
    from reports.viewer import page_data as build
    from sims.strategy import StrategySpec
    from sims.winchance import chance_table

    mine = StrategySpec("my-own", "planner", (("card_share", 0.3),))
    game = GameSpec("t", "t", "base", Rules(), 2, (mine, spec("thief")), 0, 9)
    record = play_game(game, None, True, 0).record
    data = build(record, 0)
    assert data["chance"] is None
    model = data["model"]
    assert len(model["p"]) == len(data["frames"]) and model["unknown"] == ["my-own"]
    table = chance_table(record)
    assert model["p"][3] == [round(x, 4) for x in table[table["position"] == 3]["chance"]]


# ------------------------------------------------------------------ the record's own cards


def test_a_game_played_with_edited_cards_is_shown_with_its_own_cards(tmp_path):
    """A record that carries its cards (``record_catalogue``) names and scores them as
    played: an edited "#4 New York-Atlantis (9)" is never shown as the printed ticket."""
    import shutil
    from importlib import resources

    edition = tmp_path / "edition"
    shutil.copytree(resources.files("cardgame") / "data", edition)
    path = edition / "destinations.csv"
    printed = "4,New York,Sault Ste. Marie,6,"
    assert printed in path.read_text()
    path.write_text(path.read_text().replace(printed, "4,New York,Atlantis,9,"))
    saved, page = tmp_path / "g.json", tmp_path / "g.html"
    # a seed whose game deals ticket #4 (asserted below)
    for seed in range(40):
        args = ["play", "--players", "2", "--seed", str(seed), "--quiet"]
        assert main([*args, "--cards", str(edition), "--save", str(saved)]) == 0
        record = json.loads(saved.read_text())
        kept = [d for seat in record["setup"]["kept"] for d in seat]
        if 4 in kept:
            break
    else:
        pytest.fail("no game of 40 seeds kept ticket #4")
    assert "cards" in record
    assert main(["view", str(saved), "-o", str(page), "--playouts", "0"]) == 0
    data = page_data(page)
    assert data["destinations"]["4"][:3] == ["New York", "Atlantis", 9]
    text = json.dumps(data["frames"])
    assert "#4 New York-Atlantis (9)" in text and "Sault Ste. Marie" not in text
    assert "the record's own cards" in data["rulesLine"]


# ------------------------------------------------------------------ the layout


@pytest.mark.parametrize("width", [1400, 1920])
def test_the_turn_log_stands_beside_the_chart_never_over_it(browser, page, width):
    """At every scroll position the sticky turn log and the win-chance chart do not
    overlap, and the chart keeps most of the page's width."""
    browser.call(
        "Emulation.setDeviceMetricsOverride",
        width=width,
        height=900,
        deviceScaleFactor=1,
        mobile=False,
    )
    try:
        browser.open(page.as_uri())
        assert browser.wait_until("document.body.dataset.turn === '0'")
        found = browser.evaluate(
            """(() => {
              const chart = document.getElementById('chance');
              const log = document.querySelector('aside');
              const overlaps = [];
              for (let y = 0; y <= document.documentElement.scrollHeight; y += 50) {
                window.scrollTo(0, y);
                const a = chart.getBoundingClientRect(), b = log.getBoundingClientRect();
                const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
                const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
                if (w > 0 && h > 0) overlaps.push(y);
              }
              return {overlaps, chart: chart.getBoundingClientRect().width};
            })()"""
        )
    finally:
        browser.call(
            "Emulation.setDeviceMetricsOverride",
            width=1400,
            height=1000,
            deviceScaleFactor=1,
            mobile=False,
        )
    assert found["overlaps"] == []
    assert found["chart"] > 0.6 * width
