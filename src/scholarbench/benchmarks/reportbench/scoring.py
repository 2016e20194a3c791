"""Scoring a ReportBench run: one scores.jsonl row per survey, never skipped.

First, for every answer (`Scorer.judge`, from `ReportBench.prepare_scoring`) the judged
steps: its references with LLM titles, its statements. Then per survey (`Scorer.row`, from
`ReportBench.score_sample`):
- the record's references (`refscore.references_for`: the report's, plus a family answer's
  `cited` REFs), resolved offline — with the LLM title extractor where nothing resolves when
  `llm_titles` is on — and scored against the survey's ground truth
  (`refscore.score_references`: ref_precision, ref_recall, ref_count; the hidden survey never
  matches);
- with statements, the cited / non-cited statement metrics (`statements.StatementJudge`, over
  the statements the engine extracted: `statement_items`);
- the leakage audit (`leakage.suspected_leak`, docs/leakage.md): `suspected_leak` when the
  references or the text hold what only the survey could give (a flag, no score changes).

Status of a row: ``scored`` / ``no_references`` (a report without references: 0, counted);
``missing`` (no report: the writer reported a failure, no replay line, an empty answer — 0 and
in the means, as the paper scores it) or ``malformed`` (an answer that does not fit the schema:
0, in the means); ``error`` (the agent failed, the survey was never generated, or its
constructed prompt's model call failed — not a result, left out of the means, retried on
resume); ``unscored`` (the prompt model's reply was unusable: no prompt, so nothing for the
agent to answer — counted, left out of the means).

The judge's outputs are recorded per survey with a fingerprint of everything they depend on
(report, corpus, judge and prompt identities, the references), in titles.jsonl (LLM titles)
and statements.jsonl (statements), and replayed when the fingerprint matches: a resumed or
re-scored run makes no model call for what it already judged. Without a judge (`score RUN_DIR`
without --with-judge) only recorded outputs are replayed, fingerprinted with the identities the
manifest recorded; a survey with no matching record says so (`statements: "not judged (no
judge)"`; the title hook returns nothing and is counted in `title_extractor.not_run`).
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from scholarbench.benchmarks.reportbench.construct import constructed_fields
from scholarbench.benchmarks.reportbench.leakage import leak_findings
from scholarbench.benchmarks.reportbench.measures import keys
from scholarbench.benchmarks.reportbench.metrics import reference_scores
from scholarbench.benchmarks.reportbench.refscore import (HiddenSurvey, references_for,
                                                          score_references)
from scholarbench.benchmarks.reportbench.statements import not_judged_row, statement_row
from scholarbench.references.resolve import ExtractedTitle
from scholarbench.core.epochs import sample_id_of

TITLES, STATEMENTS = "titles.jsonl", "statements.jsonl"
REF_KEYS = keys("reference")        # ref_precision, ref_recall, ref_count (`measures`)
TITLE_COUNTS = ("reports", "calls", "titles", "dropped", "not_academic", "replayed", "not_run")
COUNT_KEYS = ("n_found", "n_resolved", "n_titled", "n_unresolved", "n_unresolved_with_id",
              "unresolved_reasons")


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def fingerprint(obj: Any) -> str:
    return sha(json.dumps(obj, sort_keys=True, ensure_ascii=False, default=str))[:16]


class TitleCounting:
    """What a title hook counts over a run (`counts`: `TITLE_COUNTS` and the unscored reasons
    so far) and what one report added to them (`since`: its row's `title_extraction`)."""

    def counts(self) -> dict[str, Any]:
        raise NotImplementedError

    def since(self, before: dict[str, Any]) -> dict[str, Any]:
        now = self.counts()
        out: dict[str, Any] = {k: now[k] - before[k] for k in TITLE_COUNTS}
        out["unscored"] = now["unscored"][len(before["unscored"]):]
        return out


class RecordedTitles(TitleCounting):
    """The LLM title extractor with its per-report records kept in titles.jsonl: a report whose
    fingerprint matches a record replays the record's titles without a model call. `inner` is
    None when no judge is bound (records are replayed, nothing else is extracted)."""

    def __init__(self, inner: Any, run: Any, identity: Any, corpus_sha: str | None) -> None:
        self.inner, self.run = inner, run
        self.base = {"extractor": identity, "corpus": corpus_sha}
        self.records = run.stage(TITLES).records
        self.current: str | None = None
        self.last: dict[str, Any] | None = None
        self.replayed = self.not_run = 0

    def counts(self) -> dict[str, Any]:
        """The running counts (`TITLE_COUNTS` and the unscored reasons so far)."""
        stats = self.inner.stats if self.inner is not None else None
        out: dict[str, Any] = {k: getattr(stats, k, 0) for k in TITLE_COUNTS[:5]}
        out.update(replayed=self.replayed, not_run=self.not_run,
                   unscored=list(stats.unscored) if stats is not None else [])
        return out

    def __call__(self, report: str, unresolved: Sequence[Any]) -> list[Any]:
        fp = fingerprint({**self.base, "report": sha(report), "n": len(unresolved)})
        old = self.records.get(str(self.current))
        if old is not None and old.get("fingerprint") == fp:
            self.replayed += 1
            self.last = old
            return [ExtractedTitle(t["title"], t["ref"]) for t in old.get("titles", [])]
        if self.inner is None:
            self.not_run += 1
            self.last = None
            return []
        found = list(self.inner(report, unresolved))
        record = {"id": self.current, "fingerprint": fp, **(self.inner.last or {})}
        self.run.append(TITLES, record)
        self.records[str(self.current)] = record
        self.last = record
        return found


class RecordedStatements:
    """The statement results of a run judged before the pairs' checks and votes were the
    engine's judged items: each report's record in statements.jsonl, replayed when its
    fingerprint (report, judge identity, corpus, references, LLM titles) matches, else the
    report is not judged (`score RUN_DIR --with-judge` judges it on the engine)."""

    def __init__(self, identity: Any, run: Any, corpus_sha: str | None,
                 llm_titles: bool) -> None:
        self.identity, self.run = identity, run
        self.corpus_sha, self.llm_titles = corpus_sha, llm_titles
        self.records = run.stage(STATEMENTS).records

    def row(self, survey: str, report: str, refs: Sequence[Any]) -> dict[str, Any]:
        refs_digest = [(r.label, r.paper_id, tuple(r.urls), tuple(r.ids)) for r in refs]
        fp = fingerprint({"report": sha(report), "judge": self.identity,
                          "corpus": self.corpus_sha, "refs": refs_digest,
                          "llm_titles": self.llm_titles})
        old = self.records.get(survey)
        if old is not None and old.get("fingerprint") == fp:
            return statement_row(old["metrics"])
        return not_judged_row("not judged (no judge: score RUN_DIR --with-judge)")


def zero_row(row: dict[str, Any], n_gt: int, status: str, error: str | None) -> dict[str, Any]:
    row.update({k: 0 if k == "ref_count" else 0.0 for k in REF_KEYS}, n_gt=n_gt, status=status,
               n_matched=0, n_gt_matched=0, n_found=0, n_resolved=0, n_titled=0,
               n_unresolved=0, n_unresolved_with_id=0, unresolved_reasons={},
               error=error or "not generated")
    return row


def unscored_row(row: dict[str, Any], n_gt: int, status: str, error: str) -> dict[str, Any]:
    row.update({k: None for k in REF_KEYS}, n_gt=n_gt, status=status, error=error)
    return row


@dataclass
class Judged:
    """What the judged steps made of one survey's answer, before its row is scored: its
    references (resolved with the LLM title extractor when on), the extractor's share of the
    counts and record, and the statement keys of its row."""
    found: Any = None                                   # None: no report to score
    title_extraction: dict[str, Any] | None = None      # this report's `TITLE_COUNTS`
    titles_record: dict[str, Any] | None = None         # the extractor's record it used
    statements: dict[str, Any] | None = None            # `statement_row` keys


def report_text(record: dict[str, Any]) -> str | None:
    return record.get("report") if isinstance(record.get("report"), str) else None


def has_answer(sample: Any, record: dict[str, Any] | None) -> bool:
    """Whether there is an answer to score: a scorable sample whose record (not errored)
    holds a report or a scored `cited` list."""
    if sample.unscorable is not None or record is None or record.get("status") == "error":
        return False
    report = report_text(record)
    return bool(report and report.strip()) or bool(record.get("cited_scored")
                                                    and record.get("cited"))


class Scorer:
    """Scores the records of one run (see the module docstring): `judge` runs the judged steps
    of every answer first (`ReportBench.prepare_scoring`), `row` then scores one survey."""

    def __init__(self, *, gt: dict[str, list[Any]], corpus: Any, tasks: dict[str, Any],
                 match: str = "exact", unresolved: str = "exclude",
                 titles: RecordedTitles | None = None,
                 statements: RecordedStatements | None = None) -> None:
        self.gt, self.corpus, self.tasks = gt, corpus, tasks
        self.match, self.unresolved = match, unresolved
        self.titles, self.statements = titles, statements

    def judge(self, sample: Any, record: dict[str, Any] | None) -> Judged:
        """The references of one answer (with LLM titles) and its statements, each judge
        output recorded (`RecordedTitles`, `RecordedStatements`)."""
        before = self.titles.counts() if self.titles is not None else None
        judged = Judged()
        if record is not None and has_answer(sample, record):
            if self.titles is not None:
                self.titles.current, self.titles.last = sample.id, None
            judged.found = references_for(record, self.corpus, self.titles)
            if self.titles is not None:
                judged.titles_record = self.titles.last
            if self.statements is not None and (report := report_text(record)):
                judged.statements = self.statements.row(sample.id, report,
                                                        judged.found.references)
        if self.titles is not None and before is not None:
            judged.title_extraction = self.titles.since(before)
        return judged

    def _not_judged(self, row: dict[str, Any], why: str) -> None:
        if self.statements is not None:
            row.update(not_judged_row(why))

    def row(self, sample: Any, record: dict[str, Any] | None, judged: Judged,
            prompt_record: dict[str, Any] | None = None) -> dict[str, Any]:
        """One survey's scores line, with what the summary needs of the run's other stages:
        `title_extraction` (this report's share of the title extractor's counts, with
        --llm-titles) and `prompt_construction` (its constructed prompt's fields)."""
        row = self._row(sample, record, judged, prompt_record)
        if judged.title_extraction is not None:
            row["title_extraction"] = judged.title_extraction
        if prompt_record is not None:
            row["prompt_construction"] = constructed_fields(prompt_record)
        return row

    def _row(self, sample: Any, record: dict[str, Any] | None, judged: Judged,
             prompt_record: dict[str, Any] | None) -> dict[str, Any]:
        sid = sample.id
        gt_titles = [r.title for r in self.gt.get(sample_id_of(sample), [])]   # an epoch's too
        n_gt = reference_scores([], gt_titles).n_gt
        row: dict[str, Any] = {"id": sid, "arxiv_id": sid}
        if sample.unscorable is not None:              # a constructed prompt is missing
            status = "error" if (prompt_record or {}).get("status") == "error" else "unscored"
            self._not_judged(row, "not judged (no prompt)")
            return unscored_row(row, n_gt, status, sample.unscorable)
        if record is None or record.get("status") == "error":
            why = (record or {}).get("error") or "not generated (resume the run to generate it)"
            self._not_judged(row, "not judged (no report)")
            return unscored_row(row, n_gt, "error", why)
        found = judged.found
        if found is None:
            status = "missing" if "report" in record or record.get("missing") else "malformed"
            self._not_judged(row, "not judged (no report)")
            return zero_row(row, n_gt, status, record.get("error"))
        report = report_text(record)
        task = self.tasks.get(sid)
        hidden = HiddenSurvey.of(task) if task is not None else HiddenSurvey(sid)
        scores, n_hidden = score_references(found, gt_titles, hidden, self.corpus,
                                            match=self.match, unresolved=self.unresolved)
        counts = found.counts()
        values = scores.as_dict()
        row.update({k: values[k] for k in REF_KEYS}, n_gt=n_gt,
                   status="scored" if scores.ref_count else "no_references",
                   n_matched=scores.n_matched, n_gt_matched=scores.n_gt_matched,
                   **{k: counts[k] for k in COUNT_KEYS})
        row.update(unresolved=counts["n_unresolved"], n_refs=counts["n_found"])   # core.refs
        if n_hidden:
            row["n_hidden_survey"] = n_hidden
        if task is not None:                              # docs/leakage.md; no score changes
            row.update(leak_findings(task, found.references, report, self.corpus).row())
        if record.get("error"):
            row["error"] = record["error"]
        if judged.titles_record is not None:
            row["title_extractor"] = {"titles": len(judged.titles_record.get("titles", [])),
                                      "unscored": judged.titles_record.get("unscored", [])}
        if judged.statements is not None:
            row.update(judged.statements)
        elif self.statements is not None:
            self._not_judged(row, "not judged (cited list only, no report text)")
        return row


def open_corpus(path: str | Path | None) -> Any:
    if not path:
        return None
    # deferred: pulls in duckdb, pyarrow
    from scholarbench.corpus.store import Corpus
    return Corpus.open(Path(path))
