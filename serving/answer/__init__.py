"""Writing the answer from the selected evidence (docs/method.md §A online step 9, §B tiers 2-3).

    extractive_answer(query, evidence, known, config, tokenize, split_sentences)  offline, verbatim
    LLMAnswerer(client).answer(query, evidence, known, config)                    grounded, cited
    fallback_answer(query, config, client)                                        no evidence: disclaimed
    LLMTranslator(client).for_retrieval(query, config)                            a question in the institution's language

Markers "[k]" in an answer's text refer to `cited[k-1]` (see ComposedAnswer).
"""

from serving.answer.extractive import extractive_answer, is_yes_no
from serving.answer.fallback import fallback_answer
from serving.answer.language import language_of, material_note
from serving.answer.llm_answer import LLMAnswerer
from serving.answer.translate import LLMTranslator
from serving.answer.units import ComposedAnswer, Unit, readable, split_units

__all__ = ["ComposedAnswer", "LLMAnswerer", "LLMTranslator", "Unit", "extractive_answer", "fallback_answer",
           "is_yes_no", "language_of", "material_note", "readable", "split_units"]
