"""Intent routing (docs/method.md §A online step 2): the LLM when one is configured, else (and
whenever the LLM call fails) the classifier trained at build time and saved in the index build,
which also says whether it is sure (advisor/intents/route.py)."""

from __future__ import annotations

from pathlib import Path

from advisor.index.layout import INTENT_DIR
from advisor.intents import route_of
from advisor.intents.route import classify

FALLBACK_ROUTE = "information"  # with no model at all, every message is taken as a question


class IntentRouter:
    def __init__(self, classifier=None, llm_router=None):
        self.classifier, self.llm_router = classifier, llm_router

    @classmethod
    def from_build(cls, build_dir: Path, llm_client=None, embedder=None) -> "IntentRouter":
        """The build's classifier, its vector model run with `embedder` (the build's own)."""
        classifier = None
        if (Path(build_dir) / INTENT_DIR).is_dir():
            from advisor.intents.classifier import IntentClassifier

            classifier = IntentClassifier.load(Path(build_dir) / INTENT_DIR, embedder)
        llm_router = None
        if llm_client is not None:
            from advisor.intents.llm_router import LLMIntentRouter

            llm_router = LLMIntentRouter(llm_client)
        return cls(classifier, llm_router)

    def route(self, message: str) -> tuple[str, dict]:
        """(route, how it was decided) for one message: greeting, ability, smalltalk, leaving or
        information; the trace's `sure` says whether a template route may answer on its own."""
        if self.llm_router is not None:
            decided = self.llm_router.route([message])[0]
            if decided is not None:
                return route_of(decided), {"router": "llm", "sure": True}
        if self.classifier is not None:
            route, trace = classify(message, self.classifier)
            return route, {**trace, "llm_failed": self.llm_router is not None}
        return FALLBACK_ROUTE, {"router": "none", "sure": True}
