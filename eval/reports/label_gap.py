"""proFILL's gap to `profill-true-labels`, split into what annotation errors cost and what retrieval
still misses with perfect labels, per profile attribute (with the truth file present).

Per query, the attributes to blame are the rows' `label_errors` (eval/metrics/label_errors.py).

    MRR(true labels) - MRR(profill)   annotation error (spread over the attributes to blame)
    1 - MRR(true labels)              retrieval error (what perfect labels leave)
"""

from __future__ import annotations

from collections import defaultdict
from typing import Mapping, Sequence

from eval.reports.table import Column, ReportTable, text_columns


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
