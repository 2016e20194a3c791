"""The literature tools of one task: search, lookups and the citation graph, under its rules.

`ToolSession.call(name, arguments)` is the one entry point — for the MCP server, the OpenAI
function-calling loop and the built-in agents alike — so every agent searches the same way and
every call is recorded the same way (`calls`: tool, arguments, result ids, latency, error).

Every answer is computed on the part of the corpus the task may see (`rules.Visibility`):
searches rank only visible papers (the corpus's own filters, applied before the top k), a
lookup that names a hidden paper fails exactly as one naming no paper, and the graph tools
count only visible papers — co-citation counts citers the task may see, so a hidden survey that
cites a field's papers adds nothing to their counts.
"""
from __future__ import annotations

import threading
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

from pydantic import ValidationError

from scholarbench.corpus.resolve import candidates
from scholarbench.errors import ScholarbenchError
from scholarbench.tools.rules import AccessRules, Visibility
from scholarbench.tools.schemas import (TOOLS, ContextArgs, GraphArgs, PaperArgs, RankedArgs,
                                        SearchArgs)
from scholarbench.text.clip import clip

SEARCH_METHODS = {"bm25": "search_bm25", "dense": "search_dense", "hybrid": "search_hybrid"}


RAW_CHARS = 2000       # of a call's unparsable arguments text kept in the trajectory


class ToolError(ScholarbenchError):
    """A tool call the tool cannot answer (bad arguments, no such paper): its text goes back
    to the agent as the tool's error; the session goes on."""


@dataclass
class ToolCall:
    step: int
    tool: str
    arguments: dict[str, Any]
    result_ids: list[str] = field(default_factory=list)
    latency_ms: float = 0.0
    error: str | None = None
    via: str | None = None          # "http" / "stdio" for MCP calls; None in process

    def as_json(self) -> dict[str, Any]:
        out = asdict(self)
        for key in ("error", "via"):
            if out[key] is None:
                del out[key]
        return out


class ToolSession:
    """The tools bound to one sample's rules over an open `Corpus`."""

    def __init__(self, corpus: Any, rules: AccessRules | None = None, *,
                 embedder: Any = None, embedder_factory: Callable[[], Any] | None = None,
                 sample_id: str | None = None,
                 on_call: Callable[[ToolCall], None] | None = None) -> None:
        self.corpus = corpus
        self.rules = rules or AccessRules()
        self.visible = Visibility(corpus, self.rules)
        self.sample_id = sample_id
        self.calls: list[ToolCall] = []
        self._embedder = embedder
        self._embedder_factory = embedder_factory
        self._lock = threading.Lock()
        self._on_call = on_call          # e.g. `tools serve --log`: one JSON line per call

    # -- the one entry point ---------------------------------------------------------------
    def call(self, name: str, arguments: dict[str, Any] | None = None, *,
             via: str | None = None, raw: str | None = None) -> dict[str, Any]:
        """Validate, run and record one call; `ToolError` (recorded too) when it fails. `raw`:
        the arguments text of a call whose arguments did not parse as JSON (recorded as sent,
        up to `RAW_CHARS`, with the error)."""
        start = time.perf_counter()
        args = dict(arguments or {}) if isinstance(arguments, dict) else arguments
        record = ToolCall(0, str(name), {"raw": str(raw)[:RAW_CHARS]} if raw is not None
                          else args if isinstance(args, dict) else {"_": repr(args)}, via=via)
        try:
            if raw is not None:
                raise ToolError(f"the arguments of {name} are not valid JSON")
            spec = TOOLS.get(name)
            if spec is None:
                raise ToolError(f"unknown tool {name!r}; tools: {', '.join(TOOLS)}")
            if not isinstance(args, dict):
                raise ToolError(f"{name}: arguments must be a JSON object")
            try:
                parsed = spec.args.model_validate(args)
            except ValidationError as exc:
                raise ToolError(f"{name}: " + "; ".join(
                    f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}"
                    for e in exc.errors())) from None
            result, ids = getattr(self, f"_{name}")(parsed)
            record.result_ids = ids
            return result
        except ToolError as exc:
            record.error = str(exc)
            raise
        except Exception as exc:      # a bug or a corpus fault: the agent's session goes on
            record.error = f"internal error: {type(exc).__name__}"
            raise ToolError(f"{name} failed ({type(exc).__name__}); try other arguments") from exc
        finally:
            record.latency_ms = round((time.perf_counter() - start) * 1000, 3)
            with self._lock:
                record.step = len(self.calls) + 1
                self.calls.append(record)
                if self._on_call is not None:
                    self._on_call(record)

    def trajectory(self) -> list[dict[str, Any]]:
        with self._lock:
            return [c.as_json() for c in self.calls]

    # -- helpers ---------------------------------------------------------------------------
    def _resolve(self, ref: str) -> str:
        found = [pid for pid in candidates(self.corpus, ref) if self.visible(pid)]
        if len(found) == 1:
            return found[0]
        if not found:
            raise ToolError(f"no paper matches {ref!r} in this task's literature")
        raise ToolError(f"{ref!r} names {len(found)} papers ({', '.join(found[:5])}); "
                        "use one of their ids")

    def _hits(self, ids: list[str], abstract_chars: int = 0,
              extra: dict[str, dict[str, Any]] | None = None) -> list[dict[str, Any]]:
        rows = self.corpus.get_rows(ids)
        out = []
        for row in rows:
            hit = {"id": row["paper_id"], "title": row["title"], "year": row["year"],
                   "category": row.get("category")}
            if abstract_chars and row.get("abstract"):
                hit["abstract"] = clip(row["abstract"], abstract_chars)
            hit.update((extra or {}).get(row["paper_id"], {}))
            out.append(hit)
        return out

    def embedder(self) -> Any:
        if self._embedder is None and self._embedder_factory is not None:
            self._embedder = self._embedder_factory()
        if self._embedder is None:
            raise ToolError("dense and hybrid search are not available in this session; "
                            "use mode \"bm25\"")
        return self._embedder

    @staticmethod
    def _page(items: list[Any], offset: int, k: int) -> tuple[list[Any], int | None]:
        page = items[offset:offset + k]
        return page, (offset + k if offset + k < len(items) else None)

    # -- the tools -------------------------------------------------------------------------
    def _search(self, a: SearchArgs) -> tuple[dict[str, Any], list[str]]:
        extra: list[Any] = [self.embedder()] if a.mode != "bm25" else []
        if extra and not self.corpus.has_dense_index(a.fields, extra[0]):
            raise ToolError(f"{a.mode} search over {a.fields} needs the corpus's dense index, "
                            "not built yet (`scholarbench corpus dense --corpus "
                            f"{self.corpus.directory}` builds it); use mode \"bm25\"")
        method = getattr(self.corpus, SEARCH_METHODS[a.mode])
        hits = method(a.query, a.k + a.offset + 1, *extra, fields=a.fields,
                      rows=self.visible.rows(a.exclude_surveys))
        ranked = [(p.paper_id, s) for p, s in hits if self.visible(p.paper_id)]
        page, next_offset = self._page(ranked, a.offset, a.k)
        ids = [pid for pid, _ in page]
        scores = {pid: {"score": round(float(s), 6)} for pid, s in page}
        return ({"query": a.query, "results": self._hits(ids, a.abstract_chars, scores),
                 "next_offset": next_offset}, ids)

    def _get_paper(self, a: PaperArgs) -> tuple[dict[str, Any], list[str]]:
        pid = self._resolve(a.paper)
        row = self.corpus.get_rows([pid])[0]
        out: dict[str, Any] = {
            "id": pid, "title": row["title"], "year": row["year"],
            "published": row["published"].isoformat() if row.get("published") else None,
            "category": row.get("category"),
            "ids": [i for i in (row.get("ids") or []) if not i.startswith("title:")],
            "abstract": clip(row.get("abstract"), a.abstract_chars) if a.abstract_chars else "",
            "n_references": len(self.visible.keep(self.corpus.references(pid))),
            "n_citations": len(self.visible.keep(self.corpus.citations(pid)))}
        if a.paragraphs:
            out["paragraphs"] = [
                {"section": p.section, "text": clip(p.text, a.paragraph_chars),
                 "cites": self.visible.keep(list(p.cited or []))}
                for p in self.corpus.paragraphs(pid)[:a.paragraphs]]
        return out, [pid]

    def _neighbours(self, a: GraphArgs, ids: list[str], pid: str
                    ) -> tuple[dict[str, Any], list[str]]:
        visible = self.visible.keep(ids)
        page, next_offset = self._page(visible, a.offset, a.k)
        return ({"paper": pid, "total": len(visible), "results": self._hits(page),
                 "next_offset": next_offset}, page)

    def _references(self, a: GraphArgs) -> tuple[dict[str, Any], list[str]]:
        pid = self._resolve(a.paper)
        return self._neighbours(a, self.corpus.references(pid), pid)

    def _citations(self, a: GraphArgs) -> tuple[dict[str, Any], list[str]]:
        pid = self._resolve(a.paper)
        return self._neighbours(a, self.corpus.citations(pid), pid)

    def _ranked(self, a: RankedArgs, pid: str, counts: list[tuple[str, int]], what: str
                ) -> tuple[dict[str, Any], list[str]]:
        kept = sorted(((q, n) for q, n in counts if q != pid and self.visible(q)),
                      key=lambda qn: (-qn[1], qn[0]))[:a.k]
        ids = [q for q, _ in kept]
        return ({"paper": pid, "results": self._hits(ids, 0, {q: {what: n} for q, n in kept})},
                ids)

    def _co_cited(self, a: RankedArgs) -> tuple[dict[str, Any], list[str]]:
        pid = self._resolve(a.paper)
        citers = self.visible.keep(self.corpus.citations(pid))
        return self._ranked(a, pid, self.corpus.neighbour_counts(citers, "cited"),
                            "co_citations")

    def _coupled(self, a: RankedArgs) -> tuple[dict[str, Any], list[str]]:
        pid = self._resolve(a.paper)
        refs = self.visible.keep(self.corpus.references(pid))
        return self._ranked(a, pid, self.corpus.neighbour_counts(refs, "citing"),
                            "shared_references")

    def _citation_contexts(self, a: ContextArgs) -> tuple[dict[str, Any], list[str]]:
        pid = self._resolve(a.paper)
        paras = [p for p in self.corpus.citing_paragraphs(pid) if self.visible(p.paper_id)]
        page, next_offset = self._page(paras, a.offset, a.k)
        citing = {h["id"]: h for h in self._hits(list(dict.fromkeys(p.paper_id for p in page)))}
        contexts = [{"citing": citing[p.paper_id], "section": p.section,
                     "text": clip(p.text, a.text_chars),
                     "also_cites": [q for q in self.visible.keep(list(p.cited or [])) if q != pid]}
                    for p in page]
        return ({"paper": pid, "total": len(paras), "contexts": contexts,
                 "next_offset": next_offset}, [p.paper_id for p in page])
