"""Dense embedders: the offline LSA model and the OpenAI-compatible one (against a local server)."""

from __future__ import annotations

import math

import duckdb
import numpy as np
import pytest

from advisor.index.embedders import (
    Embedder,
    EmbeddingFailed,
    LSAEmbedder,
    OpenAIEmbedder,
    load_embedder,
)
from advisor.llm.settings import LLMNotConfigured, LLMSettings
from tests.openai_server import embedding_vector, error, settings_for

# --- a small Korean advising corpus: (document, paraphrased student question) -----------------
CORPUS = [
    ("휴학 신청은 매 학기 개시일 이전까지 포털 학사서비스에서 할 수 있으며, 일반휴학은 통산 3년까지 가능합니다.",
     "학교를 잠시 쉬려면 휴학 신청을 어디서 하나요"),
    ("군입대 휴학은 입영통지서를 첨부하여 신청하며 통산 휴학 기간에 포함되지 않습니다.",
     "군대 가면 입영통지서 내고 휴학할 수 있나요"),
    ("복학은 휴학 기간이 끝나는 학기의 복학 신청 기간에 신청해야 하며, 미복학 시 제적될 수 있습니다.",
     "휴학 끝나고 다시 학교 다니려면 복학 신청 언제 해요"),
    ("수강신청은 학년별로 지정된 날짜에 진행되며, 1학기 최대 18학점까지 신청할 수 있습니다.",
     "한 학기에 최대 몇 학점까지 수강할 수 있어요"),
    ("수강정정 기간에는 과목을 추가하거나 삭제할 수 있고, 이후에는 수강포기만 가능합니다.",
     "개강 후에 과목 바꾸는 수강정정 기간이 있나요"),
    ("재수강은 C+ 이하의 성적을 받은 과목에 한해 가능하며 재수강 시 최고 성적은 A0로 제한됩니다.",
     "성적 낮은 과목 다시 들으면 재수강 성적 상한이 있나요"),
    ("졸업을 위해서는 총 130학점 이상을 이수하고 전공 필수 과목을 모두 들어야 합니다.",
     "졸업하려면 학점 몇 점 채워야 해요"),
    ("영어졸업인증은 TOEIC 700점 이상 또는 이에 상응하는 공인영어성적을 제출해야 합니다.",
     "졸업할 때 토익 점수 필요한가요"),
    ("조기졸업은 평점평균 4.0 이상이고 6학기 또는 7학기 만에 졸업요건을 충족한 학생이 신청할 수 있습니다.",
     "학점 좋으면 일찍 졸업할 수 있어요"),
    ("졸업유예를 신청하면 졸업요건을 충족했더라도 최대 2개 학기까지 학적을 유지할 수 있습니다.",
     "졸업 미루고 학생 신분 유지하는 방법"),
    ("성적우수장학금은 직전 학기 성적 상위 10% 학생에게 등록금의 50%를 감면합니다.",
     "성적 좋으면 장학금 받을 수 있나요"),
    ("국가장학금은 한국장학재단 홈페이지에서 소득분위에 따라 신청하며 매 학기 신청해야 합니다.",
     "한국장학재단 국가장학금은 어떻게 받나요"),
    ("근로장학생은 교내 부서에서 주 10시간 이내로 근무하며 시급에 따라 장학금을 받습니다.",
     "학교 안에서 일하면서 돈 받는 근로장학 있어요"),
    ("기숙사 입사 신청은 방학 중 생활관 홈페이지에서 받으며 거리와 성적을 기준으로 선발합니다.",
     "생활관 들어가려면 언제 신청해요"),
    ("기숙사 퇴사 시에는 호실 점검을 받아야 하며 보증금은 퇴사 후 2주 이내에 환불됩니다.",
     "기숙사 나갈 때 보증금 돌려받나요"),
    ("성적 이의신청은 성적 공개 후 일주일 이내에 담당 교수에게 직접 요청해야 합니다.",
     "성적이 이상하게 나왔는데 이의 제기 어떻게 하나요"),
    ("학사경고는 학기 평점평균이 1.75 미만일 때 받으며 연속 3회 받으면 제적됩니다.",
     "평점이 너무 낮으면 학사경고 받나요"),
    ("전과는 2학년 진학 전에 신청할 수 있으며 희망 학과의 면접을 거쳐 허가됩니다.",
     "다른 학과로 옮기고 싶은데 전과 가능한가요"),
    ("복수전공은 2학년 이상 학생이 신청할 수 있으며 제2전공에서 36학점 이상을 이수해야 합니다.",
     "전공을 하나 더 하려면 복수전공 학점 얼마나 들어야 해요"),
    ("교환학생 프로그램은 해외 협정 대학에서 1~2학기 수학하며 취득 학점은 본교 학점으로 인정됩니다.",
     "외국 대학에 교환학생으로 가면 학점 인정되나요"),
    ("현장실습은 3학년 이상이 참여할 수 있으며 기업에서 8주 근무하면 3학점을 받습니다.",
     "기업 인턴십 현장실습 하면 학점 주나요"),
    ("계절학기는 여름방학과 겨울방학에 개설되며 한 계절에 최대 6학점까지 수강할 수 있습니다.",
     "방학 때 여름 계절학기 몇 학점 들을 수 있어요"),
    ("등록금은 고지서에 안내된 기간에 가상계좌로 납부하며 분할납부는 4회까지 가능합니다.",
     "등록금 나눠서 분할납부 할 수 있나요"),
    ("등록금 반환은 학기 개시 후 휴학하거나 자퇴할 때 경과 기간에 따라 일부를 돌려받습니다.",
     "자퇴하면 냈던 등록금 반환 받을 수 있어요"),
    ("질병으로 결석한 경우 진단서를 제출하면 출석인정 공결로 처리됩니다.",
     "아파서 수업 빠졌을 때 진단서 내면 출석 인정돼요"),
    ("재학증명서와 성적증명서는 인터넷 증명발급 사이트에서 무료로 발급할 수 있습니다.",
     "성적증명서 온라인으로 뽑을 수 있나요"),
    ("학생증은 모바일 학생증 앱에서 발급받거나 학생지원센터에서 실물 카드를 신청합니다.",
     "학생증 잃어버렸는데 어디서 새로 발급하나요"),
    ("외국인 유학생은 비자 연장을 위해 출입국사무소에 재학증명서와 성적증명서를 제출해야 합니다.",
     "유학생 비자 연장할 때 필요한 서류"),
    ("캡스톤디자인은 4학년 전공 필수 과목으로 팀 프로젝트 결과물을 학기 말에 발표합니다.",
     "캡스톤 팀 프로젝트는 몇 학년에 들어요"),
    ("학업상담은 지도교수와 매 학기 1회 이상 진행하며 상담 예약은 포털에서 합니다.",
     "지도교수님 상담 예약은 어떻게 해요"),
]
DOCS = [doc for doc, _ in CORPUS]
QUERIES = [query for _, query in CORPUS]


@pytest.fixture(scope="module")
def kiwi():
    from advisor.chunking.kiwi_tokens import get_tokenizer
    return get_tokenizer()


@pytest.fixture(scope="module")
def doc_tokens(kiwi):
    return kiwi.content_morphemes(DOCS)


@pytest.fixture(scope="module")
def lsa(doc_tokens):
    return LSAEmbedder.train(DOCS, doc_tokens, dim=256, seed=0)


# --- LSA ---------------------------------------------------------------------------------------

def test_lsa_is_an_embedder_with_rank_bounded_by_the_corpus(lsa):
    assert isinstance(lsa, Embedder)
    assert lsa.name == "lsa" and lsa.version.startswith("lsa-")
    assert lsa.dim == len(DOCS) - 1  # 256 asked, but 30 texts cannot carry more than 29 dimensions


def test_lsa_training_is_deterministic(lsa, doc_tokens):
    again = LSAEmbedder.train(DOCS, doc_tokens, dim=256, seed=0)
    assert again.version == lsa.version
    assert np.array_equal(again.embed(DOCS, doc_tokens), lsa.embed(DOCS, doc_tokens))


def test_lsa_rows_are_unit_float32_and_independent_of_the_batch(lsa, doc_tokens):
    vectors = lsa.embed(DOCS, doc_tokens)
    assert vectors.dtype == np.float32 and vectors.shape == (len(DOCS), lsa.dim)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(lsa.embed(DOCS[3:4], doc_tokens[3:4])[0], vectors[3])


def test_lsa_query_path_gives_the_training_product(lsa, doc_tokens):
    """embed() sums each text's projection rows directly (no sparse set-up per query); it must
    give what the sparse TF-IDF matrix the SVD was trained on gives, times the same projection."""
    from advisor.index.embed_lsa import _combine, char_features, word_features

    x = _combine(lsa.params, lsa._word.matrix([word_features(t) for t in doc_tokens]),
                 lsa._char.matrix([char_features(t) for t in DOCS]))
    product = np.asarray(x @ lsa._projection_t, dtype=np.float32)
    product /= np.linalg.norm(product, axis=1, keepdims=True)
    assert np.allclose(lsa.embed(DOCS, doc_tokens), product, atol=1e-6)


def test_lsa_save_and_load_embed_bit_identically(lsa, doc_tokens, kiwi, tmp_path):
    lsa.save(tmp_path)
    assert not list(tmp_path.glob("*.pkl"))
    loaded = load_embedder(tmp_path)
    assert isinstance(loaded, LSAEmbedder) and loaded.version == lsa.version and loaded.dim == lsa.dim
    query_tokens = kiwi.content_morphemes(QUERIES)
    assert np.array_equal(loaded.embed(DOCS, doc_tokens), lsa.embed(DOCS, doc_tokens))
    assert np.array_equal(loaded.embed(QUERIES, query_tokens), lsa.embed(QUERIES, query_tokens))


def test_lsa_load_rejects_files_that_do_not_match_their_version(lsa, tmp_path):
    lsa.save(tmp_path)
    meta = (tmp_path / "embedder.json").read_text(encoding="utf-8")
    (tmp_path / "embedder.json").write_text(meta.replace(lsa.version, "lsa-000000000000"), encoding="utf-8")
    with pytest.raises(ValueError, match="do not match"):
        load_embedder(tmp_path)


def test_lsa_unknown_words_do_not_crash_and_give_no_nan(lsa, kiwi):
    texts = ["xyzzy qwerty", "", "휴학 zzzz 신청"]
    vectors = lsa.embed(texts, kiwi.content_morphemes(texts))
    assert not np.isnan(vectors).any()
    assert np.array_equal(vectors[0], np.zeros(lsa.dim, np.float32))  # nothing known: matches nothing
    assert np.array_equal(vectors[1], np.zeros(lsa.dim, np.float32))
    assert math.isclose(float(np.linalg.norm(vectors[2])), 1.0, rel_tol=1e-5)  # known words still count


def test_lsa_trained_on_tokens_requires_tokens(lsa):
    with pytest.raises(ValueError, match="pass the texts' tokens"):
        lsa.embed(["휴학 신청"])
    with pytest.raises(TypeError):
        lsa.embed("휴학 신청", [["휴학", "신청"]])


def test_lsa_without_tokens_uses_its_own_word_split():
    model = LSAEmbedder.train(DOCS, None, dim=16)
    vectors = model.embed(["휴학 신청"])
    assert vectors.shape == (1, 16) and math.isclose(float(np.linalg.norm(vectors[0])), 1.0, rel_tol=1e-5)


def test_lsa_finds_the_text_a_paraphrased_question_asks_about(lsa, doc_tokens, kiwi):
    docs = lsa.embed(DOCS, doc_tokens)
    queries = lsa.embed(QUERIES, kiwi.content_morphemes(QUERIES))
    top = np.argmax(queries @ docs.T, axis=1)
    recall_at_1 = float(np.mean(top == np.arange(len(DOCS))))
    # measured 0.83 (25/30; plain TF-IDF over the morphemes: 0.90). The margin absorbs a Kiwi
    # model update; a broken projection or vocabulary lands near 1/30.
    assert recall_at_1 >= 0.75, recall_at_1


# --- OpenAI-compatible endpoint ----------------------------------------------------------------

@pytest.fixture
def con():
    connection = duckdb.connect(":memory:")
    yield connection
    connection.close()


def expected(text: str, dim: int = 8) -> np.ndarray:
    vector = np.asarray(embedding_vector(text, dim), dtype=np.float32)
    return vector / np.linalg.norm(vector)


def test_openai_embedder_batches_and_normalizes(openai_server, con):
    texts = [f"문서 {i}" for i in range(300)]
    embedder = OpenAIEmbedder(settings_for(openai_server), con, model="test-embed", batch_size=128)
    vectors = embedder.embed(texts)
    assert len(openai_server.embedding_requests) == math.ceil(300 / 128)
    assert sorted(len(body["input"]) for body in openai_server.embedding_requests) == [44, 128, 128]
    assert {body["model"] for body in openai_server.embedding_requests} == {"test-embed"}
    assert vectors.dtype == np.float32 and vectors.shape == (300, 8) and embedder.dim == 8
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    assert np.allclose(vectors[17], expected(texts[17]), atol=1e-6)  # in input order
    usage = embedder.usage
    assert (usage.calls, usage.retries, usage.failures) == (3, 0, 0)
    assert usage.prompt_tokens == sum(len(t) for t in texts)


def test_openai_embedder_cache_makes_a_second_run_free(openai_server, con):
    texts = ["휴학 신청", "복학 신청", "휴학 신청"]  # a duplicate is sent once
    first = OpenAIEmbedder(settings_for(openai_server), con, model="test-embed").embed(texts)
    assert [body["input"] for body in openai_server.embedding_requests] == [["휴학 신청", "복학 신청"]]
    again = OpenAIEmbedder(settings_for(openai_server), con, model="test-embed")
    second = again.embed(texts)
    assert len(openai_server.embedding_requests) == 1  # no new request
    assert np.array_equal(first, second)  # the cached vectors are the fetched ones, bit for bit
    assert (again.usage.calls, again.usage.cache_hits) == (0, 2)
    other_model = OpenAIEmbedder(settings_for(openai_server), con, model="other-embed")
    other_model.embed(texts)
    assert len(openai_server.embedding_requests) == 2  # another model misses on purpose


def test_openai_embedder_retries_a_429(openai_server, con):
    openai_server.script_embeddings(error(429, retry_after="0"))
    embedder = OpenAIEmbedder(settings_for(openai_server), con, model="test-embed")
    vectors = embedder.embed(["장학금"])
    assert len(openai_server.embedding_requests) == 2
    assert (embedder.usage.calls, embedder.usage.retries, embedder.usage.failures) == (2, 1, 0)
    assert np.allclose(vectors[0], expected("장학금"), atol=1e-6)


def test_openai_embedder_reports_a_persistent_500_and_caches_nothing(openai_server, con):
    openai_server.script_embeddings(*[error(500)] * 3)
    embedder = OpenAIEmbedder(settings_for(openai_server), con, model="test-embed")  # max_retries=2
    with pytest.raises(EmbeddingFailed) as failed:
        embedder.embed(["기숙사"])
    assert failed.value.failure.reason == "llm_http_500"
    assert (embedder.usage.calls, embedder.usage.failures) == (3, 1)
    assert embedder.usage.failure_reasons == {"llm_http_500": 1}
    assert con.sql("SELECT count(*) FROM embedding_cache").fetchall() == [(0,)]


def test_openai_embedder_rejects_a_wrong_count_without_retrying(openai_server, con):
    from tests.openai_server import Behaviour
    openai_server.script_embeddings(Behaviour(content="[]"))
    embedder = OpenAIEmbedder(settings_for(openai_server), con, model="test-embed")
    with pytest.raises(EmbeddingFailed, match="llm_invalid_output"):
        embedder.embed(["a", "b"])
    assert len(openai_server.embedding_requests) == 1


def test_openai_embedder_blank_texts_are_zero_and_not_sent(openai_server, con):
    vectors = OpenAIEmbedder(settings_for(openai_server), con, model="test-embed").embed(["", "학사경고"])
    assert [body["input"] for body in openai_server.embedding_requests] == [["학사경고"]]
    assert np.array_equal(vectors[0], np.zeros(8, np.float32))


def test_openai_embedder_dimensions_are_requested_and_part_of_the_version(openai_server):
    embedder = OpenAIEmbedder(settings_for(openai_server), None, model="text-embedding-3-small", dimensions=4)
    assert embedder.embed(["전과"]).shape == (1, 4)
    assert openai_server.embedding_requests[0]["dimensions"] == 4
    assert embedder.version == "text-embedding-3-small@4"


def test_openai_embedder_save_and_load_reads_the_endpoint_from_the_environment(openai_server, tmp_path, monkeypatch):
    embedder = OpenAIEmbedder(settings_for(openai_server), None, model="test-embed")
    vector = embedder.embed(["교환학생"])
    embedder.save(tmp_path)
    assert "sk-test" not in (tmp_path / "embedder.json").read_text(encoding="utf-8")  # no secrets on disk
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.base_url)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    loaded = load_embedder(tmp_path)
    assert isinstance(loaded, OpenAIEmbedder) and loaded.version == "test-embed" and loaded.dim == 8
    assert np.array_equal(loaded.embed(["교환학생"]), vector)


def test_openai_embedder_without_an_llm_says_so():
    with pytest.raises(LLMNotConfigured, match="lsa"):
        OpenAIEmbedder(LLMSettings.from_env({}), None)


def test_openai_embedder_model_defaults_from_the_environment(openai_server, monkeypatch):
    monkeypatch.setenv("ADVISOR_EMBEDDING_MODEL", "my-local-embedder")
    assert OpenAIEmbedder(settings_for(openai_server)).version == "my-local-embedder"
    monkeypatch.delenv("ADVISOR_EMBEDDING_MODEL")
    assert OpenAIEmbedder(settings_for(openai_server)).version == "text-embedding-3-small"
