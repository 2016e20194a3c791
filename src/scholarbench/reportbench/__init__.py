"""ReportBench (Li et al. 2025): tasks, ground truth, report references and their metrics.

The non-LLM half (docs/reportbench.md):
- `tasks`: the 100 tasks with their evaluation prompts and cut-off dates;
- `ground_truth`: the shipped GT reference lists;
- `survey_gt` (+ `latex_cites`, `pandoc_cites`, `bibliography`): a survey's GT from its own
  LaTeX or Pandoc Markdown source;
- `report_refs` + `resolve` + `extract`: the references a Markdown report cites, resolved to
  corpus papers offline, with a hook (`TitleExtractor`) for an LLM where nothing resolves;
- `metrics`: `ref_precision`, `ref_recall`, `ref_count`;
- `score_files`: `score_reportbench_files` and `format_summary` for the CLI;
- `fetch`: opt-in URL fetching that refuses non-public addresses.

The LLM half (docs/reportbench.md §9–§13; every model call through `scholarbench.llm`):
- `construct`: prompts at the three granularities from a survey, compared with the shipped ones;
- `llm_titles`: `LLMTitleExtractor`, the title extractor for the hook above;
- `statements` (+ `sources`): `cited_match_rate`, `noncited_accuracy` and their counts;
- `replay`: a file of {"arxiv_id", "report"} lines as a writer (`run reportbench --agent replay`);
- `llm_common`: versioned prompt files, quoting untrusted text, report chunks.
The run itself is `scholarbench.runner.reportbench.run_reportbench`.
"""
from scholarbench.reportbench.construct import (GRANULARITIES, ConstructedPrompt, SurveySource,
                                                compare_prompts, construct_prompt,
                                                survey_source)
from scholarbench.reportbench.extract import (ExtractedReferences, extract_references,
                                              references_from_items)
from scholarbench.reportbench.fetch import FetchError, FetchRefused, FetchResult, fetch_url
from scholarbench.reportbench.ground_truth import GTReference, load_ground_truth, read_gt_file
from scholarbench.reportbench.llm_titles import LLMTitleExtractor
from scholarbench.reportbench.metrics import RefScores, reference_scores
from scholarbench.reportbench.report_refs import Reference, parse_report
from scholarbench.reportbench.resolve import ExtractedTitle, TitleExtractor, resolve_references
from scholarbench.reportbench.score_files import format_summary, score_reportbench_files
from scholarbench.reportbench.sources import (CorpusEvidence, Evidence, EvidenceTool, NoEvidence,
                                              SourceLookup)
from scholarbench.reportbench.statements import (StatementConfig, StatementJudge,
                                                 StatementResult)
from scholarbench.reportbench.survey_gt import SurveyGT, from_latex, from_markdown, write_gt_jsonl
from scholarbench.reportbench.tasks import Task, build_eval_prompt, load_tasks, parse_cutoff

__all__ = [
    "GRANULARITIES", "ConstructedPrompt", "CorpusEvidence", "Evidence", "EvidenceTool",
    "LLMTitleExtractor", "NoEvidence", "SourceLookup", "StatementConfig", "StatementJudge",
    "StatementResult", "SurveySource", "compare_prompts", "construct_prompt", "survey_source",
    "ExtractedReferences", "ExtractedTitle", "FetchError", "FetchRefused", "FetchResult",
    "GTReference", "RefScores", "Reference", "SurveyGT", "Task", "TitleExtractor",
    "build_eval_prompt", "extract_references", "fetch_url", "format_summary", "from_latex",
    "from_markdown", "load_ground_truth", "load_tasks", "parse_cutoff", "parse_report",
    "read_gt_file", "reference_scores", "references_from_items", "resolve_references",
    "score_reportbench_files", "write_gt_jsonl",
]
