"""The annotation stage over a real lakehouse: incremental chunking with the token cache, annotation
storage (with failures never guessed), and URAG-D augmentations."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from advisor.annotation.model import AnnotationFailure, ChunkAnnotation, needs_of, normalize
from advisor.annotation.stage import annotate_chunks, load_annotations
from advisor.chunking import augment
from advisor.chunking.stage import build_chunks
from advisor.config import load_config
from advisor.ingest.documents import doc_id
from advisor.lakehouse import connect, insert_rows

CONFIG = load_config()
NOW = datetime(2026, 6, 1, tzinfo=timezone.utc)


def document(url: str, title: str, text: str, kind: str = "page", status: str = "active", breadcrumbs=("홈", "학사")):
    import hashlib

    return {
        "doc_id": doc_id(url), "url": url, "source_url": url, "source": "pages", "kind": kind,
        "collection": "dynamic" if kind == "notice" else "static", "status": status, "title": title,
        "breadcrumbs": list(breadcrumbs), "headings": [], "text": text,
        "text_hash": hashlib.sha256(text.encode()).hexdigest(), "content_hash": "0" * 64, "http_status": 200,
        "fetched_at": NOW, "crawl_run_id": "crawl", "run_id": "clean", "cleaner_version": "v",
    }


LONG = "\n\n".join(f"## {n}장\n\n" + " ".join(f"{n}장의 {i}번째 문장은 졸업 요건을 설명합니다." for i in range(12))
                   for n in range(1, 4))
DOCS = [
    document("http://x/cs/grad-2021.html", "컴퓨터학과 2021학번 졸업요건", "# 컴퓨터학과 2021학번 졸업요건\n\n전공 72학점을 이수해야 합니다."),
    document("http://x/regulations.html", "학사 규정", f"# 학사 규정\n\n{LONG}"),
    document("http://x/notice-1.html", "복학생 장학금 안내", "# 복학생 장학금 안내\n\n복학생을 대상으로 장학금을 지급합니다.", kind="notice"),
]


@pytest.fixture
def con(tmp_path):
    with connect(tmp_path) as con:
        insert_rows(con, "documents", DOCS)
        yield con


def chunk_ids(con, url):
    return [r[0] for r in con.execute("SELECT chunk_id FROM chunks WHERE doc_url = ? ORDER BY position", [url]).fetchall()]


def test_chunks_are_incremental_and_tokens_cached(con):
    first = build_chunks(CONFIG, con, "run-1")
    assert first.documents_chunked == 3 and first.tokens_computed == first.chunks_added > 3
    assert max(len(r[0]) for r in con.execute("SELECT text FROM chunks").fetchall()) <= 800
    kept = chunk_ids(con, "http://x/cs/grad-2021.html")

    again = build_chunks(CONFIG, con, "run-2")
    assert again.documents_chunked == 0 and again.chunks_added == 0 and again.tokens_computed == 0

    changed = dict(DOCS[1], text=DOCS[1]["text"] + "\n\n## 부칙\n\n이 규정은 2026년 3월 1일부터 시행한다.", text_hash="new")
    con.execute("DELETE FROM documents WHERE url = ?", [changed["url"]])
    insert_rows(con, "documents", [changed])
    con.execute("UPDATE documents SET status = 'expired' WHERE url = 'http://x/notice-1.html'")
    third = build_chunks(CONFIG, con, "run-3")
    assert third.documents_chunked == 1 and third.documents_dropped == 1
    assert chunk_ids(con, "http://x/cs/grad-2021.html") == kept  # untouched documents keep their ids
    assert chunk_ids(con, "http://x/notice-1.html") == []
    assert third.tokens_cached > 0  # the unchanged sections of the changed document were not re-tokenized
    indexed = con.execute("SELECT indexed_text, keywords FROM chunks WHERE doc_url = 'http://x/cs/grad-2021.html'").fetchone()
    assert indexed[0].startswith("학사 | 컴퓨터학과 2021학번 졸업요건") and indexed[1]


class ScriptedAnnotator:
    """An annotator whose answers the test decides: one chunk fails."""

    name, version = "scripted", "v1"

    def __init__(self, fail_on: str):
        self.fail_on, self.calls = fail_on, 0

    def annotate(self, contexts):
        self.calls += len(contexts)
        out = []
        for c in contexts:
            if self.fail_on in c.doc_url:
                out.append(AnnotationFailure("llm_invalid_output", "never valid"))
            else:
                applies = normalize({"department": ["CS"], "admission_year": [2021, 2021]}, CONFIG)
                out.append(ChunkAnnotation(applies, needs_of(applies)))
        return out


def test_annotations_are_stored_incrementally_and_failures_not_guessed(con):
    build_chunks(CONFIG, con, "run-1")
    annotator = ScriptedAnnotator(fail_on="notice")
    report = annotate_chunks(CONFIG, con, annotator, "run-1")
    n_chunks = con.execute("SELECT count(*) FROM chunks").fetchone()[0]
    assert report.annotated == n_chunks - 1 and len(report.failures) == 1
    assert report.failures[0]["reason"] == "llm_invalid_output"
    stored = load_annotations(con, "scripted", CONFIG)
    notice = chunk_ids(con, "http://x/notice-1.html")[0]
    assert notice not in stored  # a failure leaves no annotation, not a guess
    some = stored[chunk_ids(con, "http://x/cs/grad-2021.html")[0]]
    assert some["department"] == ["CS"] and some["admission_year"] == [2021, 2021] and some["grade"] is None
    rows = con.execute("SELECT attribute, needed FROM chunk_annotations WHERE chunk_id = ? ORDER BY attribute",
                       [chunk_ids(con, "http://x/cs/grad-2021.html")[0]]).fetchall()
    assert dict(rows) == {a: a in {"department", "admission_year"} for a in CONFIG.profile}

    annotator.calls = 0
    again = annotate_chunks(CONFIG, con, annotator, "run-2")
    assert annotator.calls == 1 and again.unchanged == n_chunks - 1  # only the failed chunk is retried


def test_extractive_augmentation_stored_beside_the_chunk(con):
    build_chunks(CONFIG, con, "run-1")
    result = augment.build_augmentations(con, augment.ExtractiveAugmenter(), "run-1")
    n_chunks = con.execute("SELECT count(*) FROM chunks").fetchone()[0]
    assert result["augmented"] == n_chunks
    summary, text = con.execute(
        "SELECT a.summary, a.augmented_text FROM chunk_augmentations a JOIN chunks c USING (chunk_id) "
        "WHERE c.doc_url = 'http://x/notice-1.html'").fetchone()
    assert summary == "복학생 장학금 안내: 복학생을 대상으로 장학금을 지급합니다."
    assert text.startswith(summary + "\n")
    assert augment.build_augmentations(con, augment.ExtractiveAugmenter(), "run-2")["augmented"] == 0


def test_the_rules_annotator_reads_the_build_for_siblings(con):
    from advisor.annotation.rules import RulesAnnotator

    text = "# 실습실 이용 안내 ({y})\n\n실습실은 평일 9시부터 18시까지 열며, 이용 전 안전 교육을 받아야 합니다."
    siblings = [document(f"http://x/lab.php?y={y}", f"실습실 이용 안내 ({y})", text.format(y=y)) for y in (2019, 2022)]
    insert_rows(con, "documents", siblings)
    build_chunks(CONFIG, con, "run-1")
    annotator = RulesAnnotator(CONFIG)
    first = annotate_chunks(CONFIG, con, annotator, "run-1")
    stored = load_annotations(con, "rules", CONFIG)
    assert stored[chunk_ids(con, "http://x/lab.php?y=2019")[0]]["admission_year"] == [2019, 2019]
    assert stored[chunk_ids(con, "http://x/lab.php?y=2022")[0]]["admission_year"] == [2022, 2022]

    insert_rows(con, "documents", [document("http://x/lab.php?y=2024", "실습실 이용 안내 (2024)", text.format(y=2024))])
    build_chunks(CONFIG, con, "run-2")
    again = annotate_chunks(CONFIG, con, RulesAnnotator(CONFIG), "run-2")
    assert again.version != first.version and again.unchanged == 0  # a new sibling: every chunk read again
    assert load_annotations(con, "rules", CONFIG)[chunk_ids(con, "http://x/lab.php?y=2024")[0]]["admission_year"] == [2024, 2024]
