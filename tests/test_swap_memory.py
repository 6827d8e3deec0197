"""A swapped-out index build leaves memory when its last request ends, not at the next full
garbage collection (issue 13: ~48 MB kept per swap, RSS 1,477 -> 1,787 MB over 10 swaps, because an
`lru_cache` over a bound method stored on the Advisor made a reference cycle)."""

from __future__ import annotations

import gc
import weakref

from serving.dialogue.engine import open_advisor


def test_an_advisor_is_freed_by_reference_counting_alone(demo_warehouse):
    gc.collect()
    gc.disable()  # only what reference counting frees counts: a cycle would keep it
    try:
        advisor = open_advisor(demo_warehouse.builds, demo_warehouse.config())
        session = advisor.new_session()
        advisor.respond(session, message="졸업하려면 전공 몇 학점 들어야 해요?")  # fills the per-message caches
        advisor.route("휴학 신청은 어떻게 해요?")
        build = weakref.ref(advisor.retriever)
        gone = weakref.ref(advisor)
        del advisor, session
        assert gone() is None, "the Advisor is kept alive by a reference cycle"
        assert build() is None
    finally:
        gc.enable()
