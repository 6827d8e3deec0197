"""Intent routing by an LLM (docs/method.md §A online step 2), over any OpenAI-compatible endpoint.

The router (serving/dialogue/router.py) asks the LLM only about messages the certain rules
(advisor/intents/route.py: greeting words only, a question about the assistant) leave open, so
those two behave the same with or without an LLM. A failed call (transport error after retries,
malformed JSON, an intent outside the five) yields None for that message: the caller then uses the offline classifier. Nothing is invented here, and
an offline decision is never reported as the LLM's.
"""

from __future__ import annotations

from collections.abc import Sequence

from advisor import language
from advisor.intents import INTENTS
from advisor.llm.few_shot import FewShotClassifier

PROMPT_VERSION = "intent-v2"
SCHEMA_NAME = "intent_route"
# the greetings the instructions name, English first: advisor/language/<code>/router.yaml
_GREETING_WORDS = ", ".join(language.words("router", "greeting_words", ("en", "ko")))
SYSTEM = (
    "You route messages that students send to a university's academic-advising assistant. "
    "Choose exactly one intent:\n"
    f"- greeting: only a hello, with no question ({_GREETING_WORDS}).\n"
    "- ability: asks about the assistant itself: what it is (a person, a bot, an AI), what it can do, how "
    "to use it, when it answers, whether to trust it, what it keeps, which languages it speaks.\n"
    "- faq: a common question about a procedure or fact that a university FAQ list answers the same "
    "way for everyone (where to get a form, when an office opens).\n"
    "- retrieval: any other question or request about the university (rules, requirements, courses, "
    "schedules, notices), especially when the answer depends on the student's department, cohort, "
    "year or status.\n"
    "- smalltalk: thanks, goodbyes, feelings and chat that ask for no university information, "
    "including complaints about school life.\n"
    "A greeting or a remark in front of a real question does not change the question's intent. "
    "Answer with JSON only."
)
# Few-shot examples (message, intent) of every language, taken in turn: advisor/language/<code>/router.yaml
EXAMPLES: tuple[tuple[str, str], ...] = tuple(tuple(example) for example in language.in_turn("router", "examples"))


class LLMIntentRouter(FewShotClassifier):
    version, schema_name = PROMPT_VERSION, SCHEMA_NAME
    field, field_schema = "intent", {"type": "string", "enum": list(INTENTS)}
    system, examples = SYSTEM, EXAMPLES

    def route(self, texts: Sequence[str]) -> list[str | None]:
        """One intent per message; None where the LLM failed (use the offline classifier there)."""
        if isinstance(texts, str):
            raise TypeError("route takes a list of messages, not one string")
        return [intent if intent in INTENTS else None for intent in self.decide(texts)]
