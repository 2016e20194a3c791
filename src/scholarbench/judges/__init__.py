"""Checking the LLM judges themselves (docs/judges.md)."""
