"""`scholarbench score reportbench --gt-dir D --pred P.jsonl --out S.jsonl`.

Prediction lines (`pred_lines`): upstream's `{"arxiv_id": …, "report": "<markdown>"}` or
`{"arxiv_id": …, "references": [{"title": …}, …]}` (items may also carry `authors`, `url`,
`doi`, `arxiv_id`, `is_academic_paper`; nothing else); the report family's `{"id": …,
"report": …, "cited": [REF]}`; or the lines of a ReportBench run's generate.jsonl (so a run of
ours scores here exactly as `score RUN_DIR` scores it, with the same corpus and options). The
arXiv id may carry a version or an `arXiv:` prefix.

One output line per GT survey (every `<arxiv_id>.jsonl` of the GT folder, sorted by id):
`arxiv_id, ref_precision, ref_recall, ref_count, n_gt` and the counts behind them (`status`,
`n_matched`, `n_found`, `n_resolved`, `n_titled`, `n_unresolved`, `n_unresolved_with_id`,
`unresolved_reasons`, `pred_line`, `input`). Nothing is dropped:
- `status="scored"`: a valid prediction line; `"no_references"`: valid, but nothing to match
  on (scores 0, counted); `"missing"`: no prediction line for this survey, or a run line
  without a report (scores 0, counted, ids listed); `"malformed"`: only malformed lines for it
  (scores 0, counted); `"oversized"`: over the output limits (`core.limits`; scores 0, counted).
- A malformed line (not JSON, not an object, unknown keys, no/invalid id, neither or both of
  `report` and `references`, a bad item, an answer that does not fit the schema) is counted
  with its line number and reason.
- A second valid line for the same survey is counted as a duplicate (the first is scored);
  for run lines the last one counts (`superseded`: a resumed run's retries).
- A line whose survey is not in the GT folder is counted as unknown (nothing to score against).

References are those of `refscore.references_for` (a family answer's `cited` REFs included) and
are scored by `refscore.score_references`: the survey itself (its arXiv id; with the task file
beside the GT folder also its DOI and title) never counts as a match. With that task file the
lines are also audited for leakage (`leakage.suspected_leak`, docs/leakage.md: the survey by
id or title variant, papers after the prompt's cut-off, the abstract copied), as a run's rows.

With a `statement_judge` the lines with a `report` also carry the statement metrics
(`statements.statement_row`: cited_match_rate, cited_match_rate_checkable, noncited_accuracy,
noncited_accuracy_upstream and their counts); the others say why they were not judged
(`statements`: "not judged (missing)", "… (references only, no report text)", "failed").

Means are over every GT survey (missing and malformed ones as 0) in `means`; `means_scored`
is over the surveys with a valid line; `micro` pools matches and counts over all surveys
(upstream prints both a macro and this micro figure, over the surveys it did not drop).
The summary is a run's (`core.summarise.summarise` over the rows written, with a manifest
naming the prediction file: status counts, `means`, `micro`, `statements`, every declared
measure in `metrics` with its bootstrap `ci95`) plus what scoring files adds: the line counts,
`means_scored`, `missing_ids`, the options, and `n_missing` (here: surveys without a line,
malformed ones apart) and `references` (with `not_academic`). Each line also carries what a
run's row carries: `reason` (for any status but scored), `unresolved`, `n_refs`.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from scholarbench.benchmarks.reportbench.benchmark import ReportBench
from scholarbench.references.extract import ExtractedReferences, references_from_items
from scholarbench.benchmarks.reportbench.ground_truth import load_ground_truth
from scholarbench.benchmarks.reportbench.leakage import leak_findings
from scholarbench.benchmarks.reportbench.llm_titles import LLMTitleExtractor
from scholarbench.benchmarks.reportbench.metrics import Match, Unresolved, reference_scores
from scholarbench.benchmarks.reportbench.pred_lines import as_record, read_predictions
from scholarbench.benchmarks.reportbench.refscore import (HiddenSurvey, references_for,
                                                          score_references)
from scholarbench.benchmarks.reportbench.run_scoring import statement_judge
from scholarbench.references.resolve import TitleExtractor
from scholarbench.benchmarks.reportbench.scoring import REF_KEYS
from scholarbench.benchmarks.reportbench.statements import (format_statement_summary,
                                                            not_judged_row, statement_row)
from scholarbench.benchmarks.reportbench.summary import panel_lines
from scholarbench.leakage import leak_lines
from scholarbench.core.status import reason_of
from scholarbench.data.trec import write_lines_atomic
from scholarbench.errors import ScholarbenchError
from scholarbench.benchmarks.reportbench.tasks import TASKS_FILE, load_tasks
from scholarbench.core.summarise import summarise
from scholarbench.core.limits import OutputLimits

METRICS = REF_KEYS          # the per-survey reference measures (`measures.MEASURES`)
_CORE_STATUS = {"no_references": "scored"}      # ReportBench's sub-status of `scored`


def _open_corpus(corpus: Any):
    """A Corpus (or anything with `resolve` and `get_by_ids`) as is; a path is opened."""
    if isinstance(corpus, (str, os.PathLike)):
        # deferred: pulls in duckdb, pyarrow
        from scholarbench.corpus.store import Corpus
        return Corpus.open(corpus)
    return corpus


def _tasks_beside(gt_dir: Path) -> dict[str, Any]:
    """The tasks of the task file beside the GT folder, if any: the surveys' ids, DOIs, titles,
    abstracts and cut-offs (else each survey is known by its arXiv id alone, and not
    audited for leakage)."""
    for folder in (gt_dir, gt_dir.parent):
        if (folder / TASKS_FILE).is_file():
            try:
                return {t.arxiv_id: t for t in load_tasks(folder)}
            except Exception:       # an unreadable task file: ids alone
                return {}
    return {}


def _zero_row(survey: str, n_gt: int, status: str) -> dict:
    return {"arxiv_id": survey, **{k: 0 if k == "ref_count" else 0.0 for k in METRICS},
            "n_gt": n_gt, "status": status, "n_matched": 0, "n_gt_matched": 0, "n_found": 0,
            "n_resolved": 0, "n_titled": 0, "n_unresolved": 0, "n_unresolved_with_id": 0,
            "unresolved_reasons": {}, "pred_line": None, "input": None}


def score_reportbench_files(gt_dir: str | Path, pred_path: str | Path, out_path: str | Path,
                            corpus: Any = None, *, title_extractor: TitleExtractor | None = None,
                            match: Match = "exact", unresolved: Unresolved = "exclude",
                            statement_judge: Any = None, limits: Any = None
                            ) -> dict[str, Any]:
    """Score every GT survey of `gt_dir` against `pred_path`; write one line per survey to
    `out_path` (atomically); return the summary (see the module docstring). `corpus`: a
    `Corpus`, a corpus directory, or None (ids then resolve to nothing: only stated titles
    score). `statement_judge` (a `statements.StatementJudge`) adds the statement metrics to
    the lines with a `report` (others: `statements` says why not) and `summary["statements"]`."""
    pred_path, out_path = Path(pred_path), Path(out_path)
    gt = load_ground_truth(gt_dir)                       # DataError on bad GT
    gt_titles = {s: [r.title for r in refs] for s, refs in gt.items()}
    corpus = _open_corpus(corpus)
    tasks = _tasks_beside(Path(gt_dir))
    hidden = {sid: HiddenSurvey.of(t) for sid, t in tasks.items()}
    valid, malformed = read_predictions(pred_path)
    chosen: dict[str, tuple[int, dict, str]] = {}
    duplicates, unknown, superseded = [], [], []
    for lineno, survey, obj, form in valid:
        if survey not in gt:
            unknown.append({"line": lineno, "arxiv_id": survey})
        elif survey in chosen and form == "run" and chosen[survey][2] == "run":
            superseded.append({"line": chosen[survey][0], "arxiv_id": survey,
                               "by_line": lineno})
            chosen[survey] = (lineno, obj, form)
        elif survey in chosen:
            duplicates.append({"line": lineno, "arxiv_id": survey,
                               "first_line": chosen[survey][0]})
        else:
            chosen[survey] = (lineno, obj, form)
    malformed_ids = {m["arxiv_id"] for m in malformed if m["arxiv_id"]}
    rows = []
    pooled = {"found": 0, "resolved": 0, "titled": 0, "unresolved": 0, "unresolved_with_id": 0,
              "not_academic": 0, "reasons": {}}
    for survey in sorted(gt):
        titles = gt_titles[survey]
        n_gt = reference_scores([], titles).n_gt
        if survey not in chosen:
            status = "malformed" if survey in malformed_ids else "missing"
            rows.append(_zero_row(survey, n_gt, status))
            if statement_judge is not None:
                rows[-1].update(not_judged_row(f"not judged ({status})"))
            continue
        lineno, obj, form = chosen[survey]
        record = as_record(obj, form)
        report = record.get("report") if isinstance(record.get("report"), str) else None
        too_big = limits.violation("report", {"report": report, "cited": record.get(
            "cited", obj.get("references"))}) if limits is not None else None
        if too_big:
            rows.append({**_zero_row(survey, n_gt, "oversized"), "pred_line": lineno,
                         "input": form, "error": f"oversized: {too_big}"})
            if statement_judge is not None:
                rows[-1].update(not_judged_row("not judged (oversized)"))
            continue
        if form == "run" and not (report and report.strip()) and not (
                record.get("cited_scored") and record.get("cited")):
            rows.append({**_zero_row(survey, n_gt, "missing"), "pred_line": lineno,
                         "input": form, "error": record.get("error") or "no report"})
            if statement_judge is not None:
                rows[-1].update(not_judged_row("not judged (missing)"))
            continue
        if "references" in obj and form == "upstream":
            found = references_from_items(obj["references"], corpus, title_extractor)
        else:
            found = references_for(record, corpus, title_extractor)
        scores, n_hidden = score_references(found, titles, hidden.get(survey,
                                                                      HiddenSurvey(survey)),
                                            corpus, match=match, unresolved=unresolved)
        counts = found.counts()
        row = {"arxiv_id": survey, **{k: scores.as_dict()[k] for k in METRICS}, "n_gt": n_gt,
               "status": "scored" if scores.ref_count else "no_references",
               "n_matched": scores.n_matched, "n_gt_matched": scores.n_gt_matched,
               **{k: counts[k] for k in (
                   "n_found", "n_resolved", "n_titled", "n_unresolved", "n_unresolved_with_id",
                   "unresolved_reasons")},
               "pred_line": lineno,
               "input": form if form != "upstream" else (
                   "report" if "report" in obj else "references")}
        if counts["n_not_academic"]:
            row["n_not_academic"] = counts["n_not_academic"]
        if n_hidden:
            row["n_hidden_survey"] = n_hidden
        if survey in tasks:                               # docs/leakage.md; no score changes
            row.update(leak_findings(tasks[survey], found.references, report, corpus).row())
        if statement_judge is not None:
            row.update(_judge_statements(statement_judge, report, found))
        rows.append(row)
        pooled["found"] += counts["n_found"]
        pooled["resolved"] += counts["n_resolved"]
        pooled["titled"] += counts["n_titled"]
        pooled["unresolved"] += counts["n_unresolved"]
        pooled["unresolved_with_id"] += counts["n_unresolved_with_id"]
        pooled["not_academic"] += counts["n_not_academic"]
        for why, n in counts["unresolved_reasons"].items():
            pooled["reasons"][why] = pooled["reasons"].get(why, 0) + n
    for row in rows:               # what a run's row also says (core.refs, core.status)
        row.setdefault("unresolved", row["n_unresolved"])
        row.setdefault("n_refs", row["n_found"])
        if (why := reason_of(_CORE_STATUS.get(row["status"], row["status"]), row,
                             None)) is not None:
            row["reason"] = why
    write_lines_atomic(out_path, (json.dumps(r, ensure_ascii=False) for r in rows))
    scored = [r for r in rows if r["pred_line"] is not None]

    def mean(rs: list[dict], key: str) -> float | None:
        return sum(r[key] for r in rs) / len(rs) if rs else None

    # a run's summary of these rows (status counts, means, micro, statements, every measure
    # with its ci95: `core.summarise`), then what scoring files adds to it
    summary = summarise(ReportBench({}), rows, files_manifest(pred_path), warn=False)
    summary.update({
        "benchmark": "reportbench", "gt_dir": str(gt_dir), "pred": str(pred_path),
        "out": str(out_path),
        "options": {"match": match, "unresolved": unresolved,
                    "corpus": str(getattr(corpus, "directory", "")) or None,
                    "title_extractor": title_extractor is not None},
        "n_surveys": len(rows), "n_predicted": len(scored),
        "n_missing": sum(1 for r in rows if r["status"] == "missing"),
        "missing_ids": [r["arxiv_id"] for r in rows if r["status"] == "missing"],
        "n_malformed_surveys": sum(1 for r in rows if r["status"] == "malformed"),
        "n_oversized": sum(1 for r in rows if r["status"] == "oversized"),
        "n_malformed_lines": len(malformed), "malformed": malformed,
        "n_duplicate_lines": len(duplicates), "duplicates": duplicates,
        "n_superseded_lines": len(superseded), "superseded": superseded,
        "n_unknown_lines": len(unknown), "unknown": unknown,
        "means_scored": {k: mean(scored, k) for k in METRICS},
        "references": pooled,
    })
    return summary


def files_manifest(pred: Path) -> dict[str, Any]:
    """What `score reportbench` on files was, as a run's manifest would say it."""
    return {"benchmark": "reportbench", "mode": "files", "agent": pred.stem,
            "run_name": pred.stem}


def _judge_statements(statement_judge: Any, report: str | None,
                      found: ExtractedReferences) -> dict:
    """The statement keys of one line: judged from its report, or why not."""
    if not report:
        return not_judged_row("not judged (references only, no report text)")
    try:
        return statement_row(statement_judge.judge_report(report, found.references).metrics())
    except Exception as exc:   # one report's failure is counted, never the run's end
        return {**not_judged_row("failed"), "statements_error":
                f"{type(exc).__name__}: {exc}"[:500]}


def format_summary(summary: dict[str, Any]) -> str:
    """Terminal text: means over all surveys with the counts that explain them."""
    opts = summary["options"]
    lines = [f"reportbench: {summary['n_surveys']} surveys, {summary['n_predicted']} with a "
             f"prediction ({summary['n_no_references']} of them without references, scored 0); "
             f"{summary['n_missing']} missing and {summary['n_malformed_surveys']} malformed "
             + (f"and {summary['n_oversized']} oversized " if summary.get("n_oversized")
                else "") + "(scored 0, in the means)",
             f"  lines: {summary['n_malformed_lines']} malformed, "
             f"{summary['n_duplicate_lines']} duplicate (first kept), "
             + (f"{summary['n_superseded_lines']} superseded run records (last kept), "
                if summary.get("n_superseded_lines") else "") +
             f"{summary['n_unknown_lines']} for surveys not in the GT (ignored)",
             f"  matching: {opts['match']}, unresolved references: {opts['unresolved']}, "
             f"corpus: {opts['corpus'] or 'none'}, title extractor: "
             f"{'yes' if opts['title_extractor'] else 'no'}"]
    for key in METRICS:
        value, scored = summary["means"][key], summary["means_scored"][key]
        fmt = (lambda v: "—" if v is None else f"{v:.4f}") if key != "ref_count" else (
            lambda v: "—" if v is None else f"{v:.2f}")
        lines.append(f"  {key:<14} {fmt(value):>8}   (over predicted surveys: {fmt(scored)})")
    micro = summary["micro"]
    lines.append(f"  micro          precision {micro['ref_precision']:.4f}, "
                 f"recall {micro['ref_recall']:.4f}")
    refs = summary["references"]
    reasons = ", ".join(f"{n} {why}" for why, n in sorted(refs["reasons"].items(),
                                                           key=lambda kv: -kv[1])) or "none"
    lines.append(f"  references: {refs['found']} found, {refs['resolved']} resolved to the "
                 f"corpus, {refs['titled']} titled only, {refs['unresolved']} unresolved "
                 f"({refs['unresolved_with_id']} with a paper id; {reasons})"
                 + (f", {refs['not_academic']} not academic (left out)"
                    if refs["not_academic"] else ""))
    for item in summary["malformed"][:5]:
        lines.append(f"  malformed line {item['line']}: {item['reason']}")
    if summary["n_malformed_lines"] > 5:
        lines.append(f"  … {summary['n_malformed_lines'] - 5} more malformed lines")
    if summary.get("statements"):
        lines += format_statement_summary(summary["statements"]) + panel_lines(summary)
    lines += [f"  {line}" for line in leak_lines(summary, list(METRICS))]
    return "\n".join(lines)


def score_files_command(bench: Any, models: Any) -> int:
    """`scholarbench score reportbench …` with the benchmark's "score" options; the judge
    role (`models.judge()`) only with --statements or --llm-titles."""
    opts = bench.options
    if not (opts.get("gt_dir") and opts.get("pred") and opts.get("out")):
        raise ScholarbenchError("score reportbench needs --gt-dir D --pred P.jsonl --out S.jsonl")
    corpus = _open_corpus(opts["corpus"]) if opts.get("corpus") else None
    allow_network = bool(opts.get("allow_network"))
    judge = models.judge() if opts.get("statements") or opts.get("llm_titles") else None
    extractor = stmt = None
    if opts.get("llm_titles"):
        extractor = LLMTitleExtractor(judge, allow_network=allow_network)
    if opts.get("statements"):
        stmt = statement_judge(bench, judge, corpus, allow_network, models.judges(),
                               int(getattr(models, "judge_samples", 1) or 1))
    summary = score_reportbench_files(Path(opts["gt_dir"]), Path(opts["pred"]),
                                      Path(opts["out"]), corpus=corpus,
                                      title_extractor=extractor, match=opts.get("match") or
                                      "exact", unresolved=opts.get("unresolved") or "exclude",
                                      statement_judge=stmt, limits=OutputLimits.of(bench.options))
    print(format_summary(summary))
    print(f"scores: {opts['out']}")
    return 0
