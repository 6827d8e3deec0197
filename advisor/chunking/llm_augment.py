"""URAG-D document augmentation (docs/method.md §B.4): every chunk rewritten to stand on its own in
the light of its document's general context, with a one-sentence summary to prepend.

Same caching, retries and usage accounting as the annotator (advisor.llm.batch).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import duckdb

from advisor.annotation.llm_prompt import CONTEXT_TAIL, context_fields
from advisor.annotation.model import ChunkContext
from advisor.llm.batch import CachedJSONTask
from advisor.llm.client import LLMClient, LLMFailure
from advisor.llm.few_shot import few_shot_messages
from advisor.llm.jsoncheck import strict_object

PROMPT_VERSION = "augment-v1"  # bump when the wording or the example changes
TASK = "augment"
SCHEMA_NAME = "chunk_augmentation"
LEAD_CHARS = 800

SCHEMA = strict_object({"summary": {"type": "string"}, "rewritten": {"type": "string"}})

SYSTEM = """\
You prepare chunks of a university's documents for retrieval. You get the document's general \
context (its title, where it sits on the site, and its opening text) and one chunk of it.
Return:
- summary: ONE sentence saying what the chunk is about and whom it concerns, in the chunk's language.
- rewritten: the chunk rewritten to be self-contained: resolve references that only the context \
explains ("이 학과", "위 표", "해당 학번", "this program") and name the document's subject and \
scope where the chunk leaves them implicit. Keep every fact, number, date, course and condition \
exactly; add nothing the context does not support; keep the chunk's language; no commentary."""

USER = """\
Document title: {title}
Breadcrumbs: {breadcrumbs}
Heading path: {headings}
""" + CONTEXT_TAIL

# One worked example beside the prompt: a chunk that is ambiguous without its page's context.
EXAMPLE = (
    ChunkContext(
        chunk_id="example", text="위 과목 중 2과목 이상을 4학년 1학기까지 이수해야 한다.",
        doc_url="https://example.edu/cs/2021", doc_title="컴퓨터학과 2021학번 교육과정",
        kind="page", collection="static", breadcrumbs=("학사안내", "컴퓨터학과", "교육과정"),
        heading_path=("전공필수", "캡스톤디자인"),
        doc_lead="컴퓨터학과 2021학번 입학생에게 적용되는 전공 교육과정을 안내합니다.",
    ),
    {
        "summary": "컴퓨터학과 2021학번의 캡스톤디자인 과목 이수 시기 요건이다.",
        "rewritten": "컴퓨터학과 2021학번 교육과정에 따르면, 전공필수 캡스톤디자인 과목 중 2과목 이상을 "
        "4학년 1학기까지 이수해야 한다.",
    },
)


@dataclass(frozen=True)
class Augmentation:
    summary: str
    rewritten: str

    @property
    def text(self) -> str:
        """What URAG-D indexes: the summary prepended to the rewritten chunk."""
        return f"{self.summary}\n{self.rewritten}"


def check_augmentation(data: dict) -> str | None:
    """Empty fields or a multi-line summary count as invalid output (retried, then a failure)."""
    if not data["summary"].strip() or not data["rewritten"].strip():
        return "summary and rewritten must not be empty"
    if "\n" in data["summary"].strip():
        return "summary must be one sentence on one line"
    return None


def build_messages(context: ChunkContext) -> list[dict]:
    example, answer = EXAMPLE
    return few_shot_messages(SYSTEM, [(user_message(example), answer)], user_message(context))


def user_message(context: ChunkContext) -> str:
    return USER.format(**context_fields(context, LEAD_CHARS))


class LLMAugmenter:
    method = "llm"  # as ExtractiveAugmenter: rows in chunk_augmentations are keyed by method

    def __init__(self, client: LLMClient, con: duckdb.DuckDBPyConnection, *, prompt_version: str = PROMPT_VERSION):
        self.version = f"{prompt_version}+{client.model}"
        self._task = CachedJSONTask(
            client, con, task=TASK, prompt_version=prompt_version,
            schema=SCHEMA, schema_name=SCHEMA_NAME, check=check_augmentation,
        )

    @property
    def usage(self):
        """Cumulative LLMUsage (calls, cache_hits, retries, failures, tokens)."""
        return self._task.usage

    @property
    def cost_usd(self) -> float | None:
        return self._task.cost_usd

    def augment(self, contexts: Sequence[ChunkContext]) -> list[Augmentation | LLMFailure]:
        results = self._task.run([build_messages(context) for context in contexts])
        return [r if isinstance(r, LLMFailure) else Augmentation(r["summary"].strip(), r["rewritten"].strip())
                for r in results]

    def record_usage(self, run_id: str, asset: str) -> None:
        self._task.record_usage(run_id, asset)
