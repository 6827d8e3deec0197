"""The systems and judges that need an LLM (docs/method.md §A "Systems" and "Evaluation protocol"):
HyDE, the listwise reranker (+rerank variants) and the two answer-correctness judges (their
names and properties are in eval/systems/registry.py).

Every call goes through advisor.llm.client with a strict JSON schema. A failed call never becomes
a made-up result: HyDE without a passage searches with the question itself, a failed rerank keeps
the original order, a failed judge scores nothing (None) - and each failure is counted.
"""

from __future__ import annotations

import hashlib
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from advisor.llm.client import JSONRequest, LLMClient, LLMFailure, LLMUsage

HYDE_VERSION = "hyde-v1"
RERANK_VERSION = "rerank-listwise-v1"
JUDGE_VERSIONS = ("judge-score-v1", "judge-items-v1")
RERANK_DEPTH = 20  # the reranker reorders the top 20
RERANK_PASSAGE_CHARS = 500  # each passage as the reranker sees it (the prompt stays small)
VERIFICATION_TYPES = frozenset({"verification", "verification_true", "yes_no", "yesno", "verify", "true_false"})
JUDGE_SUBSET = 600  # the paper judges a stratified 600-case subset

HYDE_SCHEMA = {"type": "object", "properties": {"passage": {"type": "string"}},
               "required": ["passage"], "additionalProperties": False}
HYDE_SYSTEM = (
    "You help a university's document search. Write the passage of an official university document "
    "(regulation, curriculum page, notice or FAQ) that would answer the student's question: 2-4 "
    "sentences, in the language of the question, in the documents' style. Invent plausible details "
    "if needed; the passage is only used to find the real document. Return JSON: {\"passage\": text}."
)

RERANK_SCHEMA = {"type": "object", "properties": {"ranking": {"type": "array", "items": {"type": "integer"}}},
                 "required": ["ranking"], "additionalProperties": False}
RERANK_SYSTEM = (
    "You rank search results for a university advising assistant. Given a student's question and "
    "numbered passages, return the passage numbers ordered from most to least useful for answering "
    "the question (every number at most once; you may leave out irrelevant ones). "
    "Return JSON: {\"ranking\": [numbers]}."
)

SCORE_SCHEMA = {"type": "object", "properties": {"reason": {"type": "string"}, "score": {"type": "number"}},
                "required": ["reason", "score"], "additionalProperties": False}
SCORE_SYSTEM = {
    "verification": (
        "You grade an advising assistant's answer to a yes/no question against the reference answer. "
        "Judge ONLY the yes/no decision: score 1 if the answer reaches the same decision as the "
        "reference, 0 if it reaches the opposite one or none. Return JSON: {\"reason\": one sentence, \"score\": 0 or 1}."),
    "general": (
        "You grade an advising assistant's answer against the reference answer and the expected key items. "
        "Score the share of the expected key items (numbers, course names, conditions, dates) that the "
        "answer states correctly, from 0 to 1. Ignore style and extra text. "
        "Return JSON: {\"reason\": one sentence, \"score\": a number from 0 to 1}."),
}
ITEMS_SCHEMA = {
    "type": "object",
    "properties": {
        "reference_decision": {"type": "string", "enum": ["yes", "no", "none"]},
        "answer_decision": {"type": "string", "enum": ["yes", "no", "none"]},
        "items": {"type": "array", "items": {"type": "object", "properties": {
            "item": {"type": "string"}, "covered": {"type": "boolean"}},
            "required": ["item", "covered"], "additionalProperties": False}},
    },
    "required": ["reference_decision", "answer_decision", "items"],
    "additionalProperties": False,
}
ITEMS_SYSTEM = (
    "You check an advising assistant's answer. First, say which yes/no decision the reference answer "
    "gives and which the assistant's answer gives (\"none\" when a text gives no yes/no decision). "
    "Then list the key items of the reference answer and expected keywords (facts a student needs: "
    "numbers, courses, conditions, dates) and whether the assistant's answer states each one correctly. "
    "Return JSON only."
)


@dataclass
class LLMTally:
    """What the LLM parts of a run cost and how often they failed (recorded in the run's params)."""

    usage: LLMUsage = field(default_factory=LLMUsage)
    failures: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    requests: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def record(self, kind: str, usage: LLMUsage, failed: bool) -> None:
        self.usage.add(usage)
        self.requests[kind] += 1
        if failed:
            self.failures[kind] += 1

    def as_dict(self) -> dict:
        return {"calls": self.usage.calls, "prompt_tokens": self.usage.prompt_tokens,
                "completion_tokens": self.usage.completion_tokens, "requests": dict(self.requests),
                "failures": dict(self.failures)}


def tokens_of(usage: LLMUsage) -> int:
    return usage.prompt_tokens + usage.completion_tokens


# ----------------------------------------------------------------------------- HyDE

def hyde_passages(client: LLMClient, queries: Sequence[str], tally: LLMTally) -> list[tuple[str | None, LLMUsage]]:
    """The hypothetical answer passage per query (None where the LLM failed)."""
    requests = [JSONRequest([{"role": "system", "content": HYDE_SYSTEM}, {"role": "user", "content": q}],
                            HYDE_SCHEMA, "hyde_passage", _non_empty("passage")) for q in queries]
    out = []
    for result, usage in client.complete_json_many(requests):
        failed = isinstance(result, LLMFailure)
        tally.record("hyde", usage, failed)
        out.append((None if failed else result["passage"].strip(), usage))
    return out


def _non_empty(key: str):
    return lambda data: None if str(data.get(key, "")).strip() else f"{key} is empty"


# ----------------------------------------------------------------------------- reranking

def rerank_requests(query: str, passages: Sequence[str]) -> JSONRequest:
    numbered = "\n\n".join(f"[{i}] {p[:RERANK_PASSAGE_CHARS]}" for i, p in enumerate(passages, 1))
    user = f"Question: {query}\n\nPassages:\n{numbered}"
    return JSONRequest([{"role": "system", "content": RERANK_SYSTEM}, {"role": "user", "content": user}],
                       RERANK_SCHEMA, "rerank", _ranking_check(len(passages)))


def _ranking_check(n: int):
    def check(data: dict) -> str | None:
        ranking = data.get("ranking")
        if not isinstance(ranking, list) or not ranking:
            return "ranking is empty"
        if any(isinstance(r, bool) or not isinstance(r, int) or not 1 <= r <= n for r in ranking):
            return f"ranking numbers must be 1..{n}"
        if len(set(ranking)) != len(ranking):
            return "ranking repeats a number"
        return None
    return check


def apply_ranking(items: Sequence, ranking: Sequence[int]) -> list:
    """The ranked items first (1-based numbers), then the rest in their original order."""
    chosen = [items[r - 1] for r in ranking]
    picked = set(ranking)
    return chosen + [item for i, item in enumerate(items, 1) if i not in picked]


def rerank_many(client: LLMClient, jobs: Sequence[tuple[str, Sequence[str]]],
                tally: LLMTally) -> list[tuple[list[int] | None, LLMUsage]]:
    """One listwise ranking per (query, passages) job; None where the LLM failed (keep the order)."""
    results = client.complete_json_many([rerank_requests(q, p) for q, p in jobs])
    out = []
    for result, usage in results:
        failed = isinstance(result, LLMFailure)
        tally.record("rerank", usage, failed)
        out.append((None if failed else list(result["ranking"]), usage))
    return out


# ----------------------------------------------------------------------------- the systems (eval/systems/registry.py)

def hyde_answers(run, oracle: bool) -> list:
    """HyDE over the run's instances: one LLM passage per question (batched), searched densely."""
    from eval.systems.offline import (
        ANSWER_K,
        EVIDENCE_TOP,
        RANK_DEPTH,
        SystemAnswer,
        answer_from_chunks,
        baseline_query,
        extend,
    )

    engine = run.engine()
    texts = [baseline_query(i["query"], run.hidden[i["id"]], oracle, engine) for i in run.instances]
    started = time.perf_counter()
    passages = hyde_passages(run.llm_client, texts, run.tally)
    llm_share = (time.perf_counter() - started) / max(len(texts), 1)
    out = []
    for text, (passage, usage) in zip(texts, passages):
        begun = time.perf_counter()
        # a failed passage: search with the question itself (counted in the tally, never hidden)
        probe = passage or text
        served = engine.retriever.search(probe, None, mode="dense", k=ANSWER_K, soft=False, hard=False,
                                         today=run.today)
        deep = engine.retriever.search(probe, None, mode="dense", k=RANK_DEPTH, soft=False, hard=False,
                                       today=run.today)
        ranked = extend(served.chunks, deep.chunks)
        answer, cited, method = answer_from_chunks(engine, text, served.chunks[:EVIDENCE_TOP], {})
        out.append(SystemAnswer(answer, cited, "documents" if served.chunks else "fallback", method,
                                [c.doc_url for c in ranked], ranked, served.chunk_ids,
                                seconds=time.perf_counter() - begun + llm_share, query_text=text,
                                llm_calls=usage.calls, llm_tokens=tokens_of(usage)))
    return out


def reranked_answers(run, originals: Sequence, dialogue: bool) -> list:
    """The base system's answers (`originals`, one per run instance) with their top 20 chunks
    reordered by the LLM; a failed rerank keeps the original order. `dialogue`: the base is
    proFILL, whose reranker is profile-blind (the paper's point) and whose FAQ answers stay."""
    engine = run.engine()
    jobs = [(a.query_text or inst["query"], [_passage(c) for c in a.candidates[:RERANK_DEPTH]])
            for inst, a in zip(run.instances, originals)]
    started = time.perf_counter()
    todo = [i for i, (_, passages) in enumerate(jobs) if len(passages) > 1]
    rankings = dict(zip(todo, rerank_many(run.llm_client, [jobs[i] for i in todo], run.tally)))
    llm_share = (time.perf_counter() - started) / max(len(jobs), 1)
    out = []
    for i, (inst, original) in enumerate(zip(run.instances, originals)):
        begun = time.perf_counter()
        ranking, usage = rankings.get(i, (None, None))
        top = original.candidates[:RERANK_DEPTH]
        reordered = (apply_ranking(top, ranking) if ranking else list(top)) + original.candidates[RERANK_DEPTH:]
        out.append(_answer_reranked(engine, dialogue, inst, original, reordered, ranking is not None,
                                    time.perf_counter() - begun + llm_share, usage))
    return out


def _answer_reranked(engine, dialogue: bool, inst, original, reordered, reranked: bool, seconds, usage):
    from eval.systems.offline import ANSWER_K, EVIDENCE_TOP, SystemAnswer, answer_from_chunks
    from serving.dialogue.evidence import select_evidence

    urls = [c.doc_url for c in reordered]
    answer, cited, tier, method = original.answer, original.citations, original.tier, original.answer_method
    if dialogue:
        if original.tier == "faq":
            urls = original.citations + urls
        elif original.tier == "documents" and reranked:
            evidence = select_evidence(reordered[:ANSWER_K])
            answer, cited, method = answer_from_chunks(engine, inst["query"], evidence, original.known)
    elif reranked and reordered:
        answer, cited, method = answer_from_chunks(engine, original.query_text, reordered[:EVIDENCE_TOP], {})
    return SystemAnswer(answer, cited, tier, method, urls, reordered, [c.chunk_id for c in reordered[:ANSWER_K]],
                        original.questions, original.questions_asked, original.seconds + seconds,
                        original.known, original.query_text, original.time_sensitive,
                        original.llm_calls + (usage.calls if usage else 0),
                        original.llm_tokens + (tokens_of(usage) if usage else 0))


def _passage(chunk) -> str:
    return f"{chunk.title or ''}\n{chunk.text}".strip()


# ----------------------------------------------------------------------------- judges

def is_verification(instance: Mapping[str, Any]) -> bool:
    return str(instance.get("query_type") or "").lower() in VERIFICATION_TYPES


def judge_subset(instances: Sequence[Mapping[str, Any]], limit: int = JUDGE_SUBSET) -> set[str]:
    """Up to `limit` instance ids stratified by (category, query type): strata take turns, each in
    a fixed pseudo-random order (a hash of the id), so the subset is reproducible and balanced."""
    strata: dict[tuple, list[str]] = defaultdict(list)
    for inst in instances:
        if inst.get("reference_answer") or inst.get("keywords"):  # a judge needs something to judge against
            strata[(str(inst.get("category")), str(inst.get("query_type")))].append(str(inst["id"]))
    queues = [sorted(ids, key=lambda i: hashlib.sha256(i.encode()).hexdigest()) for _, ids in sorted(strata.items())]
    chosen: list[str] = []
    depth = 0
    while len(chosen) < limit and any(depth < len(q) for q in queues):
        for queue in queues:
            if depth < len(queue) and len(chosen) < limit:
                chosen.append(queue[depth])
        depth += 1
    return set(chosen)


def _judge_context(instance: Mapping[str, Any], answer: str) -> str:
    keywords = ", ".join(instance.get("keywords") or []) or "(none)"
    reference = instance.get("reference_answer") or "(none)"
    return (f"Question: {instance['query']}\nReference answer: {reference}\nExpected key items: {keywords}\n"
            f"Assistant's answer: {answer}")


def judge_requests(instance: Mapping[str, Any], answer: str) -> list[JSONRequest]:
    kind = "verification" if is_verification(instance) else "general"
    context = _judge_context(instance, answer)
    return [
        JSONRequest([{"role": "system", "content": SCORE_SYSTEM[kind]}, {"role": "user", "content": context}],
                    SCORE_SCHEMA, "judge_score", _score_check),
        JSONRequest([{"role": "system", "content": ITEMS_SYSTEM}, {"role": "user", "content": context}],
                    ITEMS_SCHEMA, "judge_items"),
    ]


def _score_check(data: dict) -> str | None:
    score = data.get("score")
    if isinstance(score, bool) or not isinstance(score, (int, float)) or not 0 <= score <= 1:
        return "score must be a number from 0 to 1"
    return None


def _items_score(data: dict, verification: bool) -> float | None:
    if verification:
        if data["reference_decision"] == "none":
            return None  # the judge could not read a decision from the reference: no score, not a guess
        return float(data["answer_decision"] == data["reference_decision"])
    items = data["items"]
    return sum(bool(i["covered"]) for i in items) / len(items) if items else None


def judge_many(client: LLMClient, jobs: Sequence[tuple[Mapping[str, Any], str]],
               tally: LLMTally) -> list[tuple[float | None, LLMUsage]]:
    """Answer correctness per (instance, answer): the mean of the two judges that produced a
    score, None when neither did."""
    requests = [r for instance, answer in jobs for r in judge_requests(instance, answer)]
    results = client.complete_json_many(requests)
    out = []
    for j, (instance, _) in enumerate(jobs):
        usage = LLMUsage()
        scores = []
        for position, (result, used) in enumerate(results[2 * j:2 * j + 2]):
            usage.add(used)
            failed = isinstance(result, LLMFailure)
            tally.record(f"judge{position + 1}", used, failed)
            if failed:
                continue
            score = float(result["score"]) if position == 0 else _items_score(result, is_verification(instance))
            if score is not None:
                scores.append(score)
        out.append((sum(scores) / len(scores) if scores else None, usage))
    return out
