"""An LLM judge of the dialogue benchmark's final answers (issue 12, part 1: "with an LLM
configured ... the judge scores answers").

Per result row the judge reads the student's message, the final reply and the text of the chunks
the reply cites, and answers three yes/no questions: does the reply respond to the message; is
every claim in it stated by the cited text (asked only when something is cited); does the reply
say it does not know (what an out-of-scope question should get). The prompt is the same for every
row and never names the category: the judge must not be told what the right outcome is.

Verdicts are stored on the row (`judge_*` columns of dialogue_bench_results). Without an LLM
nothing is judged: the columns stay NULL and the judge's metric rows say missing, with the reason
(metrics.compute's `judge_missing`), never a made-up number. A row whose judging failed (429 after
the retries, malformed JSON twice) keeps NULL verdicts and its failure reason; failures are not
cached, so the next run asks again (record.find_run does not reuse a run with failures).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping, Sequence

import duckdb

from advisor.llm.batch import CachedJSONTask
from advisor.llm.client import LLMClient, LLMFailure
from advisor.llm.jsoncheck import strict_object
from eval.dialogue.runner import Result

TASK, PROMPT_VERSION, SCHEMA_NAME = "dialogue_bench_judge", "dialogue-judge-v1", "dialogue_bench_judge"
SCHEMA = strict_object({
    "reason": {"type": "string"},
    "answers_message": {"type": "boolean"},
    "supported": {"type": "boolean"},
    "admits_not_knowing": {"type": "boolean"},
})
MAX_CITED_CHARS = 1500  # per cited chunk: enough for a passage, bounded cost
MAX_CITED = 3
SYSTEM = """\
You grade one reply of a university's academic-advising chat assistant to a student's first \
message. Judge only what is in front of you; do not use outside knowledge of the university.
- answers_message: true when the reply responds to what the message says or asks (a question gets \
the information it asks for; a greeting, thanks or a question about the assistant gets a fitting \
reply). A reply that only says it does not know is false.
- supported: true when every factual claim of the reply is stated in the cited text. If no text is \
cited, false.
- admits_not_knowing: true when the reply says it does not have the information, or that the \
material does not cover it, or only sends the student elsewhere, instead of presenting an answer.
- reason: one short sentence.
Return JSON only."""
USER = """\
Student's message:
<<<
{message}
>>>
Assistant's reply:
<<<
{reply}
>>>
Cited text:
{cited}"""


def cited_texts(build, results: Sequence[Result]) -> dict[str, str]:
    """chunk_id -> text of every chunk the results cite (from the build's chunk store)."""
    wanted = {c for r in results for c in r.cited_chunk_ids}
    texts: dict[str, str] = {}
    for collection in build.collections.values():
        chunks = collection.chunks
        if not wanted or "chunk_id" not in chunks.columns:
            continue
        for chunk_id, text in zip(chunks["chunk_id"].to_list(), chunks["text"].to_list()):
            if chunk_id in wanted:
                texts.setdefault(chunk_id, text or "")
    return texts


def request_for(result: Result, texts: Mapping[str, str]) -> list[dict]:
    cited = [texts[c] for c in result.cited_chunk_ids if c in texts][:MAX_CITED]
    block = "\n".join(f"[{i}] <<<\n{t[:MAX_CITED_CHARS]}\n>>>" for i, t in enumerate(cited, 1)) or "(none)"
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": USER.format(message=result.text, reply=result.answer or "(empty)",
                                                    cited=block)}]


def judge(results: Sequence[Result], client: LLMClient, con: duckdb.DuckDBPyConnection,
          texts: Mapping[str, str]) -> tuple[list[Result], Counter, CachedJSONTask]:
    """The results with the judge's verdicts (or its failure reason) filled in, the failures by
    reason, and the task (for its usage row)."""
    task = CachedJSONTask(client, con, task=TASK, prompt_version=PROMPT_VERSION, schema=SCHEMA,
                          schema_name=SCHEMA_NAME)
    failures: Counter = Counter()
    judged = []
    for result, verdict in zip(results, task.run([request_for(r, texts) for r in results])):
        if isinstance(verdict, LLMFailure):
            failures[verdict.reason] += 1
            judged.append(dataclasses.replace(result, judge_model=client.model, judge_failure=verdict.reason))
            continue
        anything_cited = any(c in texts for c in result.cited_chunk_ids)
        judged.append(dataclasses.replace(
            result, judge_answers=bool(verdict["answers_message"]),
            judge_supported=bool(verdict["supported"]) if anything_cited else None,
            judge_admits_unknown=bool(verdict["admits_not_knowing"]),
            judge_reason=str(verdict["reason"]).strip()[:500], judge_model=client.model, judge_failure=None))
    return judged, failures, task
