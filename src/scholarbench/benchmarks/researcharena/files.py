"""`score researcharena --qrels Q --run R --out S.jsonl [--measures "…"]`: score a TREC run
file against qrels.

S.jsonl gets one line per qrels query x measure, qids ascending, measures in the order asked:

    {"query_id": "56895323", "measure": "nDCG@10", "value": 0.2774494563212452}

Keys are ir_measures' printed names. `--measures` takes any names ir_measures parses and its
pytrec_eval provider computes, written as ir_measures prints them ("P@20 R@1000 nDCG@20 …",
spaces or commas between them); the default is the paper's set, R@10 R@100 P@10 P@100 nDCG@10
nDCG@30 nDCG@100 RR AP. A bad name is one error line (exit status 2) before any file is read.
The summary returned holds the means over the qrels queries (trec_eval ``-c``) with their 95%
intervals and the counts that explain them; the rules are in `measures.ranking` and
`scholarbench.data.trec`. The means come from the run path's one aggregation
(`core.summarise.summarise`, one score row per query, `summarise_queries`), so a run's
summary.json and its run.trec + qrels.trec scored here agree. The
output file is replaced atomically, never appended to: scoring is deterministic and cheap, so a
rerun rewrites it whole.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

from scholarbench.benchmarks.researcharena.measures.ranking import (DEFAULT_MEASURES, ScoreRow,
                                                                    coverage, evaluate,
                                                                    parse_measures,
                                                                    provider_versions)
from scholarbench.core.measure import CI_METHOD
from scholarbench.data.trec import OnDuplicate, read_qrels, read_run, write_lines_atomic
from scholarbench.errors import DataError, ScholarbenchError
from scholarbench.benchmarks.researcharena.benchmark import ResearchArena, split_measures
from scholarbench.core.summarise import summarise


FILES_MODE = "files"      # the summary's `task` for scored files (no sub-task)


def summarise_queries(rows: Sequence[ScoreRow], names: Sequence[str], tag: str
                      ) -> dict[str, Any]:
    """The summary (`core.summarise.summarise`) of per-query rows: one score row per qrels
    query, the measures `names` (the in-memory manifest names them), no data read."""
    by_query: dict[str, dict[str, Any]] = {}
    for row in rows:
        by_query.setdefault(row.query_id, {"id": row.query_id, "status": "scored"})[
            row.measure] = row.value
    options = {"measures": " ".join(names)}
    manifest = {"benchmark": "researcharena", "mode": FILES_MODE, "agent": tag,
                "options": options, "measures": list(names)}
    return summarise(ResearchArena(options), list(by_query.values()), manifest, warn=False)


def score_researcharena_files(qrels_path: str | Path, run_path: str | Path,
                              out_path: str | Path,
                              measures: Sequence[str] = DEFAULT_MEASURES,
                              on_duplicate: OnDuplicate = "keep_first") -> dict[str, Any]:
    """Score ``run_path`` against ``qrels_path``, write per-query rows to ``out_path``.

    Returns ``{"means": {measure: mean}, "queries_scored", "queries_missing_from_run",
    "run_queries_not_in_qrels", "queries_without_relevant", "duplicate_run_lines_dropped",
    ...}``; the ``*_ids`` / ``*_lines`` keys list what each count counts.
    """
    names = parse_measures(measures)  # fail on a bad measure name before reading anything
    qrels = read_qrels(qrels_path)
    run = read_run(run_path, on_duplicate=on_duplicate)
    if not run:
        raise DataError("no run lines in the file (it is empty)", file=str(run_path))
    rows = evaluate(qrels, run, names)
    cover = coverage(qrels, run)
    metrics = summarise_queries(rows, names, ",".join(run.tags) or "run")["metrics"]
    out_path = Path(out_path)
    write_lines_atomic(out_path, (json.dumps({"query_id": r.query_id, "measure": r.measure,
                                         "value": r.value}) for r in rows))
    return {
        "benchmark": "researcharena",
        "qrels": str(qrels_path),
        "run": str(run_path),
        "out": str(out_path),
        "run_tags": list(run.tags),
        "measures": names,
        "means": {name: metrics[name]["mean"] for name in names},
        "ci95": {name: metrics[name]["ci95"] for name in names},
        "ci_method": CI_METHOD,
        "queries_scored": cover.queries_scored,
        "queries_missing_from_run": len(cover.missing_from_run),
        "run_queries_not_in_qrels": len(cover.not_in_qrels),
        "queries_without_relevant": len(cover.without_relevant),
        "duplicate_run_lines_dropped": run.duplicates_dropped,
        "missing_from_run_ids": list(cover.missing_from_run),
        "not_in_qrels_ids": list(cover.not_in_qrels),
        "without_relevant_ids": list(cover.without_relevant),
        "duplicate_run_lines": list(run.duplicate_lines),
        "scoring": provider_versions(),
    }


def format_summary(summary: dict[str, Any]) -> str:
    """Terminal text for the CLI: means (4 decimals, as trec_eval prints) and the counts."""
    lines = [f"researcharena: {summary['queries_scored']} queries scored, "
             f"{summary['queries_missing_from_run']} missing from the run (scored 0), "
             f"{summary['run_queries_not_in_qrels']} run queries not in qrels (ignored), "
             f"{summary['duplicate_run_lines_dropped']} duplicate run lines dropped"]
    if summary.get("queries_without_relevant"):
        lines.append(f"  note: {summary['queries_without_relevant']} qrels queries have no "
                     "relevant document (they score 0 and count in the means)")
    for name, mean in summary["means"].items():
        ci = (summary.get("ci95") or {}).get(name)
        lines.append(f"  {name:<10} {mean:.4f}" + (f"  [{ci[0]:.4f}, {ci[1]:.4f}]" if ci else ""))
    return "\n".join(lines)


def score_files_command(options: dict[str, Any]) -> int:
    """`scholarbench score researcharena …` (the options of `ResearchArena.add_options`)."""
    if not (options.get("qrels") and options.get("run_file") and options.get("out")):
        raise ScholarbenchError("score researcharena needs --qrels Q.trec --run R.trec "
                                "--out S.jsonl")
    names = split_measures(options.get("measures")) or list(DEFAULT_MEASURES)
    try:
        parse_measures(names)
    except ValueError as exc:
        raise ScholarbenchError(f"--measures: {exc}") from None
    summary = score_researcharena_files(Path(options["qrels"]), Path(options["run_file"]),
                                        Path(options["out"]), measures=names,
                                        on_duplicate=options.get("on_duplicate") or "keep_first")
    print(format_summary(summary))
    print(f"scores: {options['out']}")
    return 0


__all__ = ["FILES_MODE", "score_researcharena_files", "format_summary", "score_files_command",
           "summarise_queries"]
