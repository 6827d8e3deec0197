"""Questions with known answers, from the demo college's ground-truth manifest: a student
profile, a question about a credit requirement or a course list, and the text the right answer
must contain. Used by the answer tests and bench/dialogue.py (never by the pipeline)."""

from __future__ import annotations

import random
import re

CREDIT_QUESTIONS = {
    "total_credits": ["졸업하려면 총 몇 학점을 이수해야 하나요?", "졸업 이수학점은 몇 학점인가요?"],
    "ge_credits": ["교양은 몇 학점 들어야 하나요?", "교양 이수 학점 기준이 어떻게 되나요?"],
    "foundation_credits": ["전공기초는 몇 학점 이수해야 하나요?", "학문의기초 학점은 얼마나 필요한가요?"],
    "major_credits": ["졸업하려면 전공을 몇 학점 들어야 하나요?", "전공 이수 학점은 몇 학점인가요?"],
    "required_credits": ["전공필수는 몇 학점인가요?", "전공필수 학점 기준이 궁금해요."],
    "required_courses": ["전공필수 과목이 뭔가요?", "반드시 들어야 하는 전공필수 과목을 알려주세요."],
}
CURRICULUM_QUESTIONS = {
    "foundation": ["전공기초 교과목에는 어떤 과목이 있나요?"],
    "electives": ["전공선택 과목 목록을 알려주세요."],
}
# The same questions as an English-speaking student asks them (bench/dialogue.py --language en):
# written by hand, each as a student would word it, not as a translation of the Korean.
ENGLISH_QUESTIONS = {
    "졸업하려면 총 몇 학점을 이수해야 하나요?": "How many credits do I need in total to graduate?",
    "졸업 이수학점은 몇 학점인가요?": "what's the total number of credits required for graduation?",
    "교양은 몇 학점 들어야 하나요?": "how many general education credits do I have to take?",
    "교양 이수 학점 기준이 어떻게 되나요?": "What is the liberal arts credit requirement?",
    "전공기초는 몇 학점 이수해야 하나요?": "how many major foundation credits must I complete?",
    "학문의기초 학점은 얼마나 필요한가요?": "How many basic major credits are needed?",
    "졸업하려면 전공을 몇 학점 들어야 하나요?": "how many major credits do I need to graduate?",
    "전공 이수 학점은 몇 학점인가요?": "How many credits of major courses are required?",
    "전공필수는 몇 학점인가요?": "how many required major credits are there?",
    "전공필수 학점 기준이 궁금해요.": "What's the requirement for major required credits?",
    "전공필수 과목이 뭔가요?": "which major courses are mandatory?",
    "반드시 들어야 하는 전공필수 과목을 알려주세요.": "Tell me the required major courses I must take.",
    "전공기초 교과목에는 어떤 과목이 있나요?": "What courses are in the major foundation?",
    "전공선택 과목 목록을 알려주세요.": "list the major elective courses please",
}


def fact_cases(manifest: list[dict], n: int, seed: int = 0) -> list[dict]:
    """Profile + question + expected text, from the facts of the curriculum and graduation pages."""
    rng = random.Random(seed)
    pool = []
    for row in manifest:
        if row.get("topic") == "graduation_requirements":
            for section in row.get("sections") or []:
                for key, value in (section.get("facts") or {}).items():
                    if key in CREDIT_QUESTIONS:
                        pool.append((row["path"], section["applies_to"], CREDIT_QUESTIONS[key], value))
        elif row.get("topic") == "curriculum":
            for key, value in (row.get("facts") or {}).items():
                if key in CURRICULUM_QUESTIONS:
                    pool.append((row["path"], row["applies_to"], CURRICULUM_QUESTIONS[key], value))
    rng.shuffle(pool)
    cases = []
    for path, applies_to, questions, value in pool[:n]:
        profile = {name: (rng.choice(v) if isinstance(v[0], str) else rng.randint(v[0], v[1]))
                   for name, v in applies_to.items() if v}
        profile.setdefault("grade", rng.randint(1, 4))
        expected = [f"{value}학점"] if isinstance(value, int) else list(value)
        cases.append({"query": rng.choice(questions), "profile": profile, "expected": expected, "gold": path})
    return cases


def contains_fact(text: str, expected: list[str]) -> bool:
    """A number must be there; of a list of courses, at least half."""
    found = sum(item in text for item in expected)
    return found == len(expected) if len(expected) == 1 else found * 2 >= len(expected)


def in_english(case: dict) -> dict:
    """The case asked in English (ENGLISH_QUESTIONS)."""
    return {**case, "query": ENGLISH_QUESTIONS[case["query"]]}


def states_fact(text: str, expected: list[str]) -> bool:
    """contains_fact for an answer in any language: a credit count is also right as the bare
    number ("total credits is 130" from an English page) in the answer's first two lines, where a
    table of every cohort's figures would not put it by chance."""
    if len(expected) == 1 and (credits := re.fullmatch(r"(\d+)학점", expected[0])):
        head = "\n".join(text.splitlines()[:2])
        return re.search(rf"(?<![\d.]){credits.group(1)}(?![\d.])", head) is not None
    return contains_fact(text, expected)
