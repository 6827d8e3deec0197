"""Korean administrative cues: is a mention of students an AUDIENCE of the text, or something else?

A text names groups of students for many reasons. These cues read the few characters around a
mention; they are general Korean (and a little English) usage, never one site's wording:

- excluded: "…없이", "…를 제외한" right after it; in prose also "…는 신청할 수 없습니다" when the
  sentence already named its audience ("재학생이 지원할 수 있으며, 휴학 중에는 신청할 수 없습니다");
- organizer: "기계공학과 참여 융합전공", "A과·B과가 함께 운영", "운영 학과: A과";
- hosted: "경영학과 이중전공", "경영학과를 제2전공으로", "경영학과 전과", "경영학과로 전과하려면": the
  audience is the other departments (nobody takes their own department as a second major or
  transfers into it);
- host: "통계학과 복수전공 이수 학생은 …" names whoever takes the program (its takers are the
  phrase's subject), so the department is only the program's host: it says nothing of whom;
- history: "2019년 로봇공학과 신설", "첫 신입생을 맞았습니다";
- time, not people (prose only): "4학년에 개설", "1학년 1학기에는", "1학년 전공기초 과목";
- a name, not people (prose only): "복학생 학업지원장학" (a person noun directly followed by
  another noun is a modifier);
- "재학생" after a grade, a cohort or another group ("2학년 이상 재학생", "기계공학과 재학생")
  just means "students", and "재학 중" before a span ("재학 중 통산 6학기") means "while studying";
- groups joined across attributes ("신입생 및 편입생"): an OR that one record cannot express.
"""

from __future__ import annotations

import re

from advisor.annotation import words
from advisor.annotation.lexicon import person_stem

# A particle-free word (a noun), so "학생은" ends a run of modifiers but "전공기초" does not.
_NOUN = r"[가-힣A-Za-z]+(?<![은는이가을를에도의])"

NEGATED_AFTER = re.compile(r"^\s*(?:은|는|을|를|이|가|의)?\s*(?:없이|제외|외의?\s|아닌|빼고)")
EXCLUDED_AFTER = re.compile(r"^[^.,;!?]{0,30}?(?:수\s*없|불가|제외|대상이\s*아니|대상이\s*아닙)")
ORGANIZER_AFTER = re.compile(
    r"^(?:\s*(?:[,·ㆍ/]|와|과|및)\s*[^\s,·ㆍ/]{1,15})*\s*(?:이|가|와|과|에서)?\s*"
    r"(?:함께|공동(?:으로)?|참여(?!\s*(?:학생|자|희망|신청|대상))|주관|운영)"  # "…참여 학생" are the audience
)
ORGANIZER_BEFORE = re.compile(r"(?:운영|주관|참여|개설|담당)\s*(?:학과|학부|기관|부서|대학)?\s*[:：][^.\n]*$")
HOSTED_AFTER = re.compile(
    r"^\s*(?:의|을|를)?\s*(?P<program>이중\s*전공|복수\s*전공|부\s*전공|제\s*2\s*전공|double\s+major|minor\b)"
    r"|^\s*(?:의|을|를)?\s*전과(?!목)"
    r"|^\s*(?:으로|로)\s*전과(?!목|\s*(?:한|했|된))",  # "경영학과로 전과하려면": moving in, not yet done
    re.IGNORECASE,
)
# "통계학과 복수전공 이수 학생은 …": the phrase names whoever takes the program, so the department is
# the program's host and says nothing of its takers' own department (words.py: takers).
TAKERS_AFTER = re.compile(
    rf"^(?:{words.alternation('taker_suffixes')})(?=[은는이가을를의에도만들]|[^가-힣]|$)"
    rf"|^\s*(?:{words.alternation('program_nouns')})?\s*(?:{words.alternation('takers')})",
    re.IGNORECASE,
)
HISTORY_AFTER = re.compile(r"^\s*(?:이|가|을|를|의|로|으로)?\s*(?:신설|설립|창설|출범|출발|폐지|통합)")
HISTORY_BEFORE = re.compile(r"(?:첫|최초의?)\s*$")
TIMING_AFTER = re.compile(
    rf"^\s*(?:초|말|초반|후반|말경)?\s*(?:에|에는|에서|때|때에|때는)(?![가-힣])"
    rf"|^\s*(?:{_NOUN}\s+){{0,2}}?(?:{_NOUN})?(?:과목|교과목|강의|수업|교육과정|개설|전공\s*트랙)"
)
_ALLOWED_HEADS = r"(?:가운데|중|대상|전원|여러분|본인|모두|전체|등|및|또는|이나|혹은|누구나)"
MODIFIER_AFTER = re.compile(rf"^\s+(?!{_ALLOWED_HEADS}(?:[은는이가을를의에도만]|에서|으로|\s|$))[가-힣]")
GENERIC_STUDENT = re.compile(r"^(?:재학|enrolled|current)", re.IGNORECASE)
# "재학 중 통산 6학기", "재학 중 1회": the whole course of study, not the students now enrolled.
SPAN_AFTER = re.compile(r"^\s*(?:에는|에도|에|동안)?\s*(?:통산|총|누적|최대|최장|최소|한\s*번|\d+\s*(?:회|번|학기|학점|년))")
RANGE_BEFORE = re.compile(
    r"(?:\d\s*학년|학번|입학생|입학자|이상|이하|이후|이전|부터|까지|\d+\s*개?\s*학기\s*이상\s*(?:이수|등록|재학)한)\s*$"
)
RANGE_AFTER = re.compile(r"^\s*\(\s*\d\s*(?:학년|학번)")
COHORT_GENERAL = re.compile(
    r"(?<![가-힣])(?:모든|전|전체)\s*(?:학번|입학\s*년도|입학생)"
    r"|(?:학번|입학\s*년도|입학\s*연도)\s*(?:와|과|에)?\s*(?:관계\s*없이|상관\s*없이|무관하게|무관)"
    r"|regardless\s+of\s+(?:admission|cohort|entry)|all\s+cohorts",
    re.IGNORECASE,
)
GRADE_GENERAL = re.compile(
    r"(?<![가-힣])(?:모든|전|전체)\s*학년(?!도)|학년\s*(?:과|와|에)?\s*(?:관계\s*없이|상관\s*없이|무관하게)"
    r"|regardless\s+of\s+(?:year|grade)|all\s+years",
    re.IGNORECASE,
)
# "심화전공과 이중전공은 무엇이 다른가요?": values named to be compared, not addressed.
COMPARISON = re.compile(r"차이|다른\s*(?:가요|점|지)|다릅니까|비교|\bvs\.?\b|versus|difference|compared", re.IGNORECASE)
_COORDINATION = re.compile(r"^\s*(?:의\s*)?(?:및|과|와|·|ㆍ|,|또는|이나|나|혹은|or|and)\s*$", re.IGNORECASE)


def categorical_role(before: str, after: str, *, person: bool, prose: bool, generic: str) -> str | None:
    """The role of a categorical mention (None: not about the audience at all)."""
    if NEGATED_AFTER.match(after):
        return None
    if not person:
        if HISTORY_AFTER.match(after):
            return None
        if ORGANIZER_AFTER.match(after) or ORGANIZER_BEFORE.search(before):
            return "organizer"
        if hosted := HOSTED_AFTER.match(after):
            # the takers of a department's program are the phrase's subject, not the department's own
            return "host" if hosted.group("program") and TAKERS_AFTER.match(after[hosted.end():]) else "hosted"
    elif GENERIC_STUDENT.match(generic):
        if RANGE_BEFORE.search(before) or RANGE_AFTER.match(after) or SPAN_AFTER.match(after):
            return None
        return "generic"  # settled against the other attributes' mentions
    elif prose and MODIFIER_AFTER.match(after):
        return None
    if prose and EXCLUDED_AFTER.match(after):
        return "excluded"
    return "audience"


def range_role(before: str, after: str, *, grade: bool, prose: bool) -> str | None:
    """The role of a cohort or grade mention (None: not about the audience)."""
    if NEGATED_AFTER.match(after):
        return None
    if prose:
        if HISTORY_BEFORE.search(before):
            return None
        if grade and TIMING_AFTER.match(after):
            return None
        if EXCLUDED_AFTER.match(after):
            return "excluded"
    return "audience"


# A separator that lists facets in a label; conjunctions ("및", "또는") always join alternatives.
_FACET_SEPARATOR = re.compile(r"^\s*[·ㆍ,，|/\-–—]\s*$")
_PERSON_END = re.compile(rf"(?:{words.alternation('person_endings')})$", re.IGNORECASE)


def _is_group(text: str, mention) -> bool:
    """Whether a mention names a group of people ("2019학년도 입학자", "편입생"), not a facet of one
    ("2019학번", "연계전공", "3학년")."""
    return bool(_PERSON_END.search(text[mention.start:mention.end]))


_SUBJECT_AFTER = re.compile(r"^\s*(?:학생들?|재학생|입학생|입학자|이수자)?\s*(?:은|는|이|가|도)(?![가-힣])")


def settle_roles(mentions: dict[str, list], text: str, label: bool = False) -> None:
    """Settle roles that depend on the other attributes' mentions (in place):
    - "재학생" right after another attribute's group means that group's students;
    - "신입생 및 편입생": groups of different attributes joined by a conjunction are an OR;
      a record is an AND of its attributes, so neither restricts. In a label (a heading, a
      caption, a title), a separator between a group and a facet that is no group of people
      ("2019학년도 입학자 · 연계전공 트랙", "3학년 | 휴학생") lists the facets of ONE audience;
      two groups of people side by side ("신입생·편입생 안내") stay alternatives;
    - an excluded group counts as the audience only if the sentence names no audience before it
      ("휴학 중인 학생은 장학금을 신청할 수 없다" is about students on leave);
    - a status change ("휴학하면") tells its actor's status only when no other subject is named
      ("외국인 유학생이 휴학하면" is about international students, whatever their status)."""
    _settle_generic(mentions, text)
    flat = _ordered(mentions, {"audience", "excluded"})
    subjects = [(m.end, name, m.value) for m, name in flat if _SUBJECT_AFTER.match(text[m.end:m.end + 8])]
    for (a, name_a), (b, name_b) in zip(flat, flat[1:]):
        gap = text[a.end:b.start]
        if name_a != name_b and b.start >= a.end and _COORDINATION.match(gap):
            if label and _FACET_SEPARATOR.match(gap) and not (_is_group(text, a) and _is_group(text, b)):
                continue  # facets of one audience
            a.role = b.role = "dropped"
    first_audience = min((m.start for m, _ in flat if m.role == "audience"), default=None)
    for m, _ in flat:
        if m.role == "excluded":
            m.role = "dropped" if first_audience is not None and first_audience < m.start else "audience"
    for m, name in _ordered(mentions, {"action"}):
        other_actor = any(end <= m.start and (n != name or not (v & m.value)) for end, n, v in subjects)
        m.role = "dropped" if other_actor else "audience"


def _ordered(mentions: dict[str, list], roles: set[str]) -> list[tuple]:
    pairs = [(m, name) for name, ms in mentions.items() for m in ms if m.role in roles]
    return sorted(pairs, key=lambda pair: pair[0].start)


def _settle_generic(mentions: dict[str, list], text: str) -> None:
    others = _ordered(mentions, {"audience", "excluded"})
    for m, name in _ordered(mentions, {"generic"}):
        qualified = any(n != name and o.end <= m.start and not text[o.end:m.start].strip() for o, n in others)
        m.role = "dropped" if qualified else "audience"


# ----------------------------------------------------------------------------- status changes

# A change of status is an act of the students in the status before it: who applies for a leave
# is enrolled (재학), who extends a leave or applies to return is on leave (휴학), and who has
# returned is a returning student (복학). Stems are matched against the config's person aliases,
# so a config without such statuses gets nothing from this table.
# (pattern, statuses, statuses when the action is a whole label such as "제17조(휴학)" — the rules
# on leave concern both taking and extending it — or None when the action needs no marker)
_ACTIONS = (
    (re.compile(r"휴학\s*(?:을|를)?\s*연장|휴학연장"), ("휴학",), None),
    (re.compile(r"복학\s*(?:했|한\s*(?:뒤|후|다음)|하고\s*나)"), ("복학",), None),
    (re.compile(r"[가-힣]{0,2}휴학(?!\s*(?:생|자|중|기간|연장|한\s*학생|하는\s*학생|예정))"), ("재학",), ("재학", "휴학")),
    (re.compile(r"복학(?!\s*(?:생|자|중|예정|한\s*학생|하는\s*학생))"), ("휴학", "복학"), ("휴학", "복학")),
)
_COORDINATED_ACTIONS = r"(?:\s*(?:[·ㆍ,]|및|과|와)\s*[가-힣]*(?:휴학|복학)[가-힣]*)*"
_ACTION_MARKER = re.compile(
    rf"^{_COORDINATED_ACTIONS}\s*(?:은|는|을|를)?\s*(?:[가-힣]+\s+){{0,2}}?(?:신청|연장|하려면|하면|할\s*수|접수)"
)


def status_actions(values: dict[str, tuple[str, ...]]) -> list[tuple[re.Pattern, frozenset, frozenset | None]]:
    """The action table resolved to this attribute's values (empty if its aliases lack the stems)."""
    stems: dict[str, str] = {}
    for value, aliases in values.items():
        for alias in aliases:
            stem = person_stem(alias.strip())
            if stem:
                stems.setdefault(stem, value)
    table = []
    for pattern, needed, alone in _ACTIONS:
        if all(s in stems for s in needed + (alone or ())):
            table.append((pattern, frozenset(stems[s] for s in needed),
                          frozenset(stems[s] for s in alone) if alone else None))
    return table


_WHOLE_LABEL = (re.compile(r"(?:^|[(>])\s*$"), re.compile(r"^\s*(?:\)|$)"))


def find_status_actions(text: str, table: list) -> list[tuple[int, int, frozenset]]:
    """Status changes named as actions ("휴학 신청", "휴학을 연장하려면", "복학했는데"), or
    standing alone as a label ("제19조(복학)")."""
    found: list[tuple[int, int, frozenset]] = []
    taken: list[tuple[int, int]] = []
    for pattern, values, alone_values in table:  # the table is ordered most specific first
        for m in pattern.finditer(text):
            if any(s < m.end() and m.start() < e for s, e in taken):
                continue
            if alone_values is not None:  # a bare action noun needs a marker, or stands alone
                if _WHOLE_LABEL[0].search(text[:m.start()]) and _WHOLE_LABEL[1].match(text[m.end():]):
                    values_here = alone_values
                elif _ACTION_MARKER.match(text[m.end():m.end() + 30]):
                    values_here = values
                else:
                    continue
            else:
                values_here = values
            taken.append((m.start(), m.end()))
            found.append((m.start(), m.end(), values_here))
    return found
