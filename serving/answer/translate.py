"""A student's question in the institution's language, for retrieval (the paper's flow for
non-Korean questions: translate, retrieve and answer from the institution's material, answer in
the student's language; docs/method.md §A online step 9).

`LLMTranslator.for_retrieval(question, config)` returns the question translated into the
institution's language, or None when there is nothing to translate or the model fails: the caller
then retrieves with the question as asked. It never raises: a translation is a help, not a
condition for answering.
"""

from __future__ import annotations

import logging
import re

from advisor.config import InstitutionConfig
from advisor.llm.client import LLMClient, LLMFailure, LLMUsage
from advisor.llm.jsoncheck import strict_object
from serving.answer.language import english_name, language_of

PROMPT_VERSION = "translate-v1"
SCHEMA_NAME = "translation"
SCHEMA = strict_object({"translation": {"type": "string"}})
SYSTEM = (
    "You translate a university student's question for a search over the university's documents. "
    "Translate it into {target}. Keep every number, date, year, course code and proper name exactly "
    "as written; keep the university's own terms in {target}; do not answer the question or add "
    "anything. Return JSON: {{\"translation\": the translated question}}."
)
_NUMBER = re.compile(r"\d+")


class LLMTranslator:
    """`usage` accumulates what the calls cost (for the evaluation's usage table)."""

    def __init__(self, client: LLMClient) -> None:
        self.client = client
        self.usage = LLMUsage()

    def for_retrieval(self, question: str, config: InstitutionConfig) -> str | None:
        """`question` in the institution's language; None when it is already in it (or has no
        letters) or the translation failed."""
        if not question.strip() or language_of(question, default=config.language) == config.language:
            return None
        return self.translate(question, config.language)

    def translate(self, text: str, target: str) -> str | None:
        """`text` in `target` ("ko", "en", ...), or None on any failure."""
        try:
            messages = [{"role": "system", "content": SYSTEM.format(target=english_name(target))},
                        {"role": "user", "content": text.strip()}]
            result, usage = self.client.complete_json(messages, SCHEMA, SCHEMA_NAME,
                                                      check=translation_check(text, target))
            self.usage.add(usage)
        except Exception as exc:  # noqa: BLE001 - a failed translation only means searching as asked
            logging.getLogger(__name__).warning("translation failed: %s", type(exc).__name__)
            return None
        if isinstance(result, LLMFailure):
            return None
        return result["translation"].strip()


def translation_check(source: str, target: str):
    """The client's semantic check (a problem makes it retry, then fail): the translation is not
    empty, is in the target language, and keeps every number of the question ("2021학번")."""

    def check(data: dict) -> str | None:
        text = data["translation"].strip()
        if not text:
            return "the translation is empty"
        if language_of(text, default=target) != target:
            return f"the translation is not in {english_name(target)}"
        missing = sorted(set(_NUMBER.findall(source)) - set(_NUMBER.findall(text)))
        if missing:
            return f"numbers {missing} of the question are missing from the translation"
        return None

    return check
