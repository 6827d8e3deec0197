"""The proFILL paper's baseline, answering one question for a known profile: dense retrieval with the
profile written into the query (no hard filter, nothing asked), and an answer made by the engine's
own offline answerer from the top passages, so that only retrieval differs from the engine's answer.
It is the evaluation's `dense` system in the oracle setting (eval/systems/offline.py, run_baseline), for the
preference study of `/study` (serving/api/study.py), which may not import the evaluation."""

from __future__ import annotations

from datetime import date
from typing import Any, Mapping

from advisor.retrieval.profile import known_profile, profile_prefix
from serving.answer.fallback import fallback_answer
from serving.dialogue.assembly import passage_citation
from serving.dialogue.types import Reply

ANSWER_K = 10  # chunks retrieved, as served (the paper's 7 + 3)
EVIDENCE_TOP = 3  # the baselines answer from their top 3 chunks (eval/systems/offline.py EVIDENCE_TOP)


def profiled_query(question: str, profile: Mapping[str, Any], schema) -> str:
    """The question with the profile in words appended (the soft prefix's wording: "컴퓨터학과 2021학번")."""
    words = profile_prefix(known_profile(profile, schema), schema)
    return f"{question} {words}".strip()


def dense_rag_answer(advisor, question: str, profile: Mapping[str, Any], today: date | None = None) -> Reply:
    """The baseline's answer (with citations) to `question` asked by a student with `profile`."""
    text = profiled_query(question, profile, advisor.schema)
    found = advisor.retriever.search(text, None, mode="dense", k=ANSWER_K, soft=False, hard=False,
                                     today=today or advisor.config.today())
    evidence = found.chunks[:EVIDENCE_TOP]
    if not evidence:
        answer, method, disclaimer = fallback_answer(text, advisor.config, None)
        return Reply("answer", answer=answer, tier="fallback", answer_method=method, disclaimer=disclaimer)
    composed = advisor.offline_answer(text, evidence, {})
    cited = composed.cited or [0]
    citations = [passage_citation(evidence[i], (composed.snippets or {}).get(i)) for i in cited]
    return Reply("answer", answer=composed.text, tier="documents", answer_method=composed.method,
                 citations=citations)
