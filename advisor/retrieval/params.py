"""Every knob of profile-aware retrieval in one place (docs/method.md §A online steps 5-6), so an
evaluation run can record exactly what it used (`asdict(params)`). The defaults of the knobs an
institution may set are the config's (advisor.config.RetrievalSettings): one number, one place."""

from __future__ import annotations

from dataclasses import dataclass, field

from advisor.config import RetrievalSettings

# Words that mark a query as time-sensitive (then dynamic notices get the larger share). Korean
# entries match ignoring spaces (이번 학기 = 이번학기); English ones as whole words, case-insensitive.
# Deliberately short: a false positive only swaps 7+3 for 3+7, and the caller can pass an LLM's
# decision instead.
TIME_WORDS: tuple[str, ...] = (
    "이번 학기", "다음 학기", "올해", "이번 주", "오늘", "언제", "마감", "기간", "일정", "신청", "접수",
    "공지", "최근", "날짜", "며칠", "개강",
    "deadline", "when", "due", "schedule", "this semester", "next semester", "announcement",
    "notice", "recent", "latest", "date", "period",
)


_CONFIGURED = RetrievalSettings()  # what an institution that sets nothing gets


@dataclass(frozen=True)
class RetrievalParams:
    rrf_k: int = _CONFIGURED.rrf_k
    static_k: int = _CONFIGURED.static_k
    dynamic_k: int = _CONFIGURED.dynamic_k
    half_life_days: float = _CONFIGURED.half_life_days
    candidates: int = _CONFIGURED.candidates
    # Dense search: exact (numpy over the eligible rows: perfect recall under any filter), the
    # usearch HNSW index over-fetching candidates x ann_overfetch and filtering afterwards (topped
    # up exactly over the eligible rows when a selective filter leaves fewer than asked), or None:
    # exact for collections of at most dense_exact_max_rows chunks, HNSW above.
    dense_exact: bool | None = _CONFIGURED.dense_exact
    dense_exact_max_rows: int = _CONFIGURED.dense_exact_max_rows
    ann_overfetch: int = 4
    # Order of the aggregated list: "score" (by collection-local score, the larger-share
    # collection first on ties) or "primary_first" (all of the larger-share collection, then the other).
    merge: str = "score"
    time_words: tuple[str, ...] = TIME_WORDS
    # Soft augmentation beyond the paper's text prefix (measured in the README's evaluation):
    # - specificity: a third ranking in the hybrid fusion, of the candidates by how many known
    #   attributes they are limited to the student's own value on (documents written for them);
    # - prefix_in_bm25: the paper prepends the profile to the query for both searches; written
    #   into BM25, "컴퓨터학과 2021학번" matches every page that names the department or a year,
    #   so by default only the dense search reads the prefix and BM25 the question's own words.
    specificity: bool = _CONFIGURED.specificity
    prefix_in_bm25: bool = _CONFIGURED.prefix_in_bm25
    extra: dict = field(default_factory=dict, compare=False)  # free-form notes recorded with a run

    @property
    def k(self) -> int:
        """Chunks per retrieval: the aggregated list's two shares (the paper's 7 + 3 = 10)."""
        return self.static_k + self.dynamic_k


def params_from(settings: dict | None) -> RetrievalParams:
    """RetrievalParams from the config's `retrieval` section (as stored in a build's manifest)."""
    given = {k: v for k, v in (settings or {}).items() if v is not None}
    if "time_words" in given:
        given["time_words"] = tuple(given["time_words"])
    return RetrievalParams(**given)
