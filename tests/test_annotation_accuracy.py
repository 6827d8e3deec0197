"""Measuring annotations against a ground-truth manifest (advisor.annotation.accuracy)."""

import json

import pytest

from advisor.annotation.accuracy import (
    error_classes,
    evaluate,
    load_manifest,
    measure,
    normalize_heading,
    truth_for,
    union,
    worst_errors,
)
from advisor.config import parse_config

BASE = "http://site.test"


@pytest.fixture(scope="module")
def config():
    return parse_config({
        "institution": "Test",
        "sources": [{"name": "s", "kind": "html", "seeds": [BASE + "/"]}],
        "profile": {
            "dept": {"type": "categorical", "question": "?", "values": {"A": ["A과"], "B": ["B과"], "C": ["C과"], "D": ["D과"]}},
            "cohort": {"type": "year", "question": "?", "min": 2015, "max": 2024},
        },
    })


def rec(dept=None, cohort=None):
    return {"dept": dept, "cohort": cohort}


@pytest.fixture()
def manifest(tmp_path):
    lines = [
        {"path": "/a/grad.html", "applies_to": rec(["A"], [2019, 2020]), "sections": [
            {"heading": "2019–2020학년도 입학생", "applies_to": rec(["A"], [2019, 2020])},
            {"heading": "이중전공 이수자", "applies_to": rec(["A"], [2020, 2020])},
            {"heading": "2020 학번", "applies_to": rec(["A"], [2020, 2020])},
        ]},
        {"path": "/faq/a.html#q1", "applies_to": rec(["A"]), "sections": []},
        {"path": "/faq/b.html#q4", "applies_to": rec(["B"]), "sections": []},
        {"path": "/about/", "applies_to": rec(), "sections": []},
    ]
    path = tmp_path / "manifest.jsonl"
    path.write_text("\n".join(json.dumps(line, ensure_ascii=False) for line in lines) + "\n\n", encoding="utf-8")
    return load_manifest(path)


# ----------------------------------------------------------------------------- truth lookup


def test_load_manifest_keys_by_path(manifest):
    assert set(manifest) == {"/a/grad.html", "/faq/a.html#q1", "/faq/b.html#q4", "/about/"}


def test_load_manifest_names_a_bad_line(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"path": "/x", "applies_to": {}}\nnot json\n', encoding="utf-8")
    with pytest.raises(ValueError, match="bad.jsonl:2"):
        load_manifest(bad)


def test_source_record_outside_listed_sections(manifest):
    assert truth_for(BASE + "/a/grad.html", ("졸업요건", "공통 사항"), manifest, BASE) == rec(["A"], [2019, 2020])


def test_section_record_with_dash_and_space_normalization(manifest):
    truth = truth_for(BASE + "/a/grad.html", ("졸업요건", "2019 - 2020학년도  입학생"), manifest, BASE)
    assert truth == rec(["A"], [2019, 2020])
    assert normalize_heading("## 2019~2020학년도 입학생") == normalize_heading("2019–2020학년도 입학생")


def test_deepest_listed_heading_wins(manifest):
    truth = truth_for(BASE + "/a/grad.html", ("2019–2020학년도 입학생", "이중전공 이수자"), manifest, BASE)
    assert truth == rec(["A"], [2020, 2020])


def test_faq_entries_by_anchor(manifest):
    assert truth_for(BASE + "/faq/a.html#q1", (), manifest, BASE) == rec(["A"])
    assert truth_for(BASE + "/faq/a.html#q9", (), manifest, BASE) is None


def test_unknown_url_or_other_site_has_no_truth(manifest):
    assert truth_for(BASE + "/nowhere.html", (), manifest, BASE) is None
    assert truth_for("http://other.test/about/", (), manifest, BASE) is None


def test_index_page_equivalence(manifest):
    assert truth_for(BASE + "/about/index.html", (), manifest, BASE) == rec()


def test_consolidated_duplicates_unite_their_truths(manifest):
    truth = truth_for(BASE + "/faq/a.html#q1", (), manifest, BASE, alias_urls=[BASE + "/faq/b.html#q4"])
    assert truth["dept"] == ["A", "B"] and truth["cohort"] is None


def test_union_of_records():
    assert union(rec(["A"], [2015, 2016]), rec(["B"], [2019, 2020])) == rec(["A", "B"], [2015, 2020])
    assert union(rec(["A"], [2015, 2016]), rec(None, None)) == rec(None, None)


# ----------------------------------------------------------------------------- metrics


def by_name(results):
    return {r.attribute: r for r in results}


def test_perfect_predictions(config):
    rows = [(rec(["A"], [2019, 2020]), rec(["A"], [2019, 2020])), (rec(), rec())]
    m = by_name(measure(rows, config))
    assert m["dept"].exact_match == 1.0 and m["dept"].precision == 1.0 and m["dept"].recall == 1.0
    assert m["dept"].n == 2
    assert m["dept"].predicted_null_share == 0.5 == m["dept"].true_null_share


def test_null_for_a_restricted_chunk_costs_precision(config):
    m = by_name(measure([(rec(), rec(["A"]))], config))["dept"]
    assert m.exact_match == 0.0
    assert m.precision == pytest.approx(1 / 4)  # admits A, B, C, D; only A is right
    assert m.recall == 1.0
    assert m.predicted_null_share == 1.0 and m.true_null_share == 0.0


def test_restricting_a_general_chunk_costs_recall(config):
    m = by_name(measure([(rec(None, [2015, 2016]), rec())], config))["cohort"]
    assert m.precision == 1.0
    assert m.recall == pytest.approx(2 / 10)


def test_micro_average_over_chunk_value_pairs(config):
    rows = [
        (rec(["A", "B"]), rec(["A"])),  # 1 hit of 2 predicted, 1 true
        (rec(["C"]), rec(["C", "D"])),  # 1 hit of 1 predicted, 2 true
        (rec(["A"]), rec(["A"])),  # exact
    ]
    m = by_name(measure(rows, config))["dept"]
    assert m.exact_match == pytest.approx(1 / 3)
    assert m.precision == pytest.approx(3 / 4)
    assert m.recall == pytest.approx(3 / 4)


def test_ranges_compare_as_sets_and_full_ranges_equal_null(config):
    m = by_name(measure([(rec(None, [2015, 2024]), rec(None, None))], config))["cohort"]
    assert m.exact_match == 1.0
    m = by_name(measure([(rec(None, [2018, 2020]), rec(None, [2019, 2021]))], config))["cohort"]
    assert m.exact_match == 0.0
    assert m.precision == pytest.approx(2 / 3) and m.recall == pytest.approx(2 / 3)


def test_worst_errors_and_error_classes(config):
    items = [
        ("ok", rec(["A"]), rec(["A"])),
        ("near", rec(None, [2018, 2020]), rec(None, [2018, 2019])),
        ("far", rec(["A"], [2015, 2015]), rec(["B"], None)),
        ("missed", rec(), rec(["C"])),
    ]
    errors = worst_errors(items, config, limit=2)
    assert [e["key"] for e in errors] == ["far", "missed"]
    assert errors[0]["wrong"]["dept"] == {"predicted": ["A"], "true": ["B"]}
    assert json.loads(json.dumps(errors)) == errors
    classes = error_classes(items, config)
    assert classes["dept"] == {"missed": 1, "spurious": 0, "wrong": 1}
    assert classes["cohort"] == {"missed": 0, "spurious": 1, "wrong": 1}


def test_evaluate_a_run(config, manifest):
    from advisor.annotation.model import AnnotationFailure, ChunkAnnotation, ChunkContext

    def context(url, headings=()):
        return ChunkContext(chunk_id=url, text="", doc_url=BASE + url, doc_title="", kind="page",
                            collection="static", heading_path=tuple(headings))

    contexts = [context("/a/grad.html", ["이중전공 이수자"]), context("/about/"), context("/unknown.html"),
                context("/faq/a.html#q1")]
    annotations = [ChunkAnnotation(rec(["A"], [2020, 2020]), ("dept", "cohort")), ChunkAnnotation(rec(["B"]), ("dept",)),
                   ChunkAnnotation(rec(), ()), AnnotationFailure("llm_timeout")]
    report = evaluate(contexts, annotations, manifest, config)
    assert report["chunks"] == 4 and report["scored"] == 2
    dept = next(a for a in report["attributes"] if a["attribute"] == "dept")
    assert dept["exact_match"] == 0.5
    assert report["error_classes"]["dept"] == {"missed": 0, "spurious": 1, "wrong": 0}
    assert [e["key"].split(" | ")[0] for e in report["worst_errors"]] == [BASE + "/about/"]
    json.dumps(report)
