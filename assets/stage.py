"""What every stage of the pipeline shares: how its asset is declared (the `lakehouse` pool, its
checks as a table) and how a run of it begins (the config, the start time, a progress line)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timezone
from typing import NamedTuple

from dagster import AssetCheckSpec, AssetExecutionContext, AssetsDefinition, asset

from advisor import progress
from advisor.config import InstitutionConfig
from assets.lineage import HISTORY_CHECK
from assets.resources import InstitutionResource

# DuckDB allows one writer per file: every stage runs in this pool, which dagster.yaml limits to one
# step at a time (`concurrency.pools.default_limit`).
POOL = "lakehouse"


class Check(NamedTuple):
    """One check of an asset: its name, what it asserts, and whether a failure stops the assets
    downstream (blocking) or only warns."""

    name: str
    description: str
    blocking: bool = False


# Every asset that keeps a history table (advisor/lakehouse/history.py) declares this check.
HISTORY = Check(HISTORY_CHECK, "Every current row has its open version in the history table, and no "
                "open version lacks its current row (advisor/lakehouse/history.py).")


def stage_asset(
    group: str, *, kinds: set[str], code_version: str, deps: Iterable | None = None, checks: Sequence[Check] = ()
) -> Callable[[Callable], AssetsDefinition]:
    """`@asset` for a stage: in the `lakehouse` pool, with its checks declared for the asset the
    decorated function defines (its name), and the function's docstring, as one line, for the
    description the UI shows."""

    def declare(fn: Callable) -> AssetsDefinition:
        description = " ".join((fn.__doc__ or "").split())
        if not description:
            raise TypeError(f"{fn.__name__}: a stage's docstring describes its asset in the UI; it has none")
        specs = [AssetCheckSpec(c.name, asset=fn.__name__, blocking=c.blocking, description=c.description)
                 for c in checks]
        return asset(group_name=group, kinds=kinds, code_version=code_version, deps=deps, pool=POOL,
                     check_specs=specs or None, description=description)(fn)

    return declare


def begin(
    context: AssetExecutionContext, institution: InstitutionResource, doing: str = ""
) -> tuple[InstitutionConfig, datetime]:
    """The institution's config and the start time of the run (for its lineage row); `doing`, when
    given, is shown by the command line's progress display under the asset's name."""
    config = institution.load()
    started = datetime.now(timezone.utc)
    if doing:
        progress.report(context.asset_key.to_user_string(), doing)
    return config, started
