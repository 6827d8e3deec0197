"""What a set run prints: the aggregates with their targets (test and development sets alike), and,
for development sets only, the items that went wrong."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from eval.sets.converse import Outcome, entry_key
from eval.sets.items import TEMPLATE_KINDS
from eval.sets.score import ANSWERED_AS_FOUND, TARGETS, Copies, is_gold, meets


def aggregates(name: str, purpose: str, build_id: str, metrics: Mapping[str, tuple]) -> str:
    lines = [f"### {name} ({purpose} set, build {build_id})", "", "| metric | value | n | target |",
             "|---|---:|---:|---|"]
    for metric, (value, n) in metrics.items():
        shown = "–" if value is None else f"{value:.3f}"
        target = ""
        if metric in TARGETS:
            comparison, bound = TARGETS[metric]
            verdict = {True: " met", False: " NOT met", None: ""}[meets(metric, value)]
            target = f"{comparison} {bound:.3f}{verdict}"
        lines.append(f"| {metric} | {shown} | {n} | {target} |")
    return "\n".join(lines)


def wrong(outcome: Outcome, copies: Copies | None = None) -> bool:
    item = outcome.item
    if item.kind in TEMPLATE_KINDS:
        return not (outcome.tier == "template" and outcome.template == item.kind)
    if item.kind == "out_of_scope":
        return outcome.tier in ANSWERED_AS_FOUND
    return not is_gold(item, outcome.first_citation, copies) or (item.profile_independent and outcome.questions_asked > 0)


def failures(outcomes: Sequence[Outcome], copies: Copies | None = None) -> str:
    """One line per item that went wrong (development sets only)."""
    lines = ["| id | message | expected | got | cited first | asked |", "|---|---|---|---|---|---:|"]
    for o in outcomes:
        if not wrong(o, copies):
            continue
        item = o.item
        got = o.template if o.tier == "template" else o.tier
        lines.append(f"| {item.id} | {item.text} | {item.gold if item.gold is not None else item.kind} | {got} "
                     f"| {entry_key(o.first_citation) or '–'} | {o.questions_asked} |")
    return "\n".join(lines)
