"""The benchmark's questions, from templates: one fact asked formally, in the first person, and as a
yes/no check with a true or false premise (docs/method.md §A's three query types), and the same with
the student stating part of their profile first. Offline these templates write every question;
with an LLM configured, eval/benchmark/llm_questions.py rewrites them in a student's words.
"""

from __future__ import annotations

import random
from typing import Any, Mapping

from advisor.index import fields
from eval.benchmark.facts import Fact

QUERY_TYPES = ("formal", "first_person", "verification")
# A yes/no question whose premise holds states the answer in the question itself: reported as its
# own query type, so a retriever that matches the number is not mistaken for one that understands.
VERIFICATION_TRUE = "verification_true"

# Every template names the topic (the document family: "졸업요건") beside the aspect: "기본은 얼마로
#정해져 있습니까?" is a question nobody could answer, "수강신청에서 기본 기준은?" one a student asks.
FORMAL = ("{topic}에서 {aspect} 기준은 어떻게 됩니까?", "{topic}의 {aspect}{eun} 얼마로 정해져 있습니까?",
          "{topic} 관련하여 {aspect} 기준을 알려 주십시오.", "{topic}에서 {aspect} 요건이 무엇인지 안내 부탁드립니다.")
FIRST_PERSON = ("제가 {topic} 때문에 그러는데 {aspect}{eun} 어떻게 되나요?", "{topic} 관련해서 저는 {aspect}{eul} 얼마나 채워야 하나요?",
                "{topic}에서 제 경우에 {aspect} 기준이 궁금해요.", "{topic} 준비 중인데 저한테 {aspect}{eun} 몇이에요?")
VERIFY = ("{topic}에서 {aspect}{eun} {value}{unit}{i} 맞나요?", "{topic}에서 {aspect} 기준이 {value}{unit} 아닌가요?",
          "{topic} 관련해서 제 {aspect}{eun} {value}{unit}인 걸로 아는데 맞죠?")
# the student says who they are before asking ("{who}": "컴퓨터학과 21학번")
STATED = ("저는 {who}입니다. ", "{who}인데요, ", "{who} 학생인데 ")


def _particle(word: str, pair: str) -> str:
    """은/는, 이/가, 을/를 by the last syllable's final consonant (a digit or Latin: the second form)."""
    last = word[-1:] if word else ""
    has_final = "가" <= last <= "힣" and (ord(last) - 0xAC00) % 28 != 0
    first, second = pair.split("/")
    return first if has_final else second


def ask(fact: Fact, topic: str, query_type: str, rng: random.Random) -> tuple[str, str, str]:
    """(query, reference answer, premise) for one query type; premise: "" | "true" | "false".
    The reference answer is the fact's own line (a verification's starts with 네 / 아니요)."""
    if query_type != "verification":
        template = rng.choice(FORMAL if query_type == "formal" else FIRST_PERSON)
        return _fill(template, fact, topic, fact.value), fact.line.readable, ""
    true_premise = rng.random() < 0.5
    value = fact.value if true_premise else _other_number(fact.value, rng)
    lead = "네" if true_premise else "아니요"
    return (_fill(rng.choice(VERIFY), fact, topic, value), f"{lead}. {fact.line.readable}",
            "true" if true_premise else "false")


def query_type_of(query_type: str, premise: str) -> str:
    return VERIFICATION_TRUE if query_type == "verification" and premise == "true" else query_type


def _fill(template: str, fact: Fact, topic: str, value: str) -> str:
    quantity = f"{value}{fact.unit}"
    return template.format(topic=topic, aspect=fact.aspect, value=value, unit=fact.unit,
                           eun=_particle(fact.aspect, "은/는"), eul=_particle(fact.aspect, "을/를"),
                           i=_particle(quantity, "이/가"))


def _other_number(value: str, rng: random.Random) -> str:
    number = float(value)
    delta = max(1, round(abs(number) * rng.choice((0.1, 0.2, 0.3))))
    other = number + delta if rng.random() < 0.5 or number - delta <= 0 else number - delta
    return str(int(other)) if "." not in value else f"{other:.1f}"


def stating(query: str, profile: Mapping[str, Any], names: tuple[str, ...], schema: fields.Schema,
            rng: random.Random) -> str:
    """The query with the student saying who they are first, for the attributes `names`: a
    categorical value by its label, a cohort as "21학번"."""
    words = []
    for name in names:
        attribute, value = schema[name], profile[name]
        if fields.is_categorical(attribute):
            words.append(attribute.label(value))
        elif attribute.type == "year":
            words.append(f"{value % 100:02d}학번")
    return rng.choice(STATED).format(who=" ".join(words)) + query if words else query


def names_profile(query: str, profile: Mapping[str, Any], schema: fields.Schema) -> bool:
    """Whether the question would give away the profile (a value's alias or label, the cohort)."""
    for name, value in profile.items():
        attribute = schema[name]
        if fields.is_categorical(attribute):
            if any(w and w in query for w in (value, attribute.label(value), *attribute.values.get(value, ()))
                   if len(w) >= 2):
                return True
        elif attribute.type == "year" and (str(value) in query or f"{value % 100}학번" in query):
            return True
    return False
