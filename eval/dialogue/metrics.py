"""The dialogue benchmark's metrics, from result rows (runner.Result or dicts with its fields).

Routing is judged by what the student gets, not only by the router's label: a template intent is
right when its template answered; an FAQ message is right only when the FAQ tier answered from
ITS entry (a wrong entry is its own label, `faq_wrong_entry`, and counts as wrong); any other
answer (documents or fallback) reads as `retrieval`. Per-intent P/R/F1 are advisor.intents.metrics'.

Every metric row is {metric, scope, value, n, missing}. `missing` is NULL unless the value could
not be measured for a reason other than "no message fits": the LLM judge's and the LLM-written
messages' rows without an LLM say why (`llm_missing`), with value NULL and n 0, never a made-up
number. When LLM-written messages are present, the headline metrics are also given per gold
source (scope `llm_written` and `templates`), so a run with an LLM stays comparable to one without.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, is_dataclass

from advisor.intents.metrics import intent_report

ROUTED_CATEGORIES = ("greeting", "ability", "smalltalk", "faq", "retrieval")  # category == expected intent
TEMPLATE_CATEGORIES = ("greeting", "ability", "smalltalk")
ANSWERED_AS_FOUND = ("faq", "documents")  # tiers that present an answer as found in the material
GOLD_LLM = "llm_written"  # llm_messages.GOLD_LLM (not imported: this module stays free of the LLM client)
JUDGE_METRICS = ("judge_answered_share", "judge_supported_share", "judge_out_of_scope_admits_share",
                 "judge_failure_rate")
NOT_JUDGED = "no judge verdicts in these results"


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


def compute(results: Sequence, *, llm_missing: str | None = None) -> list[dict]:
    """Metric rows {metric, scope, value, n, missing}: scope "all", an intent, a register, a
    category (judge) or a gold source. value is None when no message fits (n = 0), never a made-up
    0. `llm_missing`: why no LLM wrote messages or judged (e.g. none configured), recorded on those
    metrics' rows."""
    rows = [_dict(r) for r in results]
    out: list[dict] = []

    def add(metric: str, value, n: int, scope: str = "all", missing: str | None = None) -> None:
        out.append({"metric": metric, "scope": scope, "value": None if value is None else float(value), "n": n,
                    "missing": missing})

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

    _behaviour(rows, add, "all")
    add("messages", len(rows), len(rows))

    written = [r for r in rows if r.get("gold_from") == GOLD_LLM]
    if written:
        add("llm_written_messages", len(written), len(rows))
        for scope, subset in (("templates", [r for r in rows if r.get("gold_from") != GOLD_LLM]), (GOLD_LLM, written)):
            value, n = _share([effective_intent(r) == r["category"] for r in subset
                               if r["category"] in ROUTED_CATEGORIES and r["category"] != "retrieval"])
            add("routing_accuracy_template_faq", value, n, scope)
            _behaviour(subset, add, scope)
    else:
        add("llm_written_messages", None, 0, missing=llm_missing or "no LLM-written messages in these results")
    _judge(rows, add, llm_missing)
    return out


def _behaviour(rows: Sequence[dict], add, scope: str) -> None:
    """FAQ entry and verbatim shares, questions asked, false answers out of scope, over `rows`."""
    faq = [r for r in rows if r["category"] == "faq"]
    add("faq_right_entry_first", *_share([r["first_citation"] is not None and r["first_citation"] == r["expected_faq"]
                                         for r in faq]), scope)
    add("faq_verbatim", *_share([bool(r["verbatim"]) for r in faq]), scope)

    independent = [r for r in rows if r["category"] == "profile_independent"]
    add("profile_independent_asked_share", *_share([r["questions_asked"] >= 1 for r in independent]), scope)
    add("profile_independent_questions_per_message",
        (sum(r["questions_asked"] for r in independent) / len(independent)) if independent else None, len(independent),
        scope)

    templates = [r for r in rows if r["category"] in TEMPLATE_CATEGORIES]
    add("template_intents_asked_share", *_share([r["questions_asked"] >= 1 for r in templates]), scope)

    outside = [r for r in rows if r["category"] == "out_of_scope"]
    add("out_of_scope_false_answer_rate", *_share([r["tier"] in ANSWERED_AS_FOUND for r in outside]), scope)


def _judge(rows: Sequence[dict], add, llm_missing: str | None) -> None:
    """The LLM judge's shares (judge.py): over judged rows only; all missing when nothing was judged."""
    judged = [r for r in rows if r.get("judge_answers") is not None]
    failed = [r for r in rows if r.get("judge_failure")]
    if not judged and not failed:
        for metric in JUDGE_METRICS:
            add(metric, None, 0, missing=llm_missing or NOT_JUDGED)
        return
    inside = [r for r in judged if r["category"] != "out_of_scope"]
    add("judge_answered_share", *_share([bool(r["judge_answers"]) for r in inside]))
    for category in sorted({r["category"] for r in inside}):
        add("judge_answered_share", *_share([bool(r["judge_answers"]) for r in inside if r["category"] == category]),
            category)
    add("judge_supported_share", *_share([bool(r["judge_supported"]) for r in judged
                                          if r.get("judge_supported") is not None]))
    add("judge_out_of_scope_admits_share", *_share([bool(r["judge_admits_unknown"]) for r in judged
                                                    if r["category"] == "out_of_scope"]))
    add("judge_failure_rate", *_share([bool(r.get("judge_failure")) for r in judged + failed]))


def failures(metrics: Sequence[Mapping]) -> bool:
    """Whether a run lost LLM work to failures (a later run must redo it, not reuse this one)."""
    return any(m["metric"] in ("judge_failure_rate", "llm_message_failures") and (m["value"] or 0) > 0
               for m in metrics)


def headline(metrics: Sequence[Mapping]) -> dict[str, float | None]:
    """The scope-"all" metrics by name, for metadata and reports."""
    return {m["metric"]: m["value"] for m in metrics if m["scope"] == "all"}


def markdown(metrics: Sequence[Mapping]) -> str:
    """The metric table as Markdown (the asset's metadata, the report)."""
    lines = ["| metric | scope | value | n |", "|---|---|---:|---:|"]
    for m in metrics:
        value = "–" if m["value"] is None else f"{m['value']:.3f}"
        if m.get("missing"):
            value += f" ({m['missing']})"
        lines.append(f"| {m['metric']} | {m['scope']} | {value} | {m['n']} |")
    return "\n".join(lines)
