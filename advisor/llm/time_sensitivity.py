"""Does a question ask about something time-bound (a deadline, this semester's schedule, a recent
notice)? Then retrieval gives the dynamic collection the larger share (3 static + 7 dynamic).

Offline, `advisor.retrieval.is_time_sensitive` decides by a word list; with an LLM configured this
asks the model. A failed call returns None, and the caller falls back to the rule: a wrong guess
only swaps the 7 + 3 split, so the rule is a safe fallback, never a fake LLM answer.
"""

from __future__ import annotations

from collections.abc import Sequence

from advisor.llm.few_shot import FewShotClassifier

PROMPT_VERSION = "time-v1"
SCHEMA_NAME = "time_sensitivity"
SYSTEM = (
    "You classify questions students ask a university advising assistant. A question is "
    "time-sensitive when its answer depends on dates or recent announcements: deadlines, "
    "application periods, this or next semester's schedule, recent notices, events. Questions "
    "about standing rules (graduation credits, required courses, eligibility) are not, even when "
    "the rule depends on the student's admission year. Answer with JSON only."
)
EXAMPLES = (
    ("이번 학기 휴학 신청 마감이 언제예요?", True),
    ("졸업하려면 전공을 몇 학점 들어야 하나요?", False),
    ("Is there a scholarship announcement for returning students this month?", True),
    ("2021학번 전공필수 과목이 뭔가요?", False),
)


class LLMTimeClassifier(FewShotClassifier):
    version, schema_name = PROMPT_VERSION, SCHEMA_NAME
    field, field_schema = "time_sensitive", {"type": "boolean"}
    system, examples = SYSTEM, EXAMPLES

    def classify(self, queries: Sequence[str]) -> list[bool | None]:
        """One decision per query; None where the LLM failed (use the rule there)."""
        return [None if answer is None else bool(answer) for answer in self.decide(queries)]
