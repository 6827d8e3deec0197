"""LLM settings from the environment, and what the configured model costs.

Any OpenAI-compatible endpoint works (OpenAI, vLLM, Ollama, llama.cpp server): a base URL alone
counts as configured because local servers usually need no key. With neither a key nor a base URL
the project runs its rule-based backends; `describe()` says so in plain words.
"""

from __future__ import annotations

from collections.abc import Mapping

from advisor.settings import DEFAULT_BASE_URL, LLMEnvironment, read

# USD per 1M tokens (input, output), standard tier, as published by OpenAI when this was written.
# Update it when prices change. A model not listed gets cost None: a wrong guess would be worse
# than an honest "unknown" in the usage table.
PRICES_PER_MILLION: dict[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
}


class LLMNotConfigured(RuntimeError):
    """Raised when an LLM step is asked for but neither a key nor a base URL is set."""


def price_of(model: str) -> tuple[float, float] | None:
    """The price row for `model`, also matching dated snapshots (gpt-4o-mini-2024-07-18)."""
    if model in PRICES_PER_MILLION:
        return PRICES_PER_MILLION[model]
    for name, price in PRICES_PER_MILLION.items():
        if model.startswith(name + "-20"):  # "-20": a date, so gpt-4o never matches gpt-4o-mini-…
            return price
    return None


class LLMSettings(LLMEnvironment):
    """The LLM endpoint: the environment's variables (advisor/settings.py: their names, defaults and
    limits), plus what is not read from it."""

    # 0 makes annotations as repeatable as the model allows; None omits the parameter, for
    # reasoning models that reject it. Not read from the environment.
    temperature: float | None = 0.0

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> "LLMSettings":
        """The LLM variables (`environ`, else the process's); empty values count as unset. Errors name the variable."""
        return read(cls, environ)

    @property
    def configured(self) -> bool:
        return self.api_key is not None or self.base_url is not None

    @property
    def endpoint(self) -> str:
        return self.base_url or DEFAULT_BASE_URL

    def describe(self) -> str:
        if not self.configured:
            return "no LLM configured (set OPENAI_API_KEY, or OPENAI_BASE_URL for a local server)"
        return f"LLM {self.model} at {self.endpoint}"

    def require_configured(self) -> None:
        if not self.configured:
            raise LLMNotConfigured(self.describe() + "; the rule-based backends are used offline")

    def cost_usd(self, prompt_tokens: int, completion_tokens: int) -> float | None:
        price = price_of(self.model)
        if price is None:
            return None
        return (prompt_tokens * price[0] + completion_tokens * price[1]) / 1_000_000
