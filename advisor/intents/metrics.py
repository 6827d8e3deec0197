"""Intent-routing metrics: per-class precision/recall/F1 (docs/method.md §A, "intent routing"): one
computation for the build (advisor/intents/classifier.py `evaluate`) and the evaluation (eval/)."""

from __future__ import annotations

from collections.abc import Sequence


def intent_report(gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str] | None = None) -> dict:
    """Per-class precision/recall/F1/support, macro F1 and accuracy of an intent router.

    `labels` fixes the classes reported (and their order); None means every label seen in gold or
    predicted, sorted. A predicted label outside `labels` (e.g. a router's fallback) simply counts
    as wrong; a gold label outside `labels` is an error, because its queries would silently drop
    out of the per-class support. Classes with no predictions (or no support) get 0, not NaN.

    Returns {"n", "accuracy", "macro_f1", "per_class": {label: {"precision", "recall", "f1",
    "support"}}}.
    """
    # sklearn is imported here so that `eval.metrics`, which re-exports this, stays quick to import.
    from sklearn.metrics import accuracy_score, precision_recall_fscore_support

    if isinstance(gold, str) or isinstance(predicted, str):
        raise TypeError("gold and predicted must be sequences of labels, not strings")
    gold, predicted = list(gold), list(predicted)
    if len(gold) != len(predicted):
        raise ValueError(f"gold has {len(gold)} labels but predicted has {len(predicted)}")
    if not gold:
        raise ValueError("no intent labels given")
    if labels is None:
        classes = sorted(set(gold) | set(predicted))
    else:
        if isinstance(labels, str):
            raise TypeError("labels must be a sequence of labels, not a string")
        classes = list(dict.fromkeys(labels))
        unknown = sorted(set(gold) - set(classes))
        if unknown:
            raise ValueError(f"gold labels not in `labels`: {unknown}")

    precision, recall, f1, support = precision_recall_fscore_support(
        gold, predicted, labels=classes, average=None, zero_division=0
    )
    per_class = {
        label: {
            "precision": float(precision[i]),
            "recall": float(recall[i]),
            "f1": float(f1[i]),
            "support": int(support[i]),
        }
        for i, label in enumerate(classes)
    }
    return {
        "n": len(gold),
        "accuracy": float(accuracy_score(gold, predicted)),
        "macro_f1": float(sum(f1) / len(classes)),
        "per_class": per_class,
    }
