"""One message to one intent, offline: the certain rules first (advisor/intents/meta.py), then the
classifier with its calibrated "not sure" (advisor/intents/not_sure.py). Pure logic, shared by the
serving router and any evaluation that wants to measure routing as the student meets it."""

from __future__ import annotations

from advisor.intents import INFORMATION_INTENTS
from advisor.intents.meta import (announces_a_question, asks_about_its_access, asks_leave_to_ask, asks_something,
                                  asks_what_it_is, is_greeting_only, is_meta_question, is_personal_chat,
                                  is_social_request, reports_absence, strip_greeting, takes_leave,
                                  words_outside_assistant_lexicon)
from advisor.intents.not_sure import decide


def certain_intent(message: str) -> tuple[str, str] | None:
    """(intent, rule) when a rule is certain whatever the backend: a message of greeting words only
    is a greeting; a question about the assistant itself, alone or behind a greeting, is ability,
    and so are asking whether it is some office's bot or person, whether it can see one's records,
    leave to ask about a topic ("장학금 관련해서도 물어봐도 돼?") and announcing a question without
    asking it ("질문 있어요", "I have a question"); asking it for
    cheer, comfort, praise or a joke is smalltalk, and so are chat about the day, meals or moods and
    taking leave.
    None otherwise (a greeting followed by a real question is left to the router: a question)."""
    if is_greeting_only(message):
        return "greeting", "greeting_only"
    if is_meta_question(message):
        return "ability", "meta_question"
    rest = strip_greeting(message)
    if rest is not None and is_meta_question(rest):
        return "ability", "greeting_then_meta_question"
    if asks_what_it_is(rest or message):
        return "ability", "what_it_is"
    if asks_about_its_access(rest or message):
        return "ability", "its_access"
    if asks_leave_to_ask(rest or message):
        return "ability", "leave_to_ask"
    if announces_a_question(rest or message):
        return "ability", "announces_question"
    if is_social_request(rest or message):
        return "smalltalk", "social_request"
    if is_personal_chat(rest or message):
        return "smalltalk", "personal_chat"
    if takes_leave(rest or message):
        return "smalltalk", "leaving"
    return None


def classify(message: str, classifier, names_a_topic=None) -> tuple[str, dict]:
    """The classifier's intent for what follows a leading greeting (the whole message when there
    is none), a template intent below the classifier's "not sure" threshold sent to answering.
    `names_a_topic(text)`: does the text name something the institution's material is about (the
    serving engine asks its build); None: any word outside the assistant lexicon counts as one."""
    rest = strip_greeting(message)
    text = rest or message
    prediction = classifier.predict([text])[0]
    threshold = classifier.not_sure_threshold
    intent, confidence, unsure = decide(prediction.scores, threshold)
    trace = {"router": "classifier", "confidence": round(confidence, 4), "not_sure_threshold": threshold}
    if rest is not None:
        trace["after_greeting"] = rest
        if intent in ("greeting", "smalltalk") and not unsure:
            # a greeting followed by chat ("안녕하세요 처음 써봐요") is a greeting: only a request after
            # it makes the message a question
            return "greeting", trace
    if unsure:
        trace["unsure_of"] = prediction.intent  # the template it would have been
    elif intent == "ability" and (outside := words_outside_assistant_lexicon(text, classifier.assistant_words)) and (
            names_a_topic is None or names_a_topic(" ".join(outside))):
        # "넌 휴학 신청 방법 알아?", "스튜디오 야간 사용 가능해?": words about something the university's
        # material covers make it a request about that, for answering, however sure the classifier is.
        # A word merely missing from the lexicon ("챗봇이 헷갈릴 수도 있나요?") does not, nor does a word
        # of the lexicon that the documents also use ("are your answers up to date?"). Not the next
        # likeliest template: a request sent to smalltalk loses the question, while chat sent to
        # answering meets its "not in my material" fallback
        intent = max(INFORMATION_INTENTS, key=lambda i: prediction.scores.get(i, 0.0))
        trace["not_about_the_assistant"] = True
    elif intent == "smalltalk" and names_a_topic is not None and (asks_something(text) or reports_absence(text)) and (
            outside := words_outside_assistant_lexicon(text, classifier.assistant_words)) and names_a_topic(
            " ".join(outside)):
        # "학적부 증명사진 바꾸는 법", "아파서 기말고사 못 봤어요 어떡하죠": a request about something the
        # material covers, however chatty its wording, and so is a reason for missing it stated
        # without a question ("코로나 걸려서 시험 못 봤어요"); a remark ("시험 망했어 ㅠㅠ") stays smalltalk.
        # Only with a build to ask: without one, every unknown word would look like a topic
        intent = max(INFORMATION_INTENTS, key=lambda i: prediction.scores.get(i, 0.0))
        trace["request_about_a_topic"] = True
    return intent, trace
