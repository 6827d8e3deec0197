"""LLM steps over any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp server).

settings: LLMSettings from the environment (configured or not), prices.
client:   LLMClient.complete_json with structured output, retries and usage counting.
cache:    the llm_cache / llm_usage tables in the lakehouse.
batch:    one task over many inputs through the cache.
annotation_prompt, augment: the profile-annotation prompt and URAG-D augmentation.
"""
