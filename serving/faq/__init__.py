"""The URAG FAQ tier (method.md §B, steps 1, 5, 6): the FAQ store searched by question similarity,
rule paraphrases for calibration, and the sweep that chooses t_FAQ for the embedder in use.

    store = FAQStore.load(build.directory / FAQ_DIR, build.schema)
    matches = store.search(build.embedder.embed([q], tokenize([q]))[0], profile)
    calibration = calibrate(build, store, tokenize, Retriever(build, tokenize))
"""

from serving.faq.calibrate import (Calibration, CalibrationQuery, SweepPoint, calibrate, choose, student_for,
                                   sweep, threshold_grid)
from serving.faq.paraphrase import paraphrases, question_forms
from serving.faq.store import FAQ_DIR, FAQEntry, FAQMatch, FAQStore, faq_entries_from_build, write_faq_store

__all__ = [
    "FAQ_DIR", "Calibration", "CalibrationQuery", "FAQEntry", "FAQMatch", "FAQStore", "SweepPoint", "calibrate",
    "choose", "faq_entries_from_build", "paraphrases", "question_forms", "student_for", "sweep",
    "threshold_grid", "write_faq_store",
]
