"""What to tell a student whose answer comes from material in another language, and in which
language the fixed replies go. Which language a text is written in is read from its script
(`advisor.language.script.language_of`, re-exported here for the dialogue)."""

from __future__ import annotations

from advisor import language as language_data
from advisor.language.script import language_of  # noqa: F401  (re-exported: the dialogue's callers)

# The notes, the "according to the sources" and the languages' names, in the student's language:
# advisor/language/<code>/templates.yaml
_NOTE_LANGUAGES = language_data.languages_with("templates")
# Language names a prompt can use ("Answer in English")
ENGLISH_NAMES = language_data.load("en", "templates")["language_names"]


def reply_language(message: str, institution: str) -> str:
    """The language of the fixed replies (greeting, ability and smalltalk templates, notes, the
    offline no-answer) for a student who wrote `message`: Korean for a Korean message, English for
    any other (they exist in those two, and English reaches more students who write neither than
    Korean does). A message without letters gets the institution's."""
    student = language_of(message, institution)
    return "ko" if student == "ko" else "en"


def material_note(student: str, material: str, translated: bool = False) -> str | None:
    """What to tell a student writing in `student` about an answer drawn from `material`; None
    when they are the same language. Unknown student languages get the English note."""
    if student == material:
        return None
    templates = language_data.load(student if student in _NOTE_LANGUAGES else "en", "templates")
    name = templates["language_names"].get(material, material)
    return templates["translated_note" if translated else "quoted_note"].format(material=name)


def sources_say(language: str) -> str:
    """"According to the sources:" in `language` (in English when there is no such note in it)."""
    return language_data.load(language if language in _NOTE_LANGUAGES else "en", "templates")["sources_say"]


def english_name(language: str) -> str:
    return ENGLISH_NAMES.get(language, language)
