"""Offline rule paraphrases of a student's question (Korean, also English), the calibration
queries of the FAQ threshold when no LLM is configured (docs/method.md §B.6 sweeps t_FAQ on generated
queries).

Rules, each generic (university-administration wording, nothing of one institution):
- ending swaps: ~나요? / ~어떻게 되나요? / ~알려주세요 / ~궁금합니다 (and ~인지, ~는지 forms);
- register: formal (~습니까) and casual (~나?, no 요);
- keyword forms (content morphemes only), as a search box would get them;
- fillers dropped or added (혹시, 그런데);
- a synonym table (신청↔접수, 방법↔절차, 기간↔일정, 학점↔이수학점, 조건↔요건, 가능↔할 수 있, ...);
- word order: a question word moved to the front, two particle-marked phrases swapped.
Rules are also composed (an ending swap plus a synonym plus a filler), so a paraphrase can differ
from the original in several ways, as real students' wordings do. Grammar is approximate: these
are retrieval probes, not text shown to anyone.
"""

from __future__ import annotations

import hashlib
import random
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, partial
from string import Formatter

from advisor import language

Tokenize = Callable[[list[str]], list[list[str]]]

_HANGUL = re.compile(r"[\uac00-\ud7a3]")
_TRAILING_PUNCT = " ?？.!。~"
_TAIL_NOTE = re.compile(r"\s*(\([^()]*\))\s*[?？.!。]*\s*$")  # "...궁금해요(심화전공)." -> "(심화전공)"

# The rules' words, endings and templates: advisor/language/<code>/paraphrase.yaml; particles and
# the stem's endings: ko/grammar.yaml; question words: ko/question_words.yaml
_KO = language.load("ko", "paraphrase")
_EN = language.load("en", "paraphrase")
_GRAMMAR = language.load("ko", "grammar")

KOREAN_FILLERS = tuple(_KO["fillers"])
KOREAN_ADDED_FILLERS = tuple(_KO["added_fillers"])
QUESTION_WORDS = tuple(language.load("ko", "question_words")["movable"])
# Stems that carry no topic: a keyword query leaves them out (grammar, not domain words).
KEYWORD_STOP = frozenset(language.words("key_words", "keyword_stop"))

# Synonyms of general university administration: (pattern a, replacement for a, pattern b,
# replacement for b), applied both ways; the look-behinds keep compounds whole.
_SYNONYM_PAIRS: tuple[tuple[str, str, str, str], ...] = tuple(tuple(pair) for pair in _KO["synonyms"])
_ENGLISH_SYNONYMS: tuple[tuple[str, str], ...] = tuple(tuple(pair) for pair in _EN["synonyms"])
ENGLISH_FILLERS = tuple(_EN["fillers"])


@dataclass(frozen=True)
class _Candidate:
    text: str
    rules: tuple[str, ...]  # the rule families applied, in order


def paraphrases(question: str, n: int, seed: int = 0, tokenize: Tokenize | None = None) -> list[str]:
    """Up to `n` distinct rule paraphrases of `question`, deterministic for (question, n, seed),
    never the original itself (compared ignoring spaces and end punctuation); a smaller n gives a
    prefix of a larger one's list. `tokenize` (Kiwi's content_morphemes, or any texts -> tokens
    function) enables the keyword forms."""
    if not isinstance(question, str) or not question.strip():
        raise ValueError("paraphrases() needs a non-empty question")
    if n <= 0:
        return []
    question = " ".join(question.split())
    korean = bool(_HANGUL.search(question))
    candidates = _korean_candidates(question, tokenize) if korean else _english_candidates(question, tokenize)
    return _pick(question, candidates, n, seed)


# --------------------------------------------------------------------------- selection

def _pick(question: str, candidates: list[_Candidate], n: int, seed: int) -> list[str]:
    """Round-robin over the rule combinations (in a seeded order) so that a few paraphrases
    already cover different kinds of rewording."""
    seen = {_norm(question)}
    groups: dict[tuple[str, ...], list[str]] = {}
    for candidate in candidates:
        key = _norm(candidate.text)
        if not key or key in seen:
            continue
        seen.add(key)
        groups.setdefault(candidate.rules, []).append(candidate.text)
    digest = hashlib.sha256(f"{seed}\x00{question}".encode()).digest()
    rng = random.Random(int.from_bytes(digest[:8], "big"))
    order = sorted(groups)
    rng.shuffle(order)
    for key in order:
        rng.shuffle(groups[key])
    picked: list[str] = []
    while len(picked) < n and any(groups[key] for key in order):
        for key in order:
            if groups[key] and len(picked) < n:
                picked.append(groups[key].pop())
    return picked


def _norm(text: str) -> str:
    return re.sub(r"[\s?？.!。~,]", "", text).lower()


# --------------------------------------------------------------------------- Korean

@dataclass(frozen=True)
class _Parsed:
    """A question cut into what it asks about and how it ends."""

    filler: str  # a leading filler word, if any
    # The question without filler, ending and end punctuation. verb / adjective: it ends in the
    # predicate's stem (지원하나요 -> 지원하, 가능한가요 -> 가능하, 많은가요 -> 많); copula / noun /
    # request: a noun phrase; clause: a conditional clause (연장하려면); other: the question.
    body: str
    kind: str  # verb | adjective | copula | noun | request | clause | outcome | statement | other
    note: str  # a trailing parenthetical, re-attached to every paraphrase


def _korean_candidates(question: str, tokenize: Tokenize | None) -> list[_Candidate]:
    parsed = _parse_korean(question)
    base = [_Candidate(text, ("ending",)) for text in _reworded(parsed, _ENDINGS)]
    base += [_Candidate(text, ("register",)) for text in _reworded(parsed, _REGISTERS)]
    out: list[_Candidate] = list(base) + _keyword_candidates(question, tokenize, korean=True)
    for source in [_Candidate(question, ())] + base:
        for text in _synonym_variants(source.text):
            out.append(_Candidate(text, source.rules + ("synonym",)))
        for text in _korean_filler_variants(source.text):
            out.append(_Candidate(text, source.rules + ("filler",)))
        for text in _korean_word_orders(source.text):
            out.append(_Candidate(text, source.rules + ("order",)))
    # three-rule compositions: an ending or register change, a synonym and a filler
    for source in base:
        for text in _synonym_variants(source.text)[:1]:
            for added in _korean_filler_variants(text)[:1]:
                out.append(_Candidate(added, source.rules + ("synonym", "filler")))
    return out


_READ = _KO["endings_read"]
_REQUEST = re.compile(_READ["request"])
_HOW_IS = re.compile(_READ["how_is"])
_CLAUSE = re.compile(_READ["clause"])
_COPULA = re.compile(_READ["copula"])
_ADJECTIVE = re.compile(_READ["adjective"])
_VERB = re.compile(_READ["verb"])
_FORMAL_VOWEL = re.compile(_READ["formal_vowel"])  # 합니까: 하 + ㅂ니까
_TOPIC = re.compile(_READ["topic"])
_CONDITIONAL = _GRAMMAR["conditional_ending"]
_SENTENCE_ENDINGS = tuple(_GRAMMAR["sentence_endings"])
_FORMAL = _GRAMMAR["formal"]
_MODIFIER = _GRAMMAR["modifier"]


def _parse_korean(question: str) -> _Parsed:
    filler, text, note = _peel(question)
    phrase, kind = _read_phrase(text)
    return _Parsed(filler, phrase, kind, note)


def _peel(question: str) -> tuple[str, str, str]:
    """(a leading filler word, the question's body, a trailing parenthesized note)."""
    text = question.strip()
    note = ""
    if match := _TAIL_NOTE.search(text):
        note, text = match.group(1), text[: match.start()]
    text = text.rstrip(_TRAILING_PUNCT).strip()
    filler = ""
    first, _, rest = text.partition(" ")
    if first in KOREAN_FILLERS and rest:
        filler, text = first, rest
    return filler, text, note


def _read_phrase(text: str) -> tuple[str, str]:
    """(the phrase the question asks about, the form it asks in)."""
    for kind, pattern in (("request", _REQUEST), ("noun", _HOW_IS), ("clause", _CLAUSE), ("copula", _COPULA)):
        if match := pattern.match(text):
            np_ = match.group("np").strip()
            if np_.endswith(_CONDITIONAL):  # "…하면 어떻게 되나요" asks for an outcome, "…하려면?" for a procedure
                kind = "outcome" if kind == "noun" else "clause"
            return np_, kind
    if (match := _ADJECTIVE.match(text)) and (stem := _adjective_body(match.group("np"), match.group("syllable"))):
        return stem, "adjective"
    if (match := _FORMAL_VOWEL.match(text)) and _formal_after_vowel(match.group("syllable")):
        return match.group("np") + _with_final_index(match.group("syllable"), 0), "verb"
    if match := _VERB.match(text):
        return match.group("np"), "verb"
    if match := _TOPIC.match(text):
        return match.group("np"), "noun"
    if text.endswith(_SENTENCE_ENDINGS):  # a statement of the student's situation
        return text, "statement"
    return text, "other"


def _formal_after_vowel(syllable: str) -> bool:
    """합 of 합니까 (a stem ending in a vowel, with the formal ending's final), not 습 of 습니까."""
    return (_final_index(syllable) == _final_index_of(_FORMAL["final"])
            and syllable + _FORMAL["after_vowel"] != _FORMAL["after_consonant"])


def _adjective_body(before: str, syllable: str) -> str | None:
    """가능한가요 -> 가능하; 다른가요 -> 다르; 많은가요 -> 많 (None: not this form)."""
    if syllable == _MODIFIER["after_consonant"] and before and _final_index(before[-1]) > 0:
        return before
    if syllable != _MODIFIER["copula"] and _final_index(syllable) == _final_index_of(_MODIFIER["final"]):
        return before + _with_final_index(syllable, 0)  # the modifier's final is the ending, not the stem
    return None


# A question asked again by the kind of its body (_Parsed.kind): templates of the new questions.
# Any kind not listed (noun, request, other) is asked about as a noun phrase, as a whole.
_ENDINGS: dict[str, list[str]] = _KO["endings"]  # the ending swapped, in the polite register of most FAQs
_REGISTERS: dict[str, list[str]] = _KO["registers"]  # formal (습니까) and casual (no 요) versions


def _reworded(p: _Parsed, forms: dict) -> list[str]:
    """The question asked again in each of ``forms`` (_ENDINGS or _REGISTERS), filler and note kept."""
    note = f" {p.note}" if p.note else ""
    return [_with_filler(p.filler, _filled(template, p.body) + note) for template in forms.get(p.kind, forms["noun"])]


def _filled(template: str, body: str) -> str:
    """A template of the language data with `body` and the forms made of it ({x}, {formal},
    {modifier}, a particle's name)."""
    return template.format(**{name: _FIELDS[name](body) for name in _fields_of(template)})


@cache
def _fields_of(template: str) -> frozenset[str]:
    return frozenset(name for _, name, _, _ in Formatter().parse(template) if name)


def _adjective_modifier(stem_text: str) -> str:
    """가능하 -> 가능한, 많 -> 많은."""
    if _final_index(stem_text[-1]) > 0:
        return stem_text + _MODIFIER["after_consonant"]
    return _with_final(stem_text, _MODIFIER["final"])


def _korean_filler_variants(text: str) -> list[str]:
    first, _, rest = text.partition(" ")
    if first in KOREAN_FILLERS and rest:
        return [rest] + [f"{f} {rest}" for f in KOREAN_ADDED_FILLERS if f != first]
    return [f"{f} {text}" for f in KOREAN_ADDED_FILLERS]


def _korean_word_orders(text: str) -> list[str]:
    """Reorderings Korean allows without new grammar: a question word (with the noun it modifies)
    moved to the front; two single-word phrases marked by case particles swapped."""
    words = text.split()
    if len(words) < 3 or words[0] in KOREAN_FILLERS:
        return []
    out = []
    question_word = _question_word_span(words)
    if question_word is not None:
        start, end = question_word
        out.append(" ".join(words[start:end] + words[:start] + words[end:]))
    phrases, current = [], []
    for word in words[:-1]:
        current.append(word)
        if word.rstrip(",").endswith(_CASE_PARTICLES) and len(word) >= 2:
            phrases.append(current)
            current = []
    if len(phrases) >= 2 and len(phrases[0]) <= 2 and len(phrases[1]) == 1:
        rest = [w for phrase in phrases[2:] for w in phrase] + current + words[-1:]
        out.append(" ".join(phrases[1] + phrases[0] + rest))
    return out


def _question_word_span(words: list[str]) -> tuple[int, int] | None:
    """Where the question word sits when it can move to the front: right before the predicate
    (몇 / 어느 / 어떤 / 무슨 together with the word they modify), not inside an idiom such as
    '어떻게 되나요' and not after a conditional clause (…려면 어떻게 하나요)."""
    last = words[-1].rstrip(_TRAILING_PUNCT)
    for start in (len(words) - 2, len(words) - 3):
        if start < 1:
            continue
        word = words[start]
        modifier = word in MODIFYING_QUESTION_WORDS
        end = start + 2 if modifier else start + 1
        if end != len(words) - 1 or not word.startswith(QUESTION_WORDS):
            continue
        if last in LIGHT_PREDICATES or words[start - 1].endswith(_CONDITIONAL):
            return None
        return start, end
    return None


_CASE_PARTICLES = tuple(_GRAMMAR["case_particles"])
MODIFYING_QUESTION_WORDS = frozenset(language.load("ko", "question_words")["modifying"])
LIGHT_PREDICATES = frozenset(_KO["light_predicates"])


def _synonym_variants(text: str) -> list[str]:
    """One variant per applicable synonym pair, plus one with every pair applied."""
    out, all_applied = [], text
    for pattern_a, to_b, pattern_b, to_a in _SYNONYM_PAIRS:
        for pattern, replacement in ((pattern_a, to_b), (pattern_b, to_a)):
            if re.search(pattern, text):
                out.append(re.sub(pattern, replacement, text, count=1))
                all_applied = re.sub(pattern, replacement, all_applied, count=1)
                break
    if len(out) > 1:
        out.append(all_applied)
    return [" ".join(t.split()) for t in out]


# --------------------------------------------------------------------------- keyword forms

def _keyword_candidates(question: str, tokenize: Tokenize | None, korean: bool) -> list[_Candidate]:
    if tokenize is None:
        return []
    tokens = tokenize([question])[0]
    lowered = question.lower()
    keywords: list[str] = []
    for token in tokens:
        # a stem the text does not spell (알리 of 알려) or a grammar word is not a keyword
        if token in KEYWORD_STOP or token.lower() not in lowered or token in keywords:
            continue
        keywords.append(token)
    if not keywords:
        return []
    joined = " ".join(keywords)
    out = [_Candidate(joined, ("keywords",))]
    for template in (_KO if korean else _EN)["keyword_endings"]:
        out.append(_Candidate(template.format(x=joined), ("keywords", "ending")))
    return out


# --------------------------------------------------------------------------- English

def _english_candidates(question: str, tokenize: Tokenize | None) -> list[_Candidate]:
    core = question.rstrip(_TRAILING_PUNCT).strip()
    lowered = core[0].lower() + core[1:] if core else core
    values = {"x": lowered, "as_asked": core, "lower": lowered.lower()}
    endings = [template.format(**values) for template in _EN["endings"]]
    registers = [template.format(**values) for template in _EN["registers"]]
    base = [_Candidate(t, ("ending",)) for t in endings] + [_Candidate(t, ("register",)) for t in registers]
    out = list(base) + _keyword_candidates(question, tokenize, korean=False)
    for source in [_Candidate(question, ())] + base[:2]:
        for text in _english_synonyms(source.text):
            out.append(_Candidate(text, source.rules + ("synonym",)))
        for filler in ENGLISH_FILLERS:
            out.append(_Candidate(f"{filler.capitalize()} {source.text[0].lower()}{source.text[1:]}",
                                  source.rules + ("filler",)))
    return out


def _english_synonyms(text: str) -> list[str]:
    out = []
    for a, b in _ENGLISH_SYNONYMS:
        for old, new in ((a, b), (b, a)):
            pattern = re.compile(rf"\b{re.escape(old)}\b", re.IGNORECASE)
            if pattern.search(text):
                out.append(pattern.sub(new, text, count=1))
                break
    return out


# --------------------------------------------------------------------------- Hangul helpers

def _with_filler(filler: str, text: str) -> str:
    return f"{filler} {text}" if filler else text


def _final_index(syllable: str) -> int:
    """0 = no final consonant; 4 = ㄴ, 8 = ㄹ, 17 = ㅂ (Unicode Hangul syllable arithmetic)."""
    code = ord(syllable) - 0xAC00
    return code % 28 if 0 <= code < 11172 else -1


def _has_final(text: str) -> bool:
    """Whether `text` ends in a consonant sound (decides 이/가, 은/는, 을/를)."""
    for char in reversed(text.strip()):
        if char.isspace() or char in ")]}'\"’”":
            continue
        index = _final_index(char)
        if index >= 0:
            return index > 0
        if char.isdigit():
            return char in _GRAMMAR["digits_with_final_consonant"]  # 영 일 삼 육 칠 팔 end in a consonant
        return False  # Latin letters, symbols: read with a vowel ending most of the time
    return False


def _with_final_index(syllable: str, index: int) -> str:
    code = ord(syllable) - 0xAC00
    return chr(0xAC00 + code - code % 28 + index)


def _final_index_of(letter: str) -> int:
    """A consonant letter's index as a syllable's final: ㄴ -> 4, ㄹ -> 8, ㅂ -> 17 (its Unicode name)."""
    return ord(unicodedata.lookup("HANGUL JONGSEONG " + unicodedata.name(letter).split()[-1])) - 0x11A7


def _with_final(text: str, letter: str) -> str:
    """Add a final consonant (ㄴ, ㅂ) to the last syllable: 하 -> 한 / 합."""
    return text[:-1] + _with_final_index(text[-1], _final_index_of(letter))


def _formal(stem: str) -> str:
    """The formal ending's first part: 하 -> 합니, 들 -> 듭니, 있 -> 있습니 (then 까 or 다)."""
    if stem and _final_index(stem[-1]) == 0:
        return _with_final(stem, _FORMAL["final"]) + _FORMAL["after_vowel"]
    if stem and _final_index(stem[-1]) == _final_index_of(_FORMAL["replaced_final"]):  # 들 -> 듭니
        return stem[:-1] + _with_final_index(stem[-1], _final_index_of(_FORMAL["final"])) + _FORMAL["after_vowel"]
    return stem + _FORMAL["after_consonant"]


def _particle(noun: str, forms: list[str]) -> str:
    """The form that fits after `noun`: forms = [after a final consonant, after a vowel]."""
    after_consonant, after_vowel = forms
    return after_consonant if _has_final(noun) else after_vowel


# What a template's fields are, made of the body: the body itself, the stem's forms, and every
# particle (and the casual copula) in the form that fits after it.
_FIELDS: dict[str, Callable[[str], str]] = {
    "x": lambda body: body,
    "formal": _formal,
    "modifier": _adjective_modifier,
    "ya": partial(_particle, forms=_GRAMMAR["casual_copula"]),
    **{name: partial(_particle, forms=forms) for name, forms in _GRAMMAR["particles"].items()},
}


def korean_question_forms(topic: str) -> list[str]:
    """Questions about a noun phrase (a document title, a heading), for generated queries."""
    topic = " ".join(topic.split())
    return [_filled(template, topic) for template in _ENDINGS["noun"]]


def english_question_forms(topic: str) -> list[str]:
    topic = " ".join(topic.split())
    return [template.format(x=topic) for template in _EN["question_forms"]]


def question_forms(topic: str) -> list[str]:
    """Question wordings about `topic`, in its language (Hangul present: Korean)."""
    return korean_question_forms(topic) if _HANGUL.search(topic) else english_question_forms(topic)


__all__ = ["paraphrases", "question_forms", "korean_question_forms", "english_question_forms"]

