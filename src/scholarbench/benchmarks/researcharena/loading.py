"""Where a ResearchArena run's tasks come from: the corpus, TaxoBench instances or an upstream
`survey.jsonl` (`--tasks-from`), with the options `run researcharena` takes.

    --corpus DIR          the offline corpus (default: the data dir's default corpus, built on
                          demand — needed for corpus / TaxoBench tasks and for every agent but
                          `replay`, which may score an upstream survey.jsonl against its own ids)
    --tasks-from SRC      corpus (default) | taxobench | a survey.jsonl path | the name of a
                          survey file imported with `data import researcharena` (`survey`)
    --task-set NAME       corpus tasks: reference-lists (default) | all (`tasks.TASK_SETS`)
    --qrels VARIANT       searchable (default: only references an agent may find) | all
    --taxobench FILE      TaxoBench instances: mind-maps for organisation, and the tasks of
                          `--tasks-from taxobench` (default: the one imported file, if any)

Every problem here (a missing file, an unknown task set) is a `ScholarbenchError` raised before
the engine creates the run directory.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scholarbench.benchmarks.researcharena.records import ArenaTask, tasks_sha256
from scholarbench.errors import ScholarbenchError
from scholarbench.files import sha256_file
from scholarbench.data.sources.taxobench import taxobench_files
from scholarbench.data.task_files import imported_file
from scholarbench.data.taxobench import load_instances
from scholarbench.paths import data_dir

QRELS_VARIANTS = ("searchable", "all")
TASK_SOURCES = ("corpus", "taxobench")


@dataclass
class Inputs:
    corpus_dir: Path | None
    taxobench_file: Path | None


def taxobench_instances_file(data: Path, explicit: str | None, required: bool) -> Path | None:
    """--taxobench, else the one TaxoBench instance file in the data dir (toy fixtures and
    prediction files left out); None when there is none and it is not required."""
    if explicit:
        return Path(explicit)
    folder = data / "taxobench"
    files = taxobench_files(folder) if folder.is_dir() else []
    if len(files) == 1:
        return files[0]
    if required or len(files) > 1:
        raise ScholarbenchError(f"{'several' if files else 'no'} TaxoBench instance files in "
                                f"{folder}; pass one with --taxobench FILE")
    return None


def check_options(options: dict[str, Any]) -> None:
    # deferred: pulls in duckdb, pyarrow
    from scholarbench.benchmarks.researcharena.tasks import TASK_SETS
    if options.get("qrels", "searchable") not in QRELS_VARIANTS:
        raise ScholarbenchError(f"unknown qrels variant {options.get('qrels')!r}; use "
                                f"{' or '.join(QRELS_VARIANTS)}")
    if options.get("task_set", "reference-lists") not in TASK_SETS:
        raise ScholarbenchError(f"unknown task set {options.get('task_set')!r}; use one of "
                                f"{', '.join(TASK_SETS)}")


def resolve_inputs(options: dict[str, Any], subtask: str, *, needs_corpus: bool,
                   discover: bool) -> Inputs:
    """The corpus directory and TaxoBench file a run uses. `discover`: look in the data dir
    (the command line); otherwise only what the options name (the Python API)."""
    tasks_from = options.get("tasks_from") or "corpus"
    explicit_tb = options.get("taxobench")
    corpus = Path(options["corpus"]) if options.get("corpus") else None
    needs_corpus = needs_corpus or tasks_from in TASK_SOURCES
    if not discover:
        if corpus is None and needs_corpus:
            raise ScholarbenchError("this run needs a corpus directory (--corpus)")
        return Inputs(corpus, Path(explicit_tb) if explicit_tb else None)
    data = data_dir(options.get("data"))
    if corpus is None and needs_corpus:
        # deferred: pulls in pyarrow
        from scholarbench.corpus.build import default_corpus
        corpus = default_corpus(data)
    taxobench = None
    if subtask == "organisation" or tasks_from == "taxobench" or explicit_tb:
        taxobench = taxobench_instances_file(data, explicit_tb,
                                             required=tasks_from == "taxobench")
    return Inputs(corpus, taxobench)


def open_corpus(corpus_dir: Path | None):
    if corpus_dir is None:
        return None
    # deferred: pulls in duckdb, pyarrow
    from scholarbench.corpus.store import Corpus
    try:
        return Corpus.open(corpus_dir)
    except FileNotFoundError as exc:
        raise ScholarbenchError(f"--corpus {corpus_dir}: {exc}") from None


def load_task_set(options: dict[str, Any], inputs: Inputs, corpus: Any
                  ) -> tuple[list[ArenaTask], dict[str, Any]]:
    """The configured task set (sorted by id) and its description for the manifest's `data`
    (what must agree for a run directory to resume)."""
    # deferred: pulls in duckdb, pyarrow
    from scholarbench.benchmarks.researcharena.tasks import (GRADING_NOTE, TASK_SETS,
                                                             attach_taxobench_mindmaps,
                                                             build_tasks, load_survey_jsonl,
                                                             reference_lists_from_sources,
                                                             tasks_from_taxobench)
    tasks_from = options.get("tasks_from") or "corpus"
    task_set = options.get("task_set") or "reference-lists"
    info: dict[str, Any] = {"tasks_from": tasks_from}
    instances = None
    if inputs.taxobench_file is not None:
        if not inputs.taxobench_file.is_file():
            raise ScholarbenchError(f"--taxobench {inputs.taxobench_file}: not a file")
        instances = load_instances(inputs.taxobench_file)
        info["taxobench"] = {"path": str(inputs.taxobench_file.resolve()),
                             "sha256": sha256_file(inputs.taxobench_file)}
    if tasks_from == "corpus":
        records, used = reference_lists_from_sources(corpus)
        tasks = build_tasks(corpus, TASK_SETS[task_set], reference_lists=records)
        info.update(task_set=task_set, reference_lists=used, grading=GRADING_NOTE)
    elif tasks_from == "taxobench":
        if instances is None:
            raise ScholarbenchError("--tasks-from taxobench needs TaxoBench instances "
                                    "(--taxobench FILE, or import them: scholarbench data "
                                    "import taxobench)")
        tasks = tasks_from_taxobench(instances, corpus)
        info["grading"] = "binary: TaxoBench has no influence labels"
    else:
        path = Path(tasks_from)
        if not path.is_file():     # a survey file imported with `data import researcharena`
            path = imported_file(data_dir(options.get("data")), "researcharena",
                                 tasks_from) or path
        if not path.is_file():
            raise ScholarbenchError(f"--tasks-from: {path} is not 'corpus', 'taxobench', a "
                                    "file or the name of an imported survey file (scholarbench "
                                    "data import researcharena PATH)")
        tasks = load_survey_jsonl(path, corpus)
        info.update(path=str(path.resolve()), sha256=sha256_file(path),
                    grading="influential = 2, relevant = 1 (upstream labels)")
    if instances is not None and tasks_from != "taxobench":
        info["taxobench_mindmaps_attached"] = attach_taxobench_mindmaps(tasks, instances)
    info["sha256"] = tasks_sha256(tasks)
    info["n_tasks"] = len(tasks)
    info["qrels"] = options.get("qrels") or "searchable"
    info["corpus_sha256"] = corpus.papers_sha256 if corpus is not None else None
    return tasks, info


__all__ = ["QRELS_VARIANTS", "Inputs", "taxobench_instances_file",
           "check_options", "resolve_inputs", "open_corpus", "load_task_set"]
