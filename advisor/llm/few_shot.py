"""Few-shot chat messages, and the small JSON classifiers built on them (time sensitivity, intent
routing): one field decided per text, None where the call failed so the caller uses its offline
rule instead; an answer is never invented."""

from __future__ import annotations

import json
from collections.abc import Sequence

from advisor.llm.client import JSONRequest, LLMClient, LLMFailure
from advisor.llm.jsoncheck import strict_object


def few_shot_messages(system: str, examples: Sequence[tuple[str, dict]], query: str) -> list[dict]:
    """The system prompt, each example as a user turn answered with its JSON, then the query."""
    messages = [{"role": "system", "content": system}]
    for example, answer in examples:
        messages.append({"role": "user", "content": example})
        messages.append({"role": "assistant", "content": json.dumps(answer, ensure_ascii=False)})
    messages.append({"role": "user", "content": query})
    return messages


class FewShotClassifier:
    """A subclass names the one field the model answers with, its JSON schema, the prompt and the
    worked examples (text, the field's value)."""

    name = "llm"
    version: str  # the prompt version
    schema_name: str
    field: str
    field_schema: dict
    system: str
    examples: Sequence[tuple[str, object]]

    def __init__(self, client: LLMClient):
        self.client = client

    def schema(self) -> dict:
        return strict_object({self.field: self.field_schema})

    def messages(self, text: str) -> list[dict]:
        examples = [(example, {self.field: value}) for example, value in self.examples]
        return few_shot_messages(self.system, examples, text)

    def decide(self, texts: Sequence[str]) -> list[object | None]:
        """The field's value for each text, None where the call failed."""
        answers = self.client.complete_json_many(
            [JSONRequest(self.messages(text), self.schema(), self.schema_name) for text in texts])
        return [None if isinstance(result, LLMFailure) else result[self.field] for result, _usage in answers]
