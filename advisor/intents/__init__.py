"""Intent routing (docs/method.md §A online step 2): every student message is one of five intents.

seeds:      hand-written greeting / ability / smalltalk stems, varied by rule into hundreds each.
dataset:    the labelled dataset: seeds + FAQ questions (and rewrites) + questions written from
            the documents' titles, headings and keywords; read from / written to the lakehouse.
classifier: the offline classifier (TF-IDF + a linear model, scikit-learn) and its evaluation.
llm_router: the same decision asked of an LLM; None where the call failed (never invented).
"""

INTENTS = ("greeting", "ability", "faq", "smalltalk", "retrieval")
INFORMATION_INTENTS = ("faq", "retrieval")  # both go on to answering; their surface forms overlap


def coarse(intent: str) -> str:
    """The 4-way label: faq and retrieval merge into "information" (they are genuinely ambiguous
    from the text alone, and both lead to answering: FAQ tier first, then documents)."""
    if intent not in INTENTS:
        raise ValueError(f"unknown intent {intent!r}; expected one of {', '.join(INTENTS)}")
    return "information" if intent in INFORMATION_INTENTS else intent
