"""A student's words in the build's own words (docs/method.md §A online step 3): before a question is searched,
a word the build's documents never use is replaced by the word they do use for the same thing.

Three sources of "the same thing", each checked against the documents, so the rewrite adapts to each
institution and never overrides its own vocabulary:

- **abbreviations** students coin from a compound's first syllables ("융전" for 융합전공, "국장"
  for 국가장학금, "컴과" for 컴퓨터학과, "데과" for 데이터과학과): read from the build's own
  compounds, never from a list;
- **synonyms** (`thesaurus_ko.txt`): groups of words Korean students and offices use for one thing
  (졸업가운 / 학위복, 인턴십 / 현장실습), written by hand from general knowledge of Korean
  universities. A member replaces the student's word only when the documents use that member and
  not the student's word.
- **English inflections**: "startups" where the documents write "startup", "taking" where they
  write "take"; the English words are kept as written by the tokenizer, so no other step folds them.

Matching is on compact text (spaces removed, lower case): "영어 점수" and "영어점수" are one word
here, as they are to a student. Pure logic: no Dagster, no Kiwi (the build's tokens are given).
"""

from __future__ import annotations

import re
import threading
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

THESAURUS_FILES = (Path(__file__).with_name("thesaurus_ko.txt"), Path(__file__).with_name("thesaurus_en.txt"))
MIN_COMPOUND_COUNT = 2  # a compound seen once in the documents is too thin to read an abbreviation as
MAX_COUNTED = 20_000  # words whose corpus count is remembered
_HANGUL = re.compile(r"[\uac00-\ud7a3]+")
_ENGLISH_WORD = re.compile(r"(?<![a-z'])[a-z]+(?![a-z'])")
MIN_INFLECTED = 4  # shorter English words are too ambiguous to read an inflection off ("us", "bus")


@dataclass(frozen=True)
class Rewrite:
    student_word: str  # as the student wrote it
    build_word: str  # what the documents call it
    rule: str  # "abbreviation" | "synonym" | "inflection"


def load_thesaurus(path: Path | None = None) -> tuple[tuple[str, ...], ...]:
    """The synonym groups of a thesaurus file (None: the shipped Korean and English ones): one
    group per line, members separated by commas; blank lines and '#' comments skipped; a group
    needs two members."""
    groups = []
    for file in THESAURUS_FILES if path is None else (path,):
        for line in Path(file).read_text(encoding="utf-8").splitlines():
            line = line.split("#", 1)[0].strip()
            members = tuple(m.strip() for m in line.split(",") if m.strip())
            if len(members) >= 2:
                groups.append(members)
    return tuple(groups)


_SPACE_NOT_BETWEEN_LATIN = re.compile(r"(?<![a-z]) | (?![a-z])")


def compact(text: str) -> str:
    """Lower case without the spaces Korean writers place freely ("영어 점수" = "영어점수"); a space
    between two English words stays ("student card" is not "studentcard")."""
    return _SPACE_NOT_BETWEEN_LATIN.sub("", " ".join(text.lower().split()))


class CorpusVocabulary:
    """The words of one build's documents, and the rewrite of a query into them.

    `texts`: every chunk's text; `token_lists`: every chunk's content morphemes in order (the build's
    stored tokens), from which compounds and their abbreviations are read. Both are indexed on first
    use, so opening a build costs nothing until a question needs it."""

    def __init__(self, texts: Iterable[str], token_lists: Iterable[Sequence[str]],
                 groups: Sequence[Sequence[str]] | None = None) -> None:
        self._texts = texts
        self._token_lists = token_lists
        self.groups = tuple(tuple(g) for g in (load_thesaurus() if groups is None else groups))
        self._lock = threading.Lock()
        self._built: tuple[str, dict[str, Counter], frozenset[str]] | None = None
        # (member, group) -> its own uses: the corpus never changes, and a scan of it per message
        # cost up to ~1 ms on the demo's 177K characters (more on a larger site)
        self._own_counts: dict[tuple[str, tuple[str, ...]], int] = {}
        # word -> uses, for the same reason; keyed by what students type, so bounded (MAX_COUNTED)
        self._counts: dict[str, int] = {}

    def _index(self) -> tuple[str, dict[str, Counter], frozenset[str]]:
        """(compact corpus text, abbreviation -> compounds, morphemes), built once, on first use
        (under a lock: serving answers on several threads, and the inputs are read only once)."""
        with self._lock:
            if self._built is None:
                abbreviations, morphemes = _compounds(self._token_lists)
                self._built = ("\n".join(compact(t) for t in self._texts), abbreviations, frozenset(morphemes))
                self._texts = self._token_lists = ()
            return self._built

    @cached_property
    def _thesaurus_words(self) -> frozenset[str]:
        return frozenset(compact(member) for group in self.groups for member in group)

    @property
    def _corpus(self) -> str:
        return self._index()[0]

    @property
    def _abbreviations(self) -> dict[str, Counter]:
        return self._index()[1]

    @property
    def _morphemes(self) -> frozenset[str]:
        return self._index()[2]

    def count(self, word: str) -> int:
        word = compact(word)
        if not word:
            return 0
        if (known := self._counts.get(word)) is None:
            if len(self._counts) >= MAX_COUNTED:
                self._counts.clear()  # a flood of unseen words costs a rescan, never unbounded memory
            corpus = self._corpus
            known = self._counts[word] = (sum(1 for _ in _positions(corpus, word)) if any(_latin_edges(word))
                                          else corpus.count(word))
        return known

    def expansion(self, word: str) -> str | None:
        """The compound a two-syllable word abbreviates, when the documents never use the word as a
        morpheme of their own (inside a longer word is no use: 한국장학재단 holds 국장) and hold
        exactly one likeliest such compound, written as is at least MIN_COMPOUND_COUNT times."""
        if len(word) != 2 or not _HANGUL.fullmatch(word) or word in self._morphemes:
            return None
        candidates = [(self.count(compound), compound) for compound in self._abbreviations.get(word, ())]
        candidates = sorted((c for c in candidates if c[0] >= MIN_COMPOUND_COUNT), reverse=True)
        if not candidates or (len(candidates) > 1 and candidates[1][0] == candidates[0][0]):
            return None
        return candidates[0][1]

    def synonym(self, member: str, group: Sequence[str]) -> str | None:
        """The member of `group` the documents use most, for a `member` they never use on its own:
        "과사무실" inside every "학과 사무실" of theirs is their longer word, not the student's."""
        if self._own_count(member, group):
            return None
        used = sorted(((self._own_count(other, group), other) for other in group if other != member), reverse=True)
        return used[0][1] if used and used[0][0] > 0 else None

    def _own_count(self, member: str, group: Sequence[str]) -> int:
        """How often the documents use `member` other than inside a longer member of its group."""
        key = (member, tuple(group))
        if (known := self._own_counts.get(key)) is None:
            known = self._own_counts[key] = self._count_own_uses(member, group)  # a race only computes it twice
        return known

    def _count_own_uses(self, member: str, group: Sequence[str]) -> int:
        corpus, word = self._corpus, compact(member)
        if not word:
            return 0
        covered: set[int] = set()
        for other in map(compact, group):
            if other != word and word in other:
                offsets = list(_positions(other, word))
                covered.update(start + k for start in _positions(corpus, other) for k in offsets)
        return sum(1 for start in _positions(corpus, word) if start not in covered)

    def rewrite(self, query: str, key_words: Sequence[str] = ()) -> tuple[str, list[Rewrite]]:
        """`query` with the words the documents never use replaced by theirs, and what was replaced.
        `key_words`: the query's nouns as the tokenizer reads them; only those may be abbreviations
        (a syllable pair across a word and its ending, "중인데", is not one)."""
        text, synonyms = self._replace_synonyms(query)
        text, abbreviations = self._expand_abbreviations(text, key_words)
        text, inflections = self._replace_inflections(text)
        return text, synonyms + abbreviations + inflections

    def _replace_synonyms(self, text: str) -> tuple[str, list[Rewrite]]:
        rewrites = []
        for member, groups in self._members_in(text):
            # a member in several groups tries them in file order: the closer synonym first
            replacement = next(filter(None, (self.synonym(member, group) for group in groups)), None)
            if replacement is not None:
                text, done = _replace_once(_spaced(member), replacement, text)
                if done:
                    rewrites.append(Rewrite(member, replacement, "synonym"))
        return text, rewrites

    def _expand_abbreviations(self, text: str, key_words: Sequence[str]) -> tuple[str, list[Rewrite]]:
        rewrites = []
        for word in _abbreviation_candidates(text, key_words):
            if word in self._thesaurus_words:
                continue  # a word of the thesaurus is a word ("분실"), not an abbreviation (of 분석실습)
            compound = self.expansion(word)
            if compound is not None:
                text, done = _replace_once(re.compile(rf"(?<![\uac00-\ud7a3]){re.escape(word)}"), compound, text)
                if done:
                    rewrites.append(Rewrite(word, compound, "abbreviation"))
        return text, rewrites

    def _replace_inflections(self, text: str) -> tuple[str, list[Rewrite]]:
        rewrites = []
        for word in dict.fromkeys(_ENGLISH_WORD.findall(text.lower())):
            form = self.inflection(word)
            if form is not None:
                text, done = _replace_once(_spaced(word), form, text)
                if done:
                    rewrites.append(Rewrite(word, form, "inflection"))
        return text, rewrites

    def inflection(self, word: str) -> str | None:
        """The form of an English `word` the documents use, when they never use the student's:
        "taking" -> "take", "startups" -> "startup", "credit" -> "credits". The likeliest of the
        word's regular inflections the documents do use; None when they use the word, or none."""
        if len(word) < MIN_INFLECTED or self.count(word):
            return None
        # a stem may be a letter shorter than the shortest word read ("uses" -> "use"), never two ("uses" -> "us")
        used = sorted(((self.count(form), form) for form in _inflections(word) if len(form) >= MIN_INFLECTED - 1),
                      reverse=True)
        return used[0][1] if used and used[0][0] > 0 else None

    def _members_in(self, query: str) -> list[tuple[str, list[tuple[str, ...]]]]:
        """(member, its groups in file order) for every thesaurus member in the query, longest first,
        none inside a longer one already found ("군입대휴학" hides "군입대" and "입대")."""
        query = compact(query)
        groups_of: dict[str, list[tuple[str, ...]]] = {}
        for group in self.groups:
            for member in group:
                if next(_positions(query, compact(member)), None) is not None:
                    groups_of.setdefault(member, []).append(group)
        taken: list[str] = []
        out = []
        for member in sorted(groups_of, key=lambda m: -len(compact(m))):
            key = compact(member)
            if any(key in longer for longer in taken):
                continue
            taken.append(key)
            out.append((member, groups_of[member]))
        return out


def _positions(text: str, word: str) -> Iterable[int]:
    """Every start of `word` in `text`, overlapping ones included; an English word only as a whole
    word ("exam" is not in "example"), a Korean one anywhere (Korean compounds hold their parts)."""
    first, last = _latin_edges(word)
    start = text.find(word)
    while start >= 0:
        end = start + len(word)
        if not (first and start and _LATIN_LETTER.match(text[start - 1])) and not (
                last and end < len(text) and _LATIN_LETTER.match(text[end])):
            yield start
        start = text.find(word, start + 1)


_LATIN_LETTER = re.compile(r"[a-z]")


def _latin_edges(word: str) -> tuple[bool, bool]:
    """Does `word` (compact) begin, and end, with an English letter (then it is matched as a whole word)?"""
    return bool(_LATIN_LETTER.match(word[:1])), bool(_LATIN_LETTER.match(word[-1:]))


def _inflections(word: str) -> list[str]:
    """The regular inflections of an English word, both ways: the stem of a plural, a past or an
    -ing form (a doubled consonant undone, a dropped e restored), the plural of a stem."""
    forms: list[str] = []
    if word.endswith(("ies", "ied")):
        forms.append(word[:-3] + "y")
    if word.endswith("es"):
        forms += [word[:-2], word[:-1]]
    elif word.endswith("s") and not word.endswith("ss"):
        forms.append(word[:-1])
    for suffix in ("ing", "ed"):
        if word.endswith(suffix):
            stem = word[:-len(suffix)]
            forms += [stem, stem + "e"] + ([stem[:-1]] if len(stem) > 2 and stem[-1] == stem[-2] else [])
    if not forms:  # a stem: its plural
        forms = [word + "s", word + "es"] + ([word[:-1] + "ies"] if word.endswith("y") else [])
    return list(dict.fromkeys(forms))


def _compounds(token_lists: Iterable[Sequence[str]]) -> tuple[dict[str, Counter], set[str]]:
    """abbreviation -> Counter of the compounds it can stand for, and every morpheme seen. A compound
    is two adjacent Hangul morphemes of two or more syllables each ("국가" "장학금" -> 국장), or one
    long morpheme the tokenizer keeps whole (a profile alias such as 융합전공 -> 융전)."""
    found: dict[str, Counter] = defaultdict(Counter)
    morphemes: set[str] = set()
    for tokens in token_lists:
        morphemes.update(tokens)
        previous = ""
        for token in tokens:
            if not _HANGUL.fullmatch(token):
                previous = ""
                continue
            for abbreviation in _single_abbreviations(token):
                found[abbreviation][token] += 1
            if len(previous) >= 2 and len(token) >= 2:
                found[previous[0] + token[0]][previous + token] += 1
            previous = token
    return found, morphemes


def _single_abbreviations(token: str) -> tuple[str, ...]:
    """What a long morpheme the tokenizer keeps whole is shortened to: its first syllable with the
    first of a second part of two or three syllables (융합전공 -> 융전, 국가장학금 -> 국장,
    데이터과학과 -> 데과), and a department's name to its first syllable + 과 (컴퓨터학과 -> 컴과)."""
    if len(token) < 4:
        return ()
    out = [token[0] + token[i] for i in (len(token) - 3, len(token) - 2) if 2 <= i <= 3]
    if token.endswith("과"):
        out.append(token[0] + "과")
    return tuple(out)


def _abbreviation_candidates(text: str, key_words: Sequence[str]) -> list[str]:
    """The two-syllable nouns of the query ("융전", "국장"), and a one-syllable noun that is a whole
    written word with the syllable after it ("컴과": the tokenizer reads 컴 + the particle 과)."""
    candidates = [w for w in dict.fromkeys(key_words) if len(w) == 2 and _HANGUL.fullmatch(w)]
    singles = {w for w in key_words if len(w) == 1 and _HANGUL.fullmatch(w)}
    for raw in text.split():
        run = _HANGUL.match(raw)
        if run and len(run.group()) == 2 and run.group()[0] in singles and run.group() not in candidates:
            candidates.append(run.group())
    return candidates


def _replace_once(pattern: re.Pattern, replacement: str, text: str) -> tuple[str, bool]:
    """The first match of `pattern` replaced, with a space before a particle that follows: "학위기에"
    would be read 학 + 위기 + 에 by the tokenizer, "학위기 에" is read as the word and its particle."""
    match = pattern.search(text)
    if match is None:
        return text, False
    space = " " if _HANGUL.match(text[match.end():match.end() + 1]) else ""
    return text[:match.start()] + replacement + space + text[match.end():], True


def _spaced(word: str) -> re.Pattern:
    """`word` with any spacing between its characters ("영어 점수" matches "영어점수"); an English
    word only as a whole word."""
    key = compact(word)
    body = r"\s*".join(r"\s+" if ch == " " else re.escape(ch) for ch in key)
    first, last = _latin_edges(key)
    return re.compile((r"(?<![a-z])" if first else "") + body + (r"(?![a-z])" if last else ""), flags=re.IGNORECASE)
