"""An English question in an institution's Korean words, offline (docs/method.md §A online step 3).

Without an LLM to translate, an English question about a college that writes in Korean shares no
word with its pages and meets "not in my material". `glossary_en_ko.txt` holds the English words of
Korean university administration with the term a Korean office writes ("leave of absence" = 휴학,
"tuition" = 등록금), written by hand from general knowledge, like the thesaurus. The phrases found
in a question are replaced by their terms ("can I borrow a laptop?" -> "can I 대여 a 노트북?"), the
rest is kept as written: a dictionary translation, the classic offline way to search across
languages. It is never presented as a translation: the answer quotes the Korean material and says so.

Matching: case-insensitive, whole English words (a Korean particle may follow: "quit하면"), longest
phrase first, a phrase's words separated by spaces, hyphens or slashes, each with the usual English
endings (-s, -es, -ed, -d, -ing). Pure logic: no Dagster, no Kiwi.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

GLOSSARY_FILE = Path(__file__).with_name("glossary_en_ko.txt")
_ENDINGS = r"(?:s|es|ed|d|ing)?"
_LATIN = re.compile(r"[A-Za-z]")


@dataclass(frozen=True)
class Gloss:
    english: str  # as the student wrote it
    korean: str  # the institution's term


def load_glossary(path: Path = GLOSSARY_FILE) -> tuple[tuple[str, str], ...]:
    """(english phrase, korean term) pairs of a glossary file: "phrase | phrase = 한국어" per line;
    blank lines and '#' comments skipped. A line without "=" or without both sides is an error."""
    pairs = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        english, sep, korean = line.partition("=")
        phrases = [p.strip().lower() for p in english.split("|") if p.strip()]
        if not sep or not phrases or not korean.strip():
            raise ValueError(f"{path}:{number}: expected 'english phrase | another = 한국어', got {line!r}")
        pairs.extend((phrase, korean.strip()) for phrase in phrases)
    return tuple(pairs)


class Glossary:
    """The phrases of a glossary, compiled once. `shipped_glossary()` is the process's one copy of
    the shipped file (compiling its hundreds of patterns costs ~75 ms: not once per build swap)."""

    def __init__(self, pairs: Sequence[tuple[str, str]] | None = None) -> None:
        pairs = load_glossary() if pairs is None else pairs
        # longest phrase first: "leave of absence" before "absence", "double major" before "major"
        ordered = sorted(dict(pairs).items(), key=lambda p: (-len(p[0]), p[0]))
        self._patterns = [(re.compile(_pattern(phrase), re.IGNORECASE), terms(korean)) for phrase, korean in ordered]

    def translate(self, text: str, keep: Callable[[Gloss], bool] | None = None,
                  choose: Callable[[Sequence[str]], str] | None = None) -> tuple[str, list[Gloss]]:
        """`text` with every phrase the glossary knows replaced by its Korean term (those `keep`
        accepts, when given), and what was replaced, in the order it occurs; (text, []) when nothing was.
        A phrase with several terms ("course" = 과목 / 교과목 / 수업: offices differ) gets the one
        `choose` picks (the build's most used, say), else the first."""
        if not _LATIN.search(text):
            return text, []  # no English word: nothing to look up (every Korean message comes here)
        spans: list[tuple[int, int, str]] = []
        for pattern, alternatives in self._patterns:
            korean = None  # chosen on the phrase's first match: most phrases never match
            for match in pattern.finditer(text):
                if korean is None:
                    korean = choose(alternatives) if choose is not None and len(alternatives) > 1 else alternatives[0]
                if keep is not None and not keep(Gloss(match.group(), korean)):
                    continue
                if not any(start < match.end() and match.start() < end for start, end, _ in spans):
                    spans.append((match.start(), match.end(), korean))
        if not spans:
            return text, []
        spans.sort()
        out, at, found = [], 0, []
        for start, end, korean in spans:
            out += [text[at:start], korean]
            found.append(Gloss(text[start:end], korean))
            at = end
        out.append(text[at:])
        return "".join(out), found


def terms(korean: str) -> tuple[str, ...]:
    """The Korean terms of a glossary line's right side ("과목 / 교과목 / 수업"), in order."""
    return tuple(t.strip() for t in korean.split("/") if t.strip())


@cache
def shipped_glossary() -> Glossary:
    return Glossary()


def _pattern(phrase: str) -> str:
    # every word with the usual endings, not only the last: "students ID card", "leaves of absence"
    # (the question may also have been rewritten into the documents' inflection before it gets here)
    words = [re.escape(w) + _ENDINGS for w in re.split(r"[\s\-/]+", phrase) if w]
    # Latin letters and digits bound a phrase, not Hangul: a mixed message glues particles and
    # endings to English words ("quit하면", "deadline이")
    return r"(?<![A-Za-z0-9])" + r"[\s\-/]+".join(words) + r"(?![A-Za-z0-9])"
