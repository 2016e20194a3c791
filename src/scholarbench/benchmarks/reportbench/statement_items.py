"""ReportBench's statements (`--statements`; paper §2.2, prompts A.2.1–A.2.5) as four judged
items of the engine's judge stage (`core.judge_stage`; requests and replies:
`statement_extraction`, `statement_checks`; what is judged in a report: `statement_units`;
the result from the verdicts: `statement_verdicts`).

- `cited_statements`: one request per `StatementConfig.chunk_chars` chunk of the report
  (subject ``chunk-<i>``) — its (statement, citation) pairs;
- `noncited_statements` (`needs` the first): one request per chunk, given the cited statements
  the first item's verdicts found in that chunk (with the upstream prompts: in the whole
  report); a chunk whose cited reply stayed unusable is asked with none, as before the move.

The two extraction items are the panel's first judge's, asked once (`JudgedItem.panel` False): every later
judgement rates the same statements. The engine keeps each verdict in
judge.<item>.jsonl under its key (judge, prompt, request), so a re-score with the same judge
asks nothing here and another judge asks again. A reply unusable after the repair turn is
`unscored`, a call that fails after its retries `error` (the run is then incomplete); either way
the chunk's statements are not judged and the chunk counts in `n_extraction_unscored` with its
reason.

- `statement_checks` (`needs` the cited extraction, and the LLM titles with --llm-titles: they
  decide which reference a citation links to): one request per cited (statement, work) pair
  whose source text is found (subject ``pair-<i>``, the pair's position in
  `statement_units.cited_units`) — the passage prompt then the consistency judge on its
  answer (2 calls; 1 on NOT_FOUND or with ``passage="bm25"``). Every judge of the panel, K
  times (repeat r: the judge's seed + r).
- `noncited_votes` (`needs` both extractions): N requests per non-cited statement (subject
  ``noncited-<k>/vote-<i>``), vote i asked with seed ``i + r·N`` in repeat r at the vote
  temperature, by every judge of the panel and the API's extra vote judges.
"""
from __future__ import annotations

from functools import cached_property
from typing import Any, Callable, Sequence

from scholarbench.benchmarks.reportbench.llm_common import split_report
from scholarbench.benchmarks.reportbench.scoring import has_answer, report_text
from scholarbench.benchmarks.reportbench.statement_extraction import (CITED, NONCITED,
                                                                      EngineExtraction,
                                                                      ask_extraction,
                                                                      cited_messages,
                                                                      noncited_messages,
                                                                      subject)
from scholarbench.benchmarks.reportbench.refscore import references_for
from scholarbench.benchmarks.reportbench.sources import CorpusEvidence, NoEvidence, SourceLookup
from scholarbench.benchmarks.reportbench.statement_checks import (ask_check, ask_vote,
                                                                  check_messages, evidence_for,
                                                                  locate, vote_messages)
from scholarbench.benchmarks.reportbench.statement_prompts import PromptSet
from scholarbench.benchmarks.reportbench.statement_replies import (CITED_SCHEMA, parse_cited,
                                                                   parse_noncited)
from scholarbench.benchmarks.reportbench.statement_units import (cited_units,
                                                                 noncited_statements)
from scholarbench.benchmarks.reportbench.title_item import NAME as TITLES, EngineTitles
from scholarbench.core.judge_stage import JudgedItem, JudgeRequest
from scholarbench.llm.structured import JsonOutcome


def chunks_of(sample: Any, record: dict[str, Any] | None, chunk_chars: int) -> list[str]:
    """The report's chunks the statements are extracted from ([]: no answer or no report text,
    as `scoring.Scorer.judge` judges no statements then)."""
    if record is None or not has_answer(sample, record):
        return []
    report = report_text(record)
    return split_report(report, chunk_chars) if report else []


CHECKS, VOTES = "statement_checks", "noncited_votes"


def pair_subject(i: int) -> str:
    return f"pair-{i}"


def vote_subject(k: int, i: int) -> str:
    return f"noncited-{k}/vote-{i}"


class StatementSources:
    """What the check and vote requests read besides the verdicts — a report's references (with
    the LLM titles' verdicts when on), the cited works' source texts, the votes' evidence —
    opened on first use (a dry run before the answers opens nothing)."""

    def __init__(self, corpus: Callable[[], Any], *, allow_network: bool = False,
                 evidence: Any = None, evidence_mode: str = "corpus",
                 title_chars: int | None = None, voters: Sequence[Any] = ()) -> None:
        self._corpus, self.allow_network = corpus, allow_network
        self._evidence, self.evidence_mode = evidence, evidence_mode
        self.title_chars, self.voters = title_chars, tuple(voters)   # title_chars: LLM titles on
        self._evidence_found: dict[str, tuple[str, list]] = {}

    @cached_property
    def corpus(self) -> Any:
        return self._corpus()

    @cached_property
    def lookup(self) -> SourceLookup:
        return SourceLookup(self.corpus, allow_network=self.allow_network)

    @cached_property
    def evidence(self) -> Any:
        if self._evidence is not None:
            return self._evidence
        return CorpusEvidence(self.corpus) if self.evidence_mode == "corpus" and \
            self.corpus is not None else NoEvidence()

    def evidence_for(self, statement: str, prompts: PromptSet, config: Any) -> tuple[str, list]:
        """A vote's evidence for `statement` (`statement_checks.evidence_for`), searched once:
        the votes' requests and the result read the same."""
        if statement not in self._evidence_found:
            self._evidence_found[statement] = evidence_for(statement, self.evidence, prompts,
                                                           config)
        return self._evidence_found[statement]

    def refs(self, sample: Any, record: dict[str, Any], earlier: dict[str, Any]) -> list[Any]:
        """The report's references as the scorer resolves them (`refscore.references_for`)."""
        titles = None
        if self.title_chars is not None:
            titles = EngineTitles(earlier.get(TITLES), self.title_chars)
            titles.current = str(sample.id)
        return list(references_for(record, self.corpus, titles).references)


def check_version(prompts: PromptSet, config: Any) -> str:
    kinds = ["consistency"] + (["passage"] if config.passage == "llm" else [])
    ids = "+".join(prompts.prompt(k).identity() for k in kinds)
    return f"{ids}+{config.passage}+max{config.passage_max_tokens}/{config.judge_max_tokens}"


def statement_items(config: Any, sources: StatementSources | None = None
                    ) -> tuple[JudgedItem, ...]:
    """The items of `config` (`statements.StatementConfig`): the cited extraction, then the
    non-cited one unless `config.noncited` is off; with `sources`, the pairs' checks and the
    non-cited votes too."""
    prompts = PromptSet(config.prompt_set)

    def version(kind: str) -> str:
        return f"{prompts.prompt(kind).identity()}+chunk{config.chunk_chars}" \
               f"+max{config.extract_max_tokens}"

    def ask(kind: str) -> Any:
        def one(client: Any, request: JudgeRequest, seed: int | None) -> JsonOutcome:
            return ask_extraction(client, kind, request.messages, prompts,
                                  config.extract_max_tokens, seed)
        return one

    def cited(sample: Any, record: dict[str, Any] | None) -> list[JudgeRequest]:
        return [JudgeRequest(subject(c), cited_messages(prompts, chunk))
                for c, chunk in enumerate(chunks_of(sample, record, config.chunk_chars))]

    def noncited(sample: Any, record: dict[str, Any] | None, earlier: dict[str, Any]
                 ) -> list[JudgeRequest]:
        chunks = chunks_of(sample, record, config.chunk_chars)
        found = EngineExtraction(earlier, str(sample.id))
        per_chunk = [[s for s, _ in found.cited(c, chunk).items]
                     for c, chunk in enumerate(chunks)]
        if not prompts.quoted:       # upstream: the whole report's cited statements, each chunk
            per_chunk = [[s for one in per_chunk for s in one]] * len(chunks)
        return [JudgeRequest(subject(c), noncited_messages(prompts, chunk, per_chunk[c]))
                for c, chunk in enumerate(chunks)]

    rule = f"1 per {config.chunk_chars:,}-character chunk of each report"
    items = [JudgedItem(CITED, version("cited"), cited, validate=parse_cited,
                        schema=CITED_SCHEMA, per_sample=None, ask=ask(CITED), panel=False,
                        basis=f"cited statements: {rule}")]
    if config.noncited:
        items.append(JudgedItem(NONCITED, version("noncited"), noncited,
                                validate=parse_noncited, per_sample=None, ask=ask(NONCITED),
                                panel=False, needs=(CITED,),
                                basis=f"non-cited statements: {rule}"))
    if sources is not None:
        items += check_and_vote_items(config, prompts, sources)
    return tuple(items)


def check_and_vote_items(config: Any, prompts: PromptSet, sources: StatementSources
                         ) -> list[JudgedItem]:
    """`statement_checks` and (with the non-cited statements) `noncited_votes` (module
    docstring)."""
    def units(sample: Any, record: dict[str, Any] | None, earlier: dict[str, Any],
              with_refs: bool) -> tuple[list[str], Any]:
        chunks = chunks_of(sample, record, config.chunk_chars)
        if not chunks:
            return [], None
        refs = sources.refs(sample, record or {}, earlier) if with_refs else []
        return chunks, cited_units(EngineExtraction(earlier, str(sample.id)), chunks, refs)

    def checks(sample: Any, record: dict[str, Any] | None, earlier: dict[str, Any]
               ) -> list[JudgeRequest]:
        _, found = units(sample, record, earlier, True)
        out = []
        for i, (unit, ref) in enumerate(zip(found.cited, found.refs_of) if found else ()):
            text = locate(unit, ref, sources.lookup, config)
            if text is not None:
                out.append(JudgeRequest(pair_subject(i), check_messages(
                    prompts, config, unit.statement, text), expect=unit.statement))
        return out

    def ask_one_check(client: Any, request: JudgeRequest, seed: int | None) -> JsonOutcome:
        return ask_check(client, prompts, config, request.expect, request.messages, seed)

    def votes(sample: Any, record: dict[str, Any] | None, earlier: dict[str, Any]
              ) -> list[JudgeRequest]:
        chunks, found = units(sample, record, earlier, False)
        if found is None:
            return []
        out = []
        extract = EngineExtraction(earlier, str(sample.id))
        for k, statement in enumerate(noncited_statements(extract, chunks, found,
                                                          prompts.quoted)):
            rendered, _ = sources.evidence_for(statement, prompts, config)
            messages = vote_messages(prompts, sources.evidence.name, statement, rendered)
            out += [JudgeRequest(vote_subject(k, i), messages, seed=i,
                                 seed_step=config.samples,
                                 temperature=config.vote_temperature)
                    for i in range(config.samples)]
        return out

    def ask_one_vote(client: Any, request: JudgeRequest, seed: int | None) -> JsonOutcome:
        return ask_vote(client, prompts, config, request.messages, seed)

    titles = (TITLES,) if sources.title_chars is not None else ()
    two = config.passage == "llm"
    out = [JudgedItem(CHECKS, check_version(prompts, config), checks, validate=dict,
                      per_sample=None, ask=ask_one_check, needs=(CITED,) + titles,
                      calls=2 if two else 1, counted_by_needs=True,
                      basis=("cited: 2 per cited (statement, work) pair with a source text "
                             "(passage, consistency; 1 on NOT_FOUND)" if two else
                             "cited: 1 per cited (statement, work) pair with a source text "
                             "(consistency on the top passages)"))]
    if config.noncited:
        version = f"{prompts.prompt('fact_check').identity()}+t{config.vote_temperature}" \
                  f"+max{config.judge_max_tokens}"
        out.append(JudgedItem(VOTES, version, votes, validate=dict, per_sample=None,
                              ask=ask_one_vote, needs=(CITED, NONCITED),
                              voters=sources.voters, counted_by_needs=True,
                              basis=f"non-cited: {config.samples} votes (--samples) per "
                              "non-cited statement"))
    return out


__all__ = ["CHECKS", "StatementSources", "VOTES", "chunks_of", "pair_subject", "statement_items",
           "vote_subject"]
