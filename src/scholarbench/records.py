"""Typed records shared by every layer: taxonomies, TaxoBench tasks and predictions.

A taxonomy is a tree of named categories; paper titles hang at category nodes. A node may carry
both sub-categories and papers (model outputs do this), a title may sit under several categories,
and labels may repeat across branches (expert trees do both), so nodes are identified by position,
never by label.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator


@dataclass
class TaxoNode:
    name: str
    children: list["TaxoNode"] = field(default_factory=list)
    papers: list[str] = field(default_factory=list)

    def walk(self) -> Iterator["TaxoNode"]:
        """Pre-order traversal without recursion (trees can be 10,000 nodes deep)."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def walk_with_path(self) -> Iterator[tuple["TaxoNode", tuple[int, ...], tuple[str, ...]]]:
        """Pre-order (node, position path, label chain from the root to this node inclusive)."""
        stack: list[tuple[TaxoNode, tuple[int, ...], tuple[str, ...]]] = [(self, (), (self.name,))]
        while stack:
            node, pos, labels = stack.pop()
            yield node, pos, labels
            for i in range(len(node.children) - 1, -1, -1):
                child = node.children[i]
                stack.append((child, pos + (i,), labels + (child.name,)))

    def size(self) -> int:
        """Number of category nodes (papers excluded), root included."""
        return sum(1 for _ in self.walk())

    def all_papers(self) -> list[str]:
        return [p for node in self.walk() for p in node.papers]

    def to_upstream(self) -> dict:
        """TaxoBench's nested-dict form: name / subtopics / papers."""
        out: dict = {"name": self.name}
        if self.children:
            out["subtopics"] = [c.to_upstream() for c in self.children]
        if self.papers or not self.children:
            out["papers"] = list(self.papers)
        return out


@dataclass(frozen=True)
class Paper:
    title: str
    abstract: str = ""
    paper_id: str | None = None
    year: int | None = None
    source: str | None = None


@dataclass
class TaxoTask:
    """One TaxoBench instance: a survey topic, its expert papers and the expert taxonomy."""
    id: str
    topic: str
    survey: str
    papers: list[Paper]
    gold: TaxoNode


@dataclass
class TaxoPrediction:
    """An agent's answer for one instance. `taxonomy` is None when the agent gave none.

    `retrieved` is the agent's retrieved paper list (Deep Research mode); when None the papers in
    the taxonomy are the retrieved set. `error` says why an output was malformed. `info` holds the
    agent's per-sample counts (e.g. llm-taxonomy's dropped or invented papers): the runner writes
    it to generate.jsonl beside the prediction when it is not empty; it is not part of the
    upstream form.
    """
    id: str
    taxonomy: TaxoNode | None
    retrieved: list[str] | None = None
    error: str | None = None
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def retrieved_titles(self) -> list[str]:
        if self.retrieved is not None:
            return list(self.retrieved)
        return self.taxonomy.all_papers() if self.taxonomy is not None else []

    def to_upstream(self) -> dict:
        out: dict = {"id": self.id,
                     "hierarchy_tree": self.taxonomy.to_upstream() if self.taxonomy else None}
        if self.retrieved is not None:
            out["retrieved_papers"] = list(self.retrieved)
        return out
