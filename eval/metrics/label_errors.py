"""Which attributes' labels cost proFILL an answer, per query (the runner writes them on the
`profill` rows as `label_errors` when the truth file is present; eval/reports/label_gap.py splits
proFILL's gap to `profill-true-labels` with them).

An attribute is to blame when its annotation, not the truth, decided something the answer depended
on: a gold source the student's value truly admits was annotated for others on that attribute (the
hard filter hid it), or a source ranked above the first gold hit is truly for others on that
attribute but was annotated as admitting the student (it pushed the gold down).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterable, Mapping, Sequence

from advisor.index import fields

__all__ = ["label_errors", "labels_by_url"]

Applicability = Mapping[str, Any]


def _admits(limit, value, attribute) -> bool:
    if limit is None:
        return True
    if fields.is_categorical(attribute):
        return value in limit
    return limit[0] <= value <= limit[1]


def label_errors(profile: Mapping[str, Any], gold_urls: Sequence[str], ranked_urls: Sequence[str],
                 labels_by_url: Mapping[str, Sequence[tuple[Applicability, Applicability]]],
                 schema: fields.Schema, depth: int = 10) -> list[str]:
    """The attributes whose annotation, against the truth, hid a gold source or admitted a source
    ranked above the first gold hit (within `depth` when none was found). `labels_by_url`: per
    source URL, (annotation, truth) of each of its chunks."""
    def is_gold(url: str) -> bool:
        return any(url == g or ("#" not in g and url.split("#", 1)[0] == g) for g in gold_urls)

    first_hit = next((i for i, url in enumerate(ranked_urls) if is_gold(url)), None)
    above = ranked_urls[:first_hit if first_hit is not None else depth]
    blamed = []
    for name, attribute in schema.items():
        value = profile.get(name)
        if value is None:
            continue
        hidden = any(_admits(truth.get(name), value, attribute) and not _admits(annotation.get(name), value, attribute)
                     for url in gold_urls for annotation, truth in labels_by_url.get(url, ()))
        admitted = any(not _admits(truth.get(name), value, attribute) and _admits(annotation.get(name), value, attribute)
                       for url in above for annotation, truth in labels_by_url.get(url, ()))
        if hidden or admitted:
            blamed.append(name)
    return blamed


def labels_by_url(chunks: Iterable[Mapping[str, Any]], truth: Mapping[str, Applicability]) -> dict[str, list]:
    """URL -> [(annotation, truth)] of its chunks (`chunks`: chunk_id, doc_url, applies_to)."""
    found: dict[str, list] = defaultdict(list)
    for chunk in chunks:
        if chunk["chunk_id"] in truth:
            found[chunk["doc_url"]].append((chunk["applies_to"], truth[chunk["chunk_id"]]))
    return dict(found)
