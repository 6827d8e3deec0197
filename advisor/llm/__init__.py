"""LLM steps over any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp server).

settings: LLMSettings from the environment (configured or not), prices.
client:   LLMClient.complete_json with structured output, retries and usage counting.
cache:    the llm_cache / llm_usage tables in the lakehouse.
batch:    one task over many inputs through the cache.
jsoncheck: the strict JSON schemas we ask for, and checking replies against them.
few_shot: few-shot messages, and the one-field JSON classifiers built on them.
profile_init, time_sensitivity: the dialogue's two small LLM tasks.

Tasks that belong to a stage live with it and build on this package: the annotation prompt
(advisor/annotation/llm_prompt.py), URAG-D augmentation (advisor/chunking/llm_augment.py) and
URAG-F enrichment (advisor/faq/enrichment.py).
"""
