"""The URAG FAQ tier: seed entries from an index build, the store (write / load / search with hard
filtering), rule paraphrases, the threshold sweep and its calibration on the demo build, and the
URAG-F enrichment through a real local OpenAI-protocol server."""

from __future__ import annotations

import json
from collections import Counter

import duckdb
import numpy as np
import polars as pl
import pytest

from advisor.chunking.token_cache import tokenizer_for
from advisor.config import load_config
from advisor.faq.calibrate import (
    MIN_PRECISION,
    MRR_TOLERANCE,
    PAPER_THRESHOLD,
    CalibrationQuery,
    SweepPoint,
    answer_stated,
    calibrate,
    choose,
    choose_precise,
    document_queries,
    evaluate,
    student_for,
    sweep,
    threshold_grid,
)
from advisor.faq.enrichment import (
    PAIRS_SCHEMA_NAME,
    PAIRS_TASK,
    PARAPHRASE_SCHEMA_NAME,
    PARAPHRASE_TASK,
    FAQEnricher,
    SourceChunk,
    source_chunks,
)
from advisor.faq.paraphrase import paraphrases, question_forms
from advisor.faq.store import (
    FAQ_KIND,
    FAQEntry,
    FAQMatch,
    FAQStore,
    faq_entries_from_build,
    union_applies_to,
    write_faq_store,
)
from advisor.index import fields
from advisor.index.store import latest_build_dir, load_build
from advisor.llm.client import LLMClient
from advisor.retrieval import Retriever, conflicts, known_profile
from tests.hashing_embedder import HashingEmbedder
from tests.openai_server import malformed, reply, settings_for

SCHEMA = load_config().profile


# --------------------------------------------------------------------------- shared objects (built once)

@pytest.fixture(scope="module")
def build(demo_warehouse):
    return load_build(latest_build_dir(demo_warehouse.builds))


@pytest.fixture(scope="module")
def tokenize(demo_warehouse):
    return tokenizer_for(demo_warehouse.config()).content_morphemes


@pytest.fixture(scope="module")
def seeds(build):
    return faq_entries_from_build(build)


@pytest.fixture(scope="module")
def store_dir(build, seeds, tokenize, tmp_path_factory):
    directory = tmp_path_factory.mktemp("faq_store")
    counts = write_faq_store(directory, seeds, build.embedder, tokenize)
    assert counts["entries"] == counts["seed"] == len(seeds)
    return directory


@pytest.fixture(scope="module")
def store(store_dir, build):
    return FAQStore.load(store_dir, build.schema)


@pytest.fixture(scope="module")
def retriever(build, tokenize):
    return Retriever(build, tokenize)


@pytest.fixture(scope="module")
def calibration(build, store, tokenize, retriever):
    # 300 queries, not the build's 800: the same sweep and choice, in a third of the time
    return calibrate(build, store, tokenize, retriever, seed=0, max_queries=300)


def faq_chunks(build) -> pl.DataFrame:
    return pl.concat([c.chunks for c in build.collections.values()]).filter(pl.col("kind") == "faq")


def embed(build, tokenize, text: str) -> np.ndarray:
    return build.embedder.embed_queries([text], tokenize([text]))[0]  # a question, as the engine embeds one


# --------------------------------------------------------------------------- seed entries

def test_one_seed_entry_per_faq_document_with_the_answer_verbatim(build, seeds):
    chunks = faq_chunks(build)
    assert len(seeds) == chunks["doc_url"].n_unique() > 0
    assert len({e.entry_id for e in seeds}) == len(seeds)
    texts = dict(zip(chunks["chunk_id"].to_list(), chunks["text"].to_list()))
    titles = dict(zip(chunks["doc_url"].to_list(), chunks["title"].to_list()))
    for entry in seeds:
        assert entry.origin == "seed" and entry.source_url == entry.entry_id
        assert entry.question == titles[entry.source_url].strip()
        own = [texts[c] for c in entry.chunk_ids]
        assert own and all(t.startswith(entry.question) for t in own)
        # verbatim: every line of the answer is text of the entry's own chunks, and nothing else
        for line in entry.answer.split("\n"):
            assert any(line in t for t in own), (entry.entry_id, line)
        assert not entry.answer.startswith(entry.question)
        if len(own) == 1:
            assert own[0] == entry.question + "\n\n" + entry.answer


def test_an_entry_applies_to_the_union_of_its_chunks_and_null_wins():
    categorical = next(n for n, a in SCHEMA.items() if fields.is_categorical(a))
    ranged = next(n for n, a in SCHEMA.items() if not fields.is_categorical(a))
    values = sorted(SCHEMA[categorical].values)
    low, high = SCHEMA[ranged].min, SCHEMA[ranged].max
    a = {categorical: [values[0]], ranged: [low, low + 1]}
    b = {categorical: [values[-1]], ranged: [high - 1, high]}
    union = union_applies_to([a, b], SCHEMA)
    assert union[categorical] == sorted({values[0], values[-1]})
    assert union[ranged] == [low, high]
    assert union_applies_to([a, {categorical: None, ranged: [low, low]}], SCHEMA)[categorical] is None
    assert all(v is None for v in union_applies_to([], SCHEMA).values())


def test_write_and_load_round_trip(store, seeds, store_dir, build):
    assert store.entries == seeds
    assert store.vectors.shape == (len(seeds), build.embedder.dim)
    meta = json.loads((store_dir / "faq.json").read_text(encoding="utf-8"))
    assert meta["embedder_version"] == build.embedder.version and meta["counts"]["seed"] == len(seeds)
    store.check_embedder(build.embedder)
    with pytest.raises(ValueError, match="embedded with"):
        store.check_embedder(HashingEmbedder(8))


def test_an_exact_seed_question_scores_one_and_ranks_first(store, seeds, build, tokenize):
    by_question = Counter(e.question for e in seeds)
    unique = [e for e in seeds if by_question[e.question] == 1]
    for entry in unique[:: max(1, len(unique) // 25)]:
        student = student_for(entry.applies_to, build.schema)
        matches = store.search(embed(build, tokenize, entry.question), student, k=20)
        assert matches[0].entry == entry and matches[0].rank == 1
        assert matches[0].score == pytest.approx(1.0, abs=1e-4)
        assert [m.rank for m in matches] == list(range(1, len(matches) + 1))
        assert all(a.score >= b.score for a, b in zip(matches, matches[1:]))


def test_hard_filtering_hides_entries_written_for_another_group(store, build, tokenize):
    # an entry restricted on a categorical attribute, and a value of that attribute it excludes
    # (department in the demo college, but found from the schema, not by name)
    found = None
    for name, attribute in build.schema.items():
        if not fields.is_categorical(attribute):
            continue
        for entry in store.entries:
            allowed = entry.applies_to.get(name)
            others = [v for v in attribute.values if allowed and v not in allowed]
            if others:
                found = (name, entry, allowed[0], others[0])
                break
        if found:
            break
    assert found, "the demo FAQ has entries restricted on a categorical attribute"
    name, entry, inside, outside = found
    vector = embed(build, tokenize, entry.question)
    everything = len(store)

    def ids(profile, hard=True):
        return {m.entry.entry_id for m in store.search(vector, profile, k=everything, hard=hard)}

    assert entry.entry_id in ids({name: inside})
    assert entry.entry_id not in ids({name: outside})
    assert entry.entry_id in ids({name: outside}, hard=False)
    # an alias or button label means the same student as the canonical value
    label = build.schema[name].label(outside)
    assert ids({name: label}) == ids({name: outside})
    # the rule is advisor/retrieval's: what stays is exactly what does not conflict
    known = known_profile({name: outside}, build.schema)
    assert ids({name: outside}) == {e.entry_id for e in store.entries if not conflicts(e.applies_to, known, build.schema)}


def test_bad_input_gets_clear_errors(store, tmp_path, build):
    with pytest.raises(ValueError, match="dimensions"):
        store.search(np.ones(3), {})
    with pytest.raises(FileNotFoundError, match="not an FAQ store"):
        FAQStore.load(tmp_path, build.schema)
    entry = store.entries[0]
    with pytest.raises(ValueError, match="unique"):
        write_faq_store(tmp_path, [entry, entry], HashingEmbedder(8), lambda texts: [t.split() for t in texts])
    with pytest.raises(ValueError, match="origin"):
        FAQEntry("x", "q", "a", "u", (), {}, origin="invented")
    assert store.search(np.ones(build.embedder.dim), {}, k=0) == []


# --------------------------------------------------------------------------- paraphrases

GENERIC_QUESTIONS = (
    "휴학 신청 방법은 어떻게 되나요?",
    "졸업하려면 전공을 몇 학점 들어야 하나요?",
    "교환학생 지원 조건이 궁금합니다.",
    "계절학기 수강은 최대 몇 학점까지 가능한가요?",
    "등록금 납부 기간을 놓쳤어요.",
    "How do I apply for a leave of absence?",
)


@pytest.mark.parametrize("question", GENERIC_QUESTIONS)
def test_paraphrases_are_deterministic_distinct_and_not_the_original(question):
    whitespace = lambda texts: [t.replace("?", "").split() for t in texts]  # noqa: E731
    first = paraphrases(question, 8, seed=0, tokenize=whitespace)
    assert first == paraphrases(question, 8, seed=0, tokenize=whitespace)
    assert len(first) == 8
    assert all(p.strip() for p in first)
    normal = lambda t: "".join(ch for ch in t if ch.isalnum()).lower()  # noqa: E731
    assert normal(question) not in {normal(p) for p in first}
    assert len({normal(p) for p in first}) == len(first)
    assert paraphrases(question, 8, seed=1, tokenize=whitespace) != first
    assert paraphrases(question, 3, seed=0) and paraphrases(question, 0) == []


def test_paraphrase_rules_cover_endings_synonyms_keywords_and_fillers(tokenize):
    question = "휴학 신청 방법은 어떻게 되나요?"
    every = paraphrases(question, 200, seed=0, tokenize=tokenize)
    assert any(p.endswith(("알려주세요.", "알려주세요")) for p in every)
    assert any("궁금합니다" in p for p in every)
    assert any("접수" in p for p in every) and any("절차" in p for p in every)
    assert any(p.startswith(("혹시 ", "그런데 ")) for p in every)
    assert "휴학 신청 방법" in every  # the keyword form: content morphemes, no grammar words
    assert any("할 수 있나요" in p for p in paraphrases("복학 신청이 가능한가요?", 200, tokenize=tokenize))


def test_every_demo_seed_question_gets_paraphrases(seeds, tokenize):
    for entry in seeds:
        assert paraphrases(entry.question, 2, seed=0, tokenize=tokenize), entry.question


def test_bad_paraphrase_input():
    with pytest.raises(ValueError):
        paraphrases("  ", 3)
    assert question_forms("장학금 신청") and question_forms("Scholarship application")


# --------------------------------------------------------------------------- the sweep

def _entry(source_url: str) -> FAQEntry:
    return FAQEntry(source_url, "q", "a", source_url, (), {}, "seed")


def test_sweep_arithmetic_on_a_hand_made_case():
    queries = [
        CalibrationQuery("q1", "u1", {}, "faq"),
        CalibrationQuery("q2", "u2", {}, "faq"),
        CalibrationQuery("q3", "d3", {}, "document"),
        CalibrationQuery("q4", "d4", {}, "document"),
    ]
    best = {  # best eligible FAQ match per query (None: nothing eligible)
        "q1": FAQMatch(_entry("u1"), 0.95, 1),  # right entry
        "q2": FAQMatch(_entry("elsewhere"), 0.85, 1),  # wrong entry
        "q3": FAQMatch(_entry("u1"), 0.70, 1),  # a document question the FAQ would answer wrongly
        "q4": None,
    }
    doc_ranks = {"q1": 2, "q2": 1, "q3": 4, "q4": None}
    calls = Counter()

    def faq_search(batch):
        calls["faq"] += 1
        return [best[q.text] for q in batch]

    def doc_rank(batch):
        calls["doc"] += 1
        return [doc_ranks[q.text] for q in batch]

    points = sweep(queries, faq_search, doc_rank, [0.6, 0.8, 0.85, 0.9, 1.01])
    assert calls == {"faq": 1, "doc": 1}  # searched once, every threshold is arithmetic
    by = {p.threshold: p for p in points}
    # 0.6: q1 FAQ right (1), q2 FAQ wrong (0), q3 FAQ wrong (0), q4 documents (absent: 0)
    assert by[0.6] == SweepPoint(0.6, (1 + 0 + 0 + 0) / 4, 3 / 4, 1 / 3, 4, faq_recall=1 / 2)
    # 0.8: q3 falls through to the documents, gold at rank 4
    assert by[0.8].mrr == pytest.approx((1 + 0 + 1 / 4 + 0) / 4) and by[0.8].faq_precision == 1 / 2
    # 0.85: a score equal to the threshold is still answered by the FAQ
    assert by[0.85].mrr == by[0.8].mrr and by[0.85].faq_share == 2 / 4
    # 0.9: only q1 stays with the FAQ; q2 gets its documents rank 1
    assert by[0.9].mrr == pytest.approx((1 + 1 + 1 / 4 + 0) / 4) and by[0.9].faq_precision == 1.0
    # above 1: the FAQ tier is off, q1's gold is second in the documents
    assert by[1.01] == SweepPoint(1.01, (1 / 2 + 1 + 1 / 4 + 0) / 4, 0.0, None, 4, faq_recall=0.0)
    assert choose(points) == 0.9


def test_a_document_question_answered_by_an_entry_its_own_text_states_is_answered_right():
    # the field-practice page's "학기제 현장실습" section, and the FAQ entry that restates it
    section = "학기제 현장실습 은 한 학기 동안 기업 에서 일하며 최대 12 학점 을 인정받는 제도 입니다"
    queries = [CalibrationQuery("학기제 현장실습 알려주세요", "field.html", {}, "document", gold_text=section),
               CalibrationQuery("졸업인증제 알려주세요", "cert.html", {}, "document", gold_text="영어 졸업인증 토익 700 점")]
    restates = FAQMatch(FAQEntry("faq#fp-1", "학기제 현장실습은?", "한 학기 동안 기업 에서 일하며 12 학점 인정",
                                 "faq#fp-1", (), {}, "seed"), 0.8, 1)
    other = FAQMatch(FAQEntry("faq#cr-5", "졸업 학점은?", "총 130 학점 이상 이수 교양 36 학점", "faq#cr-5", (), {}, "seed"), 0.8, 1)
    stated = answer_stated(lambda texts: [t.split() for t in texts])
    outcomes = evaluate(queries, lambda batch: [restates, other], lambda batch: [1, 1], stated)
    assert [o.faq_correct for o in outcomes] == [True, False]
    # without the check only the gold URL is right, as before
    assert [o.faq_correct for o in evaluate(queries, lambda b: [restates, other], lambda b: [1, 1])] == [False, False]
    # an FAQ paraphrase is right only with its own entry, whatever its text
    paraphrase = [CalibrationQuery("현장실습 학점?", "faq#fp-2", {}, "faq", gold_text=section)]
    assert not evaluate(paraphrase, lambda b: [restates], lambda b: [None], stated)[0].faq_correct


def test_answer_stated_wants_most_words_every_number_and_something_to_check():
    stated = answer_stated(lambda texts: [t.split() for t in texts])
    text = "복학 첫 학기 등록금 의 30 % 를 복학생 정착장학금 으로 지급"
    assert stated("복학 첫 학기 등록금 30 정착장학금", text)
    assert not stated("복학 첫 학기 등록금 50 정착장학금", text)  # a number the text does not state
    assert not stated("복학 첫 교양 전공 학점 이수", text)  # most words missing
    assert not stated("네 가능", "네 가능 합니다")  # too little to check


def test_choose_prefers_the_higher_threshold_on_ties():
    points = [SweepPoint(0.7, 0.5, 0.4, 0.9, 10), SweepPoint(0.8, 0.6, 0.3, 1.0, 10),
              SweepPoint(0.9, 0.6, 0.2, 1.0, 10), SweepPoint(0.95, 0.55, 0.1, 1.0, 10)]
    assert choose(points) == 0.9
    with pytest.raises(ValueError):
        choose([])
    grid = threshold_grid()
    assert grid[0] == 0.5 and grid[-1] == 0.995 and PAPER_THRESHOLD in grid and len(grid) == 100


def test_the_precise_threshold_may_not_cost_the_system_its_documents():
    # SweepPoint(threshold, mrr, faq_share, faq_precision, queries)
    points = [SweepPoint(0.3, 0.80, 0.6, 0.91, 10), SweepPoint(0.5, 0.86, 0.5, 0.93, 10),
              SweepPoint(0.7, 0.87, 0.4, 0.96, 10), SweepPoint(0.9, 0.87, 0.2, 0.99, 10)]
    # 0.3 is precise enough, but its verbatim answers cost 0.07 of MRR: 0.5 is the lowest within 0.01
    assert choose_precise(points) == 0.5
    assert choose_precise(points, mrr_tolerance=0.1) == 0.3
    assert choose_precise(points, min_precision=0.99) == 0.9
    imprecise = [SweepPoint(0.5, 0.7, 0.5, 0.6, 10), SweepPoint(0.9, 0.8, 0.2, 0.7, 10)]
    assert choose_precise(imprecise) == choose(imprecise) == 0.9  # none precise enough: the best MRR


def test_evaluate_rejects_mismatched_results():
    queries = [CalibrationQuery("q", "u", {}, "faq")]
    with pytest.raises(ValueError, match="one result per query"):
        evaluate(queries, lambda batch: [], lambda batch: [1])


# --------------------------------------------------------------------------- calibration on the demo build

def test_calibration_on_the_demo_build(calibration, seeds):
    grid = [p.threshold for p in calibration.points]
    chosen = calibration.chosen
    print("\nFAQ threshold sweep (rule paraphrases, demo build):")
    for p in calibration.points[::5] + [chosen]:
        print(f"  t={p.threshold:.2f} mrr={p.mrr:.4f} faq_share={p.faq_share:.3f} "
              f"faq_precision={p.faq_precision if p.faq_precision is None else round(p.faq_precision, 3)}")
    print(f"  chosen {calibration.threshold:.2f}; FAQ tier off: mrr={calibration.mrr_faq_off:.4f}; "
          f"{calibration.queries} queries in {calibration.seconds:.1f} s")
    assert calibration.method == "rule_paraphrases"
    assert calibration.threshold in grid and PAPER_THRESHOLD in grid
    assert calibration.queries == (calibration.faq_queries + calibration.document_queries
                                   + calibration.offtopic_queries)
    assert calibration.faq_queries > 0 and calibration.document_queries > 0 and calibration.offtopic_queries > 0
    # the scorer is fitted on one split, the threshold chosen on the other, and that is recorded
    assert calibration.scorer is not None and calibration.split["fitted_on"] == "fit"
    assert calibration.split["calibrated_on"] == "calibrate" and calibration.split["fit_queries"] > 0
    # the lowest threshold whose held-out verbatim answers reach the precision target without
    # costing the two tiers more than MRR_TOLERANCE of their best MRR
    best = max(p.mrr for p in calibration.points)
    precise = [p.threshold for p in calibration.points if p.faq_precision is not None
               and p.faq_precision >= MIN_PRECISION and p.mrr >= best - MRR_TOLERANCE]
    assert precise and calibration.threshold == min(precise)
    assert 0 < chosen.faq_share < 1 and chosen.faq_precision is not None
    # the FAQ tier answers fewer queries as the threshold rises
    shares = [p.faq_share for p in calibration.points]
    assert shares == sorted(shares, reverse=True)
    recalls = [p.faq_recall for p in calibration.points]
    assert recalls == sorted(recalls, reverse=True) and 0 < chosen.faq_recall <= 1
    json.dumps(calibration.as_dict())  # recordable as is


def test_calibration_uses_held_out_llm_paraphrases_when_given(build, store, tokenize, retriever, seeds):
    held_out = {seeds[i].source_url: [seeds[i].question + " 알려주세요"] for i in range(0, 10, 2)}
    result = calibrate(build, store, tokenize, retriever, max_queries=16, llm_paraphrases=held_out,
                       thresholds=[0.8, PAPER_THRESHOLD])
    assert result.method == "llm_paraphrases"
    assert result.faq_queries == len(held_out) and result.queries == 16
    assert [p.threshold for p in result.points] == [0.8, PAPER_THRESHOLD]


# --------------------------------------------------------------------------- URAG-F enrichment

def _seed(n: int, applies_to: dict | None = None) -> FAQEntry:
    return FAQEntry(f"https://u.example/faq#q{n}", f"질문 {n}번: 휴학은 어떻게 신청하나요?", f"답변 {n}: 포털에서 신청합니다.",
                    f"https://u.example/faq#q{n}", (f"chunk-faq-{n}",), applies_to or {}, "seed")


@pytest.fixture
def con():
    con = duckdb.connect()
    yield con
    con.close()


def test_enrichment_parses_paraphrases_and_pairs_into_traceable_entries(openai_server, con, tmp_path):
    department = next(n for n, a in SCHEMA.items() if fields.is_categorical(a))
    first_value = sorted(SCHEMA[department].values)[0]
    seeds = [_seed(1, {department: [first_value]}), _seed(2), _seed(3)]
    chunk = SourceChunk("chunk-7", "https://u.example/rules.html", "학사 규정", "졸업하려면 130학점을 이수해야 한다. 전공은 3학점 과목이다.",
                        {department: [first_value]}, ("졸업",))
    empty = SourceChunk("chunk-8", "https://u.example/nav.html", "메뉴", "홈 > 학사", {}, ())

    openai_server.script(reply({"paraphrases": ["휴학 신청 방법 1", "휴학 신청 방법 2", "휴학 신청 방법 3",
                                                "휴학 신청 방법 4", seeds[0].question, " "]}), when="질문 1번")
    openai_server.script(malformed(), malformed(), when="질문 2번")  # invalid twice: retried, then skipped
    openai_server.script(reply({"paraphrases": ["세 번째 질문 변형 A", "세 번째 질문 변형 B"]}), when="질문 3번")
    openai_server.script(reply({"pairs": [
        {"question": "졸업 학점은 몇 학점인가요?", "answer": "130학점을 이수해야 합니다."},
        {"question": "전공 과목은 몇 학점인가요?", "answer": "99학점입니다."},  # a number the passage lacks
    ]}), when="130학점")
    openai_server.script(reply({"pairs": []}), when="홈 > 학사")

    with LLMClient(settings_for(openai_server)) as client:
        enricher = FAQEnricher(client, con, paraphrases_per_question=4, pairs_per_chunk=3)
        result = enricher.enrich(seeds, [chunk, empty])

    # (a) paraphrases: even positions stored, odd ones held apart for calibration
    stored = [e for e in result.paraphrase_entries if e.source_url == seeds[0].source_url]
    assert [e.question for e in stored] == ["휴학 신청 방법 1", "휴학 신청 방법 3"]
    assert result.calibration_paraphrases[seeds[0].source_url] == ["휴학 신청 방법 2", "휴학 신청 방법 4"]
    for e in stored:
        assert (e.origin, e.answer, e.chunk_ids, e.applies_to) == ("llm_paraphrase", seeds[0].answer,
                                                                  seeds[0].chunk_ids, seeds[0].applies_to)
    assert [e.question for e in result.paraphrase_entries if e.source_url == seeds[2].source_url] == ["세 번째 질문 변형 A"]
    assert seeds[1].source_url not in {e.source_url for e in result.paraphrase_entries}
    assert result.failures == Counter({f"{PARAPHRASE_TASK}:llm_invalid_output": 1})
    assert result.dropped["duplicate_paraphrase"] == 1 and result.dropped["empty_paraphrase"] == 1

    # (b) generated pairs: grounded in the chunk, traceable to it, its annotation carried over
    [generated] = result.generated_entries
    assert (generated.origin, generated.source_url, generated.chunk_ids) == ("llm_generated", chunk.doc_url, ("chunk-7",))
    assert generated.applies_to == chunk.applies_to and generated.answer == "130학점을 이수해야 합니다."
    assert result.dropped["ungrounded_number"] == 1

    bodies = openai_server.requests
    assert {b["response_format"]["json_schema"]["name"] for b in bodies} == {PARAPHRASE_SCHEMA_NAME, PAIRS_SCHEMA_NAME}
    assert len(bodies) == 3 + 1 + 2  # one per source, plus the retry of the malformed reply
    assert enricher.usage.failures == 1

    # ready for the store: seeds and enriched entries together, several sharing a source_url
    whitespace = lambda texts: [t.split() for t in texts]  # noqa: E731
    counts = write_faq_store(tmp_path, seeds + result.entries, HashingEmbedder(16), whitespace)
    assert counts == {"entries": 3 + 3 + 1, "seed": 3, "llm_generated": 1, "llm_paraphrase": 3, "sources": 4}

    # a re-run over the sources that succeeded is served from the llm_cache: no HTTP request
    succeeded = [seeds[0], seeds[2]]
    with LLMClient(settings_for(openai_server)) as client:
        again = FAQEnricher(client, con, paraphrases_per_question=4, pairs_per_chunk=3).enrich(succeeded, [chunk, empty])
    assert len(openai_server.requests) == len(bodies)
    assert again.entries == result.entries and again.calibration_paraphrases == result.calibration_paraphrases
    assert con.sql(f"SELECT count(*) FROM llm_cache WHERE task IN ('{PARAPHRASE_TASK}', '{PAIRS_TASK}')").fetchall() == [(4,)]


def test_source_chunks_are_the_non_faq_chunks(build):
    chunks = source_chunks(build)
    total = sum(len(c) for c in build.collections.values())
    assert len(chunks) == total - len(faq_chunks(build)) > 0
    assert all(c.text and c.doc_url for c in chunks)


def test_calibration_splits_do_not_depend_on_the_host_the_site_was_crawled_from():
    # the demo and the tests serve the same site on different ports: the same documents must fall
    # in the same half with the same question forms, or the threshold changes with the port
    def build_on(port: int):
        urls = [f"http://127.0.0.1:{port}/academics/page{i}.html" for i in range(40)]
        return _build_of(urls, [f"안내 {i}번" for i in range(40)], [[f"항목 {i}"] for i in range(40)],
                         [f"본문 {i}" for i in range(40)])

    for half in (0, 1):
        texts = [[(q.text, q.gold.split("/", 3)[-1]) for q in document_queries(build_on(port), seed=0, half=half)]
                 for port in (8765, 54321)]
        assert texts[0] == texts[1] and 0 < len(texts[0]) < 40


def _build_of(urls, titles, headings, texts, kinds=None):
    """A stand-in IndexBuild of one collection with these chunks (what document_queries reads)."""
    from types import SimpleNamespace

    chunks = pl.DataFrame({"doc_url": urls, "title": titles, "kind": kinds or ["html"] * len(urls),
                           "heading_path": headings, "text": texts})
    return SimpleNamespace(collections={"static": SimpleNamespace(chunks=chunks, applies_to=[{}] * len(urls))},
                           schema=SCHEMA)


def test_a_document_question_carries_the_text_of_every_chunk_of_its_topic():
    page = "http://x/field.html"
    build = _build_of([page, page, page, "http://x/faq.html"], ["현장실습 안내"] * 3 + ["FAQ"],
                      [["학기제 현장실습"], ["학기제 현장실습"], ["지원금"], ["현장실습"]],
                      ["한 학기 동안 일합니다.", "최대 12학점을 인정합니다.", "월 100만 원을 지급합니다.", "FAQ 답변"],
                      kinds=["html", "html", "html", FAQ_KIND])
    queries = {q.text: q for q in document_queries(build)}
    assert len(queries) == 2  # one per (document, topic); the FAQ page's chunk makes none
    by_topic = {("학기제" in text): q for text, q in queries.items()}
    assert by_topic[True].gold_text == "한 학기 동안 일합니다.\n최대 12학점을 인정합니다."
    assert by_topic[False].gold_text == "월 100만 원을 지급합니다." and by_topic[False].gold == page
