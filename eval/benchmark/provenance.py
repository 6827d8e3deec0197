"""Where a benchmark's gold sources came from, said once and the same way by the `--out` file,
the lakehouse (eval_runs.gold_from), the reports, the CLI and the README's results.

    "truth"        the institution's ground-truth file decided who each source applies to
    "annotations"  the build's own annotations did: an annotation error then picks the gold too,
                   so it can never show up as a miss
    "benchmark"    an outside benchmark file gave the gold (its instances carry no "gold_from")

A run over instances of several origins is "annotations,truth" (sorted, comma-joined).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from eval.metrics.slices import optional_label

__all__ = ["ANNOTATIONS", "BENCHMARK", "TRUTH", "gold_from_of", "gold_line", "gold_note"]

TRUTH, ANNOTATIONS, BENCHMARK = "truth", "annotations", "benchmark"
ANNOTATIONS_CAVEAT = ("gold sources were chosen from the build's own annotations, so an annotation error cannot "
                      "show up as a miss")
UNKNOWN = "unknown (recorded before gold_from was kept)"


def instance_gold_from(instance: Mapping) -> str:
    """One instance's origin: its "gold_from", or "benchmark" when it has none."""
    return optional_label(instance.get("gold_from"), BENCHMARK, f"instance {instance.get('id')!r}: 'gold_from'").strip()


def gold_from_of(instances: Iterable[Mapping]) -> str:
    """The run's gold_from: the one origin of its instances, or theirs sorted and comma-joined."""
    origins = sorted({instance_gold_from(i) for i in instances})
    if not origins:
        raise ValueError("no instances: a run without instances has no gold to come from anywhere")
    return ",".join(origins)


def gold_note(gold_from: str | None) -> str | None:
    """The one-line caveat a reader needs, when some gold came from the build's own annotations."""
    if gold_from is not None and ANNOTATIONS in gold_from.split(","):
        return ANNOTATIONS_CAVEAT
    return None


def gold_line(gold_from: str | None) -> str:
    """"Gold sources from: <origin>" plus the caveat when there is one, for reports and terminals."""
    line = f"Gold sources from: {gold_from or UNKNOWN}"
    note = gold_note(gold_from)
    return f"{line} (caveat: {note})." if note else f"{line}."
