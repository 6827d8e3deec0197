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

_HANGUL = re.compile(r"[\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]")
_KANA = re.compile(r"[\u3040-\u30ff]")
_HAN = re.compile(r"[\u4e00-\u9fff]")
_VIETNAMESE = re.compile(r"[ăâđêôơưạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ]", re.IGNORECASE)
_LATIN = re.compile(r"[A-Za-z]")

# The notes, in the student's language; {material} is the material's language named in it.
_NOTES = {
    "en": ("This answer is quoted from {material}-language material.",
           "This answer is translated from {material}-language material."),
    "ko": ("이 답은 {material} 자료에서 그대로 인용했습니다.", "이 답은 {material} 자료를 번역한 것입니다."),
    "ja": ("この回答は{material}の資料から引用しています。", "この回答は{material}の資料を翻訳したものです。"),
    "zh": ("此回答引自{material}资料。", "此回答译自{material}资料。"),
    "vi": ("Câu trả lời này được trích từ tài liệu tiếng {material}.",
           "Câu trả lời này được dịch từ tài liệu tiếng {material}."),
}
_NAMES = {
    "en": {"ko": "Korean", "en": "English", "ja": "Japanese", "zh": "Chinese", "vi": "Vietnamese"},
    "ko": {"ko": "한국어", "en": "영어", "ja": "일본어", "zh": "중국어", "vi": "베트남어"},
    "ja": {"ko": "韓国語", "en": "英語", "ja": "日本語", "zh": "中国語", "vi": "ベトナム語"},
    "zh": {"ko": "韩语", "en": "英语", "ja": "日语", "zh": "中文", "vi": "越南语"},
    "vi": {"ko": "Hàn", "en": "Anh", "ja": "Nhật", "zh": "Trung", "vi": "Việt"},
}
# "According to the sources:" before the quotes that answer a yes/no question, in the student's language
_SOURCES_SAY = {"ko": "자료에 따르면:", "en": "According to the sources:", "ja": "資料によると:", "zh": "根据资料:",
                "vi": "Theo tài liệu:"}
# Language names a prompt can use ("Answer in English")
ENGLISH_NAMES = _NAMES["en"]


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
    lang = student if student in _NOTES else "en"
    name = _NAMES[lang].get(material, material)
    return _NOTES[lang][1 if translated else 0].format(material=name)


def sources_say(language: str) -> str:
    return _SOURCES_SAY.get(language, _SOURCES_SAY["en"])


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
