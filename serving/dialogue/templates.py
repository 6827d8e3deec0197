"""Replies that need no retrieval: greeting, ability and smalltalk (docs/method.md §A online step 2), and the
wording of the notes added to answers, in Korean and English: the caller picks the student's
(`serving.answer.language.reply_language`)."""

from __future__ import annotations

from advisor import language as language_data


def text(key: str, language: str, **values) -> str:
    """Template `key` in English for "en", in Korean otherwise (advisor/language/<code>/templates.yaml),
    filled with `values`."""
    table = language_data.load("en" if language == "en" else "ko", "templates")
    return table[key].format(**values)
