"""One message to one route, offline: the build's classifier (advisor/intents/classifier.py) and
whether it is sure. Pure logic, shared by the serving router and any evaluation that measures
routing as the student meets it. No rule decides first: what the classifier is unsure of, the
dialogue leaves to the tiers' evidence (docs/method.md §A online step 2)."""

from __future__ import annotations


def classify(message: str, classifier) -> tuple[str, dict]:
    """(route, how it was decided: the classifier's confidence, whether it is sure, the threshold)."""
    prediction = classifier.predict([message])[0]
    return prediction.route, {"router": "classifier", "confidence": round(prediction.confidence, 4),
                              "sure": prediction.sure, "threshold": classifier.threshold}
