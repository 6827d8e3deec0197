"""Intent routing (docs/method.md §A online step 2): which messages get a canned reply.

The outward intents (the HTTP API's `intent`, the benchmark file's): greeting, ability, faq,
smalltalk, retrieval. The router's own labels, its ROUTES: the template ones (greeting, ability,
smalltalk, and leaving: taking leave, answered with a goodbye, outwardly smalltalk) and
information, which goes on to answering, where the tiers' evidence decides between the FAQ and the
documents (faq and retrieval are one route: their surface forms overlap).

seeds:       the hand-written examples of every route, read from the language data and varied.
dataset:     the labelled dataset: seeds + the FAQ's questions + questions written from the
             documents' titles, headings and keywords; read from / written to the lakehouse.
classifier:  the offline classifier (encoder vectors and character n-grams, two linear models).
route:       one message to one route, with how sure the classifier is.
llm_router:  the same decision asked of an LLM; None where the call failed (never invented).
"""

INTENTS = ("greeting", "ability", "faq", "smalltalk", "retrieval")
INFORMATION_INTENTS = ("faq", "retrieval")  # both go on to answering; their surface forms overlap
TEMPLATE_ROUTES = ("greeting", "ability", "smalltalk", "leaving")
ROUTES = (*TEMPLATE_ROUTES, "information")
DATASET_LABELS = (*INTENTS, "leaving")  # the intent_examples labels


def route_of(label: str) -> str:
    """A dataset label's route: faq and retrieval are information."""
    if label not in DATASET_LABELS:
        raise ValueError(f"unknown intent {label!r}; expected one of {', '.join(DATASET_LABELS)}")
    return "information" if label in INFORMATION_INTENTS else label


def intent_of(route: str) -> str:
    """The outward intent of a template route (leaving is smalltalk)."""
    return "smalltalk" if route == "leaving" else route
