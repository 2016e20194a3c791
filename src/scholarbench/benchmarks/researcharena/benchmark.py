"""ResearchArena on the engine: sub-tasks, options, samples, agents, answers, scores.

    run researcharena --task discovery|selection|organisation --agent A [options]
    score researcharena --qrels Q.trec --run R.trec --out S.jsonl [--measures "…"]
    score RUN_DIR

Sub-tasks: discovery and selection answer in the `ranking` family, organisation in the
`taxonomy` family (`core.families`). This module imports only what building the command line
needs; everything else is imported inside the methods.

Run directory (besides the engine's manifest.json, generate.jsonl, scores.jsonl,
summary.json): tasks.jsonl (the full task set scored against; `--limit` selects its first n),
and for discovery / selection qrels.trec and run.trec (rewritten when scored).

Only a command that names this benchmark imports this file (its package registers the class
lazily): its imports are at the top, but for those that pull in a heavy library (each says
which), so `run <name> --help` stays light (docs/layers.md, "Imports inside functions").
"""
from __future__ import annotations

from dataclasses import replace

import argparse
from typing import Any, Sequence

from scholarbench.benchmarks.researcharena.measures.declared import (
    DISCOVERY_KEYS as DISCOVERY, ORGANISATION_KEYS as ORGANISATION, SELECTION_KEYS as SELECTION,
    measures_of)
from scholarbench.core.agent import AgentContext, Task
from scholarbench.core.benchmark import Benchmark, Loaded, Sample, ScoreContext
from scholarbench.core.eval_defaults import EvalDefaults
from scholarbench.core.refs import task_refs
from scholarbench.core.registry import REGISTRY, register_benchmark
from scholarbench.data.store import latest_import
from scholarbench.errors import ScholarbenchError
from scholarbench.paths import data_dir
from scholarbench.benchmarks.researcharena import loading, mindmaps, scoring
from scholarbench.benchmarks.researcharena.agents.adapter import ArenaAgentAdapter
from scholarbench.benchmarks.researcharena.agents.base import (ArenaContext, ArenaQuery, PREFIX,
                                                               access_rules, make_arena_agent)
from scholarbench.benchmarks.researcharena.answers import record_answer
from scholarbench.benchmarks.researcharena.loading import taxobench_instances_file
from scholarbench.benchmarks.researcharena.measures import organisation
from scholarbench.benchmarks.researcharena.measures.ranking import parse_measures, provider_versions
from scholarbench.benchmarks.researcharena.mindmaps import organisation_row
from scholarbench.benchmarks.researcharena.prompting import (prompt_identities, task_fields,
                                                             task_prompt)
from scholarbench.benchmarks.researcharena.records import (EMPTY_GOLD, NO_MINDMAP, read_tasks,
                                                           write_tasks)
from scholarbench.benchmarks.researcharena.refs import RefResolver
from scholarbench.benchmarks.researcharena.scoring import (TASKS_FILE, format_summary,
                                                           measure_names, summary_fields)
from scholarbench.benchmarks.researcharena.tasks import SearchSpace, TASK_SETS, survey_ids
from scholarbench.embed import default_embedder
from scholarbench.leakage.corpus import recorded_corpus
from scholarbench.corpus.build import corpus_info, has_corpus
from scholarbench.tools.source import ToolSource, ids_hint

# Objects the Python API may hand a benchmark through its options (never recorded).
OBJECT_OPTIONS = ("embedder", "extractor", "progress")


def split_measures(text: str | Sequence[str] | None) -> list[str]:
    """`--measures "P@20 R@1000, nDCG@20"` → names (spaces or commas between them)."""
    if text is None:
        return []
    parts = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return [p for p in parts if p]


@register_benchmark("researcharena")
class ResearchArena(Benchmark):
    name = "researcharena"
    title = "ResearchArena"
    subtasks = {"discovery": "ranking", "selection": "ranking", "organisation": "taxonomy"}
    subtask_flag = "--task"
    headline = {"discovery": DISCOVERY, "selection": SELECTION, "organisation": ORGANISATION}
    order = 20

    def __init__(self, options: dict[str, Any] | None = None) -> None:
        options = dict(options or {})
        objects = {k: options.pop(k) for k in OBJECT_OPTIONS if k in options}
        super().__init__(options)
        self.embedder: Any = objects.get("embedder")   # an Embedder, or a factory of one
        self.extractor: Any = objects.get("extractor")
        self.discover_data = True      # the command line looks in the data dir for inputs
        self._corpus_optional = False  # set when the agent is `replay`
        self._corpus: Any = None
        self._corpus_dir: Any = None
        self._tasks: list[Any] = []
        self._resolver: Any = None

    # -- command line ------------------------------------------------------------------------
    @classmethod
    def add_options(cls, parser: argparse.ArgumentParser, command: str) -> None:
        if command == "score":
            parser.add_argument("--qrels", help="TREC qrels (query 0 docid grade)")
            parser.add_argument("--run", dest="run_file", help="TREC run (query Q0 docid rank "
                                "score tag)")
            parser.add_argument("--out", help="per-query scores: one JSON line per query x "
                                "measure")
            parser.add_argument("--on-duplicate", choices=["keep_first", "error"],
                                default="keep_first", help="a docid twice for one query "
                                "(trec_eval refuses: error)")
            parser.add_argument("--measures", help="ir_measures names, e.g. \"P@20 R@1000 "
                                "nDCG@20\" (default: the paper's: R@10 R@100 P@10 P@100 "
                                "nDCG@10 nDCG@30 nDCG@100 RR AP)")
            return
        parser.add_argument("--corpus", help="corpus directory (default: the data dir's "
                            "default corpus, built on demand)")
        parser.add_argument("--tasks-from", default="corpus", metavar="corpus|taxobench|FILE",
                            help="tasks from the corpus's surveys (default), from TaxoBench "
                            "instances (organisation), or an upstream survey.jsonl")
        parser.add_argument("--task-set", default="reference-lists",
                            choices=["reference-lists", "all"],
                            help="corpus tasks: surveys with a full reference list (default) "
                            "or every survey with citation edges")
        parser.add_argument("--qrels", default="searchable", choices=["searchable", "all"],
                            help="judge only references an agent may find (default) or every "
                            "reference (upstream's qrels)")
        parser.add_argument("--taxobench", help="TaxoBench instances for mind-maps (default: "
                            "the one imported file, if any)")
        parser.add_argument("--measures", help="ir_measures names scored besides the paper's "
                            "nine, e.g. \"P@20 R@1000\" (discovery, selection)")

    def eval_defaults(self) -> EvalDefaults:
        """Every sub-task, unless the tasks come from the data dir's corpus and it has none
        nor a source to build it from (an empty data dir); the task source per sub-task
        (`_eval_options`) and how organisation gets mind-maps (`_unscorable_hint`)."""
        if (not self.discover_data or self.options.get("corpus")
                or (self.options.get("tasks_from") or "corpus") != "corpus"
                or has_corpus(data_dir(self.options.get("data")))):
            subtasks = tuple(self.subtasks)
        else:
            subtasks = ()
        return EvalDefaults(subtasks, options=self._eval_options, hint=self._unscorable_hint)

    def _eval_options(self, subtask: str, given: dict[str, Any]) -> dict[str, Any]:
        """Organisation is scored against TaxoBench mind-maps, which surveys rebuilt from the
        corpus do not have: `eval` takes its tasks from the TaxoBench instances when they are
        imported and the user chose no task source; the other sub-tasks (and organisation
        without TaxoBench instances) run the survey file imported last (`data import
        researcharena`) rather than surveys rebuilt from the corpus."""
        if "tasks_from" in given or (self.options.get("tasks_from") or "corpus") != "corpus":
            return {}
        data = data_dir(self.options.get("data"))
        imported = latest_import(data, "researcharena")
        surveys = {"tasks_from": imported} if imported else {}
        if subtask != "organisation" or "taxobench" in given:
            return surveys
        try:
            found = taxobench_instances_file(data, None, False)
        except Exception:           # several files, unreadable folder: leave the default
            return surveys
        return {"tasks_from": "taxobench"} if found is not None else surveys

    def _unscorable_hint(self, subtask: str) -> str:
        if subtask == "organisation":
            return ("organisation needs mind-map ground truth: import TaxoBench instances "
                    "(`scholarbench data import taxobench FILE`; eval then takes organisation "
                    "tasks from them) or pass --option researcharena.tasks_from=taxobench")
        return "no task has searchable gold references (see --qrels all)"

    # -- samples -----------------------------------------------------------------------------
    def _measures(self) -> list[str]:
        try:
            return parse_measures(measure_names(split_measures(self.options.get("measures"))))
        except ValueError as exc:
            raise ScholarbenchError(f"--measures: {exc}") from None

    def load(self, subtask: str, limit: int | None) -> Loaded:
        if self.options.get("with_judge"):
            raise ScholarbenchError("--with-judge: ResearchArena has no LLM judge")
        loading.check_options(self.options)
        self._measures()
        inputs = loading.resolve_inputs(self.options, subtask,
                                        needs_corpus=not self._corpus_optional,
                                        discover=self.discover_data)
        self._corpus_dir = inputs.corpus_dir
        self._corpus = loading.open_corpus(inputs.corpus_dir)
        self._tasks, data = loading.load_task_set(self.options, inputs, self._corpus)
        self._resolver = RefResolver(self._corpus)
        selected = self._tasks[:limit] if limit is not None else self._tasks
        return Loaded(self._samples(selected, subtask, data["qrels"], self._corpus), data)

    def _samples(self, tasks: Sequence[Any], subtask: str, variant: str, corpus: Any
                 ) -> list[Sample]:
        titles: dict[str, str] = {}
        if corpus is not None:
            wanted = {t.survey_id for t in tasks if t.survey_id in corpus}
            if subtask == "organisation":
                wanted |= {pid for t in tasks for pid in t.references if pid in corpus}
            titles = {r["paper_id"]: r["title"] for r in corpus.get_rows(sorted(wanted))}
        out = []
        for task in tasks:
            fields = task_fields(task, subtask, titles.get(task.survey_id or ""), titles)
            if subtask == "organisation":
                unscorable = NO_MINDMAP if task.mindmap is None else None
            else:
                unscorable = EMPTY_GOLD if not task.qrels(variant) else None
            out.append(Sample(task.id, Task(id=task.id, benchmark=self.name, subtask=subtask,
                                            family=self.subtasks[subtask],
                                            prompt=task_prompt(subtask, fields), fields=fields,
                                            native=ArenaQuery.of(task, subtask)),
                              gold=task, unscorable=unscorable))
        return out

    def load_for_rescore(self, run: Any, manifest: dict[str, Any]) -> Loaded:
        if self.options.get("with_judge"):
            raise ScholarbenchError(f"{run.path}: --with-judge is for TaxoBench runs "
                                    "(ResearchArena has no LLM judge)")
        if manifest.get("benchmark") != self.name:
            raise ScholarbenchError(f"{run.path} is not a ResearchArena run")
        self._measures()
        tasks = read_tasks(run.file(TASKS_FILE))
        limit = manifest.get("limit")
        selected = tasks[:limit] if limit is not None else tasks
        variant = (manifest.get("data") or {}).get("qrels", "searchable")
        self._corpus = self._rescore_corpus(manifest)
        return Loaded(self._bare_samples(selected, manifest["mode"], variant))

    @staticmethod
    def _rescore_corpus(manifest: dict[str, Any]) -> Any:
        """The run's corpus, for the leakage audit of a re-scored ranking only (docs/leakage.md):
        opened when its directory is still where the manifest says, with the checksum the run
        recorded; else None (scoring needs no corpus, and the audit reads the ids as written)."""
        if manifest.get("mode") == "organisation":
            return None
        return recorded_corpus(manifest, loading.open_corpus)

    def _bare_samples(self, tasks: Sequence[Any], subtask: str, variant: str) -> list[Sample]:
        """Samples for scoring only (no prompts: the agent does not run)."""
        out = []
        for task in tasks:
            unscorable = (NO_MINDMAP if task.mindmap is None else None) \
                if subtask == "organisation" else (EMPTY_GOLD if not task.qrels(variant) else None)
            out.append(Sample(task.id, Task(id=task.id, benchmark=self.name, subtask=subtask,
                                            family=self.subtasks[subtask], prompt=""),
                              gold=task, unscorable=unscorable))
        return out

    def prepare_run(self, run: Any, loaded: Loaded, manifest: dict[str, Any], *,
                    progress: bool = True) -> None:
        write_tasks(run.file(TASKS_FILE), self._tasks)
        manifest["corpus"] = corpus_info(self._corpus_dir)
        manifest["scoring"] = provider_versions()
        manifest["task_prompts"] = prompt_identities()
        if manifest.get("mode") == "organisation" or self._embedder_needed:
            manifest["embedder"] = getattr(self.get_embedder(), "model_id", None)
        run.write_manifest(manifest)

    # -- agents ------------------------------------------------------------------------------
    _embedder_needed = False

    def agent(self, name: str, params: dict[str, Any], subtask: str) -> Any:
        """A built-in agent (``researcharena/<name>``) behind the core contract."""
        short = name.removeprefix(PREFIX)
        self._corpus_optional = False
        if REGISTRY.find("agent", PREFIX + short) is None:
            return None
        params = dict(params)
        on_failure = params.pop("on_model_failure", "error")
        if short == "replay":       # reads this run's lines of the file (core.replay)
            params.update(benchmark=self.name, subtask=subtask)
        try:
            inner = make_arena_agent(short, **params)
        except (TypeError, ValueError) as exc:
            raise ScholarbenchError(f"agent {short!r}: {exc}") from None
        if subtask not in getattr(inner, "tasks", ()):
            raise ScholarbenchError(f"agent {short!r} does not do {subtask} (it does: "
                                    f"{', '.join(inner.tasks)})")
        if short == "replay" and subtask == "organisation" and not inner.jsonl:
            raise ScholarbenchError(f"replay: {inner.path} is a TREC run; organisation "
                                    "replays JSON lines (typology, mindmap or taxonomy)")
        self._corpus_optional = short == "replay"
        return ArenaAgentAdapter(inner, short, on_failure)

    def get_embedder(self) -> Any:
        if self.embedder is None:
            self.embedder = default_embedder()
        elif not hasattr(self.embedder, "embed"):     # a factory, called only when needed
            self.embedder = self.embedder()
        return self.embedder

    def context(self, agent: Any, subtask: str, roles: Any) -> Any:
        llm = None
        if agent.needs.llm:
            try:
                llm = roles.agent()
            except ScholarbenchError as exc:
                raise ScholarbenchError(f"agent {agent.name!r} uses a chat model but the run "
                                        f"was given none ({exc})") from None
        self._embedder_needed = bool(agent.needs.embedder)
        embedder = self.get_embedder() if agent.needs.embedder else None
        arena = ArenaContext(task=subtask, corpus=self._corpus, embedder=embedder, llm=llm)
        return AgentContext(benchmark=self.name, subtask=subtask, llm=llm,
                            corpus=self._corpus if agent.needs.corpus else None,
                            corpus_dir=self._corpus_dir, embedder=embedder,
                            extra={"arena": arena})

    def tool_source(self, subtask: str) -> ToolSource:
        """A corpus-built task (the default `--tasks-from corpus`) is found as its rule reads
        it (`_tool_sample`); one of another task source is picked from `load`."""
        def corpus() -> tuple[Any, Any]:
            return self._open_tool_corpus(subtask)
        if (self.options.get("tasks_from") or "corpus") != "corpus":
            return ToolSource(corpus, self._tool_rules,
                              samples=lambda: self.load(subtask, None).samples)
        return ToolSource(corpus, self._tool_rules,
                          find=lambda task_id: self._tool_sample(subtask, task_id),
                          hint=lambda: ids_hint(self._survey_ids(subtask)))

    def _open_tool_corpus(self, subtask: str) -> tuple[Any, Any]:
        if self._corpus is None:           # `load` opens it; `tools serve` without a task here
            inputs = loading.resolve_inputs(self.options, subtask, needs_corpus=True,
                                            discover=self.discover_data)
            self._corpus_dir = inputs.corpus_dir
            self._corpus = loading.open_corpus(inputs.corpus_dir)
        return self._corpus, self._corpus_dir

    def _tool_rules(self, sample: Sample) -> Any:
        return access_rules(sample.task.native)

    def _tool_sample(self, subtask: str, task_id: str) -> Sample | None:
        """A corpus-built task as its rule reads it: the survey's id, title and cut-off — not
        its reference list, whose building (re-reading the bibliography sources, classifying
        every reference) is most of `load`."""
        if task_id not in self._survey_ids(subtask):
            return None
        corpus = self._corpus
        cutoff = SearchSpace.of(corpus, only=[task_id]).cutoff(task_id)
        topic = corpus.get_rows([task_id])[0]["title"]
        query = ArenaQuery(task_id, topic, cutoff, task_id, None)
        return Sample(task_id, Task(id=task_id, benchmark=self.name, subtask=subtask,
                                    family=self.subtasks[subtask], prompt="", native=query))

    def _survey_ids(self, subtask: str) -> list[str]:
        """The ids of the corpus-built task set (`tasks.build_tasks` makes one per survey)."""
        loading.check_options(self.options)
        corpus, _ = self._open_tool_corpus(subtask)
        return survey_ids(corpus, TASK_SETS[self.options.get("task_set") or "reference-lists"])

    def record(self, sample: Sample, answer: Any) -> dict[str, Any]:
        resolver = self._resolver or RefResolver(self._corpus)
        return record_answer(answer, sample.task.subtask or "", sample.gold, resolver,
                             task_refs(sample.task.fields))

    # -- scoring -----------------------------------------------------------------------------
    def prepare_scoring(self, samples: Sequence[Sample], generated: dict[str, dict[str, Any]],
                        ctx: ScoreContext) -> None:
        if ctx.manifest["mode"] == "organisation":
            self._prepare_mindmaps(samples, generated, ctx)
        else:
            self._prepare_ranking(samples, generated, ctx)

    def _prepare_ranking(self, samples: Sequence[Sample], generated: dict[str, dict[str, Any]],
                         ctx: ScoreContext) -> None:
        """Every row at once: ir_measures scores the whole run (and qrels.trec and run.trec are
        rewritten); `score_sample` picks its sample's row."""
        variant = (ctx.manifest.get("data") or {}).get("qrels", "searchable")
        # one query per sample: an epoch e > 1 (`core.epochs`, id `ID#e`) is its own query
        tasks = [s.gold if s.gold.id == s.id else replace(s.gold, id=s.id) for s in samples]
        rows = scoring.score_ranking(tasks, generated, ctx.run_dir.path,
                                     variant, self._measures(), scoring.run_tag(ctx.manifest),
                                     corpus=self._corpus)
        ctx.shared["rows"] = {row["id"]: row for row in rows}

    def _prepare_mindmaps(self, samples: Sequence[Sample], generated: dict[str, dict[str, Any]],
                          ctx: ScoreContext) -> None:
        """Every answer's mind-map read, and the headings of those to score embedded and tagged
        in one batch (`mindmaps.warm_caches`); the embedding cache's counts go into the
        manifest."""
        answers = {s.id: mindmaps.read_mindmap(s.gold, generated.get(s.id)) for s in samples}
        embedder = self.get_embedder()
        extractor = self.extractor or organisation.default_entity_extractor()
        scored = [s for s in samples if s.gold.mindmap is not None
                  and answers[s.id].outcome != "error"]
        mindmaps.warm_caches([t for s in scored for t in (s.gold.mindmap, answers[s.id].pred)],
                             embedder, extractor)
        ctx.shared.update(answers=answers, embedder=embedder, extractor=extractor)
        stats = getattr(embedder, "stats", None)
        if stats is not None:
            fresh = ctx.run_dir.read_manifest()
            fresh["embedding_cache"] = stats.as_dict()
            ctx.run_dir.write_manifest(fresh)

    def score_sample(self, sample: Sample, record: dict[str, Any] | None,
                     ctx: ScoreContext) -> dict[str, Any]:
        if ctx.manifest["mode"] == "organisation":
            row = organisation_row(sample.gold, ctx.shared["answers"][sample.id],
                                   ctx.shared["embedder"], ctx.shared["extractor"])
        else:
            row = dict(ctx.shared["rows"][sample.id])
        return {**row, **scoring.sample_fields(sample.gold, record)}

    def measures(self, subtask: str | None) -> tuple[Any, ...]:
        """The declared measures of a sub-task: the organisation three, the run's ranking names
        (the paper's nine and any `--measures`), or for scored files exactly the names asked
        for."""
        # deferred: a top-level import would close an import cycle
        from scholarbench.benchmarks.researcharena.files import FILES_MODE
        if subtask == "organisation":
            keys: Sequence[str] = ORGANISATION
        elif subtask == FILES_MODE:
            keys = split_measures(self.options.get("measures"))
        else:
            keys = self._measures()
        return measures_of(subtask, keys)

    def summary_extras(self, rows: Sequence[dict[str, Any]], manifest: dict[str, Any]
                       ) -> dict[str, Any]:
        """Counts, reference totals and the entity-recall note, from the rows and the manifest
        alone: a fresh instance with no data dir gives the same."""
        keys = [m.key for m in self.measures(manifest["mode"])]
        return summary_fields(rows, manifest, keys)

    def format_summary(self, summary: dict[str, Any]) -> str:
        return format_summary(summary)

    # -- score researcharena --qrels Q --run R --out S ---------------------------------------
    def score_files(self, models: Any) -> int:
        # deferred: a top-level import would close an import cycle
        from scholarbench.benchmarks.researcharena.files import score_files_command
        return score_files_command(self.options)


__all__ = ["ResearchArena", "split_measures", "DISCOVERY", "SELECTION", "ORGANISATION"]
