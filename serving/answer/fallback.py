"""URAG tier 3 (docs/method.md §B.3): no evidence was found. With an LLM, a short generic answer from
the model alone under a clear disclaimer; without one (or when the call fails), an honest
no-answer that says plainly the material does not cover it and where to ask (the institution; a
contact when the caller has one). When material exists but none for this student's own value
("no document for 2016학번"), the no-answer says so, and which values the material covers.
Never labelled "llm" unless a model wrote it.
"""

from __future__ import annotations

from advisor import language
from advisor.config import InstitutionConfig
from advisor.llm.client import LLMClient, LLMFailure
from advisor.llm.jsoncheck import strict_object
from serving.answer.language import reply_language

PROMPT_VERSION = "fallback-v1"
SCHEMA_NAME = "fallback_answer"
SCHEMA = strict_object({"answer": {"type": "string"}})
SYSTEM = (
    "You are the academic-advising assistant of {institution}. Its documents hold nothing on this "
    "question, so answer from general knowledge only: briefly (two or three sentences), in the "
    "language of the question, without inventing rules, numbers, dates or names specific to this "
    "university, and end by advising the student to confirm with their department office. "
    "Return JSON: {{\"answer\": the text}}."
)

# the no-answer's wording, per language: advisor/language/<code>/templates.yaml
_TEXT_KEYS = ("llm_disclaimer", "no_answer", "no_answer_for", "contact", "no_answer_disclaimer")


def texts_for(config: InstitutionConfig, query: str = "") -> dict[str, str]:
    """The no-answer's wording in the language the student wrote `query` in (Korean or English)."""
    templates = language.load(reply_language(query, config.language), "templates")
    return {key: templates[key] for key in _TEXT_KEYS}


def fallback_answer(query: str, config: InstitutionConfig, client: LLMClient | None, *, contact: str | None = None,
                    audience: str | None = None, covered: str | None = None) -> tuple[str, str, str]:
    """(text, method "llm" | "fallback", disclaimer). `audience` ("2016학번") and `covered` ("2019–2026학번"):
    the material answers the question for other students only; said as such offline."""
    if not query or not query.strip():
        raise ValueError("fallback_answer needs a non-empty question")
    texts = texts_for(config, query)
    # the material answers this for other students: a model's general knowledge cannot know this
    # institution's rule for this student either, so it is not asked
    if client is not None and not audience:
        messages = [{"role": "system", "content": SYSTEM.format(institution=config.institution)},
                    {"role": "user", "content": query.strip()}]
        result, _usage = client.complete_json(messages, SCHEMA, SCHEMA_NAME, check=_non_empty)
        if not isinstance(result, LLMFailure):
            return result["answer"].strip(), "llm", texts["llm_disclaimer"]
    if audience:
        text = texts["no_answer_for"].format(institution=config.institution, audience=audience, covered=covered or "-")
    else:
        text = texts["no_answer"].format(institution=config.institution)
    if contact:
        text += texts["contact"].format(contact=contact)
    return text, "fallback", texts["no_answer_disclaimer"]


def _non_empty(data: dict) -> str | None:
    return None if data["answer"].strip() else "the answer is empty"
