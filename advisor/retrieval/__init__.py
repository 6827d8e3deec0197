"""Profile-aware hybrid retrieval (proFILL), one library for the serving API and the evaluation.

    build = load_build(latest_build_dir(builds_root))
    retriever = Retriever(build, tokenizer.query_morphemes, RetrievalParams())
    result = retriever.search("졸업 학점은?", {"department": "CS", "admission_year": 2021})
"""

from advisor.index.store import IndexBuild, latest_build_dir, load_build
from advisor.retrieval.fusion import is_time_sensitive, quotas, recency_weight, rrf
from advisor.retrieval.params import TIME_WORDS, RetrievalParams, params_from
from advisor.retrieval.profile import Conflict, conflicts, known_profile, profile_prefix
from advisor.retrieval.results import Hit, RetrievalResult, RetrievedChunk
from advisor.retrieval.retriever import MODES, Retriever

__all__ = [
    "MODES", "TIME_WORDS", "Conflict", "Hit", "IndexBuild", "RetrievalParams", "RetrievalResult", "RetrievedChunk",
    "Retriever", "conflicts", "is_time_sensitive", "known_profile", "latest_build_dir", "load_build",
    "params_from", "profile_prefix", "quotas", "recency_weight", "rrf",
]
