"""The real FAQ as an institution (eval/dialogue/realfaq.py): its file is read with clear errors, and
its site is what the project's FAQ parser reads as one document per entry. The message sets keyed
to it are tests/test_sets.py's."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from advisor.config import parse_config
from advisor.ingest.faq import split_faq
from eval.dialogue import realfaq


def fake_entry(entry_id: int, category: str = "Graduation", question: str = "졸업식은 언제 있나요?") -> dict:
    return {"id": entry_id, "category_ko": "졸업", "category_en": category,
            "question_ko": question, "question_en": f"Question {entry_id}?",
            "answers_ko": [{"answer": f"답 {entry_id} <첫 줄>\n둘째 줄", "url": "https://example.ac.kr/x"}],
            "answers_en": [{"answer": f"Answer {entry_id}.", "url": ""}]}


def test_faq_file_errors_name_the_line(tmp_path):
    bad = tmp_path / "faq.jsonl"
    bad.write_text(json.dumps(fake_entry(1)) + "\n" + json.dumps({"id": 2}) + "\n", encoding="utf-8")
    with pytest.raises(realfaq.RealFAQError, match=r"faq\.jsonl:2: missing field"):
        realfaq.load_entries(bad)
    with pytest.raises(realfaq.RealFAQError, match="not found"):
        realfaq.load_entries(tmp_path / "absent.jsonl")


# ---------------------------------------------------------------------------- the site and config

def test_every_entry_is_one_anchored_item_on_its_korean_page_and_the_english_page():
    entries = [fake_entry(7), fake_entry(8, "Scholarships", "장학금?"), fake_entry(9)]
    files = realfaq.render_site(entries)
    base = "http://127.0.0.1:9999/"
    config = parse_config(realfaq.institution_config(Path("/tmp/site"), 9999))
    selectors = config.sources[0].selectors
    found = {}
    for path, data in files.items():
        for item in split_faq(data.decode(), base + path, selectors):
            found[item.url] = item
    for e in entries:
        for lang in realfaq.LANGS:
            url = realfaq.entry_url(base, entries, e["id"], lang)
            assert url.endswith(f"#faq-{e['id']}")
            assert found[url].question == e[f"question_{lang}"]
            assert e[f"answers_{lang}"][0]["answer"].splitlines()[0] in found[url].answer  # escaped, then read back
    assert len(found) == 2 * len(entries)
    assert "faq/index.html" in files and all(p in files["faq/index.html"].decode() for p in files if p != "faq/index.html")
    # the config's document pattern takes the entry pages and leaves the index page a link hub
    pattern = re.compile(config.sources[0].documents[0])
    assert [p for p in files if pattern.search("/" + p)] == [p for p in files if p != "faq/index.html"]
