"""The request prefix inside a turn: what keeps a server's prompt cache useful."""

from __future__ import annotations

from dataclasses import replace

from slop.records import Layer, Prompt


def keep_system_layers(prompt: Prompt, system: tuple[Layer, ...] | None) -> tuple[Prompt, tuple[Layer, ...]]:
    """Later calls of a turn reuse the system layers of its first call.

    A STATE, scratchpad or files-read change made during the turn would otherwise rewrite
    the system message, the start of the request, and a server's prompt cache (llama.cpp,
    vLLM, OpenAI, Gemini) would process the whole request again at every step: 2,493 of
    3,697 tokens, 445 s on a 2-core CPU with llama.cpp. The change is already in the
    turn's history (the reply or tool result that made it); the next turn's system
    message carries it."""
    if system is None:
        return prompt, prompt.layers
    return replace(prompt, layers=system), system
