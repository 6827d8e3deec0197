"""Real FAQ data nobody on this project wrote (hoBIT, Korea University College of Informatics),
rendered as FAQ pages, crawled over HTTP and cleaned: every entry is its own document."""

from __future__ import annotations

import html
import json
import re
from collections import defaultdict
from datetime import date
from pathlib import Path

import pytest

from advisor.config import parse_config
from advisor.ingest.documents import clean_documents
from advisor.ingest.raw_documents import crawl_institution
from advisor.ingest.raw_store import RawStore
from advisor.lakehouse import connect
from tests.crafted_site import CraftedSite

REALDATA = Path(__file__).resolve().parents[2] / "shared" / "realdata" / "hobit-faq.jsonl"
pytestmark = pytest.mark.skipif(
    not REALDATA.exists(), reason=f"real FAQ data not found at {REALDATA} (a clone without ../shared)"
)


def load_entries() -> list[dict]:
    return [json.loads(line) for line in REALDATA.read_text(encoding="utf-8").splitlines() if line.strip()]


def answer_html(answers: list[dict]) -> str:
    parts = []
    for a in answers:
        paragraphs = "".join(f"<p>{html.escape(line)}</p>" for line in a["answer"].splitlines() if line.strip())
        link = f"<p><a href='{html.escape(a['url'])}'>관련 링크</a></p>" if a.get("url", "").startswith("http") else ""
        parts.append(paragraphs + link)
    return "".join(parts)


def render_page(title: str, entries: list[dict], lang: str, with_ids: bool) -> str:
    def anchor(entry: dict) -> str:
        return f" id='faq-{entry['id']}'" if with_ids else ""

    items = "".join(
        f"<div class='faq-item'{anchor(e)}><dt>{html.escape(e[f'question_{lang}'])}</dt><dd>{answer_html(e[f'answers_{lang}'])}</dd></div>"
        for e in entries
    )
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{title}</title></head><body>"
            f"<header><nav>정보대학 홈 | 학사 | 장학 | 공지</nav></header><main><h1>{title}</h1>"
            f"<dl class='faq'>{items}</dl></main><footer>고려대학교 정보대학 행정팀</footer></body></html>")


def norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def test_every_real_faq_entry_becomes_its_own_document(tmp_path):
    entries = load_entries()
    by_category = defaultdict(list)
    for entry in entries:
        by_category[entry["category_en"]].append(entry)
    with CraftedSite() as site:
        pages = {}
        for i, (category, items) in enumerate(sorted(by_category.items())):
            pages[f"/faq/ko-{i}.html"] = items
            site.page(f"/faq/ko-{i}.html", render_page(category, items, "ko", with_ids=True))
        site.page("/faq/en.html", render_page("FAQ (English)", entries, "en", with_ids=False))
        site.page("/faq/", "<html><body><main>" + "".join(f"<a href='{p}'>{p}</a>" for p in [*pages, "/faq/en.html"])
                  + "</main></body></html>")
        config = parse_config({
            "institution": "hoBIT replay",
            "crawl": {"delay_seconds": 0, "retries": 0},
            "sources": [{"name": "faq", "kind": "faq", "seeds": [site.url("/faq/")], "allow": [f"^{site.base}/faq/"],
                         "documents": [r"/faq/.+\.html$"],
                         "selectors": {"faq_item": "dl.faq > div.faq-item", "faq_question": "dt", "faq_answer": "dd"}}],
            "profile": {"grade": {"type": "integer", "question": "몇 학년?", "min": 1, "max": 4}},
        })
        with connect(tmp_path) as con:
            crawl_institution(config, con, RawStore(tmp_path), "run-1")
            report = clean_documents(config, con, RawStore(tmp_path), "run-1", date(2026, 1, 1))
            docs = {r["url"]: r for r in con.sql("SELECT * FROM documents").pl().to_dicts()}

    assert not report.failures
    for path, items in pages.items():
        for item in items:
            doc = docs[site.url(f"{path}#faq-{item['id']}")]
            assert doc["kind"] == "faq" and doc["status"] == "active"
            assert doc["question"] == norm(item["question_ko"])
            for answer in item["answers_ko"]:
                for line in answer["answer"].splitlines():
                    if line.strip():
                        assert norm(line) in norm(doc["answer"]), (item["id"], line)
            assert "행정팀" not in doc["text"] or "행정팀" in item["answers_ko"][0]["answer"]  # no footer
    english = [d for d in docs.values() if d["source_url"] == site.url("/faq/en.html")]
    assert len(english) == len(entries)
    assert {d["url"] for d in english} == {site.url(f"/faq/en.html#faq-{n}") for n in range(1, len(entries) + 1)}
    assert all(d["lang"] == "en" for d in english)
    assert len(docs) == 2 * len(entries) == 122
