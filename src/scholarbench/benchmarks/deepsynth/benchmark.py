"""DeepSynth-Eval on the engine: one sub-task, ``report`` (task family ``report``).

A run is oracle → generate → judge → score; the engine owns the run directory, resume,
retries of errored samples and usage per stage; this class says what each stage is:

- `load`: the task file (``--tasks``, else the imported one: `data.default_tasks_file`), one
  sample per task. ``Task.prompt`` is the paper's unified prompt P = q_gen ⊕ q_con(1) ⊕ … ⊕
  q_con(M) (`loader.unified_prompt`); ``Task.fields``: ``task_id``, ``general_prompt``,
  ``constraints`` (the constraint questions), ``topic``, ``cutoff`` (ISO date or null) and
  ``references`` — the oracle context, ``[{"n", "title", "paper_id", "text"}]``, or null.
  ``survey_id`` is withheld: it names the gold survey.
- `context`: the corpus, the agent's model and the oracle's model are bound before any run
  directory exists. The oracle is built for every agent but ``replay`` and ``endpoint`` (which
  sends the prompt only, the paper's Deep Research setting) unless ``--oracle none``.
- `prepare_run`: tasks.jsonl (the task set, for re-scoring), the oracle stage (oracle.jsonl,
  usage ``usage.oracle.<role>`` and ``llm_usage.oracle``), the writers' requests.
- `record`: a ``report`` answer → the generate.jsonl line (module `stages` for the fields).
- `judged_items`: the checklist judge (`checklist.py`), asked by the engine's judge stage
  (judge.checklist.jsonl; during a run, and on ``score RUN_DIR --with-judge`` with the judges
  given there); `stages`: the oracle's records; `prepare_scoring`: each task's judgement (the
  verdicts asked now, else on a plain re-score those on file) written as judged.jsonl, and the
  leakage audit's corpus, once; `score_sample`: the scores of the paper (or upstream:
  ``--variant``), one row per task; ``error`` rows carry no numbers and are left out (`scoring`).
- the summary, from the score rows and the manifest alone (each row carries its task's counts):
  `measures`: `measures.all_measures()` (both variants), for a run's rows only the rows'
  variant's (`summary_blocks.summary_measures`); `summary_extras`: every other block
  (`summary_blocks`).

Only a command that names this benchmark imports this file (its package registers the class
lazily): its imports are at the top, but for those that pull in a heavy library (each says
which), so `run <name> --help` stays light (docs/layers.md, "Imports inside functions").
"""
from __future__ import annotations

import argparse
from dataclasses import asdict
from pathlib import Path
from typing import Any, Sequence

from scholarbench.core.agent import Agent, AgentContext, Task
from scholarbench.core.benchmark import Benchmark, Loaded, Sample, ScoreContext
from scholarbench.core.eval_defaults import EvalDefaults
from scholarbench.core.planning import PlannedCalls, planned_item_calls
from scholarbench.core.registry import register_benchmark
from scholarbench.benchmarks.deepsynth.measures import BASE_KEYS, all_measures
from scholarbench.benchmarks.deepsynth.records import task_to_json
from scholarbench.benchmarks.deepsynth.scores import VARIANTS, metric_key
from scholarbench.core.commands import agent_params
from scholarbench.core.families import answer_info, parse_answer
from scholarbench.core.usage import model_identity
from scholarbench.errors import ScholarbenchError
from scholarbench.files import sha256_file
from scholarbench.paths import data_dir
from scholarbench.agents.writers.budget import TokenBudget
from scholarbench.benchmarks.deepsynth.agents import (DeepSynthReplay, NativeTask, WRITERS,
                                                      WriterAgent, topic_of, writer_agent,
                                                      writing_request)
from scholarbench.benchmarks.deepsynth.checklist import checklist_item
from scholarbench.benchmarks.deepsynth.citations import with_references
from scholarbench.benchmarks.deepsynth.data import default_tasks_file
from scholarbench.benchmarks.deepsynth.judge import load_prompt
from scholarbench.benchmarks.deepsynth.judge_probe import judge_with_probe
from scholarbench.benchmarks.deepsynth.loader import (constraint_questions, load_tasks,
                                                      unified_prompt)
from scholarbench.benchmarks.deepsynth.oracle import (OracleBuilder, OracleContext,
                                                      read_reference_lists, survey_cutoff,
                                                      survey_paper_id)
from scholarbench.benchmarks.deepsynth.stages import (ORACLE, default_workers, oracle_stage,
                                                      record_model)
from scholarbench.tools.rules import AccessRules
from scholarbench.tools.source import ToolSource

SUBTASK = "report"
ORACLE_MODES = ("summary", "abstract", "none")
ORACLE_ROLES = ("judge", "agent")
JUDGE_PROMPTS = ("checklist_judge_v1", "checklist_judge_upstream")
NO_CORPUS = "none"


@register_benchmark("deepsynth")
class DeepSynthBenchmark(Benchmark):
    name = "deepsynth"
    title = "DeepSynth-Eval"
    subtasks = {SUBTASK: "report"}
    subtask_flag = "--task"
    id_key = "task_id"
    order = 30
    unresolved_effect = "kept as written in the report the judge reads"

    def __init__(self, options: dict[str, Any] | None = None) -> None:
        super().__init__(options)
        self._running = False
        self._setting: str | None = None
        self._corpus: Any = None
        self._corpus_dir: Path | None = None
        self._resolver: Any = None      # the corpus an answer's citations resolve against
        self._oracle: dict[str, Any] | None = None    # builder, client, role, config
        self._agent: Any = None

    # -- command line ------------------------------------------------------------------------
    @classmethod
    def add_options(cls, parser: argparse.ArgumentParser, command: str) -> None:
        if command == "score":
            parser.add_argument("--judged", help="judged task file (upstream format, "
                                "eval_result per sub-group)")
            parser.add_argument("--out", help="where the per-task scores go (JSON lines)")
            parser.add_argument("--variant", choices=["paper", "upstream"], default="paper",
                                help="the paper's scoring rules or upstream score.py's")
            return
        parser.add_argument("--tasks", help="upstream task file (JSON lines with checklists; "
                            "default: the imported one, `data import deepsynth PATH`)")
        parser.add_argument("--corpus", help="corpus directory for the oracle and the writers' "
                            "search (default: built from the data; 'none': no corpus)")
        parser.add_argument("--references", help="reference lists per task for the oracle "
                            "context (default: the survey's references in the corpus)")
        parser.add_argument("--oracle", choices=list(ORACLE_MODES), default="summary",
                            help="oracle context per reference (default: LLM summary)")
        parser.add_argument("--oracle-role", choices=list(ORACLE_ROLES), default="judge",
                            help="whose model writes the summaries (default: the judge's, as "
                            "the paper)")
        parser.add_argument("--oracle-arg", dest="oracle_params", action="append", default=[],
                            metavar="KEY=VALUE", help="oracle setting, e.g. source_tokens=2500")
        parser.add_argument("--judge-prompt", default=JUDGE_PROMPTS[0],
                            choices=list(JUDGE_PROMPTS),
                            help="our quoted judge prompt (default) or upstream's verbatim")
        parser.add_argument("--judge-retries", type=int, default=2,
                            help="repairs asked of the judge after an unusable reply")
        parser.add_argument("--variant", choices=["paper", "upstream"], default="paper",
                            help="the paper's scoring rules or upstream score.py's")
        parser.add_argument("--replay", help="the same as --agent replay --agent-arg "
                            "path=FILE: judge and score reports from a file")

    def eval_defaults(self) -> EvalDefaults:
        """`eval` runs the report sub-task when its task file is there."""
        try:
            self._tasks_path()
        except ScholarbenchError:
            return EvalDefaults(())
        return EvalDefaults((SUBTASK,))

    # -- options -----------------------------------------------------------------------------
    def _opt(self, key: str, default: Any = None) -> Any:
        value = self.options.get(key)
        return default if value is None else value

    def _variant(self) -> str:
        variant = self._opt("variant", "paper")
        if variant not in VARIANTS:
            raise ScholarbenchError(f"unknown scoring variant {variant!r}; use one of "
                                    f"{', '.join(VARIANTS)}")
        return variant

    @property
    def headline(self) -> dict[str, tuple[str, ...]]:   # type: ignore[override]
        return {SUBTASK: tuple(metric_key(k, self._variant()) for k in BASE_KEYS)}

    def _tasks_path(self) -> Path:
        if self.options.get("tasks"):
            return Path(self.options["tasks"])
        return default_tasks_file(data_dir(self.options.get("data")))

    def _check(self) -> None:
        if self._opt("oracle", "summary") not in ORACLE_MODES:
            raise ScholarbenchError(f"unknown oracle mode {self.options['oracle']!r}; use one "
                                    f"of {', '.join(ORACLE_MODES)}")
        if self._opt("oracle_role", "judge") not in ORACLE_ROLES:
            raise ScholarbenchError(f"unknown oracle role {self.options['oracle_role']!r}; "
                                    "use judge or agent")
        retries = self._opt("judge_retries", 2)
        if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
            raise ScholarbenchError(f"--judge-retries must be an integer >= 0, got {retries!r}")
        self._variant()
        try:
            load_prompt(self._opt("judge_prompt", JUDGE_PROMPTS[0]))
        except ValueError as exc:
            raise ScholarbenchError(str(exc)) from None

    # -- samples -----------------------------------------------------------------------------
    def load(self, subtask: str, limit: int | None) -> Loaded:
        self._check()
        path = self._tasks_path()
        if not path.is_file():
            raise ScholarbenchError(f"--tasks {path}: no such file")
        tasks = load_tasks(path)
        tasks = tasks[:limit] if limit is not None else tasks
        return Loaded([self._sample(t) for t in tasks],
                      {"path": str(path.resolve()), "sha256": sha256_file(path)})

    def load_for_rescore(self, run: Any, manifest: dict[str, Any]) -> Loaded:
        """The task set the run saved (tasks.jsonl), else its task file again."""
        if self.options.get("variant") is None and manifest.get("variant"):
            self.options["variant"] = manifest["variant"]     # a run written before the engine
        saved = run.file("tasks.jsonl")
        if saved.exists():
            tasks = load_tasks(saved)
        else:
            path = Path((manifest.get("data") or {}).get("path") or "")
            if not path.is_file():
                raise ScholarbenchError(f"{run.path}: the run's task file {path} is gone")
            tasks = load_tasks(path)
            limit = manifest.get("limit")
            tasks = tasks[:limit] if limit is not None else tasks
        return Loaded([self._sample(t) for t in tasks], dict(manifest.get("data") or {}))

    def _sample(self, t: Any) -> Sample:
        cutoff = survey_cutoff(t, None)
        fields = {"task_id": t.task_id, "general_prompt": t.general_prompt,
                  "constraints": constraint_questions(t), "topic": topic_of(t),
                  "cutoff": cutoff.isoformat() if cutoff else None, "references": None}
        task = Task(id=str(t.task_id), benchmark=self.name, subtask=SUBTASK, family="report",
                    prompt=unified_prompt(t), fields=fields, native=NativeTask(t))
        return Sample(str(t.task_id), task, gold=t)

    # -- agents ------------------------------------------------------------------------------
    def agent(self, name: str, params: dict[str, Any], subtask: str) -> Agent | None:
        if name == "replay":
            params = dict(params)
            replay = self.options.get("replay")
            if replay and params.get("path") and str(params["path"]) != str(replay):
                raise ScholarbenchError("--replay and --agent-arg path= name different files")
            if replay:
                params.setdefault("path", replay)
            unknown = sorted(set(params) - {"path"})
            if unknown:
                raise ScholarbenchError(f"replay takes --agent-arg path=FILE only, not "
                                        f"{', '.join(unknown)}")
            return DeepSynthReplay(**params, benchmark=self.name, subtask=subtask)
        found = writer_agent(name, params)
        return found if found is not None else super().agent(name, params, subtask)

    def agent_names(self, subtask: str) -> list[str]:
        return sorted({*WRITERS, "replay", *super().agent_names(subtask)})

    def context(self, agent: Agent, subtask: str, roles: Any) -> AgentContext:
        self._agent = agent
        replay = isinstance(agent, DeepSynthReplay)
        if self.options.get("replay") and not replay:
            raise ScholarbenchError("--replay FILE goes with --agent replay")
        writer = isinstance(agent, WriterAgent)
        mode = self._opt("oracle", "summary")
        use_oracle = not replay and mode != "none" and agent.name != "endpoint"
        self._setting = ("replay" if replay else f"oracle-{mode}" if use_oracle
                         else "search" if writer or agent.needs.tools else "prompt-only")
        self._open_corpus(explicit_only=not (writer or use_oracle))
        self._resolver = self._corpus if self._corpus is not None else self._any_corpus()
        llm = roles.agent() if agent.needs.llm else None
        if agent.needs.llm and llm is None:
            raise ScholarbenchError(f"{agent.name!r} needs the agent role's chat model")
        if roles.judge() is None:
            raise ScholarbenchError("run deepsynth needs the judge role's chat model")
        if use_oracle:
            self._oracle = self._oracle_builder(mode, roles)
            config = self._oracle["config"]
            self.options["oracle_config"] = config      # recorded: a resume must agree
            if writer:
                agent.oracle_config = config            # type: ignore[attr-defined]
        return AgentContext(benchmark=self.name, subtask=subtask, llm=llm, corpus=self._corpus,
                            corpus_dir=self._corpus_dir)

    def tool_source(self, subtask: str) -> ToolSource:
        return ToolSource(self._open_tool_corpus, self._tool_rules,
                          samples=lambda: self.load(subtask, None).samples)

    def _open_tool_corpus(self) -> tuple[Any, Any]:
        if self._corpus is None:
            self._open_corpus(explicit_only=False)
        if self._corpus is None:
            raise ScholarbenchError("DeepSynth's tools need a corpus (not --corpus none)")
        return self._corpus, self._corpus_dir

    def _tool_rules(self, sample: Sample) -> Any:
        """The writers' search rule: papers known before the survey may first have appeared,
        never the survey (its id and every record with its title)."""
        task = sample.gold
        pid = survey_paper_id(task, self._corpus)
        hidden = [pid, f"arxiv:{task.survey_id}" if task.survey_id else None]
        if pid is not None:
            hidden.append(self._corpus.get_rows([pid])[0]["title"])
        return AccessRules(before=survey_cutoff(task, self._corpus),
                           exclude_ids=tuple(dict.fromkeys(h for h in hidden if h)),
                           why="DeepSynth-Eval: papers known before the survey, never the "
                           "survey itself")

    def _open_corpus(self, explicit_only: bool) -> None:
        option = self.options.get("corpus")
        if option == NO_CORPUS or (explicit_only and not option):
            return
        if option:
            path = Path(option)
        else:
            # deferred: pulls in pyarrow
            from scholarbench.corpus.build import build_default_corpus
            data = data_dir(self.options.get("data"))
            path = data / "corpus" / "default"
            if not (path / "manifest.json").exists():
                info = build_default_corpus(path, data)
                print(f"built corpus {path}: {info.n_papers} papers; per source {info.counts}")
        # deferred: pulls in duckdb, pyarrow
        from scholarbench.corpus.store import Corpus
        if not (path / "manifest.json").exists():
            raise ScholarbenchError(f"--corpus {path}: not a corpus directory (no manifest.json)")
        self._corpus, self._corpus_dir = Corpus.open(path), path

    def _any_corpus(self) -> Any:
        """The corpus citations resolve against when the agent was given none (replay, an
        endpoint, a prompt-only function), so every way in resolves the same answer alike:
        the one `--corpus` names or the data's default (built when it has a source), else
        None (`--corpus none`, no source: cited references stay as written)."""
        # deferred: pulls in pyarrow
        from scholarbench.corpus.build import has_corpus
        option = self.options.get("corpus")
        if option == NO_CORPUS or (not option and not has_corpus(data_dir(
                self.options.get("data")))):
            return None
        agent_corpus = self._corpus, self._corpus_dir
        self._open_corpus(explicit_only=False)
        opened, (self._corpus, self._corpus_dir) = self._corpus, agent_corpus
        return opened

    def _oracle_builder(self, mode: str, roles: Any) -> dict[str, Any]:
        role = self._opt("oracle_role", "judge")
        client = None
        if mode == "summary":
            client = roles.judge() if role == "judge" else roles.agent()
            if client is None:
                raise ScholarbenchError(f"the oracle summaries need the {role} role's model")
        raw = self.options.get("oracle_params") or {}
        params = dict(raw) if isinstance(raw, dict) else agent_params(raw)
        window = {k: params.pop(k) for k in ("context_window", "token_ratio") if k in params}
        try:
            if window:
                params["budget"] = TokenBudget(**window)
            builder = OracleBuilder(client, mode=mode, workers=default_workers(client),
                                    **params)
        except (TypeError, ValueError) as exc:
            raise ScholarbenchError(f"oracle settings: {exc}") from None
        config = builder.config()
        if client is not None:
            config.update(role=role, model=model_identity(client))
        references = self.options.get("references")
        if references:
            path = Path(references)
            if not path.is_file():
                raise ScholarbenchError(f"--references {path}: no such file")
            config["references"] = {"path": str(path.resolve()), "sha256": sha256_file(path)}
        return {"builder": builder, "client": client, "role": role, "config": config}

    def prepare_run(self, run: Any, loaded: Loaded, manifest: dict[str, Any], *,
                    progress: bool = True) -> None:
        # deferred: pulls in pyarrow
        from scholarbench.corpus.build import corpus_info
        self._running = True
        run.write_jsonl("tasks.jsonl", [task_to_json(s.gold) for s in loaded.samples])
        manifest = run.read_manifest()
        manifest.update(setting=self._setting, variant=self._variant(),
                        corpus=corpus_info(self._corpus_dir))
        if isinstance(self._agent, DeepSynthReplay):
            unknown = self._agent.unknown_ids({s.id for s in loaded.samples})
            if unknown:
                manifest["replay_unknown_ids"] = unknown
        run.write_manifest(manifest)
        contexts: dict[str, Any] = {}
        if self._oracle is not None:
            record_model(run, "oracle", self._oracle["client"])
            references = self.options.get("references")
            lists = read_reference_lists(references) if references else None
            records = oracle_stage(run, loaded.samples, self._oracle["builder"], self._corpus,
                                   lists, self._oracle["config"], client=self._oracle["client"],
                                   role=self._oracle["role"], progress=progress)
            contexts = {sid: OracleContext.from_json(r) for sid, r in records.items()}
        writer = isinstance(self._agent, WriterAgent)
        for sample in loaded.samples:
            context = contexts.get(sample.id)
            refs = context.references() if context is not None else None
            sample.task.fields["references"] = ([asdict(r) for r in refs]
                                                if refs is not None else None)
            if self._corpus is not None:
                cutoff = survey_cutoff(sample.gold, self._corpus)
                sample.task.fields["cutoff"] = cutoff.isoformat() if cutoff else None
            if writer:
                sample.task.native.request = writing_request(sample.gold, context, self._corpus)

    # -- answers -----------------------------------------------------------------------------
    judge_reads = "the whole report (the probe is appended)"
    judge_measure = "dse_overall"
    judge_panel = True              # every judge of a panel, K repeats (the engine's judge
                                    # stage; deepsynth/panel.py combines their scores)
    judge_scored = tuple(k for k, m in zip(BASE_KEYS, all_measures()) if m.judge)  # all four

    def judge_with_probe(self, sample: Sample, record: dict[str, Any],
                         probe: str | None, judge: Any) -> float | None:
        return judge_with_probe(self, sample, record, probe, judge)

    def record(self, sample: Sample, answer: Any) -> dict[str, Any]:
        parsed = parse_answer("report", answer)
        info = dict(answer_info(answer))
        report, cited, counts = with_references(parsed.report, parsed.cited, self._resolver)
        info.update(counts)
        return {"task_id": sample.gold.task_id, "report": report, "cited": cited,
                "error": None, "info": info}

    # -- scoring -----------------------------------------------------------------------------
    def checklist(self) -> Any:
        """The checklist judge under `--judge-prompt` and `--judge-retries`."""
        return checklist_item(self._opt("judge_prompt", JUDGE_PROMPTS[0]),
                              self._opt("judge_retries", 2))

    def judged_items(self, subtask: str | None) -> tuple[Any, ...]:
        """The checklist judge when this invocation asks one: a run, or `score RUN_DIR
        --with-judge` (a plain re-score reads the verdicts on file: `scoring.prepare`)."""
        return (self.checklist(),) if self._running or self.options.get("with_judge") else ()

    def stages(self, samples: Sequence[Sample], generated: dict[str, dict[str, Any]],
               run_dir: Any) -> tuple[str, ...]:
        """The oracle's oracle.jsonl (written by `prepare_run`), read by the rows."""
        return (ORACLE,)

    def prepare_scoring(self, samples: Sequence[Sample], generated: dict[str, dict[str, Any]],
                        ctx: ScoreContext) -> None:
        # deferred: a top-level import would close an import cycle
        from scholarbench.benchmarks.deepsynth.scoring import prepare
        prepare(self, samples, generated, ctx)

    def score_sample(self, sample: Sample, record: dict[str, Any] | None,
                     ctx: ScoreContext) -> dict[str, Any]:
        # deferred: a top-level import would close an import cycle
        from scholarbench.benchmarks.deepsynth.scoring import score_row
        return score_row(sample, record, ctx)

    def asks_judge(self, subtask: str, rescore: bool = False) -> bool:
        """Every run is judged (the checklist); a re-score only with `--with-judge`."""
        return not rescore or bool(self.options.get("with_judge"))

    def summary_extras(self, rows: Sequence[dict[str, Any]], manifest: dict[str, Any]
                       ) -> dict[str, Any]:
        # deferred: a top-level import would close an import cycle
        from scholarbench.benchmarks.deepsynth.summary_blocks import summary_extras
        return summary_extras(self, rows, manifest)

    def measures(self, subtask: str | None,
                 rows: Sequence[dict[str, Any]] | None = None) -> tuple[Any, ...]:
        """Both scoring variants' measures (a re-score may change the variant; the keys
        differ, so the summary's keys find theirs); for a run's rows, those of the variant
        the rows were scored under (`summary_blocks`)."""
        if rows is not None:
            # deferred: a top-level import would close an import cycle
            from scholarbench.benchmarks.deepsynth.summary_blocks import summary_measures
            return summary_measures(self, rows)
        return all_measures()

    def format_summary(self, summary: dict[str, Any]) -> str:
        # deferred: a top-level import would close an import cycle
        from scholarbench.benchmarks.deepsynth.summary import format_run_summary
        return format_run_summary(summary)

    def score_files(self, models: Any) -> int:
        """`score deepsynth --judged F --out S [--variant]`."""
        # deferred: a top-level import would close an import cycle
        from scholarbench.benchmarks.deepsynth.judged import (format_summary,
                                                              score_deepsynth_judged)
        judged, out = self.options.get("judged"), self.options.get("out")
        if not (judged and out):
            raise ScholarbenchError("score deepsynth needs --judged F.jsonl --out S.jsonl")
        summary = score_deepsynth_judged(Path(judged), Path(out), variant=self._variant())
        print(format_summary(summary))
        print(f"scores: {out}")
        return 0

    def planned_judge_calls(self, subtask: str, samples: Sequence[Sample],
                            generated: dict[str, dict[str, Any]] | None = None
                            ) -> list[Any]:
        """`--dry-run`: before a run the oracle's summaries (one per reference, known only
        once the corpus is read), then the checklist judge's requests (the engine's count:
        `planned_item_calls`); a plain re-score asks nothing."""
        if generated is not None and not self.options.get("with_judge"):
            return []
        out = []
        if generated is None and self._opt("oracle", "summary") == "summary" \
                and not self.options.get("replay"):
            out.append(PlannedCalls("oracle", str(self._opt("oracle_role", "judge")),
                                    panel=False, basis="1 per reference of each task's survey "
                                    "found in the corpus, for agents given the oracle (not "
                                    "replay, endpoint); summaries already made are reused"))
        return [*out, planned_item_calls(self.checklist(), samples, generated)]


__all__ = ["DeepSynthBenchmark"]
