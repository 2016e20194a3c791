"""The statement judge's reply schemas and validators (`statements`): each returns the value
kept or raises ValueError naming what is wrong (`llm.structured.ask_json` then repairs)."""
from __future__ import annotations

from typing import Any

from scholarbench.benchmarks.reportbench.llm_common import as_bool, need_object

CITED_SCHEMA = {"type": "object", "additionalProperties": False, "required": ["statements"],
                "properties": {"statements": {"type": "array", "items": {
                    "type": "object", "additionalProperties": False,
                    "required": ["statement", "citation"],
                    "properties": {"statement": {"type": "string"},
                                   "citation": {"type": "string"}}}}}}
NONCITED_SCHEMA = {"type": "object", "additionalProperties": False, "required": ["statements"],
                   "properties": {"statements": {"type": "array", "items": {
                       "type": "object", "additionalProperties": False,
                       "required": ["statement"],
                       "properties": {"statement": {"type": "string"}}}}}}
MATCH_SCHEMA = {"type": "object", "additionalProperties": False, "required": ["reason", "match"],
                "properties": {"reason": {"type": "string"}, "match": {"type": "boolean"}}}
DECISION_SCHEMA = {"type": "object", "additionalProperties": False,
                   "required": ["reason", "decision"],
                   "properties": {"reason": {"type": "string"}, "decision": {"type": "boolean"}}}


def _items(value: Any) -> list:
    if isinstance(value, dict):
        value = need_object(value, ("statements",))["statements"]
    if not isinstance(value, list):
        raise ValueError(f"'statements' must be a list, got {type(value).__name__}")
    return value


def parse_cited(value: Any) -> tuple[list[tuple[str, str]], int]:
    """(statement, citation) pairs and the number of items dropped as empty."""
    pairs, dropped = [], 0
    for i, item in enumerate(_items(value)):
        if not isinstance(item, dict):
            raise ValueError(f"statements[{i}] must be an object")
        statement = item.get("statement")
        citation = item.get("citation", item.get("url"))
        if not isinstance(statement, str) or not isinstance(citation, (str, type(None))):
            raise ValueError(f"statements[{i}]: 'statement' and 'citation' must be strings")
        if not statement.strip() or not (citation or "").strip():
            dropped += 1
            continue
        pairs.append((statement.strip(), citation.strip()))  # type: ignore[union-attr]
    return pairs, dropped


def parse_noncited(value: Any) -> tuple[list[str], int]:
    out, dropped = [], 0
    for i, item in enumerate(_items(value)):
        text = item.get("statement") if isinstance(item, dict) else item
        if not isinstance(text, str):
            raise ValueError(f"statements[{i}] must be an object with a 'statement' string")
        if text.strip():
            out.append(text.strip())
        else:
            dropped += 1
    return out, dropped


def parse_match(value: Any) -> tuple[bool, str]:
    obj = need_object(value, ("match",))
    reason = obj.get("reason", "")
    return as_bool(obj["match"], "match"), reason if isinstance(reason, str) else str(reason)


def parse_decision(value: Any) -> tuple[bool, str]:
    obj = need_object(value, ("decision",))
    reason = obj.get("reason", "")
    return as_bool(obj["decision"], "decision"), reason if isinstance(reason, str) else str(reason)
