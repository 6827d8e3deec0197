"""How well an annotator's profile records match a ground-truth manifest.

The manifest (JSONL, one line per source) gives each source's ``applies_to`` and, for parts that
apply to different students, ``sections`` [{heading, applies_to}] — a section's record is complete,
text outside listed sections has the source's record. A chunk's truth is therefore its source's
record, unless one of its headings is a listed section (the deepest such heading wins).

Comparison is on allowed-value SETS (null = the whole domain), so a range and a list of the
same students compare equal, and:
- exact match: share of chunks whose sets are equal;
- precision: micro-averaged over (chunk, allowed value) pairs — a chunk left null although it is
  restricted admits students it should not, which costs precision;
- recall: the same over the true pairs — restricting a general chunk hides it from students it
  applies to, which costs recall (the worse error for retrieval: hard filtering drops the chunk).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass
from typing import Iterable, Sequence
from urllib.parse import urlsplit

from advisor.annotation.model import Applicability, ChunkAnnotation, ChunkContext, allowed_values, normalize
from advisor.config import InstitutionConfig


@dataclass(frozen=True)
class AttributeAccuracy:
    attribute: str
    n: int
    exact_match: float
    precision: float
    recall: float
    predicted_null_share: float
    true_null_share: float

    def as_dict(self) -> dict:
        return asdict(self)


# ----------------------------------------------------------------------------- manifest


def load_manifest(path: str | os.PathLike) -> dict[str, dict]:
    """The manifest's records keyed by ``path`` (URL path, FAQ entries ``path#anchor``)."""
    records: dict[str, dict] = {}
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            line = line.strip()
            if not line:
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{number}: not JSON ({exc.msg})") from None
            records[record["path"]] = record
    return records


_DASHES = re.compile(r"[\u2010-\u2015\u2212~〜∼－-]")


def normalize_heading(heading: str) -> str:
    """Headings compare equal across extractors that differ in spacing and dash characters."""
    text = _DASHES.sub("-", heading.strip().lstrip("#").strip())
    text = re.sub(r"\s*-\s*", "-", text)
    return re.sub(r"\s+", " ", text).casefold()


def _manifest_path(doc_url: str, base_url: str) -> str | None:
    base = base_url.rstrip("/")
    if not doc_url.startswith(base):
        return None
    rest = doc_url[len(base):] or "/"
    return rest if rest.startswith("/") else "/" + rest


def _lookup(path: str, manifest: dict[str, dict]) -> dict | None:
    if path in manifest:
        return manifest[path]
    page, _, anchor = path.partition("#")
    # "/x/" and "/x/index.html" name the same page
    for alternative in (page + "index.html" if page.endswith("/") else None,
                        page[: -len("index.html")] if page.endswith("/index.html") else None):
        if alternative:
            key = alternative + ("#" + anchor if anchor else "")
            if key in manifest:
                return manifest[key]
    return None


def _record_truth(record: dict, heading_path: Sequence[str]) -> Applicability:
    sections = {normalize_heading(s["heading"]): s["applies_to"] for s in record.get("sections") or []}
    for heading in reversed(tuple(heading_path)):  # deepest first
        found = sections.get(normalize_heading(heading))
        if found is not None:
            return dict(found)
    return dict(record["applies_to"])


def truth_for(
    doc_url: str,
    heading_path: Sequence[str],
    manifest: dict[str, dict],
    base_url: str,
    alias_urls: Iterable[str] = (),
) -> Applicability | None:
    """The true record of a chunk, or None when its URL is not in the manifest.

    ``alias_urls``: for a consolidated FAQ entry, the URLs of its duplicates; the entry stands for
    all copies, so its truth is the union of theirs (as the annotator's record is).
    """
    path = _manifest_path(doc_url, base_url)
    record = _lookup(path, manifest) if path else None
    if record is None:
        return None
    truth = _record_truth(record, heading_path)
    for alias in alias_urls:
        alias_path = _manifest_path(alias, base_url)
        alias_record = _lookup(alias_path, manifest) if alias_path else None
        if alias_record is not None:
            truth = union(truth, _record_truth(alias_record, heading_path))
    return truth


def union(a: Applicability, b: Applicability) -> Applicability:
    """The students either record admits: categorical values are united, ranges spanned,
    and null (everyone) absorbs anything."""
    out: Applicability = {}
    for name in set(a) | set(b):
        x, y = a.get(name), b.get(name)
        if not x or not y:
            out[name] = None
        elif all(isinstance(v, int) for v in [*x, *y]) and len(x) == 2 and len(y) == 2:
            out[name] = [min(x[0], y[0]), max(x[1], y[1])]
        else:
            out[name] = sorted(set(x) | set(y))
    return out


def base_url_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


# ----------------------------------------------------------------------------- metrics


def measure(rows: Iterable[tuple[Applicability, Applicability]], config: InstitutionConfig) -> list[AttributeAccuracy]:
    """Per-attribute accuracy of (predicted, true) record pairs."""
    rows = [(normalize(p, config), normalize(t, config)) for p, t in rows]
    results = []
    for name, attribute in config.profile.items():
        exact = hits = predicted = true = pred_null = true_null = 0
        for p, t in rows:
            ps, ts = allowed_values(p[name], attribute), allowed_values(t[name], attribute)
            exact += ps == ts
            hits += len(ps & ts)
            predicted += len(ps)
            true += len(ts)
            pred_null += p[name] is None
            true_null += t[name] is None
        n = len(rows)
        results.append(AttributeAccuracy(
            attribute=name,
            n=n,
            exact_match=exact / n if n else 0.0,
            precision=hits / predicted if predicted else 0.0,
            recall=hits / true if true else 0.0,
            predicted_null_share=pred_null / n if n else 0.0,
            true_null_share=true_null / n if n else 0.0,
        ))
    return results


def _distance(p: list | None, t: list | None, attribute) -> float:
    """1 − Jaccard similarity of the allowed sets: how far apart two values are."""
    ps, ts = allowed_values(p, attribute), allowed_values(t, attribute)
    return 1.0 - len(ps & ts) / len(ps | ts) if ps | ts else 0.0


def worst_errors(
    items: Iterable[tuple[str, Applicability, Applicability]],
    config: InstitutionConfig,
    limit: int = 20,
) -> list[dict]:
    """The chunks whose records are furthest from the truth, worst first: ``items`` are
    (key, predicted, true); each result names the wrong attributes with both values. JSON-ready,
    for development and for an asset's metadata."""
    scored = []
    for key, predicted, truth in items:
        p, t = normalize(predicted, config), normalize(truth, config)
        wrong = {
            name: {"predicted": p[name], "true": t[name]}
            for name, attribute in config.profile.items()
            if allowed_values(p[name], attribute) != allowed_values(t[name], attribute)
        }
        if wrong:
            score = sum(_distance(p[n], t[n], config.profile[n]) for n in wrong)
            scored.append({"key": key, "score": round(score, 3), "wrong": wrong})
    scored.sort(key=lambda e: (-e["score"], e["key"]))
    return scored[:limit]


def error_classes(items: Iterable[tuple[str, Applicability, Applicability]], config: InstitutionConfig) -> dict:
    """Counts of errors per attribute and direction: "missed" (predicted null, truly restricted),
    "spurious" (restricted, truly null), "wrong" (both restricted, different)."""
    counts: dict[str, dict[str, int]] = {name: {"missed": 0, "spurious": 0, "wrong": 0} for name in config.profile}
    for _, predicted, truth in items:
        p, t = normalize(predicted, config), normalize(truth, config)
        for name, attribute in config.profile.items():
            if allowed_values(p[name], attribute) == allowed_values(t[name], attribute):
                continue
            kind = "missed" if p[name] is None else "spurious" if t[name] is None else "wrong"
            counts[name][kind] += 1
    return counts


def evaluate(
    contexts: Sequence[ChunkContext],
    annotations: Sequence[ChunkAnnotation],
    manifest: dict[str, dict],
    config: InstitutionConfig,
    base_url: str | None = None,
    worst: int = 20,
) -> dict:
    """Everything above for one annotator run, JSON-ready (an asset's metadata): per-attribute
    accuracy, error classes and the worst errors. Chunks whose document is not in the manifest
    are not scored; `base_url` defaults to each chunk URL's own origin."""
    rows, items = [], []
    for context, annotation in zip(contexts, annotations):
        if not isinstance(annotation, ChunkAnnotation):
            continue  # a failed annotation has no record to score
        truth = truth_for(context.doc_url, context.heading_path, manifest, base_url or base_url_of(context.doc_url),
                          alias_urls=context.alias_urls)
        if truth is None:
            continue
        rows.append((annotation.applies_to, truth))
        where = " > ".join(context.heading_path[-2:])
        items.append((f"{context.doc_url} | {where} | {context.chunk_id}", annotation.applies_to, truth))
    return {
        "chunks": len(contexts),
        "scored": len(rows),
        "attributes": [a.as_dict() for a in measure(rows, config)],
        "error_classes": error_classes(items, config),
        "worst_errors": worst_errors(items, config, limit=worst),
    }
