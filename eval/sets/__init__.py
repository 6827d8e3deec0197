"""Message sets in one format, kept as files: the locked TEST sets (`eval/testsets/`, run once at the
end of a change, aggregates only) and the DEVELOPMENT sets (`eval/devsets/`, read item by item, tuned
on). Both are run by `advisor eval --testsets` / `--devsets` (docs/contracts.md §1).

    items.py     the item format, read and checked
    lock.py      the test sets' lock file (sha256 per file), checked before every test run
    build.py     each set's institution built from nothing into a work folder (the real pipeline)
    converse.py  each item sent through the real dialogue engine, the simulated student answering
    score.py     the aggregates, with the targets beside them
    runs.py      `testset_runs`: one lakehouse row per set per run
"""
