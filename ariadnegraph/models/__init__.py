"""Chat models and what is said to them: loading a model from a spec (:mod:`.chat`), structured
replies with repair, re-ask and fallback (:mod:`.structured`), tool calls for models without native
ones (:mod:`.tool_json`), token accounting (:mod:`.usage`), the test doubles' names (:mod:`.doubles`) and local
models served by llama.cpp (:mod:`.local`). Each name is imported from its module when first used (``lazy``)."""

from typing import TYPE_CHECKING

from ..config import DEFAULT_MODEL
from ..lazy import lazy_exports

if TYPE_CHECKING:
    from .chat import (
        LOCAL_PREFIX,
        MalformedReply,
        ModelSpecError,
        invoke_model,
        is_local,
        load_chat_model,
    )
    from .doubles import NO_MODEL, NO_MODEL_LABEL, is_no_model, model_label
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
    "NO_MODEL",
    "NO_MODEL_LABEL",
    "is_no_model",
    "read_reply",
    "usage_of",
]

_MODULE_OF = {
    "LOCAL_PREFIX": "chat",
    "MalformedReply": "chat",
    "ModelSpecError": "chat",
    "invoke_model": "chat",
    "is_local": "chat",
    "load_chat_model": "chat",
    "model_label": "doubles",
    "NO_MODEL": "doubles",
    "NO_MODEL_LABEL": "doubles",
    "is_no_model": "doubles",
    "FALLBACK": "structured",
    "OUTCOMES": "structured",
    "PARSED": "structured",
    "REASKED": "structured",
    "REPAIRED": "structured",
    "StructuredOutputError": "structured",
    "StructuredResult": "structured",
    "call_structured": "structured",
    "read_reply": "structured",
    "Usage": "usage",
    "UsageMeter": "usage",
    "estimate_tokens": "usage",
    "metered": "usage",
    "usage_of": "usage",
}
__getattr__ = lazy_exports(__name__, _MODULE_OF)
