"""Turning a free-text reply into a task family's answer (for endpoint agents).

A deep-research product answers in prose; these readers take what such answers hold:

- taxonomy: a JSON object (fenced or bare; {"taxonomy": TREE}, TREE itself, "children" read as
  "subtopics"), else Markdown headings (`#` levels are tree levels; list items under a heading
  are its papers);
- paper lists (ranking, path): a JSON list or {"papers": […]}, else the numbered or bulleted
  lines of the reply; from each line a DOI or arXiv id if it has one, else a quoted title, else
  the line without its numbering and emphasis;
- report: the reply itself (the benchmark reads its citations).

A reply that is not the family's answer raises `families.Malformed` (counted as malformed and
scored as a missing answer), never an empty answer scored in silence: a reply that is only a
JSON value with none of the family's answer keys (e.g. a judge-style `{"score": 3}`), and a
taxonomy or paper-list reply with no JSON answer, no heading and no list item.

The references stay strings (a paper number the prompt asked for stays "3"); the benchmark
resolves them offline to its papers, per task (`core.refs`).
"""
from __future__ import annotations

import json
import re
from typing import Any

from scholarbench.core.families import Malformed

_FENCE = re.compile(r"```(?:json)?\s*\n(.*?)```", re.S)
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_ITEM = re.compile(r"^\s*(?:[-*+•]|\(?\d{1,4}[.)\]:])\s+(.+?)\s*$")
_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"'<>\])]+)", re.I)
_ARXIV = re.compile(r"(?:arxiv[:./\s]*(?:abs/)?)(\d{4}\.\d{4,5}|[a-z\-]+(?:\.[A-Z]{2})?/\d{7})"
                    r"(?:v\d+)?", re.I)
_QUOTED = re.compile(r"[\"“]([^\"”]{8,})[\"”]")
_EMPHASIS = re.compile(r"(\*\*|__|\*|_|`)")
_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")


def json_candidates(text: str) -> list[Any]:
    """JSON values found in the text: fenced blocks first, then the outermost {...} / [...]."""
    out: list[Any] = []
    for block in _FENCE.findall(text):
        try:
            out.append(json.loads(block))
        except (json.JSONDecodeError, RecursionError):
            pass
    for opener, closer in (("{", "}"), ("[", "]")):
        start, end = text.find(opener), text.rfind(closer)
        if 0 <= start < end:
            try:
                out.append(json.loads(text[start:end + 1]))
            except (json.JSONDecodeError, RecursionError):
                pass
    return out


def _only_json(text: str) -> tuple[bool, Any]:
    """(True, value) when the whole reply is one JSON value (bare or in one fence)."""
    body = text.strip()
    if m := re.fullmatch(r"```(?:json)?\s*\n(.*?)```", body, re.S):
        body = m.group(1).strip()
    if not body or body[0] not in "[{":
        return False, None
    try:
        return True, json.loads(body)
    except (json.JSONDecodeError, RecursionError):
        return False, None


def _not_the_answer(family: str, value: Any, wanted: str) -> Malformed:
    got = (f"an object with keys {', '.join(map(str, list(value)[:8])) or '(none)'}"
           if isinstance(value, dict) else f"a JSON {type(value).__name__}")
    return Malformed(f"the {family} reply is {got}, with none of the answer's keys ({wanted})")


def report_from_text(text: str) -> str:
    """The report: the reply itself, or the "report" of a reply that is only a JSON object with
    one; `Malformed` for a reply that is only a JSON value without one."""
    whole, value = _only_json(text)
    if not whole:
        return text
    if isinstance(value, dict) and isinstance(value.get("report"), str):
        return value["report"]
    raise _not_the_answer("report", value, "report")


def _tree_from_json(obj: Any) -> dict[str, Any] | None:
    if isinstance(obj, dict) and isinstance(obj.get("taxonomy"), dict):
        obj = obj["taxonomy"]
    if isinstance(obj, dict) and isinstance(obj.get("hierarchy_tree"), dict):
        obj = obj["hierarchy_tree"]
    if not (isinstance(obj, dict) and isinstance(obj.get("name"), str)):
        return None
    children = obj.get("subtopics", obj.get("children", []))
    papers = obj.get("papers", [])
    kids = [t for t in (_tree_from_json(c) for c in children if isinstance(c, dict))
            if t is not None] if isinstance(children, list) else []
    return {"name": obj["name"], "subtopics": kids,
            "papers": [str(p) if not isinstance(p, dict) else str(p.get("title", p))
                       for p in papers] if isinstance(papers, list) else []}


def taxonomy_from_text(text: str, root_name: str = "root") -> dict[str, Any]:
    """{"taxonomy": TREE}; a reply with neither JSON nor headings gives a root with no
    sub-topics whose papers are the reply's list items (an honest, poor taxonomy)."""
    for candidate in json_candidates(text):
        tree = _tree_from_json(candidate)
        if tree is not None:
            return {"taxonomy": tree}
    whole, value = _only_json(text)
    if whole:
        raise _not_the_answer("taxonomy", value, "taxonomy, or name / subtopics / papers")
    root: dict[str, Any] = {"name": root_name, "subtopics": [], "papers": []}
    stack: list[tuple[int, dict[str, Any]]] = [(0, root)]
    headings = 0
    for line in text.splitlines():
        if m := _HEADING.match(line.strip()):
            level, name = len(m.group(1)), _clean(m.group(2))
            node = {"name": name, "subtopics": [], "papers": []}
            while stack and stack[-1][0] >= level:
                stack.pop()
            parent = stack[-1][1] if stack else root
            parent["subtopics"].append(node)
            stack.append((level, node))
            headings += 1
        elif m := _ITEM.match(line):
            stack[-1][1]["papers"].append(reference_of(m.group(1)))
    if not headings and not root["papers"]:
        raise Malformed("the taxonomy reply has no JSON tree, no Markdown heading and no list "
                        "item")
    if headings and len(root["subtopics"]) == 1 and not root["papers"]:
        root = root["subtopics"][0]          # a single top heading is the root
    return {"taxonomy": root}


def papers_from_text(text: str) -> list[str]:
    """References in the order the reply gives them (duplicates kept: the scorer decides)."""
    for candidate in json_candidates(text):
        if isinstance(candidate, dict):
            candidate = candidate.get("papers", candidate.get("path"))
        if isinstance(candidate, list) and candidate:
            return [str(p.get("id") or p.get("title")) if isinstance(p, dict) else str(p)
                    for p in candidate if p]
    whole, value = _only_json(text)
    if whole:
        if isinstance(value, list) or (isinstance(value, dict) and isinstance(
                value.get("papers", value.get("path")), list)):
            return []                        # an answer: an empty list of papers
        raise _not_the_answer("paper-list", value, "papers")
    refs = []
    for line in text.splitlines():
        if m := _ITEM.match(line):
            ref = reference_of(m.group(1))
            if ref:
                refs.append(ref)
    if not refs:
        raise Malformed("the reply has no JSON paper list and no numbered or bulleted line")
    return refs


def reference_of(item: str) -> str:
    """One list item → the reference it names: DOI, arXiv id, quoted title, or the cleaned line."""
    if m := _DOI.search(item):
        return m.group(1).rstrip(".,;")
    if m := _ARXIV.search(item):
        return f"arXiv:{m.group(1)}"
    if m := _QUOTED.search(item):
        return m.group(1).strip()
    return _clean(item)


def _clean(text: str) -> str:
    text = _LINK.sub(r"\1", text)
    text = _EMPHASIS.sub("", text)
    return text.strip().strip(".,;:").strip()
