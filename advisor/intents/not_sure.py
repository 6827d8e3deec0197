"""A calibrated "not sure": when the classifier is unsure that a message is a greeting, a question
about the assistant or smalltalk, the message goes on to answering instead of to a template.

Why answering wins a doubt: a wrong template ("반가워요!" to a question) loses the student's
question, while a chat message sent to answering meets the answering path's own "not in my
material" fallback. So a wrong template reply is counted as twice as bad as a template message
sent to answering (MISSED_TEMPLATE_COST), and the threshold minimizing that cost is chosen on a
part of the training data the model was not fitted on (other sources, other hand-written forms):
never on a benchmark.

Decisions are taken on the 4-way (coarse) probabilities: faq and retrieval both mean "answer",
so their probabilities add up against a template's ("졸업 학점?" at faq 0.3, retrieval 0.3,
smalltalk 0.4 is a question, not smalltalk).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from advisor.intents import INFORMATION_INTENTS

TEMPLATE_INTENTS = ("greeting", "ability", "smalltalk")
MISSED_TEMPLATE_COST = 0.5  # a wrong template reply costs 1


def coarse_decision(scores: Mapping[str, float]) -> tuple[str, float]:
    """(intent, probability of its coarse class): the likeliest template intent when it beats faq +
    retrieval together, else the likelier of faq and retrieval with their summed probability."""
    information = sum(scores.get(i, 0.0) for i in INFORMATION_INTENTS)
    template = max(TEMPLATE_INTENTS, key=lambda i: scores.get(i, 0.0))
    if scores.get(template, 0.0) > information:
        return template, float(scores[template])
    return max(INFORMATION_INTENTS, key=lambda i: scores.get(i, 0.0)), float(information)


def decide(scores: Mapping[str, float], threshold: float) -> tuple[str, float, bool]:
    """(intent, confidence, whether a template intent was set aside as unsure)."""
    intent, confidence = coarse_decision(scores)
    if intent in TEMPLATE_INTENTS and confidence < threshold:
        return max(INFORMATION_INTENTS, key=lambda i: scores.get(i, 0.0)), confidence, True
    return intent, confidence, False


def choose_threshold(truth: Sequence[str], probabilities: Sequence[Mapping[str, float]]) -> dict:
    """The threshold (lowest among equally good ones) minimizing the cost on held-out examples,
    with the template precision / recall it gives and would have given at 0, for the metadata."""
    if len(truth) != len(probabilities):
        raise ValueError(f"{len(truth)} labels but {len(probabilities)} probability rows")
    decided = [coarse_decision(p) for p in probabilities]
    candidates = sorted({0.0} | {round(c, 4) for (intent, c) in decided if intent in TEMPLATE_INTENTS})

    def cost(threshold: float) -> float:
        total = 0.0
        for gold, (intent, confidence) in zip(truth, decided):
            if intent not in TEMPLATE_INTENTS:
                continue
            if confidence >= threshold:
                total += gold != intent
            elif gold in TEMPLATE_INTENTS:
                total += MISSED_TEMPLATE_COST
        return total

    costs = {t: cost(t) for t in candidates}
    threshold = min(candidates, key=lambda t: (costs[t], t))
    return {
        "threshold": threshold,
        "missed_template_cost": MISSED_TEMPLATE_COST,
        "validation_examples": len(truth),
        "cost": {"at_0": costs[0.0], "chosen": costs[threshold]},
        "templates_at_0": _template_scores(truth, decided, 0.0),
        "templates_chosen": _template_scores(truth, decided, threshold),
    }


def _template_scores(truth: Sequence[str], decided: Sequence[tuple[str, float]], threshold: float) -> dict:
    replied = [(gold, intent) for gold, (intent, c) in zip(truth, decided)
               if intent in TEMPLATE_INTENTS and c >= threshold]
    right = sum(gold == intent for gold, intent in replied)
    support = sum(gold in TEMPLATE_INTENTS for gold in truth)
    return {"precision": round(right / len(replied), 4) if replied else 0.0,
            "recall": round(right / support, 4) if support else 0.0}
