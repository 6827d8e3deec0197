"""Replies that need no retrieval: greeting, ability and smalltalk (docs/method.md §A online step 2), and the
wording of the notes added to answers, in Korean and English: the caller picks the student's
(`serving.answer.language.reply_language`)."""

from __future__ import annotations

_KO = {
    "greeting": "안녕하세요! {institution} 학사 상담 도우미입니다. 졸업요건, 교육과정, 장학, 휴학·복학 같은 학사 질문을 편하게 물어보세요.",
    "ability": ("저는 {institution}의 공식 자료(학과 홈페이지, 학사 규정, 공지사항, FAQ)를 찾아 근거와 함께 답합니다. "
                "포털이나 개인 성적 같은 학생 기록은 볼 수 없습니다. "
                "예: \"졸업하려면 전공 몇 학점이 필요한가요?\", \"복학생 장학금이 있나요?\" "
                "답이 학과·학번 등에 따라 다르면 꼭 필요한 것만 버튼으로 여쭤봅니다. 입력하신 정보는 이 대화에서만 쓰고 저장하지 않습니다."),
    "smalltalk": "그렇군요. 학사 관련해서 궁금한 점이 있으면 언제든 물어보세요!",
    "leaving": "네, 좋은 하루 보내세요! 궁금한 점이 생기면 언제든 다시 물어보세요.",  # smalltalk that takes leave
    "clarify": ("어떤 것에 대해 궁금하신지 조금만 더 구체적으로 말씀해 주세요. "
                "예: \"휴학 신청 기간이 언제인가요?\", \"졸업하려면 전공 몇 학점이 필요한가요?\""),
    "documents_note": "등록된 자료를 바탕으로 찾은 내용입니다. 중요한 사항은 출처를 확인하세요.",
    "declined_note": "참고: {attributes} 정보 없이 찾은 답이라, 해당 조건에 따라 내용이 다를 수 있습니다.",
    "unknown_option": "잘 모르겠어요",
    "everyone_label": "공통",  # a part of a labelled answer whose source applies to everyone
}
_EN = {
    "greeting": "Hello! I'm the academic-advising assistant of {institution}. Ask me about graduation requirements, curricula, scholarships, leave and return.",
    "ability": ("I answer from {institution}'s official material (department pages, regulations, notices, FAQ) and cite my sources. "
                "I cannot see student records such as the portal or your grades. "
                "When the answer depends on your department, cohort or status, I ask only what is needed, with buttons. "
                "What you tell me is used in this conversation only and never stored."),
    "smalltalk": "I see. If you have a question about your studies, just ask!",
    "leaving": "Take care! Come back any time you have a question.",
    "clarify": ("Could you say a little more about what you would like to know? For example: \"When do I apply "
                "for a leave of absence?\" or \"How many major credits do I need to graduate?\""),
    "documents_note": "Found in the registered documents; please check the sources for important matters.",
    "declined_note": "Note: answered without knowing your {attributes}; the answer may differ depending on it.",
    "unknown_option": "I don't know",
    "everyone_label": "Everyone",
}


def text(key: str, language: str, **values) -> str:
    table = _EN if language == "en" else _KO
    return table[key].format(**values)
