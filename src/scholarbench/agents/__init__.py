"""Agents turn a task into an output. Built-ins: `cluster`, `bm25-title`, `replay`."""
from scholarbench.agents.base import AgentContext, TaxoAgent, make_agent

__all__ = ["AgentContext", "TaxoAgent", "make_agent"]
