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

from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any, Callable, Sequence

from scholarbench.benchmarks.reportbench.citation_index import CitationIndex  # noqa: F401
from scholarbench.benchmarks.reportbench.llm_common import split_report
from scholarbench.references.report_refs import Reference
from scholarbench.benchmarks.reportbench.statement_replies import (  # noqa: F401  (re-exported)
    CITED_SCHEMA, DECISION_SCHEMA, MATCH_SCHEMA, NONCITED_SCHEMA, parse_cited, parse_decision,
    parse_match, parse_noncited)
from scholarbench.benchmarks.reportbench.sources import EvidenceTool, NoEvidence, SourceLookup
from scholarbench.benchmarks.reportbench.statement_checks import (  # noqa: F401  (re-exported)
    NOT_IN_REPORT, apply_check, ask_check, ask_vote, check_messages, evidence_for, locate,
    vote_messages, vote_of)
from scholarbench.benchmarks.reportbench.statement_extraction import (DirectExtraction,
                                                                      Extraction)
from scholarbench.benchmarks.reportbench.statement_prompts import PROMPT_SETS, PromptSet
from scholarbench.benchmarks.reportbench.statement_rows import (  # noqa: F401  (re-exported)
    STATEMENT_COUNTS, STATEMENT_RATES, aggregate_statement_rows, format_statement_summary,
    not_judged_row, statement_row)
from scholarbench.benchmarks.reportbench.statement_units import (cited_units,
                                                                 noncited_statements)

PASSAGE_MODES = ("llm", "bm25")

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


from scholarbench.benchmarks.reportbench.statement_records import (  # noqa: F401
    CitedUnit, NonCitedVerdict, StatementResult, Vote)  # (re-exported)


# ---- the pipeline ------------------------------------------------------------------------------

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
        source_text = locate(unit, ref, self.lookup, self.config)
        if source_text is None:
            return unit
        messages = check_messages(self.prompts, self.config, unit.statement, source_text)
        outcome = ask_check(client or self.judge, self.prompts, self.config, unit.statement,
                            messages, seed)
        return apply_check(unit, outcome.value if outcome.ok else None, outcome.unscored,
                           source_text, outcome.attempts)

    # -- non-cited: one vote --
    def _vote(self, job: tuple[int, int, str, str]) -> Vote:
        j, sample, statement, evidence = job
        client = self.voters[j]
        outcome = ask_vote(client, self.prompts, self.config,
                           vote_messages(self.prompts, self.evidence.name, statement, evidence),
                           sample)
        name = self.names[j] if j < len(self.names) else getattr(client, "model_id",
                                                                  f"judge{j}")
        return vote_of(name, sample, outcome.value if outcome.ok else None, outcome.unscored,
                       outcome.attempts)

    def _verdict(self, statement: str) -> NonCitedVerdict:
        rendered, found = evidence_for(statement, self.evidence, self.prompts, self.config)
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
        extract = extractor or self.extraction()
        chunks = split_report(report, self.config.chunk_chars)
        units = cited_units(extract, chunks, refs, self._map)
        checked = self._map(lambda pair: self._check(*pair), list(zip(units.cited,
                                                                      units.refs_of)))
        result = StatementResult(cited=checked, extraction=units.extraction)
        if not self.config.noncited:
            return result
        statements = noncited_statements(extract, chunks, units, self.prompts.quoted,
                                         self._map)
        result.noncited = self._map(self._verdict, statements)
        return result
