"""SciNet on the engine: sub-tasks `ego`, `pair` (task family `ranking`), `path` (family
`path`) and `review` (family `report`: the paper's §6 downstream literature review, judged on
five dimensions — `review*.py`), chosen with `--task`.

- `load`: the tasks of the sub-task — read from `--tasks` (a SciNet task file; the graph's
  measure settings come from its tasks) or built by rule from the citation graph (`--graph`,
  default the imported arxiv2023; contexts from `--unarxive`, default the imported unarxive;
  with `--sentiment judge` the judge role of the run's models, which `load` takes, labels them).
  The task set's checksum, count, source and the environment are the run's data identity.
- `prepare_run`: writes the run's tasks (with their ground truth) to tasks.jsonl.
- `context`: the graph environment for SciNet's own agents (`extra["env"]`), the agent model
  and MiniLM when the agent needs them.
- `record`: the answer's references resolved offline (`answers.py`).
- `judged_items` (`judged.py`): with `--with-judge` the LLM-judged metrics (`judge.py`; the
  review's judge: always), asked by the engine's judge stage of every judge, K times each
  (judge.<item>.jsonl, reused on a re-score); `prepare_scoring` and `score_sample`
  (`run_scoring.py`): each task's row of SciNet's deterministic metrics (`scoring.py`) with
  the judge's columns from the verdicts (`panel.py`). Each row carries what the summary needs
  (hit counts, judge counts, the agent model's `agent_llm`).
- `measures`: the sub-task's `Measure`s under the run's variant (`measures.py`), for a run's
  rows those they carry; `summary_extras` (the `families` blocks, the judge panel's fields):
  the summary from the score rows and the recorded options alone (nothing kept from scoring,
  nothing read), so `scholarbench aggregate RUN` rebuilds it.
- `score_files` (`files.py`): `scholarbench score scinet --tasks T --answers A --out S`.

The judge is not part of the resume identity (`with_judge` is kept out of the recorded
options): a finished run is judged later with `scholarbench score RUN_DIR --with-judge`, or by
running it again with `--with-judge`.

Its hooks import the rest of the package inside their bodies: the command line imports this
file to build the benchmark's options, and must not load the whole package to do so
(docs/layers.md, "Imports inside functions").
"""
from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

from scholarbench.benchmarks.scinet.builtin import NativeAgent, is_native, native_agent
from scholarbench.benchmarks.scinet.measures import (EGO_METRICS, FAMILIES, K, LLM_METRICS,
                                                     METRICS, PAIR_METRICS, PATH_METRICS,
                                                     measures_of, metric_key)
from scholarbench.core.agent import Agent, AgentContext, agent_from_object
from scholarbench.core.benchmark import Benchmark, Loaded, Sample, ScoreContext, summary_line
from scholarbench.core.eval_defaults import EvalDefaults
from scholarbench.core.models import Models
from scholarbench.core.planning import PlannedCalls
from scholarbench.core.registry import REGISTRY, register_benchmark
from scholarbench.data.store import latest_import
from scholarbench.errors import ScholarbenchError
from scholarbench.paths import data_dir
from scholarbench.benchmarks.scinet import review, review_tasks as rt
from scholarbench.benchmarks.scinet.records import read_tasks, tasks_sha256, write_tasks
from scholarbench.benchmarks.scinet.replay import SciNetReplay
from scholarbench.benchmarks.scinet.review import ReviewWriter, make_review_sample
from scholarbench.benchmarks.scinet.review_tasks import (from_path_tasks, load_review_tasks,
                                                         read_review_tasks, write_review_tasks)
from scholarbench.benchmarks.scinet.scoring import (format_panel, format_summary, summary_extras,
                                                    summary_measures)
from scholarbench.data.task_files import imported_file
from scholarbench.embed.minilm import default_embedder
from scholarbench.tools.rules import AccessRules
from scholarbench.tools.source import ToolSource

TASKS = "tasks.jsonl"


def _is_review(rows: Sequence[dict[str, Any]], mode: str | None) -> bool:
    return mode == "review" or bool(rows and rows[0].get("family") == "review")


def env_settings_of(tasks: Sequence[Any]) -> Any:
    """The measure settings recorded in a task file (`info.env`), or None."""
    # deferred: pulls in pyarrow
    from scholarbench.benchmarks.scinet.env import EnvSettings
    for t in tasks:
        env = t.info.get("env") if isinstance(t.info, dict) else None
        if isinstance(env, dict):
            keys = {f.name for f in dataclasses.fields(EnvSettings)}
            return EnvSettings(**{k: env[k] for k in keys if k in env})
    return None


@register_benchmark("scinet")
class SciNet(Benchmark):
    name = "scinet"
    title = "SciNet"
    subtasks = {"ego": "ranking", "pair": "ranking", "path": "path", "review": "report"}
    subtask_flag = "--task"
    id_key = "task_id"
    order = 50
    measure_keys = METRICS + LLM_METRICS
    judge_panel = True          # every judge of a panel, and repeats (the engine's judge stage)
    judge_options = ("with_judge",)        # on in `eval` when judges are named
    judge_scored = LLM_METRICS
    judges_files = True              # `score scinet … --with-judge` judges an answers file

    def __init__(self, options: dict[str, Any] | None = None, *, env: Any = None,
                 embedder: Any = None, build: Any = None, judge: Any = None,
                 judge_k: int = K, judge_samples: int | None = None) -> None:
        """`judge`: a judge client, or a list of them (a panel); `judge_samples`: each judge
        asked that many times (default: the models' `--judge-samples`, else 1)."""
        super().__init__(options)
        if judge_k < 1:
            raise ValueError(f"judge_k must be >= 1 (papers judged per ego task), not {judge_k}")
        # the judge is a scoring choice, not part of what the run is (see the module doc)
        self.with_judge = bool(self.options.pop("with_judge", False)) or judge is not None
        self._env, self._embedder, self.build = env, embedder, build
        self._judge, self.judge_k, self._judge_samples = judge, judge_k, judge_samples
        self._tasks: list[Any] = []
        self._source = "built"
        self._embedder_id: str | None = None
        self._sentiment: Any = None      # the judge's context labels (`--sentiment judge`)

    @property
    def variant(self) -> str:
        """The scoring rules: "paper" (default) or "upstream" (SciNet's released scripts)."""
        # deferred: pulls in pyarrow
        from scholarbench.benchmarks.scinet.upstream import check_variant
        return check_variant(self.options.get("variant") or "paper")

    @property
    def headline(self) -> dict[str, tuple[str, ...]]:   # type: ignore[override]
        v = self.variant
        # deferred: pulls in pyarrow
        from scholarbench.benchmarks.scinet.review_judge import REVIEW_METRICS
        return {**{fam: tuple(metric_key(k, v) for k in keys) for fam, keys in
                   (("ego", EGO_METRICS), ("pair", PAIR_METRICS), ("path", PATH_METRICS))},
                "review": REVIEW_METRICS}

    # -- command line ------------------------------------------------------------------------
    @classmethod
    def add_options(cls, parser: argparse.ArgumentParser, command: str) -> None:
        if command == "score":
            parser.add_argument("--tasks", help="SciNet task file (JSON lines)")
            parser.add_argument("--answers", help="answers: {task_id, papers: [...]} or "
                                "{id, papers: [...]} lines (docs/scinet.md)")
            parser.add_argument("--out", help="scores file (JSON lines); the summary goes to "
                                "<out stem>.summary.json")
        else:
            parser.add_argument("--tasks", help="a SciNet task file instead of the tasks built "
                                "from the graph (a path, or the name of a file imported with "
                                "`data import scinet`)")
        parser.add_argument("--graph", help="citation graph folder (default: the imported "
                            "arxiv2023 dataset)")
        parser.add_argument("--unarxive", help="unArXive folder for citation contexts "
                            "(default: the imported unarxive dataset)")
        parser.add_argument("--variant", choices=["paper", "upstream"], default=None,
                            help="scoring rules: the paper's (default) or SciNet's released "
                            "Evaluation/ scripts @ ed5c76f (top-5 cuts, duplicates counted, "
                            "rank percentile; docs/scinet.md)")
        parser.add_argument("--judge-prompt", choices=["v1", "upstream"], default=None,
                            help="the judge's prompts: ours (v1, quoted data) or SciNet's "
                            "task1-*-llm.py / task3-path-llm.py @ ed5c76f verbatim")
        parser.add_argument("--with-judge", action="store_true",
                            help="add the LLM-judged metrics (judge role: --judge, else the "
                            "local model; never the agent's model)")
        if command != "score":
            parser.add_argument("--sentiment", choices=["rule", "judge"], default=None,
                                help="pair tasks built from the graph: who labels a citation "
                                "context for the pncites gold — the cue rule (default) or "
                                "the judge role with SciNet's appendix-C prompt, as SciNet "
                                "labelled with GPT-5 (docs/scinet.md)")

    def _dirs(self) -> tuple[Path, Path]:
        data = data_dir(self.options.get("data"))
        graph = Path(self.options["graph"]) if self.options.get("graph") else data / "arxiv2023"
        unarxive = (Path(self.options["unarxive"]) if self.options.get("unarxive")
                    else data / "unarxive")
        if not graph.exists():
            raise ScholarbenchError(f"no citation graph at {graph}: scholarbench data import "
                                    "arxiv2023 PATH, or pass --graph DIR")
        return graph, unarxive

    def eval_defaults(self) -> EvalDefaults:
        """`eval` runs every sub-task but the review (it needs an agent model and the judge
        for every task: `run` only) when the citation graph is there, none otherwise."""
        if self._env is None:
            try:
                self._dirs()
            except ScholarbenchError:
                return EvalDefaults(())
        return EvalDefaults(tuple(s for s in self.subtasks if s != "review"),
                            options=self._eval_options)

    def _eval_options(self, subtask: str, given: dict[str, Any]) -> dict[str, Any]:
        """`eval` runs the task file imported last (`data import scinet`) when the user named
        none, not tasks built again from the graph."""
        if "tasks" in given or self.options.get("tasks"):
            return {}
        name = latest_import(data_dir(self.options.get("data")), "scinet")
        return {"tasks": name, **({"with_judge": True} if self.with_judge else {})} \
            if name else {}

    # -- samples and agents ------------------------------------------------------------------
    def env(self, settings: Any = None) -> Any:
        """The graph environment (opened once; an injected one is used as it is)."""
        if self._env is None:
            # deferred: pulls in pyarrow
            from scholarbench.benchmarks.scinet.env import SciNetEnv
            graph, unarxive = self._dirs()
            self._env = SciNetEnv.from_arxiv2023(graph, unarxive, settings)
        return self._env

    def read_tasks(self, subtask: str, models: Models | None = None) -> list[Any]:
        """The sub-task's tasks: read from `--tasks`, else built from the graph (`models`: the
        run's, whose judge role labels the contexts with `--sentiment judge`)."""
        # deferred: pulls in pyarrow
        from scholarbench.benchmarks.scinet.tasks import build_tasks
        if self.options.get("tasks"):
            path = self.tasks_file(self.options["tasks"])
            given = read_tasks(path)
            self.env(env_settings_of(given))
            self._source = str(path)
            return [t for t in given if t.family == subtask]
        self._source = "built"
        settings, labeler = self._sentiment_settings(models or Models())
        tasks = build_tasks(self.env(), subtask, settings, labeler)
        self._sentiment = labeler
        # deferred: pulls in pyarrow
        from scholarbench.benchmarks.scinet.gold import format_ties
        if line := format_ties(tasks):
            print(line, file=sys.stderr)
        return tasks

    def _sentiment_settings(self, models: Models) -> tuple[Any, Any]:
        """The build settings and, with `--sentiment judge` (or `BuildSettings(sentiment=
        "judge")`), the context labeler of `models`' judge role."""
        from dataclasses import replace
        # deferred: pulls in pyarrow
        from scholarbench.benchmarks.scinet.tasks import BuildSettings
        settings = self.build or BuildSettings()
        if self.options.get("sentiment"):
            settings = replace(settings, sentiment=self.options["sentiment"])
        if settings.sentiment != "judge":
            return settings, None
        # deferred: pulls in pyarrow
        from scholarbench.benchmarks.scinet.sentiment_judge import JudgeLabels, SentimentJudge
        return settings, JudgeLabels(SentimentJudge(models.judge()))

    def tasks_file(self, name: str) -> Path:
        """--tasks: a path, else a task file imported with `data import scinet` by its name."""
        if Path(name).exists():
            return Path(name)
        return imported_file(data_dir(self.options.get("data")), "scinet", name) or Path(name)

    def _loaded(self, tasks: list[Any]) -> Loaded:
        # deferred: pulls in pyarrow
        from scholarbench.benchmarks.scinet.samples import make_sample
        env = self.env()
        self._tasks = tasks
        if tasks and not hasattr(tasks[0], "family"):         # review tasks
            samples, sha = [make_review_sample(t) for t in tasks], rt.tasks_sha256(tasks)
        else:
            samples, sha = [make_sample(t, env) for t in tasks], tasks_sha256(tasks)
        return Loaded(samples,
                      {"tasks_sha256": sha, "n_tasks": len(tasks),
                       "tasks_source": self._source, "env": env.describe(),
                       **({"sentiment_labels": labels.summary()}
                          if (labels := getattr(self, "_sentiment", None)) else {})})

    def load(self, subtask: str, limit: int | None, models: Models | None = None) -> Loaded:
        """`models`: the run's, given by the engine (`core.benchmark.load_samples`); without
        them a build that asks the judge (`--sentiment judge`) says none was given."""
        if subtask == "review":
            if self.options.get("tasks"):
                self._source = str(self.options["tasks"])
                reviews = load_review_tasks(self.options["tasks"], self.env())
            else:
                reviews = from_path_tasks(self.read_tasks("path", models), self.env())
            return self._loaded(reviews[:limit] if limit is not None else reviews)
        tasks = self.read_tasks(subtask, models)
        return self._loaded(tasks[:limit] if limit is not None else tasks)

    def load_for_rescore(self, run: Any, manifest: dict[str, Any]) -> Loaded:
        """The run's own task set (tasks.jsonl, with its ground truth)."""
        if manifest.get("mode") == "review":
            tasks: list[Any] = read_review_tasks(run.file(TASKS))
        else:
            tasks = read_tasks(run.file(TASKS))
            self.env(env_settings_of(tasks))
        self._source = (manifest.get("data") or {}).get("tasks_source") or \
            manifest.get("tasks_source") or str(run.file(TASKS))
        return self._loaded(tasks)

    def prepare_run(self, run: Any, loaded: Loaded, manifest: dict[str, Any], *,
                    progress: bool = True) -> None:
        if manifest.get("mode") == "review":
            write_review_tasks(self._tasks, run.file(TASKS))
        else:
            write_tasks(self._tasks, run.file(TASKS))
        if self._embedder_id is not None:
            manifest["embedder"] = self._embedder_id
            run.write_manifest(manifest)

    def agent(self, name: str, params: dict[str, Any], subtask: str) -> Agent | None:
        """`replay` (SciNet's answer lines or the family schema), a built-in agent as `NAME`
        or `scinet/NAME`, or an agent registered for SciNet (either contract)."""
        if name == "replay":
            return SciNetReplay(**params, benchmark=self.name, subtask=subtask)
        short = name.removeprefix("scinet/")
        obj = REGISTRY.find("agent", f"scinet/{short}")
        if obj is None and self.name in (REGISTRY.meta("agent", name).get("benchmarks") or ()):
            obj = REGISTRY.find("agent", name)
        if obj is None:
            return None
        if subtask == "review" and (is_native(obj) or (isinstance(obj, type) and
                                                      issubclass(obj, NativeAgent))):
            params = dict(params)          # SciNet's retrieval, then the agent model writes
            max_tokens = params.pop("review_max_tokens", 2048)
            wrapped = native_agent(obj, short, params) if is_native(obj) else \
                agent_from_object(obj, short, params)
            return ReviewWriter(wrapped.native, short, max_tokens)
        if is_native(obj):
            return native_agent(obj, short, params)
        return agent_from_object(obj, short if name.startswith("scinet/") else name, params)

    def context(self, agent: Agent, subtask: str, roles: Any) -> AgentContext:
        llm = roles.agent() if agent.needs.llm else None
        embedder = None
        if agent.needs.embedder:
            embedder = self._embedder
            if embedder is None:
                embedder = default_embedder()
            self._embedder_id = getattr(embedder, "model_id", None)
        return AgentContext(benchmark=self.name, subtask=subtask, llm=llm, embedder=embedder,
                            extra={"env": self.env()})

    def tool_source(self, subtask: str) -> ToolSource:
        """A task is found without building its gold (`tool_tasks`)."""
        # deferred: pulls in pyarrow
        from scholarbench.benchmarks.scinet.tool_tasks import tool_sample, tool_task_hint
        return ToolSource(self._open_tool_corpus, self._tool_rules,
                          find=lambda task_id: tool_sample(self, subtask, task_id),
                          hint=lambda: tool_task_hint(self, subtask))

    def _open_tool_corpus(self) -> tuple[Any, Any]:
        """The data directory's default corpus (its arXiv 2023 graph is SciNet's here)."""
        if getattr(self, "_tool_corpus", None) is None:
            # deferred: pulls in pyarrow
            from scholarbench.corpus.build import default_corpus
            # deferred: pulls in duckdb, pyarrow
            from scholarbench.corpus.store import Corpus
            path = Path(self.options["corpus"]) if self.options.get("corpus") else \
                default_corpus(data_dir(self.options.get("data")))
            self._tool_corpus = (Corpus.open(path), path)
        return self._tool_corpus

    def _tool_rules(self, sample: Sample) -> Any:
        """SciNet hides no paper: its tasks are about the network itself, which the paper's
        relation-aware agents use. The scientometric measures (CD index, novelty) are the ego
        tasks' gold and are not tools; citation links are (docs/tools.md)."""
        return AccessRules(why="SciNet: the whole citation network (no measures)")

    def record(self, sample: Sample, answer: Any) -> dict[str, Any]:
        if sample.task.subtask == "review":
            return {**review.record_fields(answer, self.env()), "error": None}
        # deferred: pulls in pyarrow
        from scholarbench.benchmarks.scinet.answers import record_fields
        return {**record_fields(sample.task.subtask or "", answer, self.env()), "error": None}

    # -- scoring -----------------------------------------------------------------------------
    def given_models(self, models: Models, bind: Callable[..., Any] | None = None) -> Models:
        """`models` with the judge client(s) and `judge_samples` given to the constructor
        (programmatic use: `run_scinet`, `score_scinet_files`; `bind` binds the other roles),
        else as they are."""
        if self._judge is not None:
            judges = list(self._judge) if isinstance(self._judge, (list, tuple)) \
                else [self._judge]
            models = Models.given(judges=judges, bind=bind, judge_samples=models.judge_samples)
        if self._judge_samples is not None:
            models.judge_samples = self._judge_samples
        return models

    def judged_items(self, subtask: str | None) -> tuple[Any, ...]:
        """What the engine's judge stage asks (`judged.py`): the review's judge always, the
        ego or path judge with `--with-judge` (a plain re-score reads the verdicts on file:
        `run_scoring.prepare`); the pair tasks are not judged."""
        if subtask != "review" and not self.with_judge:
            return ()
        # deferred: pulls in pyarrow
        from scholarbench.benchmarks.scinet.judged import items_for
        return items_for(self, subtask)

    def prepare_scoring(self, samples: Sequence[Sample], generated: dict[str, dict[str, Any]],
                        ctx: ScoreContext) -> None:
        """The judges over the whole run (`run_scoring.prepare`)."""
        # deferred: pulls in pyarrow
        from scholarbench.benchmarks.scinet.run_scoring import prepare
        prepare(self, samples, generated, ctx)

    def score_sample(self, sample: Sample, record: dict[str, Any] | None,
                     ctx: ScoreContext) -> dict[str, Any]:
        # deferred: pulls in pyarrow
        from scholarbench.benchmarks.scinet.run_scoring import row
        return row(self, sample, record, ctx)

    def summary_extras(self, rows: Sequence[dict[str, Any]], manifest: dict[str, Any]
                       ) -> dict[str, Any]:
        """`families`, `variant`, the judge panel's fields and `agent_llm`, from the rows and
        the recorded variant alone."""
        if _is_review(rows, manifest.get("mode")):
            # deferred: pulls in pyarrow
            from scholarbench.benchmarks.scinet.review_scoring import (
                summary_extras as review_extras)
            return review_extras(rows)
        return summary_extras(rows, self.variant)

    def measures(self, subtask: str | None,
                 rows: Sequence[dict[str, Any]] | None = None) -> tuple[Any, ...]:
        """The sub-task's measures under the run's scoring rules (None: every family's); for
        a run's rows, those the rows carry under the run's variant
        (`scoring.summary_measures`), the review's five always."""
        if rows is not None:
            return (self.measures("review") if _is_review(rows, subtask)
                    else summary_measures(rows, self.variant))
        if subtask is None:
            return tuple(m for f in FAMILIES for m in self.measures(f))
        # the review has no upstream script: its measures are the paper's under either rules
        return measures_of(subtask, "paper" if subtask == "review" else self.variant)

    def format_summary(self, summary: dict[str, Any]) -> str:
        head = [summary_line(summary)] if "status" in summary and "n_samples" in summary else []
        if "review" in (summary.get("families") or {}):
            # deferred: pulls in pyarrow
            from scholarbench.benchmarks.scinet.review_scoring import format_summary as review
            return "\n".join(head + review(summary) + format_panel(summary))
        return "\n".join(head + [format_summary(summary)])

    def score_files(self, models: Any) -> int:
        """`scholarbench score scinet --tasks T --answers A --out S [--with-judge]`."""
        # deferred: pulls in pyarrow
        from scholarbench.benchmarks.scinet.files import score_scinet_files
        o = self.options
        if not (o.get("tasks") and o.get("answers") and o.get("out")):
            raise ScholarbenchError("score scinet needs --tasks T.jsonl --answers A.jsonl "
                                    "--out S.jsonl")
        summary = score_scinet_files(o["tasks"], o["answers"], o["out"], bench=self,
                                     models=models)
        print(self.format_summary(summary))
        print(f"scores: {o['out']}")
        return 0

    def asks_judge(self, subtask: str, rescore: bool = False) -> bool:
        """The review sub-task is judged always; the others with `--with-judge`."""
        return subtask == "review" or self.with_judge

    def planned_judge_calls(self, subtask: str, samples: Sequence[Sample],
                            generated: dict[str, dict[str, Any]] | None = None
                            ) -> list[Any]:
        """`--dry-run`: the judged item's requests as the engine counts them (exact once the
        answers are known; the default); pair tasks are not judged, which `--with-judge`
        says in a line of its own."""
        if subtask == "pair" and self.with_judge:
            return [PlannedCalls("score", calls=0, basis="pair tasks are not judged")]
        return super().planned_judge_calls(subtask, samples, generated)
