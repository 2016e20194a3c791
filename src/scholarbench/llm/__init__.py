"""Chat models for agents and judges: any OpenAI-compatible endpoint, or the packaged local model."""
from scholarbench.llm.client import ChatClient, ChatReply, LLMCallError
from scholarbench.llm.config import ModelConfig, resolve_role
from scholarbench.llm.roles import LLMRoles, bind_roles, open_client
from scholarbench.llm.structured import JsonOutcome, ask_json

__all__ = ["ChatClient", "ChatReply", "LLMCallError", "ModelConfig", "resolve_role", "LLMRoles",
           "bind_roles", "open_client", "JsonOutcome", "ask_json"]
