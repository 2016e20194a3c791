"""TaxoBench (Deep Research and Bottom-Up modes): everything of its own lives here.

    benchmark   the `Benchmark` definition (options, samples, task prompts, answers → predictions)
    scoring     per-sample scores, the judge's columns, means, `score taxobench` on files
    predictions a run's answers as predictions (what the judge is sent)
    measures    every TaxoBench measure for one instance, and their catalogue
    judge       the 4-dimension LLM judge's text (upstream's prompt, in prompts/), its reply
    judged      the judged item the engine's judge stage asks (`core.judge_stage`)
    panel       one sample's judge columns from the engine's verdicts (a panel, repeats)
    judge_records  the judge's records as the report's drill-down shows them
    judge_probe its side of `judge-check`
    agents/     built-in agents (bm25-title, llm-taxonomy, deep-research, replay; cluster is shared)
    exports     its retrieved-paper export (`export trec`, `export bibtex`)
    runner      the programmatic API (`RunConfig`, `run`, `score_run`, `score_files`)
    report      its report section; published   the paper's published rows
"""
from scholarbench.registry import REGISTRY
from scholarbench.lazy import lazy_getattr

# the class (and the modules it imports) only when a command needs this benchmark
REGISTRY.lazy("benchmark", "taxobench",
              "scholarbench.benchmarks.taxobench.benchmark:TaxoBench")

REGISTRY.lazy("export", "taxobench", "scholarbench.benchmarks.taxobench.exports:EXPORT")

__getattr__ = lazy_getattr(__name__, {"TaxoBench": "benchmark"})
__all__ = ["TaxoBench"]
