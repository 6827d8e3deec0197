"""proFILL's gap to `profill-true-labels`, split into what annotation errors cost and what retrieval
still misses with perfect labels, per profile attribute (with the truth file present).

Per query, an attribute is to blame when its annotation, not the truth, decided something the
answer depended on: a gold source the student's value truly admits was annotated for others on
that attribute (the hard filter hid it), or a source ranked above the first gold hit is truly for
others on that attribute but was annotated as admitting the student (it pushed the gold down).

    MRR(true labels) - MRR(profill)   annotation error (spread over the attributes to blame)
    1 - MRR(true labels)              retrieval error (what perfect labels leave)
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterable, Mapping, Sequence

from advisor.index import fields
from eval.report_tables import Column, ReportTable, text_columns

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


def gap_table(profill: Sequence[Mapping], true_labels: Sequence[Mapping], schema_order: Sequence[str]) -> dict:
    """From the per-query rows of profill and profill-true-labels in ONE setting (keys instance_id,
    rank, label_errors): the totals and, per attribute, the MRR points its annotation errors cost."""
    rr = {row["instance_id"]: 1.0 / row["rank"] if row.get("rank") else 0.0 for row in true_labels}
    n = len(profill)
    if not n or not rr:
        return {"n": 0, "attributes": []}
    points: dict[str, float] = defaultdict(float)
    queries: dict[str, int] = defaultdict(int)
    unattributed = 0.0
    mrr = 0.0
    for row in profill:
        own = 1.0 / row["rank"] if row.get("rank") else 0.0
        mrr += own
        lost = rr.get(row["instance_id"], 0.0) - own
        blamed = list(row.get("label_errors") or [])
        for name in blamed:
            queries[name] += 1
            points[name] += lost / len(blamed) / n
        if not blamed:
            unattributed += lost / n
    true_mrr = sum(rr.get(row["instance_id"], 0.0) for row in profill) / n
    return {
        "n": n, "mrr_profill": mrr / n, "mrr_true_labels": true_mrr,
        "annotation_error": true_mrr - mrr / n, "retrieval_error": 1.0 - true_mrr, "unattributed": unattributed,
        "attributes": [{"attribute": name, "queries": queries.get(name, 0), "mrr_points": points.get(name, 0.0)}
                       for name in schema_order],
    }


def gap_report(by_setting: Mapping[str, dict], accuracy: Mapping[str, Mapping[str, float]]) -> ReportTable:
    """The report section: per setting and attribute the MRR points its annotation errors cost,
    beside the annotator's accuracy on it (`accuracy`: attribute -> exact_match / precision /
    recall); the split of each setting's gap in the notes."""
    rows, notes = [], []
    for setting, table in by_setting.items():
        if not table["n"]:
            continue
        notes.append(f"{setting} ({table['n']} questions): proFILL MRR {table['mrr_profill']:.3f}, with the true labels "
                     f"{table['mrr_true_labels']:.3f}: annotation error {table['annotation_error']:+.3f}, retrieval "
                     f"error {table['retrieval_error']:.3f} (what perfect labels leave); {table['unattributed']:+.3f} "
                     "of the gap is on questions no attribute's label explains.")
        for row in table["attributes"]:
            rows.append({"setting": setting, **row, **accuracy.get(row["attribute"], {})})
    columns = (*text_columns("setting", "attribute"), Column("questions with a label error", "queries", "int"),
               Column("MRR points lost", "mrr_points"), Column("annotation exact match", "exact_match"),
               Column("precision", "precision"), Column("recall", "recall"))
    return ReportTable(columns, tuple(rows), tuple(notes),
                       empty="No profill-true-labels results in this run (the config names no truth file).")
