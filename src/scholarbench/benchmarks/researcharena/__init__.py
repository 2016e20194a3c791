"""ResearchArena (Kang & Xiong): information discovery, selection and organisation over the
offline corpus — everything of the benchmark in one package.

    benchmark.py     the `Benchmark` on the engine: sub-tasks, options, samples, agents, scores
    loading.py       where tasks come from (corpus, TaxoBench, upstream survey.jsonl), options
    tasks.py         tasks rebuilt from the corpus: surveys, the leakage rule, reference counts
    records.py       `ArenaTask` records, tasks.jsonl, the upstream survey.jsonl reader
    prompting.py     what an agent sees: `Task.prompt` and `Task.fields`
    refs.py          agents' references (ids, DOIs, arXiv ids, titles) → corpus papers, counted
    answers.py       an answer → its generate.jsonl line (built-in output or family schema)
    scoring.py       score rows, qrels.trec / run.trec, the summary, the terminal lines
    files.py         `score researcharena --qrels Q --run R --out S` (TREC files)
    runs.py          the Python API: `run(ArenaRunConfig(...))`, `score_run(dir)`
    measures/        ranking (trec_eval via ir_measures) and organisation measures
    agents/          the built-in agents (registered as `researcharena/<name>`) and their
                     adapter to the core agent contract
    prompts/         task prompts and the LLM agents' prompts
    report.py        the report section; published.py: the paper's published rows

Only `benchmark.py` is imported with the package (building the command line stays fast).
"""
from scholarbench.core.registry import REGISTRY
from scholarbench.lazy import lazy_getattr

# the class (and the modules it imports) only when a command needs this benchmark
REGISTRY.lazy("benchmark", "researcharena",
              "scholarbench.benchmarks.researcharena.benchmark:ResearchArena")

REGISTRY.lazy("dataset", "researcharena",       # `data import researcharena` (build output)
              "scholarbench.benchmarks.researcharena.data:import_surveys")

__getattr__ = lazy_getattr(__name__, {"ResearchArena": "benchmark"})
__all__ = ["ResearchArena"]
