"""Intent routing (docs/method.md §A online step 2). Certain rules first, the same for every
backend (a greeting-only message, a question about the assistant: advisor/intents/route.py); then
the LLM when one is configured, else (and whenever the LLM call fails) the classifier trained at
build time and saved in the index build, with its calibrated "not sure"."""

from __future__ import annotations

from pathlib import Path

from advisor.index.layout import INTENT_DIR
from advisor.intents.route import certain_intent, classify

FALLBACK_INTENT = "retrieval"  # with no model at all, every message is taken as a question


class IntentRouter:
    def __init__(self, classifier=None, llm_router=None):
        self.classifier, self.llm_router = classifier, llm_router

    @classmethod
    def from_build(cls, build_dir: Path, llm_client=None) -> "IntentRouter":
        classifier = None
        if (Path(build_dir) / INTENT_DIR).is_dir():
            from advisor.intents.classifier import IntentClassifier

            classifier = IntentClassifier.load(Path(build_dir) / INTENT_DIR)
        llm_router = None
        if llm_client is not None:
            from advisor.intents.llm_router import LLMIntentRouter

            llm_router = LLMIntentRouter(llm_client)
        return cls(classifier, llm_router)

    def route(self, message: str, names_a_topic=None) -> tuple[str, dict]:
        """(intent, how it was decided) for one message. `names_a_topic(text)`: whether the text names
        something the institution's material is about (advisor.intents.route.classify)."""
        certain = certain_intent(message)
        if certain is not None:  # no LLM call: the rule decides the same with or without one
            return certain[0], {"router": "rule", "rule": certain[1]}
        if self.llm_router is not None:
            decided = self.llm_router.route([message])[0]
            if decided is not None:
                return decided, {"router": "llm"}
        if self.classifier is not None:
            intent, trace = classify(message, self.classifier, names_a_topic)
            return intent, {**trace, "llm_failed": self.llm_router is not None}
        return FALLBACK_INTENT, {"router": "none"}
