"""The advising dialogue on the demo college against a profile-blind baseline, in one run.

Each case is a question whose right answer depends on the student (a credit requirement or a
course list of one department, cohort and major type; from the demo's ground-truth manifest).
A simulated student answers every profile question from the hidden profile. Printed side by
side: the dialogue (no profile at start), the dialogue with the profile given up front (oracle),
and the baseline (hybrid retrieval with no profile + the same extractive answer): how often the
answer holds the right fact and cites the right page, questions asked, and time per question.

    make demo && .venv/bin/python bench/dialogue.py --cases 200

`--language en` asks the same cases in English (examples/demo_college/facts.py `ENGLISH_QUESTIONS`)
and counts a credit fact also as its bare number in the answer's first two lines (an English page
says "total credits is 130"): the offline path of a question in another language than the
institution's.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

# Run as a script, this folder is first on the path, and its statistics.py would stand for the
# standard library's: the repository's root takes its place
sys.path[0] = str(Path(__file__).resolve().parents[1])

import statistics  # noqa: E402

from advisor.config import load_config  # noqa: E402
from advisor.index.layout import builds_dir  # noqa: E402
from advisor.settings import warehouse_path  # noqa: E402
from eval.benchmark.truth import truth_file  # noqa: E402
from examples.demo_college.facts import contains_fact, fact_cases, in_english, states_fact  # noqa: E402
from serving.answer import extractive_answer  # noqa: E402
from serving.dialogue.engine import open_advisor  # noqa: E402


def converse(advisor, query: str, hidden: dict, oracle: bool):
    session = advisor.new_session(hidden if oracle else None)
    reply = advisor.respond(session, message=query)
    while reply.type == "ask":  # the simulated student: "don't know" for what the profile lacks
        reply = advisor.respond(session, profile={q.attribute: hidden.get(q.attribute) for q in reply.questions})
    return reply


def run(args) -> None:
    config = load_config(args.config)
    warehouse = warehouse_path(args.warehouse)
    advisor = open_advisor(builds_dir(warehouse), config)
    truth = truth_file(config, warehouse)  # the demo's ground-truth manifest (pipeline.annotation_truth)
    if truth is None:
        raise SystemExit("the config names no truth file (pipeline.annotation_truth): the cases come from it")
    manifest = [json.loads(line) for line in truth.read_text(encoding="utf-8").splitlines()]
    cases = fact_cases(manifest, args.cases)
    if args.language == "en":
        cases = [in_english(case) for case in cases]
    holds = states_fact if args.language == "en" else contains_fact
    tokenizer = advisor.tokenizer
    rows = {name: {"fact": 0, "cited": 0, "questions": [], "seconds": []} for name in ("deployment", "oracle", "baseline")}
    for case in cases:
        for name in ("deployment", "oracle"):
            started = time.perf_counter()
            reply = converse(advisor, case["query"], case["profile"], oracle=name == "oracle")
            rows[name]["seconds"].append(time.perf_counter() - started)
            rows[name]["fact"] += holds(reply.answer, case["expected"])
            rows[name]["cited"] += any(c.url.endswith(case["gold"]) for c in reply.citations)
            rows[name]["questions"].append(reply.trace.get("questions_asked", 0))
        started = time.perf_counter()  # the profile-blind baseline: same retriever, same answerer
        result = advisor.retriever.search(case["query"], None, mode="hybrid")
        evidence = result.chunks[:3]
        answer = extractive_answer(case["query"], evidence, {}, config, tokenizer.content_morphemes, tokenizer.split_sentences)
        rows["baseline"]["seconds"].append(time.perf_counter() - started)
        rows["baseline"]["fact"] += holds(answer.text, case["expected"])
        rows["baseline"]["cited"] += any(evidence[i].doc_url.endswith(case["gold"]) for i in answer.cited)
        rows["baseline"]["questions"].append(0)
    n = len(cases)
    base_ms = statistics.median(rows["baseline"]["seconds"]) * 1000
    print(f"build {advisor.build_id}, {n} questions, asked in {'English' if args.language == 'en' else 'Korean'}\n")
    print(f"{'system':<12}{'fact in answer':>16}{'gold cited':>12}{'questions/q':>13}{'p50 ms':>9}{'p95 ms':>9}{'p50 / baseline':>16}")
    for name, row in rows.items():
        seconds = sorted(row["seconds"])
        p50, p95 = statistics.median(seconds) * 1000, seconds[int(0.95 * (len(seconds) - 1))] * 1000
        print(f"{name:<12}{row['fact'] / n:>16.3f}{row['cited'] / n:>12.3f}{statistics.mean(row['questions']):>13.2f}"
              f"{p50:>9.1f}{p95:>9.1f}{p50 / base_ms:>15.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--config", default=None)
    parser.add_argument("--warehouse", help="the built warehouse (default: $ADVISOR_WAREHOUSE, else warehouse/)")
    parser.add_argument("--language", choices=("ko", "en"), default="ko", help="ask the cases in Korean or English")
    run(parser.parse_args())


if __name__ == "__main__":
    main()
