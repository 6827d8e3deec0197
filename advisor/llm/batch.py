"""One LLM task (annotate, augment, ...) run over many inputs through the cache.

The input hash covers the whole request (messages and schema), so any change to what would be
sent (chunk, context, prompt wording, the institution's profile schema) misses the cache even if
nobody bumped the prompt version; the version and model are in the key besides, as the columns
a researcher filters on.
"""

from __future__ import annotations

from collections.abc import Sequence

import duckdb

from advisor.llm import cache
from advisor.llm.client import Check, JSONRequest, LLMClient, LLMFailure, LLMUsage

BATCH_SIZE = 64  # results are written to the cache per batch: an interrupted run keeps its work


class CachedJSONTask:
    def __init__(
        self, client: LLMClient, con: duckdb.DuckDBPyConnection, *, task: str, prompt_version: str,
        schema: dict, schema_name: str, check: Check | None = None,
    ):
        self.client, self.con = client, con
        self.task, self.prompt_version = task, prompt_version
        self.schema, self.schema_name, self.check = schema, schema_name, check
        self.usage = LLMUsage()  # cumulative over every run() of this object
        cache.ensure_tables(con)

    @property
    def model(self) -> str:
        return self.client.model

    @property
    def cost_usd(self) -> float | None:
        return self.client.settings.cost_usd(self.usage.prompt_tokens, self.usage.completion_tokens)

    def run(self, requests: Sequence[list[dict]]) -> list[dict | LLMFailure]:
        """One result per request (a list of chat messages), in order."""
        digests = [cache.input_hash({"messages": m, "schema": self.schema}) for m in requests]
        keys = [cache.cache_key(self.task, d, self.prompt_version, self.model) for d in digests]
        results: dict[str, dict | LLMFailure] = cache.get_many(self.con, keys)
        todo: dict[str, tuple[str, list[dict]]] = {}  # identical requests in one run are sent once
        for key, digest, messages in zip(keys, digests, requests):
            if key not in results:
                todo.setdefault(key, (digest, messages))
        self.usage.cache_hits += len(keys) - len(todo)
        pending = list(todo.items())
        for start in range(0, len(pending), BATCH_SIZE):
            results.update(self._call(pending[start : start + BATCH_SIZE]))
        outputs = [results[key] for key in keys]
        for output in outputs:  # failures count per item, duplicates included
            if isinstance(output, LLMFailure):
                self.usage.count_failure(output.reason)
        return outputs

    def record_usage(self, run_id: str, asset: str) -> None:
        """Write this task's cumulative usage as one llm_usage row."""
        u = self.usage
        cache.record_usage(
            self.con, run_id=run_id, asset=asset, task=self.task, model=self.model,
            calls=u.calls, cache_hits=u.cache_hits, retries=u.retries, failures=u.failures,
            prompt_tokens=u.prompt_tokens, completion_tokens=u.completion_tokens, cost_usd=self.cost_usd,
        )

    def _call(self, pending: list[tuple[str, tuple[str, list[dict]]]]) -> dict[str, dict | LLMFailure]:
        requests = [JSONRequest(messages, self.schema, self.schema_name, self.check) for _, (_, messages) in pending]
        answers = self.client.complete_json_many(requests)
        entries, results = [], {}
        for (key, (digest, _)), (result, usage) in zip(pending, answers):
            self.usage.calls += usage.calls
            self.usage.retries += usage.retries
            self.usage.prompt_tokens += usage.prompt_tokens
            self.usage.completion_tokens += usage.completion_tokens
            results[key] = result
            if not isinstance(result, LLMFailure):
                entries.append(cache.CacheEntry(
                    key, self.task, digest, self.prompt_version, self.model, result,
                    usage.prompt_tokens, usage.completion_tokens,
                ))
        cache.put_many(self.con, entries)
        return results
