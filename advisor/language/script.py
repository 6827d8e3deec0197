"""Which language a text is written in, read from its script alone (no model, nothing to
download), so it works for any institution: Hangul is Korean; kana Japanese; Han without kana
Chinese; Latin with Vietnamese letters Vietnamese; other Latin English (the language international
students most often write in when it is not their own). A Korean text with English terms stays
Korean: one Hangul syllable is a word's worth of letters, so a third of the letters being Hangul is
enough (the rule the crawler's `detect_lang` uses for documents). Used by retrieval (the language
of each passage) and by the dialogue (the student's)."""

from __future__ import annotations

import re

_HANGUL = re.compile(r"[\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]")
_KANA = re.compile(r"[\u3040-\u30ff]")
_HAN = re.compile(r"[\u4e00-\u9fff]")
_VIETNAMESE = re.compile(r"[ăâđêôơưạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ]", re.IGNORECASE)
_LATIN = re.compile(r"[A-Za-z]")


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
