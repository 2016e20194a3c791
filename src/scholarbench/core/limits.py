"""Size limits on agent outputs: an answer over any of them is ``oversized``, never scored.

Scoring cost grows with the answer (label embeddings and tree distances, reference
resolution, the judges), so one runaway answer — a node with 10,000 children, a 50 MB label —
could otherwise take minutes and gigabytes. The defaults sit far above the papers' data and
their worst case is measured (docs/limits.md); `--max-output KEY=N` changes one.

An ``oversized`` answer is not kept; its sample is scored as a missing answer and counted
under its own status. The check walks the raw JSON iteratively (no recursion, no model
built) and stops at the first limit broken.
"""
from __future__ import annotations

from typing import Any, Iterable

from pydantic import BaseModel, ConfigDict, Field

from scholarbench.errors import ScholarbenchError


class OutputLimits(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    nodes: int = Field(1000, ge=1, description="taxonomy nodes, root included")
    depth: int = Field(32, ge=1, description="taxonomy depth (a lone root is depth 1)")
    label_chars: int = Field(500, ge=1, description="characters in one node name or paper "
                             "reference")
    papers: int = Field(10_000, ge=1, description="entries in one paper list: ranked papers, "
                        "a path, cited or retrieved papers, or all papers placed in a tree")
    report_bytes: int = Field(1_000_000, ge=1, description="UTF-8 bytes of a report")

    @classmethod
    def of(cls, options: dict[str, Any]) -> "OutputLimits":
        """The limits in force for a benchmark's options (`--max-output`, recorded there)."""
        return cls.from_pairs(options.get("max_output"))

    @classmethod
    def from_pairs(cls, pairs: Iterable[str] | None) -> "OutputLimits":
        """From the `KEY=N` strings of `--max-output` (as recorded in a run's options)."""
        values = {}
        for pair in pairs or ():
            key, sep, value = pair.partition("=")
            if not sep or not value.strip().isdigit():
                raise ScholarbenchError(f"--max-output takes KEY=N, got {pair!r}; keys: "
                                        + ", ".join(cls.model_fields))
            values[key.strip().replace("-", "_")] = int(value)
        unknown = sorted(set(values) - set(cls.model_fields))
        if unknown:
            raise ScholarbenchError(f"--max-output: unknown limit(s) {', '.join(unknown)}; "
                                    f"keys: {', '.join(cls.model_fields)}")
        try:
            return cls(**values)
        except ValueError as exc:
            raise ScholarbenchError(f"--max-output: {exc.errors()[0]['msg']}") from None

    # -- the check ---------------------------------------------------------------------------
    def violation(self, family: str, answer: Any) -> str | None:
        """Why `answer` (raw JSON, a pydantic model, or an object with `to_upstream()`) is
        over a limit, or None. Shapes that do not fit are left to the schema check."""
        obj = _plain(answer)
        if not isinstance(obj, dict):
            return None
        if family == "report":
            return self._report(obj)
        if family == "taxonomy":
            tree = obj.get("taxonomy", obj.get("hierarchy_tree"))
            return (self._list(obj.get("retrieved", obj.get("retrieved_papers")), "retrieved")
                    or self._tree(tree))
        return self._list(obj.get("papers"), "papers")

    def _report(self, obj: dict[str, Any]) -> str | None:
        report = obj.get("report")
        if isinstance(report, str):
            # at most 4 bytes a character: skip the encode when the text is surely short
            size = len(report) if len(report) * 4 <= self.report_bytes else len(
                report.encode("utf-8", "surrogatepass"))
            if size > self.report_bytes:
                return f"report is {size:,} bytes (limit report_bytes={self.report_bytes:,})"
        return self._list(obj.get("cited"), "cited")

    def _list(self, items: Any, what: str) -> str | None:
        if not isinstance(items, list):
            return None
        if len(items) > self.papers:
            return f"{what} lists {len(items):,} papers (limit papers={self.papers:,})"
        for i, item in enumerate(items):
            ref = item.get("id") if isinstance(item, dict) else item
            if isinstance(ref, str) and len(ref) > self.label_chars:
                return (f"{what}[{i}] is {len(ref):,} characters "
                        f"(limit label_chars={self.label_chars:,})")
        return None

    def _tree(self, tree: Any) -> str | None:
        if not isinstance(tree, dict):
            return None
        n_nodes = n_papers = 0
        stack: list[tuple[Any, int, str]] = [(tree, 1, "taxonomy")]
        while stack:
            node, depth, where = stack.pop()
            if not isinstance(node, dict):
                continue
            n_nodes += 1
            if n_nodes > self.nodes:
                return f"the taxonomy has more than {self.nodes:,} nodes (limit nodes)"
            if depth > self.depth:
                return f"{where} is at depth {depth} (limit depth={self.depth})"
            name = node.get("name")
            if isinstance(name, str) and len(name) > self.label_chars:
                return (f"{where}.name is {len(name):,} characters "
                        f"(limit label_chars={self.label_chars:,})")
            papers = node.get("papers")
            if isinstance(papers, list):
                n_papers += len(papers)
                if n_papers > self.papers:
                    return f"the taxonomy places over {self.papers:,} papers (limit papers)"
                if problem := self._list(papers, f"{where}.papers"):
                    return problem
            children = node.get("subtopics", node.get("children"))
            if isinstance(children, list):
                if len(children) > self.nodes:   # refuse before stacking a huge list
                    return f"the taxonomy has more than {self.nodes:,} nodes (limit nodes)"
                key = "subtopics" if "subtopics" in node else "children"
                stack.extend((c, depth + 1, f"{where}.{key}[{i}]")
                             for i, c in enumerate(children))
        return None


def _plain(answer: Any) -> Any:
    if isinstance(answer, BaseModel):
        return answer.model_dump()
    to_upstream = getattr(answer, "to_upstream", None)
    return to_upstream() if callable(to_upstream) else answer


class Oversized(Exception):
    """An answer over the output limits (its message names the limit)."""


def scored_as_missing(records: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Answer records as a benchmark's scorer sees them: an `oversized` answer was not kept,
    so it is scored exactly as a missing one (the caller then restores the row's status)."""
    return {k: ({**r, "status": "malformed", "missing": True} if r.get("status") == "oversized"
                else r) for k, r in records.items()}


__all__ = ["OutputLimits", "Oversized", "scored_as_missing"]
