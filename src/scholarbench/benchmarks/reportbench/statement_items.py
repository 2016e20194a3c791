"""ReportBench's statement extraction (`--statements`; paper §2.2, prompts A.2.1–A.2.2) as two
judged items of the engine's judge stage (`core.judge_stage`; requests and replies:
`statement_extraction`). What is then done with the statements — linking, source lookup, the
passage and consistency judges, the non-cited votes — is `statements.StatementJudge`'s.

- `cited_statements`: one request per `StatementConfig.chunk_chars` chunk of the report
  (subject ``chunk-<i>``) — its (statement, citation) pairs;
- `noncited_statements` (`needs` the first): one request per chunk, given the cited statements
  the first item's verdicts found in that chunk (with the upstream prompts: in the whole
  report); a chunk whose cited reply stayed unusable is asked with none, as before the move.

Both are the panel's first judge's, asked once (`JudgedItem.panel` False): every later
judgement rates the same statements. The engine keeps each verdict in
judge.<item>.jsonl under its key (judge, prompt, request), so a re-score with the same judge
asks nothing here and another judge asks again. A reply unusable after the repair turn is
`unscored`, a call that fails after its retries `error` (the run is then incomplete); either way
the chunk's statements are not judged and the chunk counts in `n_extraction_unscored` with its
reason.
"""
from __future__ import annotations

from typing import Any

from scholarbench.benchmarks.reportbench.llm_common import split_report
from scholarbench.benchmarks.reportbench.scoring import has_answer, report_text
from scholarbench.benchmarks.reportbench.statement_extraction import (CITED, NONCITED,
                                                                      EngineExtraction,
                                                                      ask_extraction,
                                                                      cited_messages,
                                                                      noncited_messages,
                                                                      subject)
from scholarbench.benchmarks.reportbench.statement_prompts import PromptSet
from scholarbench.benchmarks.reportbench.statement_replies import (CITED_SCHEMA, parse_cited,
                                                                   parse_noncited)
from scholarbench.core.judge_stage import JudgedItem, JudgeRequest
from scholarbench.llm.structured import JsonOutcome


def chunks_of(sample: Any, record: dict[str, Any] | None, chunk_chars: int) -> list[str]:
    """The report's chunks the statements are extracted from ([]: no answer or no report text,
    as `scoring.Scorer.judge` judges no statements then)."""
    if record is None or not has_answer(sample, record):
        return []
    report = report_text(record)
    return split_report(report, chunk_chars) if report else []


def statement_items(config: Any) -> tuple[JudgedItem, ...]:
    """The extraction items of `config` (`statements.StatementConfig`): cited, then non-cited
    unless `config.noncited` is off."""
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
    return tuple(items)


__all__ = ["chunks_of", "statement_items"]
