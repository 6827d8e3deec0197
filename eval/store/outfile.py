"""The `advisor eval --out` JSON (docs/contracts.md §1): the aggregates of one evaluation run.

    {"build_id": ..., "benchmark": "FILE.jsonl", "instances": 360,
     "gold_from": "annotations", "gold_note": "gold sources were chosen from ...",
     "results": [{"system", "setting", "n", "mrr", "recall@1", ..., "success@1", ..., "skipped",
                  "slice", "slices": {slice: {"n", "mrr", ...}}}, ...]}

Every result row carries every field, so a consumer can index any of them: a metric that was not
computed (or a system that was skipped) is null, `skipped` is null or the reason. The `urag` row
also has "tiers": {template, faq, documents, fallback} -> share of its answers.

Meaning of the retrieval fields (changed, names kept): "recall@k" is TREC recall, the share of
the instance's distinct gold sources found within the top k distinct sources; "success@k" (added)
is whether any gold source is within the top k. Files written before success@k existed have
success@k's meaning under the name recall@k (identical when every instance has one gold source).
"mrr" is over the first gold hit.

Extensions kept out of the contract's way: top-level "run_id", "benchmark_hash", "gold_from"
(where the gold came from: truth, annotations, benchmark; eval/benchmark/provenance.py) and "gold_note"
(the caveat when it is "annotations", else null); per row "tier_accuracy" next to "tiers" when the
runner measured it, "slice" (the slice the row's numbers are over: profile_dependent when the
benchmark has it, else all) and "slices" (the same fields per slice of the benchmark).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

from eval.benchmark.provenance import gold_note
from eval.metrics import registry as metric_registry
from eval.systems import registry

__all__ = ["TIERS", "out_document", "result_fields", "result_row", "write_out"]

TIERS = registry.TIERS
TIERED_SYSTEMS = registry.TIERED


def result_fields() -> tuple[str, ...]:
    """The fields every result row has: a field per registered metric (eval/metrics/registry.py,
    in the contract's order), between n and skipped."""
    return ("system", "setting", "n", *metric_registry.fields(), "skipped")


def _number(value: object, where: str) -> float | None:
    """A finite float, or None for "not computed"; anything else is the runner's bug, said loudly."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{where}: expected a number or null, got {value!r}")
    number = float(value)
    return number if math.isfinite(number) else None  # NaN/inf are not JSON: they mean "not computed"


def _tiers(value: object, where: str) -> tuple[dict, dict | None]:
    """({tier: share}, {tier: accuracy} or None). The runner gives a share per tier, and may add
    "accuracy": {tier: accuracy}, or give per tier a mapping with "share" (and "accuracy"). A tier
    no answer used has share 0; its accuracy is null (not measured)."""
    if value is None:
        return dict.fromkeys(TIERS), None
    if not isinstance(value, Mapping):
        raise ValueError(f"{where}.tiers: expected an object of tier -> share, got {type(value).__name__}")
    unknown = sorted(set(value) - set(TIERS) - {"accuracy"})
    if unknown:
        raise ValueError(f"{where}.tiers: unknown tier(s) {unknown}; expected {list(TIERS)}")
    given_accuracy = value.get("accuracy")
    if given_accuracy is not None and not isinstance(given_accuracy, Mapping):
        raise ValueError(f"{where}.tiers.accuracy: expected an object of tier -> accuracy")
    shares, accuracy = {}, {}
    for tier in TIERS:
        entry = value.get(tier, 0.0)
        if isinstance(entry, Mapping):
            shares[tier] = _number(entry.get("share", 0.0), f"{where}.tiers.{tier}.share")
            if "accuracy" in entry:
                accuracy[tier] = _number(entry["accuracy"], f"{where}.tiers.{tier}.accuracy")
        else:
            shares[tier] = _number(entry, f"{where}.tiers.{tier}")
        if given_accuracy is not None and tier in given_accuracy:
            accuracy[tier] = _number(given_accuracy[tier], f"{where}.tiers.accuracy.{tier}")
    return shares, (accuracy or None)


def _count(value: object, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{where}: n must be a non-negative int, got {value!r}")
    return value


def _slices(value: object, where: str, tiered: bool) -> dict:
    """{slice: {n, every metric field[, tiers]}} from the runner's per-slice aggregates."""
    if not isinstance(value, Mapping):
        raise ValueError(f"{where}.slices: expected an object of slice -> aggregate, got {type(value).__name__}")
    slices = {}
    for name, aggregate in value.items():
        at = f"{where}.slices.{name}"
        if not isinstance(name, str) or not name or not isinstance(aggregate, Mapping):
            raise ValueError(f"{at}: expected a slice name and an object of its metrics")
        entry = {"n": _count(aggregate.get("n"), at)}
        entry.update({field: _number(aggregate.get(field), f"{at}.{field}") for field in metric_registry.fields()})
        if tiered or aggregate.get("tiers") is not None:
            entry["tiers"], accuracy = _tiers(aggregate.get("tiers"), at)
            if accuracy is not None:
                entry["tier_accuracy"] = accuracy
        slices[name] = entry
    return slices


def result_row(aggregate: Mapping) -> dict:
    """One `results` entry from a runner aggregate row (docs/contracts.md §1 field names)."""
    for key in ("system", "setting"):
        if not isinstance(aggregate.get(key), str) or not aggregate[key]:
            raise ValueError(f"aggregate row {dict(aggregate)!r}: {key!r} must be a non-empty string")
    where = f"{aggregate['system']}/{aggregate['setting']}"
    skipped = aggregate.get("skipped")
    if skipped is not None and (not isinstance(skipped, str) or not skipped.strip()):
        raise ValueError(f"{where}: skipped must be null or the reason, got {skipped!r}")
    n = aggregate.get("n")
    if n is None and skipped is not None:
        n = 0  # a skipped system evaluated no query
    row = {"system": aggregate["system"], "setting": aggregate["setting"], "n": _count(n, where)}
    for field in metric_registry.fields():
        row[field] = _number(aggregate.get(field), f"{where}.{field}")
    row["skipped"] = skipped
    tiered = aggregate["system"] in TIERED_SYSTEMS
    if tiered or aggregate.get("tiers") is not None:
        row["tiers"], accuracy = _tiers(aggregate.get("tiers"), where)
        if accuracy is not None:
            row["tier_accuracy"] = accuracy
    if aggregate.get("slice") is not None:
        row["slice"] = aggregate["slice"]
    if aggregate.get("slices") is not None:
        row["slices"] = _slices(aggregate["slices"], where, tiered)
    return row


def out_document(aggregates: Sequence[Mapping], *, build_id: str, benchmark: str, instances: int,
                 run_id: str | None = None, benchmark_hash: str | None = None,
                 gold_from: str | None = None) -> dict:
    """The whole `--out` object; `benchmark` is the file name the user gave. With `gold_from`, the
    document says where the gold came from and, for "annotations", the caveat in "gold_note"."""
    if isinstance(instances, bool) or not isinstance(instances, int) or instances < 0:
        raise ValueError(f"instances must be a non-negative int, got {instances!r}")
    document = {"build_id": build_id, "benchmark": benchmark, "instances": instances}
    if gold_from is not None:
        document["gold_from"] = gold_from
        document["gold_note"] = gold_note(gold_from)
    document["results"] = [result_row(a) for a in aggregates]
    if run_id is not None:
        document["run_id"] = run_id
    if benchmark_hash is not None:
        document["benchmark_hash"] = benchmark_hash
    return document


def write_out(path: Path | str, document: Mapping) -> Path:
    """Writes the document as UTF-8 JSON (Korean kept readable); the folder is created if needed.
    Written to a temporary name first, so a reader never sees half a file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(document, ensure_ascii=False, indent=2, allow_nan=False) + "\n"
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text, encoding="utf-8")
    partial.replace(path)
    return path
