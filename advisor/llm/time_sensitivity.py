"""Does a question ask about something time-bound (a deadline, this semester's schedule, a recent
notice)? Then retrieval gives the dynamic collection the larger share (3 static + 7 dynamic).

Offline, `advisor.retrieval.is_time_sensitive` decides by a word list; with an LLM configured this
asks the model. A failed call returns None, and the caller falls back to the rule: a wrong guess
only swaps the 7 + 3 split, so the rule is a safe fallback, never a fake LLM answer.
"""

from __future__ import annotations

from collections.abc import Sequence

from advisor.llm.client import JSONRequest, LLMClient, LLMFailure
from advisor.llm.few_shot import few_shot_messages

PROMPT_VERSION = "time-v1"
SCHEMA_NAME = "time_sensitivity"
SCHEMA = {
    "type": "object",
    "properties": {"time_sensitive": {"type": "boolean"}},
    "required": ["time_sensitive"],
    "additionalProperties": False,
}
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


def _messages(query: str) -> list[dict]:
    return few_shot_messages(SYSTEM, [(example, {"time_sensitive": answer}) for example, answer in EXAMPLES], query)


class LLMTimeClassifier:
    name = "llm"
    version = PROMPT_VERSION

    def __init__(self, client: LLMClient):
        self.client = client

    def classify(self, queries: Sequence[str]) -> list[bool | None]:
        """One decision per query; None where the LLM failed (use the rule there)."""
        answers = self.client.complete_json_many(
            [JSONRequest(_messages(q), SCHEMA, SCHEMA_NAME) for q in queries])
        return [None if isinstance(result, LLMFailure) else bool(result["time_sensitive"])
                for result, _usage in answers]
