"""The held-out real-FAQ dialogue benchmark (eval/dialogue/realfaq.py): its question set is keyed to
the FAQ file, its site is what the project's FAQ parser reads as one document per entry, and the
harness runs end to end. What must hold whatever the system's quality; never its quality targets."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from advisor.config import parse_config
from advisor.ingest.faq import split_faq
from eval.dialogue import realfaq
from eval.dialogue.runner import Result

REALDATA = Path(__file__).resolve().parents[2] / "shared" / "realdata" / "hobit-faq.jsonl"
needs_realdata = pytest.mark.skipif(
    not REALDATA.exists(), reason=f"real FAQ data not found at {REALDATA} (a clone without ../shared)")


def fake_entry(entry_id: int, category: str = "Graduation", question: str = "졸업식은 언제 있나요?") -> dict:
    return {"id": entry_id, "category_ko": "졸업", "category_en": category,
            "question_ko": question, "question_en": f"Question {entry_id}?",
            "answers_ko": [{"answer": f"답 {entry_id} <첫 줄>\n둘째 줄", "url": "https://example.ac.kr/x"}],
            "answers_en": [{"answer": f"Answer {entry_id}.", "url": ""}]}


def squash(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.lower())


# ---------------------------------------------------------------------------- the question set

@needs_realdata
def test_question_set_is_keyed_to_the_faq_file_and_in_students_words():
    entries = realfaq.load_entries(REALDATA)
    questions = realfaq.load_questions(entries)
    by_id = {e["id"]: e for e in entries}
    faq = [q for q in questions if q["category"] == "faq"]
    assert len(faq) == 50 and len({q["entry_id"] for q in faq}) == 50
    assert all(q["entry_id"] in by_id for q in faq)
    assert sum(q["lang"] == "en" for q in faq) == 5
    assert {q["register"] for q in faq} >= {"polite", "banmal", "typo", "nospace", "emoji", "english"}
    for q in faq:  # their own words: never the entry's question, even ignoring spaces and punctuation
        entry = by_id[q["entry_id"]]
        assert squash(q["text"]) not in {squash(entry["question_ko"]), squash(entry["question_en"])}, q["id"]
    outside = [q for q in questions if q["category"] == "out_of_scope"]
    assert len(outside) == 10 and all(q["intent"] is None and q["behaviour"] == "fallback" for q in outside)
    assert sorted(q["category"] for q in questions if q["category"] in ("greeting", "ability")) == ["ability"] * 5 + [
        "greeting"] * 5


def test_question_set_naming_an_unknown_entry_is_refused(tmp_path):
    rows = [json.loads(line) for line in realfaq.QUESTIONS.read_text(encoding="utf-8").splitlines() if line.strip()]
    known = [fake_entry(q["entry_id"]) for q in rows if q["entry_id"] is not None]
    assert realfaq.load_questions(known)  # the set itself is consistent
    with pytest.raises(realfaq.RealFAQError, match="not in the FAQ file"):
        realfaq.load_questions(known[1:])  # one entry missing from the FAQ
    duplicated = tmp_path / "q.jsonl"
    rows[1] = {**rows[1], "entry_id": rows[0]["entry_id"]}
    duplicated.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), encoding="utf-8")
    with pytest.raises(realfaq.RealFAQError, match="second question"):
        realfaq.load_questions(known, duplicated)


def test_development_set_is_keyed_to_the_faq_and_apart_from_the_held_out_set(tmp_path):
    rows = [json.loads(line) for line in realfaq.DEV_QUESTIONS.read_text(encoding="utf-8").splitlines() if line.strip()]
    known = [fake_entry(e) for e in sorted({q["entry_id"] for q in rows if q["entry_id"] is not None})]
    loaded = realfaq.load_questions(known, realfaq.DEV_QUESTIONS)  # no held-out category counts asked of it
    assert {q["category"] for q in loaded} == {"faq", "out_of_scope", "greeting", "ability"}
    assert {q["lang"] for q in loaded if q["category"] == "faq"} == {"ko", "en"}  # one entry may be asked in both
    realfaq.check_disjoint()  # the shipped sets share no question

    held_out = realfaq.QUESTIONS.read_text(encoding="utf-8").splitlines()[0]
    leaked = tmp_path / "dev.jsonl"  # a held-out question, respaced and re-punctuated, in a development set
    text = json.loads(held_out)["text"]
    leaked.write_text(json.dumps({**rows[0], "text": " ".join(text.replace("?", "")) + "!"}, ensure_ascii=False),
                      encoding="utf-8")
    with pytest.raises(realfaq.RealFAQError, match="also in the held-out set"):
        realfaq.check_disjoint(leaked)
    assert realfaq.results_file(realfaq.DEV_QUESTIONS) != realfaq.results_file(realfaq.QUESTIONS)


def test_faq_file_errors_name_the_line(tmp_path):
    bad = tmp_path / "faq.jsonl"
    bad.write_text(json.dumps(fake_entry(1)) + "\n" + json.dumps({"id": 2}) + "\n", encoding="utf-8")
    with pytest.raises(realfaq.RealFAQError, match=r"faq\.jsonl:2: missing field"):
        realfaq.load_entries(bad)
    with pytest.raises(realfaq.RealFAQError, match="not found"):
        realfaq.load_entries(tmp_path / "absent.jsonl")
    assert realfaq.main([str(tmp_path / "absent.jsonl")]) == 2


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


def test_messages_carry_the_entry_of_the_questions_language_as_gold():
    entries = [fake_entry(7), fake_entry(8)]
    questions = [
        {"id": "faq-7", "entry_id": 7, "text": "졸업식 언제야", "category": "faq", "register": "banmal", "lang": "ko",
         "intent": "faq", "behaviour": "faq_entry"},
        {"id": "faq-8", "entry_id": 8, "text": "when?", "category": "faq", "register": "english", "lang": "en",
         "intent": "faq", "behaviour": "faq_entry"},
        {"id": "oos-01", "entry_id": None, "text": "맛집?", "category": "out_of_scope", "register": "banmal",
         "lang": "ko", "intent": None, "behaviour": "fallback"},
    ]
    base = "http://127.0.0.1:1/"
    ko, en, outside = realfaq.messages(questions, entries, base)
    assert ko.faq_source == base + "faq/ko-graduation.html#faq-7" and ko.gold_from == realfaq.GOLD_ENTRY
    assert en.faq_source == base + "faq/en.html#faq-8"
    assert outside.faq_source is None and outside.gold_from == realfaq.GOLD_HAND and outside.intent is None


def result(category: str, tier: str, expected: str | None = None, cited: str | None = None, asked: int = 0,
           routed: str | None = None, verbatim: bool = False) -> Result:
    return Result(message_id=f"{category}-{tier}-{cited}", text="x", category=category, register="polite",
                  expected_intent=None, expected_behaviour="", gold_from="", expected_faq=expected,
                  routed_intent=routed, reply_kind="answer", tier=tier, answer_method=None,
                  faq_cited=cited if tier == "faq" else None, first_citation=cited, verbatim=verbatim,
                  questions_asked=asked, seconds=0.0)


def test_headline_counts_score_what_the_student_got():
    rows = [
        result("faq", "faq", "u#1", "u#1", verbatim=True),
        result("faq", "faq", "u#2", "u#3"),  # the FAQ tier, but the wrong entry
        result("faq", "documents", "u#4", "u#4", asked=2),  # right page first, not the FAQ tier
        result("out_of_scope", "documents", cited="u#5"),
        result("out_of_scope", "fallback"),
        result("greeting", "template", routed="greeting"),
        result("ability", "template", routed="smalltalk"),
    ]
    counts = {what.strip(): (hits, n) for what, hits, n in realfaq.headline_counts(rows)}
    assert counts["FAQ: right entry cited first"] == (2, 3)
    assert counts["FAQ: answered verbatim by the FAQ tier"] == (1, 3)
    assert counts["FAQ: answered by the FAQ tier (any entry)"] == (2, 3)
    assert counts["out-of-scope answered as if found (faq/documents)"] == (1, 2)
    assert counts["greeting/meta routed to their template"] == (1, 2)
    assert counts["ability"] == (0, 1)
    assert counts["messages with a profile question: faq"] == (1, 3)
    assert counts["profile questions asked in all"] == (2, 7)


# ---------------------------------------------------------------------------- end to end

@pytest.mark.e2e
@needs_realdata
def test_harness_runs_end_to_end_on_the_real_faq(tmp_path):
    entries = realfaq.load_entries(REALDATA)
    questions = realfaq.load_questions(entries)
    outcome = realfaq.run_benchmark(REALDATA, tmp_path)

    assert [r.message_id for r in outcome.results] == [q["id"] for q in questions]  # each asked once, in order
    assert all(r.tier in ("template", "faq", "documents", "fallback") for r in outcome.results)  # all answered
    metrics = {(m["metric"], m["scope"]): m for m in outcome.metrics}
    assert metrics[("messages", "all")]["n"] == len(questions) == 70
    assert metrics[("faq_right_entry_first", "all")]["n"] == metrics[("faq_verbatim", "all")]["n"] == 50
    assert metrics[("out_of_scope_false_answer_rate", "all")]["n"] == 10
    assert metrics[("template_intents_asked_share", "all")]["n"] == 10
    assert all(m["value"] is None or 0 <= m["value"] <= 1 for m in outcome.metrics if m["metric"] != "messages")

    # the gold came from the jsonl: each FAQ question's expected entry is its id, on a page of the site
    by_question = {q["id"]: q for q in questions}
    site = set(realfaq.render_site(entries))
    for r in outcome.results:
        q = by_question[r.message_id]
        if q["category"] == "faq":
            page, anchor = r.expected_faq.split("#")
            assert anchor == f"faq-{q['entry_id']}" and page.split("/", 3)[3] in site
            assert r.gold_from == realfaq.GOLD_ENTRY
        else:
            assert r.expected_faq is None and r.gold_from == realfaq.GOLD_HAND

    rows = [json.loads(line) for line in (tmp_path / realfaq.RESULTS_FILE).read_text(encoding="utf-8").splitlines()]
    assert [row["message_id"] for row in rows] == [r.message_id for r in outcome.results]
    assert outcome.build_id and outcome.seconds["dialogue"] > 0
    assert "| faq_right_entry_first | all |" in realfaq.report(outcome)
