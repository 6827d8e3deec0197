"""The LLM annotator (docs/method.md §A.4): whom each chunk applies to, by an OpenAI-compatible
model with structured output, cached in the lakehouse so a re-run makes no repeat calls.

The prompt and the JSON schema live in advisor.annotation.llm_prompt and are built from the
institution's profile schema. Offline (no key, no base URL) `LLMClient` refuses to start; the
pipeline then uses the rule-based annotator instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict

import duckdb

from advisor.annotation.llm_prompt import PROMPT_VERSION, SCHEMA_NAME, build_messages, build_schema
from advisor.annotation.model import (
    AnnotationFailure,
    ChunkAnnotation,
    ChunkContext,
    needs_of,
    normalize,
)
from advisor.config import InstitutionConfig
from advisor.llm.batch import CachedJSONTask
from advisor.llm.client import LLMClient, LLMFailure, LLMUsage

TASK = "annotate"


class LLMAnnotator:
    name = "llm"

    def __init__(
        self, config: InstitutionConfig, client: LLMClient, con: duckdb.DuckDBPyConnection,
        *, prompt_version: str = PROMPT_VERSION,
    ):
        self.config = config
        self.version = f"{prompt_version}+{client.model}"
        self._task = CachedJSONTask(
            client, con, task=TASK, prompt_version=prompt_version,
            schema=build_schema(config), schema_name=SCHEMA_NAME,
        )

    @property
    def schema(self) -> dict:
        return self._task.schema

    @property
    def usage(self) -> LLMUsage:
        """Calls, cache hits, retries, failures and tokens over every annotate() call."""
        return self._task.usage

    @property
    def cost_usd(self) -> float | None:
        """What the calls cost at the model's list price; None for an unpriced model."""
        return self._task.cost_usd

    def usage_summary(self) -> dict:
        """The usage as the asset's metadata shows it."""
        return {**asdict(self.usage), "cost_usd": self.cost_usd, "model": self._task.model,
                "prompt_version": self._task.prompt_version}

    def annotate(self, contexts: Sequence[ChunkContext]) -> list[ChunkAnnotation | AnnotationFailure]:
        results = self._task.run([build_messages(self.config, context) for context in contexts])
        return [self._to_annotation(result) for result in results]

    def record_usage(self, run_id: str, asset: str) -> None:
        """One llm_usage row with this annotator's cumulative usage."""
        self._task.record_usage(run_id, asset)

    def _to_annotation(self, result: dict | LLMFailure) -> ChunkAnnotation | AnnotationFailure:
        if isinstance(result, LLMFailure):
            return AnnotationFailure(result.reason, result.detail)
        applies_to = normalize({name: result.get(name) for name in self.config.profile}, self.config)
        # needs: what the model named plus every restricted attribute, in the schema's order
        wanted = set(result.get("needs") or ()) | set(needs_of(applies_to))
        return ChunkAnnotation(applies_to, tuple(name for name in self.config.profile if name in wanted))
