"""`cardgame view`: one recorded game as a self-contained HTML page, turn by turn.

The page holds one JSON blob (every position of the replayed game: hands, yards, piles, the
row, the decks, destinations, the narration) and one small script and style sheet, inline:
it opens offline and asks the network for nothing. Each seat's chance of winning after
every turn comes from the play-out oracle (sims/winchance.py), with the learned model's
(``sims.winchance.chance_table``: it knows who plays each seat) dashed beside it, or alone
with ``--playouts 0``. docs/viewer.md shows the page.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from cardgame.catalogue import Catalogue
from cardgame.narrate import destination, plural
from cardgame.record import read_entries, record_catalogue
from cardgame.record_schema import rules_dict
from cardgame.rules import Rules
from sims.errors import SimsError
from sims.files import write_atomic
from sims.human import public_line, seen_line
from sims.parts import record_files
from sims.standing import shipped_model
from sims.winchance import (
    DEFAULT_PLAYOUTS,
    SWING,
    Oracle,
    Position,
    chance_table,
    check_record,
    is_unfinished,
    positions,
    swings,
)

from .checks import out_path_problem


class ViewError(SimsError):
    """A record or option the viewer cannot use: one line, exit code 2."""


# play-outs a position: 10,000 bring a chance's standard error to half a point at most, and
# take about ten minutes a game on the native core (64: 3.8 s for 139 positions, docs/viewer.md)
MAX_PLAYOUTS = 10_000


# ------------------------------------------------------------------ finding the game


@dataclass(frozen=True)
class Found:
    """One game of a file or results folder, with where it came from."""

    record: dict[str, Any]
    where: str  # "g.json", "g.jsonl line 3", "records/part-x.jsonl line 2"


def games_in(
    path: Path, read: Callable[[Path], bytes] = Path.read_bytes
) -> tuple[list[Found], list[str]]:
    """Every game of a record file (JSON or JSON Lines) or of a results folder written
    with ``--records`` (its ``records/*.jsonl``, in file-name order), and where a line
    holds no record (skipped, so that the others can still be shown)."""
    if path.is_dir():
        inside = path / "records"  # a results folder's, or the records folder itself
        folder = path if path.name == "records" and not inside.is_dir() else inside
        # the record files a run writes (``part-*.jsonl``), files only: a folder of a
        # record's name holds no record (hostile pass 25r's odd25), and a file of another
        # name is none of the run's (pass 27r's leftout27 named one as a Dask run's mark)
        files = sorted(record_files(folder).values())
        if not files:
            raise ViewError(
                f"{path}: holds no game records (a results folder has them only when "
                "simulated with --records)"
            )
    elif path.exists():
        files = [path]
    else:
        raise ViewError(f"{path}: no such file or folder")
    found, skipped = [], []
    for file in files:
        name = file.relative_to(path) if path.is_dir() else file
        for entry in read_entries(file, read):
            where = f"{name} {entry.where}" if entry.line is not None else str(name)
            if isinstance(entry.value, dict) and entry.error is None:
                found.append(Found(entry.value, where))
            else:
                skipped.append(where)
    if not found:
        raise ViewError(f"{path}: holds no game record")
    return found, skipped


def pick(found: list[Found], game: int | None, seed: int | None) -> tuple[Found, str | None]:
    """The game ``--game N`` (1-based) among those with ``--seed S`` (or all); with
    neither, the first, and a note saying how to pick another."""
    pool = found
    if seed is not None:
        pool = [f for f in found if f.record.get("seed") == seed]
        if not pool:
            raise ViewError(f"--seed {seed}: no game of the {plural(len(found), 'game')} has it")
    if game is not None:
        if not 1 <= game <= len(pool):
            among = f"{len(pool)} with seed {seed}" if seed is not None else str(len(pool))
            raise ViewError(f"--game {game}: choose 1 to {len(pool)} (games: {among})")
        return pool[game - 1], None
    if len(pool) > 1:
        which = f"with seed {seed} " if seed is not None else ""
        note = (
            f"note: {len(pool)} games {which}here; showing the first "
            f"({pool[0].where}); pick another with --game N"
        )
        return pool[0], note
    return pool[0], None


# ------------------------------------------------------------------ the page's data


def _destination_info(dest_id: int, catalogue: Catalogue) -> list[Any]:
    d = catalogue.destination(dest_id)
    big = sum(1 for city in d.cities if city in catalogue.big_city_names)
    return [d.city_a, d.city_b, d.points, list(d.colours), big]


def _rules_line(record: dict[str, Any]) -> str:
    """The settings that differ from the defaults, or that there are none."""
    players = record["players"]
    defaults = rules_dict(Rules(), players)
    changed = [
        f"{key} {json.dumps(value)} (default {json.dumps(defaults.get(key))})"
        for key, value in record["rules"].items()
        if defaults.get(key) != value
    ]
    line = "variant: " + "; ".join(changed) if changed else "default rules (docs/rules.md)"
    if "cards" in record:  # an edition of its own (a study's card edits, --cards)
        line += "; the record's own cards (edited), shown as played"
    return line


def _frame(position: Position, record: dict[str, Any], catalogue: Catalogue) -> dict[str, Any]:
    """One position as the page draws it: the table when the turn ended, what it did."""
    table = position.table
    players = record["players"]
    turn = position.turn
    lines: list[list[Any]] = []  # [text, seat whose view shows it whole (None: all), public]
    kept: list[list[int]] = [[] for _ in range(players)]
    if turn is None:
        for seat, ids in enumerate(record["setup"]["kept"]):
            dealt = len(record["setup"]["dealt"][seat])
            head = f"Setup: seat {seat} keeps {len(ids)} of {plural(dealt, 'destination')}"
            whole = head + ": " + "; ".join(destination(d, catalogue) for d in ids)
            lines.append([whole, seat, head])
            kept[seat] = list(ids)
    else:
        previous = record["turns"][position.index - 2] if position.index > 1 else None
        if turn["final_round"] and (
            previous is None or not previous["final_round"] or previous["round"] != turn["round"]
        ):
            lines.append(["The train deck is empty: final round (R15)", None, None])
        lines.append([seen_line(turn, catalogue, None), turn["seat"], public_line(turn, catalogue)])
        if "destinations" in turn:
            kept[turn["seat"]] = list(turn["destinations"]["kept"])
    frame: dict[str, Any] = {
        "turn": position.index,
        "seat": None if turn is None else turn["seat"],
        "round": table.round if turn is None else turn["round"],
        "lines": lines,
        "h": [list(h) for h in table.hands],
        "c": [list(c) for c in table.circulation],
        "yo": list(table.yard_owner),
        "yw": list(table.yard_wagons),
        "yl": list(table.yard_locos),
        "f": list(table.face_up),
        "d": table.deck_size,
        "x": list(table.discard),
        "dd": table.destination_deck_size,
        "held": [list(h) for h in table.held],
        "reached": [list(r) for r in table.reached],
        "kept": kept,
    }
    if turn is not None and "steal" in turn:
        steal = turn["steal"]
        frame["steal"] = {
            "by": turn["seat"],
            "victim": steal["victim"],
            "colour": catalogue.colours.index(steal["colour"]),
            "cards": steal["discarded"]["wagons"] + steal["discarded"]["locos"],
        }
    return frame


def _resolutions(
    frames: list[dict[str, Any]], record: dict[str, Any], catalogue: Catalogue
) -> None:
    """Attach each round's resolution (R16) to the last turn of that round."""
    last_of_round: dict[int, int] = {}
    for frame in frames[1:]:
        last_of_round[frame["round"]] = frame["turn"]
    for resolution in record["resolutions"]:
        index = last_of_round.get(resolution["round"])
        if index is None:
            continue
        frame = frames[index]
        frame["res"] = {
            "round": resolution["round"],
            "reached": [s["reached"] for s in resolution["seats"]],
            "unreached": [s["unreached"] for s in resolution["seats"]],
        }
        frame["lines"].append([f"Round {resolution['round']} resolution (R16):", None, None])
        for seat in resolution["seats"]:
            got = seat["reached"]
            points = sum(catalogue.destination(d).points for d in got)
            text = (
                f"seat {seat['seat']} reaches {len(got)} ({plural(points, 'point')}), "
                f"misses {len(seat['unreached'])}"
            )
            frame["lines"].append([text, None, None])


def page_data(
    record: dict[str, Any],
    playouts: int = 0,
    catalogue: Catalogue | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Everything the page shows, as JSON-ready data, from one replay of ``record``
    (checked first); each position's win chances from ``playouts`` play-outs (0: none) and
    from the learned model (``chance_table``). The cards are the record's own edition
    (``record_catalogue``: a game played with edited cards names and scores them as played),
    else ``catalogue``, else the printed ones."""
    catalogue = record_catalogue(record, catalogue)
    check_record(record, catalogue)
    oracle = Oracle(record, playouts) if playouts else None
    frames, chances = [], []
    total = len(record["turns"]) + 1
    for position in positions(record, catalogue, checked=True):
        frames.append(_frame(position, record, catalogue))
        if oracle is not None:
            chances.append(oracle.at(position))
            if progress is not None:
                progress(position.index + 1, total)
    if not frames:
        raise ViewError("the game stopped before every seat kept its destinations: nothing to show")
    _resolutions(frames, record, catalogue)
    ids = {d for f in frames for seat in (*f["held"], *f["reached"], *f["kept"]) for d in seat}
    ids.update(d for r in record["resolutions"] for s in r["seats"] for d in s["unreached"])
    unfinished = is_unfinished(record)
    data: dict[str, Any] = {
        "seed": record["seed"],
        "players": record["players"],
        "strategies": record["strategies"],
        "rules": record["rules"],
        "rulesLine": _rules_line(record),
        "unfinished": unfinished,
        "cards": list(catalogue.card_names),
        "destinations": {str(d): _destination_info(d, catalogue) for d in sorted(ids)},
        "frames": frames,
        "result": None if unfinished else record["result"],
        "chance": None,
        "model": _model_chances(record, catalogue),
    }
    if oracle is not None:
        data["chance"] = {
            "playouts": oracle.playouts,
            "engine": oracle.engine,
            "policies": oracle.policies,
            "swing": SWING,
            "p": [[round(x, 4) for x in c.chance] for c in chances],
            "se": [[round(x, 4) for x in c.stderr] for c in chances],
            "swings": [
                {
                    "turn": s.index,
                    "seat": s.seat,
                    "change": round(s.change, 4),
                    "noise": round(s.noise, 4),
                }
                for s in swings(chances)
            ],
        }
    return data


def _model_chances(record: dict[str, Any], catalogue: Catalogue) -> dict[str, Any]:
    """The learned model's chance of each seat at every position (``chance_table``), and
    the seats' strategies it does not know (counted as an average player)."""
    table = chance_table(record, catalogue)
    players = record["players"]
    p = table["chance"].to_numpy().reshape(-1, players)
    model = shipped_model()
    unknown = [label for label in dict.fromkeys(record["strategies"]) if not model.known(label)]
    return {"p": [[round(float(x), 4) for x in row] for row in p], "unknown": unknown}


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath("viewer", name).read_text(encoding="utf-8")


def render(data: dict[str, Any]) -> str:
    """The page: the data, the style sheet and the script inline; nothing fetched."""
    blob = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    title = f"Game {data['seed']} - {data['players']} players - Ticket to Ride: The Card Game"
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        # nothing may be fetched: no network request even if a future edit adds a link
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_escape(title)}</title><style>{_asset('viewer.css')}</style></head>"
        '<body><div id="app"><noscript>The viewer needs JavaScript.</noscript></div>'
        f'<script type="application/json" id="game-data">{blob}</script>'
        f"<script>{_asset('viewer.js')}</script></body></html>\n"
    )


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# ------------------------------------------------------------------ the command


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "view",
        help="write one recorded game as an HTML page to step through, with win chances",
        description="Replay one game of a record file (JSON or JSON Lines) or of a results "
        "folder simulated with --records, and write a self-contained HTML page: every "
        "turn's table, a perspective toggle, and each seat's chance of winning after every "
        "turn from play-outs by built-in strategies (docs/viewer.md).",
    )
    parser.add_argument("record", help="a record file, or a results folder with records/")
    parser.add_argument(
        "--game", type=int, metavar="N", help="the N-th game (from 1; with --seed: of that seed's)"
    )
    parser.add_argument("--seed", type=int, metavar="S", help="the game with this seed")
    parser.add_argument("-o", "--out", metavar="FILE", help="the page (default: RECORD.html)")
    parser.add_argument(
        "--playouts",
        type=int,
        default=DEFAULT_PLAYOUTS,
        metavar="K",
        help="play-outs per turn for the win chances, 0 for the learned model's alone "
        f"(default {DEFAULT_PLAYOUTS}, at most {MAX_PLAYOUTS:,})",
    )
    parser.add_argument(
        "--accept-changes",
        action="store_true",
        help="read a results folder even if its files changed since its run ended",
    )
    parser.set_defaults(run=main)


def main(args: argparse.Namespace) -> int:
    if not 0 <= args.playouts <= MAX_PLAYOUTS:
        raise ViewError(f"--playouts: must be from 0 to {MAX_PLAYOUTS:,}, got {args.playouts}")
    source = Path(args.record)
    from sims.folder import check_source

    unchanged = check_source(source, getattr(args, "accept_changes", False))
    try:
        games, skipped = games_in(source, unchanged.read)
    except OSError as exc:  # a name past the system's limits
        raise ViewError(f"{str(source)[:120]!a}: {exc.strerror or exc}") from None
    unchanged()
    if unchanged.note:
        print(f"warning: {unchanged.note}", file=sys.stderr)
    if skipped:
        more = f" and {len(skipped) - 1} more" if len(skipped) > 1 else ""
        print(f"note: {skipped[0]}{more} hold no record (skipped)", file=sys.stderr)
    found, note = pick(games, args.game, args.seed)
    out = Path(args.out) if args.out else _default_out(source, found, args.game)
    _check_out(out)
    if note:
        print(note, file=sys.stderr)
    record = found.record
    start = time.perf_counter()
    data = page_data(record, args.playouts, progress=_progress())
    text = render(data)
    _write(text, out)
    size = len(text.encode("utf-8"))
    chance = data["chance"]
    odds = (
        f", win chances from {chance['playouts']} play-outs a turn on the {chance['engine']} engine"
        if chance
        else ""
    )
    print(
        f"Wrote {out} ({size / 1000:.0f} kB; {found.where}, seed {record['seed']}, "
        f"{plural(len(record['turns']), 'turn')}{odds}; {time.perf_counter() - start:.1f} s)"
    )
    return 0


def _progress() -> Callable[[int, int], None] | None:
    """A one-line progress count on a terminal; nothing when output is piped."""
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        end = "\n" if done == total else ""
        print(f"\rwin chances: position {done} of {total}", end=end, file=sys.stderr, flush=True)

    return show


def _default_out(source: Path, found: Found, game: int | None) -> Path:
    stem = source.name if source.is_dir() else source.stem
    suffix = f"-seed{found.record['seed']}" if source.is_dir() or game is not None else ""
    return Path(f"{stem}{suffix}.html")


def _check_out(out: Path) -> None:
    """Refuse a page path that cannot be written before the play-outs run."""
    problem = out_path_problem(out, "page")
    if problem is not None:
        raise ViewError(problem)


def _write(text: str, path: Path) -> None:
    """Write atomically: a failed write never leaves half a page."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, text)
    except OSError as exc:
        raise ViewError(f"{path}: cannot write the page: {exc.strerror or exc}") from None
