"""URAG-D document augmentation, offline: each chunk gets a one-sentence summary of its document
prepended (docs/method.md §B.4), built extractively from the title and the document's lead sentence.

With an LLM configured, `advisor.chunking.llm_augment` rewrites the chunk in its document's light instead;
both are stored side by side in `chunk_augmentations`, so a system can use either.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import duckdb

from advisor.annotation.model import ChunkContext
from advisor.annotation.stage import chunk_contexts
from advisor.chunking.llm_augment import Augmentation
from advisor.lakehouse import insert_rows, transaction
from advisor.versioning import code_version

_HEADING = re.compile(r"^#+\s*")
_SENTENCE_END = re.compile(r"(?<=[.!?。])\s|(?<=다\.)|(?<=요\.)")


def lead_sentence(document_text: str, title: str) -> str:
    """The first sentence of the document's body: not its title, not a heading, not a table row."""
    for line in document_text.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", "- ", "|")) or _HEADING.sub("", line) == title:
            continue
        first = _SENTENCE_END.split(line, maxsplit=1)[0].strip()
        return first[:200]
    return ""


def extractive_summary(title: str, document_text: str) -> str:
    lead = lead_sentence(document_text, title)
    if not lead:
        return title
    return f"{title}: {lead}" if title and title not in lead else lead


def version() -> str:
    import advisor.chunking.augment as this

    return code_version(this)


class ExtractiveAugmenter:
    """The offline backend: honest about what it is (an extractive summary, no rewriting).
    Same interface as `advisor.chunking.llm_augment.LLMAugmenter`."""

    method = "extractive"

    def __init__(self) -> None:
        self.version = version()

    def augment(self, contexts: Sequence[ChunkContext]) -> list[Augmentation]:
        return [Augmentation(extractive_summary(c.doc_title, c.doc_lead), c.text) for c in contexts]


def build_augmentations(con: duckdb.DuckDBPyConnection, augmenter, run_id: str) -> dict:
    """Augment the chunks that have no augmentation by this method and version yet."""
    done = {r[0] for r in con.execute(
        "SELECT chunk_id FROM chunk_augmentations WHERE method = ? AND method_version = ?",
        [augmenter.method, augmenter.version]).fetchall()}
    todo = [c for c in chunk_contexts(con) if c.chunk_id not in done]
    rows, failures = [], []
    for context, result in zip(todo, augmenter.augment(todo) if todo else []):
        if not isinstance(result, Augmentation):  # the LLM backend failed: recorded, never guessed
            failures.append({"chunk_id": context.chunk_id, "reason": result.reason, "detail": result.detail})
            continue
        rows.append({"chunk_id": context.chunk_id, "method": augmenter.method, "method_version": augmenter.version,
                     "summary": result.summary, "augmented_text": result.text, "run_id": run_id})
    with transaction(con):
        con.execute("DELETE FROM chunk_augmentations WHERE method = ? AND chunk_id IN (SELECT unnest(?))",
                    [augmenter.method, [r["chunk_id"] for r in rows]])
        con.execute("DELETE FROM chunk_augmentations WHERE chunk_id NOT IN (SELECT chunk_id FROM chunks)")
        insert_rows(con, "chunk_augmentations", rows)
    return {"augmented": len(rows), "unchanged": len(done), "failures": failures}
