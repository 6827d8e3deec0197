"""The benchmark's questions and reference answers written by an LLM, when one is configured
(issue: "with an LLM configured, paraphrases and reference answers by the LLM").

The synthesized instance stays the ground truth: the gold source, its fact and the profile do not
change. The LLM rewrites the template question in a student's words (same query type, same
claimed value for a yes/no check) and writes the reference answer from the gold passage alone.
Each rewrite is checked before it is used: the question must not name the profile, a yes/no check
must still claim the same quantity, the reference answer must state the fact (or, for a check,
open with the right 네/아니요). A rejected or failed rewrite keeps the template instance, and every
instance says which it is (`written_by`: "template" or "llm:<model>"), so nothing offline passes
for an LLM's work. Calls go through the lakehouse cache (advisor.llm.batch): a re-run with the
same instances and model makes no request.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence

import duckdb

from advisor.index import fields
from advisor.index.store import IndexBuild
from advisor.llm.batch import CachedJSONTask
from advisor.llm.client import LLMClient, LLMFailure
from eval.benchmark.synthesis import chunk_rows, names_profile

TASK, PROMPT_VERSION, SCHEMA_NAME = "benchmark_rewrite", "benchmark-rewrite-v1", "benchmark_rewrite"
SCHEMA = {
    "type": "object",
    "properties": {"question": {"type": "string"}, "reference_answer": {"type": "string"}},
    "required": ["question", "reference_answer"],
    "additionalProperties": False,
}
SYSTEM = """\
You write evaluation questions for a university's academic-advising assistant. You get a template \
question, its type, the passage that answers it and the fact it asks for. Rewrite the question as \
a real student would type it, in the question's language, keeping exactly what it asks: \
- formal: a polite, complete question; first_person: the student asks about their own case; \
verification: a yes/no question that claims exactly the quantity the template claims (even if the \
passage says otherwise: the claim may be false on purpose). \
Never say who the student is (no department, admission year or cohort, grade, major type or \
status): the assistant must find that out. Then write the reference answer from the passage \
alone, one or two sentences stating the fact; for verification start with 네 or 아니요. \
Return JSON {"question": ..., "reference_answer": ...}."""
USER = """\
Type: {query_type}
Template question: {query}
Fact asked for: {fact}
Passage:
<<<
{passage}
>>>"""
MAX_PASSAGE_CHARS = 2000
_QUANTITY = re.compile(r"\d+(?:\.\d+)?")


def rewrite_with_llm(instances: Sequence[dict], build: IndexBuild, client: LLMClient,
                     con: duckdb.DuckDBPyConnection) -> tuple[list[dict], CachedJSONTask, dict]:
    """(instances, the task (for its usage), report); the passages are the build's gold chunks.
    Stated-profile questions keep their template: the student's own words about who they are are
    the point of that slice, and a rewrite would have to keep them exactly. FAQ questions keep the
    FAQ's own words (they have no fact to check a rewrite by)."""
    passages = {row["chunk_id"]: row["text"] for row in chunk_rows(build)}
    schema = build.schema
    order = {i["id"]: n for n, i in enumerate(instances)}
    kept = [i for i in instances if _kept(i)]
    instances = [i for i in instances if not _kept(i)]
    task = CachedJSONTask(client, con, task=TASK, prompt_version=PROMPT_VERSION, schema=SCHEMA,
                          schema_name=SCHEMA_NAME)
    requests = [[{"role": "system", "content": SYSTEM},
                 {"role": "user", "content": USER.format(
                     query_type=_type(i), query=i["query"], fact=i["keywords"][0],
                     passage=passages.get(i.get("gold_chunk_id"), "")[:MAX_PASSAGE_CHARS])}]
                for i in instances]
    outcomes: Counter = Counter()
    written = []
    for instance, result in zip(instances, task.run(requests)):
        problem = "llm_failed" if isinstance(result, LLMFailure) else _problem(instance, result, schema)
        outcomes[problem or "llm"] += 1
        if problem:
            written.append({**instance, "written_by": "template"})
        else:
            written.append({**instance, "query": result["question"].strip(),
                            "reference_answer": result["reference_answer"].strip(), "written_by": f"llm:{client.model}"})
    return sorted(written + kept, key=lambda i: order[i["id"]]), task, dict(outcomes)


def _kept(instance: Mapping) -> bool:
    return instance.get("slice") == "stated_profile" or not instance.get("keywords")


def _type(instance: Mapping) -> str:
    if str(instance.get("query_type")).startswith("verification"):
        return f"verification (the template's claim is {'true' if instance.get('premise') == 'true' else 'false'})"
    return str(instance.get("query_type"))


def _problem(instance: Mapping, result: Mapping, schema: fields.Schema) -> str | None:
    """Why a rewrite cannot replace the template instance, or None."""
    question, answer = str(result.get("question") or "").strip(), str(result.get("reference_answer") or "").strip()
    if not question or not answer:
        return "empty"
    if names_profile(question, instance["profile"], schema):
        return "names_profile"
    fact = re.sub(r"\s", "", instance["keywords"][0])
    if str(instance.get("query_type")).startswith("verification"):
        claimed = _QUANTITY.findall(instance["query"])
        if claimed and claimed[0] not in _QUANTITY.findall(question):
            return "changed_claim"
        lead = "네" if instance.get("premise") == "true" else "아니"
        if not answer.startswith(lead):
            return "wrong_verdict"
    elif fact not in re.sub(r"\s", "", answer):
        return "answer_lacks_fact"
    return None
