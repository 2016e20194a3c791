"""ReportBench (Li et al. 2025, arXiv:2508.15804): everything of the benchmark, in one package.

Importing this package registers the benchmark (`benchmark.ReportBench`) and its report section
(`section.ReportBenchSection`, imported on first use); nothing heavy is imported here, so the
command line stays fast. The public API below is re-exported lazily (`from
scholarbench.benchmarks.reportbench import load_tasks` imports `tasks` only then).

Modules (docs/reportbench.md):
- the benchmark on the engine: `benchmark` (sub-tasks, options, load, score, aggregate),
  `samples` (the tasks as engine samples, the writers' requests), `agents` (the writers'
  adapter and the replay agent), `answers` (an answer → its generate.jsonl line; `cited` REFs),
  `refscore` (a record's references and their scores; the hidden survey), `construct_stage`
  (constructed prompts before generate), `scoring` (per-sample rows, recorded judge outputs),
  `summary` (aggregate and the terminal text), `section` + `published` (the report);
- the non-LLM half: `tasks`, `ground_truth`, `survey_gt` (+ `latex_text`, `latex_cites`,
  `pandoc_cites`, `bibliography`; a report's references: `scholarbench.references`),
  `metrics`, `score_files` (`scholarbench score reportbench`), `fetch`;
- the LLM half: `llm_common`, `construct`, `llm_titles`, `sources`, `statements` (+
  `statement_rows`), `replay` (the `{"arxiv_id", "report"}` file format).
"""
from __future__ import annotations

from typing import Any

from scholarbench.core.registry import REGISTRY
from scholarbench.lazy import lazy_getattr

# the class (and the modules it imports) only when a command needs this benchmark
REGISTRY.lazy("benchmark", "reportbench",
              "scholarbench.benchmarks.reportbench.benchmark:ReportBench")

# the report section is imported when a report needs it (the report stack is heavy)
REGISTRY.lazy("section", "reportbench",
              "scholarbench.benchmarks.reportbench.section:ReportBenchSection")
REGISTRY.lazy("dataset", "reportbench",     # `data import reportbench`
              "scholarbench.benchmarks.reportbench.ground_truth:import_dataset")

_EXPORTS = {
    "construct": ("GRANULARITIES", "ConstructedPrompt", "SurveySource", "compare_prompts",
                  "construct_prompt", "survey_source"),
    "scholarbench.references.extract": ("ExtractedReferences", "extract_references", "references_from_items"),
    "fetch": ("FetchError", "FetchRefused", "FetchResult", "fetch_url"),
    "ground_truth": ("GTReference", "load_ground_truth", "read_gt_file"),
    "llm_titles": ("LLMTitleExtractor",),
    "metrics": ("RefScores", "reference_scores"),
    "scholarbench.references.report_refs": ("Reference", "parse_report"),
    "scholarbench.references.resolve": ("ExtractedTitle", "TitleExtractor", "resolve_references"),
    "score_files": ("format_summary", "score_reportbench_files"),
    "sources": ("CorpusEvidence", "Evidence", "EvidenceTool", "NoEvidence", "SourceLookup"),
    "statements": ("StatementConfig", "StatementJudge", "StatementResult"),
    "survey_gt": ("SurveyGT", "from_latex", "from_markdown", "write_gt_jsonl"),
    "tasks": ("Task", "build_eval_prompt", "load_tasks", "parse_cutoff"),
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}
_WHERE["ReportBench"] = "benchmark"

__all__ = ["ReportBench", *sorted(_WHERE)]


__getattr__ = lazy_getattr(__name__, _WHERE)
