"""The Monte Carlo runner: a study's games in batches, on local processes or Dask, streamed
to the results folder as batches finish, resumable, with a progress bar.

Workers write their batch's parts themselves and send back a small summary (counts
and failure lines), so the parent only records which batches landed and is no serial cap on
the number of workers. Until the first batch has landed (the manifest is written then, by the
parent), a worker sends its parts back as the finished files' bytes for the parent to write
instead; so does a worker of a remote Dask scheduler that does not see the results folder
(sims/cluster.py: the run's mark in the folder tells).

Determinism: a game's seed and seating depend only on (root seed, cell, game index) — or,
in a paired study, on (root seed, player count, deal) — so the tables are identical whatever
the backend or the number of workers. While it plays, a run merges each table's parts into
one file (``compaction.Compaction``: a cell as soon as all its batches have landed, by threads
of the parent, or of a process forked for a big run) and lands the files when the last batch
has: the same bytes as ``compaction.compact`` gives, whatever the backend, the number of
workers, or the stops and resumes on the way.

Faults of the run are not games (a worker that dies, a pool that breaks, a Dask worker lost,
a batch that escapes its games' guards): the batch is played again alone (sims/pool.py,
sims/cluster.py). A fault that stops the run (a full disk, a lost Dask scheduler, a cluster
with no workers) raises ``RunStopped``: the batches in flight are left unwritten, no
temporary file stays behind, and ``--resume`` plays what did not finish, after which the
folder holds the same bytes as an uninterrupted run.

A study played until settled (``stop = "settled"``, sims/looks.py) is played look by look:
each look's games (batches never straddle a look's end), then the report's judge reads the
summary at that look's level (found through the ``cardgame.judges`` entry point: the report
layer is above this one), and the manifest keeps what it left open; the run stops at the
first look that leaves nothing open, or at the last. A resume replays the looks' judgments
from the manifest and goes on where the run stopped.

When the study's games are whole, its checks are played (``Plan.check_plans``: the same games
with the study's own knobs where adapted players were used, the search player in every seat
where ``[check] search`` asks), each into ``checks/NAME`` as a results folder of its own, with
the same workers, resume and compaction; ``reports/checks.py`` compares their verdicts.

The modules: ``batch`` (what a worker plays and writes), ``pool`` and ``cluster`` (the two
backends), ``stopping`` (Ctrl-C and SIGTERM as a polled flag); this one plans the run and
keeps the results folder.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from tqdm import tqdm

from .batch import BatchSummary, plan_batches
from .compaction import compact, new_compaction, tidy_compaction
from .errors import ResultsError, StudyError
from .files import discard, temp_files
from .folder import (
    DIGESTS,
    MANIFEST,
    check_output_folder,
    check_sealed,
    done_batches,
    fingerprint,
    fingerprint_change,
    folder_seals,
    is_empty_folder,
    manifest_plan,
    read_manifest,
    remove_temp_files,
    replace_plan,
    seal,
    unseal,
    write_manifest,
)
from .looks import games_line
from .parts import land_files, part_files, record_files, written_digests
from .plan import CHECKS_FOLDER, DEFAULT_STUDY, Isolation, Plan
from .pool import run_local
from .reading import FileSeal, Reading, Sealed, file_seal, note_removed, note_written
from .schema import SCHEMA_VERSION, WRITE_ORDER
from .seeding import new_guest_key
from .stopping import StopFlag, catch_stop_signals
from .study import Study, load_study

BACKENDS = ("local", "dask")
JUDGES = "cardgame.judges"  # the entry point group of the judge of a look (reports/settled.py)
# a look's judge: the results folder and the plan at that look; the questions left open
Judge = Callable[[Path, Plan], list[str]]
MAX_WORKERS = 256  # or 4 per core: more processes than that is a typo


@dataclass
class RunSummary:
    folder: Path
    games_played: int
    games_total: int
    games_skipped: int
    failures: list[str] = field(default_factory=list)
    interrupted: bool = False
    stopped_on_failure: bool = False
    stop_signal: int | None = None  # SIGINT or SIGTERM when interrupted by a signal
    plan: Plan | None = None  # the plan played (with its adapted players, if any)
    checks: dict[str, RunSummary] = field(default_factory=dict)  # each check's games


def run(
    study: Study,
    workers: int | None = None,
    backend: str = "local",
    scheduler: str | None = None,
    out: str | Path | None = None,
    resume: bool = False,
    fail_fast: bool = False,
    records: bool = False,
    progress: bool = True,
    announce: Callable[[], None] | None = None,
    stop: StopFlag | None = None,
    keep_parts: bool = False,
    accept_changes: bool = False,
    judge: Judge | None = None,
) -> RunSummary:
    """Run ``study``; results go to ``out`` (default: the study's output folder).

    ``announce`` is called once the folder is known to be usable (the CLI prints its header
    there, so a refused folder is one line, not a header and then an error). ``stop`` is a
    flag the caller's own SIGINT/SIGTERM handlers set (the CLI installs them before its heavy
    imports); without it the run routes those signals to a flag of its own while it lasts.
    Raises ``RunStopped`` when a fault outside the games stops it (see the module docstring).
    A run compacts the folder while it plays and lands the files after its last batch: one
    file per table instead of one per batch (``keep_parts`` keeps the parts). When it ends
    it seals the folder (the digest of every file in the manifest); a resume refuses a
    folder changed since, unless ``accept_changes``. A study played until settled asks
    ``judge`` (default: the report's, ``JUDGES``) after each look.
    """
    if backend not in BACKENDS:
        raise StudyError(f"backend: must be one of {', '.join(BACKENDS)}, got {backend!r}")
    folder = Path(out or study.output)
    workers = worker_count(workers)
    options = _Options(
        workers, backend, scheduler, resume, fail_fast, progress, stop, keep_parts,
        accept_changes,
    )  # fmt: skip
    # the run's seal covers what it wrote itself and what it found: a resumed folder's
    # files as its seal's check hashed them (read so meanwhile), those of a folder not sealed
    # (a run killed) or resumed with changes accepted as the run found them
    manifest = read_manifest(folder) if resume else None
    checked = None
    notes = []  # what the run seals as it found it, said once it has (a refusal stays one line)
    if manifest is not None:
        current = fingerprint(study.to_dict()["variants"])
        _check_resumable(folder, manifest, study, records, current)  # the plainer refusals first
        check = check_sealed(folder, accept_changes)
        checked = check.sealed
        if check.unsealed:  # a run killed: what it left is sealed as found, never unsaid
            notes.append(f"warning: {folder}: {RESUMED_OPEN_NOTE}")
        if check.accepted is not None:
            notes.append(f"warning: {check.accepted}: sealed again as it is")
    start = checked or Sealed(folder, _as_found(folder) if _holds_manifest(folder) else {})
    postpone = options.postpone
    with Reading(start, own_writes=True) as found:
        try:
            if study.plan.until_settled:
                summary = _run_looks(study, folder, options, records, announce, judge or _judge())
            else:
                summary = _run_games(study, folder, options, records, announce)
            try:
                if not (summary.interrupted or summary.stopped_on_failure):
                    _run_checks(study, summary, folder, options)
            finally:
                # last: the seal covers the checks' folders too
                changed = seal(folder, found, postpone)
        except BaseException:
            changed = (
                _sealed_after_failure(folder, found, postpone) if _holds_manifest(folder) else []
            )
            if not changed:
                raise
    if changed:
        raise _changed_by_another(folder, changed)
    for note in notes:
        print(note, file=sys.stderr)
    return summary


RESUMED_OPEN_NOTE = (
    "its run did not end (it was killed, or it still runs): its files were not sealed, and "
    "this run sealed them as it found them, so a change made to them meanwhile is not seen"
)


def _holds_manifest(folder: Path) -> bool:
    """Whether a run finds a manifest in ``folder`` (a name past the system's limits: no)."""
    try:
        return (folder / MANIFEST).is_file()
    except OSError:
        return False


def _as_found(folder: Path) -> dict[str, FileSeal]:
    """A folder's files as a run finds them, its manifest too (by its bytes)."""
    return {**folder_seals(folder), MANIFEST: file_seal(folder / MANIFEST)}


def _forget_unreported(folder: Path, batches: set[str]) -> None:
    """Remove the files of every batch but ``batches`` (those found done, and those whose
    worker's summary was read): a batch lands when its summary is read, so that the run
    seals only files it knows it wrote (a resume plays the others again)."""
    for where in [folder / table for table in WRITE_ORDER] + [folder / "records"]:
        found = part_files(where) if where.name != "records" else record_files(where)
        for batch, path in found.items():
            if batch not in batches:
                discard(path)
                note_removed(path)


def _changed_by_another(folder: Path, changed: list[str]) -> ResultsError:
    """The run's end when another writer changed its folder (``seal``'s phrases)."""
    return ResultsError(
        f"{folder}: {changed[0]} while this run wrote the folder (not by the run): "
        "sealed as the run left it, so it reads as changed"
    )


def _sealed_after_failure(
    folder: Path, found: Reading, postpone: Callable[[], object] | None = None
) -> list[str]:
    """A run that failed seals its folder (so that what it wrote and found stays sealed,
    never open to unseen changes, and a resume goes on from there), and names what another
    writer changed meanwhile; where it cannot (a full disk), the failure is what it says."""
    try:
        return seal(folder, found, postpone)
    except Exception:
        return []


def _judge() -> Judge:
    """The report's judge of a look, through its entry point (sims never imports reports)."""
    for point in entry_points(group=JUDGES, name="settled"):
        return point.load()
    raise StudyError(
        'stop = "settled" needs the report layer, which judges each look: '
        "reinstall the package (pip install -e .)"
    )


def _run_looks(
    study: Study,
    folder: Path,
    options: _Options,
    records: bool,
    announce: Callable[[], None] | None,
    judge: Judge,
) -> RunSummary:
    """Play a study look by look until its judge leaves nothing open, or to its last look;
    the summary counts every look's games, its plan is the look the run stopped at."""
    plan = study.plan
    judged: tuple[tuple[str, ...], ...] = ()
    manifest = read_manifest(folder) if options.resume else None
    if manifest is not None:  # the judgments of the looks played, never made again
        judged = manifest_plan(manifest, folder / MANIFEST).judged
    total = RunSummary(folder, 0, 0, 0)
    for look in range(len(plan.look_factors)):
        at = replace(plan.at_look(look), judged=judged[:look])
        if look:  # the manifest names the look its games come from before they land
            replace_plan(folder, at.to_dict())
        staged = PlanRun(study.name, at, str(folder), study.to_dict())
        played = _run_games(
            staged,
            folder,
            replace(
                options,
                resume=options.resume or look > 0,
                keep_parts=options.keep_parts or look < len(plan.look_factors) - 1,
            ),
            records,
            announce if look == 0 else None,
        )
        total.games_played += played.games_played
        # what the folder holds of this look, less what this run played
        total.games_skipped = played.games_skipped + played.games_played - total.games_played
        total.games_total = played.games_total
        total.failures.extend(played.failures)
        total.plan = plan = played.plan or at
        if played.interrupted or played.stopped_on_failure:
            total.interrupted, total.stop_signal = played.interrupted, played.stop_signal
            total.stopped_on_failure = played.stopped_on_failure
            return total
        if len(judged) <= look:
            left = tuple(judge(folder, plan))
            judged = (*judged, left)
        total.plan = plan = replace(plan, judged=judged[: look + 1])
        replace_plan(folder, plan.to_dict())
        if not judged[look] or plan.last_look:
            break
    if not options.keep_parts and not plan.last_look:
        compact(folder)  # settled before the last look: its parts were kept for the next
    return total


@dataclass(frozen=True)
class _Options:
    """How ``run`` plays, the same for the study's games and for each check's."""

    workers: int
    backend: str
    scheduler: str | None
    resume: bool
    fail_fast: bool
    progress: bool
    stop: StopFlag | None
    keep_parts: bool
    accept_changes: bool

    @property
    def postpone(self) -> Callable[[], object] | None:
        """The stop flag's ``postpone``, where it has one: its watchdog waits for a seal
        that moves (the CLI's flag; a caller's own flag may have none)."""
        return getattr(self.stop, "postpone", None)


def _run_checks(study: Study, summary: RunSummary, folder: Path, options: _Options) -> None:
    """Play the study's checks, each into its folder, once the study's games are whole."""
    for name, plan in summary.plan.check_plans().items() if summary.plan else ():
        check = PlanRun(
            f"{study.name} check: {name}",
            plan,
            str(folder / CHECKS_FOLDER / name),
            {**study.to_dict(), "checking": _check_dict(name, plan)},
        )
        postpone = options.postpone
        try:
            found = _run_games(check, Path(check.output), options, records=False, announce=None)
        except BaseException:  # its folder sealed too, never left open (pass 24r's checkopen24)
            if _holds_manifest(Path(check.output)):
                with contextlib.suppress(Exception):
                    seal(Path(check.output), progress=postpone)
            raise
        # with the run's account of what it wrote
        changed = seal(Path(check.output), progress=postpone)
        if changed:
            raise _changed_by_another(folder, changed)
        summary.checks[name] = found
        if found.interrupted or found.stopped_on_failure:
            summary.interrupted |= found.interrupted
            summary.stop_signal = summary.stop_signal or found.stop_signal
            break


def _check_dict(name: str, plan: Plan) -> dict[str, Any]:
    """What a check's manifest keeps of it beside the study: a resume with other deals or
    another search player is refused like any other change of the study."""
    return {
        "name": name,
        "games": plan.total_games,
        "strategies": plan.to_dict()["strategies"],
    }


@dataclass(frozen=True)
class PlanRun:
    """A plan as a run plays a study: a check of the study's verdicts (``Plan.check_plans``)
    or a look of a study played until settled; its plan, its folder and the study dict its
    manifest keeps (the study's; a check's names the check)."""

    name: str
    plan: Plan
    output: str
    study: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return self.study


def _run_games(
    study: Study | PlanRun,
    folder: Path,
    options: _Options,
    records: bool,
    announce: Callable[[], None] | None,
) -> RunSummary:
    """Play one plan's games into ``folder`` (``run``'s body, for the study and each check);
    the caller seals the folder."""
    resume, backend, scheduler = options.resume, options.backend, options.scheduler
    chosen = [study.plan]  # the plan the run plays: with its adapted players, once found
    keys = [""]  # the run's guest key (sims/seeding.py), once known
    first_landing = _prepare_folder(
        folder, study, resume, records, chosen, keys, options.accept_changes
    )
    if announce is not None:
        announce()
    plan = chosen[0] = _adapted(study.plan, folder, resume)
    guest_key = keys[0] = run_guest_key(plan, folder, resume)

    if resume:
        remove_temp_files(folder)  # left by workers killed mid-write
        tidy_compaction(folder)  # and by an interrupted compaction
    done = done_batches(folder) if resume else set()
    whole_plan = list(plan_batches(plan))
    todo = (b for b in plan_batches(plan, records, guest_key) if b.id not in done)
    # workers write into the folder once its manifest exists; a remote scheduler's workers
    # may not share this disk
    shared = backend == "local" or not scheduler
    landed = [read_manifest(folder) is not None]
    target = os.path.abspath(folder)
    todo = (replace(b, folder=target) if shared and landed[0] else b for b in todo)
    total = plan.total_games
    skipped = sum(b.games for b in whole_plan if b.id in done) if done else 0
    summary = RunSummary(folder, 0, total, skipped, plan=plan)
    bar = tqdm(
        total=total, initial=skipped, unit="game", desc=study.name, disable=not options.progress,
        smoothing=0.1, file=sys.stderr, dynamic_ncols=True,
    )  # fmt: skip

    # the folder is compacted while the games are played, a cell as soon as it is whole
    compaction = None
    if not options.keep_parts and any(b.id not in done for b in whole_plan):
        cells: dict[str, tuple[str, list[str]]] = {}
        for b in whole_plan:
            cells.setdefault(b.cell.key, (b.cell.key, []))[1].append(b.id)
        compaction = new_compaction(folder, list(cells.values()), done)

    reported: set[str] = set()

    def finished(result: BatchSummary) -> bool:
        first_landing()
        landed[0] = True
        reported.add(result.id)
        if result.suspect:
            remove_temp_files(folder, result.id)
        written = dict(result.written or {})  # what its worker wrote, or this process
        if result.files is not None:
            land_files(folder, result.files)
            written = written_digests(result.files)
        paths = {str(folder / name): wrote for name, wrote in written.items()}
        for path, (digest, size) in paths.items():
            note_written(path, digest=digest, size=size)
        if compaction is not None:
            compaction.batch_landed(result.id, paths)
        summary.games_played += result.games
        summary.failures.extend(result.failures)
        bar.update(result.games)
        return bool(options.fail_fast and result.failures)

    signals = catch_stop_signals() if options.stop is None else contextlib.nullcontext(options.stop)
    with signals as flag:
        try:
            if backend == "dask":
                from .cluster import run_dask  # Dask's own imports only when asked for

                run_dask(todo, options.workers, scheduler, finished, summary, flag)
            else:
                run_local(todo, options.workers, finished, summary, flag)
        except KeyboardInterrupt:  # a Ctrl-C before the signal handlers took over
            summary.interrupted = True
        except BaseException:
            if compaction is not None:
                compaction.abandon()
            raise
        finally:
            bar.close()
            # the workers are gone: what they were writing is no part (a resume removes it
            # too), nor is a batch whose worker's word never came (Ctrl-C): played again
            remove_temp_files(folder, compaction=False)
            _forget_unreported(folder, done | reported)
        if flag:
            summary.interrupted = True
            summary.stop_signal = flag.signal
    if options.keep_parts or summary.interrupted or summary.stopped_on_failure:
        if compaction is not None:
            compaction.abandon()
    elif compaction is not None:
        compaction.finish()
    else:
        compact(folder)  # nothing played: parts a kept-parts run left, say
    return summary


def run_default_study(workers: int | None = None) -> Path:
    """Run the default study into its folder, or resume it there (``cardgame report`` given
    no folder); the folder, once whole."""
    study = load_study(DEFAULT_STUDY)
    folder = Path(study.output)
    print(
        f"No results given: running the default study {study.name!r} "
        f"({games_line(study.plan)}) into {folder}",
        file=sys.stderr,
    )
    summary = run(study, workers=workers, out=folder, resume=read_manifest(folder) is not None)
    if summary.interrupted:
        raise KeyboardInterrupt
    return folder


def _adapted(plan: Plan, folder: Path, resume: bool) -> Plan:
    """The plan with its players adapted to each design (sims/adapt.py), when it asks for
    that: a resumed run takes the adaptation its manifest holds, never a new one."""
    if not plan.adapt_budget or plan.adapted is not None:  # none asked, or given (a tune's)
        return plan
    manifest = read_manifest(folder) if resume else None
    stored = (manifest or {}).get("plan", {}).get("adapt")
    if stored and stored.get("adapted") is not None:
        return replace(
            plan, adapted=stored["adapted"], adaptations=tuple(stored.get("adaptations", ()))
        )
    from .adapt import adapt_plan

    print(
        f"Adapting the players to each design ({plan.adapt_budget:,} games a strategy and "
        "design)...",
        file=sys.stderr,
    )
    found = adapt_plan(plan, say=lambda line: print(f"  {line}", file=sys.stderr))
    adapted: dict[str, dict[str, dict[str, Any]]] = {}
    for a in found:
        if a.used:
            adapted.setdefault(a.variant, {})[a.label] = a.adapted
    return replace(plan, adapted=adapted, adaptations=tuple(a.to_dict() for a in found))


def run_guest_key(plan: Plan, folder: Path, resume: bool) -> str:
    """The secret of the run's isolated guests' random streams: a resumed run's is its
    manifest's; a new isolated run draws one; a run without guests has none."""
    if plan.isolation != Isolation.PROCESS:
        return ""
    manifest = read_manifest(folder) if resume else None
    stored = (manifest or {}).get("guest_key")
    return stored if isinstance(stored, str) and stored else new_guest_key()


def _prepare_folder(
    folder: Path,
    study: Study | PlanRun,
    resume: bool,
    records: bool,
    chosen: list[Plan],
    keys: list[str] | None = None,
    accept_changes: bool = False,
) -> Callable[[], None]:
    """Check ``folder`` can take this study's results; return what writes its manifest.

    The manifest is written when the first batch lands (atomically), never before: a run
    that fails to start (a bad scheduler, a strategy that cannot load) leaves no folder that
    would block a plain rerun.
    """
    check_output_folder(folder)
    current = fingerprint(study.to_dict()["variants"])
    manifest = read_manifest(folder)
    if manifest is not None:
        if not resume:
            raise ResultsError(
                f"{folder}: holds results already; continue them with --resume, "
                "or choose another --out"
            )
        _check_resumable(folder, manifest, study, records, current)
        if not accept_changes:  # with changes accepted, ``run`` said what it takes already
            check_sealed(folder)
        unseal(folder)
        return lambda: None
    if folder.is_dir() and _only_manifest_temp_files(folder):
        remove_temp_files(folder)  # a run killed while it wrote its manifest: nothing else
    if not is_empty_folder(folder):
        raise ResultsError(f"{folder}: folder is not empty and holds no results manifest")
    pending = [study.to_dict()]

    def first_landing() -> None:
        if pending:
            key = keys[0] if keys else ""
            write_manifest(folder, pending.pop(), current, chosen[0].to_dict(), key)

    return first_landing


def _check_resumable(
    folder: Path,
    manifest: dict[str, Any],
    study: Study | PlanRun,
    records: bool,
    current: dict[str, str],
) -> None:
    """Refuse to resume ``folder`` with another study, results schema, records or code."""
    if _comparable(manifest["study"]) != _comparable(study.to_dict()):
        raise ResultsError(
            f"{folder}: holds results of a different study or settings; "
            "resume with the same study and options, or choose another --out"
        )
    if manifest["schema_version"] != SCHEMA_VERSION:
        raise ResultsError(
            f"{folder}: cannot resume: written in results schema version "
            f"{manifest['schema_version']}, this version writes {SCHEMA_VERSION}; "
            "run into another --out"
        )
    # records the folder holds, or that its seal lists (an empty records/ added holds none,
    # and one emptied still says how the run was made: hostile pass 25r's shape25.py)
    sealed = manifest.get(DIGESTS)
    listed = isinstance(sealed, dict) and any(str(n).startswith("records/") for n in sealed)
    held = listed or bool(record_files(folder / "records"))
    if held != records and (held or done_batches(folder)):  # records of some batches only
        raise ResultsError(
            f"{folder}: these results were made {'with' if held else 'without'} game "
            f"records: resume {'with' if held else 'without'} --records"
        )
    changed = fingerprint_change(manifest.get("fingerprint"), current)
    if changed is not None:
        raise ResultsError(
            f"{folder}: cannot resume: {changed} since these results were made; "
            "run into another --out"
        )


def _comparable(study: dict[str, Any]) -> dict[str, Any]:
    """The study as the manifest stores it (JSON round trip: tuples become lists), without
    what changes none of its games (the report's margins; the checks, played into folders
    of their own, whose manifests name them)."""
    out: dict[str, Any] = json.loads(json.dumps(study, sort_keys=True))
    out.pop("report", None)
    out.pop("check", None)
    return out


def worker_count(workers: int | None) -> int:
    """The workers a run uses: all the cores it may use, or ``workers`` within the limit."""
    if workers is None:
        return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                   else os.cpu_count() or 1)  # fmt: skip
    limit = max(MAX_WORKERS, 4 * (os.cpu_count() or 1))
    if not 1 <= workers <= limit:
        raise StudyError(f"workers: must be from 1 to {limit}, got {workers}")
    return workers


def _only_manifest_temp_files(folder: Path) -> bool:
    """Whether ``folder`` holds nothing but temporary copies of a manifest (a run killed
    while it wrote its first one)."""
    found = set(folder.iterdir())
    return bool(found) and found == set(temp_files(folder / MANIFEST))
