"""ReportBench's LLM titles (`--llm-titles`) as a judged item of the engine's judge stage
(`core.judge_stage`; the prompts and reply rules: `llm_titles`).

The requests of one answer are what the resolver's hook would ask: the answer's references are
resolved offline first (`refscore.references_for` with a probe for a hook), and where some stay
unresolved one request lists them (subject ``unresolved``); where the parser found none, one
request per 12,000-character chunk of the report (subjects ``chunk-0``, …). An answer whose
references all resolve asks nothing. The item is the panel's first judge's, asked once
(`JudgedItem.panel` False): a title is a fact about the report, not a judgement to vote on.

The engine keeps each verdict in judge.titles.jsonl under its key (judge, prompt, request),
so a re-score with the same judge asks nothing and another judge asks again; `EngineTitles` is
then the resolver's hook over those verdicts. With the network enabled the unresolved prompt
also carries each cited page's hint, fetched when the request is asked (never by a dry run);
the key is that of the prompt without them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from scholarbench.benchmarks.reportbench.llm_common import split_report
from scholarbench.benchmarks.reportbench.llm_titles import (PAPERS_SCHEMA, REPORT_PROMPT,
                                                            TITLES_SCHEMA, UNRESOLVED_PROMPT,
                                                            LLMTitleExtractor, keep_numbered,
                                                            keep_papers, parse_papers,
                                                            parse_titles)
from scholarbench.benchmarks.reportbench.llm_common import load_prompt
from scholarbench.benchmarks.reportbench.refscore import references_for
from scholarbench.benchmarks.reportbench.scoring import (TITLE_COUNTS, TitleCounting,
                                                         has_answer)
from scholarbench.core.judge_stage import JudgedItem, JudgeRequest
from scholarbench.llm.structured import JsonOutcome, ask_json
from scholarbench.references.resolve import ExtractedTitle

NAME = "titles"
UNRESOLVED = "unresolved"


@dataclass(frozen=True)
class TitleAsk:
    """What the item's `ask` needs beyond the messages: the mode and the works listed."""
    mode: str                               # "unresolved" | "report"
    report: str = ""
    unresolved: tuple[Any, ...] = ()


def hook_arguments(record: dict[str, Any], corpus: Any) -> tuple[str, list[Any]] | None:
    """(report, unresolved references) as the resolver would hand them to its hook; None when
    it would not call it (every reference resolved offline)."""
    seen: list[tuple[str, list[Any]]] = []

    def probe(report: str, unresolved: Sequence[Any]) -> list[ExtractedTitle]:
        seen.append((report, list(unresolved)))
        return []

    references_for(record, corpus, probe)
    return seen[0] if seen else None


def title_item(extractor: LLMTitleExtractor, corpus_of: Any) -> JudgedItem:
    """The item; `corpus_of()` gives the corpus the references resolve against."""
    prompt_version = "+".join(load_prompt(p).identity()
                              for p in (UNRESOLVED_PROMPT, REPORT_PROMPT))

    def requests(sample: Any, record: dict[str, Any] | None) -> list[JudgeRequest]:
        if record is None or not has_answer(sample, record):
            return []
        found = hook_arguments(record, corpus_of())
        if found is None:
            return []
        report, unresolved = found
        if unresolved:
            text = extractor.unresolved_prompt(report, unresolved, network=False)
            return [JudgeRequest(UNRESOLVED, ({"role": "user", "content": text},),
                                 TitleAsk(UNRESOLVED, report, tuple(unresolved)))]
        return [JudgeRequest(f"chunk-{i}", ({"role": "user", "content": text},),
                             TitleAsk("report"))
                for i, text in enumerate(extractor.report_prompts(report))]

    def ask(client: Any, request: JudgeRequest, seed: int | None) -> JsonOutcome:
        want: TitleAsk = request.expect
        messages = list(request.messages)
        if want.mode == UNRESOLVED and extractor.allow_network:
            messages = [{"role": "user", "content": extractor.unresolved_prompt(
                want.report, want.unresolved, network=True)}]
        validate, schema, name = ((parse_titles, TITLES_SCHEMA, "titles")
                                  if want.mode == UNRESOLVED else
                                  (parse_papers, PAPERS_SCHEMA, "papers"))
        outcome = ask_json(client, messages, validate=validate, schema=schema, name=name,
                           max_tokens=extractor.max_tokens, seed=seed)
        if not outcome.ok:
            return outcome
        if want.mode == UNRESOLVED:             # as the hook keeps them: works 0..n-1
            kept: dict[str, Any] = {"titles": [], "dropped": 0}
            keep_numbered(outcome.value, len(want.unresolved), kept)
            value = kept
        else:
            titles, not_academic, dropped = outcome.value
            value = {"titles": titles, "not_academic": not_academic, "dropped": dropped}
        return JsonOutcome(value, None, outcome.attempts)

    return JudgedItem(NAME, prompt_version, requests, validate=parse_titles,
                      schema=TITLES_SCHEMA, per_sample=None, ask=ask, panel=False,
                      basis="LLM titles: 1 per report with unresolved references (1 per "
                      "12,000-character chunk when it lists none)")


class EngineTitles(TitleCounting):
    """The resolver's hook over the item's verdicts (`core.judge_stage.Verdicts`, or None when
    no judge was asked and none is on file), counted as `scoring.RecordedTitles` is: `current`
    the sample it resolves, `last` the record it used."""

    inner = None                                    # no extractor object: the engine asked

    def __init__(self, verdicts: Any, chunk_chars: int) -> None:
        self.verdicts, self.chunk_chars = verdicts, chunk_chars
        self.current: str | None = None
        self.last: dict[str, Any] | None = None
        self.totals = dict.fromkeys(TITLE_COUNTS, 0)
        self.unscored: list[str] = []

    def counts(self) -> dict[str, Any]:
        return {**self.totals, "unscored": list(self.unscored)}

    def _verdict(self, subject: str) -> tuple[Any, str | None, bool]:
        """(the first judge's verdict, why there is none, whether it was ever asked)."""
        sample = str(self.current)
        answers = self.verdicts.of(sample, subject) if self.verdicts is not None else {}
        reasons = self.verdicts.why(sample, subject) if self.verdicts is not None else {}
        for label, values in answers.items():
            why = (reasons.get(label) or [None])[0]
            return values[0], why, values[0] is not None or why is not None
        return None, None, False

    def __call__(self, report: str, unresolved: Sequence[Any]) -> list[ExtractedTitle]:
        subjects = ([UNRESOLVED] if unresolved else
                    [f"chunk-{i}" for i in range(len(split_report(report, self.chunk_chars)))])
        found = [self._verdict(s) for s in subjects]
        if not any(asked for _, _, asked in found):
            self.totals["not_run"] += 1
            self.last = None
            return []
        record: dict[str, Any] = {"mode": UNRESOLVED if unresolved else "report",
                                  "calls": 0, "unscored": [], "titles": [], "dropped": 0,
                                  "not_academic": 0}
        out: list[ExtractedTitle] = []
        seen: set[str] = set()
        for value, why, _ in found:
            if value is None:
                record["unscored"].append(why or "not asked")
            elif unresolved:
                out += [ExtractedTitle(str(t["title"]), int(t["ref"])) for t in value["titles"]]
                record["titles"] += value["titles"]
                record["dropped"] += int(value["dropped"])
            else:
                keep_papers((list(value["titles"]), int(value["not_academic"]),
                             int(value["dropped"])), record, seen, out)
        calls = self.verdicts.asked.get(str(self.current), 0)
        if str(self.current) in self.verdicts.asked:
            record["calls"] = calls
            self.totals["reports"] += 1
            self.totals["calls"] += calls
            self.totals["titles"] += len(out)
            self.totals["dropped"] += record["dropped"]
            self.totals["not_academic"] += record["not_academic"]
            self.unscored += record["unscored"]
        else:
            self.totals["replayed"] += 1
        self.last = record
        return out


__all__ = ["EngineTitles", "NAME", "TitleAsk", "hook_arguments", "title_item"]
