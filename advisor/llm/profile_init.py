"""Session-profile initialization by an LLM (docs/method.md §A online step 3): which profile attributes a
question needs before it can be answered, and any values the question itself states.

Offline, serving/dialogue/profiling.py does the same by rules (what the question retrieves, and
self-statements like "컴퓨터학과 학생인데"). A failed call returns None and the caller uses the rules;
a stated value outside the schema is dropped, never guessed.
"""

from __future__ import annotations

from advisor.config import CategoricalAttribute, InstitutionConfig
from advisor.llm.client import JSONRequest, LLMClient, LLMFailure

PROMPT_VERSION = "profile-init-v1"
SCHEMA_NAME = "profile_needs"

SYSTEM = """\
You prepare a university advising assistant's answer. Given a student's question and the \
student-profile schema, say (1) which attributes the CORRECT ANSWER depends on, because the \
university's rules differ between students by them (for example graduation credits differ by \
department and admission year; a general campus fact depends on none), and (2) the values the \
student states about THEMSELVES in the question (for example "컴퓨터학과 21학번인데" states the \
department and the admission year 2021; "휴학 신청 방법" states nothing: leave is the topic, not \
the student's status). Use the canonical codes before the colon below. Ask for as few \
attributes as the answer really needs. Answer with JSON only.

Profile schema:
{attributes}"""


def build_schema(config: InstitutionConfig) -> dict:
    stated = {}
    for name, attribute in config.profile.items():
        if isinstance(attribute, CategoricalAttribute):
            stated[name] = {"type": ["string", "null"], "enum": [*attribute.values, None]}
        else:
            stated[name] = {"type": ["integer", "null"]}
    return {
        "type": "object",
        "properties": {
            "needed": {"type": "array", "items": {"type": "string", "enum": list(config.profile)}},
            "stated": {"type": "object", "properties": stated, "required": list(stated), "additionalProperties": False},
        },
        "required": ["needed", "stated"],
        "additionalProperties": False,
    }


def system_message(config: InstitutionConfig) -> str:
    lines = []
    for name, attribute in config.profile.items():
        if isinstance(attribute, CategoricalAttribute):
            values = "; ".join(f"{value}: {', '.join(aliases) or value}" for value, aliases in attribute.values.items())
            lines.append(f'- {name} (asked as "{attribute.question}"): {values}')
        else:
            lines.append(f'- {name} ({attribute.type} {attribute.min}..{attribute.max}; asked as "{attribute.question}")')
    return SYSTEM.format(attributes="\n".join(lines))


class LLMProfileInitializer:
    name = "llm"
    version = PROMPT_VERSION

    def __init__(self, client: LLMClient, config: InstitutionConfig):
        self.client, self.config = client, config
        self._schema = build_schema(config)
        self._system = system_message(config)

    def initialize(self, question: str) -> tuple[list[str], dict] | None:
        """(needed attributes in schema order, stated values as given), or None when the call failed."""
        messages = [{"role": "system", "content": self._system}, {"role": "user", "content": question}]
        result, _usage = self.client.complete_json(*JSONRequest(messages, self._schema, SCHEMA_NAME))
        if isinstance(result, LLMFailure):
            return None
        needed = [name for name in self.config.profile if name in set(result["needed"])]
        stated = {name: value for name, value in result["stated"].items() if value is not None}
        return needed, stated
