"""Run message sets end to end: check the lock (test sets), build each set's institution, send every
item through the engine, score, record a `testset_runs` row. The caller prints: aggregates only
for test sets; development sets may also show their items."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from advisor.config import load_config
from advisor.index.layout import builds_dir
from eval.benchmark.truth import Truth, truth_file
from eval.sets import build, lock, runs
from eval.sets.converse import Outcome, converse
from eval.sets.items import read_items
from eval.sets.score import Copies, score

PURPOSES = {"test": lock.TESTSETS, "development": lock.DEVSETS}


@dataclass(frozen=True)
class SetRun:
    name: str
    purpose: str
    file_hash: str
    build_id: str
    metrics: dict
    outcomes: list[Outcome]
    copies: Copies  # the ground truth's copies of FAQ entries (eval.benchmark.truth.Truth.copies)


def run_sets(purpose: str, names: Sequence[str] | None, workdir: Path, connect: Callable, *,
             real_faq: Path | None = None, say: Callable[[str], None] = print,
             folder: Path | None = None) -> list[SetRun]:
    """Every named set (default: all of the folder) run once and recorded through `connect()` (a
    read-write lakehouse connection, opened only to record). A set whose institution cannot be
    built here (the real FAQ without ../shared) is skipped, said through `say`. `folder`: the sets'
    folder, when not the purpose's own (tests)."""
    folder = Path(folder or PURPOSES[purpose])
    files = lock.set_files(folder)
    hashes = lock.checked(folder) if purpose == "test" else {name: lock.file_hash(p) for name, p in files.items()}
    unknown = [name for name in names or () if name not in files]
    if unknown:
        raise build.UnknownSet(f"no {purpose} set named {', '.join(unknown)} (there are: {', '.join(files)})")
    done = []
    code_version = runs.git_version()
    run_id = runs.new_run_id()
    for name in names or list(files):
        if name == build.REAL_FAQ and not Path(real_faq or build.REAL_FAQ_FILE).is_file():
            say(f"{name}: skipped, the real FAQ file is not here ({real_faq or build.REAL_FAQ_FILE})")
            continue
        items = read_items(files[name])
        started = datetime.now(timezone.utc)
        say(f"{name}: building its institution in {Path(workdir) / name} …")
        config_path, warehouse = build.prepare(name, workdir, real_faq)
        from serving.dialogue.engine import open_advisor  # heavy: only when a run is asked for

        config = load_config(config_path)
        advisor = open_advisor(builds_dir(warehouse), config)
        say(f"{name}: {len(items)} messages through build {advisor.build_id} …")
        outcomes = converse(advisor, items)
        answers = {e.source_url: e.answer for e in (advisor.faq_store.entries if advisor.faq_store else [])
                   if e.origin == "seed"}
        copies = entry_copies(config, warehouse)
        metrics = score(outcomes, answers, copies)
        con = connect()
        try:
            runs.record(con, run_id=run_id, set_name=name, purpose=purpose, file_hash=hashes[name], items=len(items),
                        build_id=advisor.build_id, embedder=advisor.index_info().get("embedder"), started_at=started,
                        finished_at=datetime.now(timezone.utc), metrics=metrics, code_version=code_version)
        finally:
            con.close()
        done.append(SetRun(name, purpose, hashes[name], advisor.build_id, metrics, outcomes, copies))
    return done


def entry_copies(config, warehouse: Path) -> Copies:
    """The copies of FAQ entries the institution's truth file names (none without one: the real
    FAQ's entries are matched by id on either page instead)."""
    path = truth_file(config, warehouse)
    return Truth.load(path, config).copies() if path is not None else {}
