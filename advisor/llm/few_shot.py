"""Few-shot chat messages for the small JSON classifiers (time sensitivity, intent routing)."""

from __future__ import annotations

import json
from collections.abc import Sequence


def few_shot_messages(system: str, examples: Sequence[tuple[str, dict]], query: str) -> list[dict]:
    """The system prompt, each example as a user turn answered with its JSON, then the query."""
    messages = [{"role": "system", "content": system}]
    for example, answer in examples:
        messages.append({"role": "user", "content": example})
        messages.append({"role": "assistant", "content": json.dumps(answer, ensure_ascii=False)})
    messages.append({"role": "user", "content": query})
    return messages
