"""Intent routing (docs/method.md §A online step 2): the LLM when one is configured, else (and whenever the
LLM call fails) the classifier trained at build time and saved in the index build."""

from __future__ import annotations

from pathlib import Path

from advisor.index.layout import INTENT_DIR

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

    def route(self, message: str) -> tuple[str, dict]:
        """(intent, how it was decided) for one message."""
        if self.llm_router is not None:
            decided = self.llm_router.route([message])[0]
            if decided is not None:
                return decided, {"router": "llm"}
        if self.classifier is not None:
            prediction = self.classifier.predict([message])[0]
            return prediction.intent, {"router": "classifier", "confidence": round(float(prediction.confidence), 4),
                                       "llm_failed": self.llm_router is not None}
        return FALLBACK_INTENT, {"router": "none"}
