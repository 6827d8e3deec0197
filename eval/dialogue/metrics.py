"""The dialogue benchmark's metrics, from result rows (runner.Result or dicts with its fields).

Routing is judged by what the student gets, not only by the router's label: a template intent is
right when its template answered; an FAQ message is right only when the FAQ tier answered from
ITS entry (a wrong entry is its own label, `faq_wrong_entry`, and counts as wrong); any other
answer (documents or fallback) reads as `retrieval`. Per-intent P/R/F1 are advisor.intents.metrics'.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, is_dataclass

from advisor.intents.metrics import intent_report

ROUTED_CATEGORIES = ("greeting", "ability", "smalltalk", "faq", "retrieval")  # category == expected intent
TEMPLATE_CATEGORIES = ("greeting", "ability", "smalltalk")
ANSWERED_AS_FOUND = ("faq", "documents")  # tiers that present an answer as found in the material


def _dict(row) -> dict:
    return asdict(row) if is_dataclass(row) else dict(row)


def effective_intent(row: Mapping) -> str:
    """The intent the student experienced (see the module docstring)."""
    if row["tier"] == "template":
        return row["routed_intent"] or "smalltalk"
    if row["tier"] == "faq":
        if row.get("expected_faq") and row.get("faq_cited") != row["expected_faq"]:
            return "faq_wrong_entry"
        return "faq"
    return "retrieval"


def _share(flags: Sequence[bool]) -> tuple[float | None, int]:
    return (sum(flags) / len(flags) if flags else None), len(flags)


def compute(results: Sequence) -> list[dict]:
    """Metric rows {metric, scope, value, n}: scope "all", an intent, or a register. value is None
    when no message fits (n = 0), never a made-up 0."""
    rows = [_dict(r) for r in results]
    out: list[dict] = []

    def add(metric: str, value, n: int, scope: str = "all") -> None:
        out.append({"metric": metric, "scope": scope, "value": None if value is None else float(value), "n": n})

    routed = [r for r in rows if r["category"] in ROUTED_CATEGORIES]
    if routed:
        report = intent_report([r["category"] for r in routed], [effective_intent(r) for r in routed],
                               labels=ROUTED_CATEGORIES)
        add("routing_accuracy", report["accuracy"], report["n"])
        add("routing_macro_f1", report["macro_f1"], report["n"])
        for intent, scores in report["per_class"].items():
            for name in ("precision", "recall", "f1"):
                add(f"routing_{name}", scores[name], scores["support"], intent)
        # the headline: greeting / ability / smalltalk / FAQ messages only
        value, n = _share([effective_intent(r) == r["category"] for r in routed if r["category"] != "retrieval"])
        add("routing_accuracy_template_faq", value, n)
        for register in sorted({r["register"] for r in routed}):
            value, n = _share([effective_intent(r) == r["category"] for r in routed if r["register"] == register])
            add("routing_accuracy", value, n, register)
    else:
        add("routing_accuracy", None, 0)

    faq = [r for r in rows if r["category"] == "faq"]
    add("faq_right_entry_first", *_share([r["first_citation"] is not None and r["first_citation"] == r["expected_faq"]
                                         for r in faq]))
    add("faq_verbatim", *_share([bool(r["verbatim"]) for r in faq]))

    independent = [r for r in rows if r["category"] == "profile_independent"]
    add("profile_independent_asked_share", *_share([r["questions_asked"] >= 1 for r in independent]))
    add("profile_independent_questions_per_message",
        (sum(r["questions_asked"] for r in independent) / len(independent)) if independent else None, len(independent))

    templates = [r for r in rows if r["category"] in TEMPLATE_CATEGORIES]
    add("template_intents_asked_share", *_share([r["questions_asked"] >= 1 for r in templates]))

    outside = [r for r in rows if r["category"] == "out_of_scope"]
    add("out_of_scope_false_answer_rate", *_share([r["tier"] in ANSWERED_AS_FOUND for r in outside]))

    add("messages", len(rows), len(rows))
    return out


def headline(metrics: Sequence[Mapping]) -> dict[str, float | None]:
    """The scope-"all" metrics by name, for metadata and reports."""
    return {m["metric"]: m["value"] for m in metrics if m["scope"] == "all"}


def markdown(metrics: Sequence[Mapping]) -> str:
    """The metric table as Markdown (the asset's metadata, the report)."""
    lines = ["| metric | scope | value | n |", "|---|---|---:|---:|"]
    for m in metrics:
        value = "–" if m["value"] is None else f"{m['value']:.3f}"
        lines.append(f"| {m['metric']} | {m['scope']} | {value} | {m['n']} |")
    return "\n".join(lines)
