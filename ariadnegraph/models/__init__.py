"""Chat models and what is said to them: loading a model from a spec (:mod:`.chat`), structured
replies with repair, re-ask and fallback (:mod:`.structured`), tool calls for models without native
ones (:mod:`.tool_json`), token accounting (:mod:`.usage`) and local models served by llama.cpp
(:mod:`.local`)."""

from ..config import DEFAULT_MODEL
from .chat import (
    LOCAL_PREFIX,
    MalformedReply,
    ModelSpecError,
    invoke_model,
    is_local,
    load_chat_model,
    model_label,
)
from .structured import (
    FALLBACK,
    OUTCOMES,
    PARSED,
    REASKED,
    REPAIRED,
    StructuredOutputError,
    StructuredResult,
    call_structured,
    read_reply,
)
from .usage import Usage, UsageMeter, estimate_tokens, metered, usage_of

__all__ = [
    "FALLBACK",
    "DEFAULT_MODEL",
    "LOCAL_PREFIX",
    "OUTCOMES",
    "PARSED",
    "REASKED",
    "REPAIRED",
    "MalformedReply",
    "ModelSpecError",
    "StructuredOutputError",
    "StructuredResult",
    "Usage",
    "UsageMeter",
    "call_structured",
    "estimate_tokens",
    "invoke_model",
    "is_local",
    "load_chat_model",
    "metered",
    "model_label",
    "read_reply",
    "usage_of",
]
