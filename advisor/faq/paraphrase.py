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
from collections.abc import Callable
from dataclasses import dataclass

Tokenize = Callable[[list[str]], list[list[str]]]

_HANGUL = re.compile(r"[가-힣]")
_TRAILING_PUNCT = " ?？.!。~"
_TAIL_NOTE = re.compile(r"\s*(\([^()]*\))\s*[?？.!。]*\s*$")  # "...궁금해요(심화전공)." -> "(심화전공)"

KOREAN_FILLERS = ("혹시", "그런데", "근데", "저기요", "저")
KOREAN_ADDED_FILLERS = ("혹시", "그런데")
QUESTION_WORDS = ("언제", "어떻게", "어디서", "어디에", "어디", "몇", "무엇을", "무엇이", "무엇", "뭐가", "뭐",
                  "누가", "누구", "왜", "얼마나", "얼마", "어느", "어떤")
# Stems that carry no topic: a keyword query leaves them out (Korean grammar, not domain words).
KEYWORD_STOP = frozenset({"어떻", "어떠", "있", "없", "하", "되", "알리", "궁금", "궁금하", "주", "같", "싶", "이러", "그러"})

# Synonyms of general university administration. (pattern, replacement) pairs, applied both ways;
# the look-behinds keep compounds whole (이수학점 is not 이수이수학점, 수강신청 stays a term).
_SYNONYM_PAIRS: tuple[tuple[str, str, str, str], ...] = (
    # (pattern a, replacement for a, pattern b, replacement for b)
    (r"(?<!수강)신청", "접수", r"접수", "신청"),
    (r"방법", "절차", r"절차", "방법"),
    (r"기간", "일정", r"일정", "기간"),
    (r"(?<!이수)(?<!이수 )학점", "이수학점", r"이수\s?학점", "학점"),
    (r"조건", "요건", r"요건", "조건"),
    (r"가능한가요", "할 수 있나요", r"(?<=[가-힣])할 수 있나요", " 가능한가요"),
    (r"가능합니까", "할 수 있습니까", r"(?<=[가-힣])할 수 있습니까", " 가능합니까"),
    (r"가능한지", "할 수 있는지", r"(?<=[가-힣])할 수 있는지", " 가능한지"),
    (r"(?<!교)과목", "교과목", r"교과목", "과목"),
    (r"들어야", "이수해야", r"이수해야", "들어야"),
    (r"어떻게 하나요", "어떤 방법으로 하나요", r"어떤 방법으로 하나요", "어떻게 하나요"),
)
_ENGLISH_SYNONYMS: tuple[tuple[str, str], ...] = (
    ("apply", "register"), ("application", "registration"), ("deadline", "due date"),
    ("requirements", "conditions"), ("requirement", "condition"), ("credits", "credit hours"),
    ("procedure", "process"), ("schedule", "timeline"), ("course", "class"), ("courses", "classes"),
    ("can i", "am i allowed to"), ("how do i", "how can i"), ("period", "window"),
)
ENGLISH_FILLERS = ("by the way,", "quick question:", "hi,", "so")


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


_REQUEST = re.compile(r"^(?P<np>.+?)\s*(?:[이가을를은는]|에 대해서?)?\s*(?:알려\s?주세요|알려\s?주십시오|알려\s?줘|"
                      r"알고\s?싶어요|알고\s?싶습니다|궁금합니다|궁금해요|궁금해)$")
_HOW_IS = re.compile(r"^(?P<np>.+?)\s*(?:[은는이가])?\s*어떻게\s?(?:되나요|돼요|됩니까|되죠)$")
_CLAUSE = re.compile(r"^(?P<np>.+(?:려면|으면))$")
_COPULA = re.compile(r"^(?P<np>.+?)\s*(?:인가요|인지요|입니까|이에요|예요|인가)$")
_ADJECTIVE = re.compile(r"^(?P<np>.+?)(?P<syllable>[가-힣])가요$")
_VERB = re.compile(r"^(?P<np>.+?)(?:나요|습니까|나|냐)$")
_FORMAL_VOWEL = re.compile(r"^(?P<np>.*?)(?P<syllable>[가-힣])니까$")  # 합니까: 하 + ㅂ니까
_TOPIC = re.compile(r"^(?P<np>.+?[가-힣A-Za-z0-9)])(?:은|는)$")


def _parse_korean(question: str) -> _Parsed:
    text = question.strip()
    note = ""
    if match := _TAIL_NOTE.search(text):
        note, text = match.group(1), text[: match.start()]
    text = text.rstrip(_TRAILING_PUNCT).strip()
    filler = ""
    first, _, rest = text.partition(" ")
    if first in KOREAN_FILLERS and rest:
        filler, text = first, rest
    for kind, pattern in (("request", _REQUEST), ("noun", _HOW_IS), ("clause", _CLAUSE), ("copula", _COPULA)):
        if match := pattern.match(text):
            np_ = match.group("np").strip()
            if np_.endswith("면"):  # "…하면 어떻게 되나요" asks for an outcome, "…하려면?" for a procedure
                kind = "outcome" if kind == "noun" else "clause"
            return _Parsed(filler, np_, kind, note)
    if (match := _ADJECTIVE.match(text)) and (stem := _adjective_body(match.group("np"), match.group("syllable"))):
        return _Parsed(filler, stem, "adjective", note)
    if (match := _FORMAL_VOWEL.match(text)) and _final_index(match.group("syllable")) == 17 and match.group("syllable") != "습":
        return _Parsed(filler, match.group("np") + _with_final_index(match.group("syllable"), 0), "verb", note)
    if match := _VERB.match(text):
        return _Parsed(filler, match.group("np"), "verb", note)
    if match := _TOPIC.match(text):
        return _Parsed(filler, match.group("np"), "noun", note)
    if text.endswith(("요", "다")):  # a statement of the student's situation
        return _Parsed(filler, text, "statement", note)
    return _Parsed(filler, text, "other", note)


def _adjective_body(before: str, syllable: str) -> str | None:
    """가능한가요 -> 가능하; 다른가요 -> 다르; 많은가요 -> 많 (None: not this form)."""
    if syllable == "은" and before and _final_index(before[-1]) > 0:
        return before
    if syllable != "인" and _final_index(syllable) == 4:  # final ㄴ is the ending, not the stem
        return before + _with_final_index(syllable, 0)
    return None


# A question asked again by the kind of its body (_Parsed.kind): the body -> the new questions.
# Any kind not listed (noun, request, other) is asked about as a noun phrase, as a whole.
_ENDINGS = {  # the ending swapped, in the polite register of most FAQs
    "verb": lambda b: [f"{b}는지 알려주세요.", f"{b}는지 궁금합니다.", f"{b}나요?", f"{b}는지 알고 싶어요."],
    "adjective": lambda b: [f"{_adjective_whether(b)} 알려주세요.", f"{_adjective_whether(b)} 궁금합니다.",
                            f"{_adjective_modifier(b)}가요?"],
    "copula": lambda b: [f"{b}인지 알려주세요.", f"{b}인지 궁금합니다.", f"{b}인가요?"],
    "clause": lambda b: [f"{b} 어떻게 해야 하나요?", f"{b} 어떻게 하나요?", f"{b} 무엇을 해야 하는지 알려주세요."],
    "outcome": lambda b: [f"{b} 어떻게 되는지 알려주세요.", f"{b} 어떻게 되는지 궁금합니다.", f"{b} 어떻게 돼요?"],
    "statement": lambda b: [f"{b}. 어떻게 해야 하나요?", f"{b}. 방법이 있나요?", f"{b}. 어떻게 하면 되는지 알려주세요."],
    "noun": lambda b: [f"{b}{_particle(b, '이', '가')} 어떻게 되나요?", f"{b} 알려주세요.",
                       f"{b}{_particle(b, '이', '가')} 궁금합니다.", f"{b}{_particle(b, '은', '는')}?"],
}
_REGISTERS = {  # formal (습니까) and casual (no 요) versions
    "verb": lambda b: [f"{_formal(b)}까?", f"{b}나?"],
    "adjective": lambda b: [f"{_formal(b)}까?", f"{_adjective_modifier(b)}가?"],
    "copula": lambda b: [f"{b}입니까?", f"{b}{'이야' if _has_final(b) else '야'}?"],
    "clause": lambda b: [f"{b} 어떻게 해?", f"{b} 어떻게 합니까?"],
    "outcome": lambda b: [f"{b} 어떻게 됩니까?", f"{b} 어떻게 돼?"],
    "statement": lambda b: [f"{b}. 어떻게 해?", f"{b}. 어떻게 해야 합니까?"],
    "noun": lambda b: [f"{b} 알려줘", f"{b}{_particle(b, '이', '가')} 궁금해", f"{b}{_particle(b, '을', '를')} 알고 싶습니다."],
}


def _reworded(p: _Parsed, forms: dict) -> list[str]:
    """The question asked again in each of ``forms`` (_ENDINGS or _REGISTERS), filler and note kept."""
    note = f" {p.note}" if p.note else ""
    return [_with_filler(p.filler, text + note) for text in forms.get(p.kind, forms["noun"])(p.body)]


def _adjective_modifier(stem_text: str) -> str:
    """가능하 -> 가능한, 많 -> 많은."""
    return stem_text + "은" if _final_index(stem_text[-1]) > 0 else _with_final(stem_text, "ㄴ")


def _adjective_whether(stem_text: str) -> str:
    return _adjective_modifier(stem_text) + "지"


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
        if last in LIGHT_PREDICATES or words[start - 1].endswith("면"):
            return None
        return start, end
    return None


_CASE_PARTICLES = ("을", "를", "에", "에서", "에게", "에도", "에는", "으로", "까지", "부터")
MODIFYING_QUESTION_WORDS = frozenset({"몇", "어느", "어떤", "무슨"})
LIGHT_PREDICATES = frozenset({"하나요", "합니까", "해요", "해", "하나", "되나요", "돼요", "됩니까", "되나", "되죠", "해야"})


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
    if korean:
        out.append(_Candidate(f"{joined} 알려주세요", ("keywords", "ending")))
        out.append(_Candidate(f"{joined} 궁금합니다", ("keywords", "ending")))
    else:
        out.append(_Candidate(f"{joined} info please", ("keywords", "ending")))
    return out


# --------------------------------------------------------------------------- English

def _english_candidates(question: str, tokenize: Tokenize | None) -> list[_Candidate]:
    core = question.rstrip(_TRAILING_PUNCT).strip()
    lowered = core[0].lower() + core[1:] if core else core
    endings = [f"Could you tell me: {lowered}?", f"I'd like to know {lowered}.", f"{core}? Please let me know.",
               f"Question: {lowered}?"]
    registers = [f"{lowered.lower()}", f"{lowered.lower()}??", f"Hello, {lowered}?"]
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
            return char in "013678"  # 영 일 삼 육 칠 팔 end in a consonant
        return False  # Latin letters, symbols: read with a vowel ending most of the time
    return False


def _with_final_index(syllable: str, index: int) -> str:
    code = ord(syllable) - 0xAC00
    return chr(0xAC00 + code - code % 28 + index)


def _with_final(text: str, jamo: str) -> str:
    """Add a final consonant (ㄴ or ㅂ) to the last syllable: 하 -> 한 / 합."""
    index = {"ㄴ": 4, "ㅂ": 17}[jamo]
    return text[:-1] + _with_final_index(text[-1], index)


def _formal(stem: str) -> str:
    """The formal ending's first part: 하 -> 합니, 있 -> 있습니 (then 까 or 다)."""
    if stem and _final_index(stem[-1]) == 0:
        return _with_final(stem, "ㅂ") + "니"
    if stem and _final_index(stem[-1]) == 8:  # ㄹ drops: 들 -> 듭니
        return stem[:-1] + _with_final_index(stem[-1], 17) + "니"
    return stem + "습니"


def _particle(noun: str, after_consonant: str, after_vowel: str) -> str:
    return after_consonant if _has_final(noun) else after_vowel


def korean_question_forms(topic: str) -> list[str]:
    """Questions about a noun phrase (a document title, a heading), for generated queries."""
    topic = " ".join(topic.split())
    return [f"{topic}{_particle(topic, '이', '가')} 어떻게 되나요?", f"{topic} 알려주세요.",
            f"{topic}{_particle(topic, '이', '가')} 궁금합니다.", f"{topic}{_particle(topic, '은', '는')}?"]


def english_question_forms(topic: str) -> list[str]:
    topic = " ".join(topic.split())
    return [f"What about {topic}?", f"Tell me about {topic}.", f"I have a question about {topic}.",
            f"Where can I find {topic}?"]


def question_forms(topic: str) -> list[str]:
    """Question wordings about `topic`, in its language (Hangul present: Korean)."""
    return korean_question_forms(topic) if _HANGUL.search(topic) else english_question_forms(topic)


__all__ = ["paraphrases", "question_forms", "korean_question_forms", "english_question_forms"]

