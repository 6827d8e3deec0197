"""Profile-aware retrieval: hard filtering inside the search equals brute force, RRF, soft
augmentation, time-aware aggregation, recency weighting and the conflict rule's edge cases."""

from __future__ import annotations

import random
from datetime import date, timedelta
from pathlib import Path

import numpy as np
import pytest

from advisor.config import load_config
from advisor.index.store import load_build
from advisor.index.writer import write_build
from advisor.retrieval import (
    RetrievalParams,
    Retriever,
    conflicts,
    fusion,
    is_time_sensitive,
    known_profile,
    quotas,
    recency_weight,
    rrf,
)
from tests.hashing_embedder import HashingEmbedder

SCHEMA = load_config().profile
TODAY = date(2025, 6, 1)
WORDS = ("졸업 학점 전공 이수 신청 기간 장학금 휴학 복학 수강 교과목 학사 성적 평점 계절학기 등록금 "
         "논문 실습 인턴 교환학생 상담 자격 시험 면제 취득 과목 필수 선택 심화 이중").split()


def whitespace(texts: list[str]) -> list[list[str]]:
    return [t.lower().split() for t in texts]


def record(chunk_id, tokens, collection="static", applies_to=None, published_on=None) -> dict:
    return {"chunk_id": chunk_id, "collection": collection, "doc_url": f"https://u.example/{chunk_id}",
            "title": chunk_id, "text": " ".join(tokens), "indexed_text": " ".join(tokens), "tokens": list(tokens),
            "published_on": published_on, "kind": "notice" if collection == "dynamic" else "page",
            "heading_path": [], "page": None, "applies_to": applies_to or {}}


def make_retriever(root: Path, records: list[dict], params: RetrievalParams | None = None, dim: int = 32) -> Retriever:
    embedder = HashingEmbedder(dim)
    vectors = embedder.embed([r["text"] for r in records], [r["tokens"] for r in records])
    manifest = write_build(records, vectors, embedder, SCHEMA, root, {"test": True})
    return Retriever(load_build(Path(manifest.directory), load_embedder=HashingEmbedder.load), whitespace, params)


# --------------------------------------------------------------------------- synthetic corpus

def random_annotation(rng: random.Random) -> dict:
    annotation = {}
    for name, attribute in SCHEMA.items():
        if rng.random() < 0.5:
            annotation[name] = None
        elif attribute.type == "categorical":
            annotation[name] = sorted(rng.sample(list(attribute.values), rng.randint(1, 2)))
        else:
            low = rng.randint(attribute.min, attribute.max)
            annotation[name] = [low, rng.randint(low, attribute.max)]
    return annotation


def random_profile(rng: random.Random) -> dict:
    profile = {}
    for name, attribute in SCHEMA.items():
        if rng.random() < 0.3:
            continue  # unknown
        profile[name] = (rng.choice(list(attribute.values)) if attribute.type == "categorical"
                         else rng.randint(attribute.min, attribute.max))
    return profile


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory):
    rng = random.Random(7)
    records = []
    for i in range(320):
        dynamic = i % 5 == 0
        tokens = [rng.choice(WORDS[: rng.randint(4, len(WORDS))]) for _ in range(rng.randint(3, 12))]
        records.append(record(f"c{i}", tokens, "dynamic" if dynamic else "static", random_annotation(rng),
                              TODAY - timedelta(days=rng.randint(0, 400)) if dynamic else None))
    return tmp_path_factory.mktemp("corpus"), records


@pytest.fixture(scope="module")
def corpus(corpus_dir):
    root, records = corpus_dir
    return make_retriever(root / "default", records)


@pytest.fixture(scope="module")
def wide(corpus_dir):
    """Same corpus, candidate lists long enough to hold every chunk (hybrid over full lists)."""
    root, records = corpus_dir
    return make_retriever(root / "wide", records, RetrievalParams(candidates=10_000))


def random_queries(n: int, seed: int) -> list[tuple[str, dict]]:
    rng = random.Random(seed)
    return [(" ".join(rng.sample(WORDS, rng.randint(1, 4))), random_profile(rng)) for _ in range(n)]


def ids_scores(retriever: Retriever, collection: str, hits) -> list[tuple[str, float]]:
    return [(retriever.chunk_id(collection, h.row), h.score) for h in hits]


def assert_same_ranking(got: list[tuple[str, float]], expected: list[tuple[str, float]]) -> None:
    """Equal up to the order of equal scores; at the cut, any of the tied chunks may be the kept ones."""
    assert len(got) == len(expected)
    assert np.allclose([s for _, s in got], [s for _, s in expected], rtol=1e-6, atol=1e-7)
    if not expected:
        return
    cut = expected[-1][1]
    assert {c for c, s in got if not np.isclose(s, cut)} == {c for c, s in expected if not np.isclose(s, cut)}


def brute_force(retriever, collection, query, profile, mode, k, soft=True) -> list[tuple[str, float]]:
    """The unfiltered FULL ranking (same query text), conflicting chunks removed, truncated to k."""
    schema, known = retriever.schema, known_profile(profile, retriever.schema)
    everything = retriever.rank(collection, query, profile, mode=mode, limit=10_000, hard=False, soft=soft)
    kept = [h for h in everything if not conflicts(retriever.collections[collection].applies_to[h.row], known, schema)]
    return ids_scores(retriever, collection, kept[:k])


# --------------------------------------------------------------------------- the key property

@pytest.mark.parametrize("mode", ["bm25", "dense"])
@pytest.mark.parametrize("soft", [False, True])
def test_filtered_top_k_equals_brute_force(corpus, mode, soft):
    dropped = 0
    for query, profile in random_queries(40, seed=2 * ("bm25", "dense").index(mode) + soft):
        for collection in ("static", "dynamic"):
            for k in (1, 10, 50):
                got = ids_scores(corpus, collection, corpus.rank(collection, query, profile, mode=mode, limit=k, soft=soft))
                expected = brute_force(corpus, collection, query, profile, mode, k, soft)
                assert_same_ranking(got, expected)
            unfiltered = corpus.rank(collection, query, profile, mode=mode, limit=10, soft=soft, hard=False)
            dropped += len({h.row for h in unfiltered} - {h.row for h in corpus.rank(collection, query, profile, mode=mode, limit=10, soft=soft)})
    assert dropped > 50  # the filter really removed top chunks: the comparison is not vacuous


def test_hybrid_filtered_equals_rrf_of_brute_force_lists(wide):
    """BM25, dense and (with something known) the specificity ranking: the candidates limited to the
    most of the known attributes, in fused order, fused again by RRF."""
    depth = wide.params.candidates
    specific_seen = 0
    for query, profile in random_queries(30, seed=3):
        known = known_profile(profile, wide.schema)
        for collection in ("static", "dynamic"):
            got = ids_scores(wide, collection, wide.rank(collection, query, profile, mode="hybrid", limit=20))
            lists = [brute_force(wide, collection, query, profile, mode, depth) for mode in ("bm25", "dense")]
            if known:
                annotations = dict(zip(wide.collections[collection].chunk_ids, wide.collections[collection].applies_to))
                counted = [(cid, sum(annotations[cid].get(n) is not None for n in known))
                           for cid, _, _ in rrf(lists, 60)]
                specific = sorted((c for c in counted if c[1]), key=lambda c: -c[1])
                specific_seen += bool(specific)
                lists.append([(cid, float(n)) for cid, n in specific])
            expected = [(row, score) for row, score, _ in rrf(lists, 60)][:20]
            assert_same_ranking(got, expected)
    assert specific_seen > 10  # the third ranking was exercised


def test_specificity_ranking_promotes_what_is_written_for_the_student(tmp_path):
    records = [record("general", ["졸업", "학점", "졸업"]),
               record("mine", ["졸업", "학점", "안내"], applies_to={"department": ["CS"]}),
               record("theirs", ["졸업", "학점", "요건"], applies_to={"department": ["AI"]})]
    on = make_retriever(tmp_path / "on", records)
    off = make_retriever(tmp_path / "off", records, RetrievalParams(specificity=False))
    profile = {"department": "CS"}
    assert off.search("졸업", profile).chunk_ids[0] == "general"
    assert on.search("졸업", profile).chunk_ids[0] == "mine"
    assert on.search("졸업", profile, soft=frozenset({"department"})).chunk_ids[0] == "mine"
    assert on.search("졸업", profile, soft=False).chunk_ids[0] == "general"  # soft augmentation off
    # specificity ranks by what the question depends on (what the prefix writes), not by every
    # known value: a student's department does not make their department's page the answer to a
    # question that depends on nothing
    assert on.search("졸업", profile, soft=frozenset()).chunk_ids[0] == "general"
    assert on.search("졸업", {**profile, "grade": 3}, soft=frozenset({"grade"})).chunk_ids[0] == "general"
    # without the hard filter, a chunk limited to someone else's value is not promoted
    unfiltered = on.search("졸업", profile, hard=False, k=3).chunk_ids
    assert unfiltered[0] == "mine" and unfiltered.index("theirs") > unfiltered.index("general")


def test_unfiltered_dense_matches_usearch_exact(corpus):
    from usearch.index import MetricKind, search

    collection = corpus.collections["static"]
    query = corpus.build.embedder.embed(["졸업 학점 이수"], [["졸업", "학점", "이수"]])[0]
    matches = search(np.asarray(collection.vectors), query, 10, MetricKind.Cos, exact=True)
    ours = corpus.rank("static", "졸업 학점 이수", None, mode="dense", limit=10)
    assert np.allclose(sorted(1 - matches.distances), sorted(h.score for h in ours), atol=1e-5)


def test_dense_search_is_exact_up_to_the_size_limit_and_hnsw_above(corpus_dir, corpus):
    root, records = corpus_dir  # 256 static chunks, 64 dynamic
    by_size = make_retriever(root / "by-size", records, RetrievalParams(dense_exact=None, dense_exact_max_rows=100))
    assert not by_size._exact("static") and by_size._exact("dynamic")
    assert corpus._exact("static") and corpus._exact("dynamic")  # the default limit: both exact at this size


def test_hnsw_under_a_selective_filter_is_topped_up_never_short(corpus_dir, corpus, monkeypatch):
    from advisor.retrieval import signals

    topped_up = []
    exact_rows = signals.dense_exact_rows
    monkeypatch.setattr(signals, "dense_exact_rows", lambda *a: topped_up.append(1) or exact_rows(*a))
    root, records = corpus_dir
    # over-fetch 1: any filter that removes one of HNSW's top 50 leaves it short
    approximate = make_retriever(root / "hnsw", records, RetrievalParams(dense_exact=False, ann_overfetch=1))
    found = expected = 0
    for query, profile in random_queries(40, seed=5):
        for collection in ("static", "dynamic"):
            exact = corpus.rank(collection, query, profile, mode="dense", limit=50)
            got = approximate.rank(collection, query, profile, mode="dense", limit=50)
            assert len(got) == len(exact)  # a filter never leaves HNSW short of what exists
            found += len({h.row for h in got} & {h.row for h in exact})
            expected += len(exact)
    assert len(topped_up) > 10 and found / expected > 0.95


def test_batch_equals_one_by_one(corpus):
    pairs = random_queries(12, seed=11)
    batch = corpus.search_batch([q for q, _ in pairs], [p for _, p in pairs], mode="hybrid", today=TODAY)
    for (query, profile), result in zip(pairs, batch):
        single = corpus.search(query, profile, mode="hybrid", today=TODAY)
        assert single.chunk_ids == result.chunk_ids
        assert np.allclose([c.score for c in single.chunks], [c.score for c in result.chunks])


def test_search_never_returns_conflicting_chunks_and_debug_explains(corpus):
    for query, profile in random_queries(20, seed=5):
        result = corpus.search(query, profile, debug=True, today=TODAY)
        known = known_profile(profile, SCHEMA)
        assert all(not conflicts(c.applies_to, known, SCHEMA) for c in result.chunks)
        for dropped in result.debug["filtered_out"]:
            assert dropped["chunk_id"] not in result.chunk_ids and dropped["reasons"]
            for reason in dropped["reasons"]:
                assert reason["profile_value"] == known[reason["attribute"]]


# --------------------------------------------------------------------------- fusion and augmentation

def test_rrf_hand_example():
    fused = rrf([[(1, 9.0), (2, 8.0), (3, 7.0)], [(3, 0.9), (1, 0.8)]], k=60)
    assert [row for row, _, _ in fused] == [1, 3, 2]
    assert fused[0][1] == pytest.approx(1 / 61 + 1 / 62) and fused[0][2] == [1, 2]
    assert fused[1][1] == pytest.approx(1 / 63 + 1 / 61) and fused[1][2] == [3, 1]
    assert fused[2][1] == pytest.approx(1 / 62) and fused[2][2] == [2, None]


def test_soft_prefix_goes_to_the_dense_search_and_bm25_keeps_the_question(tmp_path):
    seen: list[str] = []

    def spy(texts):
        seen.extend(texts)
        return whitespace(texts)

    records = [record("a", ["졸업", "학점"]), record("b", ["컴퓨터학과", "2021학번", "졸업"])]
    profile = {"department": "컴퓨터학부", "admission_year": 2021, "grade": "3", "major_type": None, "hobby": "chess"}
    retriever = make_retriever(tmp_path / "default", records, RetrievalParams(specificity=False))
    retriever.tokenize = spy
    result = retriever.search("졸업 학점", profile, debug=True)
    assert result.query_text == "컴퓨터학과 2021학번 3학년 졸업 학점" == result.debug["query_text"]
    assert seen == ["컴퓨터학과 2021학번 3학년 졸업 학점", "졸업 학점"]  # embedded with, searched without
    assert result.debug["query_tokens"] == ["졸업", "학점"]
    assert result.profile == {"department": "CS", "admission_year": 2021, "grade": 3}
    # the paper's way: the prefix in both searches, where it matched b's department term
    paper = make_retriever(tmp_path / "paper", records, RetrievalParams(specificity=False, prefix_in_bm25=True))
    both = paper.search("졸업 학점", profile, mode="bm25", debug=True)
    assert both.debug["query_tokens"][:3] == ["컴퓨터학과", "2021학번", "3학년"] and both.chunk_ids[0] == "b"
    plain = paper.search("졸업 학점", profile, mode="bm25", soft=False, debug=True)
    assert plain.query_text == "졸업 학점" and plain.chunk_ids[0] == "a"
    # a set of names writes only those attributes (in schema order); the filter still uses all
    some = retriever.search("졸업 학점", profile, soft=frozenset({"admission_year", "grade"}), debug=True)
    assert some.query_text == "2021학번 3학년 졸업 학점" and some.profile == result.profile
    assert retriever.search("졸업 학점", profile, soft=frozenset()).query_text == "졸업 학점"


# --------------------------------------------------------------------------- the conflict rule

def test_conflict_rule_edge_cases(tmp_path):
    records = [
        record("null", ["학점"], applies_to={}),
        record("cs", ["학점"], applies_to={"department": ["CS"]}),
        record("ds", ["학점"], applies_to={"department": ["DS"]}),
        record("y2022", ["학점"], applies_to={"admission_year": [2020, 2022]}),
        record("g34", ["학점"], applies_to={"grade": [3, 4], "student_status": ["on_leave", "returning"]}),
    ]
    retriever = make_retriever(tmp_path, records)

    def found(profile, mode):
        return set(retriever.search("학점", profile, mode=mode, soft=False).chunk_ids)

    for mode in ("bm25", "dense", "hybrid"):
        everything = {"null", "cs", "ds", "y2022", "g34"}
        assert found(None, mode) == everything
        assert found({"hobby": "chess", "department": None, "grade": ""}, mode) == everything  # unknown: no filter
        assert found({"department": "CS"}, mode) == everything - {"ds"}
        assert found({"department": "DS"}, mode) == everything - {"cs"}
        assert found({"admission_year": 2020}, mode) == everything == found({"admission_year": 2022}, mode)
        assert found({"admission_year": 2023}, mode) == everything - {"y2022"}
        # outside the schema's span (2015-2026): null annotations still admit it
        assert found({"admission_year": 2010, "grade": 1}, mode) == {"null", "cs", "ds"}
        assert found({"student_status": "on_leave", "grade": 4}, mode) == everything
        assert found({"student_status": "enrolled"}, mode) == everything - {"g34"}
    dropped = retriever.search("학점", {"department": "CS"}, soft=False, debug=True).debug["filtered_out"]
    assert [(d["chunk_id"], d["reasons"]) for d in dropped if d["collection"] == "static"] == [
        ("ds", [{"attribute": "department", "chunk_value": ["DS"], "profile_value": "CS"}])]


# --------------------------------------------------------------------------- time-aware aggregation

def test_time_sensitivity_rule():
    words = RetrievalParams().time_words
    assert is_time_sensitive("수강 신청 기간이 언제인가요?", words)
    assert is_time_sensitive("이번학기 휴학 마감", words)  # 이번 학기 written without the space
    assert is_time_sensitive("When is the add/drop deadline?", words)
    assert not is_time_sensitive("졸업에 필요한 전공 학점은?", words)
    assert not is_time_sensitive("whenever I graduate", words)
    assert is_time_sensitive("what is the DEADLINE?", words) and not is_time_sensitive("deadlines-free", ["deadline"])
    assert is_time_sensitive("마감 언제", ("마 감",))  # a Korean time word is matched without its spaces


def test_recency_weighting_moves_every_score_down_whatever_its_sign():
    scores, weights = np.array([0.8, -0.2, 0.0]), np.array([0.5, 0.5, 0.5])
    assert fusion.weighted(scores, weights).tolist() == [0.4, -0.4, 0.0]


def test_quotas_split_and_fill():
    plenty = {"static": 50, "dynamic": 50}
    assert quotas(10, 7, 3, False, plenty) == {"static": 7, "dynamic": 3}
    assert quotas(10, 7, 3, True, plenty) == {"static": 3, "dynamic": 7}
    assert quotas(10, 7, 3, False, {"static": 4, "dynamic": 50}) == {"static": 4, "dynamic": 6}
    assert quotas(10, 7, 3, True, {"static": 50, "dynamic": 2}) == {"static": 8, "dynamic": 2}
    assert quotas(10, 7, 3, False, {"static": 2, "dynamic": 1}) == {"static": 2, "dynamic": 1}
    assert quotas(50, 7, 3, False, plenty) == {"static": 35, "dynamic": 15}


@pytest.fixture(scope="module")
def split_corpus(tmp_path_factory):
    records = [record(f"s{i}", ["학점", "졸업"]) for i in range(12)]
    records += [record(f"d{i}", ["학점", "공지"], "dynamic", {"department": ["CS"] if i < 2 else ["DS"]},
                       TODAY - timedelta(days=i)) for i in range(12)]
    return make_retriever(tmp_path_factory.mktemp("split"), records)


def test_seven_plus_three_and_reversed(split_corpus):
    def counts(result):
        return sum(c.collection == "static" for c in result.chunks), sum(c.collection == "dynamic" for c in result.chunks)

    assert counts(split_corpus.search("학점", today=TODAY)) == (7, 3)
    assert counts(split_corpus.search("학점", time_sensitive=True, today=TODAY)) == (3, 7)
    assert counts(split_corpus.search("학점 신청 기간", today=TODAY, debug=True)) == (3, 7)  # the rule decides
    assert counts(split_corpus.search("학점 신청 기간", time_sensitive=False, today=TODAY)) == (7, 3)  # caller wins
    # Only 2 dynamic chunks are eligible for a CS student: static fills the gap.
    assert counts(split_corpus.search("학점", {"department": "CS"}, time_sensitive=True, today=TODAY)) == (8, 2)


def test_the_default_depth_is_the_configured_shares(split_corpus):
    """k left out is static_k + dynamic_k of the retriever's settings, not a number of its own."""
    from dataclasses import replace

    narrow = Retriever(split_corpus.build, split_corpus.tokenize,
                       replace(split_corpus.params, static_k=4, dynamic_k=2))
    assert len(narrow.search("학점", today=TODAY).chunks) == 6
    assert len(narrow.search("학점", today=TODAY, k=9).chunks) == 9  # an explicit k still wins
    assert len(split_corpus.search("학점", today=TODAY).chunks) == RetrievalParams().k


def test_recency_weighting_orders_dynamic_chunks(tmp_path):
    records = [record("static", ["학점"])]
    records += [record(f"age{days}", ["학점", "공지"], "dynamic", published_on=TODAY - timedelta(days=days))
                for days in (180, 0, 90, 30)]
    records += [record("undated", ["학점", "공지"], "dynamic")]
    retriever = make_retriever(tmp_path, records)
    for mode in ("bm25", "dense", "hybrid"):
        result = retriever.search("학점 공지", mode=mode, time_sensitive=True, k=6, today=TODAY)
        dynamic = [c for c in result.chunks if c.collection == "dynamic"]
        # undated: weight 1, and the tie with age0 (also weight 1) is broken by row order
        assert [c.chunk_id for c in dynamic] == ["age0", "undated", "age30", "age90", "age180"]
        if mode == "hybrid":  # RRF of tied raw scores still differs by rank: only the order is exact
            continue
        by_id = {c.chunk_id: c for c in dynamic}
        assert by_id["age90"].score == pytest.approx(by_id["age0"].score / 2)
        assert by_id["age180"].score == pytest.approx(by_id["age0"].score / 4)
        assert by_id["age90"].recency == pytest.approx(0.5)
    assert recency_weight(TODAY + timedelta(days=5), TODAY, 90) == 1.0  # future date: no bonus


def test_result_carries_citation_fields(split_corpus):
    chunk = split_corpus.search("학점", time_sensitive=True, today=TODAY).chunks[0]
    assert chunk.rank == 1 and chunk.doc_url.startswith("https://u.example/") and chunk.text
    assert chunk.collection == "dynamic" and chunk.published_on == TODAY and chunk.bm25_rank == 1
    assert set(chunk.applies_to) == set(SCHEMA)


def test_unknown_mode_is_rejected(split_corpus):
    with pytest.raises(ValueError, match="mode"):
        split_corpus.search("학점", mode="sparse")


def test_retrieval_settings_from_the_config_reach_the_params():
    from advisor.config import parse_config
    from advisor.retrieval.params import params_from

    config = parse_config({
        "institution": "X", "sources": [{"name": "a", "kind": "html", "seeds": ["http://127.0.0.1:1/"]}],
        "profile": {"grade": {"type": "integer", "question": "?", "min": 1, "max": 4}},
        "retrieval": {"static_k": 5, "dynamic_k": 5, "half_life_days": 30, "time_words": ["마감"]},
    })
    params = params_from(config.retrieval.model_dump(mode="json"))
    assert (params.static_k, params.dynamic_k, params.half_life_days, params.rrf_k) == (5, 5, 30, 60)
    assert params.time_words == ("마감",)
    assert params_from(None) == RetrievalParams()


# --------------------------------------------------------------------------- other labels

def test_a_relabelled_build_filters_by_the_new_labels_exactly_as_a_build_written_with_them(corpus_dir, tmp_path):
    """The true-label system's index: the same chunks under other labels, rebuilt in memory from
    the stored tokens, must rank exactly as a build written with those labels from the start."""
    from advisor.index.relabel import relabelled

    root, records = corpus_dir
    rng = random.Random(11)
    new_labels = {r["chunk_id"]: random_annotation(rng) for r in records[::2]}  # half relabelled
    original = make_retriever(tmp_path / "original", records)
    written = make_retriever(tmp_path / "written", [{**r, "applies_to": new_labels.get(r["chunk_id"], r["applies_to"])}
                                                    for r in records])
    swapped = Retriever(relabelled(original.build, new_labels), whitespace)
    changed = 0
    for query, profile in random_queries(30, seed=5):
        for mode in ("bm25", "dense", "hybrid"):
            got = swapped.search(query, profile, mode=mode, k=10, today=TODAY)
            assert got.chunk_ids == written.search(query, profile, mode=mode, k=10, today=TODAY).chunk_ids
            assert [c.applies_to for c in got.chunks] == [c.applies_to for c in
                                                          written.search(query, profile, mode=mode, k=10,
                                                                         today=TODAY).chunks]
            changed += got.chunk_ids != original.search(query, profile, mode=mode, k=10, today=TODAY).chunk_ids
    assert changed > 10  # the labels really changed what the filter keeps


def test_augmented_collections_are_written_beside_the_plain_ones_and_searchable(tmp_path):
    from advisor.index.writer import Augmented

    embedder = HashingEmbedder(16)
    records = [record(f"a{i}", ["학점", "졸업"] if i % 2 else ["휴학", "기간"]) for i in range(6)]
    texts = [f"요약 문장 장학금 {r['text']}" for r in records]
    tokens = [t.split() for t in texts]
    manifest = write_build(records, embedder.embed([r["text"] for r in records], [r["tokens"] for r in records]),
                           embedder, SCHEMA, tmp_path, {}, augmented=Augmented("extractive", texts, tokens,
                                                                               embedder.embed(texts, tokens)))
    build = load_build(Path(manifest.directory), load_embedder=HashingEmbedder.load)
    assert set(build.augmented) == {"static", "dynamic"} and manifest.files["augmented"]["method"] == "extractive"
    plain, augmented = Retriever(build, whitespace), Retriever(build.over(build.augmented), whitespace)
    assert plain.search("장학금", mode="bm25", today=TODAY).chunks == []  # only the summaries say it
    found = augmented.search("장학금", mode="bm25", today=TODAY).chunks
    assert len(found) == 6 and found[0].text == records[int(found[0].chunk_id[1:])]["text"]  # the chunk's own text


def test_language_balanced_ranks_by_height_above_each_languages_level():
    from advisor.retrieval.signals import language_balanced

    languages = np.array(["ko", "ko", "ko", "ko", "en", "en", "ja"])
    # the English passages score higher than every Korean one (the encoder's same-language pull);
    # Korean row 0 stands out among the Korean ones, English row 4 barely among the English ones
    ranking = [(4, 0.90), (5, 0.89), (0, 0.86), (6, 0.85), (1, 0.80), (2, 0.79), (3, 0.78)]
    balanced = language_balanced(ranking, languages)
    assert balanced[0][0] == 0
    order = [row for row, _ in balanced]
    assert order.index(1) < order.index(2) < order.index(3) and order.index(4) < order.index(5)  # each language's order kept
    assert dict(balanced)[6] == 0.0  # a language with one passage here: its own level
    assert language_balanced([], languages) == []
    # one language only: the same order as the cosines, each shifted by their mean
    single = language_balanced([(1, 0.8), (2, 0.7), (3, 0.6)], languages)
    assert [r for r, _ in single] == [1, 2, 3] and [s for _, s in single] == pytest.approx([0.1, 0.0, -0.1])


def test_only_a_question_in_another_language_than_the_materials_is_balanced(tmp_path):
    records = [record(f"c{i}", WORDS[i:i + 4]) for i in range(8)]
    records.append({**record("english", ["leave", "of", "absence", "rules"]),
                    "text": "Leave of absence rules for students"})
    retriever = make_retriever(tmp_path, records)
    assert retriever.language == "ko"
    korean, english = retriever._prepare(["휴학 신청 기간", "how long is a leave of absence?"], [None, None], "dense", True)
    assert not korean.foreign and english.foreign
