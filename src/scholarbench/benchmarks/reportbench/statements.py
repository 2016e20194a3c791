"""ReportBench statement metrics: `cited_match_rate` and `noncited_accuracy` (paper §2.2, §3.1,
§3.2; prompts A.2.1–A.2.5; upstream `statement/prompts.py`, `verify_no_citations_web.py`).

Every model call here is the JUDGE role's (the paper uses gpt-4o for extraction, passage
selection and consistency, and web-connected judges for the vote); with the default prompts the
report is quoted data in every prompt (`llm_common.quote`).

In a run and `score RUN_DIR --with-judge` the two extraction steps are the engine's judged
items (`statement_items`; `judge_report` reads their verdicts through a
`statement_extraction.EngineExtraction`); on files and used on its own, `StatementJudge` asks
them itself (`statement_extraction.DirectExtraction`, the same requests).

Cited statements (three stages, as the paper):
1. Extraction (A.2.1, ``cited_statements_v1``): the report is cut into chunks
   (`llm_common.split_report`, 16,384 characters, upstream's BLOCK_SIZE) and each chunk gives
   ``{"statements": [{"statement", "citation"}]}``. The paper asks for a bare list and a "url";
   JSON mode needs an object at the top level, and our writers cite with ``[n]`` markers, so the
   key is ``citation`` (a URL, DOI, arXiv id or marker as written; "url" is accepted too).
   Items with an empty statement or citation are dropped and counted (`n_items_dropped`); a
   chunk whose reply is unusable after the repair turn is counted (`extraction_unscored`, with
   the reason) — its statements are not judged.
2. Linking and lookup: each citation is linked to the report's parsed references
   (`report_refs.parse_report` + `resolve`): URLs by `url_key`, DOIs/arXiv ids by id, markers
   ``[3]`` / ``[1, 4-5]`` / ``[^2]`` by bibliography label, author-year by the mention text, else
   by a stated title. A citation naming several works gives one pair per work (upstream: one
   row per URL). Identical (statement, work) pairs count once. Each pair's source text comes
   from `sources.SourceLookup` (corpus full text or abstract; the web only when enabled).
3. Supporting passage and consistency: the source's passages are ranked by BM25 against the
   statement and the top k (3) — at most 6,000 characters — are the "source document"; with
   ``passage="llm"`` (default) the A.2.3 prompt (``supporting_passage_v1``) returns the
   supporting content or NOT_FOUND, and the A.2.4 prompt (``consistency_v1``) judges
   ``{"reason", "match"}`` on it; with ``passage="bm25"`` the top-k passages go to the A.2.4
   judge directly (one call fewer per pair). NOT_FOUND is a mismatch without a judge call.

   Each pair ends as one of:
   - ``checked``: a verdict (`match` true/false; NOT_FOUND counts as false);
   - ``unreachable``: no source text (reason counted: ``not in corpus``, ``no text in corpus``,
     ``network off``, ``fetch failed`` …, and ``citation not in report`` when the citation the
     extractor returned names no reference of the report);
   - ``unscored``: the passage or judge call failed, or the judge's reply was not usable after
     the repair turn (reason kept and shown).

   ``cited_match_rate`` = matched / (checked + unreachable): an unreachable source is a
   mismatch, as the paper counts a link that cannot be resolved (§4, "Citation
   Hallucination"). ``cited_match_rate_checkable`` = matched / checked, over the pairs whose
   source text was found: upstream's ``alignment_rate`` (metrics_calculator.py @ 1826140). Unscored
   pairs are in neither denominator and are counted. Both None for a report without cited pairs.

Non-cited statements (two steps):
1. Extraction (A.2.2, ``noncited_statements_v1``) per chunk, given the cited statements found
   in the same chunk; statements equal (normalised) to a cited one or to an earlier one are
   dropped.
2. Voting (A.2.5, ``fact_check_v1``): K judges (the judge role plus any extra clients; with a
   judge panel its judges, `statement_panel`) × N samples (default 3; sample i is asked with
   ``seed=i`` at ``vote_temperature`` 0.7, so the samples differ and each is cached). The
   judges get the top `evidence_k` corpus passages for the statement from an `EvidenceTool`
   (corpus BM25 by default; web search is a tool the user plugs in; none by default reaches
   the network). A vote whose reply is unusable after the
   repair is unscored and counted; the statement's outcome is the majority of the usable votes:
   ``correct`` / ``incorrect``; equal counts are a ``tie`` (reported apart); no usable vote:
   ``unscored``. ``confidence`` = majority share (0.5 for a tie), as upstream.

   ``noncited_accuracy`` = correct / (correct + incorrect): ties and unscored statements are
   counted beside it, never in it. ``noncited_accuracy_upstream`` = correct / (correct +
   incorrect + tie) reproduces upstream, whose denominator holds ties (and whose failed calls
   are "false" votes — here they are unscored instead).

Prompts: ``prompt_set="v1"`` (default, the names above) or ``"upstream"`` (upstream
``statement/prompts.py`` @ 1826140 verbatim, texts raw, no JSON mode, the whole report's cited
statements as "already cited"); see `statement_prompts`.
"""
from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Sequence

from scholarbench.llm.client import LLMCallError
from scholarbench.llm.structured import ask_json
from scholarbench.benchmarks.reportbench.citation_index import CitationIndex  # noqa: F401
from scholarbench.benchmarks.reportbench.llm_common import split_report
from scholarbench.references.report_refs import Reference
from scholarbench.benchmarks.reportbench.statement_replies import (  # noqa: F401  (re-exported)
    CITED_SCHEMA, DECISION_SCHEMA, MATCH_SCHEMA, NONCITED_SCHEMA, parse_cited, parse_decision,
    parse_match, parse_noncited)
from scholarbench.benchmarks.reportbench.sources import (EvidenceTool, NoEvidence, SourceLookup,
                                                         SourceText, Unreachable, render_evidence,
                                                         render_passages, select_passages)
from scholarbench.benchmarks.reportbench.statement_extraction import (DirectExtraction,
                                                                      Extraction)
from scholarbench.benchmarks.reportbench.statement_prompts import PROMPT_SETS, PromptSet
from scholarbench.benchmarks.reportbench.statement_rows import (  # noqa: F401  (re-exported)
    STATEMENT_COUNTS, STATEMENT_RATES, aggregate_statement_rows, format_statement_summary,
    not_judged_row, statement_row)
from scholarbench.text.normalize import normalize_title

PASSAGE_MODES = ("llm", "bm25")
NOT_IN_REPORT = "citation not in report"

@dataclass(frozen=True)
class StatementConfig:
    """Everything that changes the statement metrics (recorded with every result)."""
    chunk_chars: int = 16384          # report chunk size (upstream BLOCK_SIZE)
    passage: str = "llm"              # "llm": A.2.3 picks the support; "bm25": top-k as is
    passages_k: int = 3               # BM25 top-k passages of the cited source
    source_chars: int = 6000          # at most this much source text per pair
    noncited: bool = True             # also judge the non-cited statements
    samples: int = 3                  # N samples per judge (non-cited vote)
    vote_temperature: float = 0.7
    evidence_k: int = 3               # corpus passages given to each fact-check vote
    evidence_chars: int = 6000
    extract_max_tokens: int = 2048
    passage_max_tokens: int = 512
    judge_max_tokens: int = 256
    prompt_set: str = "v1"            # "v1" (ours) or "upstream" (statement_prompts)

    def __post_init__(self) -> None:
        if self.prompt_set not in PROMPT_SETS:
            raise ValueError(f"prompt_set must be one of {PROMPT_SETS}, not {self.prompt_set!r}")
        if self.passage not in PASSAGE_MODES:
            raise ValueError(f"passage must be one of {PASSAGE_MODES}, not {self.passage!r}")
        if self.samples < 1 or self.passages_k < 1 or self.chunk_chars < 1:
            raise ValueError("samples, passages_k and chunk_chars must be >= 1")

    def identity(self) -> dict[str, Any]:
        used = ["cited", "consistency"] + (["passage"] if self.passage == "llm" else []) + \
            (["noncited", "fact_check"] if self.noncited else [])
        return {**asdict(self), "prompts": PromptSet(self.prompt_set).identity(used)}


# ---- records -----------------------------------------------------------------------------------

@dataclass
class CitedUnit:
    statement: str
    citation: str
    ref: int | None                   # index into the report's references
    status: str = "unscored"          # checked | unreachable | unscored
    match: bool | None = None
    reason: str | None = None         # judge's reason, unreachable detail or unscored reason
    unreachable: str | None = None    # the unreachable kind
    not_found: bool = False           # the passage step answered NOT_FOUND
    passage: str | None = None        # what the judge compared the statement with
    source: dict[str, Any] | None = None
    attempts: int = 0


@dataclass
class Vote:
    judge: str
    sample: int
    decision: bool | None
    reason: str | None = None
    unscored: str | None = None
    attempts: int = 0


@dataclass
class NonCitedVerdict:
    statement: str
    votes: list[Vote] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)    # sources of the evidence shown

    @property
    def n_true(self) -> int:
        return sum(1 for v in self.votes if v.decision is True)

    @property
    def n_false(self) -> int:
        return sum(1 for v in self.votes if v.decision is False)

    @property
    def outcome(self) -> str:
        t, f = self.n_true, self.n_false
        if t + f == 0:
            return "unscored"
        return "correct" if t > f else "incorrect" if f > t else "tie"

    @property
    def confidence(self) -> float | None:
        t, f = self.n_true, self.n_false
        return max(t, f) / (t + f) if t + f else None

    def to_dict(self) -> dict[str, Any]:
        return {"statement": self.statement, "outcome": self.outcome, "n_true": self.n_true,
                "n_false": self.n_false,
                "n_unscored": sum(1 for v in self.votes if v.decision is None),
                "confidence": self.confidence, "evidence": self.evidence,
                "votes": [asdict(v) for v in self.votes]}


@dataclass
class StatementResult:
    cited: list[CitedUnit] = field(default_factory=list)
    noncited: list[NonCitedVerdict] = field(default_factory=list)
    extraction: dict[str, Any] = field(default_factory=dict)
    panel: Any = None                 # `statement_panel.PanelVerdicts` with a judge panel

    def metrics(self) -> dict[str, Any]:
        if self.panel is not None:
            return self.panel.metrics(self)
        units = self.cited
        checked = [u for u in units if u.status == "checked"]
        unreachable = [u for u in units if u.status == "unreachable"]
        matched = sum(1 for u in checked if u.match)
        reasons: dict[str, int] = {}
        for u in unreachable:
            reasons[u.unreachable or "unknown"] = reasons.get(u.unreachable or "unknown", 0) + 1
        denom = len(checked) + len(unreachable)
        outcomes = [v.outcome for v in self.noncited]
        correct, incorrect, tie = (outcomes.count(k) for k in ("correct", "incorrect", "tie"))
        ex = self.extraction
        return {
            "cited_match_rate": matched / denom if denom else None,
            "cited_match_rate_checkable": matched / len(checked) if checked else None,
            "n_cited": len(units), "n_cited_statements": len({u.statement for u in units}),
            "n_cited_checked": len(checked), "n_cited_matched": matched,
            "n_cited_not_found": sum(1 for u in checked if u.not_found),
            "n_cited_unreachable": len(unreachable),
            "n_cited_unscored": sum(1 for u in units if u.status == "unscored"),
            "cited_unreachable_reasons": dict(sorted(reasons.items())),
            "noncited_accuracy": correct / (correct + incorrect) if correct + incorrect else None,
            "noncited_accuracy_upstream": (correct / (correct + incorrect + tie)
                                           if correct + incorrect + tie else None),
            "n_noncited": len(outcomes), "n_noncited_correct": correct,
            "n_noncited_incorrect": incorrect, "n_noncited_tie": tie,
            "n_noncited_unscored": outcomes.count("unscored"),
            "n_votes": sum(len(v.votes) for v in self.noncited),
            "n_votes_unscored": sum(1 for v in self.noncited for x in v.votes
                                    if x.decision is None),
            "n_extraction_unscored": (len(ex.get("cited_unscored", []))
                                      + len(ex.get("noncited_unscored", []))),
        }

    def to_record(self) -> dict[str, Any]:
        return {"metrics": self.metrics(), "extraction": self.extraction,
                "cited": [asdict(u) for u in self.cited],
                "noncited": [v.to_dict() for v in self.noncited],
                **({"panel": self.panel.to_record()} if self.panel is not None else {})}


# ---- the pipeline ------------------------------------------------------------------------------

def _source_info(source: SourceText, shown: Sequence[Any]) -> dict[str, Any]:
    return {"origin": source.origin, "paper_id": source.paper_id, "title": source.title,
            "url": source.url, "passages": [p.where for p in shown]}


def _norm_statement(text: str) -> str:
    return " ".join(normalize_title(text).split())


class StatementJudge:
    """Runs the statement pipeline for reports (one instance per run; thread-safe)."""

    def __init__(self, judge: Any, *, lookup: SourceLookup | None = None,
                 evidence: EvidenceTool | None = None, vote_judges: Sequence[Any] = (),
                 config: StatementConfig | None = None, workers: int | None = None,
                 names: Sequence[str] | None = None, repeats: int = 1) -> None:
        if judge is None:
            raise ValueError("statement metrics need a judge model (the judge role)")
        self.judge = judge
        self.lookup = lookup or SourceLookup()
        self.evidence = evidence or NoEvidence()
        self.voters = [judge] + [j for j in vote_judges if j is not judge]
        self.config = config or StatementConfig()
        # a panel's labels for the voters' names, and repeats r of every vote (seed i + r·N)
        self.names, self.repeats = list(names or ()), repeats
        self.prompts = PromptSet(self.config.prompt_set)
        if workers is None:
            local = any(getattr(getattr(c, "config", None), "is_local", False)
                        for c in self.voters)
            workers = 1 if local else max(1, min(getattr(getattr(c, "config", None),
                                                         "concurrency", 4) for c in self.voters))
        self.workers = workers

    def identity(self) -> dict[str, Any]:
        return {"judge": getattr(self.judge, "model_id", str(self.judge)),
                "vote_judges": [getattr(c, "model_id", str(c)) for c in self.voters],
                "evidence": self.evidence.name, "lookup": {
                    "corpus": self.lookup.corpus is not None,
                    "allow_network": self.lookup.allow_network},
                "config": self.config.identity()}

    def _map(self, fn: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
        if self.workers <= 1 or len(items) <= 1:
            return [fn(x) for x in items]
        with ThreadPoolExecutor(max_workers=self.workers,
                                thread_name_prefix="reportbench-judge") as pool:
            return list(pool.map(fn, items))

    # -- stage 2/3: one (statement, reference) pair --
    def _check(self, unit: CitedUnit, ref: Reference | None, client: Any = None,
               seed: int | None = None) -> CitedUnit:
        """`client`, `seed`: another panel judge or repeat (default: the judge, its seed)."""
        cfg, client = self.config, client or self.judge
        if ref is None:
            unit.status, unit.unreachable = "unreachable", NOT_IN_REPORT
            unit.reason = f"the citation {unit.citation!r} names no reference of the report"
            return unit
        source = self.lookup.lookup(ref)
        if isinstance(source, Unreachable):
            unit.status, unit.unreachable = "unreachable", source.reason
            unit.reason = source.detail or source.reason
            return unit
        shown = select_passages(unit.statement, source.passages, cfg.passages_k,
                                cfg.source_chars)
        unit.source = _source_info(source, shown)
        source_text = render_passages(shown)
        if cfg.passage == "llm":
            try:
                reply = client.complete(
                    self.prompts.messages("passage", statement=unit.statement,
                                          source_text=source_text),
                    max_tokens=cfg.passage_max_tokens, seed=seed)
            except LLMCallError as exc:
                unit.status, unit.reason = "unscored", f"passage call failed: {exc}"
                return unit
            text = reply.text.strip()
            unit.attempts += 1
            if not text:
                unit.status, unit.reason = "unscored", "empty reply to the passage prompt"
                return unit
            if re.fullmatch(r"[\"'`*\s]*NOT[_ ]FOUND[\"'`*.\s]*", text, re.IGNORECASE):
                unit.status, unit.match, unit.not_found = "checked", False, True
                unit.reason = "NOT_FOUND: no supporting content in the source"
                return unit
            passage = text
        else:
            passage = source_text
        unit.passage = passage
        outcome = ask_json(client, self.prompts.messages("consistency",
                                                         statement=unit.statement,
                                                         source_sentence=passage),
                           validate=parse_match, schema=MATCH_SCHEMA, name="consistency",
                           constrain=self.prompts.quoted, max_tokens=cfg.judge_max_tokens,
                           seed=seed)
        unit.attempts += outcome.attempts
        if not outcome.ok:
            unit.status, unit.reason = "unscored", outcome.unscored
            return unit
        unit.status = "checked"
        unit.match, unit.reason = outcome.value
        return unit

    # -- non-cited: one vote --
    def _vote(self, job: tuple[int, int, str, str]) -> Vote:
        j, sample, statement, evidence = job
        client = self.voters[j]
        outcome = ask_json(client, self.prompts.messages("fact_check", statement=statement,
                                                         evidence_source=self.evidence.name,
                                                         evidence=evidence),
                           validate=parse_decision, schema=DECISION_SCHEMA, name="fact_check",
                           constrain=self.prompts.quoted,
                           temperature=self.config.vote_temperature, seed=sample,
                           max_tokens=self.config.judge_max_tokens)
        name = self.names[j] if j < len(self.names) else getattr(client, "model_id",
                                                                  f"judge{j}")
        if not outcome.ok:
            return Vote(name, sample, None, unscored=outcome.unscored, attempts=outcome.attempts)
        decision, reason = outcome.value
        return Vote(name, sample, decision, reason, attempts=outcome.attempts)

    def _verdict(self, statement: str) -> NonCitedVerdict:
        found = self.evidence.search(statement, self.config.evidence_k) \
            if self.config.evidence_k > 0 and self.prompts.shows_evidence() else []
        rendered = render_evidence(found, self.config.evidence_chars)
        jobs = [(j, s, statement, rendered) for j in range(len(self.voters))
                for s in range(self.config.samples * self.repeats)]
        return NonCitedVerdict(statement, [self._vote(job) for job in jobs],
                               [e.source for e in found])

    # -- a whole report --
    def extraction(self) -> DirectExtraction:
        """The extraction asked of the judge now (a run reads the engine's verdicts instead:
        `statement_extraction.EngineExtraction`)."""
        return DirectExtraction(self.judge, self.prompts, self.config.extract_max_tokens)

    def judge_report(self, report: str, refs: Sequence[Reference],
                     extractor: Extraction | None = None) -> StatementResult:
        """One report's statements: extracted per chunk by `extractor` (default: asked of the
        judge now), then checked and voted on here."""
        cfg = self.config
        extract = extractor or self.extraction()
        chunks = split_report(report, cfg.chunk_chars)
        index = CitationIndex(refs)
        extraction: dict[str, Any] = {"chunks": len(chunks), "cited_unscored": [],
                                      "noncited_unscored": [], "n_items_dropped": 0,
                                      "n_duplicate_pairs": 0, "n_citations_unlinked": 0}
        cited_by_chunk = self._map(lambda c: extract.cited(c, chunks[c]), range(len(chunks)))
        units: list[CitedUnit] = []
        refs_of: list[Reference | None] = []
        seen: set[tuple[str, int | None, str]] = set()
        chunk_cited: list[list[str]] = []
        for c, found in enumerate(cited_by_chunk):
            extraction["n_items_dropped"] += found.dropped
            if found.problem is not None:
                extraction["cited_unscored"].append({"chunk": c, "reason": found.problem})
                chunk_cited.append([])
                continue
            chunk_cited.append([s for s, _ in found.items])
            for statement, citation in found.items:
                linked = index.link(citation)
                if not linked:
                    extraction["n_citations_unlinked"] += 1
                for i in linked or [None]:
                    key = (_norm_statement(statement), i,
                           citation if i is None else "")
                    if key in seen:
                        extraction["n_duplicate_pairs"] += 1
                        continue
                    seen.add(key)
                    units.append(CitedUnit(statement, citation, i))
                    refs_of.append(index.refs[i] if i is not None else None)
        checked = self._map(lambda pair: self._check(*pair), list(zip(units, refs_of)))
        result = StatementResult(cited=checked, extraction=extraction)
        if not cfg.noncited:
            return result
        if not self.prompts.quoted:   # upstream: the whole report's cited statements, every chunk
            chunk_cited = [[s for one in chunk_cited for s in one]] * len(chunks)
        noncited_by_chunk = self._map(lambda c: extract.noncited(c, chunks[c], chunk_cited[c]),
                                      range(len(chunks)))
        known = {_norm_statement(u.statement) for u in checked}
        statements: list[str] = []
        for c, found in enumerate(noncited_by_chunk):
            extraction["n_items_dropped"] += found.dropped
            if found.problem is not None:
                extraction["noncited_unscored"].append({"chunk": c, "reason": found.problem})
                continue
            for statement in found.items:
                norm = _norm_statement(statement)
                if norm and norm not in known:
                    known.add(norm)
                    statements.append(statement)
        result.noncited = self._map(self._verdict, statements)
        return result
