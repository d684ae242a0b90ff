"""The offline scripted chat model: plays every role of the agent from the prompts' sections alone."""

from .model import ScriptedChatModel

__all__ = ["ScriptedChatModel"]
