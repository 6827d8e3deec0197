"""Which language a question or a piece of material is written in, and what to tell a student
whose answer comes from material in another language.

Read from the script alone (no model, nothing to download), so it works for any institution:
Hangul is Korean; kana Japanese; Han without kana Chinese; Latin with Vietnamese letters
Vietnamese; other Latin English (the language international students most often write in when it
is not their own). A Korean text with English terms stays Korean: one Hangul syllable is a word's
worth of letters, so a third of the letters being Hangul is enough (the rule the crawler's
`detect_lang` uses for documents).
"""

from __future__ import annotations

import re

from advisor import language as language_data

_HANGUL = re.compile(r"[\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]")
_KANA = re.compile(r"[\u3040-\u30ff]")
_HAN = re.compile(r"[\u4e00-\u9fff]")
_VIETNAMESE = re.compile(r"[ăâđêôơưạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ]", re.IGNORECASE)
_LATIN = re.compile(r"[A-Za-z]")

# The notes, the "according to the sources" and the languages' names, in the student's language:
# advisor/language/<code>/templates.yaml
_NOTE_LANGUAGES = language_data.languages_with("templates")
# Language names a prompt can use ("Answer in English")
ENGLISH_NAMES = language_data.load("en", "templates")["language_names"]


def language_of(text: str, default: str = "ko") -> str:
    """"ko" | "ja" | "zh" | "vi" | "en" by script; `default` when the text has no letters."""
    letters = [ch for ch in text if ch.isalpha()]
    if not letters:
        return default
    hangul = sum(1 for ch in letters if _HANGUL.match(ch))
    if hangul >= 0.3 * len(letters):
        return "ko"
    if _KANA.search(text):
        return "ja"
    if sum(1 for ch in letters if _HAN.match(ch)) >= 0.3 * len(letters):
        return "zh"
    if _VIETNAMESE.search(text):
        return "vi"
    if any(_LATIN.match(ch) for ch in letters):
        return "en"
    return default


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


def own_language_first(chunks: list, query: str, institution: str) -> list:
    """Retrieved chunks with those in the question's language first (stable), when the question
    is not in the institution's language: a page written for international students answers an
    English question better than a Korean page ranked just above it. Otherwise unchanged."""
    student = language_of(query, institution)
    if student == institution:
        return list(chunks)
    own = [c for c in chunks if language_of(c.text, default="") == student]
    return own + [c for c in chunks if language_of(c.text, default="") != student]
