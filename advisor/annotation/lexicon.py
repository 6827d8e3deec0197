"""Finding a categorical attribute's values in text through the config's aliases.

Matching rules, and why:
- Longest match wins, leftmost first: "외국인 유학생" beats "유학생", and a config that lists both
  "정보통신공학과" (ICE) and "통신공학과" (CE) reads "정보통신공학과" as ICE.
- Latin aliases need ASCII word boundaries ("ME" is not in "MEMS" or "HOME"); case-insensitive.
- Hangul aliases may close a compound ("군휴학생" is a 휴학생, "로봇융합전공" a 융합전공) and may take
  any ending on the right (particles, "기계공학과장"), because Korean attaches those directly.
- Spaces inside an alias are optional ("외국인유학생"), as Korean spacing varies.
- A person noun alias (…생, …자, …학생) also matches its usual inflections, derived from its stem:
  "휴학생" → "휴학 중인 학생", "휴학 중", "휴학한 학생", "휴학 예정자"; "편입생" → "편입학생".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_HANGUL = "\uac00-\ud7a3"
_PERSON_SUFFIXES = ("학생", "생", "자")
_STEM_FORMS = (  # most specific first
    r"\s*중인\s*(?:학생|자)",  # 휴학 중인 학생
    r"\s*중(?=[인에이은]|\s|$|[,.?)])",  # 휴학 중인데 / 휴학 중에 / 휴학 중
    r"\s*예정(?:자|인\s*학생|인\s*자)",  # 복학 예정자
    r"(?:한|하는|하려는|할|했던)\s*(?:학생|자)",  # 복학한 학생, 편입하는 학생
    r"(?:생|자|학생)",  # 편입학생, 복학자
)


@dataclass(frozen=True)
class ValueMatch:
    value: str
    start: int
    end: int
    text: str
    person: bool = False  # matched a person noun (휴학생, 재학 중인 학생), not a unit or a program


def _is_latin(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


def _alias_pattern(alias: str) -> str:
    parts = [re.escape(p) for p in alias.split()]
    body = r"\s*".join(parts)
    if _is_latin(alias[0]):
        body = r"(?<![A-Za-z0-9])" + body
    if _is_latin(alias[-1]):
        body += r"(?:s|es)?(?![A-Za-z0-9])"  # "international students"
    return body


def is_person_noun(alias: str) -> bool:
    return bool(re.search(rf"[{_HANGUL}](?:{'|'.join(_PERSON_SUFFIXES)})$", alias.strip()))


def person_stem(alias: str) -> str | None:
    """The stem of a Hangul person noun ("휴학생" → "휴학"), or None when the alias is not one
    or the stem would be too short to be specific (one syllable)."""
    if not re.fullmatch(rf"[{_HANGUL}]+", alias):
        return None
    for suffix in _PERSON_SUFFIXES:
        if alias.endswith(suffix) and len(alias) - len(suffix) >= 2:
            return alias[: -len(suffix)]
    return None


class AliasMatcher:
    """All values of one categorical attribute, compiled into one regex."""

    def __init__(self, values: dict[str, tuple[str, ...]]):
        self.values = tuple(values)
        self._alias_map = {v: tuple(a) for v, a in values.items()}
        # (length for ordering, pattern, value, is a person noun)
        surfaces: list[tuple[int, str, str, bool]] = []
        for value, aliases in values.items():
            for alias in aliases:
                alias = alias.strip()
                if not alias:
                    continue
                surfaces.append((len(alias), _alias_pattern(alias), value, is_person_noun(alias)))
                stem = person_stem(alias)
                if stem:
                    for i, form in enumerate(_STEM_FORMS):
                        surfaces.append((len(stem) + len(_STEM_FORMS) - i, re.escape(stem) + form, value, True))
        # Longer surfaces first, so the alternation prefers them at the same position.
        surfaces.sort(key=lambda s: -s[0])
        self._groups = [(v, person) for _, _, v, person in surfaces]
        pattern = "|".join(f"(?P<g{i}>{p})" for i, (_, p, _, _) in enumerate(surfaces))
        self._regex = re.compile(pattern, re.IGNORECASE) if pattern else None

    def find(self, text: str) -> list[ValueMatch]:
        if self._regex is None:
            return []
        out = []
        for m in self._regex.finditer(text):
            value, person = self._groups[int(m.lastgroup[1:])]
            out.append(ValueMatch(value, m.start(), m.end(), m.group(0), person))
        return out

    def find_in_identifier(self, token: str) -> str | None:
        """A URL path segment or file-name part that IS a value or a Latin alias ("cs",
        "computer-science"): identifiers are compared whole, never searched inside."""
        token = token.lower()
        for value, aliases in self._alias_map.items():
            names = {value.lower()} | {a.lower().replace(" ", "-") for a in aliases if a.isascii()}
            if token in names:
                return value
        return None
