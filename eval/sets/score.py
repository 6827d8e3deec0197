"""The aggregates of one set's outcomes, each {metric: (value, n)} with value None when no item fits,
and the issue's targets beside them (docs/method.md, "Test sets").

What counts as right is what the student got, not a router label:
- a greeting / ability / smalltalk / leaving message: that template answered;
- an FAQ message: the final answer cites its entry first (`right_first`); answered verbatim when the
  FAQ tier answered and the entry's stored answer is in the reply unchanged; routed right when both
  the FAQ tier answered and the entry is cited first;
- a document question: the final answer cites the gold page first;
- an out-of-scope question: wrong when answered as found (the FAQ or documents tier);
- a profile-independent FAQ or document question: wrong when any profile question was asked.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from eval.sets.converse import Outcome, entry_key
from eval.sets.items import TEMPLATE_KINDS

ANSWERED_AS_FOUND = ("faq", "documents")
# FAQ entry path -> the paths of every copy of it on the site (eval.benchmark.truth.Truth.copies)
Copies = Mapping[str, Collection[str]]
# metric -> (comparison, target): the targets a change is measured against (issue 25)
TARGETS = {
    "routing": (">=", 0.95),
    "faq_right_first_ko": (">=", 0.90),
    "faq_verbatim_ko": (">=", 0.80),
    "profile_question_on_independent": ("<=", 0.05),
    "out_of_scope_answered_as_found": ("<=", 1 / 20),
    "english_over_korean": (">=", 0.80),
}


def is_gold(item, url: str | None, copies: Copies | None = None) -> bool:
    """Does `url` name the item's gold: the FAQ entry (by path and fragment, or any copy of it the
    ground truth names in `copies`; the real FAQ's entries by their `faq-<id>` fragment on either
    language's page) or the page (by path)?"""
    key = entry_key(url)
    if key is None:
        return False
    if item.kind == "document":
        return key.split("#")[0] == item.gold
    if isinstance(item.gold, int):
        return key.endswith(f"#faq-{item.gold}")
    return key == item.gold or key in (copies or {}).get(item.gold, ())


def verbatim(outcome: Outcome, answers: Mapping[str, str], copies: Copies | None = None) -> bool:
    """The FAQ tier answered and the gold entry's answer is in the reply unchanged. `answers`: the
    store's seed answers by entry URL."""
    if outcome.tier != "faq":
        return False
    stored = [text for url, text in answers.items() if is_gold(outcome.item, url, copies)]
    return any(text.strip() and text.strip() in outcome.answer for text in stored)


def _share(flags: Sequence[bool]) -> tuple[float | None, int]:
    return (sum(flags) / len(flags) if flags else None), len(flags)


def score(outcomes: Sequence[Outcome], answers: Mapping[str, str],
          copies: Copies | None = None) -> dict[str, tuple[float | None, int]]:
    """`copies`: the ground truth's copies of FAQ entries (an answer from a copy is right)."""
    def of(kinds, lang=None):
        return [o for o in outcomes if o.item.kind in kinds and (lang is None or o.item.lang == lang)]

    def template_right(o: Outcome) -> bool:
        return o.tier == "template" and o.template == o.item.kind

    def first_right(o: Outcome) -> bool:
        return is_gold(o.item, o.first_citation, copies)

    metrics: dict[str, tuple[float | None, int]] = {}
    faq_ko = of(("faq",), "ko")
    metrics["routing"] = _share([template_right(o) for o in of(TEMPLATE_KINDS)]
                                + [o.tier == "faq" and first_right(o) for o in faq_ko])
    for kind in TEMPLATE_KINDS:
        metrics[f"routing_{kind}"] = _share([template_right(o) for o in of((kind,))])
    for lang in ("ko", "en"):
        metrics[f"faq_right_first_{lang}"] = _share([first_right(o) for o in of(("faq",), lang)])
        metrics[f"faq_verbatim_{lang}"] = _share([verbatim(o, answers, copies) for o in of(("faq",), lang)])
        metrics[f"document_page_first_{lang}"] = _share([first_right(o) for o in of(("document",), lang)])
        metrics[f"gold_first_{lang}"] = _share([first_right(o) for o in of(("faq", "document"), lang)])
    ko, en = metrics["gold_first_ko"][0], metrics["gold_first_en"][0]
    metrics["english_over_korean"] = (en / ko if ko and en is not None else None, metrics["gold_first_en"][1])
    independent = [o for o in of(("faq", "document")) if o.item.profile_independent]
    metrics["profile_question_on_independent"] = _share([o.questions_asked > 0 for o in independent])
    metrics["out_of_scope_answered_as_found"] = _share([o.tier in ANSWERED_AS_FOUND for o in of(("out_of_scope",))])
    asked = of(("faq", "document"))
    metrics["questions_per_question"] = (sum(o.questions_asked for o in asked) / len(asked) if asked else None,
                                         len(asked))
    return metrics


def meets(metric: str, value: float | None) -> bool | None:
    """Whether `value` meets the metric's target (None: no target, or nothing measured)."""
    if metric not in TARGETS or value is None:
        return None
    comparison, target = TARGETS[metric]
    return value >= target - 1e-9 if comparison == ">=" else value <= target + 1e-9
