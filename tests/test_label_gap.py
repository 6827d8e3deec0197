"""proFILL's gap to the true-label system split into annotation and retrieval error, per attribute."""

from __future__ import annotations

import pytest

from advisor.config import load_config
from eval.metrics.label_errors import label_errors, labels_by_url
from eval.reports.label_gap import gap_report, gap_table

SCHEMA = load_config().profile
NONE = dict.fromkeys(SCHEMA)
PROFILE = {"department": "CS", "admission_year": 2021}


def record(**limits):
    return {**NONE, **limits}


def test_a_gold_source_annotated_for_others_blames_that_attribute():
    by_url = {"gold": [(record(admission_year=[2017, 2018]), record(admission_year=[2021, 2022]))]}
    assert label_errors(PROFILE, ["gold"], ["other", "gold"], by_url, SCHEMA) == ["admission_year"]


def test_a_source_above_the_gold_truly_for_others_blames_its_attribute():
    by_url = {"other": [(record(), record(department=["DS"]))],  # annotated for everyone, truly for DS
              "gold": [(record(department=["CS"]), record(department=["CS"]))]}
    assert label_errors(PROFILE, ["gold"], ["other", "gold"], by_url, SCHEMA) == ["department"]
    # below the first gold hit it cost nothing
    assert label_errors(PROFILE, ["gold"], ["gold", "other"], by_url, SCHEMA) == []


def test_right_labels_blame_nothing_and_fragments_follow_the_source_rule():
    by_url = {"page": [(record(department=["CS"]), record(department=["CS"]))],
              "faq#1": [(record(), record(department=["DS"]))]}
    assert label_errors(PROFILE, ["page"], ["page#x", "faq#1"], by_url, SCHEMA) == []
    assert label_errors(PROFILE, ["faq#2"], ["faq#1"], by_url, SCHEMA) == ["department"]  # an FAQ gold is exact


def test_the_gap_splits_into_annotation_and_retrieval_error():
    profill = [{"instance_id": "a", "rank": 2, "label_errors": ["department"]},
               {"instance_id": "b", "rank": None, "label_errors": ["department", "admission_year"]},
               {"instance_id": "c", "rank": 1, "label_errors": []},
               {"instance_id": "d", "rank": 4, "label_errors": []}]
    true = [{"instance_id": "a", "rank": 1}, {"instance_id": "b", "rank": 1}, {"instance_id": "c", "rank": 1},
            {"instance_id": "d", "rank": 2}]
    table = gap_table(profill, true, list(SCHEMA))
    assert table["mrr_profill"] == pytest.approx((0.5 + 0 + 1 + 0.25) / 4)
    assert table["mrr_true_labels"] == pytest.approx((1 + 1 + 1 + 0.5) / 4)
    assert table["annotation_error"] == pytest.approx(table["mrr_true_labels"] - table["mrr_profill"])
    assert table["retrieval_error"] == pytest.approx(1 - table["mrr_true_labels"])
    points = {row["attribute"]: row["mrr_points"] for row in table["attributes"]}
    assert points["department"] == pytest.approx((0.5 + 0.5) / 4) and points["admission_year"] == pytest.approx(0.5 / 4)
    assert table["unattributed"] == pytest.approx(0.25 / 4)  # query d: no label explains it
    # the per-attribute points and the unattributed rest add up to the whole annotation error
    assert sum(points.values()) + table["unattributed"] == pytest.approx(table["annotation_error"])
    report = gap_report({"oracle": table}, {"department": {"exact_match": 0.99, "precision": 0.98, "recall": 0.97}})
    assert "| oracle | department | 2 | 0.250 | 0.990 | 0.980 | 0.970 |" in report.markdown()
    assert "annotation error +0.438" in report.markdown()


def test_labels_by_url_pairs_each_chunk_with_its_truth():
    chunks = [{"chunk_id": "x", "doc_url": "u", "applies_to": record()},
              {"chunk_id": "y", "doc_url": "u", "applies_to": record(department=["CS"])},
              {"chunk_id": "z", "doc_url": "v", "applies_to": record()}]
    found = labels_by_url(chunks, {"x": record(department=["DS"]), "y": record(department=["CS"])})
    assert found == {"u": [(record(), record(department=["DS"])), (record(department=["CS"]), record(department=["CS"]))]}
