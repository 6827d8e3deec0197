"""The environment variables the project reads, with their defaults, in one place: code asks here
instead of reading os.environ with its own copy of a name or a default.

    ADVISOR_CONFIG      the institution config file (unset: the bundled demo college)
    ADVISOR_WAREHOUSE   the warehouse folder (unset: ./warehouse)
    OPENAI_API_KEY, OPENAI_BASE_URL, ADVISOR_LLM_*      the LLM endpoint (advisor/llm/settings.py parses them)
    ADVISOR_EMBEDDING_MODEL, ADVISOR_EMBEDDING_DIMENSIONS   the `openai` embedder (advisor/index/embed_openai.py)
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

CONFIG = "ADVISOR_CONFIG"
WAREHOUSE = "ADVISOR_WAREHOUSE"
DEFAULT_WAREHOUSE = "warehouse"  # relative to the working directory

# environment variable -> advisor.llm.settings.LLMSettings field
LLM_VARS = {
    "OPENAI_API_KEY": "api_key",
    "OPENAI_BASE_URL": "base_url",
    "ADVISOR_LLM_MODEL": "model",
    "ADVISOR_LLM_CONCURRENCY": "concurrency",
    "ADVISOR_LLM_TIMEOUT": "timeout",
    "ADVISOR_LLM_MAX_RETRIES": "max_retries",
    "ADVISOR_LLM_BACKOFF": "backoff",
    "ADVISOR_LLM_INVALID_RETRIES": "invalid_output_retries",
}
EMBEDDING_MODEL = "ADVISOR_EMBEDDING_MODEL"
EMBEDDING_DIMENSIONS = "ADVISOR_EMBEDDING_DIMENSIONS"  # optional: text-embedding-3-* can shorten vectors


def environ(given: Mapping[str, str] | None = None) -> Mapping[str, str]:
    """`given` (tests pass their own mapping), else the process environment."""
    return os.environ if given is None else given


def config_path(given: str | os.PathLike | None = None) -> str | os.PathLike | None:
    """The config file to load: `given`, else $ADVISOR_CONFIG; None means the bundled demo college."""
    return given or os.environ.get(CONFIG) or None


def warehouse_path(given: str | os.PathLike | None = None) -> Path:
    """The warehouse folder: `given`, else $ADVISOR_WAREHOUSE, else ./warehouse (not resolved)."""
    return Path(given or os.environ.get(WAREHOUSE) or DEFAULT_WAREHOUSE)
