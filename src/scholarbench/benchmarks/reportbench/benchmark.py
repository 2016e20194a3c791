"""ReportBench on the engine: sub-tasks, options, samples, agents, records, scores, summary.

Sub-tasks are the prompt granularities: ``shipped`` (the benchmark's own 100 prompts, the
default) and ``sentence`` / ``paragraph`` / ``detail`` (prompts constructed from each survey by
the judge model before generating, paper §2.1.2). All four are the report family
(`{"report": markdown, "cited": [REF]}`). `eval` runs ``shipped`` only unless told
(`--option reportbench.eval_granularities=shipped,sentence`): the constructed prompts cost a
judge call per survey and the paper's numbers are on the shipped prompts.

Run directory (beside the engine's manifest.json, generate.jsonl, scores.jsonl, summary.json):
prompts.jsonl (constructed granularities, `construct_stage`), judge.titles.jsonl (with
--llm-titles: the engine's judge stage, `title_item`), statements.jsonl (with --statements) —
see `scoring`.

Only a command that names this benchmark imports this file (its package registers the class
lazily): its imports are at the top, but for those that pull in a heavy library (each says
which), so `run <name> --help` stays light (docs/layers.md, "Imports inside functions").
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, ClassVar, Sequence

from scholarbench.core.epochs import sample_id_of
from scholarbench.core.benchmark import Benchmark, Loaded, Sample, summary_line
from scholarbench.core.eval_defaults import EvalDefaults
from scholarbench.benchmarks.reportbench.measures import (HEADLINE, MEASURES, family_of,
                                                         reportbench_measures)
from scholarbench.core.agent import AgentContext
from scholarbench.core.planning import PlannedCalls, planned_item_calls
from scholarbench.core.registry import REGISTRY, add_measures, register_benchmark
from scholarbench.core.usage import model_identity
from scholarbench.errors import ScholarbenchError
from scholarbench.paths import data_dir
from scholarbench.benchmarks.reportbench.agents import WriterAgent, is_writer, writer_names
from scholarbench.benchmarks.reportbench.answers import to_record
from scholarbench.benchmarks.reportbench.construct_stage import (PROMPTS, apply_prompts,
                                                                 run_prompt_stage)
from scholarbench.benchmarks.reportbench.data import (load_recorded_tasks, load_run_tasks,
                                                      recorded_data)
from scholarbench.benchmarks.reportbench.refscore import HiddenSurvey
from scholarbench.benchmarks.reportbench.replay import ReplayReports
from scholarbench.benchmarks.reportbench.run_scoring import (JUDGED, SCORER, prepare_scoring,
                                                             statement_config, statements_on)
from scholarbench.benchmarks.reportbench.llm_titles import LLMTitleExtractor
from scholarbench.benchmarks.reportbench.samples import make_sample
from scholarbench.benchmarks.reportbench.statement_items import StatementSources, statement_items
from scholarbench.benchmarks.reportbench.title_item import title_item
from scholarbench.benchmarks.reportbench.scoring import open_corpus
from scholarbench.benchmarks.reportbench.summary import format_summary, summary_blocks
from scholarbench.tools.rules import AccessRules
from scholarbench.tools.source import ToolSource

SHIPPED = "shipped"
GRANULARITIES = (SHIPPED, "sentence", "paragraph", "detail")
REF_HEADLINE = HEADLINE


def _default_subtask(parser: argparse.ArgumentParser) -> None:
    """`run reportbench` without --granularity runs the shipped prompts (as it always did)."""
    for action in parser._actions:
        if action.dest == "subtask" and "--granularity" in action.option_strings:
            action.required, action.default = False, SHIPPED


add_measures(reportbench_measures())


@register_benchmark("reportbench")
class ReportBench(Benchmark):
    name = "reportbench"
    title = "ReportBench"
    subtasks: ClassVar[dict[str, str]] = {g: "report" for g in GRANULARITIES}
    subtask_flag = "--granularity"
    headline: ClassVar[dict[str, tuple[str, ...]]] = {g: REF_HEADLINE for g in GRANULARITIES}
    order = 40
    construct_text_chars = 40_000

    # the statement rates (their judges read the report); the reference metrics are not judged
    judge_scored: ClassVar[tuple[str, ...]] = tuple(m.key for m in MEASURES if m.judge)
    # the statement judges take a panel and repeats (`statement_panel`, docs/reportbench.md §11)
    judge_panel = True
    judge_options = ("statements",)        # on in `eval` when judges are named

    def __init__(self, options: dict[str, Any] | None = None) -> None:
        super().__init__(options)
        self.eval_granularities = str(self.options.pop("eval_granularities", None) or SHIPPED)
        self.vote_judges: Sequence[Any] = ()     # API: more judges for the non-cited vote
        self.evidence_tool: Any = None           # API: an EvidenceTool (e.g. web search)
        self.statement_config: Any = None        # API: a statements.StatementConfig
        self._corpus: Any = None
        self._corpus_dir: Path | None = None
        self._judge: Any = None
        self._data: dict[str, Any] = {}
        self._template = ""
        self._statement_sources: StatementSources | None = None

    # -- command line ------------------------------------------------------------------------
    @classmethod
    def add_options(cls, parser: argparse.ArgumentParser, command: str) -> None:
        if command == "score":
            parser.add_argument("--gt-dir", help="reportbench: ground-truth folder (one "
                                "<arxiv_id> JSON-lines file of reference titles per survey)")
            parser.add_argument("--pred", help="reportbench: predictions — upstream's "
                                "{arxiv_id, report | references} lines, family-schema {id, "
                                "report, cited} lines, or a run's generate.jsonl")
            parser.add_argument("--out", help="reportbench: scores file to write")
        else:
            _default_subtask(parser)
            parser.add_argument("--tasks", help="reportbench: the ReportBench folder (task "
                                "file + template) or its task file (default: the imported "
                                "reportbench dataset)")
            parser.add_argument("--gt-dir", help="reportbench: ground-truth folder (default: "
                                "the one beside the tasks)")
            parser.add_argument("--evidence", choices=["corpus", "none"], default="corpus",
                                help="reportbench: evidence for the non-cited vote")
            parser.add_argument("--eval-granularities", default=SHIPPED,
                                help="reportbench, eval only: the granularities eval runs "
                                "(comma-separated; default shipped)")
        parser.add_argument("--corpus", help="reportbench: corpus directory to resolve "
                            "references (run default: built from the data unless the agent is "
                            "replay without judging; score default: none)")
        parser.add_argument("--match", choices=["exact", "aligned"], default="exact",
                            help="reportbench: normalised-title equality (default) or the "
                            "TaxoBench title alignment rule")
        parser.add_argument("--unresolved", choices=["exclude", "miss"], default="exclude",
                            help="reportbench: references without a title leave the precision "
                            "denominator (default, as upstream) or count as misses")
        parser.add_argument("--statements", action="store_true", help="reportbench: also "
                            "judge cited and non-cited statements (judge role)")
        parser.add_argument("--llm-titles", action="store_true", help="reportbench: let the "
                            "judge model extract titles of references nothing else resolves")
        parser.add_argument("--allow-network", action="store_true", help="reportbench: fetch "
                            "cited URLs not in the corpus (public http(s) only; off by default)")
        parser.add_argument("--samples", type=int, default=3, help="reportbench: votes per "
                            "judge for non-cited statements")
        parser.add_argument("--statement-prompts", choices=["v1", "upstream"], default="v1",
                            help="reportbench: our statement prompts (default) or upstream "
                            "statement/prompts.py verbatim (report pasted raw)")

    def eval_defaults(self) -> EvalDefaults:
        """`eval` runs the granularities of `eval_granularities` when the task file is
        there."""
        wanted = tuple(g.strip() for g in self.eval_granularities.split(",") if g.strip())
        unknown = [g for g in wanted if g not in GRANULARITIES]
        if unknown:
            raise ScholarbenchError(f"reportbench eval_granularities: unknown {unknown}; use "
                                    f"{', '.join(GRANULARITIES)}")
        return EvalDefaults(wanted if self._tasks_path().exists() else ())

    # -- data --------------------------------------------------------------------------------
    def _data_root(self) -> Path:
        return data_dir(self.options.get("data"))

    def _tasks_path(self) -> Path:
        return Path(self.options["tasks"]) if self.options.get("tasks") else \
            self._data_root() / "reportbench"

    def _needs_judge(self, subtask: str) -> bool:
        return subtask != SHIPPED or bool(self.options.get("statements")) or \
            bool(self.options.get("llm_titles"))

    def load(self, subtask: str, limit: int | None) -> Loaded:
        if subtask not in self.subtasks:
            raise ScholarbenchError(f"unknown granularity {subtask!r}; use "
                                    f"{', '.join(GRANULARITIES)}")
        if self.options.get("evidence", "corpus") not in ("corpus", "none"):
            raise ScholarbenchError(f"unknown evidence {self.options['evidence']!r}; use "
                                    "corpus or none")
        tasks, self._data, self._template = load_run_tasks(
            self._tasks_path(), self.options.get("gt_dir"), limit)
        return self._samples(tasks, subtask, self._data)

    def _samples(self, tasks: Sequence[Any], subtask: str, data: dict[str, Any]) -> Loaded:
        return Loaded([make_sample(t, self.name, subtask, subtask == SHIPPED) for t in tasks],
                      data)

    def load_for_rescore(self, run: Any, manifest: dict[str, Any]) -> Loaded:
        tasks, self._data, self._template = load_recorded_tasks(manifest)
        loaded = self._samples(tasks, manifest["mode"], self._data)
        if manifest["mode"] != SHIPPED:
            apply_prompts(run, loaded.samples, self._template)
        return loaded

    # -- agents ------------------------------------------------------------------------------
    def agent(self, name: str, params: dict[str, Any], subtask: str) -> Any:
        if name == "replay":
            return ReplayReports(**params, benchmark=self.name, subtask=subtask)
        found = super().agent(name, params, subtask)
        if found is not None:
            return found
        obj = REGISTRY.find("agent", name)
        return WriterAgent(obj, name, params) if obj is not None and is_writer(obj) else None

    def agent_names(self, subtask: str) -> list[str]:
        return ["replay"] + writer_names() + super().agent_names(subtask)

    def tool_source(self, subtask: str) -> ToolSource:
        return ToolSource(self._open_tool_corpus, self._tool_rules,
                          samples=lambda: self.load(subtask, None).samples)

    def _open_tool_corpus(self) -> tuple[Any, Any]:
        if self._corpus is None:        # `tools serve`: no run's context opened it
            # deferred: pulls in pyarrow
            from scholarbench.corpus.build import default_corpus
            self._corpus_dir = Path(self.options.get("corpus")
                                    or default_corpus(self._data_root()))
            self._corpus = open_corpus(self._corpus_dir)
        return self._corpus, self._corpus_dir

    def _tool_rules(self, sample: Sample) -> Any:
        """The reverse-engineered prompt's rules: only papers published before its cut-off
        date, and never the original survey (its arXiv id, DOI and title)."""
        native = sample.task.native
        return AccessRules(before=native.cutoff,
                           exclude_ids=tuple(native.exclude_ids) + (native.task.title,),
                           why="ReportBench: papers published before the prompt's cut-off "
                           "date, never the original survey")

    def context(self, agent: Any, subtask: str, roles: Any) -> Any:
        # deferred: pulls in pyarrow
        from scholarbench.corpus.build import corpus_info, default_corpus
        needs_judge = self._needs_judge(subtask)
        roles.bind(agent=agent.needs.llm, judge=needs_judge)
        self._judge = roles.judge() if needs_judge else None
        self._warn_unused_panel(roles, needs_judge)
        self._corpus, self._corpus_dir = None, None
        corpus_dir = self.options.get("corpus")
        if not corpus_dir and (agent.name != "replay" or self.options.get("statements")
                               or self.options.get("llm_titles")):
            corpus_dir = default_corpus(self._data_root())
        if corpus_dir:
            self._corpus_dir = Path(corpus_dir)
            self._corpus = open_corpus(self._corpus_dir)
        self._data["corpus"] = corpus_info(self._corpus_dir)
        self._data["corpus_sha256"] = getattr(self._corpus, "papers_sha256", None)
        if subtask != SHIPPED:
            self._data["prompt_model"] = model_identity(self._judge)
        return AgentContext(benchmark=self.name, subtask=subtask,
                            llm=roles.agent() if agent.needs.llm else None,
                            corpus=self._corpus, corpus_dir=self._corpus_dir)

    def _warn_unused_panel(self, roles: Any, needs_judge: bool) -> None:
        """A panel or repeats judge the statements only: without --statements, say so."""
        if self.options.get("statements"):
            return
        recipe = getattr(roles, "recipe", None) or {}
        if recipe.get("panel_flags") or getattr(roles, "judge_samples", 1) > 1 or (
                needs_judge and len(roles.judges()) > 1):
            import sys
            print("warning: reportbench: a judge panel and --judge-samples judge the "
                  "statements (--statements), which this run does not judge; "
                  + ("the first judge alone constructs prompts / extracts titles"
                     if needs_judge else "no judge is used"), file=sys.stderr)

    def prepare_run(self, run: Any, loaded: Loaded, manifest: dict[str, Any], *,
                    progress: bool = True) -> None:
        manifest["corpus"] = self._data.get("corpus")
        if manifest["mode"] != SHIPPED:
            judge = self._judge
            manifest.setdefault("models", {})["prompt"] = {**judge.config.public(),
                                                           "model_id": judge.model_id}
        run.write_manifest(manifest)
        if manifest["mode"] != SHIPPED:
            run_prompt_stage(run, loaded.samples, self._judge, self._corpus, manifest["mode"],
                             self.construct_text_chars, self._template,
                             progress=progress)

    def record(self, sample: Sample, answer: Any) -> dict[str, Any]:
        return to_record(answer, sample.task.prompt, self._corpus,
                         HiddenSurvey.of(sample.task.native.task))

    # -- scoring -----------------------------------------------------------------------------
    def scoring_judge(self, models: Any) -> Any:
        """The judge this scoring asks (`run_scoring`): the run's, bound in `context`, else
        with `--with-judge` the judge role; None when nothing is judged or recorded judge
        outputs are only replayed."""
        if not (statements_on(self.options) or self.options.get("llm_titles")):
            return None
        if self._judge is not None:
            return self._judge
        return models.judge() if self.options.get("with_judge") else None

    def scoring_corpus(self, data: dict[str, Any]) -> Any:
        """The corpus the references resolve against: the run's (opened in `context`), else
        the one the manifest's `data` names, opened once."""
        if self._corpus is None and isinstance(data.get("corpus"), dict):
            self._corpus = open_corpus(data["corpus"].get("path"))
        return self._corpus

    def prepare_scoring(self, samples: Sequence[Sample], generated: dict[str, dict[str, Any]],
                        ctx: Any) -> None:
        """The scorer and every answer's judged steps (LLM titles, statements), once."""
        data = recorded_data(ctx.manifest)
        prepare_scoring(self, samples, generated, ctx, judge=self.scoring_judge(ctx.models),
                        corpus=self.scoring_corpus(data), gt_dir=data["gt_dir"])

    def score_sample(self, sample: Sample, record: dict[str, Any] | None, ctx: Any
                     ) -> dict[str, Any]:
        prompt = ctx.stage_records.get(PROMPTS, {}).get(sample_id_of(sample))
        return ctx.shared[SCORER].row(sample, record, ctx.shared[JUDGED][sample.id], prompt)

    def measures(self, subtask: str | None,
                 rows: Sequence[dict[str, Any]] | None = None) -> tuple[Any, ...]:
        """Every declared measure; for a run's rows, the statement ones only when statements
        were judged."""
        judged = rows is None or any("statements" in r for r in rows)
        return tuple(m for m in reportbench_measures()
                     if judged or family_of(m) != "statement")

    def summary_extras(self, rows: Sequence[dict[str, Any]], manifest: dict[str, Any]
                       ) -> dict[str, Any]:
        """Beside `metrics`, from the rows and the manifest only (`summary.summary_blocks`)."""
        return summary_blocks(rows, manifest)

    def format_summary(self, summary: dict[str, Any]) -> str:
        return summary_line(summary) + "\n" + format_summary(summary)

    def score_files(self, models: Any) -> int:
        # deferred: a top-level import would close an import cycle
        from scholarbench.benchmarks.reportbench.score_files import score_files_command
        return score_files_command(self, models)

    def titles_item(self) -> Any:
        """The LLM titles' judged item (`title_item`), over the run's corpus."""
        extractor = LLMTitleExtractor(None, allow_network=bool(self.options.get(
            "allow_network")))
        return title_item(extractor, lambda: self.scoring_corpus(self._data))

    def judged_items(self, subtask: str | None) -> tuple[Any, ...]:
        """When this invocation asks a judge (a run, or `score RUN_DIR --with-judge`; a plain
        re-score reads what is on file): the LLM titles (`--llm-titles`), then the statement
        extraction (`statement_items`, with statements judged)."""
        if self._judge is None and not self.options.get("with_judge"):
            return ()
        items: tuple[Any, ...] = ()
        if self.options.get("llm_titles"):
            items += (self.titles_item(),)
        if statements_on(self.options):
            items += statement_items(statement_config(self), self.statement_sources())
        return items

    def statement_sources(self) -> StatementSources:
        """What the statement checks and votes read: the run's corpus (opened on first use),
        the evidence tool, the LLM titles' chunking when on, the API's extra vote judges."""
        if self._statement_sources is not None:     # one per benchmark: the requests and
            return self._statement_sources         # the result share its searches
        opts = self.options
        self._statement_sources = StatementSources(
            lambda: self.scoring_corpus(self._data),
            allow_network=bool(opts.get("allow_network")), evidence=self.evidence_tool,
            evidence_mode=opts.get("evidence") or "corpus",
            title_chars=LLMTitleExtractor(None).chunk_chars if opts.get("llm_titles") else None,
            voters=self.vote_judges)
        return self._statement_sources

    def asks_judge(self, subtask: str, rescore: bool = False) -> bool:
        """Statements and LLM titles ask the judge role; a re-score with `--with-judge` the
        statement judges."""
        opts = self.options
        return bool(opts.get("statements") or opts.get("llm_titles")
                    or (rescore and opts.get("with_judge")))

    def planned_judge_calls(self, subtask: str, samples: Sequence[Sample],
                            generated: dict[str, dict[str, Any]] | None = None
                            ) -> list[Any]:
        """`--dry-run`: a constructed granularity's prompts (one per task, before the agent);
        the statement judges and LLM titles depend on each report, so only their rules."""
        opts, out = self.options, []
        if generated is None and subtask != SHIPPED:
            out.append(PlannedCalls("prompts", calls=len(samples), panel=False,
                                    basis="1 per task: its prompt constructed from the survey "
                                    "(+1 repair per unusable reply); made ones are reused"))
        statements = bool(opts.get("statements") or (generated is not None and opts.get(
            "with_judge") and opts.get("judge_statements", True)))
        if opts.get("llm_titles") and generated is None:     # a re-score: `judged_items`
            out.append(planned_item_calls(self.titles_item(), samples, None))
        if statements and generated is None:     # a re-score: `judged_items`
            out += [planned_item_calls(item, samples, None) for item in
                    statement_items(statement_config(self), self.statement_sources())]
        return out
